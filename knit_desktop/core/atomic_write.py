"""Replacing a file so that a crash, a full disk or a reader at the wrong moment never sees half of it.

The one way Knit replaces a file it owns (settings, thumbnails, the proposal queue, memory files): the new content
goes to a temp file in the same directory (a rename is only atomic within one file system), is fsynced, gets the
mode of the file it replaces (or the mode a plain `open()` would give a new file), is renamed over the target, and
the directory is fsynced so the rename itself survives a power cut. On any error the temp file is removed and the
old file is untouched.
"""

from __future__ import annotations

import contextlib
import functools
import os
import stat
import tempfile
from collections.abc import Callable
from pathlib import Path

__all__ = ["replace_file", "replace_text", "sync_directory", "write_beside"]


@functools.cache
def _umask() -> int:
    """The process's umask without changing it (os.umask would, for a moment, in every thread)."""
    try:
        with open("/proc/self/status", encoding="ascii") as fh:
            for line in fh:
                if line.startswith("Umask:"):
                    return int(line.split()[1], 8)
    except (OSError, ValueError):
        pass
    old = os.umask(0o022)  # pragma: no cover - systems without /proc
    os.umask(old)
    return old


def _mode_for(path: str, new_file_mode: int | None) -> int:
    try:
        return stat.S_IMODE(os.stat(path).st_mode)
    except OSError:
        return 0o666 & ~_umask() if new_file_mode is None else new_file_mode


def sync_directory(directory: str | os.PathLike[str]) -> None:
    """Make a rename in `directory` durable (not possible on every system: then it is skipped)."""
    try:
        dir_fd = os.open(directory, os.O_RDONLY)
    except OSError:
        return
    with contextlib.suppress(OSError):
        os.fsync(dir_fd)
    os.close(dir_fd)


def write_beside(path: str | os.PathLike[str], data: bytes, *, mode: int | None = None,
                 new_file_mode: int | None = None, check: Callable[[], bool] | None = None,
                 prefix: str = ".knit-", durable: bool = True) -> int | None:
    """Write `data` to a temp file beside `path`, fsync it, give it `mode` (default: the replaced file's; for a
    new file `new_file_mode`, else what `open()` would give), and rename it over `path` if `check()` (when given) still holds right before the rename.

    Returns the new file's open descriptor, which the caller closes (it lets a caller watch the new file); None,
    with nothing renamed, if the check failed. The directory is not synced: see `replace_file`."""
    target = os.fspath(path)
    wanted = _mode_for(target, new_file_mode) if mode is None else mode
    tmp_fd, tmp = tempfile.mkstemp(prefix=prefix, suffix=".tmp", dir=os.path.dirname(target) or ".")
    try:
        view = memoryview(data)
        while view:
            view = view[os.write(tmp_fd, view):]
        if durable:
            os.fsync(tmp_fd)
        if hasattr(os, "fchmod"):
            os.fchmod(tmp_fd, wanted & 0o7777)
        else:  # pragma: no cover - Windows
            os.chmod(tmp, wanted & 0o7777)
        if check is not None and not check():
            os.unlink(tmp)
            os.close(tmp_fd)
            return None
        os.replace(tmp, target)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        os.close(tmp_fd)
        raise
    return tmp_fd


def replace_file(path: str | os.PathLike[str], data: bytes, *, mode: int | None = None,
                 new_file_mode: int | None = None, durable: bool = True) -> None:
    """Atomically and durably replace (or create) `path` with `data`, keeping its mode. `durable=False` skips both
    fsyncs, for a cache: still all or nothing for every reader, but a power cut may lose the write."""
    fd = write_beside(path, data, mode=mode, new_file_mode=new_file_mode, durable=durable)
    if fd is not None:
        os.close(fd)
    if durable:
        sync_directory(os.path.dirname(os.fspath(path)) or ".")


def replace_text(path: str | os.PathLike[str] | Path, text: str, *, mode: int | None = None,
                 new_file_mode: int | None = None) -> None:
    """`replace_file` for UTF-8 text."""
    replace_file(path, text.encode("utf-8"), mode=mode, new_file_mode=new_file_mode)
