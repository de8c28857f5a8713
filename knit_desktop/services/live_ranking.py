"""The live ranking: the followed DSH conversation ranked over its own workspace, kept current.

Ties the conversation follower, the indexer service and the folder watcher together. The workspace follows the
followed session's cwd unless the user pinned one; a topic typed by the user replaces the conversation as the
ranking input while it is set. Every change (new messages, changed files, another session) asks for a new ranking;
only the newest answer is delivered.
"""

from __future__ import annotations

import os

from PySide6.QtCore import QObject, Signal

from ..core.dsh.conversation import ConversationTail, Message
from ..core.dsh.sessions import KEEP_READS, Read
from ..core.dsh.usage import PackSnapshot, Usage, UsageAudit
from ..core.index.boundary import UnsafeWorkspace, check_workspace
from ..core.memory.triggers import asks_to_remember
from ..core.view import LISTED_ROWS, ViewResult
from ..core.workspace import RankInput
from .conversation import ConversationFollower
from .indexer import IndexerService
from .watcher import MODE_STOPPED, WorkspaceWatcher

# The views whose documents are cut at LISTED_ROWS: the list of documents, and the All view's documents (it shows
# only the first few, but counts and filters them all). Images and videos are never cut.
CUT_KINDS = ("doc", "all")


def _acceptable(cwd: str) -> bool:
    """A session's cwd is followed only when the workspace rule accepts it (not /, the home folder, a system
    folder, nor a relative path)."""
    try:
        check_workspace(cwd)
    except UnsafeWorkspace:
        return False
    return True


