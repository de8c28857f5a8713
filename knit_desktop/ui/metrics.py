"""The window's one spacing scale and one type scale.

Every margin, spacing and padding a layout or a style sheet sets is a step of the spacing scale (multiples of 4 px),
so the list, the preview, the header and the sticky notes line up on one grid; `tests/test_metrics.py` walks the
window's layouts and a sticky note's and holds them to it. The type scale is three sizes relative to the
application's font, shared by the list's rows and the sticky note so a note's title reads like a row's title.
"""

from __future__ import annotations

from PySide6.QtGui import QFont

UNIT = 4  # px: every margin and spacing is a multiple of this

# The spacing scale.
XS = UNIT  # 4: between a control and its own label, a bar's vertical inset
S = 2 * UNIT  # 8: between neighbouring controls, a row's padding
M = 3 * UNIT  # 12: a panel's inner margin
L = 4 * UNIT  # 16: a dialog's or a note's margin

# The matched passage in the preview: the text starts DOCUMENT_MARGIN in, and the bar sits in that margin.
DOCUMENT_MARGIN = L
PASSAGE_BAR_GAP = XS  # from the pane's edge to the bar
PASSAGE_BAR_WIDTH = XS
PASSAGE_PAD = XS // 2  # the faint background reaches a little above the first line and below the last

# The type scale: factors of the application font's size.
TITLE_SCALE = 1.08  # a row's or a note's title (demi-bold)
BODY_SCALE = 1.0  # a summary, a note's text
SMALL_SCALE = 0.9  # times, why lines, tier headers, a note's kind and count


def scaled(base: QFont, factor: float, weight: QFont.Weight | None = None) -> QFont:
    font = QFont(base)
    if base.pointSizeF() > 0:
        font.setPointSizeF(base.pointSizeF() * factor)
    elif base.pixelSize() > 0:
        font.setPixelSize(max(1, round(base.pixelSize() * factor)))
    if weight is not None:
        font.setWeight(weight)
    return font


def type_scale(base: QFont) -> tuple[QFont, QFont, QFont]:
    """(title, body, small) fonts for a base font: what a list row and a sticky note paint with."""
    return scaled(base, TITLE_SCALE, QFont.Weight.DemiBold), scaled(base, BODY_SCALE), scaled(base, SMALL_SCALE)
