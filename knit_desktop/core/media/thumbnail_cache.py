"""The thumbnail disk cache: one small PNG per media file version, plus what was learnt about it.

A version is the file's real path, modification time and size; an edited or replaced file gets a new entry and the
old one is simply never asked for again (`prune` drops the oldest beyond a budget). Alongside each PNG a JSON
note keeps the video duration or the reason a file could not be shown, so a broken file is not decoded again
and again. Writes go through `atomic_write.replace_file`, so a crash never leaves a torn thumbnail.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
from dataclasses import dataclass
from pathlib import Path

from ..atomic_write import replace_file

THUMB_EDGE = 256  # px: sharp on 2x screens for the 104 px cells, small enough to decode in a few ms
CACHE_VERSION = 1
MAX_ENTRIES = 20_000


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
    def __init__(self, directory: Path) -> None:
        self.dir = directory

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
            return CachedThumbnail(None, int(info.get("duration_ms", 0)), str(info["problem"]))
        if not png.is_file():
            return None
        return CachedThumbnail(png, int(info.get("duration_ms", 0)))

    def put(self, key: str, png_bytes: bytes | None, duration_ms: int = 0, problem: str = "") -> CachedThumbnail:
        """Store a thumbnail (PNG bytes) or a problem; the note is written last, so it only ever points at a
        complete image."""
        png, note = self._paths(key)
        png.parent.mkdir(parents=True, exist_ok=True)
        if png_bytes is not None and not problem:
            replace_file(png, png_bytes)
        replace_file(note, json.dumps({"duration_ms": int(duration_ms), "problem": problem}).encode("utf-8"))
        return CachedThumbnail(None if problem else png, int(duration_ms), problem)

    def prune(self, keep: int = MAX_ENTRIES) -> int:
        """Drop the least recently written entries beyond `keep`; returns how many were removed."""
        try:
            notes = sorted(self.dir.glob("*/*.json"), key=lambda p: p.stat().st_mtime)
        except OSError:
            return 0
        removed = 0
        for note in notes[: max(0, len(notes) - keep)]:
            for path in (note, note.with_suffix(".png")):
                with contextlib.suppress(OSError):
                    path.unlink()
            removed += 1
        return removed
