"""Paints the document list: tier headers, and rows with number, title, primary dot, time, summary, why line."""

from __future__ import annotations

from dataclasses import dataclass

from PySide6.QtCore import QCoreApplication, QModelIndex, QPersistentModelIndex, QRect, QSize, Qt
from PySide6.QtGui import QColor, QFont, QFontMetrics, QPainter, QPalette, QTextLayout, QTextLine, QTextOption
from PySide6.QtWidgets import QAbstractScrollArea, QStyle, QStyledItemDelegate, QStyleOptionViewItem

from .colours import row_colours
from .document_model import TIERS, Row, RowRole
from .metrics import UNIT, XS, S, type_scale
from .wording import is_new, relative_time_text, tier_hint, tier_title, why_text

PAD = S  # a row's padding
NUMBER_WIDTH = 24
HEADER_HEIGHT = 28
LINE_GAP = 2  # between a row's title, summary and why line (inside the row, painted, not a layout spacing)
SUMMARY_LINES = 2  # a summary is clamped to this many lines
_NO_SUMMARY = "(no summary)"  # measured for an empty summary (one line in either language)


@dataclass(frozen=True)
class RowMetrics:
    title: int  # the title line's height
    body: QFontMetrics  # the summary's font
    small: int  # the why line's height

    heights: tuple[tuple[int, int], ...] = ()  # a document row's height by [summary lines - 1][has a why line]

    @classmethod
    def measure(cls, title: QFont, body: QFont, small: QFont) -> RowMetrics:
        t, b, s = QFontMetrics(title).height(), QFontMetrics(body), QFontMetrics(small).height()
        plain = [PAD + t + LINE_GAP + lines * b.lineSpacing() + PAD for lines in range(1, SUMMARY_LINES + 1)]
        heights = tuple((height, height + LINE_GAP + s) for height in plain)
        return cls(t, b, s, heights)


def match_spans(text: str, needle: str) -> list[tuple[int, int]]:
    """(start, end) of each case-insensitive occurrence of the filter text in `text`."""
    if not needle:
        return []
    lower, spans, start = text.lower(), [], 0
    while (i := lower.find(needle, start)) >= 0:
        spans.append((i, i + len(needle)))
        start = i + len(needle)
    return spans


def mark_matches(painter: QPainter, text: str, fm: QFontMetrics, left: int, top: int, height: int, needle: str,
                 colours, selected: bool) -> None:
    """Mark where the filter text occurs in a line drawn at (left, top): a faint background on a plain row (its
    text keeps 4.5:1 on it), an underline always (on a selected row the underline alone, as a background there
    would take the white text below 4.5:1)."""
    for start, end in match_spans(text, needle):
        x0 = left + fm.horizontalAdvance(text[:start])
        width = fm.horizontalAdvance(text[start:end])
        if not selected:
            painter.fillRect(QRect(x0, top + 1, width, height - 2), colours.match_background)
        painter.fillRect(QRect(x0, top + height - 2, width, 2), colours.accent if not selected else colours.text)


