"""Watching a workspace for changes, without Qt: which directories to watch, how an event names a workspace path,
and `ChangeFeed`, the set of paths changed since it was last read (what the MCP server uses instead of walking
the workspace on every call). The window's `services.watcher` adds Qt timers and signals on top of the same pieces.

Ignored directories (dot-directories, node_modules, build, …) are not watched: a directory whose subtree holds
none gets one recursive watch, a directory that holds some gets a non-recursive watch and its other children are
planned the same way (watchdog runs a thread per scheduled watch, so watching every directory separately is not an
option).
"""

from __future__ import annotations

import contextlib
import logging
import os
import threading
from collections.abc import Callable, Iterable, Iterator

from watchdog.events import FileSystemEvent, FileSystemEventHandler
from watchdog.observers import Observer
from watchdog.observers.api import BaseObserver

from .boundary import display_rel
from .scan import is_skipped_dir, is_watched_path


def plan_watches(root: str) -> list[tuple[str, bool]]:
    """(directory, recursive) pairs covering every non-ignored directory under `root` and no ignored one."""
    plan: list[tuple[str, bool]] = []
    if _planned_below(root, plan):
        plan.append((root, True))
    return plan


def _planned_below(directory: str, plan: list[tuple[str, bool]]) -> bool:
    """Whether no ignored directory lies below `directory`; if one does, the watches for this subtree go into
    `plan`."""
    try:
        with os.scandir(directory) as it:
            children = [e for e in it if e.is_dir(follow_symlinks=False)]
    except OSError:
        return True  # unreadable: nothing below it can be watched anyway
    all_clean = True
    clean_children: list[str] = []
    for child in children:
        if is_skipped_dir(child.name):
            all_clean = False
        elif _planned_below(child.path, plan):
            clean_children.append(child.path)
        else:
            all_clean = False
    if all_clean:
        return True  # the caller's recursive watch (or the root's) covers this subtree
    plan.append((directory, False))
    plan.extend((child, True) for child in clean_children)
    return False


def _change_events() -> list[type[FileSystemEvent]]:
    from watchdog import events

    wanted = ["FileCreatedEvent", "DirCreatedEvent", "FileModifiedEvent", "FileAttribEvent", "FileDeletedEvent",
              "DirDeletedEvent", "FileMovedEvent", "DirMovedEvent", "FileClosedEvent", "EventsLostEvent"]
    return [getattr(events, name) for name in wanted if hasattr(events, name)]  # (older watchdogs lack some)


# What the watches ask the system for: changes. Unfiltered, watchdog also asks inotify for every open and every
# close without a write. A walk opens each folder of the workspace and indexing opens each file, and so does any
# program that reads the workspace (an editor, grep, the agent); each of those events then went through watchdog's
# threads and ours in Python only to be dropped (`event_paths`), and took the GIL from the walk: at 3,200 folders
# a walk took 270 ms while watched against 90 ms unwatched.
CHANGE_EVENTS = _change_events()


def schedule_plan(observer: BaseObserver, handler: FileSystemEventHandler, plan: list[tuple[str, bool]],
                  until: Callable[[], bool] = lambda: False) -> bool:
    """Schedule `plan`'s watches (see `plan_watches`) on `observer`, for changes only (CHANGE_EVENTS); False when
    it stopped early because `until()` became true."""
    for directory, recursive in plan:
        if until():
            return False
        observer.schedule(handler, directory, recursive=recursive, event_filter=CHANGE_EVENTS)
    return True


class _RefusedWatches(logging.Filter):
    """Counts the watches watchdog could not add below a recursive watch already in place (the system's limit on
    inotify watches reached): it logs them and goes on, and the folders they were for are not watched."""

    count = 0

    def filter(self, record: logging.LogRecord) -> bool:
        if str(record.msg).startswith("Unable to"):  # "Unable to watch …", "Unable to rebuild recursive …"
            _RefusedWatches.count += 1
        return True


logging.getLogger("watchdog.observers.inotify").addFilter(_RefusedWatches())


