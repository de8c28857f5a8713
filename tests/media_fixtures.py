"""Real media files written by the tests: PDFs made with PyMuPDF (images and videos join them as they are needed)."""

from __future__ import annotations

from pathlib import Path

import pymupdf


def make_pdf(path: Path, pages: list[str], title: str | None = None, encrypt: bool = False) -> Path:
    """One page per text (an empty text leaves the page blank, like a scan without a text layer)."""
    pdf = pymupdf.open()
    for text in pages:
        page = pdf.new_page()
        if text:
            page.insert_text((72, 72), text)
    if title:
        pdf.set_metadata({"title": title})
    options = {}
    if encrypt:
        options = {"encryption": pymupdf.PDF_ENCRYPT_AES_256, "user_pw": "secret", "owner_pw": "owner"}
    pdf.save(str(path), **options)
    pdf.close()
    return path


def two_page_pdf(path: Path) -> Path:
    """A report whose matching passage is on page 2."""
    return make_pdf(path, ["Quarterly overview\nNothing special here.", "Appendix\nThe capybara habitat survey results."])
