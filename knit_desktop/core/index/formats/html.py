"""HTML with the standard library's parser: the title, headings as `#` lines, paragraphs, list items and table rows as
text. Scripts, styles and other content that is not prose are dropped; nothing is fetched."""

from __future__ import annotations

import codecs
import re
import time
from html.parser import HTMLParser

from ...text.tokens import collapse_whitespace, truncate
from ..documents import (
    BODY_CAP_BYTES,
    HTML_READ_CAP,
    SKIP_NO_TEXT,
    SUMMARY_CHARS,
    TRUNCATED_NOTE,
    Document,
    SkipFile,
    content_hash,
    decode_text,
)

_DROPPED = frozenset({"script", "style", "noscript", "template", "svg", "math", "head", "iframe", "object", "canvas"})
_BLOCKS = frozenset({
    "p", "div", "section", "article", "main", "header", "footer", "nav", "aside", "blockquote", "figure",
    "figcaption", "ul", "ol", "dl", "dt", "dd", "table", "thead", "tbody", "tfoot", "form", "fieldset", "details",
    "summary", "address", "hr", "body", "html",
})
_HEADINGS = {f"h{n}": n for n in range(1, 7)}
_VOID = frozenset({"br", "hr", "img", "input", "meta", "link", "area", "base", "col", "embed", "source", "track", "wbr"})
FEED_CHARS = 256 * 1024
PARSE_BUDGET_S = 5.0  # a backstop: markup that still parses slowly is indexed as far as this got
_CHARSET = re.compile(rb"""<meta[^>]{0,200}?charset\s*=\s*["']?\s*([A-Za-z0-9_.:-]{1,40})""", re.IGNORECASE)


class _TextCollector(HTMLParser):
    """Collects the document as lines; each block element ends the line it is on."""

    def __init__(self, limit: int) -> None:
        super().__init__(convert_charrefs=True)
        self.limit = limit
        self.lines: list[str] = []
        self.used = 0
        self.full = False
        self.title_parts: list[str] = []
        self._line: list[str] = []
        self._dropped: list[str] = []  # open tags whose content is dropped (a stack: they nest)
        self._in_title = False
        self._heading = 0
        self._pre = 0
        self._cell = 0

    def _flush(self, blank: bool = False) -> None:
        text = "".join(self._line)
        self._line = []
        text = text.rstrip() if self._pre else collapse_whitespace(text)
        if text:
            if self._heading:
                text = "#" * self._heading + " " + text
            self._emit(text)
        if blank and self.lines and self.lines[-1] != "":
            self._emit("")

    def _emit(self, line: str) -> None:
        if self.full:
            return
        if self.used + len(line) + 1 > self.limit:
            self.full = True
            line = line[: max(0, self.limit - self.used - 1)]
            if not line:
                return
        self.lines.append(line)
        self.used += len(line) + 1

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if self._dropped:
            if tag in _DROPPED and tag not in _VOID:
                self._dropped.append(tag)
            return
        if tag == "title":
            self._in_title = True
            return
        if tag in _DROPPED:
            self._dropped.append(tag)
            return
        if tag in _HEADINGS:
            self._flush(blank=True)
            self._heading = _HEADINGS[tag]
        elif tag == "pre":
            self._flush(blank=True)
            self._pre += 1
        elif tag == "li":
            self._flush()
            self._line.append("- ")
        elif tag == "tr":
            self._flush()
            self._cell = 0
        elif tag in ("td", "th"):
            if self._cell:
                self._line.append(" | ")
            self._cell += 1
        elif tag == "br":
            self._flush()
        elif tag in _BLOCKS:
            self._flush(blank=tag in ("p", "table", "blockquote", "ul", "ol"))

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag == "br" and not self._dropped:
            self._flush()

    def handle_endtag(self, tag: str) -> None:
        if self._dropped:
            if tag == self._dropped[-1]:
                self._dropped.pop()
            elif tag in self._dropped:  # unbalanced markup: close up to the matching tag
                del self._dropped[self._dropped.index(tag):]
            return
        if tag == "title":
            self._in_title = False
        elif tag in _HEADINGS and self._heading:
            self._flush()
            self._heading = 0
            self._emit("")
        elif tag == "pre" and self._pre:
            self._flush()
            self._pre -= 1
            self._emit("")
        elif tag in ("tr", "li", "dt", "dd"):
            self._flush()
        elif tag in _BLOCKS:
            self._flush(blank=tag in ("p", "table", "blockquote", "ul", "ol"))

    def handle_data(self, data: str) -> None:
        if self._in_title:
            self.title_parts.append(data)
        elif not self._dropped and not self.full:
            if self._pre:
                for i, piece in enumerate(data.split("\n")):
                    if i:
                        self._flush()
                    self._line.append(piece)
            else:
                self._line.append(data)


