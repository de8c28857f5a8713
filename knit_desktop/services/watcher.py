"""Watching a workspace with watchdog; changes are coalesced per path and reported as workspace-relative paths.

The plan of watches and the naming of event paths are `core.index.watching`'s (shared with the MCP server's
Qt-free `ChangeFeed`); this adds the quiet period, Qt signals, the polling fallback and a thread of its own on
which the watches are set up (never the GUI thread).

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
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor

from PySide6.QtCore import QObject, QTimer, Signal, Slot
from watchdog.events import FileSystemEvent, FileSystemEventHandler
from watchdog.observers import Observer
from watchdog.observers.polling import PollingObserverVFS

from ..core.index.scan import outside_folders
from ..core.index.watching import (
    WatchPlan,
    event_paths,
    folder_identity,
    listdir_skipping_ignored,
    plan_watches,
    relative_path,
    schedule_plan,
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
    """Watches one folder. Setting the watches up is done on a thread of its own (`_setup`), one step at a time
    in the order asked: watchdog adds an inotify watch per directory in the thread that schedules it, which took
    0.3-0.5 s at 3,200 folders, once at start and again each time a folder came or went, and the window froze
    for it. The quiet period, the coalescing and the signals stay on the GUI thread."""

    pathsChanged = Signal(list)  # workspace-relative paths, each quiet for QUIET_MS
    # Directories appeared, vanished or moved: walk them again (their workspace-relative names; '' among them: the
    # whole workspace, as when events were lost or the workspace folder itself changed).
    rescanNeeded = Signal(list)
    rescanPending = Signal()  # the same, heard of: `rescanNeeded` follows once the watches follow the folders
    modeChanged = Signal(str, str)  # a MODE_* code, its detail (polling: why the system refused to watch)

    _arrived = Signal(list, int)  # int, not bool: a bool crossing threads trips a PySide refcount bug
    _modeSet = Signal(int, str, str, float)  # from the setup thread: (generation, mode, detail, watching since)
    # From the setup thread: the watches follow the folders now; walk (generation, folders, `rescanPending`s so far).
    _replanned = Signal(int, list, int)

    def __init__(self, root: str, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.root = os.path.realpath(root)
        self.mode = MODE_STOPPED
        self.mode_detail = ""
        # When the watches came into place (time.monotonic()): a walk that began before may have passed a folder
        # before it was watched, and missed a file written there in between.
        self.watching_since = 0.0
        self._observer = None  # touched on the setup thread only, as is:
        self._observing = MODE_STOPPED  # what `_observer` does (the mode the GUI thread hears of a little later)
        self._pending: dict[str, float] = {}
        self._rescan = False
        self._folders: set[str] = set()  # folders that came, went or moved since the last walk was asked for
        self._heard = 0  # the `rescanPending`s emitted
        # Of those, how many the walk `rescanNeeded` asks for now does not cover: they came after its folders (while
        # the watcher was still looking at them) and their own walks follow. Read by the slots of `rescanNeeded`.
        self.rescans_after = 0
        self._plan: WatchPlan | None = None  # the watches in place (set on the setup thread)
        self._arrived.connect(self._on_arrived)
        self._modeSet.connect(self._on_mode)
        self._replanned.connect(self._on_replanned)
        self._timer = QTimer(self)
        self._timer.setInterval(TICK_MS)
        self._timer.timeout.connect(self._flush)
        self._identity: tuple[int, int] | None = None  # the watched folder's (device, inode); setup thread only
        self._identity_timer = QTimer(self)
        self._identity_timer.setInterval(IDENTITY_CHECK_MS)
        self._identity_timer.timeout.connect(self._check_identity)
        self._checking = False  # an identity check is queued on the setup thread
        # Bumped by each start and stop: what the setup thread reports for an earlier one is dropped.
        self._generation = 0
        self._setup: ThreadPoolExecutor | None = None
        self._stopping: Future[None] | None = None  # the last step a stop(wait=False) left to the previous thread

    def relative(self, path: str) -> str | None:
        return relative_path(self.root, path)

    def _submit(self, step: Callable[..., None], *args: object) -> Future[None]:
        if self._setup is None:
            self._setup = ThreadPoolExecutor(max_workers=1, thread_name_prefix="knit-watch-setup")
            if self._stopping is not None:
                # Started again before the previous thread wound its watches down: after it, never beside it
                # (both would set up and stop `_observer`, and one observer would run on, unseen).
                self._setup.submit(self._stopping.exception)  # (waits for it, whatever its outcome)
                self._stopping = None
        return self._setup.submit(step, *args)

    def start(self) -> None:
        """Start watching; `modeChanged` says when the watches are in place (or that it polls instead)."""
        self._generation += 1
        self._identity_timer.start()
        self._submit(self._start_watching, self._generation)

    def _start_watching(self, generation: int) -> None:  # on the setup thread
        if generation != self._generation:
            return  # stopped before it began
        self._identity = folder_identity(self.root)  # before the watches: a folder swapped meanwhile is noticed
        observer = Observer()
        try:
            forwarder = _Forwarder(self)
            plan = plan_watches(self.root)
            if not schedule_plan(observer, forwarder, plan, until=lambda: generation != self._generation):
                # Stopped meanwhile (the window switched to another workspace): the rest is not set up. Each
                # watch is a thread once started: switching quickly through 3,200-folder trees, the stopped
                # watchers' setups ran on side by side (2,800 threads) and the last one was not in place
                # 10 s later.
                with contextlib.suppress(Exception):
                    observer.unschedule_all()
                return
            observer.start()
            self._plan = WatchPlan(self.root, plan)
        except OSError as exc:  # inotify watch or instance limits
            with contextlib.suppress(Exception):
                observer.unschedule_all()
            self._start_polling(generation, exc)
            return
        self._observer, self._observing = observer, MODE_WATCHING
        if generation == self._generation:  # (stopped, it may be deleted already: its signals would raise)
            self._modeSet.emit(generation, MODE_WATCHING, "", time.monotonic())

    def _start_polling(self, generation: int, exc: OSError) -> None:  # on the setup thread
        observer = PollingObserverVFS(os.stat, listdir_skipping_ignored, polling_interval=POLL_INTERVAL_S)
        observer.schedule(_Forwarder(self), self.root, recursive=True)
        observer.start()
        self._observer, self._observing = observer, MODE_POLLING
        if generation == self._generation:
            self._modeSet.emit(generation, MODE_POLLING, str(exc.strerror or exc), time.monotonic())

    def _replan(self, generation: int, folders: frozenset[str] = frozenset({""}),  # on the setup thread
                heard: int = 0) -> None:
        """Directories appeared or vanished: watch what is there now (inotify mode only, unless the watches already
        follow those `folders`), then ask for the walk (watched first, so a file written into a new folder meanwhile
        is seen by one or the other). Of the whole workspace when the watches were taken down and set up anew: what
        changed anywhere meanwhile was heard by none (0.3-0.5 s at 3,200 folders)."""
        try:
            if generation == self._generation and self._observer is not None and self._observing == MODE_WATCHING \
                    and not (self._plan is not None and self._plan.covers(folders)):
                self._observer.unschedule_all()
                self._plan = None
                folders = frozenset({""})
                if os.path.isdir(self.root):  # gone: nothing to watch until it is made again (the identity check)
                    forwarder = _Forwarder(self)
                    plan = plan_watches(self.root)
                    schedule_plan(self._observer, forwarder, plan)
                    self._plan = WatchPlan(self.root, plan)
        except OSError as exc:
            folders = frozenset({""})
            if os.path.isdir(self.root):  # (not merely gone while the watches were planned)
                stop_observer(self._observer, wait=False)
                self._start_polling(generation, exc)
        if generation == self._generation:
            self._replanned.emit(generation, sorted(folders), heard)

    def _stop_watching(self, wait: bool) -> None:  # on the setup thread
        stop_observer(self._observer, wait)
        self._observer, self._observing, self._plan = None, MODE_STOPPED, None

    def stop(self, wait: bool = True) -> None:
        """Stop watching. With wait=False the watches wind down on the setup thread, so the GUI thread is not
        held up, e.g. while switching workspaces; with wait=True they have when this returns."""
        self._generation += 1
        self._timer.stop()
        self._identity_timer.stop()
        self._pending.clear()
        self._rescan = False
        if self._setup is not None:
            done = self._submit(self._stop_watching, wait)
            self._setup.shutdown(wait=False)  # its thread ends once the steps queued so far are done
            self._setup = None
            if wait:
                done.result()
            else:
                self._stopping = done
        self._set_mode(MODE_STOPPED)

    def _set_mode(self, mode: str, detail: str = "") -> None:
        self.mode, self.mode_detail = mode, detail
        self.modeChanged.emit(mode, detail)

    @Slot(int, str, str, float)
    def _on_mode(self, generation: int, mode: str, detail: str, since: float) -> None:
        if generation == self._generation:
            self.watching_since = since
            self._set_mode(mode, detail)

    @Slot(int, list, int)
    def _on_replanned(self, generation: int, folders: list[str], heard: int) -> None:
        if generation == self._generation:
            self.rescans_after = self._heard - heard
            self.rescanNeeded.emit(folders)

    @Slot(list, int)
    def _on_arrived(self, rels: list[str], is_directory: int) -> None:
        if self.mode == MODE_STOPPED and not self._identity_timer.isActive():
            return  # stopped: events still on their way are dropped
        now = time.monotonic()
        if is_directory:
            self._folders.update(rels or [""])  # none: the workspace folder itself, or events lost
            if not self._rescan:
                self._rescan = True
                self._heard += 1
                self.rescanPending.emit()  # what the new folders hold is indexed only by the walk that follows
        for rel in rels:
            self._pending[rel] = now
        if not self._timer.isActive():
            self._timer.start()

    @Slot()
    def _check_identity(self) -> None:
        if not self._checking:  # one stat, on the setup thread: a folder on a hung network mount must not freeze
            self._checking = True
            self._submit(self._identity_changed, self._generation)

    def _identity_changed(self, generation: int) -> None:  # on the setup thread
        """The workspace folder is no longer the one watched: walk it and watch it anew (as for a new directory)."""
        try:
            identity = folder_identity(self.root)
            if generation == self._generation and self._observer is not None and identity != self._identity:
                self._identity = identity
                self._arrived.emit([], 1)
        finally:
            self._checking = False

    @Slot()
    def _flush(self) -> None:
        cutoff = time.monotonic() - QUIET_MS / 1000
        ready = sorted(rel for rel, last in self._pending.items() if last <= cutoff)
        for rel in ready:
            del self._pending[rel]
        if self._rescan and not self._pending:
            self._rescan = False
            folders, self._folders = self._folders, set()
            # The files changed elsewhere meanwhile: the walk that follows covers only these folders (what is below
            # them: a file of a folder's own name, deleted or written as the folder came or went, is not).
            elsewhere = outside_folders(ready, folders)
            if elsewhere and "" not in folders:
                self.pathsChanged.emit(elsewhere)
            # Asks for the walk once the watches follow (whether they already do lists the new folders' own
            # subtrees: the setup thread's job, not the GUI thread's).
            self._submit(self._replan, self._generation, frozenset(folders), self._heard)
        elif ready:
            self.pathsChanged.emit(ready)
        if not self._pending:
            self._timer.stop()