class WatchPlan:
    """The watches `plan_watches` chose for a workspace, to tell whether they still cover its folders after some
    came, went or moved. Below a recursively watched folder they do: watchdog watches a new folder there itself
    (and reports what it already holds) and drops the watches of one that went. Planning again means listing every
    folder and watching each anew, 0.3-0.4 s at 3,200 folders, so it is done only where it is needed: a folder
    that came or went beside an ignored one (its parent is watched on its own), one that was itself the top of a
    watch, one that holds an ignored folder (copied or moved in with its node_modules or .git, which watchdog would
    watch too: 2,046 watches instead of 5 for a project with 2,000 folders in node_modules), or any folder once
    watchdog could not watch a new folder (the system's limit reached: planned again, the watches fail and the
    caller polls or walks instead of missing what changes there). (This needs watchdog 7.1.1 or later, which
    pyproject.toml requires: before 7.1 a folder moved in from elsewhere was reported as created but not watched.)"""

    def __init__(self, root: str, plan: list[tuple[str, bool]]) -> None:
        def rel(directory: str) -> str:
            return "" if directory == root else os.path.relpath(directory, root).replace(os.sep, "/")

        self._root = root
        self._refused = _RefusedWatches.count
        self._tops = {rel(directory) for directory, _ in plan}
        self._recursive = {rel(directory) for directory, recursive in plan if recursive}

    def covers(self, folders: Iterable[str]) -> bool:
        """Whether the watches still follow after these folders (workspace-relative) came, went or moved. Lists
        what each folder that is there now holds (its own subtree only)."""
        folders = list(folders)
        if folders and _RefusedWatches.count != self._refused:
            return False  # (planned again, the watches the system refuses make the caller poll or walk instead)
        for folder in folders:
            if not folder or folder in self._tops:
                return False
            parent = folder.rpartition("/")[0]
            while parent not in self._recursive:
                if not parent:
                    return False
                parent = parent.rpartition("/")[0]
        return all(self._holds_no_ignored_folder(folder) for folder in folders)

    def _holds_no_ignored_folder(self, folder: str) -> bool:
        path = os.path.join(self._root, *folder.split("/"))
        if os.path.islink(path) or not os.path.isdir(path):
            return True  # gone (or moved away), or a link watchdog does not follow
        return _planned_below(path, [])


def listdir_skipping_ignored(path: str) -> Iterator[os.DirEntry[str]]:
    """A directory listing that never enters ignored directories (for watchdog's polling observer)."""
    return (entry for entry in os.scandir(path)
            if not (entry.is_dir(follow_symlinks=False) and is_skipped_dir(entry.name)))


def relative_path(root: str, path: str) -> str | None:
    """The index's name for `path` under the (real) `root`, or None when it is outside or never indexed."""
    try:
        rel = os.path.relpath(path, root)
    except ValueError:
        return None
    rel = rel.replace(os.sep, "/")
    if rel == "." or rel.startswith("../") or not is_watched_path(rel):
        return None
    return display_rel(rel)  # a name that is not UTF-8 is escaped, as the index names it


def event_paths(root: str, event: FileSystemEvent) -> tuple[list[str], bool] | None:
    """The workspace paths an event is about and whether they are directories; None for events that change
    nothing the index holds."""
    if event.event_type in ("opened", "closed_no_write"):
        return None
    if event.event_type == "events_lost":
        return [], True  # the system's event queue overflowed (a large checkout, an unzip): only a walk can say
    if event.is_directory and event.event_type in ("deleted", "moved") and os.fsdecode(event.src_path) == root:
        return [], True  # the workspace folder itself went away: its watches see nothing any more
    if event.is_directory and event.event_type not in ("created", "deleted", "moved"):
        return None  # a directory "modified" only echoes a change to one of its files, reported on its own
    paths = [event.src_path, getattr(event, "dest_path", "")]
    rels = [r for r in (relative_path(root, os.fsdecode(p)) for p in paths if p) if r]
    if event.is_directory:
        rels = [r for r in rels if not is_skipped_dir(r.rsplit("/", 1)[-1])]
    return (rels, bool(event.is_directory)) if rels else None


