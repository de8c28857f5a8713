"""A workspace's first (cold) build, run in a process of its own that writes the persistent index; the caller then
opens the result.

Why a process: the window indexes on a thread of its own process, and the parts of a build that stay in the
process that applies the prepared files (the postings drain, numbering the vocabulary, the SQLite batches, the
snapshot) are long stretches of Python and C that hold the GIL, so the window's thread waited for it in
stalls of up to 90 ms at 100,000 documents. The builder process holds its own GIL; the window's thread only
reads its progress from a pipe and then loads the snapshot it saved.

The builder is spawned, never forked (see core/index/preparing.py: the window is a threaded Qt process), as
the file-preparing workers are, and starts the same entry point (`multiprocessing.freeze_support()` in the
frozen app's). It leads a process group of its own, so stopping it (cancelled, the workspace switched, the
window closing) stops the workers it started too; and it ends by itself once the process that started it is
gone. A builder stopped or killed midway leaves the index as a killed build in process did: every committed
batch is whole (SQLite in WAL mode), the previous snapshot (if any) stays valid, and the next open carries on
from the rows written.
"""

from __future__ import annotations

import contextlib
import os
import signal
import sqlite3
import time
from collections.abc import Callable
from multiprocessing.connection import Connection
from typing import TYPE_CHECKING

from .heap import holding_full_collections
from .index.preparing import end_with_parent
from .index.scan import holds_at_least
from .index.store import SCHEMA_VERSION
from .paths import index_db_path
from .workspace import Progress, RefreshReport, Workspace, resolve_root

if TYPE_CHECKING:
    from multiprocessing.process import BaseProcess

# From this many files a first build runs in a builder process. Starting one costs about 0.2 s (spawning and
# importing the engine); below this the build is over within seconds and its GIL-bound stretches are short (the
# longest window stall of a whole 20,000-document build in process was 21 ms).
BUILD_APART_MIN_FILES = 2000
BUILDER_NICENESS = 10  # the builder's priority below the process that started it (see _build)
POLL_S = 0.05  # how often the caller looks at its cancel flag while the builder is quiet (a walk says nothing)
PROGRESS_EVERY_S = 0.05  # the builder reports progress at most this often (and its last file)
DONE_GRACE_S = 2.0  # how long a builder that is done may take to end by itself (its workers have ended)
STOP_WAIT_S = 5.0  # how long a stopped builder may take to end after SIGKILL (it cannot refuse)


class BuildCancelled(Exception):
    """The build was cancelled by the caller; the builder process was stopped."""


class BuilderUnavailable(Exception):
    """No builder process could be started (no processes left), or the one started ended before it could run the
    build (a broken install: its interpreter cannot load the engine): build in process instead."""


class BuilderFailed(OSError):
    """The builder process ended without a word (killed, out of memory, a crash). An OSError, as a folder that
    cannot be read is: a library folder whose build fails is that folder's problem, and the others still open."""


def needs_cold_build(root: str) -> bool:
    """Whether opening the persistent index of the workspace at `root` (resolved) would index it from the start:
    no database yet, one of an older schema, or one without a saved snapshot (never finished, or set aside).
    Looked at read-only, without opening the store (which would create or migrate it)."""
    path = index_db_path(root)
    if not path.exists():
        return True
    try:
        db = sqlite3.connect(f"{path.as_uri()}?mode=ro", uri=True, timeout=1.0)
    except sqlite3.Error:
        return True
    try:
        version = db.execute("SELECT value FROM meta WHERE key = 'schema_version'").fetchone()
        if version is None or version[0] != str(SCHEMA_VERSION):
            return True  # an older schema: opening it starts over (a new version reads every file again)
        return db.execute("SELECT 1 FROM snapshot WHERE id = 1").fetchone() is None
    except sqlite3.Error:
        return True  # (no such table, an older schema, damage: the builder sorts it out as an open would)
    finally:
        db.close()


def open_persistent_built_apart(root: str, progress: Progress | None = None,
                                cancelled: Callable[[], bool] | None = None) -> Workspace:
    """`Workspace.open_persistent`, with a cold build (`needs_cold_build`) of a workspace of at least
    BUILD_APART_MIN_FILES files done in a builder process first (in this one if none can be started); `progress`
    and `cancelled` as for `build_apart`. The open's report covers the build and the open."""
    real = resolve_root(root)
    if not needs_cold_build(real) or not holds_at_least(real, BUILD_APART_MIN_FILES):
        return Workspace.open_persistent(real, progress)
    try:
        built = build_apart(real, progress, cancelled)
    except BuilderUnavailable:
        return Workspace.open_persistent(real, progress)
    workspace = Workspace.open_persistent(real, progress, just_built=True)  # (loads the snapshot it saved)
    workspace.last_refresh = built.followed_by(workspace.last_refresh)
    return workspace


