"""The live memory index: Markdown memory files parsed into libraries, chapters and entries, with line ranges.

Nothing is stored: the index is derived from the files every time it is asked for (memoised per file on its
modification time and size), so renaming, splitting or deleting a library can never leave a stale entry behind.

A library is one Markdown file. A chapter is a `##` section, optionally tagged with `<!-- 标签: a, b -->` or
`<!-- tags: a, b -->` right under its heading (the same comment under the H1 tags the whole library). Entries are
the list items, numbered items, table rows, `###` blocks or paragraphs inside a chapter. A file without any `##`
is split into entries, each standing as its own (implicit) chapter.
"""

from __future__ import annotations

import math
import os
import re
from dataclasses import dataclass, field
from pathlib import Path

TAGS_COMMENT = re.compile(r"^\s*<!--\s*(?:标签|tags?)\s*[:：]\s*(.*?)\s*-->\s*$", re.IGNORECASE)
LIST_ITEM = re.compile(r"^(\s*)([-*+])\s+(.*)$")
NUMBERED_ITEM = re.compile(r"^(\s*)(\d+)([.)、])\s+(.*)$")
TABLE_SEPARATOR = re.compile(r"^\s*\|?\s*:?-{2,}:?\s*(\|\s*:?-{2,}:?\s*)*\|?\s*$")
CJK = re.compile(r"[\u3400-\u9fff\uf900-\ufaff]")
LATIN_WORD = re.compile(r"[A-Za-z0-9_]+")
MEMORY_SUFFIXES = (".md", ".markdown")
MAX_MEMORY_BYTES = 4_000_000  # a memory file larger than this is skipped with a reason, never read whole


def estimate_tokens(text: str) -> int:
    """A rough token count: one per CJK character, 1.3 per Latin word (what common tokenizers average)."""
    return len(CJK.findall(text)) + math.ceil(len(LATIN_WORD.findall(text)) * 1.3)


def split_tags(raw: str) -> list[str]:
    return [t.strip() for t in re.split(r"[,，、;；]", raw) if t.strip()]


@dataclass
class Entry:
    start: int  # 1-based, inclusive
    end: int
    text: str
    style: str  # "list" | "numbered" | "table" | "heading" | "paragraph"
    number: int = 0  # for numbered items

    @property
    def tokens(self) -> int:
        return estimate_tokens(self.text)


@dataclass
class Chapter:
    title: str
    start: int
    end: int
    tags: list[str] = field(default_factory=list)
    entries: list[Entry] = field(default_factory=list)
    implicit: bool = False  # an entry of a file without `##`, standing as its own chapter
    text: str = ""

    @property
    def tokens(self) -> int:
        return estimate_tokens(self.text)


@dataclass
class Library:
    path: str
    name: str  # the friendly name
    stem: str
    h1: str
    tags: list[str]
    chapters: list[Chapter]
    start: int
    end: int
    text: str
    mtime_ns: int = 0
    size: int = 0

    @property
    def tokens(self) -> int:
        return estimate_tokens(self.text)

    @property
    def tagged(self) -> bool:
        """Hand-tagged libraries get the strict retrieval tier."""
        return bool(self.tags) or any(c.tags for c in self.chapters)

    def chapter(self, title: str) -> Chapter | None:
        return next((c for c in self.chapters if c.title == title and not c.implicit), None)


def _entries(lines: list[str], first: int) -> list[Entry]:
    """Entries in `lines` (whose first line is number `first`)."""
    entries: list[Entry] = []
    current: Entry | None = None

    def close() -> None:
        nonlocal current
        if current is not None:
            entries.append(current)
            current = None

    after_blank = False
    for offset, line in enumerate(lines):
        n = first + offset
        stripped = line.strip()
        if not stripped:
            if current is not None and current.style in ("paragraph", "heading", "table"):
                close()
            after_blank = True
            continue
        if after_blank and current is not None and not line[:1].isspace():
            close()  # an unindented line after a blank one ends the list item above
        after_blank = False
        if TAGS_COMMENT.match(line):
            continue
        numbered = NUMBERED_ITEM.match(line)
        bullet = LIST_ITEM.match(line)
        if stripped.startswith("|"):
            if TABLE_SEPARATOR.match(line):
                if entries and entries[-1].style == "table" and entries[-1].end == n - 1:
                    entries.pop()  # the row above was the table's header, not an entry
                close()
                continue
            close()
            current = Entry(n, n, stripped, "table")
            close()
            continue
        if stripped.startswith("### "):
            close()
            current = Entry(n, n, stripped, "heading")
            continue
        if numbered and not numbered.group(1):
            close()
            current = Entry(n, n, stripped, "numbered", int(numbered.group(2)))
            continue
        if bullet and not bullet.group(1):
            close()
            current = Entry(n, n, stripped, "list")
            continue
        if current is not None:  # a continuation line (indented, or the next line of a paragraph)
            current.end = n
            current.text += "\n" + stripped
            continue
        current = Entry(n, n, stripped, "paragraph")
    close()
    return entries


