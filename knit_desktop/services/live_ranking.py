"""The live ranking: the followed DSH conversation ranked over its own workspace, kept current.

Ties the conversation follower, the indexer service and the folder watcher together. The workspace follows the
followed session's cwd unless the user pinned one; a topic typed by the user replaces the conversation as the
ranking input while it is set. Every change (new messages, changed files, another session) asks for a new ranking;
only the newest answer is delivered.
"""

from __future__ import annotations

import os

from PySide6.QtCore import QObject, Signal

from ..core.conversation import Message
from ..core.workspace import RankInput
from .conversation import ConversationFollower
from .indexer import IndexerService
from .watcher import WorkspaceWatcher


class LiveRanking(QObject):
    rankingChanged = Signal(object)  # {"rank": rank payload, "context": context pack payload}
    workspaceChanged = Signal(str)  # the workspace now ranked ('' when there is none)
    sessionChanged = Signal(object)  # the followed session's snapshot (or None)
    indexProgress = Signal(int, int, str)
    watchModeChanged = Signal(str)

    def __init__(self, dsh_home: str | None = None, workspace: str | None = None, persistent: bool = True,
                 parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.persistent = persistent
        self.pinned_workspace = os.path.realpath(workspace) if workspace else None
        self.root = ""
        self.messages: list[Message] = []
        self.topic = ""
        self._indexer: IndexerService | None = None
        self._watcher: WorkspaceWatcher | None = None
        self._ready = False
        self._latest = 0
        self._retired: list[IndexerService] = []  # old workspaces' indexers, still saving
        self.follower = ConversationFollower(dsh_home, self)
        self.follower.sessionChanged.connect(self._on_session)
        self.follower.messagesChanged.connect(self._on_messages)

    def start(self) -> None:
        if self.pinned_workspace:
            self._switch(self.pinned_workspace)
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
        self.follower.pin(session_id)

    def pin_workspace(self, path: str | None) -> None:
        self.pinned_workspace = os.path.realpath(path) if path else None
        if self.pinned_workspace:
            self._switch(self.pinned_workspace)

    def set_topic(self, text: str) -> None:
        """A topic typed by the user; while non-empty it replaces the conversation as the ranking input."""
        self.topic = text.strip()
        self.rerank()

    # --- reactions -----------------------------------------------------------------------------------

    def _on_session(self, snapshot: dict | None) -> None:
        self.sessionChanged.emit(snapshot)
        self.messages = list(snapshot["messages"]) if snapshot else []
        cwd = snapshot["session"]["cwd"] if snapshot else ""
        if not self.pinned_workspace and cwd and os.path.isdir(cwd):
            self._switch(os.path.realpath(cwd))
        self.rerank()

    def _on_messages(self, snapshot: dict) -> None:
        self.messages = list(snapshot["messages"])
        self.rerank()

    def _switch(self, root: str) -> None:
        if root == self.root:
            return
        self._close_workspace(wait=False)
        self.root = root
        self._ready = False
        indexer = IndexerService(root, persistent=self.persistent, parent=None)
        indexer.opened.connect(self._on_opened)
        indexer.documentsChanged.connect(lambda _report: self.rerank())
        indexer.ranked.connect(self._on_ranked)
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
            if wait:
                indexer.stop()
            else:
                self._retired.append(indexer)
                indexer.retire()  # the GUI thread does not wait for the old index to save
                indexer.destroyed.connect(lambda *_: self._retired.remove(indexer) if indexer in self._retired else None)

    def _on_opened(self, _report) -> None:
        self._ready = True
        self.rerank()

    def rerank(self) -> None:
        if self._indexer is None or not self._ready:
            return
        request = RankInput.from_query(self.topic) if self.topic else RankInput.from_messages(self.messages)
        self._latest = self._indexer.rank(request, with_context=True)

    def _on_ranked(self, token: int, payload: dict) -> None:
        if token == self._latest:
            self.rankingChanged.emit(payload)
