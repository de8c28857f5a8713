"""DOCX: the document XML inside the zip, read with the standard library. Paragraphs become lines, paragraphs in a
heading style `#` lines (so passages are cut at them), tables rows of ` | `-separated cells.

Everything is bounded before it is inflated: a zip with too many members, a document part larger than
DOCX_XML_CAP, or one that inflates more than MAX_RATIO times is refused with the reason; XML declaring entities
(the "billion laughs") is refused without being parsed.
"""

from __future__ import annotations

import io
import re
import xml.etree.ElementTree as ET
import zipfile
import zlib
from collections.abc import Iterator

from ...text.tokens import collapse_whitespace, truncate
from ..documents import (
    BODY_CAP_BYTES,
    SKIP_NO_TEXT,
    SKIP_REFUSED_PART,
    SKIP_TOO_LARGE,
    SKIP_TOO_MANY_PARTS,
    SKIP_XML_ENTITIES,
    SUMMARY_CHARS,
    TRUNCATED_NOTE,
    Document,
    SkipFile,
    content_hash,
)

DOCX_XML_CAP = 32 * 1024 * 1024  # the inflated document part
SIDE_PART_CAP = 2 * 1024 * 1024  # styles and core properties
MAX_MEMBERS = 5000
MAX_RATIO = 200  # a real document.xml deflates 5-20 times; a zip bomb by thousands
_W = "{http://schemas.openxmlformats.org/wordprocessingml/2006/main}"
_DC_TITLE = "{http://purl.org/dc/elements/1.1/}title"
_HEADING_NAME = re.compile(r"^(?:heading|titre|überschrift|标题|見出し)\s*([1-9])$", re.IGNORECASE)
_HEADING_ID = re.compile(r"^heading([1-9])$", re.IGNORECASE)


def _read_part(archive: zipfile.ZipFile, name: str, cap: int) -> bytes | None:
    """A member's bytes, refused when it is larger than `cap` or inflates suspiciously; None when absent."""
    try:
        info = archive.getinfo(name)
    except KeyError:
        return None
    if info.file_size > cap:
        raise SkipFile(f"DOCX part {name} is {info.file_size // (1024 * 1024)} MB inflated (the limit is "
                       f"{cap // (1024 * 1024)} MB)", SKIP_REFUSED_PART, name)
    if info.compress_size and info.file_size / info.compress_size > MAX_RATIO and info.file_size > 1024 * 1024:
        raise SkipFile(f"DOCX part {name} inflates {info.file_size // info.compress_size} times (a zip bomb?)",
                       SKIP_REFUSED_PART, name)
    with archive.open(info) as handle:
        data = handle.read(cap + 1)  # the header's size is not trusted
    if len(data) > cap:
        raise SkipFile(f"DOCX part {name} inflates beyond {cap // (1024 * 1024)} MB", SKIP_REFUSED_PART, name)
    if b"<!ENTITY" in data or b"<!DOCTYPE" in data[:4096]:
        raise SkipFile(f"DOCX part {name} declares XML entities (refused: they can expand without bound)",
                       SKIP_XML_ENTITIES, "DOCX")
    return data


def _parse(data: bytes, name: str) -> ET.Element:
    try:
        return ET.fromstring(data)
    except ET.ParseError as exc:
        raise ValueError(f"damaged DOCX ({name}: {exc})") from None


def _heading_styles(archive: zipfile.ZipFile) -> dict[str, int]:
    """Style id -> heading level, from the style names (ids are localised: `berschrift1`, `1`, …)."""
    levels: dict[str, int] = {}
    data = _read_part(archive, "word/styles.xml", SIDE_PART_CAP)
    if data is None:
        return levels
    for style in _parse(data, "word/styles.xml").iter(f"{_W}style"):
        style_id = style.get(f"{_W}styleId") or ""
        name_el = style.find(f"{_W}name")
        name = (name_el.get(f"{_W}val") if name_el is not None else "") or ""
        found = _HEADING_NAME.match(name.strip())
        if found:
            levels[style_id] = int(found.group(1))
        elif name.strip().lower() == "title":
            levels[style_id] = 1
    return levels


def _paragraph_text(paragraph: ET.Element) -> str:
    parts: list[str] = []
    for el in paragraph.iter():
        tag = el.tag
        if tag == f"{_W}t" and el.text:
            parts.append(el.text)
        elif tag == f"{_W}tab" or tag in (f"{_W}br", f"{_W}cr"):
            parts.append(" ")
    return collapse_whitespace("".join(parts))


