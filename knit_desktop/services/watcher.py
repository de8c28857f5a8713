"""Watching a workspace with watchdog; changes are coalesced per path and reported as workspace-relative paths.

The plan of watches and the naming of event paths are `core.index.watching`'s (shared with the MCP server's
Qt-free `ChangeFeed`); this adds the quiet period, Qt signals and the polling fallback.

Ignored directories (dot-directories, node_modules, build, …) are not watched: a directory whose subtree holds
none gets one recursive watch, a directory that holds some gets a non-recursive watch and its other children are
planned the same way (watchdog runs a thread per scheduled watch, so watching every directory separately is not an
option). An ignored directory created later inside a recursively watched subtree is watched until the next
re-plan, but its events are dropped. When the OS refuses more watches (inotify limits), the watcher falls back to
polling, whose directory listing never enters ignored directories, and says so in `mode`.
"""

from __future__ import annotations

import contextlib
import os
import time

from PySide6.QtCore import QObject, QTimer, Signal, Slot
from watchdog.events import FileSystemEvent, FileSystemEventHandler
from watchdog.observers import Observer
from watchdog.observers.polling import PollingObserverVFS

from ..core.index.watching import (
    event_paths,
    folder_identity,
    listdir_skipping_ignored,
    plan_watches,
    relative_path,
    stop_observer,
)

QUIET_MS = 300  # a path is reported once it has been quiet this long (editors write in bursts)
TICK_MS = 100
POLL_INTERVAL_S = 2.0
# How often the watched folder is checked to still be the workspace folder (one stat): moved aside and made anew
# (a fresh checkout, a restore), it is another folder, which no watch sees.
IDENTITY_CHECK_MS = 1000


class _Forwarder(FileSystemEventHandler):
    """Runs on watchdog's thread: turns events into relative paths and hands them over through a signal."""

    def __init__(self, watcher: WorkspaceWatcher) -> None:
        self.watcher = watcher

    def on_any_event(self, event: FileSystemEvent) -> None:
        found = event_paths(self.watcher.root, event)
        if found is not None:
            rels, is_directory = found
            self.watcher._arrived.emit(rels, 1 if is_directory else 0)


MODE_WATCHING = "watching"  # the system's file notifications
MODE_POLLING = "polling"  # the system refused more watches: the workspace is listed every few seconds
MODE_STOPPED = "stopped"


class WorkspaceWatcher(QObject):
    pathsChanged = Signal(list)  # workspace-relative paths, each quiet for QUIET_MS
    rescanNeeded = Signal()  # a directory appeared, vanished or moved: walk again
    modeChanged = Signal(str, str)  # a MODE_* code, its detail (polling: why the system refused to watch)

    _arrived = Signal(list, int)  # int, not bool: a bool crossing threads trips a PySide refcount bug

    def __init__(self, root: str, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.root = os.path.realpath(root)
        self.mode = MODE_STOPPED
        self.mode_detail = ""
        self._observer = None
        self._pending: dict[str, float] = {}
        self._rescan = False
        self._arrived.connect(self._on_arrived)
        self._timer = QTimer(self)
        self._timer.setInterval(TICK_MS)
        self._timer.timeout.connect(self._flush)
        self._identity: tuple[int, int] | None = None  # the watched folder's (device, inode)
        self._identity_timer = QTimer(self)
        self._identity_timer.setInterval(IDENTITY_CHECK_MS)
        self._identity_timer.timeout.connect(self._check_identity)

    def relative(self, path: str) -> str | None:
        return relative_path(self.root, path)

    def start(self) -> None:
        self._identity = folder_identity(self.root)  # before the watches: a folder swapped meanwhile is noticed
        self._identity_timer.start()
        try:
            observer = Observer()
            forwarder = _Forwarder(self)
            for directory, recursive in plan_watches(self.root):
                observer.schedule(forwarder, directory, recursive=recursive)
            observer.start()
            self._set_mode(MODE_WATCHING)
        except OSError as exc:  # inotify watch or instance limits
            with contextlib.suppress(Exception):
                observer.unschedule_all()
            self._start_polling(exc)
            return
        self._observer = observer

    def _start_polling(self, exc: OSError) -> None:
        observer = PollingObserverVFS(os.stat, listdir_skipping_ignored, polling_interval=POLL_INTERVAL_S)
        observer.schedule(_Forwarder(self), self.root, recursive=True)
        observer.start()
        self._observer = observer
        self._set_mode(MODE_POLLING, str(exc.strerror or exc))

    def _replan(self) -> None:
        """Directories appeared or vanished: watch what is there now (inotify mode only)."""
        if self._observer is None or self.mode != MODE_WATCHING:
            return
        try:
            self._observer.unschedule_all()
            if not os.path.isdir(self.root):
                return  # the folder is gone: nothing to watch until it is made again (`_check_identity` sees it)
            forwarder = _Forwarder(self)
            for directory, recursive in plan_watches(self.root):
                self._observer.schedule(forwarder, directory, recursive=recursive)
        except OSError as exc:
            if not os.path.isdir(self.root):
                return  # (gone while the watches were planned)
            self.stop(wait=False)
            self._start_polling(exc)
            self._identity_timer.start()

    def stop(self, wait: bool = True) -> None:
        """Stop watching. With wait=False the observer's (daemon) threads wind down on their own, so the GUI
        thread is not held up, e.g. while switching workspaces."""
        self._timer.stop()
        self._identity_timer.stop()
        stop_observer(self._observer, wait)
        self._observer = None
        self._set_mode(MODE_STOPPED)

    def _set_mode(self, mode: str, detail: str = "") -> None:
        self.mode, self.mode_detail = mode, detail
        self.modeChanged.emit(mode, detail)

    @Slot(list, int)
    def _on_arrived(self, rels: list[str], is_directory: int) -> None:
        now = time.monotonic()
        if is_directory:
            self._rescan = True
        for rel in rels:
            self._pending[rel] = now
        if not self._timer.isActive():
            self._timer.start()

    @Slot()
    def _check_identity(self) -> None:
        """The workspace folder is no longer the one watched: walk it and watch it anew (as for a new directory)."""
        identity = folder_identity(self.root)
        if self._observer is not None and identity != self._identity:
            self._identity = identity
            self._on_arrived([], 1)

    @Slot()
    def _flush(self) -> None:
        cutoff = time.monotonic() - QUIET_MS / 1000
        ready = sorted(rel for rel, last in self._pending.items() if last <= cutoff)
        for rel in ready:
            del self._pending[rel]
        if self._rescan and not self._pending:
            self._rescan = False
            self._replan()
            self.rescanNeeded.emit()
        elif ready:
            self.pathsChanged.emit(ready)
        if not self._pending:
            self._timer.stop()
