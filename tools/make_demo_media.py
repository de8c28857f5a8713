"""Regenerates the demo workspace's binary files (PDFs, PNGs, the short video). Run from the repository root:

    .venv/bin/python tools/make_demo_media.py

PDFs come from PyMuPDF, images from Qt's painter, the video from ffmpeg (Debian: apt-get install ffmpeg). The files
are committed; this script only documents how they were made and remakes them when the demo changes.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pymupdf

ROOT = Path(__file__).resolve().parents[1] / "resources" / "demo-workspace"


def pdf(path: Path, pages: list[str], title: str) -> None:
    doc = pymupdf.open()
    for text in pages:
        page = doc.new_page()
        page.insert_textbox(pymupdf.Rect(60, 60, 540, 780), text, fontsize=12)
    doc.set_metadata({"title": title, "author": "Lumen Notes team"})
    doc.save(str(path), garbage=4, deflate=True)
    doc.close()


def png(path: Path, title: str, lines: list[str], color: str) -> None:
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    from PySide6.QtCore import Qt
    from PySide6.QtGui import QColor, QFont, QGuiApplication, QImage, QPainter

    app = QGuiApplication.instance() or QGuiApplication(sys.argv[:1])
    image = QImage(640, 400, QImage.Format.Format_RGB32)
    image.fill(QColor("#f4f6fa"))
    painter = QPainter(image)
    painter.fillRect(0, 0, 640, 64, QColor(color))
    painter.setPen(QColor("white"))
    painter.setFont(QFont("Sans", 20, QFont.Weight.Bold))
    painter.drawText(24, 0, 600, 64, Qt.AlignmentFlag.AlignVCenter, title)
    painter.setPen(QColor("#222"))
    painter.setFont(QFont("Sans", 14))
    for i, line in enumerate(lines):
        painter.drawText(32, 110 + i * 40, line)
    painter.end()
    image.save(str(path))
    del app


def video(path: Path) -> None:
    if shutil.which("ffmpeg") is None:
        sys.exit("ffmpeg is needed for the demo video (apt-get install ffmpeg)")
    subprocess.run(
        ["ffmpeg", "-y", "-loglevel", "error", "-f", "lavfi", "-i", "testsrc2=size=320x180:rate=15:duration=4",
         "-c:v", "libx264", "-pix_fmt", "yuv420p", "-crf", "32", "-movflags", "+faststart", str(path)],
        check=True,
    )


def main() -> None:
    pdf(ROOT / "docs" / "sync-whitepaper.pdf", [
        "Lumen Notes sync whitepaper\n\nThis paper describes how Lumen Notes keeps notes consistent across devices.\n"
        "Every change carries a vector clock; concurrent edits are merged paragraph by paragraph.",
        "Conflict resolution\n\nWhen two devices edit the same paragraph, the later vector clock wins and the other "
        "text is kept as a conflict copy. Attachments are compared by content hash, so renaming never conflicts.",
    ], "Lumen Notes sync whitepaper")
    pdf(ROOT / "design" / "attachment-storage-benchmark.pdf", [
        "Attachment storage benchmark\n\nWe measured the attachment cache on a phone with 64 GB of storage.",
        "Results\n\nWith a 2 GB cache limit, 94% of opened attachments were served from the cache. Evicting "
        "recordings first kept thumbnails for every attachment while saving 1.3 GB.",
    ], "Attachment storage benchmark")
    png(ROOT / "assets" / "conflict-banner.png", "This note was edited on two devices",
        ["Keep mine    Keep theirs    Compare", "", "Conflict copy saved: Groceries (conflict).md"], "#c0504d")
    png(ROOT / "assets" / "cache-settings.png", "Settings → Storage",
        ["Attachment cache limit:  ( ) 1 GB  (•) 2 GB  ( ) 5 GB  ( ) 10 GB", "Cache in use: 1.4 GB", "",
         "Thumbnails are always kept."], "#3b6ea8")
    video(ROOT / "assets" / "sync-demo.mp4")


if __name__ == "__main__":
    main()
