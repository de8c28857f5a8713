"""`knit-desktop selftest`: can this installation read videos, render PDFs and speak both languages?

Runs the app's own code paths on the bundled demo (the thumbnail service's video probe, the PDF page renderer,
the language switcher) and prints what it found as JSON. The packaged build's smoke test relies on it, and a
user can run it when videos or translations do not show up.
"""

from __future__ import annotations

import json
import sys
import tempfile
import time

from .resources import demo_workspace

DEMO_VIDEO = "assets/sync-demo.mp4"
DEMO_PDF = "docs/sync-whitepaper.pdf"


def run_selftest(timeout_s: float = 20.0) -> dict:
    from PySide6.QtCore import QCoreApplication, QEventLoop, QTimer
    from PySide6.QtWidgets import QApplication

    from .core.index.preview_content import render_pdf_page
    from .services.thumbnails import ThumbnailService
    from .ui.i18n import LanguageSwitcher

    app = QApplication.instance() or QApplication(sys.argv[:1])
    report: dict = {"ok": False}
    root = str(demo_workspace())

    with tempfile.TemporaryDirectory(prefix="knit-selftest-") as cache:
        service = ThumbnailService(cache)
        loop = QEventLoop()
        got: dict = {}

        def on_thumb(thumb) -> None:
            got["thumb"] = thumb
            loop.quit()

        service.thumbnailReady.connect(on_thumb)
        started = time.perf_counter()
        service.request(root, [(DEMO_VIDEO, "video")])
        QTimer.singleShot(int(timeout_s * 1000), loop.quit)
        loop.exec()
        service.stop()
        thumb = got.get("thumb")
        report["video"] = {
            "first_frame": None if thumb is None or thumb.image is None else [thumb.image.width(), thumb.image.height()],
            "duration_ms": 0 if thumb is None else thumb.duration_ms,
            "problem": "no answer" if thumb is None else thumb.problem,
            "ms": round((time.perf_counter() - started) * 1000),
        }

    try:
        page = render_pdf_page(f"{root}/{DEMO_PDF}", DEMO_PDF, 1, 400)
        report["pdf"] = {"page": page.page, "pages": page.pages, "size": [page.width, page.height], "problem": ""}
    except Exception as exc:  # reported, not raised: this is a diagnosis
        report["pdf"] = {"problem": str(exc)}

    switcher = LanguageSwitcher()
    languages = {}
    for language, expected in (("zh_CN", "相关"), ("en", "Relevant")):
        switcher.apply(language)
        languages[language] = {
            "catalogues": len(switcher._installed),
            "sample": QCoreApplication.translate("HeaderBar", "Relevant"),
            "ok": QCoreApplication.translate("HeaderBar", "Relevant") == expected,
        }
    languages["zh_CN"]["ok"] = languages["zh_CN"]["ok"] and languages["zh_CN"]["catalogues"] == 2  # ours + Qt's
    switcher.clear()
    report["languages"] = languages
    video = report["video"]
    report["ok"] = bool(
        video["first_frame"] and video["duration_ms"] > 0 and not report["pdf"].get("problem")
        and all(v["ok"] for v in languages.values())
    )
    del app
    return report


def main() -> int:
    report = run_selftest()
    print(json.dumps(report, ensure_ascii=False, indent=2))
    return 0 if report["ok"] else 1
