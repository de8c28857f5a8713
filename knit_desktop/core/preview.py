"""What the preview pane shows, read on the indexer's thread: a document's text (capped), its links, PDF pages."""

from __future__ import annotations

import os
from dataclasses import dataclass, field

import pymupdf

from .documents import SkipFile, decode_text
from .links import LinkGraph

PREVIEW_BYTES = 512 * 1024


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
    problem: str = ""  # why the text could not be shown


def load_preview(root: str, rel: str, kind: str, graph: LinkGraph | None) -> PreviewData:
    path = os.path.join(root, rel)
    data = PreviewData(rel, kind, path)
    real_root = os.path.realpath(root)
    if not os.path.realpath(path).startswith(real_root.rstrip(os.sep) + os.sep):
        data.problem = "the path leads outside the workspace"
        return data
    if graph is not None:
        data.links_in = sorted(graph.incoming_of(rel).items())
        data.links_out = sorted(graph.outgoing_of(rel).items())
    try:
        if kind == "pdf":
            with pymupdf.open(path) as pdf:
                if pdf.needs_pass:
                    data.problem = "encrypted PDF (a password is required)"
                data.pages = pdf.page_count
        elif kind in ("md", "txt"):
            with open(path, "rb") as handle:
                raw = handle.read(PREVIEW_BYTES + 1)
            data.truncated = len(raw) > PREVIEW_BYTES
            data.text, _, _ = decode_text(raw[:PREVIEW_BYTES])
    except SkipFile as exc:
        data.problem = str(exc)
    except (OSError, RuntimeError, ValueError) as exc:  # PyMuPDF raises RuntimeError subclasses for damage
        data.problem = getattr(exc, "strerror", None) or str(exc)
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


def render_pdf_page(path: str, rel: str, page: int, width_px: int) -> RenderedPage:
    """Page `page` (1-based, clamped) rendered `width_px` wide. PyMuPDF: call on the indexer's thread only."""
    with pymupdf.open(path) as pdf:
        if pdf.needs_pass:
            raise ValueError("encrypted PDF (a password is required)")
        number = min(max(page, 1), pdf.page_count)
        pdf_page = pdf[number - 1]
        zoom = max(0.1, min(8.0, width_px / max(pdf_page.rect.width, 1)))
        pix = pdf_page.get_pixmap(matrix=pymupdf.Matrix(zoom, zoom), alpha=False)
        return RenderedPage(rel, number, pdf.page_count, pix.width, pix.height, pix.stride, bytes(pix.samples))
