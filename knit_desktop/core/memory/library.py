"""The live memory index: Markdown memory files parsed into libraries, chapters and entries, with line ranges.

Nothing is stored: the index is derived from the files every time it is asked for (memoised per file on its
modification time and size), so renaming, splitting or deleting a library can never leave a stale entry behind.

A library is one Markdown file. A chapter is a `##` section, optionally tagged with `<!-- 标签: a, b -->` or
`<!-- tags: a, b -->` right under its heading (the same comment under the H1 tags the whole library). Entries are
the list items, numbered items, table rows, paragraphs and fenced code blocks inside a chapter; a `###` (or deeper)
heading is never an entry alone: it opens the entry that follows it and stays the context (`Entry.heading`) of the
entries under it; a lead-in line (a line bold as a whole, or a short line ending with a colon) does the same for
the list, table, code block or paragraph right under it (`Entry.lead_in` for the items after the first); a `---`
rule ends the entry above it; YAML front matter is one entry; comments are not content. A file written whole inside
a ```` ```markdown ```` fence is read as the Markdown it holds.
Paragraphs between a `---` rule and the next rule or heading stay together the same way (up to BLOCK_LINES).
Text before the first `##` (a preamble: front matter, a summary, a TL;DR) is an implicit chapter of its own. A file
without any `##` is split into entries, each standing as its own (implicit) chapter.
"""

from __future__ import annotations

import math
import os
import re
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path

LIST_ITEM = re.compile(r"^(\s*)([-*+])\s+(.*)$")
NUMBERED_ITEM = re.compile(r"^(\s*)(\d+)([.)、])\s+(.*)$")
RULE = re.compile(r"^\s{0,3}([-*_])(\s*\1){2,}\s*$")
FENCE = re.compile(r"^\s*(```|~~~)")
COMMENT = re.compile(r"^\s*<!--.*-->\s*$")
CJK = re.compile(r"[\u3400-\u9fff\uf900-\ufaff]")
LATIN_WORD = re.compile(r"[A-Za-z0-9_]+")
MEMORY_SUFFIXES = (".md", ".markdown")
LEAD_BOLD = re.compile(r"^\*\*([^*]+?)\*\*\s*[:：]?$")
LEAD_MAX_CHARS = 60  # a lead-in is a short line; a long one ending with a colon is a sentence of its own
LEAD_GAP = 4  # lines between a lead-in and its list or table (a blank line, a table's header and separator)
BLOCK_LINES = 12  # a `###` block of prose gathers paragraphs up to this many lines; past it they stand alone
MAX_MEMORY_BYTES = 4_000_000  # a memory file larger than this is skipped with a reason, never read whole


def estimate_tokens(text: str) -> int:
    """A rough token count: one per CJK character, 1.3 per Latin word (what common tokenizers average)."""
    return len(CJK.findall(text)) + math.ceil(len(LATIN_WORD.findall(text)) * 1.3)


def subheading(line: str) -> str | None:
    """The text of a `###`–`######` heading line (closing #s dropped), else None. Plain string code: the
    equivalent pattern backtracks cubically on a line of spaces and #s."""
    marks = len(line) - len(line.lstrip("#"))
    rest = line[marks:]
    if not 3 <= marks <= 6 or not rest[:1].isspace():
        return None
    return rest.strip().rstrip("#").strip()


def tags_comment(line: str) -> str | None:
    """The tags of a `<!-- 标签: a, b -->` / `<!-- tags: a, b -->` line, else None. String work, not a regular
    expression: the pattern it replaces took cubic time on a comment followed by spaces (28 s for 3,000)."""
    stripped = line.strip()
    if len(stripped) < 7 or not stripped.startswith("<!--") or not stripped.endswith("-->"):
        return None
    inner = stripped[4:-3].lstrip()
    lowered = inner.lower()
    for word in ("标签", "tags", "tag"):
        if lowered.startswith(word):
            rest = inner[len(word) :].lstrip()
            break
    else:
        return None
    if not rest or rest[0] not in ":：":
        return None
    return rest[1:].strip()


