"""The conversation follower: watches DSH's sessions root and reports the followed session's messages.

One worker object in its own QThread does all log reading (a first read of a large log takes a while); it hears
about appends from watchdog, waits for a short quiet period (DSH flushes batches every 200 ms), decodes only the
new frames and emits the message list. It follows the most recently appended top-level session unless the user
pinned one, and says when the followed session changes (the workspace follows its cwd).
"""

from __future__ import annotations

import os
import time
from typing import Protocol

from PySide6.QtCore import QObject, QTimer, Signal, SignalInstance, Slot
from watchdog.events import FileSystemEvent, FileSystemEventHandler

from ..core.dsh.conversation import ConversationTail, Message
from ..core.dsh.sessions import (
    TRANSCRIPT,
    SessionCatalog,
    SessionLog,
    active_session,
    dsh_home,
    sessions_root,
)
from ..core.index.watching import stop_observer, watch_tree
from .worker import Worker, WorkerThread, guarded

QUIET_MS = 50
REDISCOVER_MS = 2000  # while the sessions root does not exist yet, or a new session directory appears


def session_snapshot(log: SessionLog, messages: list[Message] | None = None, reads_before: int = 0) -> dict:
    """What the follower hands to the GUI thread: plain data, no reader state.

    A newly followed session comes with the messages the ranker's window can read (`messages` None); after that
    each snapshot carries only what is new: the messages just read and the reads recorded after the first
    `reads_before` (the receiver keeps the conversation's tail, `ConversationTail`, and the reads). Nothing copies
    the whole history."""
    if messages is None:
        messages = ConversationTail(log.messages).messages
    start = max(0, len(log.reads) - (log.read_count - reads_before))
    return {
        "session": {"id": log.session_id, "cwd": log.cwd, "title": log.title, "updated_ms": log.updated_ms},
        "messages": messages,  # new ones only (oldest first), or the window's tail for a newly followed session
        "message_count": log.message_count,
        "reads": log.reads[start:],
        "problem": log.problem,
        "last_seq": log.last_seq,
    }


class _SessionLogListener(Protocol):
    _touched: SignalInstance
    _rediscover: SignalInstance


class SessionLogEvents(FileSystemEventHandler):
    """Runs on watchdog's thread over DSH's sessions tree: a transcript written or moved becomes the worker's
    `_touched(path)`, a new or moved folder its `_rediscover()` (both signals, so the work happens on the worker's
    own thread). Serves the conversation follower and the history index alike."""

    def __init__(self, worker: _SessionLogListener) -> None:
        self.worker = worker

    def on_any_event(self, event: FileSystemEvent) -> None:
        if event.event_type in ("opened", "closed_no_write"):
            return  # our own reads
        if event.is_directory:
            if event.event_type in ("created", "moved"):
                self.worker._rediscover.emit()
            return
        for path in (event.src_path, getattr(event, "dest_path", "")):
            if path and TRANSCRIPT.match(os.path.basename(os.fsdecode(path))):
                self.worker._touched.emit(os.fsdecode(path))


