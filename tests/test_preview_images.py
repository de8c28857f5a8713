"""A Markdown image wider than the preview pane is scaled to fit it (no sideways scrolling); a small one keeps its
size; resizing the pane fits it again."""

from __future__ import annotations

from PySide6.QtGui import QColor, QImage, QTextCursor

from . import test_window

open_app = test_window.open_app
demo_ws = test_window.demo_ws


def image_widths(browser) -> list[float]:
    widths = []
    block = browser.document().begin()
    while block.isValid():
        it = block.begin()
        while not it.atEnd():
            fmt = it.fragment().charFormat()
            if fmt.isImageFormat():
                widths.append(fmt.toImageFormat().width())
            it += 1
        block = block.next()
    return widths


def test_a_wide_banner_is_fitted_to_the_pane_and_a_small_image_is_not_enlarged(qtbot, open_app, demo_ws):
    banner = QImage(2400, 300, QImage.Format.Format_RGB32)
    banner.fill(QColor("#3366aa"))
    banner.save(str(demo_ws / "assets" / "wide-banner.png"))
    icon = QImage(40, 40, QImage.Format.Format_RGB32)
    icon.fill(QColor("#aa3366"))
    icon.save(str(demo_ws / "assets" / "small-icon.png"))
    (demo_ws / "banner-note.md").write_text("# Banner note\n\n![banner](assets/wide-banner.png)\n\n"
                                            "![icon](assets/small-icon.png)\n\nText after.\n", encoding="utf-8")
    knit = open_app()
    window = knit.window
    window.show_document("banner-note.md")
    browser = window.preview.browser
    qtbot.waitUntil(lambda: "Text after." in browser.toPlainText(), timeout=10_000)
    qtbot.waitUntil(lambda: len(image_widths(browser)) == 2)
    assert browser.horizontalScrollBar().maximum() == 0  # no sideways scrolling
    widths = image_widths(browser)
    assert 0 < widths[0] <= browser.viewport().width() and widths[1] == 40
    narrow = widths[0]
    window.resize(window.width() + 200, window.height())
    qtbot.waitUntil(lambda: image_widths(browser)[0] > narrow)
    browser.setTextCursor(QTextCursor(browser.document()))
    assert browser.horizontalScrollBar().maximum() == 0
