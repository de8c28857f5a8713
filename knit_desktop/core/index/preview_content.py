"""What the preview pane shows, read on the indexer's thread: a document's text (capped), its links, PDF pages."""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from .boundary import OutsideWorkspace, os_path, read_inside, real_inside, resolve_inside
from .documents import DOC_KINDS, PDF_READ_CAP, SkipFile, decode_text, extract_document, read_cap
from .links import LinkGraph

if TYPE_CHECKING:
    import pymupdf

PREVIEW_BYTES = 512 * 1024
# Why a preview cannot be shown, as codes the window words in the user's language (ui/wording.py).
PREVIEW_OUTSIDE = "outside"
PREVIEW_ENCRYPTED = "encrypted_pdf"
PREVIEW_UNREADABLE = "unreadable"  # followed by ":" and the reason (the system's or the extractor's words)


@dataclass
class PreviewData:
    rel: str
    kind: str
    path: str  # absolute, for the window's "Open locally" and for resolving relative images
    text: str = ""
    truncated: bool = False
    pages: int = 0  # PDFs
    links_in: list[tuple[str, int]] = field(default_factory=list)  # (source rel, line in the source)
    links_out: list[tuple[str, int]] = field(default_factory=list)  # (target rel, line in this document)
    problem: str = ""  # why the text could not be shown: PREVIEW_* code, or "unreadable:<the system's words>"
    # Paged formats shown as text (EPUB, XPS, MOBI): the 0-based line where each page starts, since their passages
    # cite lines within a page.
    page_line_starts: list[int] = field(default_factory=list)


def open_pdf(root: str | None, path: str) -> pymupdf.Document:
    """A PDF opened within the workspace (`root`, its real path): by its resolved path, or from its first
    PDF_READ_CAP bytes when it is larger (PyMuPDF would otherwise scan all of it to repair a damaged tail)."""
    from .pdf import pymupdf  # loaded with the first PDF shown, not with the window (and quiet about damage)

    if root is None:
        root = os.path.dirname(os.path.realpath(path))
    real = real_inside(root, path)
    if os.path.getsize(real) <= PDF_READ_CAP:
        return pymupdf.open(real, filetype="pdf")
    return pymupdf.open(stream=read_inside(root, real, PDF_READ_CAP), filetype="pdf")


def load_preview(root: str, rel: str, kind: str, graph: LinkGraph | None) -> PreviewData:
    root_real = os.path.realpath(root)
    path = os_path(root_real, rel)
    data = PreviewData(rel, kind, path)
    if resolve_inside(root_real, rel) is None:
        data.problem = PREVIEW_OUTSIDE
        return data
    if graph is not None:
        data.links_in = sorted(graph.incoming_of(rel).items())
        data.links_out = sorted(graph.outgoing_of(rel).items())
    try:
        if kind == "pdf":
            with open_pdf(root_real, path) as pdf:
                if pdf.needs_pass:
                    data.problem = PREVIEW_ENCRYPTED
                data.pages = pdf.page_count
                if data.pages and not pdf.needs_pass:
                    pdf.load_page(0).get_text("text")  # a damaged page tree shows here, not in the pane
        elif kind in ("md", "txt"):
            raw = read_inside(root_real, path, PREVIEW_BYTES + 1)
            data.text, data.truncated, _, _ = decode_text(raw, PREVIEW_BYTES)
        elif kind in DOC_KINDS:
            # The other formats show the text Knit extracted (the lines their passages cite): HTML, DOCX and FB2 as
            # Markdown (their headings are `#` lines), the paged formats as plain text.
            raw = read_inside(root_real, path, read_cap(kind) + 1)
            doc = extract_document(path, rel, kind, 0, len(raw), data=raw)
            data.text, data.truncated = doc.body[:PREVIEW_BYTES], len(doc.body) > PREVIEW_BYTES
            data.kind = "md" if kind in ("html", "docx", "fb2") else "txt"
            data.page_line_starts = [doc.body.count("\n", 0, start) for start in doc.page_starts]
    except SkipFile as exc:
        data.problem = exc.problem  # worded in the user's language by the window
    except OutsideWorkspace:
        data.problem = PREVIEW_OUTSIDE
    except Exception as exc:  # noqa: BLE001 - PyMuPDF raises its own types for damage; shown in the pane
        data.problem = f"{PREVIEW_UNREADABLE}:{getattr(exc, 'strerror', None) or str(exc) or exc.__class__.__name__}"
    return data


@dataclass
class RenderedPage:
    rel: str
    page: int  # 1-based
    pages: int
    width: int
    height: int
    stride: int
    samples: bytes  # RGB888
    marked: int = 0  # how many occurrences of the matched words are highlighted on the page


MARK_COLOUR = (1.0, 0.87, 0.35)  # a highlighter yellow; black text on it is 15:1


def render_pdf_page(path: str, rel: str, page: int, width_px: int, root: str | None = None,
                    terms: tuple[str, ...] = ()) -> RenderedPage:
    """Page `page` (1-based, clamped) rendered `width_px` wide, the file read within `root` (the workspace's real
    path) when given, with every occurrence of `terms` (the matched words) highlighted as a highlighter would: the
    annotations live in the opened document only, the file is never written. PyMuPDF: the indexer's thread only."""
    from .pdf import pymupdf

    with open_pdf(root, path) as pdf:
        if pdf.needs_pass:
            raise ValueError("encrypted PDF (a password is required)")
        number = min(max(page, 1), pdf.page_count)
        pdf_page = pdf[number - 1]
        zoom = max(0.1, min(8.0, width_px / max(pdf_page.rect.width, 1)))
        marked = 0
        for term in dict.fromkeys(t for t in terms if len(t.strip()) >= 2):
            for quad in pdf_page.search_for(term, quads=True):
                annot = pdf_page.add_highlight_annot(quad)
                annot.set_colors(stroke=MARK_COLOUR)
                annot.update()
                marked += 1
        pix = pdf_page.get_pixmap(matrix=pymupdf.Matrix(zoom, zoom), alpha=False, annots=True)
        return RenderedPage(rel, number, pdf.page_count, pix.width, pix.height, pix.stride, bytes(pix.samples),
                            marked)