class LiveRanking(QObject):
    rankingChanged = Signal(object)  # ViewResult
    workspaceChanged = Signal(str)  # the workspace now ranked ('' when there is none)
    sessionChanged = Signal(object)  # the followed session's snapshot (or None)
    indexProgress = Signal(int, int, str)
    indexOpened = Signal(object)  # the RefreshReport of the workspace's first look
    watchModeChanged = Signal(str, str)  # a watcher mode (watcher.MODE_*), its detail
    previewReady = Signal(int, object)  # token of a preview request, PreviewData
    pageRendered = Signal(int, object)  # token, (rel, page, pages, QImage) or (rel, page, 0, error)
    failed = Signal(str, str)  # an indexer failure code (indexer.FAILED_*), its detail
    errored = Signal(int, str)  # a worker call failed: its token (0: not a request), what went wrong
    rememberRequested = Signal(str)  # the user's own new message asks to remember something
    libraryChanged = Signal(object)  # the library folders open now (list of indexer.LibraryFolder)

    def __init__(self, dsh_home: str | None = None, workspace: str | None = None, persistent: bool = True,
                 follow: bool = True, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.persistent = persistent
        self.follow = follow
        self.kind = "doc"
        self.sort = "relevance"
        self.scope = "workspace"  # workspace | library | all: what the list ranks over
        self.needle = ""  # the window's filter, for a list cut at LISTED_ROWS (see set_filter)
        self.library_folders: list[str] = []
        self._library_watchers: dict[str, WorkspaceWatcher] = {}  # by real path
        self.session: dict | None = None
        self.pinned_session: str | None = None
        self.audit = UsageAudit()

        self.pinned_workspace = os.path.realpath(workspace) if workspace else None
        self.root = ""
        self.conversation = ConversationTail()  # what the ranker reads of the conversation, nothing older
        self.reads: list[Read] = []  # the followed session's read calls (the usage line audits them)
        self.topic = ""
        self._indexer: IndexerService | None = None
        self._watcher: WorkspaceWatcher | None = None
        self._ready = False
        self._latest = 0
        self._asked: dict[int, tuple] = {}  # rankings asked for and not answered: token -> view
        self._shown_token = 0
        self._shown: ViewResult | None = None  # the last result delivered
        self._retired: list[IndexerService] = []  # old workspaces' indexers, still saving
        self.follower = ConversationFollower(dsh_home, self)
        self.follower.sessionChanged.connect(self._on_session)
        self.follower.messagesChanged.connect(self._on_messages)
        self.follower.errored.connect(self.errored)

    def start(self) -> None:
        if self.pinned_workspace:
            self._switch(self.pinned_workspace)
        if self.follow:
            self.follower.start()

    def stop(self) -> None:
        """End everything, waiting for the threads (application exit only)."""
        self.follower.stop()
        self._watch_library([], wait=True)
        self._close_workspace(wait=True)
        for indexer in list(self._retired):
            indexer.wait()
        self._retired.clear()

    # --- inputs --------------------------------------------------------------------------------------

    def pin_session(self, session_id: str | None) -> None:
        self.pinned_session = session_id or None
        self.follower.pin(self.pinned_session)

    def pin_workspace(self, path: str | None) -> None:
        self.pinned_workspace = os.path.realpath(path) if path else None
        if self.pinned_workspace:
            self._switch(self.pinned_workspace)

    def set_messages(self, messages: list[Message]) -> None:
        """A fixed conversation (the demo, or --messages) instead of a followed session."""
        self.conversation = ConversationTail(messages)
        self.rerank()

    def set_view(self, kind: str, sort: str) -> None:
        if (kind, sort) != (self.kind, self.sort):
            self.kind, self.sort = kind, sort
            self.rerank()

    def set_scope(self, scope: str) -> None:
        """Rank over the workspace, the library folders, or both ("all")."""
        if scope != self.scope:
            self.scope = scope
            self.rerank()

    def set_library(self, folders: list[str]) -> None:
        """The library folders: opened (indexed) on the indexer's thread and watched like the workspace."""
        self.library_folders = list(folders)
        self._watch_library(self.library_folders)
        if self._indexer is not None:
            self._indexer.set_library(self.library_folders)

    def _watch_library(self, folders: list[str], wait: bool = False) -> None:
        """Watch exactly these folders. `wait` only at exit: a removed folder's observer threads otherwise wind
        down on their own, so the GUI thread is not held up (as when the workspace changes)."""
        wanted = [os.path.realpath(f) for f in folders if os.path.isdir(f)]
        for real in [r for r in self._library_watchers if r not in wanted]:
            watcher = self._library_watchers.pop(real)
            watcher.stop(wait=wait)
            watcher.deleteLater()
        for real in wanted:
            if real in self._library_watchers:
                continue
            watcher = WorkspaceWatcher(real, self)
            # Through self, not straight to an indexer: the workspace (and with it the indexer) may change.
            watcher.pathsChanged.connect(lambda rels, real=real: self._library_paths(real, rels))
            watcher.rescanNeeded.connect(lambda folders, real=real: self._refresh_library(real, folders))
            # Its watches come into place on a thread of their own, after the folder's walk may have begun.
            watcher.modeChanged.connect(
                lambda mode, _detail, real=real, watcher=watcher: self._library_watched(real, mode, watcher))
            self._library_watchers[real] = watcher
            watcher.start()  # falls back to polling when the system refuses more watches

    def _library_watched(self, real: str, mode: str, watcher: WorkspaceWatcher) -> None:
        if self._indexer is not None and mode != MODE_STOPPED:
            self._indexer.library_watched(real, watcher.watching_since)

    def _refresh_library(self, real: str, folders: list[str]) -> None:
        if self._indexer is not None:
            self._indexer.refresh_library(real, folders)

    def library_watch_modes(self) -> dict[str, str]:
        """Each watched library folder's watcher mode (watcher.MODE_*)."""
        return {real: watcher.mode for real, watcher in self._library_watchers.items()}

    def _library_paths(self, real: str, rels: list[str]) -> None:
        if self._indexer is not None:
            self._indexer.apply_library_paths(real, rels)

    def refresh(self) -> None:
        if self._indexer is not None:
            self._indexer.refresh()
            for real in self._library_watchers:
                self._indexer.refresh_library(real)

    def preview(self, rel: str, root: str = "") -> int:
        """Ask for a document's preview (of the library folder at `root`; '': the workspace's); the answer comes
        on `previewReady` with the returned token (0: no index)."""
        return self._indexer.preview(rel, self._folder(root)) if self._indexer is not None else 0

    def render_page(self, rel: str, page: int, width: int, terms: tuple[str, ...] = (), root: str = "") -> int:
        return (self._indexer.render_page(rel, page, width, terms, self._folder(root))
                if self._indexer is not None else 0)

    def _folder(self, root: str) -> str:
        """'' for the workspace, else the library folder's real path."""
        return "" if not root or root == self.root else os.path.realpath(root)

    def set_filter(self, text: str) -> None:
        """The window's filter. The window filters the rows it has at once; the list of documents is ranked again
        with the filter only when its rows were cut (a large workspace), so documents past the cut are found
        too, and again without it when the filter is cleared."""
        needle = text.strip().lower()
        if needle == self.needle:
            return
        self.needle = needle
        shown = self._shown.docs if self._shown is not None and self._shown.kind in CUT_KINDS else None
        pending = self._latest in self._asked  # an answer on its way was asked for with the filter before
        if self.kind in CUT_KINDS and (pending or shown is None or not shown.complete or shown.needle):
            self.rerank()

    def set_topic(self, text: str) -> None:
        """A topic typed by the user; while non-empty it replaces the conversation as the ranking input."""
        self.topic = text.strip()
        self.rerank()

    # --- reactions -----------------------------------------------------------------------------------

    def _on_session(self, snapshot: dict | None) -> None:
        self.session = snapshot
        self.sessionChanged.emit(snapshot)
        self.conversation = ConversationTail(snapshot["messages"] if snapshot else [])
        self.reads = list(snapshot["reads"]) if snapshot else []
        cwd = snapshot["session"]["cwd"] if snapshot else ""
        if not self.pinned_workspace and cwd and os.path.isdir(cwd) and _acceptable(cwd):
            self._switch(os.path.realpath(cwd))
        self.rerank()

    def _on_messages(self, snapshot: dict) -> None:
        """New messages, reads or a title of the followed session (the snapshot carries only what is new)."""
        new = snapshot["messages"]
        for message in new:
            if message.role == "user" and not message.synthetic and asks_to_remember(message.text):
                self.rememberRequested.emit(message.text)
        self.session = snapshot
        if snapshot["reads"]:
            self.reads.extend(snapshot["reads"])
            del self.reads[:-KEEP_READS]
        if not self.conversation.extend(new) and self._shown is not None:
            self._deliver(self._shown)  # only reads changed: same ranking, new usage line
            return
        self.rerank()

    def _switch(self, root: str) -> None:
        if root == self.root:
            return
        self._close_workspace(wait=False)
        self.root = root
        self._ready = False
        self._shown = None
        indexer = IndexerService(root, persistent=self.persistent, parent=None)
        indexer.opened.connect(self._on_opened)
        indexer.documentsChanged.connect(lambda _report: self.rerank())
        indexer.ranked.connect(self._on_ranked)
        indexer.previewReady.connect(self.previewReady)
        indexer.pageRendered.connect(self.pageRendered)
        indexer.failed.connect(self.failed)
        indexer.errored.connect(self.errored)
        indexer.progress.connect(self.indexProgress)
        indexer.libraryChanged.connect(self._on_library)
        watcher = WorkspaceWatcher(root, self)
        indexer.follow(watcher)
        watcher.modeChanged.connect(self.watchModeChanged)
        self._indexer, self._watcher = indexer, watcher
        indexer.start()
        if self.library_folders:
            indexer.set_library(self.library_folders)  # queued after the workspace's own first look
        watcher.start()
        self.workspaceChanged.emit(root)

    def _close_workspace(self, wait: bool) -> None:
        if self._watcher is not None:
            self._watcher.stop(wait=wait)
            self._watcher.deleteLater()
            self._watcher = None
        self._asked.clear()
        if self._indexer is not None:
            indexer, self._indexer = self._indexer, None
            indexer.disconnect_all()  # nothing the old workspace's worker still says reaches the window
            if wait:
                indexer.stop()
            else:
                self._retired.append(indexer)
                indexer.retire()  # the GUI thread does not wait for the old index to save
                indexer.destroyed.connect(lambda *_: self._retired.remove(indexer) if indexer in self._retired else None)

    def _on_opened(self, report) -> None:
        self._ready = True
        self.indexOpened.emit(report)
        self.rerank()

    def _on_library(self, folders: list) -> None:
        self.libraryChanged.emit(folders)
        if self.scope != "workspace":
            self.rerank()

    def rerank(self) -> None:
        if self._indexer is None or not self._ready:
            return
        request = RankInput.from_query(self.topic) if self.topic else RankInput.from_messages(self.conversation.messages)
        with_context = self.kind == "doc" and self.sort == "relevance"
        scope = self.scope if self.library_folders else "workspace"
        # The documents listed (in the Docs and the All view) are cut at LISTED_ROWS; the grid keeps every row.
        limit = LISTED_ROWS if self.kind in CUT_KINDS else None
        self._latest = self._indexer.rank(request, kind=self.kind, sort=self.sort, with_context=with_context,
                                          scope=scope, limit=limit, needle=self.needle if limit else "")
        # What an earlier answer must share with the newest request to stand in for it: the view, and an input
        # of the same kind (a topic typed is not the conversation; a library folder removed is not listed).
        # (The filter sent too: an answer filtered otherwise would show rows the filter box does not ask for.)
        self._asked[self._latest] = (self.kind, self.sort, scope, self.topic, tuple(self.library_folders),
                                     self.needle if limit else "")

    def _on_ranked(self, token: int, result: ViewResult) -> None:
        view = self._asked.pop(token, None)
        # An earlier request's answer, finished while a newer one waits, is shown when nothing newer has been and
        # it is of the view asked for last: a conversation that moves faster than one ranking (a large
        # workspace) would otherwise never see one.
        stale = token < self._shown_token or view is None or view != self._asked.get(self._latest)
        if token != self._latest and stale:
            return
        self._asked = {t: v for t, v in self._asked.items() if t > token}
        self._shown_token = max(self._shown_token, token)
        self._deliver(result)

    def _deliver(self, result: ViewResult) -> None:
        """Show `result` with the followed session's usage line as it is now (the requests asked for stay)."""
        result = result.with_usage(self._usage(result))
        self._shown = result
        # No heap freeze here: the shown ranking is replaced within seconds, and whatever a freeze caught of it
        # would stay out of the collector's reach for good (core/heap.py).
        self.rankingChanged.emit(result)

    def _usage(self, result: ViewResult) -> Usage | None:
        """The usage facts for the followed session (the same facts knit_docs gives the agent with audit on)."""
        session = self.session
        if not session or not result.has_pack or not session["session"]["id"]:
            return None
        sid = session["session"]["id"]
        indexed = result.is_indexed or {r.rel for r in result.docs.rows}.__contains__
        usage = self.audit.usage(sid, self.reads, root=self.root, cwd=session["session"]["cwd"],
                                 is_indexed=indexed)
        self.audit.record_snapshot(sid, PackSnapshot(session.get("last_seq", -1), result.task, result.pack_tiers()))
        return usage
