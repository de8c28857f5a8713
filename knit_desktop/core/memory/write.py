"""Writing a confirmed memory: the format guard, and an append that can never damage the file.

The target chapter's format is read from its existing entries: a bulleted list gets another item with the same
marker, a numbered list continues from its largest number, prose gets a paragraph, an empty chapter starts a list,
and a table is refused (which column a sentence belongs in is the user's call). The new text goes after the
chapter's last line and nowhere else.

A write can never lose a line someone else wrote. It holds an exclusive lock on the file for the whole
read-check-write (a second Knit, or any tool that locks with `flock`, waits its turn and keeps its lines), re-reads
the file under the lock and refuses (a conflict) unless it is byte for byte what it was when the note was shown,
copies that version to a uniquely named backup outside the memory directory (the last KEEP_BACKUPS per file are
kept), writes the new version to a temp file beside it, fsyncs, and renames it into place. An editor that does not
lock is caught by looking again right before the rename (the file's identity, size, time and content) and shortly
after it (the replaced version, still open, must not have grown; if it did, the write is withdrawn and every line
appended to either version is kept). A symlinked memory file is written through: the link's target is replaced in
its own directory and the link stays a link.
"""

from __future__ import annotations

import contextlib
import glob
import hashlib
import os
import re
import time
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

from ..atomic_write import sync_directory, write_beside
from .library import LIST_ITEM, MAX_MEMORY_BYTES, NUMBERED_ITEM, Chapter, Entry, parse_library
from .locking import exclusive_lock

KEEP_BACKUPS = 20  # per memory file
SETTLE_S = 0.05  # after a rename, how long a program that opened the old version has to finish its append


class MemoryWriteError(Exception):
    """The write was refused; the message says why, for the user."""


class MemoryConflict(MemoryWriteError):
    """The file changed after the note was shown."""


@dataclass(frozen=True)
class ChapterFormat:
    style: str  # "list" | "numbered" | "paragraph" | "table"
    marker: str = "-"  # list marker, or the numbered separator ("." / ")" / "、")
    next_number: int = 1


def _first_item_line(entry: Entry) -> str:
    """The item's own first line: not the `###` heading or lead-in line that opened it."""
    lines = entry.text.splitlines()
    return lines[1] if entry.opened_by_heading and len(lines) > 1 else lines[0]