def is_table_separator(line: str) -> bool:
    """A Markdown table's header separator (`| --- | :-: |`)."""
    cells = line.strip()
    cells = cells[1:] if cells.startswith("|") else cells
    cells = cells[:-1] if cells.endswith("|") else cells
    for cell in cells.split("|"):
        dashes = cell.strip()
        dashes = dashes[1:] if dashes.startswith(":") else dashes
        dashes = dashes[:-1] if dashes.endswith(":") else dashes
        if len(dashes) < 2 or dashes.strip("-"):
            return False
    return True


def split_tags(raw: str) -> list[str]:
    return [t.strip() for t in re.split(r"[,，、;；]", raw) if t.strip()]


@dataclass
class Entry:
    start: int  # 1-based, inclusive
    end: int
    text: str
    style: str  # "list" | "numbered" | "table" | "paragraph" | "code" | "frontmatter" (the style of its body)
    number: int = 0  # for numbered items
    heading: str = ""  # the `###` heading this entry stands under (its first line when it opened the entry)
    # A block of several paragraphs (a `###` block, prose after a `---`) keeps where each one is: (first line,
    # last line, index of its first line in `text`), so search can find the paragraph that answers inside it.
    parts: list[tuple[int, int, int]] = field(default_factory=list)
    lead: bool = False  # its first line is a lead-in ("**B 层：受控回放测试**", "Key components:") that opened it
    lead_in: str = ""  # the lead-in the list or table it belongs to stands under (context, like `heading`)
    # A paragraph that ends by announcing a list ("…, so:" / "…所以：") is scored on its own words, but its hit shows
    # the list's first item too (what it announced): that item.
    announces: Entry | None = None

    @property
    def tokens(self) -> int:
        return estimate_tokens(self.text)

    @property
    def opened_by_heading(self) -> bool:
        """Whether its first line is a heading (a `###` line or a lead-in) rather than its own content."""
        return self.lead or self.text.startswith("#")

    def extend(self, n: int, line: str) -> None:
        """Line `n` continues this entry (and its last paragraph)."""
        self.end = n
        self.text += "\n" + line
        if self.parts:
            first, _, index = self.parts[-1]
            self.parts[-1] = (first, n, index)

    def part_entries(self) -> list[Entry]:
        """The paragraphs of a block as entries of their own (under the block's heading); [] for a single one."""
        if len(self.parts) < 2:
            return []
        lines = self.text.split("\n")
        bounds = [index for _, _, index in self.parts] + [len(lines)]
        return [Entry(first, last, "\n".join(lines[bounds[k]:bounds[k + 1]]), "paragraph", 0, self.heading)
                for k, (first, last, _) in enumerate(self.parts)]


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

    @cached_property
    def tagged(self) -> bool:
        """Hand-tagged libraries get the strict retrieval tier. Asked for every entry of every question, and a
        library is not changed once parsed (a file that changes is parsed again): worked out once, not by walking
        every chapter each time (52 million steps for one question on a 1 MB log of 1,200 chapters)."""
        return bool(self.tags) or any(c.tags for c in self.chapters)

    def chapter(self, title: str) -> Chapter | None:
        return next((c for c in self.chapters if c.title == title and not c.implicit), None)


