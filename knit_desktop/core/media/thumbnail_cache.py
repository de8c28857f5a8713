"""The thumbnail disk cache: one small PNG per media file version, plus what was learnt about it.

A version is the file's real path, modification time and size; an edited or replaced file gets a new entry and the
old one is simply never asked for again. Alongside each PNG a JSON note keeps the video duration or the reason a
file could not be shown, so a broken file is not decoded again and again. Writes go through
`atomic_write.replace_file`, so no reader ever sees a torn thumbnail; they skip the fsyncs (a cache: an entry lost
to a power cut is made again, and an empty PNG left by one reads as missing).

The cache is capped (MAX_BYTES and MAX_ENTRIES) and evicts the least recently used entries: a note's modification
time is its last use. A hit does not write: used keys are remembered and their notes touched in one batch (every
TOUCH_BATCH hits, or when pruning). `prune` runs on the thread that writes (the thumbnail worker, never the GUI
thread): at the first write after the cache is opened if the last prune (the PRUNE_MARKER file's time) is more than
PRUNE_INTERVAL_S old, so a full cache is scanned at most once a day (about 0.5 s for 20,000 entries), and then
every PRUNE_EVERY writes.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import threading
import time
from dataclasses import dataclass
from pathlib import Path

from ..atomic_write import replace_file

THUMB_EDGE = 256  # px: sharp on 2x screens for the 104 px cells, small enough to decode in a few ms
CACHE_VERSION = 1
MAX_ENTRIES = 20_000
MAX_BYTES = 200 * 1024 * 1024  # about 4,000 video posters or photos at 256 px
PRUNE_EVERY = 500  # writes between two prunes
PRUNE_INTERVAL_S = 24 * 3600  # a session's first write prunes if the last prune is older than this
PRUNE_MARKER = ".pruned"  # its modification time is the last prune's
TOUCH_BATCH = 64  # hits remembered before their notes' times are updated


@dataclass(frozen=True)
class CachedThumbnail:
    png: Path | None  # None when the file could not be shown
    duration_ms: int = 0
    problem: str = ""


def version_key(path: str) -> str | None:
    """The cache key of the file as it is now; None when it cannot be stat'ed."""
    try:
        st = os.stat(path)
    except OSError:
        return None
    raw = f"{CACHE_VERSION}\0{os.path.realpath(path)}\0{st.st_mtime_ns}\0{st.st_size}\0{THUMB_EDGE}"
    return hashlib.sha1(raw.encode("utf-8", "surrogatepass")).hexdigest()


class ThumbnailCache:
    def __init__(self, directory: Path, *, max_bytes: int = MAX_BYTES, max_entries: int = MAX_ENTRIES) -> None:
        self.dir = directory
        self.max_bytes = max_bytes
        self.max_entries = max_entries
        self._lock = threading.Lock()
        self._used: set[str] = set()  # keys hit since their notes were last touched
        self._writes_until_prune = 0  # the first write after opening looks at the last prune's time

    def _paths(self, key: str) -> tuple[Path, Path]:
        sub = self.dir / key[:2]
        return sub / f"{key}.png", sub / f"{key}.json"

    def get(self, key: str) -> CachedThumbnail | None:
        png, note = self._paths(key)
        try:
            info = json.loads(note.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return None
        if not isinstance(info, dict):
            return None
        if info.get("problem"):
            found = CachedThumbnail(None, int(info.get("duration_ms", 0)), str(info["problem"]))
        else:
            try:
                if png.stat().st_size == 0:
                    return None
            except OSError:
                return None
            found = CachedThumbnail(png, int(info.get("duration_ms", 0)))
        self._mark_used(key)
        return found

    def put(self, key: str, png_bytes: bytes | None, duration_ms: int = 0, problem: str = "") -> CachedThumbnail:
        """Store a thumbnail (PNG bytes) or a problem; the note is written last, so it only ever points at a
        complete image."""
        png, note = self._paths(key)
        png.parent.mkdir(parents=True, exist_ok=True)
        if png_bytes is not None and not problem:
            replace_file(png, png_bytes, durable=False)
        replace_file(note, json.dumps({"duration_ms": int(duration_ms), "problem": problem}).encode("utf-8"),
                     durable=False)
        with self._lock:
            first = self._writes_until_prune == 0
            self._writes_until_prune -= 1
            due = self._writes_until_prune <= 0
            if due:
                self._writes_until_prune = PRUNE_EVERY
        if due and not (first and self._pruned_recently()):
            self.prune()
        return CachedThumbnail(None if problem else png, int(duration_ms), problem)

    def _pruned_recently(self) -> bool:
        try:
            return time.time() - (self.dir / PRUNE_MARKER).stat().st_mtime < PRUNE_INTERVAL_S
        except OSError:
            return False

    def _mark_used(self, key: str) -> None:
        with self._lock:
            self._used.add(key)
            due = len(self._used) >= TOUCH_BATCH
        if due:
            self.touch_used()

    def touch_used(self) -> None:
        """Record the hits remembered so far as the entries' last use (one utime per entry, not per hit)."""
        with self._lock:
            used, self._used = self._used, set()
        for key in used:
            with contextlib.suppress(OSError):
                os.utime(self._paths(key)[1])

    def prune(self, keep: int | None = None, max_bytes: int | None = None) -> int:
        """Drop the least recently used entries until at most `keep` entries of at most `max_bytes` in all are
        left (the cache's caps by default); returns how many were removed."""
        keep = self.max_entries if keep is None else keep
        max_bytes = self.max_bytes if max_bytes is None else max_bytes
        self.touch_used()
        entries: list[tuple[float, int, Path]] = []  # (last use, bytes, note)
        try:
            notes = list(self.dir.glob("*/*.json"))
        except OSError:
            return 0
        for note in notes:
            try:
                st = note.stat()
            except OSError:
                continue
            size = st.st_size
            with contextlib.suppress(OSError):
                size += note.with_suffix(".png").stat().st_size
            entries.append((st.st_mtime, size, note))
        entries.sort(key=lambda entry: entry[0])
        total = sum(size for _, size, _ in entries)
        count = len(entries)
        removed = 0
        for _, size, note in entries:
            if count <= keep and total <= max_bytes:
                break
            for path in (note, note.with_suffix(".png")):
                with contextlib.suppress(OSError):
                    path.unlink()
            count -= 1
            total -= size
            removed += 1
        with contextlib.suppress(OSError):
            (self.dir / PRUNE_MARKER).touch()
        return removed