def _defuse(markup: str) -> str:
    """Markup the standard parser reads in linear time. It rescans to the end of the input for every `<` that opens
    something never closed (a flood of `<!--` or `</a` takes minutes), so: an unclosed comment ends the text (in
    HTML everything after it is comment anyway), and a `<` after the last `>` is text."""
    opened = markup.find("<!--", markup.rfind("-->") + 1 if "-->" in markup else 0)
    if opened >= 0:
        markup = markup[:opened]
    last = markup.rfind(">")
    tail = markup[last + 1 :]
    if "<" in tail:
        markup = markup[: last + 1] + tail.replace("<", "&lt;")
    return markup


def _decode_html(data: bytes, cut: bool) -> tuple[str, str]:
    """The markup as text and the encoding named when it is not UTF-8: a byte order mark, else the charset a
    `<meta>` declares, else the same guesses as for text files."""
    if not data.startswith((codecs.BOM_UTF8, codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)):
        declared = _CHARSET.search(data[:4096])
        if declared:
            name = declared.group(1).decode("ascii").lower()
            try:
                codec = codecs.lookup(name).name
            except LookupError:
                codec = ""
            if codec and codec not in ("utf-8", "utf-16", "utf-32"):  # a UTF-16 declaration in ASCII bytes is false
                text = codecs.getincrementaldecoder(codec)("replace").decode(data, final=not cut)
                return text, name.upper()
    text, _, _, encoding = decode_text(bytes(data), cap=len(data))
    return text, encoding


def extract_html(data: bytes | bytearray, rel: str, mtime_ms: int, size: int, cut: bool = False) -> Document:
    digest = content_hash(data)
    if len(data) > HTML_READ_CAP:
        data, cut = data[:HTML_READ_CAP], True
    markup, encoding = _decode_html(bytes(data), cut)
    collector = _TextCollector(BODY_CAP_BYTES)
    markup = _defuse(markup)
    deadline = time.monotonic() + PARSE_BUDGET_S
    out_of_time = False
    for start in range(0, len(markup), FEED_CHARS):
        collector.feed(markup[start : start + FEED_CHARS])
        if collector.full:
            break
        if time.monotonic() > deadline:
            out_of_time = True
            break
    collector.close()
    collector._flush()
    body = "\n".join(collector.lines).strip("\n")
    if body:
        body += "\n"
    name = rel.rsplit("/", 1)[-1]
    title = collapse_whitespace("".join(collector.title_parts))
    if not body.strip() and not title:
        raise SkipFile("no text in this HTML page", SKIP_NO_TEXT, "HTML")
    first_h1 = next((line[2:] for line in collector.lines if line.startswith("# ")), "")
    title = truncate(title or first_h1 or re.sub(r"\.x?html?$", "", name, flags=re.IGNORECASE), 120)
    summary = next((line for line in collector.lines if line and not line.startswith(("#", "- ")) and "|" not in line
                    and line != title), "")
    notes = []
    if out_of_time:
        notes.append(f"indexed what {PARSE_BUDGET_S:.0f} s of parsing read (tangled markup)")
    if collector.full or cut:
        notes.append(TRUNCATED_NOTE if collector.full else "read the first 8 MB of a larger page")
    if encoding:
        notes.append(f"decoded as {encoding}")
    return Document(rel=rel, kind="html", title=title, summary=truncate(summary, SUMMARY_CHARS), mtime_ms=mtime_ms,
                    size=size, body=body, truncated=collector.full or cut, content_hash=digest, note="; ".join(notes))