class ChangeFeed(FileSystemEventHandler):
    """The paths changed under a workspace since the last `drain`, collected on watchdog's threads.

    `healthy` is False when the system refused the watches (inotify limits): the caller then walks the
    workspace as before. A directory that appeared, vanished or moved asks for a walk of it (`drain`'s second and
    third values), and a workspace folder that is no longer the one watched for a walk of all of it (moved away, deleted and made again: the
    watches follow the old folder and see nothing of the new one)."""

    def __init__(self, root: str) -> None:
        self.root = os.path.realpath(root)
        self.healthy = False
        self._lock = threading.Lock()
        self._paths: set[str] = set()
        self._rescan = False
        self._folders: set[str] = set()  # folders that came, went or moved since the last drain (to walk)
        self._unplanned: set[str] = set()  # the same since the last restart (whether the watches still follow)
        self._plan: WatchPlan | None = None  # the watches in place (None: none, or plan them all again)
        self._observer: Observer | None = None  # type: ignore[valid-type]  # watchdog's alias of the platform's
        self._started = False
        # False when the last `restart` took the watches down and set them up anew: nothing was heard meanwhile.
        self.watched_throughout = True
        self._identity: tuple[int, int] | None = None  # the watched folder's (device, inode) when started

    def start(self) -> bool:
        self._started = True
        self._identity = folder_identity(self.root)  # before the watches: a folder swapped meanwhile is noticed
        try:
            observer = Observer()  # watchdog opens its inotify instance here: the system may refuse already
        except OSError:
            self.healthy = False
            return False
        try:
            plan = plan_watches(self.root)
            schedule_plan(observer, self, plan)
            observer.start()
        except OSError:
            with contextlib.suppress(Exception):
                observer.unschedule_all()
            self.healthy = False
            return False
        self._observer = observer
        self._plan = WatchPlan(self.root, plan)
        self.healthy = True
        return True

    def stop(self) -> None:
        stop_observer(self._observer, wait=False)
        self._observer = None
        self._plan = None
        self.healthy = False

    def restart(self) -> bool:
        """Watch what is there now (after directories changed), unless the watches already do. Planned anew, the
        watches are down for a while (0.3-0.5 s at 3,200 folders): `watched_throughout` is then False, and only a
        walk of the whole workspace finds what changed meanwhile."""
        with self._lock:
            folders, self._unplanned = self._unplanned, set()
        if self._observer is not None and self._plan is not None and self._plan.covers(folders):
            self.watched_throughout = True
            return self.healthy
        self.watched_throughout = False
        self.stop()
        return self.start()

    def on_any_event(self, event: FileSystemEvent) -> None:
        found = event_paths(self.root, event)
        if found is None:
            return
        rels, is_directory = found
        with self._lock:
            if is_directory:
                self._rescan = True
                self._folders.update(rels or [""])  # none: the workspace folder itself, or events lost
                self._unplanned.update(rels or [""])
            else:
                self._paths.update(rels)

    def drain(self) -> tuple[list[str], bool, list[str]]:
        """The paths changed since the last call, whether a walk is needed, and the folders (workspace-relative)
        that came, went or moved, which are what it needs to walk ('' among them: the whole workspace, as after
        events were lost); all reset."""
        with self._lock:
            paths, rescan, folders = sorted(self._paths), self._rescan, self._folders
            self._paths.clear()
            self._rescan = False
            self._folders = set()
        # (A stat every drain: the server drains every half second.) Watched, the folder is another one now; not
        # watched because it was gone, it is back: either way, walk it and watch it anew.
        if self._started and (self._observer is not None or self._identity is None) \
                and folder_identity(self.root) != self._identity:
            rescan = True
            folders.add("")
            with self._lock:
                self._unplanned.add("")  # another folder: plan its watches anew
        return paths, rescan, sorted(folders)


def folder_identity(path: str) -> tuple[int, int] | None:
    """(device, inode) of the folder at `path`, None when there is none."""
    try:
        st = os.stat(path)
    except OSError:
        return None
    return st.st_dev, st.st_ino


def watch_tree(handler: FileSystemEventHandler, path: str) -> Observer | None:  # type: ignore[valid-type]
    """A started observer watching `path` recursively, or None when the system refuses (inotify limits): the
    caller then looks periodically instead."""
    try:
        observer = Observer()
        observer.schedule(handler, path, recursive=True, event_filter=CHANGE_EVENTS)
        observer.start()
    except OSError:
        return None
    return observer


def stop_observer(observer: Observer | None, wait: bool = True) -> None:  # type: ignore[valid-type]
    """Stop an observer (None: nothing to stop); with `wait`, until its threads have ended."""
    if observer is not None:
        observer.stop()
        if wait:
            observer.join(timeout=5)