def _entries(lines: list[str], first: int) -> list[Entry]:
    """Entries in `lines` (whose first line is number `first`)."""
    entries: list[Entry] = []
    current: Entry | None = None
    heading = ""  # the `###` heading the next entries stand under
    pending: tuple[int, str] | None = None  # a `###` line waiting for the entry it opens
    fence = ""  # the fence marker while inside a fenced code block
    block: Entry | None = None  # a `###` block of prose (paragraphs, code) being gathered as one entry
    after_rule = False  # right after a `---` rule, the prose up to the next rule or heading is one entry too

    def close() -> None:
        nonlocal current, block
        if current is not None:
            entries.append(current)
            current = None
        block = None

    def prose(n: int, text: str, style: str) -> None:
        """A paragraph or code block: inside a `###` block of prose it joins the block."""
        nonlocal current
        if block is not None and n - block.start < BLOCK_LINES and (
                current is block or (current is None and entries and entries[-1] is block)):
            if current is None:
                entries.pop()
                current = block
            if not current.parts:
                current.parts.append((current.start, current.end, 0))
            current.parts.append((n, n, current.text.count("\n") + 1))
            current.extend(n, text)
            if style == "code":
                current.style = "paragraph"
            return
        start(n, text, style)

    def start(n: int, text: str, style: str, number: int = 0) -> Entry:
        nonlocal pending, current, block, after_rule
        close()
        if pending is not None:  # the heading opens this entry: the hit shows the heading with its body
            n0, line = pending
            pending = None
            current = Entry(n0, n, line + "\n" + text, style, number, heading)
            if style in ("paragraph", "code"):
                block = current  # …and a block of prose stays one entry, paragraphs and code together
        else:
            current = Entry(n, n, text, style, number, heading)
            if after_rule and style in ("paragraph", "code"):
                block = current
        after_rule = False
        return current

    after_blank = False
    for offset, line in enumerate(lines):
        n = first + offset
        stripped = line.strip()
        if fence:  # inside a fenced block everything is code, whatever it looks like
            if current is not None:
                current.extend(n, line.rstrip())
            if stripped.startswith(fence):
                fence = ""
                if current is not None and current.style == "code":
                    keep = block
                    close()
                    block = keep
            continue
        if not stripped:
            if current is not None and current.style in ("paragraph", "table", "code"):
                keep = block
                close()
                block = keep
            after_blank = True
            continue
        if after_blank and current is not None and not line[:1].isspace():
            keep = block
            close()  # an unindented line after a blank one ends the list item above
            block = keep
        after_blank = False
        if tags_comment(line) is not None or COMMENT.match(line):
            continue
        if RULE.match(line):
            close()
            heading = ""  # a rule ends the `###` block too
            pending = None
            after_rule = True
            continue
        match = FENCE.match(line)
        if match:
            fence = match.group(1)
            if current is not None and line[:1].isspace() and current.style in ("list", "numbered"):
                current.end = n  # a fence indented under a list item belongs to that item
                current.text += "\n" + line.rstrip()
            else:
                prose(n, line.rstrip(), "code")
            continue
        sub = subheading(stripped)
        if sub is not None:
            close()
            after_rule = False
            if pending is not None:  # two headings in a row: the first one had no body of its own
                pending = None
            heading = sub
            pending = (n, stripped)
            continue
        numbered = NUMBERED_ITEM.match(line)
        bullet = LIST_ITEM.match(line)
        if stripped.startswith("|"):
            if is_table_separator(line):
                if entries and entries[-1].style == "table" and entries[-1].end == n - 1 and current is None:
                    header = entries.pop()  # the row above was the table's header, not an entry
                    if header.text.startswith("#"):  # …but the heading it carried opens the next row
                        pending = (header.start, header.text.split("\n", 1)[0])
                close()
                continue
            start(n, stripped, "table")
            close()
            continue
        if numbered and not numbered.group(1):
            start(n, stripped, "numbered", int(numbered.group(2)))
            continue
        if bullet and not bullet.group(1):
            start(n, stripped, "list")
            continue
        if current is not None:  # a continuation line (indented, or the next line of a paragraph)
            current.extend(n, stripped)
            continue
        prose(n, stripped, "paragraph")
    close()
    return _attach_lead_ins(entries)


def _lead_in(entry: Entry) -> str | None:
    """The text of a one-line paragraph that introduces what follows it rather than saying something itself: a line
    that is bold as a whole (`**B 层：受控回放测试**`, `**Decisions:**`) or a short line ending with a colon
    (`Key components:`, `已完成：`). None for anything else."""
    if entry.style != "paragraph" or entry.start != entry.end or entry.opened_by_heading:
        return None
    text = entry.text.strip()
    bold = LEAD_BOLD.match(text)
    if bold:
        return bold.group(1).strip().rstrip(":：").strip()
    if text.endswith((":", "：")) and len(text) <= LEAD_MAX_CHARS and not text.startswith(("*", "_", ">", "|")):
        return text[:-1].strip()
    return None


