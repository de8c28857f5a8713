"""Real media files written by the tests: PDFs made with PyMuPDF; PNG, JPEG (with EXIF), SVG and GIF images;
videos come from tests/data (made once with ffmpeg: 96x64 test patterns, MP4/H.264 2 s and WebM/VP8 3 s)."""

from __future__ import annotations

import shutil
import struct
from pathlib import Path

import pymupdf

DATA = Path(__file__).resolve().parent / "data"
# The smallest GIF: one transparent pixel (GIF89a). Qt reads GIFs but cannot write them.
ONE_PIXEL_GIF = bytes.fromhex(
    "47494638396101000100800000000000ffffff21f90401000000002c00000000010001000002024401003b"
)


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


def make_png(path: Path, width: int, height: int, color: str = "#3a7bd5") -> Path:
    from PySide6.QtGui import QColor, QImage

    image = QImage(width, height, QImage.Format.Format_RGB32)
    image.fill(QColor(color))
    path.parent.mkdir(parents=True, exist_ok=True)
    assert image.save(str(path), "PNG")
    return path


def make_exif_jpeg(path: Path, width: int, height: int, orientation: int) -> Path:
    """A JPEG whose EXIF says how to turn it (6: rotate 90° clockwise to view)."""
    from PySide6.QtCore import QBuffer, QByteArray, QIODevice
    from PySide6.QtGui import QColor, QImage

    image = QImage(width, height, QImage.Format.Format_RGB32)
    image.fill(QColor("#d53a3a"))
    data = QByteArray()
    buffer = QBuffer(data)
    buffer.open(QIODevice.OpenModeFlag.WriteOnly)
    assert image.save(buffer, "JPG")
    jpeg = bytes(data.data())
    tiff = b"II*\x00" + struct.pack("<I", 8) + struct.pack("<H", 1)
    tiff += struct.pack("<HHIHH", 0x0112, 3, 1, orientation, 0) + struct.pack("<I", 0)
    app1 = b"Exif\x00\x00" + tiff
    segment = b"\xff\xe1" + struct.pack(">H", len(app1) + 2) + app1
    path.write_bytes(jpeg[:2] + segment + jpeg[2:])  # right after SOI
    return path


def make_svg(path: Path) -> Path:
    path.write_text(
        '<svg xmlns="http://www.w3.org/2000/svg" width="400" height="200" viewBox="0 0 400 200">'
        '<rect width="400" height="200" fill="#2d9d78"/><circle cx="200" cy="100" r="60" fill="#fff"/></svg>',
        encoding="utf-8",
    )
    return path


def make_gif(path: Path) -> Path:
    path.write_bytes(ONE_PIXEL_GIF)
    return path


def copy_video(name: str, dest: Path) -> Path:
    """tiny.mp4 or tiny.webm from tests/data."""
    dest.parent.mkdir(parents=True, exist_ok=True)
    shutil.copy(DATA / name, dest)
    return dest


def truncated_video(dest: Path) -> Path:
    dest.write_bytes((DATA / "tiny.mp4").read_bytes()[:1500])
    return dest
