"""Every text colour the list, the grid and the preview paint, derived from the palette and held to WCAG's 4.5:1.

A softer tone (a summary, a time, a tier hint) or the accent (the why line, a tier title) is a blend that a light
palette and a dark palette can both push below legible: the system's Highlight is often a mid blue that reads on
white but not on #1e1e1e, and a 60 % grey on white is 2.5:1. So each tone is asked for against the background it is
painted on, and pulled towards the palette's text colour until it reaches the minimum. The test prints the table.
"""

from __future__ import annotations

from dataclasses import dataclass

from PySide6.QtGui import QColor, QPalette

MINIMUM_CONTRAST = 4.5  # WCAG 2 AA for body text
AIM = 4.6  # what a tone is pulled to: a margin for 8-bit rounding on the way to the screen

# Overlays painted on thumbnails, whatever the picture: the worst case under them is pure white.
BADGE_ALPHA = 170  # the video length badge
LABEL_BAND_ALPHA = 160  # the file name band at the bottom of a cell (120 gave 3.6:1 over a white picture)


def _channel(value: float) -> float:
    return value / 12.92 if value <= 0.04045 else ((value + 0.055) / 1.055) ** 2.4


def luminance(color: QColor) -> float:
    """WCAG relative luminance of an opaque colour."""
    return 0.2126 * _channel(color.redF()) + 0.7152 * _channel(color.greenF()) + 0.0722 * _channel(color.blueF())


def over(color: QColor, background: QColor) -> QColor:
    """`color` (maybe translucent) composited over an opaque background: what the eye sees."""
    a = color.alphaF()
    return QColor.fromRgbF(color.redF() * a + background.redF() * (1 - a),
                           color.greenF() * a + background.greenF() * (1 - a),
                           color.blueF() * a + background.blueF() * (1 - a))


def contrast(foreground: QColor, background: QColor) -> float:
    """The WCAG contrast ratio of a (maybe translucent) foreground over an opaque background."""
    lighter, darker = sorted((luminance(over(foreground, background)), luminance(background)), reverse=True)
    return (lighter + 0.05) / (darker + 0.05)


def _mix(a: QColor, b: QColor, t: float) -> QColor:
    return QColor.fromRgbF(a.redF() + (b.redF() - a.redF()) * t, a.greenF() + (b.greenF() - a.greenF()) * t,
                           a.blueF() + (b.blueF() - a.blueF()) * t)


def readable(wanted: QColor, background: QColor, minimum: float = AIM) -> QColor:
    """`wanted` as painted over `background`, pulled towards black or white (whichever contrasts more with the
    background) just far enough to reach `minimum`; an opaque colour, so what the test measures is what shows."""
    seen = over(wanted, background)
    if contrast(seen, background) >= minimum:
        return seen
    extreme = QColor("black") if luminance(background) > 0.179 else QColor("white")
    low, high = 0.0, 1.0
    for _ in range(16):  # bisection: the smallest pull that is enough keeps the tone's hue
        middle = (low + high) / 2
        if contrast(_mix(seen, extreme, middle), background) >= minimum:
            high = middle
        else:
            low = middle
    return _mix(seen, extreme, high)


def _alpha(color: QColor, alpha: float) -> QColor:
    tone = QColor(color)
    tone.setAlphaF(alpha)
    return tone


@dataclass(frozen=True)
class RowColours:
    """The colours of one document row (or header) on its background."""

    background: QColor
    text: QColor  # the title
    soft: QColor  # number, time, summary
    accent: QColor  # the why line, the primary dot
    header: QColor  # a tier's name
    hint: QColor  # a tier's hint and count, "Other documents"
    match_background: QColor  # behind the filter text where it occurs in a title or summary (plain rows)
    source_background: QColor  # the chip behind a library document's folder label
    source: QColor  # the folder label on its chip


def row_colours(palette: QPalette, selected: bool = False) -> RowColours:
    role = QPalette.ColorRole
    if selected:  # keep the theme's selected text colour (white on blue, say) and deepen the blue if it must
        text = over(palette.color(role.HighlightedText), palette.color(role.Highlight))
        background = readable(palette.color(role.Highlight), text)
    else:
        background = palette.color(role.Base)
    text = readable(palette.color(role.HighlightedText if selected else role.Text), background)
    accent = text if selected else readable(palette.color(role.Highlight), background)
    return RowColours(
        background=background,
        text=text,
        soft=readable(_alpha(text, 0.7), background),
        accent=accent,
        header=accent,
        hint=readable(_alpha(palette.color(role.Text), 0.6), background),
        match_background=over(_alpha(palette.color(role.Highlight), 0.22), background),
        # On a selected row the chip is the row's own colour (any tint would take its white text below 4.5:1).
        source_background=(chip := background if selected else over(_alpha(text, 0.09), background)),
        source=text if selected else readable(_alpha(text, 0.8), chip),
    )


