"""The watch lease: a process that keeps an index current from a file watcher (the window, an MCP server) writes
"<pid> <until, epoch ms>" under `watch_lease` in the index's meta table and renews it; while it lives, a one-shot
command trusts that index instead of walking the workspace (IndexStore.hold_watch_lease, watched_elsewhere).

Apart from the store so a command can look before it imports the engine: whether to start walking the workspace
in another process at once (cli: `_walk_ahead`) depends on it."""

from __future__ import annotations

import os
import sqlite3
import time
import urllib.parse
from pathlib import Path

LEASE_KEY = "watch_lease"


def lease_is_held(value: object) -> bool:
    """Whether a stored lease is another live process's and has not run out."""
    try:
        pid, until = (int(part) for part in str(value).split())
    except (TypeError, ValueError):
        return False
    if pid == os.getpid() or until < time.time() * 1000:
        return False
    try:
        os.kill(pid, 0)  # (signal 0 delivers nothing: it asks whether the process exists)
    except ProcessLookupError:
        return False  # the holder died without releasing it
    except PermissionError:
        return True  # alive, another user's
    except OSError:
        return False
    return not _is_zombie(pid)


def _is_zombie(pid: int) -> bool:
    """Whether the process has ended and waits only to be reaped (Linux): signal 0 still finds it, and a server
    that crashed under a parent slow to reap it would have been trusted until its lease ran out (up to 30 s)."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as handle:
            stat = handle.read()
    except OSError:
        return False  # no /proc (macOS, Windows), or gone since: the signal's answer stands
    state = stat[stat.rfind(b")") + 2 : stat.rfind(b")") + 3]  # after "pid (command name) "
    return state in (b"Z", b"X")


def index_watched_elsewhere(db_path: Path) -> bool:
    """The lease of the index at `db_path`, read without opening it as a store (read-only, never waiting for a
    writer); False when it cannot be read (no index yet, a damaged one: the store finds out)."""
    try:
        db = sqlite3.connect(f"file:{urllib.parse.quote(str(db_path))}?mode=ro", uri=True, timeout=0)
    except sqlite3.Error:
        return False
    try:
        row = db.execute("SELECT value FROM meta WHERE key = ?", (LEASE_KEY,)).fetchone()
    except sqlite3.Error:
        return False
    finally:
        db.close()
    return row is not None and lease_is_held(row[0])
