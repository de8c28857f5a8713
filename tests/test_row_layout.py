"""A list row has no empty line between its summary and its why line: a one-line summary's row is a line shorter,
and the why line is painted right under the summary's last line."""

from __future__ import annotations

from PySide6.QtGui import QFontMetrics, QImage, QPainter, QPalette
from PySide6.QtWidgets import QStyleFactory, QStyleOptionViewItem

from knit_desktop.core.rank.context_pack import Reason
from knit_desktop.core.view import RankedRows, ViewRow
from knit_desktop.ui.colours import row_colours
from knit_desktop.ui.document_delegate import DocumentDelegate
from knit_desktop.ui.document_model import DocumentListModel
from knit_desktop.ui.document_view import DocumentListView
from knit_desktop.ui.metrics import type_scale

WIDTH = 360
LONG = "A summary long enough to wrap onto a second line in a row of this width, and then some more words. " * 2


def _model(summary: str) -> tuple[DocumentListModel, int]:
    model = DocumentListModel()
    row = ViewRow("a.md", "md", "Alpha", summary, 0, ("alpha",), tier="supporting", number=1,
                  reason=Reason("direct", ("alpha",)))
    model.set_ranked(RankedRows("relevance", "", ("alpha",), 1, (row,), tiered=True), 0)
    return model, model.row_of("a.md")


def _ink_rows(image: QImage, colour: str) -> list[int]:
    """The y of every pixel row holding `colour`."""
    return [y for y in range(image.height()) if any(image.pixelColor(x, y).name() == colour
                                                     for x in range(image.width()))]


def test_the_why_line_follows_a_one_line_summary_with_no_empty_line(qapp):
    palette = QStyleFactory.create("Fusion").standardPalette()
    model, row = _model("Short summary.")
    delegate = DocumentDelegate(model)
    option = QStyleOptionViewItem()
    option.palette = palette
    option.font = qapp.font()
    image = QImage(WIDTH, 140, QImage.Format.Format_RGB32)
    option.rect = image.rect()
    image.fill(palette.color(QPalette.ColorRole.Base))
    painter = QPainter(image)
    delegate.paint(painter, option, model.index(row))
    painter.end()
    colours = row_colours(palette)
    summary_ink = _ink_rows(image, colours.soft.name())
    why_ink = _ink_rows(image, colours.accent.name())
    assert summary_ink and why_ink
    _, body, _ = type_scale(option.font)
    gap = min(why_ink) - max(y for y in summary_ink if y < min(why_ink))
    assert gap < QFontMetrics(body).lineSpacing(), gap  # ink to ink; an empty line between made it ≥ 1.7 lines


def test_a_row_is_as_tall_as_its_summary_lines_in_the_list(qtbot, qapp):
    short_model, short_row = _model("Short summary.")
    long_model, long_row = _model(LONG)
    heights = []
    for model, row in ((short_model, short_row), (long_model, long_row)):
        view = DocumentListView(model)
        qtbot.addWidget(view)
        view.resize(WIDTH, 300)
        view.show()
        qtbot.waitUntil(lambda view=view, model=model, row=row: view.visualRect(model.index(row)).height() > 0)
        heights.append(view.visualRect(model.index(row)).height())
    _, body, _ = type_scale(qapp.font())
    assert heights[1] - heights[0] == QFontMetrics(body).lineSpacing()

    view.resize(2000, 300)  # wide enough for the long summary on one line: the row shrinks to match
    qtbot.waitUntil(lambda: view.visualRect(long_model.index(long_row)).height() == heights[0])
