"""Every text colour the window paints itself reaches 4.5:1 on its background, in a light and a dark palette and in
a dark palette whose Highlight is a dark blue (the one that put the why lines at 1.69:1). Prints the table."""

from __future__ import annotations

import pytest
from PySide6.QtGui import QColor, QImage, QPainter, QPalette
from PySide6.QtWidgets import QStyleFactory, QStyleOptionViewItem

from knit_desktop.core.rank.context_pack import Reason
from knit_desktop.core.view import RankedRows, ViewRow
from knit_desktop.ui.colours import (
    MINIMUM_CONTRAST,
    contrast,
    passage_background,
    passage_bar,
    row_colours,
    text_pairs,
)
from knit_desktop.ui.document_delegate import DocumentDelegate
from knit_desktop.ui.document_model import DocumentListModel


def light_palette() -> QPalette:
    return QStyleFactory.create("Fusion").standardPalette()


def dark_palette(highlight: str = "#308cc6") -> QPalette:
    """Qt's Fusion dark palette; `highlight` as a desktop theme may set it."""
    palette = QPalette()
    role = QPalette.ColorRole
    for r, colour in ((role.Window, "#323232"), (role.WindowText, "#f0f0f0"), (role.Base, "#1e1e1e"),
                      (role.AlternateBase, "#2d2d2d"), (role.Text, "#f0f0f0"), (role.Button, "#3c3c3c"),
                      (role.ButtonText, "#f0f0f0"), (role.Highlight, highlight), (role.HighlightedText, "#ffffff"),
                      (role.Mid, "#404040")):
        palette.setColor(r, QColor(colour))
    return palette


PALETTES = {
    "light (Fusion)": light_palette,
    "dark (Fusion)": dark_palette,
    "dark, deep-blue highlight": lambda: dark_palette("#1d3b66"),
    "light, pale highlight": lambda: _with(light_palette(), QPalette.ColorRole.Highlight, "#9ecbf0"),
}


def _with(palette: QPalette, role, colour: str) -> QPalette:
    palette.setColor(role, QColor(colour))
    return palette


@pytest.mark.parametrize("name", list(PALETTES))
def test_every_text_pair_reaches_four_and_a_half(qapp, name, capsys):
    palette = PALETTES[name]()
    rows = [(label, contrast(fg, bg), fg.name(), bg.name()) for label, fg, bg in text_pairs(palette)]
    with capsys.disabled():
        print(f"\n{name}")
        for label, ratio, fg, bg in rows:
            print(f"  {label:<28} {fg} on {bg}  {ratio:5.2f}:1")
    failing = [(label, round(ratio, 2)) for label, ratio, _, _ in rows if ratio < MINIMUM_CONTRAST]
    assert not failing


def test_the_reported_pairs_were_below_and_are_now_above(qapp):
    """The hint was Text at 60 % (#D8D8D8-like on white), the dark why line the raw Highlight."""
    dark = dark_palette("#1d3b66")
    raw_why = dark.color(QPalette.ColorRole.Highlight)
    assert contrast(raw_why, dark.color(QPalette.ColorRole.Base)) < 2
    assert contrast(row_colours(dark).accent, dark.color(QPalette.ColorRole.Base)) >= MINIMUM_CONTRAST


def test_the_delegate_paints_the_colours_that_were_measured(qapp):
    """Paint a real row with the dark palette and find the why line's colour among the painted pixels."""
    model = DocumentListModel()
    alpha = ViewRow("a.md", "md", "Alpha", "A summary", 0, ("alpha",), tier="primary", number=1,
                    reason=Reason("direct", ("alpha",)))
    model.set_ranked(RankedRows("relevance", "", ("alpha",), 1, (alpha,), tiered=True), 0)
    row = model.row_of("a.md")
    assert row >= 0
    delegate = DocumentDelegate(model)
    palette = dark_palette("#1d3b66")
    option = QStyleOptionViewItem()
    option.palette = palette
    option.rect = QImage(360, 120, QImage.Format.Format_RGB32).rect()
    image = QImage(360, 120, QImage.Format.Format_RGB32)
    image.fill(palette.color(QPalette.ColorRole.Base))
    painter = QPainter(image)
    delegate.paint(painter, option, model.index(row))
    painter.end()
    painted = {image.pixelColor(x, y).name() for x in range(image.width()) for y in range(image.height())}
    assert row_colours(palette).accent.name() in painted  # the primary dot and the why line's solid strokes
    assert palette.color(QPalette.ColorRole.Highlight).name() not in painted


@pytest.mark.parametrize("name", list(PALETTES))
def test_the_preview_passage_is_a_faint_tint_beside_a_bar_the_eye_finds(qapp, name):
    """The matched passage's background stays a tint (the page's text keeps its contrast on it, measured in the
    table above) and the bar in the margin reaches 3:1, WCAG's minimum for a graphic."""
    palette = PALETTES[name]()
    base = palette.color(QPalette.ColorRole.Base)
    assert contrast(passage_background(palette), base) < 1.25
    assert contrast(palette.color(QPalette.ColorRole.Text), passage_background(palette)) >= MINIMUM_CONTRAST
    assert contrast(passage_bar(palette), base) >= 3.0