def build_apart(root: str, progress: Progress | None = None,
                cancelled: Callable[[], bool] | None = None) -> RefreshReport:
    """Index the workspace at `root` into its persistent index in a builder process, wait for it and return its
    report. `progress` hears the builder's progress (an exception it raises stops the builder and comes out of
    here); `cancelled` is asked every POLL_S (True: the builder is stopped and BuildCancelled raised). An error of
    the build is raised here as the builder met it; BuilderUnavailable when no process can be started (build in
    process then)."""
    import multiprocessing

    context = multiprocessing.get_context("spawn")
    receive, send = context.Pipe(duplex=False)
    child = context.Process(target=_build, args=(resolve_root(root), send, os.getpid()),
                            name="knit-build", daemon=False)  # (not daemon: it starts workers of its own)
    try:
        child.start()
    except Exception as exc:
        receive.close()
        send.close()
        raise BuilderUnavailable(str(exc)) from exc
    send.close()  # (this end belongs to the builder now: its end closes the pipe when it ends)
    report: RefreshReport | None = None
    try:
        report = _wait_for(child, receive, progress, cancelled)
        return report
    finally:
        _stop(child, grace_s=DONE_GRACE_S if report is not None else 0.0)
        receive.close()


def _wait_for(child: BaseProcess, receive: Connection, progress: Progress | None,
              cancelled: Callable[[], bool] | None) -> RefreshReport:
    started = False  # the builder said it runs (its imports done): an end before that is no builder at all
    while True:
        if cancelled is not None and cancelled():
            raise BuildCancelled
        try:
            if not receive.poll(POLL_S):
                continue
            message = receive.recv()
        except (EOFError, OSError):
            child.join(STOP_WAIT_S)
            if not started:
                raise BuilderUnavailable(f"the indexing process could not start ({_how_it_ended(child)})") from None
            raise BuilderFailed(f"the indexing process ended before it was done ({_how_it_ended(child)})") from None
        except Exception as exc:  # noqa: BLE001 - (an answer that does not unpickle here)
            raise BuilderFailed(f"the indexing process's answer could not be read ({exc})") from exc
        what = message[0]
        if what == "started":
            started = True
        elif what == "progress":
            if progress is not None:
                progress(*message[1:])
        elif what == "done":
            built: RefreshReport = message[1]
            return built
        elif what == "failed":
            raise message[1]


def _how_it_ended(child: BaseProcess) -> str:
    code = child.exitcode
    if code is None:
        return "it did not end"
    if code < 0:
        with contextlib.suppress(ValueError):
            return f"stopped by {signal.Signals(-code).name}"
    return f"exit status {code}"


def _stop(child: BaseProcess, grace_s: float) -> None:
    """End the builder and the workers it started (its process group), and reap it; a builder that is done is
    given `grace_s` to end on its own first."""
    if child.exitcode is None:
        child.join(grace_s)
    if child.exitcode is None and child.pid is not None:
        try:
            os.killpg(child.pid, signal.SIGKILL)
        except (OSError, AttributeError):  # (no group yet, or gone; or no process groups at all: the process alone)
            child.kill()
        child.join(STOP_WAIT_S)
    with contextlib.suppress(ValueError, AttributeError):
        child.close()


def built(root: str, progress: Progress | None = None) -> Workspace:
    """The builder process's build: the workspace's persistent index opened, and so brought up to date, with no
    automatic full collection meanwhile (see core/heap.py `holding_full_collections`)."""
    with holding_full_collections():
        return Workspace.open_persistent(root, progress)


def _build(root: str, send: Connection, parent: int) -> None:
    """The builder process: open (and so index) the workspace's persistent index, saying how far it got."""
    send.send(("started",))  # (it got here: the interpreter and the engine load)
    with contextlib.suppress(OSError, AttributeError):  # (no process groups: stopping it stops it alone)
        os.setpgrp()
    with contextlib.suppress(OSError, AttributeError):
        # Background work, below the window: the builder and the workers it starts (they inherit it) keep both
        # cores busy, and at the window's own priority they kept its GUI thread waiting for a core for tens of
        # milliseconds at a time. A machine with nothing else to do builds as fast.
        os.nice(BUILDER_NICENESS)
    end_with_parent(parent)
    told = 0.0

    def tell(done: int, total: int, rel: str) -> None:
        nonlocal told
        now = time.monotonic()
        if done >= total or now - told >= PROGRESS_EVERY_S:
            told = now
            send.send(("progress", done, total, rel))

    try:
        workspace = built(root, tell)
        report = workspace.last_refresh
        workspace.close()
    except Exception as exc:  # noqa: BLE001 - sent to the caller, who raises it
        try:
            send.send(("failed", exc))
        except Exception:  # noqa: BLE001 - (an exception that does not pickle: its words)
            send.send(("failed", RuntimeError(f"{type(exc).__name__}: {exc}")))
        return
    send.send(("done", report))
