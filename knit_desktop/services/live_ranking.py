"""The live ranking: the followed DSH conversation ranked over its own workspace, kept current.

Ties the conversation follower, the indexer service and the folder watcher together. The workspace follows the
followed session's cwd unless the user pinned one; a topic typed by the user replaces the conversation as the
ranking input while it is set. Every change (new messages, changed files, another session) asks for a new ranking;
only the newest answer is delivered.
"""

from __future__ import annotations

import os

from PySide6.QtCore import QObject, Signal

from ..core.dsh.conversation import Message
from ..core.dsh.usage import UsageAudit
from ..core.heap import settle_heap
from ..core.index.boundary import UnsafeWorkspace, check_workspace
from ..core.memory.triggers import asks_to_remember
from ..core.workspace import RankInput
from .conversation import ConversationFollower
from .indexer import IndexerService
from .watcher import WorkspaceWatcher


def _acceptable(cwd: str) -> bool:
    """A session's cwd is followed only when the workspace rule accepts it (not /, the home folder, a system
    folder, nor a relative path)."""
    try:
        check_workspace(cwd)
    except UnsafeWorkspace:
        return False
    return True


def _count(snapshot: dict) -> int:
    return snapshot.get("message_count", len(snapshot["messages"]))


class LiveRanking(QObject):
    rankingChanged = Signal(object)  # {"rank": rank payload, "context": context pack payload}
    workspaceChanged = Signal(str)  # the workspace now ranked ('' when there is none)
    sessionChanged = Signal(object)  # the followed session's snapshot (or None)
    indexProgress = Signal(int, int, str)
    indexOpened = Signal(object)  # the RefreshReport of the workspace's first look
    fileStatuses = Signal(object)
    watchModeChanged = Signal(str)
    previewReady = Signal(int, object)  # token of a preview request, PreviewData
    pageRendered = Signal(int, object)  # token, (rel, page, pages, QImage) or (rel, page, 0, error)
    failed = Signal(str)
    rememberRequested = Signal(str)  # the user's own new message asks to remember something

    def __init__(self, dsh_home: str | None = None, workspace: str | None = None, persistent: bool = True,
                 follow: bool = True, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.persistent = persistent
        self.follow = follow
        self.kind = "doc"
        self.sort = "relevance"
        self.session: dict | None = None
        self.pinned_session: str | None = None
        self.audit = UsageAudit()

        self.pinned_workspace = os.path.realpath(workspace) if workspace else None
        self.root = ""
        self.messages: list[Message] = []
        self._message_count = 0  # messages the followed session has had (its snapshot keeps only the newest)
        self.topic = ""
        self._indexer: IndexerService | None = None
        self._watcher: WorkspaceWatcher | None = None
        self._ready = False
        self._latest = 0
        self._shown: dict | None = None  # the last payload delivered
        self._retired: list[IndexerService] = []  # old workspaces' indexers, still saving
        self.follower = ConversationFollower(dsh_home, self)
        self.follower.sessionChanged.connect(self._on_session)
        self.follower.messagesChanged.connect(self._on_messages)

    def start(self) -> None:
        if self.pinned_workspace:
            self._switch(self.pinned_workspace)
        if self.follow:
            self.follower.start()

    def stop(self) -> None:
        """End everything, waiting for the threads (application exit only)."""
        self.follower.stop()
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
        self.messages = list(messages)
        self.rerank()

    def set_view(self, kind: str, sort: str) -> None:
        if (kind, sort) != (self.kind, self.sort):
            self.kind, self.sort = kind, sort
            self.rerank()

    def refresh(self) -> None:
        if self._indexer is not None:
            self._indexer.refresh()

    def preview(self, rel: str) -> int:
        """Ask for a document's preview; the answer comes on `previewReady` with the returned token (0: no index)."""
        return self._indexer.preview(rel) if self._indexer is not None else 0

    def render_page(self, rel: str, page: int, width: int, terms: tuple[str, ...] = ()) -> int:
        return self._indexer.render_page(rel, page, width, terms) if self._indexer is not None else 0

    def set_topic(self, text: str) -> None:
        """A topic typed by the user; while non-empty it replaces the conversation as the ranking input."""
        self.topic = text.strip()
        self.rerank()

    # --- reactions -----------------------------------------------------------------------------------

    def _on_session(self, snapshot: dict | None) -> None:
        self.session = snapshot
        self.sessionChanged.emit(snapshot)
        self.messages = list(snapshot["messages"]) if snapshot else []
        self._message_count = _count(snapshot) if snapshot else 0
        cwd = snapshot["session"]["cwd"] if snapshot else ""
        if not self.pinned_workspace and cwd and os.path.isdir(cwd) and _acceptable(cwd):
            self._switch(os.path.realpath(cwd))
        self.rerank()

    def _on_messages(self, snapshot: dict) -> None:
        fresh = _count(snapshot) - self._message_count  # the list keeps only the newest: count, don't compare lengths
        self._message_count = _count(snapshot)
        for message in snapshot["messages"][-fresh:] if fresh > 0 else []:
            if message.role == "user" and not message.synthetic and asks_to_remember(message.text):
                self.rememberRequested.emit(message.text)
        self.session = snapshot
        if snapshot["messages"] == self.messages and self._shown is not None:
            self._on_ranked(self._latest, dict(self._shown))  # only reads changed: same ranking, new usage line
            return
        self.messages = list(snapshot["messages"])
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
        indexer.fileStatuses.connect(self.fileStatuses)
        indexer.failed.connect(self.failed)
        indexer.progress.connect(self.indexProgress)
        watcher = WorkspaceWatcher(root, self)
        watcher.pathsChanged.connect(indexer.apply_paths)
        watcher.rescanNeeded.connect(indexer.refresh)
        watcher.modeChanged.connect(self.watchModeChanged)
        self._indexer, self._watcher = indexer, watcher
        indexer.start()
        watcher.start()
        self.workspaceChanged.emit(root)

    def _close_workspace(self, wait: bool) -> None:
        if self._watcher is not None:
            self._watcher.stop(wait=wait)
            self._watcher.deleteLater()
            self._watcher = None
        if self._indexer is not None:
            indexer, self._indexer = self._indexer, None
            indexer.opened.disconnect(self._on_opened)
            indexer.ranked.disconnect(self._on_ranked)
            indexer.previewReady.disconnect(self.previewReady)
            indexer.pageRendered.disconnect(self.pageRendered)
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

    def rerank(self) -> None:
        if self._indexer is None or not self._ready:
            return
        request = RankInput.from_query(self.topic) if self.topic else RankInput.from_messages(self.messages)
        with_context = self.kind == "doc" and self.sort == "relevance"
        self._latest = self._indexer.rank(request, kind=self.kind, sort=self.sort, with_context=with_context)

    def _on_ranked(self, token: int, payload: dict) -> None:
        if token != self._latest:
            return
        payload["usage"] = self._usage(payload)
        self._shown = payload
        self.rankingChanged.emit(payload)
        settle_heap()  # the window now holds this ranking's thousands of rows

    def _usage(self, payload: dict) -> str:
        """The usage line for the followed session (the same facts knit_docs gives the agent with audit on)."""
        session, context = self.session, payload.get("context")
        if not session or not context or not session["session"]["id"]:
            return ""
        sid = session["session"]["id"]
        indexed = {r["rel"] for r in payload["rank"]["results"]}
        usage = self.audit.usage(sid, session["reads"], root=self.root, cwd=session["session"]["cwd"],
                                 is_indexed=indexed.__contains__)
        self.audit.record(sid, context, session.get("last_seq", -1))
        return usage.line() if usage is not None else ""