def _attach_lead_ins(entries: list[Entry]) -> list[Entry]:
    """A lead-in line followed by a list or a table is that list's heading, as a `###` line would be: it opens the
    first item (a hit holds the items, never the bare line) and stays the context of the items after it."""
    out: list[Entry] = []
    k = 0
    while k < len(entries):
        entry = entries[k]
        lead = _lead_in(entry)
        follower = entries[k + 1] if k + 1 < len(entries) else None
        if (lead is None and follower is not None and entry.style == "paragraph" and not entry.opened_by_heading
                and entry.start < entry.end and entry.text.rstrip().endswith((":", "："))
                and follower.style in ("list", "numbered") and not follower.opened_by_heading
                and follower.start - entry.end <= 2):
            entry.announces = follower
        if (lead is None or follower is None or follower.opened_by_heading or follower.start - entry.end > LEAD_GAP
                or follower.style == "paragraph" and _lead_in(follower) is not None):
            out.append(entry)
            k += 1
            continue
        first = Entry(entry.start, follower.end, entry.text + "\n" + follower.text, follower.style, follower.number,
                      follower.heading, lead=True)
        out.append(first)
        k += 2
        previous = follower
        while follower.style in ("list", "numbered", "table") and k < len(entries) and entries[k].style == follower.style and entries[k].heading == follower.heading \
                and entries[k].start - previous.end <= 2 and not entries[k].opened_by_heading:
            previous = entries[k]
            previous.lead_in = lead
            out.append(previous)
            k += 1
    return out


def _front_matter(lines: list[str]) -> int:
    """How many lines a YAML front matter block at the top takes (0 without one)."""
    if not lines or lines[0].strip() != "---":
        return 0
    for i in range(1, min(len(lines), 60)):
        if lines[i].strip() in ("---", "..."):
            return i + 1
    return 0


def _unwrapped(lines: list[str]) -> list[str]:
    """A memory file written whole inside a ```` ```markdown ```` fence (pasted from a chat answer) read as the
    Markdown it holds: the opening and closing fence lines blanked, every other line where it was. Otherwise the
    whole file would be one code block: one entry, no chapters."""
    filled = [i for i, line in enumerate(lines) if line.strip()]
    if len(filled) < 3:
        return lines
    first, last = lines[filled[0]].strip(), lines[filled[-1]].strip()
    marker = first[:3]
    if marker not in ("```", "~~~") or first[3:].strip().lower() not in ("markdown", "md") or last != marker:
        return lines
    out = list(lines)
    out[filled[0]] = out[filled[-1]] = ""
    return out


# A fenced block of plain text that holds a record rather than code: a ledger's "Task: … / Tests: / - 58 tests pass"
# kept in a ```text block. Read as the Markdown it is written like, its fields and items become entries of their
# own; kept as one code block, the whole record (40 lines and more) was a single hit, too long to be an answer.
PLAIN_FENCES = frozenset({"text", "txt", "plaintext", "plain"})
RECORD_FIELD = re.compile(r"^([^\s:：\-*+#][^:：]{0,40})[:：](\s.*)?$")
RECORD_MIN_LINES = 6  # a shorter block is one entry as it is


def _is_item(line: str) -> bool:
    """A list or numbered item, indented or not (the patterns the entries are cut by)."""
    return bool(LIST_ITEM.match(line) or NUMBERED_ITEM.match(line))