class _FollowWorker(Worker):
    sessionChanged = Signal(int)  # mailbox key of the newly followed session's snapshot (None inside: no session)
    messagesChanged = Signal(int)  # mailbox key of the snapshot of new messages, new reads or a new title
    sessionsListed = Signal(int)  # mailbox key of [{"id", "title", "cwd", "updated_ms"}]
    _touched = Signal(str)
    _rediscover = Signal()

    def __init__(self, home: str | None) -> None:
        super().__init__()
        self.home = dsh_home(home)
        self.catalog = SessionCatalog(self.home)
        self.followed: SessionLog | None = None
        self.pinned: str | None = None
        self._pending: dict[str, float] = {}
        self._observer = None
        self._timer: QTimer | None = None
        self._poll: QTimer | None = None
        self._touched.connect(self._on_touched)
        self._rediscover.connect(self.rediscover)

    @Slot()
    @guarded
    def start(self) -> None:
        self._timer = QTimer(self)
        self._timer.setInterval(QUIET_MS // 2)
        self._timer.timeout.connect(self._flush)
        self._poll = QTimer(self)
        self._poll.setInterval(REDISCOVER_MS)
        self._poll.timeout.connect(self.rediscover)
        self.rediscover()

    @Slot()
    @guarded
    def rediscover(self) -> None:
        root = sessions_root(self.home)
        self.catalog.refresh()
        if self._observer is None and root.is_dir():
            self._observer = watch_tree(SessionLogEvents(self), str(root))  # None if refused: polled instead
        if self._poll is not None:
            if self._observer is None:
                self._poll.start()
            else:
                self._poll.stop()
        self._choose()

    @Slot()
    @guarded
    def listSessions(self) -> None:
        """Top-level sessions, newest first, for the window's picker (titles of logs not read yet are empty)."""
        self.catalog.refresh()
        rows = [
            {"id": log.session_id, "title": log.title, "cwd": log.cwd, "updated_ms": log.updated_ms}
            for log in sorted(self.catalog.logs, key=lambda log: -log.updated_ms)
            if log.header is not None and log.top_level
        ]
        self.sessionsListed.emit(self.mailbox.post(rows))

    @Slot(object)
    @guarded
    def pin(self, session_id: object) -> None:
        self.pinned = session_id if isinstance(session_id, str) and session_id else None
        self._choose()

    def _choose(self) -> None:
        logs = self.catalog.logs
        for log in logs:
            log.load_header()
        if self.pinned:
            target = next((log for log in logs if log.session_id == self.pinned), None)
        else:
            target = active_session(logs)
        if target is self.followed:
            return
        self.followed = target
        if target is not None:
            target.update()
        self.sessionChanged.emit(self.mailbox.post(session_snapshot(target) if target is not None else None))

    @Slot(str)
    def _on_touched(self, path: str) -> None:
        self._pending[path] = time.monotonic()
        if self._timer is not None and not self._timer.isActive():
            self._timer.start()

    @Slot()
    @guarded
    def _flush(self) -> None:
        cutoff = time.monotonic() - QUIET_MS / 1000
        ready = [p for p, t in self._pending.items() if t <= cutoff]
        for path in ready:
            del self._pending[path]
            log = self.catalog.by_path(path)
            if log is None:
                if not os.path.exists(path):
                    continue
                self.catalog.refresh()  # a new session, or a newer transcript version of one
                log = self.catalog.by_path(path)
                if log is None:
                    continue
            if log is self.followed:
                reads, title = log.read_count, log.title
                new = log.update()
                if new or log.read_count != reads or log.title != title:  # reads feed the usage line
                    self.messagesChanged.emit(self.mailbox.post(session_snapshot(log, new, reads)))
        if ready and not self.pinned:
            self._choose()  # another top-level session may now be the most recently appended one
        if not self._pending and self._timer is not None:
            self._timer.stop()

    def on_shutdown(self) -> None:
        for timer in (self._timer, self._poll):
            if timer is not None:
                timer.stop()  # timers must be stopped on the thread that owns them
        stop_observer(self._observer)
        self._observer = None


class ConversationFollower(WorkerThread):
    """GUI-side handle; every method returns at once."""

    sessionChanged = Signal(object)
    messagesChanged = Signal(object)
    sessionsListed = Signal(object)
    _pin = Signal(object)
    _list = Signal()

    def __init__(self, home: str | None = None, parent: QObject | None = None) -> None:
        worker = _FollowWorker(home)
        super().__init__(worker, "knit-conversation", parent)
        self._thread.started.connect(worker.start)
        self.relay(worker.sessionChanged, self.sessionChanged)
        self.relay(worker.messagesChanged, self.messagesChanged)
        self.relay(worker.sessionsListed, self.sessionsListed)
        self._pin.connect(worker.pin)
        self._list.connect(worker.listSessions)

    def list_sessions(self) -> None:
        """Ask for the session list; it arrives on `sessionsListed`."""
        self._list.emit()

    def pin(self, session_id: str | None) -> None:
        """Follow this session whatever else is active; None goes back to following the active one."""
        self._pin.emit(session_id)
