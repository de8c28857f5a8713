"""One exclusive-lock helper for everything memory writes: the proposal queue and the memory files.

Advisory locks (`flock` on POSIX, `msvcrt.locking` on Windows) only exclude writers that lock too; a writer that
does not (an editor) is caught by the fingerprint checks in `write.py` instead.
"""

from __future__ import annotations

import contextlib
import os
import sys
from collections.abc import Iterator

if sys.platform == "win32":  # pragma: no cover - exercised on Windows only (and type-checked as Linux)
    import msvcrt

    def _lock(fd: int) -> None:
        msvcrt.locking(fd, msvcrt.LK_LOCK, 1)

    def _unlock(fd: int) -> None:
        msvcrt.locking(fd, msvcrt.LK_UNLCK, 1)
else:
    import fcntl

    def _lock(fd: int) -> None:
        fcntl.flock(fd, fcntl.LOCK_EX)

    def _unlock(fd: int) -> None:
        fcntl.flock(fd, fcntl.LOCK_UN)


@contextlib.contextmanager
def exclusive_lock(path: str, create: bool = True) -> Iterator[int]:
    """Hold an exclusive lock on `path` (created as an empty lock file when `create`); yields the locked fd."""
    flags = (os.O_RDWR | os.O_CREAT) if create else os.O_RDONLY
    fd = os.open(path, flags, 0o600)
    try:
        _lock(fd)
        yield fd
    finally:
        with contextlib.suppress(OSError):
            _unlock(fd)
        os.close(fd)