def _level(paragraph: ET.Element, styles: dict[str, int]) -> int:
    props = paragraph.find(f"{_W}pPr")
    if props is None:
        return 0
    style = props.find(f"{_W}pStyle")
    style_id = (style.get(f"{_W}val") if style is not None else "") or ""
    if style_id in styles:
        return styles[style_id]
    found = _HEADING_ID.match(style_id)
    if found:
        return int(found.group(1))
    if style_id.lower() == "title":
        return 1
    outline = props.find(f"{_W}outlineLvl")
    if outline is not None and (outline.get(f"{_W}val") or "").isdigit():
        return min(6, int(outline.get(f"{_W}val") or 0) + 1)
    return 0


def _blocks(parent: ET.Element, styles: dict[str, int]) -> Iterator[tuple[int, str]]:
    """(heading level or 0, text) per paragraph, and one line per table row, in document order."""
    for el in parent:
        if el.tag == f"{_W}p":
            text = _paragraph_text(el)
            if text:
                yield _level(el, styles), text
        elif el.tag == f"{_W}tbl":
            for row in el.iter(f"{_W}tr"):
                cells = [" ".join(_paragraph_text(p) for p in cell.iter(f"{_W}p")).strip() for cell in row.iter(f"{_W}tc")]
                if any(cells):
                    yield 0, " | ".join(cells)
        elif el.tag in (f"{_W}sdt", f"{_W}sdtContent", f"{_W}customXml", f"{_W}smartTag"):
            yield from _blocks(el, styles)


def extract_docx(data: bytes | bytearray, rel: str, mtime_ms: int, size: int, cut: bool = False) -> Document:
    digest = content_hash(data)
    if cut:
        raise SkipFile("DOCX larger than 64 MB (its zip directory is at the end, beyond what is read)",
                       SKIP_TOO_LARGE, "DOCX · 64 MB")
    try:
        archive = zipfile.ZipFile(io.BytesIO(bytes(data)))
    except (zipfile.BadZipFile, OSError, ValueError) as exc:
        raise ValueError(f"not a readable DOCX ({exc})") from None
    with archive:
        if len(archive.infolist()) > MAX_MEMBERS:
            raise SkipFile(f"DOCX with more than {MAX_MEMBERS} parts (refused)", SKIP_TOO_MANY_PARTS,
                           str(MAX_MEMBERS))
        try:
            xml = _read_part(archive, "word/document.xml", DOCX_XML_CAP)
            if xml is None:
                raise ValueError("not a DOCX (no word/document.xml in the zip)")
            styles = _heading_styles(archive)
            core = _read_part(archive, "docProps/core.xml", SIDE_PART_CAP)
        except (zipfile.BadZipFile, zlib.error, EOFError, RuntimeError, NotImplementedError) as exc:
            raise ValueError(f"damaged DOCX ({exc})") from None
    root = _parse(xml, "word/document.xml")
    del xml
    body_el = root.find(f"{_W}body")
    lines: list[str] = []
    used = 0
    truncated = False
    first_heading = ""
    summary = ""
    for level, text in _blocks(body_el if body_el is not None else root, styles):
        line = "#" * level + " " + text if level else text
        if used + len(line) + 2 > BODY_CAP_BYTES:
            truncated = True
            break
        if level:
            if lines:
                lines.append("")
            first_heading = first_heading or text
        elif not summary and " | " not in text:
            summary = text
        lines.append(line)
        used += len(line) + 1
        if level:
            lines.append("")
    body = "\n".join(lines).strip("\n")
    if not body:
        raise SkipFile("no text in this DOCX", SKIP_NO_TEXT, "DOCX")
    title = ""
    if core is not None:
        found = _parse(core, "docProps/core.xml").find(_DC_TITLE)
        title = collapse_whitespace(found.text or "") if found is not None else ""
    name = rel.rsplit("/", 1)[-1]
    title = truncate(title or first_heading or re.sub(r"\.docx$", "", name, flags=re.IGNORECASE), 120)
    return Document(rel=rel, kind="docx", title=title, summary=truncate(summary, SUMMARY_CHARS), mtime_ms=mtime_ms,
                    size=size, body=body + "\n", truncated=truncated, content_hash=digest,
                    note=TRUNCATED_NOTE if truncated else "")