def parse_library(path: str, text: str, names: dict[str, str] | None = None) -> Library:
    lines = text.splitlines()
    stem = Path(path).stem
    h1 = ""
    library_tags: list[str] = []
    heads = [i for i, line in enumerate(lines) if line.startswith("## ")]
    for line in lines[: heads[0] if heads else len(lines)]:
        if not h1 and line.startswith("# "):
            h1 = line[2:].strip()
            continue
        match = TAGS_COMMENT.match(line)
        if match and not library_tags:
            library_tags = split_tags(match.group(1))
    chapters: list[Chapter] = []
    if heads:
        for k, i in enumerate(heads):
            stop = heads[k + 1] if k + 1 < len(heads) else len(lines)
            body = lines[i + 1 : stop]
            end = stop
            while end > i + 1 and not lines[end - 1].strip():
                end -= 1  # trailing blank lines belong to nobody
            tags: list[str] = []
            for line in body[:3]:
                match = TAGS_COMMENT.match(line)
                if match:
                    tags = split_tags(match.group(1))
                    break
            content = [line for line in lines[i:end] if not TAGS_COMMENT.match(line)]  # tags are not content
            chapters.append(Chapter(lines[i][3:].strip(), i + 1, end, tags, _entries(body, i + 2),
                                    text="\n".join(content)))
    else:
        skip = 0
        while skip < len(lines) and (lines[skip].startswith("# ") or TAGS_COMMENT.match(lines[skip]) or not lines[skip].strip()):
            skip += 1
        for entry in _entries(lines[skip:], skip + 1):
            title = entry.text.splitlines()[0]
            title = re.sub(r"^([-*+]|\d+[.)、]|#+)\s*", "", title)[:60]
            chapters.append(Chapter(title, entry.start, entry.end, [], [entry], implicit=True, text=entry.text))
    name = (names or {}).get(stem) or h1 or stem
    return Library(path, name, stem, h1, library_tags, chapters, 1, len(lines), text)


def too_large(size: int) -> str:
    return f"skipped: larger than {MAX_MEMORY_BYTES // 1_000_000} MB ({size:,} bytes), too big to read on every query"


@dataclass
class _Cached:
    key: tuple[int, int]
    library: Library


class MemoryIndex:
    """The libraries of a memory directory as they are on disk now (re-parsing only files that changed)."""

    def __init__(self, directory: str, names: dict[str, str] | None = None) -> None:
        self.directory = directory
        self.names = names or {}
        self._cache: dict[str, _Cached] = {}
        self.problems: dict[str, str] = {}

    def libraries(self) -> list[Library]:
        found: list[Library] = []
        seen: set[str] = set()
        self.problems = {}
        try:
            entries = sorted(os.scandir(self.directory), key=lambda e: e.name)
        except OSError:
            return []
        for entry in entries:
            if not entry.name.lower().endswith(MEMORY_SUFFIXES) or entry.name.startswith("."):
                continue
            try:
                if not entry.is_file():
                    continue
                st = entry.stat()
            except OSError as exc:
                self.problems[entry.name] = f"cannot read it: {exc.strerror or exc}"
                continue
            seen.add(entry.path)
            if st.st_size > MAX_MEMORY_BYTES:
                self.problems[entry.name] = too_large(st.st_size)
                continue
            key = (st.st_mtime_ns, st.st_size)
            cached = self._cache.get(entry.path)
            if cached is None or cached.key != key:
                try:
                    with open(entry.path, "rb") as fh:
                        raw = fh.read(MAX_MEMORY_BYTES + 1)
                except OSError as exc:
                    self.problems[entry.name] = f"cannot read it: {exc.strerror or exc}"
                    continue
                if len(raw) > MAX_MEMORY_BYTES:  # it grew since the stat
                    self.problems[entry.name] = too_large(len(raw))
                    continue
                if b"\x00" in raw[:8192]:
                    self.problems[entry.name] = "binary content, not a memory file"
                    continue
                library = parse_library(entry.path, raw.decode("utf-8", "replace"), self.names)
                library.mtime_ns, library.size = key
                cached = self._cache[entry.path] = _Cached(key, library)
            found.append(cached.library)
        for path in list(self._cache):
            if path not in seen:
                del self._cache[path]
        return found
