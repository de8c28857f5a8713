"""Extraction of the document formats beyond Markdown, text and PDF.

HTML, DOCX and FB2 become Markdown-shaped text (headings as `#` lines), so passages are cut at their headings exactly
as Markdown's are; EPUB, XPS, MOBI and CBZ are laid out by PyMuPDF into pages, so passages cite a page as a PDF's
do. Every extractor is bounded (bytes read, bytes inflated, characters kept) and says why it refuses a file.
"""

from __future__ import annotations

from ..documents import Document

# Formats PyMuPDF lays out into pages: kind -> (PyMuPDF filetype, the name a status line uses).
PAGED_FORMATS = {
    "epub": ("epub", "EPUB"),
    "xps": ("xps", "XPS"),
    "mobi": ("mobi", "MOBI"),
    "cbz": ("cbz", "CBZ"),
}
# Formats turned into Markdown-shaped text with `#` headings.
STRUCTURED_FORMATS = ("html", "docx", "fb2")


def extract_formatted(data: bytes | bytearray, rel: str, kind: str, mtime_ms: int, size: int, cut: bool) -> Document:
    """The Document of a file of one of the formats above. Raises SkipFile (a deliberate skip, with the reason) or
    ValueError (a damaged file). `cut`: `data` is only the head of a larger file."""
    if kind == "html":
        from .html import extract_html

        return extract_html(data, rel, mtime_ms, size, cut)
    if kind == "docx":
        from .docx import extract_docx

        return extract_docx(data, rel, mtime_ms, size, cut)
    if kind == "fb2":
        from .fb2 import extract_fb2

        return extract_fb2(data, rel, mtime_ms, size, cut)
    from ..pdf import extract_paged  # PyMuPDF is loaded only when such a file is met

    filetype, label = PAGED_FORMATS[kind]
    return extract_paged(data, rel, mtime_ms, size, cut, kind=kind, filetype=filetype, label=label)
