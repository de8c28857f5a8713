"""What Knit extracts from a file: kind, title, one-line summary and the searchable body."""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass, field

from .text import collapse_whitespace, truncate

DOC_KINDS = ("md", "txt", "pdf")
MEDIA_KINDS = ("image", "video")

EXTENSION_KINDS = {
    "md": "md",
    "markdown": "md",
    "txt": "txt",
    "pdf": "pdf",
    "png": "image",
    "jpg": "image",
    "jpeg": "image",
    "gif": "image",
    "webp": "image",
    "avif": "image",
    "bmp": "image",
    "ico": "image",
    "svg": "image",
    "mp4": "video",
    "m4v": "video",
    "webm": "video",
    "mov": "video",
    "ogv": "video",
}

SUMMARY_CHARS = 60
HEAD_CHARS = 16 * 1024  # title and summary come from the head, as in the reference
BODY_CAP_BYTES = 2 * 1024 * 1024  # the searchable body is the whole file up to this size
BINARY_SNIFF_BYTES = 8192


@dataclass
class Document:
    """One file of the workspace as the ranker sees it. `rel` uses forward slashes."""

    rel: str
    kind: str
    title: str
    summary: str
    mtime_ms: int
    size: int
    body: str = ""  # original case; empty for media
    truncated: bool = False
    content_hash: str = ""  # of the bytes that were indexed; empty for media (never read)
    # PDFs: character offset where each page starts in `body` (page n starts at page_starts[n-1]).
    page_starts: list[int] = field(default_factory=list)

    @property
    def name(self) -> str:
        return self.rel.rsplit("/", 1)[-1]

    @property
    def is_media(self) -> bool:
        return self.kind in MEDIA_KINDS

    def field_texts(self) -> tuple[str, str, str]:
        """The lowercased title, summary and body the ranking searches. Media are searched by file name."""
        if self.is_media:
            return (self.name.lower(), "", "")
        return (self.title.lower(), self.summary.lower(), self.body.lower())


class SkipFile(Exception):
    """The file is deliberately not indexed; the message is the reason shown to the user."""


def kind_for_name(name: str) -> str | None:
    _, dot, ext = name.rpartition(".")
    if not dot:
        return None
    return EXTENSION_KINDS.get(ext.lower())


# --- Markdown ---------------------------------------------------------------------------------------

_FENCE = re.compile(r"^(```|~~~)")
_H1 = re.compile(r"^ {0,3}#[ \t]+(.+?)(?:[ \t]+#+)?[ \t]*$")
_HEADING = re.compile(r"^#{1,6}\s")
_LIST_ITEM = re.compile(r"^([-*+]|\d+\.)\s")
_RULE = re.compile(r"^([-*_]\s*){3,}$")
_IMAGE = re.compile(r"!\[[^\]]*\]\([^)]*\)")
_LINK = re.compile(r"\[([^\]]*)\]\([^)]*\)")
_CODE = re.compile(r"`([^`]*)`")
_EMPHASIS = re.compile(r"[*_~]")


def strip_inline(text: str) -> str:
    text = _IMAGE.sub("", text)
    text = _LINK.sub(r"\1", text)
    text = _CODE.sub(r"\1", text)
    text = _EMPHASIS.sub("", text)
    return collapse_whitespace(text)


def _is_summary_candidate(stripped: str) -> bool:
    if not stripped or _HEADING.match(stripped) or _LIST_ITEM.match(stripped):
        return False
    if stripped[0] in ">|<":
        return False
    return not _RULE.match(stripped)


def parse_markdown(text: str, file_name: str) -> tuple[str, str]:
    """Title (first H1 outside fences and front matter, else the file name) and the one-line summary."""
    lines = text[:HEAD_CHARS].splitlines()
    start = 0
    if lines and lines[0].strip() == "---":
        start = len(lines)  # an unclosed front matter swallows everything
        for i in range(1, len(lines)):
            if lines[i].strip() == "---":
                start = i + 1
                break
    title = ""
    summary = ""
    in_fence = False
    for line in lines[start:]:
        stripped = line.strip()
        if _FENCE.match(stripped):
            in_fence = not in_fence
            continue
        if in_fence:
            continue
        if not title:
            m = _H1.match(line)
            if m:
                title = strip_inline(m.group(1))
                continue
        if not summary and _is_summary_candidate(stripped):
            summary = strip_inline(stripped)
        if title and summary:
            break
    if not title:
        title = re.sub(r"\.(md|markdown)$", "", file_name, flags=re.IGNORECASE)
    return title, truncate(summary, SUMMARY_CHARS)


def parse_text(text: str, file_name: str) -> tuple[str, str]:
    """Plain text: the file name is the title, the first non-empty line the summary."""
    title = re.sub(r"\.txt$", "", file_name, flags=re.IGNORECASE)
    for line in text[:HEAD_CHARS].splitlines():
        tidy = collapse_whitespace(line)
        if tidy:
            return title, truncate(tidy, SUMMARY_CHARS)
    return title, ""


# --- reading files ----------------------------------------------------------------------------------


def looks_binary(head: bytes) -> bool:
    """NUL bytes, or mostly bytes that are neither text nor UTF-8, mean this is not a text document."""
    if b"\x00" in head:
        return True
    if not head:
        return False
    decoded = head.decode("utf-8", errors="replace")
    bad = decoded.count("\ufffd")
    return bad > 16 and bad / max(1, len(decoded)) > 0.1


def content_hash(data: bytes) -> str:
    return hashlib.blake2b(data, digest_size=16).hexdigest()


def read_indexed_bytes(path: str, kind: str) -> bytes:
    """The bytes a document's index entry is built from (text files: up to the cap plus one byte)."""
    with open(path, "rb") as handle:
        return handle.read() if kind == "pdf" else handle.read(BODY_CAP_BYTES + 1)


def decode_text(data: bytes) -> tuple[str, bool, str]:
    """Text, whether it was cut at the cap, and the content hash; raises SkipFile for binary content."""
    digest = content_hash(data)
    if looks_binary(data[:BINARY_SNIFF_BYTES]):
        raise SkipFile("binary content in a text file")
    truncated = len(data) > BODY_CAP_BYTES
    if truncated:
        data = data[:BODY_CAP_BYTES]
    text = data.decode("utf-8", errors="replace")
    if text.startswith("\ufeff"):
        text = text[1:]
    return text, truncated, digest


def extract_document(
    path: str, rel: str, kind: str, mtime_ms: int, size: int, data: bytes | None = None
) -> Document:
    """Build the Document for one file (from `data` when the caller already read it). Raises SkipFile for a
    deliberate skip, OSError/ValueError on failure."""
    name = rel.rsplit("/", 1)[-1]
    if kind in MEDIA_KINDS:
        title = name.rsplit(".", 1)[0] if "." in name else name
        return Document(rel=rel, kind=kind, title=title, summary="", mtime_ms=mtime_ms, size=size)
    if data is None:
        data = read_indexed_bytes(path, kind)
    if kind == "pdf":
        from .pdf import extract_pdf  # PyMuPDF is loaded only when a PDF is met

        doc = extract_pdf(data, rel, mtime_ms, size)
        doc.content_hash = content_hash(data)
        return doc
    text, truncated, digest = decode_text(data)
    title, summary = parse_markdown(text, name) if kind == "md" else parse_text(text, name)
    return Document(
        rel=rel, kind=kind, title=title, summary=summary, mtime_ms=mtime_ms, size=size, body=text,
        truncated=truncated, content_hash=digest,
    )
