"""A PDF preview opens on the page holding the most matched words (not the first passage's page), and a larger
pane — fullscreen — renders the page again at its new width."""

from __future__ import annotations

from PySide6.QtCore import Qt

from knit_desktop.core.dsh.conversation import Message
from knit_desktop.ui.app import KnitApp

from .media_fixtures import make_pdf

WORDS = "capybara habitat survey wetland census results"


def test_the_pdf_opens_on_the_page_with_all_the_words_and_fullscreen_renders_a_large_page(
        qtbot, make_workspace, tmp_path, settings):
    root = make_workspace({"notes/readme.md": "# Readme\n\nNothing here.\n"})
    filler = "\n".join(f"Unrelated paragraph number {i} about quarterly budgets." for i in range(40))
    make_pdf(root / "report.pdf", [f"Overview\nThe capybara habitat.\n{filler}",
                                   f"Appendix\n{filler}\nThe capybara habitat survey found the wetland census "
                                   "results steady."])
    knit = KnitApp(workspace=str(root), dsh_home=str(tmp_path / "no-dsh"),
                   messages=[Message("user", f"What did the {WORDS} say?")], settings=settings, persistent=False)
    try:
        window = knit.window
        window.resize(320, 760)
        window.show()
        qtbot.waitUntil(lambda: window.model.row_of("report.pdf") >= 0, timeout=15_000)
        row = window.model.row_of("report.pdf")
        passages = window.model.rows[row].item.passages
        assert len(passages) == 2 and passages[0].page == 1  # passages come in document order
        index = window.model.index(row)
        qtbot.mouseClick(window.list.viewport(), Qt.MouseButton.LeftButton, pos=window.list.visualRect(index).center())
        preview = window.preview
        qtbot.waitUntil(lambda: preview.pages == 2 and preview.page_label.pixmap() is not None
                        and not preview.page_label.pixmap().isNull(), timeout=10_000)
        assert preview.page == 2 and preview.page_number.text() == "Page 2 of 2"
        image = preview.page_label.pixmap().toImage()
        marked = [(x, y) for x in range(0, image.width(), 2) for y in range(0, image.height(), 2)
                  if (lambda c: c.red() > 235 and 190 < c.green() < 240 and c.blue() < 150)(image.pixelColor(x, y))]
        assert marked, "the matched words are not highlighted on the page"
        small = preview.page_label.pixmap().width()
        qtbot.mouseClick(preview.full_button, Qt.MouseButton.LeftButton)
        qtbot.waitUntil(lambda: window.isFullScreen())
        # the offscreen screen is 800 px wide: the page grows with the pane instead of staying at its old width
        qtbot.waitUntil(lambda: preview.page_label.pixmap().width() > small + 100, timeout=10_000)
        assert preview.page == 2
    finally:
        knit.close()


def test_the_page_renderer_highlights_the_words_and_leaves_the_file_alone(tmp_path):
    from knit_desktop.core.index.preview_content import render_pdf_page

    path = make_pdf(tmp_path / "r.pdf", ["Nothing here.", "The capybara habitat survey."])
    before = path.read_bytes()
    plain = render_pdf_page(str(path), "r.pdf", 2, 400)
    marked = render_pdf_page(str(path), "r.pdf", 2, 400, terms=("capybara", "survey", "x"))
    assert plain.marked == 0 and marked.marked == 2 and marked.samples != plain.samples
    assert path.read_bytes() == before