def _records_opened(lines: list[str]) -> list[str]:
    """`lines` with each unindented plain-text fenced block that holds a record (RECORD_MIN_LINES lines or more, at
    least half of them items or `Key:` fields, none a heading) written out as the Markdown it stands for, every line
    where it was: the fences become a blank line and a `---` rule (which ends the record's last field), a field
    with nothing after its colon (`Tests:`) a `###` heading over the items under it, a field with a value (`Owner:
    Codex`) an item of its own, and the items, indented under their field, are moved left by their common indent
    (Markdown would take them for the continuation of the line above)."""
    out = lines
    i = 0
    while i < len(lines):
        line = lines[i]
        if not line.startswith(("```", "~~~")):
            i += 1
            continue
        marker, info = line[:3], line[3:].strip().lower()
        end = next((k for k in range(i + 1, len(lines)) if lines[k].strip().startswith(marker)), None)
        if end is None:
            break
        body = [b for b in lines[i + 1 : end] if b.strip()]
        if (info in PLAIN_FENCES and len(body) >= RECORD_MIN_LINES
                and not any(b.lstrip().startswith(("#", "```", "~~~")) for b in body)
                and 2 * sum(1 for b in body if _is_item(b) or RECORD_FIELD.match(b)) >= len(body)):
            if out is lines:
                out = list(lines)
            out[i], out[end] = "", "---"
            shift = min((len(b) - len(b.lstrip()) for b in body if b[:1].isspace()), default=0)
            for k in range(i + 1, end):
                text = out[k]
                if not text.strip():
                    continue
                if text[:1].isspace():
                    out[k] = text[shift:] if text[:shift].isspace() else text.lstrip()
                    continue
                field = RECORD_FIELD.match(text)
                if field is not None and not (field.group(2) or "").strip():
                    out[k] = "### " + field.group(1).strip()
                elif not _is_item(text):
                    out[k] = "- " + text
        i = end + 1
    return out


def _chapter_heads(lines: list[str]) -> list[int]:
    """The `##` lines, outside fenced code blocks."""
    heads: list[int] = []
    fence = ""
    for i, line in enumerate(lines):
        match = FENCE.match(line)
        if fence:
            if line.strip().startswith(fence):
                fence = ""
            continue
        if match:
            fence = match.group(1)
            continue
        if line.startswith("## "):
            heads.append(i)
    return heads


def _implicit_title(entry: Entry) -> str:
    title = entry.text.splitlines()[0]
    return re.sub(r"^([-*+]|\d+[.)、]|#+|>)\s*", "", title)[:60]


def parse_library(path: str, text: str, names: dict[str, str] | None = None) -> Library:
    lines = _records_opened(_unwrapped(text.splitlines()))
    stem = Path(path).stem
    h1 = ""
    library_tags: list[str] = []
    heads = _chapter_heads(lines)
    top = _front_matter(lines)
    preamble_end = heads[0] if heads else len(lines)
    h1_line = -1
    for i in range(top, preamble_end):
        line = lines[i]
        if not h1 and line.startswith("# "):
            h1 = line[2:].strip()
            h1_line = i
            continue
        found = tags_comment(line)
        if found is not None and not library_tags:
            library_tags = split_tags(found)
    # The preamble's entries: front matter as one entry, then whatever stands before the first `##` (not the H1).
    preamble: list[Entry] = []
    if top:
        body = [line.strip() for line in lines[1 : top - 1] if line.strip()]
        if body:
            preamble.append(Entry(1, top, "\n".join(body), "frontmatter"))
    rest = [("" if i == h1_line else lines[i]) for i in range(top, preamble_end)]
    preamble += _entries(rest, top + 1)
    chapters: list[Chapter] = []
    if heads:
        if preamble:
            chapters.append(Chapter(h1 or stem, preamble[0].start, preamble[-1].end, [], preamble, implicit=True,
                                    text="\n".join(e.text for e in preamble)))
        for k, i in enumerate(heads):
            stop = heads[k + 1] if k + 1 < len(heads) else len(lines)
            body = lines[i + 1 : stop]
            end = stop
            while end > i + 1 and not lines[end - 1].strip():
                end -= 1  # trailing blank lines belong to nobody
            tags: list[str] = []
            for line in body[:3]:
                found = tags_comment(line)
                if found is not None:
                    tags = split_tags(found)
                    break
            content = [line for line in lines[i:end] if tags_comment(line) is None]  # tags are not content
            chapters.append(Chapter(lines[i][3:].strip(), i + 1, end, tags, _entries(body, i + 2),
                                    text="\n".join(content)))
    else:
        for entry in preamble:
            chapters.append(Chapter(_implicit_title(entry), entry.start, entry.end, [], [entry], implicit=True,
                                    text=entry.text))
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
