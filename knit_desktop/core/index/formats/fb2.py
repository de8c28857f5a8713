"""FB2 (FictionBook 2): its XML read with the standard library — the book title, sections as `#` headings by depth,
paragraphs, verse, tables as text; the embedded images (`<binary>`) skipped. Read here rather than by PyMuPDF, whose
FB2 reader crashes the process on some damaged files (a crash would take the indexer down with it)."""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET

from ...text.tokens import collapse_whitespace, truncate
from ..documents import (
    BODY_CAP_BYTES,
    SKIP_NO_TEXT,
    SKIP_XML_ENTITIES,
    SUMMARY_CHARS,
    TRUNCATED_NOTE,
    Document,
    SkipFile,
    content_hash,
)

_BLOCK_TEXT = frozenset({"p", "v", "subtitle", "text-author", "th", "td"})


def _local(tag: object) -> str:
    return tag.rsplit("}", 1)[-1] if isinstance(tag, str) else ""


def _text(el: ET.Element) -> str:
    return collapse_whitespace("".join(el.itertext()))


class _Writer:
    def __init__(self) -> None:
        self.lines: list[str] = []
        self.used = 0
        self.full = False

    def add(self, line: str) -> None:
        if self.full:
            return
        if self.used + len(line) + 1 > BODY_CAP_BYTES:
            self.full = True
            return
        self.lines.append(line)
        self.used += len(line) + 1

    def blank(self) -> None:
        if self.lines and self.lines[-1] != "":
            self.add("")


def _walk(el: ET.Element, depth: int, out: _Writer) -> None:
    for child in el:
        if out.full:
            return
        tag = _local(child.tag)
        if tag == "section":
            _walk(child, depth + 1, out)
        elif tag == "title":
            text = " ".join(_text(p) for p in child if _text(p)) or _text(child)
            if text:
                out.blank()
                out.add("#" * min(6, max(1, depth)) + " " + text)
                out.blank()
        elif tag == "tr":
            cells = [_text(c) for c in child if _local(c.tag) in ("th", "td")]
            if any(cells):
                out.add(" | ".join(cells))
        elif tag in _BLOCK_TEXT:
            text = _text(child)
            if text:
                out.add(text)
        elif tag == "empty-line":
            out.blank()
        elif tag in ("epigraph", "cite", "poem", "stanza", "table", "annotation"):
            out.blank()
            _walk(child, depth, out)
            out.blank()


def extract_fb2(data: bytes | bytearray, rel: str, mtime_ms: int, size: int, cut: bool = False) -> Document:
    digest = content_hash(data)
    if b"<!ENTITY" in data:
        raise SkipFile("FB2 declares XML entities (refused: they can expand without bound)", SKIP_XML_ENTITIES, "FB2")
    try:
        root = ET.fromstring(bytes(data))
    except ET.ParseError as exc:
        raise ValueError(f"not a readable FB2 ({exc})") from None
    if _local(root.tag) != "FictionBook":
        raise ValueError(f"not an FB2 book (its root element is <{_local(root.tag)[:40]}>)")
    out = _Writer()
    title = ""
    for el in root.iter():
        if _local(el.tag) == "book-title":
            title = _text(el)
            break
    for body in (c for c in root if _local(c.tag) == "body"):
        _walk(body, 0, out)
    text = "\n".join(out.lines).strip("\n")
    if not text:
        raise SkipFile("no text in this FB2 book", SKIP_NO_TEXT, "FB2")
    name = rel.rsplit("/", 1)[-1]
    summary = next((line for line in out.lines if line and not line.startswith("#")), "")
    return Document(rel=rel, kind="fb2", title=truncate(title or re.sub(r"\.fb2$", "", name, flags=re.IGNORECASE), 120),
                    summary=truncate(summary, SUMMARY_CHARS), mtime_ms=mtime_ms, size=size, body=text + "\n",
                    truncated=out.full or cut, content_hash=digest, note=TRUNCATED_NOTE if out.full else "")