def detect_format(chapter: Chapter) -> ChapterFormat:
    styles = [e.style for e in chapter.entries]
    if not styles:
        return ChapterFormat("list")
    if "table" in styles and styles.count("table") >= len(styles) / 2:
        return ChapterFormat("table")
    numbered = [e for e in chapter.entries if e.style == "numbered"]
    bullets = [e for e in chapter.entries if e.style == "list"]
    if numbered and len(numbered) >= len(bullets):
        separator = NUMBERED_ITEM.match(_first_item_line(numbered[-1]))
        return ChapterFormat("numbered", separator.group(3) if separator else ".",
                             max(e.number for e in numbered) + 1)
    if bullets:
        marker = LIST_ITEM.match(_first_item_line(bullets[-1]))
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
    digest = hashlib.sha256()
    with open(path, "rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def append_entry(path: str, chapter_title: str, text: str, expected: str, backup_dir: Path) -> tuple[int, int]:
    """Append `text` to the chapter `chapter_title` of the memory file `path` (an empty title: the end of a file
    without chapters). `expected` is the fingerprint taken when the note was shown. Returns the new entry's line
    range. Raises MemoryConflict or MemoryWriteError, leaving the file as it was."""
    name = os.path.basename(path)
    real = os.path.realpath(path)  # a symlink is written through: its target is what gets replaced
    for _attempt in range(50):
        try:
            with exclusive_lock(real, create=False) as fd:
                held = os.fstat(fd)
                try:
                    now = os.stat(real)
                except FileNotFoundError:
                    continue  # renamed away while we waited: look again
                if (held.st_dev, held.st_ino) != (now.st_dev, now.st_ino):
                    continue  # another writer replaced it while we waited for the lock: lock the new one
                return _append_locked(fd, held, path, real, chapter_title, text, expected, backup_dir)
        except FileNotFoundError:
            break
        except OSError as exc:
            raise MemoryWriteError(f"Cannot write {name}: {exc.strerror or exc}") from None
    if not os.path.exists(real):
        raise MemoryWriteError(f"Cannot read {name}: it is gone.")
    raise MemoryConflict(f"{name} keeps being replaced by another program; nothing was written. Try again.")


def _conflict(name: str) -> MemoryConflict:
    return MemoryConflict(f"{name} changed since this note was shown; nothing was written. "
                          "Look at the file, then confirm again.")


def _pread(fd: int, size: int, offset: int) -> bytes:
    if hasattr(os, "pread"):
        return os.pread(fd, size, offset)
    os.lseek(fd, offset, os.SEEK_SET)  # pragma: no cover - Windows
    return os.read(fd, size)


def _read_fd(fd: int, limit: int) -> bytes:
    chunks: list[bytes] = []
    offset = 0
    while offset <= limit:
        chunk = _pread(fd, min(1 << 20, limit + 1 - offset), offset)
        if not chunk:
            break
        chunks.append(chunk)
        offset += len(chunk)
    return b"".join(chunks)


def _same(a: os.stat_result, b: os.stat_result) -> bool:
    return (a.st_dev, a.st_ino, a.st_size, a.st_mtime_ns) == (b.st_dev, b.st_ino, b.st_size, b.st_mtime_ns)


def _append_locked(fd: int, held: os.stat_result, path: str, real: str, chapter_title: str, text: str,
                   expected: str, backup_dir: Path) -> tuple[int, int]:
    name = os.path.basename(path)
    if held.st_size > MAX_MEMORY_BYTES:
        raise MemoryWriteError(f"{name} is larger than {MAX_MEMORY_BYTES // 1_000_000} MB; Knit does not write to it.")
    raw = _read_fd(fd, MAX_MEMORY_BYTES)
    if hashlib.sha256(raw).hexdigest() != expected:
        raise _conflict(name)
    try:
        original = raw.decode("utf-8")
    except UnicodeDecodeError:
        raise MemoryWriteError(f"{name} is not UTF-8 text; Knit does not write to it.") from None
    body, lines = _with_entry(path, original, chapter_title, text)
    _keep_backup(path, raw, backup_dir)
    data = body.encode("utf-8")
    tmp_fd = write_beside(real, data, mode=held.st_mode, check=lambda: (
        _same(os.stat(real), held) and _same(os.fstat(fd), held)
        and hashlib.sha256(_read_fd(fd, MAX_MEMORY_BYTES)).hexdigest() == expected))
    try:
        if tmp_fd is None:  # right before the rename: an editor that does not lock wrote meanwhile
            raise _conflict(name)
        _settle(fd, held, raw, tmp_fd, data, real, path, backup_dir)
    finally:
        if tmp_fd is not None:
            os.close(tmp_fd)
    sync_directory(os.path.dirname(real))
    return lines


def _settle(old_fd: int, held: os.stat_result, raw: bytes, new_fd: int, body: bytes, real: str, path: str,
            backup_dir: Path) -> None:
    """After the rename, give a program that opened the old version just before it time to finish its append
    (appends go to the version that was opened). If one wrote there, the write is withdrawn: the file becomes the
    old version with everything appended to any version since, and the confirm reports a conflict. Repeated until
    no replaced version grows during a settling period."""
    name = os.path.basename(path)
    limit = MAX_MEMORY_BYTES * 2
    watch = [(old_fd, held.st_size)]  # replaced versions (still open) and how much of each is accounted for
    live_fd, repaired = new_fd, False
    ours: list[int] = []
    try:
        for _attempt in range(20):
            time.sleep(SETTLE_S)
            if all(os.fstat(fd).st_size == known for fd, known in watch):
                break
            contents = [_read_fd(fd, limit) for fd, _known in watch]
            if any(len(content) < known for content, (_fd, known) in zip(contents, watch)):
                kept = _keep_backup(path, contents[0], backup_dir)  # not an append: keep it, say where
                raise MemoryConflict(f"{name} was edited by another program while Knit wrote to it; that "
                                     f"program's version is kept in {kept}. Look at the file, then confirm again.")
            extras = [content[known:] for content, (_fd, known) in zip(contents, watch)]
            live = _read_fd(live_fd, limit)
            if not repaired:  # withdraw our entry: the old version, then what was appended to either version
                merged = raw + extras[0] + live[len(body):]
            else:
                merged = live + b"".join(extras)
            sizes = [len(c) for c in contents]
            def unchanged(sizes: list[int] = sizes, live: bytes = live, watch: list[tuple[int, int]] = watch,
                          live_fd: int = live_fd) -> bool:
                return [os.fstat(fd).st_size for fd, _k in watch] == sizes and os.fstat(live_fd).st_size == len(live)

            fd2 = write_beside(real, merged, mode=held.st_mode, check=unchanged)
            if fd2 is None:
                continue  # more arrived while merging: merge again
            ours.append(fd2)
            watch = [(fd, size) for (fd, _k), size in zip(watch, sizes)] + [(live_fd, len(live))]
            live_fd, repaired = fd2, True
        else:
            kept = _keep_backup(path, _read_fd(old_fd, limit), backup_dir)
            raise MemoryConflict(f"{name} kept changing while Knit wrote to it; another program's version is "
                                 f"kept in {kept}. Look at the file, then confirm again.")
    finally:
        for fd in ours:
            os.close(fd)
    if repaired:
        raise MemoryConflict(f"{name} was written by another program while Knit wrote to it; its lines are kept "
                             "and this note was not written. Look at the file, then confirm again.")


def _with_entry(path: str, original: str, chapter_title: str, text: str) -> tuple[str, tuple[int, int]]:
    """The file's new text with the entry in place, and the entry's line range."""
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
    if chapter_title and chapter is not None and fmt.style != "paragraph" and not any(e for e in chapter.entries):
        new_lines = ["", *new_lines] if lines[insert_after - 1].strip() else new_lines
    # Everything around the entry is kept character for character: its own line endings (mixed ones too) and
    # characters that only some readers take for line breaks (U+2028, form feed, NEL) are not rewritten.
    kept = original.splitlines(keepends=True)
    head, tail = "".join(kept[:insert_after]), "".join(kept[insert_after:])
    if head and not head.endswith(("\n", "\r")):
        head += newline  # the line before ends the file, or ends in a separator that is not a newline
    entry = newline.join(new_lines) + newline
    if not tail and original and not original.endswith(("\n", "\r")):
        entry = entry[: -len(newline)]  # the file did not end with a newline: neither does it now
    body = head + entry + tail
    first = insert_after + 1 + (1 if new_lines and new_lines[0] == "" else 0)
    return body, (first, insert_after + len(new_lines))


def _keep_backup(path: str, raw: bytes, backup_dir: Path) -> Path:
    """A backup under a name no other backup has (time to the microsecond, then a counter), then only the newest
    KEEP_BACKUPS of this file are kept."""
    backup_dir.mkdir(parents=True, exist_ok=True)
    stem = Path(path).stem
    stamp = datetime.now().strftime("%Y%m%d-%H%M%S-%f")
    for counter in range(1000):
        target = backup_dir / f"{stem}.{stamp}-{counter:03d}.md"
        try:
            fd = os.open(target, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        except FileExistsError:
            continue
        break
    else:
        raise MemoryWriteError(f"Cannot name a backup of {os.path.basename(path)} in {backup_dir}.")
    with os.fdopen(fd, "wb") as fh:
        fh.write(raw)
        fh.flush()
        os.fsync(fh.fileno())
    _prune_backups(backup_dir, stem)
    return target


def backups_of(backup_dir: Path, stem: str) -> list[Path]:
    """This memory file's backups, oldest first (their names sort by time)."""
    pattern = f"{glob.escape(stem)}.{'[0-9]' * 8}-{'[0-9]' * 6}-{'[0-9]' * 6}-{'[0-9]' * 3}.md"
    return sorted(backup_dir.glob(pattern))


def _prune_backups(backup_dir: Path, stem: str) -> None:
    for old in backups_of(backup_dir, stem)[:-KEEP_BACKUPS]:
        with contextlib.suppress(OSError):
            old.unlink()