class DocumentDelegate(QStyledItemDelegate):
    def __init__(self, model, parent=None) -> None:
        super().__init__(parent)
        self.model = model
        self._metrics_for: tuple[str, RowMetrics | None] = ("", None)
        self._lines_for: tuple[int, dict[str, int]] = (0, {})  # width -> {summary: lines}, for the font measured

    def _fonts(self, option: QStyleOptionViewItem) -> tuple[QFont, QFont, QFont]:
        return type_scale(option.font)  # (title, body, small): the sticky note's scale too

    def _metrics(self, option: QStyleOptionViewItem, key: str | None = None) -> RowMetrics:
        """A row's line heights; measured once per font (`key`: the font's key when the caller has it)."""
        key = option.font.key() if key is None else key
        if self._metrics_for[0] != key:
            self._metrics_for = (key, RowMetrics.measure(*self._fonts(option)))
            self._lines_for = (0, {})
        metrics = self._metrics_for[1]
        assert metrics is not None
        return metrics

    def summary_lines(self, option: QStyleOptionViewItem, summary: str, width: int, key: str | None = None) -> int:
        """How many lines (1 or 2) a row's summary takes at the list's width: a short summary's row is one line
        shorter, so the why line follows it with no empty line between. A width of 0 (not laid out yet): 2."""
        metrics = self._metrics(option, key)  # a new font empties the cache below
        if width <= 0:
            return SUMMARY_LINES
        cached_width, cache = self._lines_for
        if cached_width != width:
            cache = {}
            self._lines_for = (width, cache)
        lines = cache.get(summary)
        if lines is None:
            lines = cache[summary] = self._measure_lines(metrics.body, summary or _NO_SUMMARY, width)
        return lines

    @staticmethod
    def _measure_lines(fm: QFontMetrics, summary: str, width: int) -> int:
        # Shaping a 200-character summary costs tens of microseconds, times thousands of rows: most summaries are
        # told by their length alone, far longer or far shorter than the line, and only the rest are measured.
        if len(summary) * fm.averageCharWidth() > 2 * width:
            return SUMMARY_LINES
        if len(summary) * fm.maxWidth() <= width:
            return 1
        return 1 if fm.horizontalAdvance(" ".join(summary.split())) <= width else SUMMARY_LINES

    @staticmethod
    def text_width(width: int) -> int:
        """The width a row's summary and why line get in a row `width` wide."""
        return width - 2 * PAD - NUMBER_WIDTH

    def row_height(self, option: QStyleOptionViewItem, summary_lines: int, has_reason: bool) -> int:
        return self._metrics(option).heights[summary_lines - 1][has_reason]

    def sizeHint(self, option: QStyleOptionViewItem, index: QModelIndex | QPersistentModelIndex) -> QSize:
        # Called for every row on each re-rank (thousands): no fonts built, no QVariant round trip; a summary's
        # line count is measured once per text and width.
        rows = self.model.rows
        row = rows[index.row()] if 0 <= index.row() < len(rows) else None
        if row is None:
            return QSize(0, 0)
        if row.is_header:
            return QSize(1, HEADER_HEIGHT)  # rows take the viewport's width; never ask for more
        item = row.item
        assert item is not None
        key = option.font.key()
        view = option.widget
        width = view.viewport().width() - 2 * PAD - NUMBER_WIDTH if isinstance(view, QAbstractScrollArea) else 0
        lines = self.summary_lines(option, item.summary, width, key)
        return QSize(1, self._metrics_for[1].heights[lines - 1][item.reason is not None])

    def paint(self, painter: QPainter, option: QStyleOptionViewItem, index: QModelIndex | QPersistentModelIndex) -> None:
        row: Row = index.data(RowRole)
        if row is None:
            return
        painter.save()
        palette = option.palette
        if row.is_header:
            self._paint_header(painter, option, row)
        else:
            self._paint_document(painter, option, row, palette)
        painter.restore()

    def _paint_header(self, painter: QPainter, option: QStyleOptionViewItem, row: Row) -> None:
        """A small label: the tier's name, its count and its hint, on one line above a hairline."""
        rect = option.rect.adjusted(PAD, 0, -PAD, 0)
        colours = row_colours(option.palette)
        _, base, small = self._fonts(option)
        bold = QFont(small)
        bold.setWeight(QFont.Weight.Bold)
        painter.setFont(bold)
        painter.setPen(colours.header if row.tier in TIERS else colours.hint)
        name = tier_title(row.tier)
        painter.drawText(rect, Qt.AlignmentFlag.AlignVCenter | Qt.AlignmentFlag.AlignLeft, name)
        rest = " · ".join(part for part in (row.count_text, tier_hint(row.tier)) if part)
        if rest:
            x = rect.left() + QFontMetrics(bold).horizontalAdvance(name) + PAD
            painter.setFont(small)
            painter.setPen(colours.hint)
            painter.drawText(QRect(x, rect.top(), rect.right() - x, rect.height()),
                             Qt.AlignmentFlag.AlignVCenter | Qt.AlignmentFlag.AlignLeft,
                             QFontMetrics(small).elidedText(rest, Qt.TextElideMode.ElideRight, rect.right() - x))
        line = QColor(option.palette.color(QPalette.ColorRole.Mid))  # a rule, not text: no contrast minimum
        painter.setPen(line)
        painter.drawLine(rect.left(), rect.bottom(), rect.right(), rect.bottom())

    def _paint_document(self, painter: QPainter, option: QStyleOptionViewItem, row: Row, palette: QPalette) -> None:
        selected = bool(option.state & QStyle.StateFlag.State_Selected)
        has_focus = bool(option.state & QStyle.StateFlag.State_HasFocus)
        rect = option.rect
        colours = row_colours(palette, selected)
        if selected:
            painter.fillRect(rect, colours.background)
        elif option.state & QStyle.StateFlag.State_MouseOver:
            hover = QColor(palette.color(QPalette.ColorRole.Highlight))
            hover.setAlphaF(0.12)
            painter.fillRect(rect, hover)
        text_color, soft = colours.text, colours.soft
        title_font, base, small = self._fonts(option)
        item = row.item
        assert item is not None
        now = self.model.now_ms
        inner = rect.adjusted(PAD, PAD, -PAD, -PAD)

        # number column
        if item.number:
            painter.setFont(small)
            painter.setPen(soft)
            painter.drawText(QRect(inner.left(), inner.top(), NUMBER_WIDTH, QFontMetrics(title_font).height()),
                             Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter, f"{item.number:02d}")
        left = inner.left() + NUMBER_WIDTH
        width = self.text_width(rect.width())  # as sizeHint measured the summary's lines

        # title line: dot, title, 🆕, time on the right
        fm_title = QFontMetrics(title_font)
        line_h = fm_title.height()
        painter.setFont(small)
        when = relative_time_text(item.mtime_ms, now)
        when_w = QFontMetrics(small).horizontalAdvance(when)
        painter.setPen(soft)
        painter.drawText(QRect(inner.right() - when_w, inner.top(), when_w, line_h),
                         Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter, when)
        right = inner.right() - when_w - S  # where the title must end
        if item.source:  # a library document: its folder's name on a small chip before the time
            right = self._paint_source(painter, item.source, small, colours, right, inner.top(), line_h,
                                       max(40, width // 3))
        x = left
        if row.tier == "primary":
            painter.setRenderHint(QPainter.RenderHint.Antialiasing)
            painter.setBrush(colours.accent)
            painter.setPen(Qt.PenStyle.NoPen)
            painter.drawEllipse(x, inner.top() + line_h // 2 - 3, 6, 6)
            x += 3 * UNIT  # the dot and a gap
        mark = ("📌 " if row.tier == "pinned" else "") + ("🆕 " if is_new(item.mtime_ms, now) else "")
        painter.setFont(title_font)
        painter.setPen(text_color)
        title = fm_title.elidedText(mark + item.title, Qt.TextElideMode.ElideRight, right - x)
        needle = self.model.needle.strip().lower()
        mark_matches(painter, title, fm_title, x, inner.top(), line_h, needle, colours, selected)
        painter.setPen(text_color)
        painter.drawText(QRect(x, inner.top(), right - x, line_h),
                         Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter, title)

        # the summary (one or two lines, as the row was sized for), the why line right below it
        y = inner.top() + line_h + LINE_GAP
        summary = item.summary or QCoreApplication.translate("DocumentList", "(no summary)")
        painter.setFont(base)
        painter.setPen(soft)
        lines = self.summary_lines(option, item.summary, width)
        y = self._draw_clamped(painter, summary, base, QRect(left, y, width, 0), lines, needle, colours, selected)

        # why line
        if item.reason is not None:
            painter.setFont(small)
            painter.setPen(colours.accent)
            why = QFontMetrics(small).elidedText(why_text(item.reason), Qt.TextElideMode.ElideRight, width)
            # not clipped to the Latin font's height: a fallback CJK font's line ("直接命中：") is taller, and
            # centring it in that height cut the descenders of the Latin words after it
            painter.drawText(QRect(left, y + LINE_GAP, width, QFontMetrics(small).height()),
                             Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter | Qt.TextFlag.TextDontClip, why)
        if has_focus:
            pen = painter.pen()
            pen.setColor(colours.accent)
            pen.setWidth(2)
            painter.setPen(pen)
            painter.setBrush(Qt.BrushStyle.NoBrush)
            painter.drawRect(rect.adjusted(1, 1, -2, -2))

    @staticmethod
    def _paint_source(painter: QPainter, label: str, font: QFont, colours, right: int, top: int, line_h: int,
                      widest: int) -> int:
        """The library folder's name on a chip ending at `right`; returns where the title must end."""
        fm = QFontMetrics(font)
        text = fm.elidedText(label, Qt.TextElideMode.ElideMiddle, widest - S)
        chip_w, chip_h = fm.horizontalAdvance(text) + S, min(line_h, fm.height() + XS // 2)
        chip = QRect(right - chip_w, top + (line_h - chip_h) // 2, chip_w, chip_h)
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        painter.setPen(Qt.PenStyle.NoPen)
        painter.setBrush(colours.source_background)
        painter.drawRoundedRect(chip, 3, 3)
        painter.setFont(font)
        painter.setPen(colours.source)
        painter.drawText(chip, Qt.AlignmentFlag.AlignCenter, text)
        return chip.left() - S

    @staticmethod
    def _draw_clamped(painter: QPainter, text: str, font: QFont, rect: QRect, max_lines: int, needle: str = "",
                      colours=None, selected: bool = False) -> int:
        """Lay out `text` in at most `max_lines` lines, eliding the last; returns the y below the block."""
        fm = QFontMetrics(font)
        layout = QTextLayout(" ".join(text.split()), font)
        option = QTextOption()
        option.setWrapMode(QTextOption.WrapMode.WrapAtWordBoundaryOrAnywhere)
        layout.setTextOption(option)
        layout.beginLayout()
        lines: list[QTextLine] = []
        while len(lines) < max_lines:
            line = layout.createLine()
            if not line.isValid():
                break
            line.setLineWidth(rect.width())
            lines.append(line)
        layout.endLayout()
        y = rect.top()
        full = layout.text()
        for i, line in enumerate(lines):
            start, length = line.textStart(), line.textLength()
            part = full[start : start + length]
            if i == len(lines) - 1 and start + length < len(full):
                part = fm.elidedText(full[start:], Qt.TextElideMode.ElideRight, rect.width())
            if needle and colours is not None:
                pen = painter.pen()
                mark_matches(painter, part, fm, rect.left(), y, fm.lineSpacing(), needle, colours, selected)
                painter.setPen(pen)
            painter.drawText(QRect(rect.left(), y, rect.width(), fm.lineSpacing()),
                             Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter, part)
            y += fm.lineSpacing()
        return max(y, rect.top() + max_lines * fm.lineSpacing()) if lines else rect.top() + max_lines * fm.lineSpacing()
