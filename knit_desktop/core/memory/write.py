"""Writing a confirmed memory: the format guard, and an append that can never damage the file.

The target chapter's format is read from its existing entries: a bulleted list gets another item with the same
marker, a numbered list continues from its largest number, prose gets a paragraph, an empty chapter starts a list,
and a table is refused (which column a sentence belongs in is the user's call). The new text goes after the
chapter's last line and nowhere else. The file is rewritten atomically (temp file, fsync, rename) after its
previous version is copied to a backup outside the memory directory, and only if it is byte for byte what it was
when the note was shown; otherwise the write is refused as a conflict.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import re
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from .library import LIST_ITEM, NUMBERED_ITEM, Chapter, parse_library


class MemoryWriteError(Exception):
    """The write was refused; the message says why, for the user."""


class MemoryConflict(MemoryWriteError):
    """The file changed after the note was shown."""


@dataclass(frozen=True)
class ChapterFormat:
    style: str  # "list" | "numbered" | "paragraph" | "table"
    marker: str = "-"  # list marker, or the numbered separator ("." / ")" / "、")
    next_number: int = 1


def detect_format(chapter: Chapter) -> ChapterFormat:
    styles = [e.style for e in chapter.entries]
    if not styles:
        return ChapterFormat("list")
    if "table" in styles and styles.count("table") >= len(styles) / 2:
        return ChapterFormat("table")
    numbered = [e for e in chapter.entries if e.style == "numbered"]
    bullets = [e for e in chapter.entries if e.style == "list"]
    if numbered and len(numbered) >= len(bullets):
        separator = NUMBERED_ITEM.match(numbered[-1].text.splitlines()[0])
        return ChapterFormat("numbered", separator.group(3) if separator else ".",
                             max(e.number for e in numbered) + 1)
    if bullets:
        marker = LIST_ITEM.match(bullets[-1].text.splitlines()[0])
        return ChapterFormat("list", marker.group(2) if marker else "-")
    return ChapterFormat("paragraph")


def format_entry(text: str, fmt: ChapterFormat) -> list[str]:
    lines = [line.rstrip() for line in text.strip().splitlines() if line.strip()] or [""]
    if fmt.style == "table":
        raise MemoryWriteError("This chapter is a table: add the row by hand — Knit does not guess its columns.")
    if fmt.style == "paragraph":
        return ["", *lines]
    if fmt.style == "numbered":
        head = f"{fmt.next_number}{fmt.marker} "
    else:
        head = f"{fmt.marker} "
    indent = " " * len(head)
    first = re.sub(r"^([-*+]|\d+[.)、])\s+", "", lines[0])
    return [head + first, *(indent + line for line in lines[1:])]


def fingerprint(path: str) -> str:
    with open(path, "rb") as fh:
        return hashlib.sha256(fh.read()).hexdigest()


def append_entry(path: str, chapter_title: str, text: str, expected: str, backup_dir: Path) -> tuple[int, int]:
    """Append `text` to the chapter `chapter_title` of the memory file `path` (an empty title: the end of a file
    without chapters). `expected` is the fingerprint taken when the note was shown. Returns the new entry's line
    range. Raises MemoryConflict or MemoryWriteError, leaving the file untouched."""
    try:
        with open(path, "rb") as fh:
            raw = fh.read()
    except OSError as exc:
        raise MemoryWriteError(f"Cannot read {os.path.basename(path)}: {exc.strerror or exc}") from None
    if hashlib.sha256(raw).hexdigest() != expected:
        raise MemoryConflict(f"{os.path.basename(path)} changed since this note was shown; nothing was written. "
                             "Look at the file, then confirm again.")
    try:
        original = raw.decode("utf-8")
    except UnicodeDecodeError:
        raise MemoryWriteError(f"{os.path.basename(path)} is not UTF-8 text; Knit does not write to it.") from None
    newline = "\r\n" if "\r\n" in original else "\n"
    library = parse_library(path, original)
    lines = original.splitlines()
    if chapter_title:
        chapter = library.chapter(chapter_title)
        if chapter is None:
            raise MemoryWriteError(f"There is no chapter “{chapter_title}” in {os.path.basename(path)} any more.")
        fmt = detect_format(chapter)
        insert_after = chapter.end  # 1-based line number of the chapter's last line
    else:
        entries = [e for c in library.chapters for e in c.entries]
        fmt = detect_format(Chapter("", 1, len(lines), entries=entries))
        insert_after = len(lines)
        while insert_after > 0 and not lines[insert_after - 1].strip():
            insert_after -= 1
    new_lines = format_entry(text, fmt)
    if chapter_title and fmt.style != "paragraph" and not any(e for e in library.chapter(chapter_title).entries):
        new_lines = ["", *new_lines] if lines[insert_after - 1].strip() else new_lines
    updated = lines[:insert_after] + new_lines + lines[insert_after:]
    body = newline.join(updated) + (newline if original.endswith(("\n", "\r")) or not original else "")
    _keep_backup(path, raw, backup_dir)
    _atomic_write(path, body.encode("utf-8"))
    first = insert_after + 1 + (1 if new_lines and new_lines[0] == "" else 0)
    return first, insert_after + len(new_lines)


def _keep_backup(path: str, raw: bytes, backup_dir: Path) -> None:
    backup_dir.mkdir(parents=True, exist_ok=True)
    stamp = time.strftime("%Y%m%d-%H%M%S")
    target = backup_dir / f"{Path(path).stem}.{stamp}.{os.getpid()}.md"
    with open(target, "wb") as fh:
        fh.write(raw)
        fh.flush()
        os.fsync(fh.fileno())


def _atomic_write(path: str, data: bytes) -> None:
    directory = os.path.dirname(os.path.abspath(path))
    mode = os.stat(path).st_mode & 0o777
    fd, tmp = tempfile.mkstemp(prefix=".knit-", suffix=".tmp", dir=directory)
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
        os.chmod(tmp, mode)
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
    try:  # the rename itself is durable once the directory is synced (not possible on every system)
        dir_fd = os.open(directory, os.O_RDONLY)
    except OSError:
        return
    with contextlib.suppress(OSError):
        os.fsync(dir_fd)
    os.close(dir_fd)