def placeholder_text(palette: QPalette) -> QColor:
    """A media cell that cannot be shown: its extension on the cell's AlternateBase."""
    background = palette.color(QPalette.ColorRole.AlternateBase)
    return readable(_alpha(palette.color(QPalette.ColorRole.Text), 0.55), background)


def empty_text(palette: QPalette) -> QColor:
    """An empty list's message on the viewport."""
    return readable(_alpha(palette.color(QPalette.ColorRole.Text), 0.6), palette.color(QPalette.ColorRole.Base))


PASSAGE_TINT = 0.10  # the matched passage's background: the Highlight this faint over the page


def passage_background(palette: QPalette) -> QColor:
    """The faint background beside the matched passage in the preview (opaque, so its contrast can be measured):
    the document's own text colours stay on it unchanged."""
    return over(_alpha(palette.color(QPalette.ColorRole.Highlight), PASSAGE_TINT), palette.color(QPalette.ColorRole.Base))


def passage_bar(palette: QPalette) -> QColor:
    """The bar in the margin beside the matched passage: the accent, as the why lines use it."""
    return readable(palette.color(QPalette.ColorRole.Highlight), palette.color(QPalette.ColorRole.Base), 3.0)


@dataclass(frozen=True)
class HistoryColours:
    """The History window's transcript and results (rich text: colours as #rrggbb), from the palette."""

    match_background: str  # a searched word in a snippet or a turn
    focus_background: str  # the turns of the found event (Qt's rich text draws no border, so no bar beside them)
    soft: str  # the turn number, the session's title in the recall strip
    compacted: str  # "(compacted)" beside a turn a compaction summarised


def history_colours(palette: QPalette) -> HistoryColours:
    base = palette.color(QPalette.ColorRole.Base)
    text = palette.color(QPalette.ColorRole.Text)
    focus = passage_background(palette)
    # Each soft colour must read on both backgrounds a turn can have: pulled against the darker-contrast one.
    worst = focus if contrast(text, focus) < contrast(text, base) else base
    return HistoryColours(
        match_background=row_colours(palette).match_background.name(),
        focus_background=focus.name(),
        soft=readable(_alpha(text, 0.6), worst).name(),
        compacted=readable(QColor("#a15c00"), worst).name(),
    )


def text_pairs(palette: QPalette) -> list[tuple[str, QColor, QColor]]:
    """Every (name, foreground, background) pair of text the window paints itself, for the contrast test."""
    pairs: list[tuple[str, QColor, QColor]] = []
    for selected in (False, True):
        colours = row_colours(palette, selected)
        where = "selected row" if selected else "row"
        pairs += [(f"{where}: title", colours.text, colours.background),
                  (f"{where}: time / summary", colours.soft, colours.background),
                  (f"{where}: why line", colours.accent, colours.background),
                  (f"{where}: library folder label", colours.source, colours.source_background)]
    plain = row_colours(palette)
    pairs += [("filter match: title", plain.text, plain.match_background),
              ("filter match: summary", plain.soft, plain.match_background)]
    pairs += [("tier header", plain.header, plain.background), ("tier hint", plain.hint, plain.background),
              ("empty list", empty_text(palette), palette.color(QPalette.ColorRole.Base)),
              ("media placeholder", placeholder_text(palette), palette.color(QPalette.ColorRole.AlternateBase)),
              # the preview paints the document's text in the palette's own colours, unchanged on the passage
              ("preview passage: text", palette.color(QPalette.ColorRole.Text), passage_background(palette)),
              ("video badge on white", QColor("white"), over(QColor(0, 0, 0, BADGE_ALPHA), QColor("white"))),
              ("name band on white", QColor("white"), over(QColor(0, 0, 0, LABEL_BAND_ALPHA), QColor("white")))]
    history = history_colours(palette)
    base, text = palette.color(QPalette.ColorRole.Base), palette.color(QPalette.ColorRole.Text)
    for where, background in (("turn", base), ("found turn", QColor(history.focus_background))):
        pairs += [(f"history {where}: text", text, background),
                  (f"history {where}: turn number", QColor(history.soft), background),
                  (f"history {where}: compacted", QColor(history.compacted), background)]
    pairs.append(("history: searched word", text, QColor(history.match_background)))
    return pairs
