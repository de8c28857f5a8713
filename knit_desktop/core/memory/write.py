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
lock is caught by looking again right before the rename (the file's identity, size, time and content) and right
after it (the replaced version, still open, must not have grown meanwhile; if it did, it is put back and the write
is refused). A symlinked memory file is written through: the link's target is replaced in its own directory and the
link stays a link.
"""

from __future__ import annotations

import contextlib
import glob
import hashlib
import os
import re
import tempfile
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

from .library import LIST_ITEM, MAX_MEMORY_BYTES, NUMBERED_ITEM, Chapter, parse_library
from .locking import exclusive_lock

KEEP_BACKUPS = 20  # per memory file


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


def _read_fd(fd: int, limit: int) -> bytes:
    chunks: list[bytes] = []
    offset = 0
    while offset <= limit:
        chunk = os.pread(fd, min(1 << 20, limit + 1 - offset), offset)
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
    directory = os.path.dirname(real)
    tmp_fd, tmp = tempfile.mkstemp(prefix=".knit-", suffix=".tmp", dir=directory)
    try:
        data = body.encode("utf-8")
        view = memoryview(data)
        while view:
            view = view[os.write(tmp_fd, view):]
        os.fsync(tmp_fd)
        os.fchmod(tmp_fd, held.st_mode & 0o7777)
        # Right before the rename: an editor that does not lock may have written meanwhile.
        if not (_same(os.stat(real), held) and _same(os.fstat(fd), held)
                and hashlib.sha256(_read_fd(fd, MAX_MEMORY_BYTES)).hexdigest() == expected):
            raise _conflict(name)
        os.replace(tmp, real)
        written = os.fstat(tmp_fd)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        os.close(tmp_fd)
        raise
    try:
        if not _same(os.fstat(fd), held):
            # Someone wrote to the old version between the last look and the rename: put theirs back.
            _put_back(fd, tmp_fd, written, real, held, path, backup_dir)
            raise _conflict(name)
    finally:
        os.close(tmp_fd)
    _sync_directory(directory)
    return lines


def _put_back(old_fd: int, new_fd: int, written: os.stat_result, real: str, held: os.stat_result, path: str,
              backup_dir: Path) -> None:
    theirs = _read_fd(old_fd, max(MAX_MEMORY_BYTES, os.fstat(old_fd).st_size))
    if not _same(os.fstat(new_fd), written):  # and someone wrote to the new one too: keep both, say where
        kept = _keep_backup(path, theirs, backup_dir)
        raise MemoryConflict(f"{os.path.basename(path)} was edited by another program while Knit wrote to it; "
                             f"its version from before is kept in {kept}. Look at the file, then confirm again.")
    tmp_fd, tmp = tempfile.mkstemp(prefix=".knit-", suffix=".tmp", dir=os.path.dirname(real))
    try:
        view = memoryview(theirs)
        while view:
            view = view[os.write(tmp_fd, view):]
        os.fsync(tmp_fd)
        os.fchmod(tmp_fd, held.st_mode & 0o7777)
        os.replace(tmp, real)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
    finally:
        os.close(tmp_fd)


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
    if chapter_title and fmt.style != "paragraph" and not any(e for e in library.chapter(chapter_title).entries):
        new_lines = ["", *new_lines] if lines[insert_after - 1].strip() else new_lines
    updated = lines[:insert_after] + new_lines + lines[insert_after:]
    body = newline.join(updated) + (newline if original.endswith(("\n", "\r")) or not original else "")
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


def _sync_directory(directory: str) -> None:
    try:  # the rename itself is durable once the directory is synced (not possible on every system)
        dir_fd = os.open(directory, os.O_RDONLY)
    except OSError:
        return
    with contextlib.suppress(OSError):
        os.fsync(dir_fd)
    os.close(dir_fd)
