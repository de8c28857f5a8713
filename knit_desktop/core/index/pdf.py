"""PDF text extraction with PyMuPDF. PyMuPDF is not thread-safe: callers keep every call on one thread."""

from __future__ import annotations

from collections.abc import Iterator

import pymupdf

from ..text.tokens import collapse_whitespace, truncate
from .documents import (
    BODY_CAP_BYTES,
    MAX_PDF_PAGES,
    PDF_READ_CAP,
    SKIP_ENCRYPTED,
    SKIP_IMAGES_ONLY,
    SKIP_NO_TEXT,
    SKIP_SCANNED,
    SUMMARY_CHARS,
    Document,
    SkipFile,
)

__all__ = ["extract_pdf", "pymupdf"]  # preview_content takes PyMuPDF from here, quiet about damaged files

pymupdf.TOOLS.mupdf_display_errors(False)  # corrupt files are reported through our status, not stderr


_NO_TEXT = {"pdf": ("no text layer — scanned PDF?", SKIP_SCANNED),
            "cbz": ("no text: a comic book archive holds only images", SKIP_IMAGES_ONLY),
            "xps": ("no text layer — scanned XPS?", SKIP_SCANNED)}


def _meaningful_lines(text: str) -> Iterator[str]:
    for line in text.splitlines():
        tidy = collapse_whitespace(line)
        if len(tidy) >= 3 and any(ch.isalpha() for ch in tidy):
            yield tidy


def extract_pdf(data: bytes | bytearray, rel: str, mtime_ms: int, size: int, cut: bool = False) -> Document:
    """The PDF's text, page by page, up to MAX_PDF_PAGES pages or the body cap. `cut`: `data` is only the file's
    first PDF_READ_CAP bytes (PyMuPDF repairs them into the pages they hold). Any error of PyMuPDF's (a damaged
    file, a page tree that contains itself) is raised as ValueError with the reason."""
    return extract_paged(data, rel, mtime_ms, size, cut)


def extract_paged(data: bytes | bytearray, rel: str, mtime_ms: int, size: int, cut: bool = False, *,
                  kind: str = "pdf", filetype: str = "pdf", label: str = "PDF") -> Document:
    """A document PyMuPDF lays out into pages (PDF, EPUB, XPS, FB2, MOBI, CBZ), read as a PDF is: page by page, up
    to MAX_PDF_PAGES pages or the body cap; its passages cite their page."""
    try:
        pdf = pymupdf.open(stream=data, filetype=filetype)
    except Exception as exc:  # PyMuPDF raises its own types for damaged files
        raise ValueError(f"not a readable {label} ({exc})") from None
    with pdf:
        if pdf.needs_pass:
            raise SkipFile(f"encrypted {label} (a password is required)", SKIP_ENCRYPTED, label)
        parts: list[str] = []
        page_starts: list[int] = []
        used = 0
        truncated = False
        try:
            count = pdf.page_count
            for number in range(min(count, MAX_PDF_PAGES)):
                text = pdf[number].get_text("text")
                if text and not text.endswith("\n"):
                    text += "\n"
                page_starts.append(used)
                if used + len(text) > BODY_CAP_BYTES:
                    text = text[: max(0, BODY_CAP_BYTES - used)]
                    truncated = True
                parts.append(text)
                used += len(text)
                if truncated:
                    break
            metadata_title = collapse_whitespace((pdf.metadata or {}).get("title") or "")
        except Exception as exc:  # noqa: BLE001 - every PyMuPDF failure is this file's, reported in its status
            raise ValueError(f"damaged {label} ({exc or exc.__class__.__name__})") from None
    notes = []
    if truncated:
        notes.append(f"indexed the first {len(parts)} pages (the text cap of 2 MB)")
    elif count > MAX_PDF_PAGES:
        notes.append(f"indexed the first {MAX_PDF_PAGES} of {count} pages")
    if cut:
        notes.append(f"read the first {PDF_READ_CAP // (1024 * 1024)} MB of a larger {label}")
    body = "".join(parts)
    if not body.strip():
        reason, code = _NO_TEXT.get(kind, (f"no text in this {label}", SKIP_NO_TEXT))
        raise SkipFile(reason, code, label)
    lines = list(_meaningful_lines(body[:16384]))
    name = rel.rsplit("/", 1)[-1]
    title = metadata_title or (lines[0] if lines else "") or name.rsplit(".", 1)[0]
    title = truncate(title, 120)
    summary_line = next((line for line in lines if line != title), "")
    return Document(
        rel=rel,
        kind=kind,
        title=title,
        summary=truncate(summary_line, SUMMARY_CHARS),
        mtime_ms=mtime_ms,
        size=size,
        body=body,
        truncated=truncated or cut or count > MAX_PDF_PAGES,
        page_starts=page_starts,
        note="; ".join(notes),
    )
