"""Paints a media cell: the thumbnail cropped to a square, the play triangle and duration badge for videos,
the 🆕 mark, the file name when cells are large enough, and a placeholder for files that cannot be shown."""

from __future__ import annotations

from PySide6.QtCore import QModelIndex, QPersistentModelIndex, QPointF, QRect, QSize, Qt
from PySide6.QtGui import QColor, QFont, QFontMetrics, QPainter, QPainterPath, QPalette, QPolygonF
from PySide6.QtWidgets import QStyle, QStyledItemDelegate, QStyleOptionViewItem

from ..core.media.layout import GridGeometry, duration_text, grid_geometry
from ..core.view import ViewRow
from .colours import BADGE_ALPHA, LABEL_BAND_ALPHA, placeholder_text
from .wording import is_new

RADIUS = 6


class MediaDelegate(QStyledItemDelegate):
    def __init__(self, model, parent=None) -> None:
        super().__init__(parent)
        self.model = model
        self.geometry: GridGeometry = grid_geometry(0)

    def sizeHint(self, option: QStyleOptionViewItem, index: QModelIndex | QPersistentModelIndex) -> QSize:
        return QSize(self.geometry.cell, self.geometry.cell)

    def paint(self, painter: QPainter, option: QStyleOptionViewItem, index: QModelIndex | QPersistentModelIndex) -> None:
        row = index.row()
        if row >= len(self.model.items):
            return
        item = self.model.items[row]
        thumb = self.model.thumbnail(row)
        palette = option.palette
        rect = option.rect
        painter.save()
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        painter.setRenderHint(QPainter.RenderHint.SmoothPixmapTransform)
        base = QColor(palette.color(QPalette.ColorRole.AlternateBase))
        painter.setPen(Qt.PenStyle.NoPen)
        painter.setBrush(base)
        painter.drawRoundedRect(rect, RADIUS, RADIUS)

        image = getattr(thumb, "image", None)
        if image is not None and not image.isNull():
            source = self._cover(image.width(), image.height())
            painter.save()
            path = QPainterPath()
            path.addRoundedRect(rect, RADIUS, RADIUS)
            painter.setClipPath(path, Qt.ClipOperation.IntersectClip)
            painter.drawImage(rect, image, source)
            painter.restore()
        else:
            self._placeholder(painter, rect, item, thumb, palette)

        label_height = self._label(painter, rect, item.rel.rsplit("/", 1)[-1], option.font) if self.geometry.labels else 0
        if item.kind == "video" and not getattr(thumb, "problem", ""):  # a broken video shows only ⚠
            self._video_marks(painter, rect, getattr(thumb, "duration_ms", 0), option.font, label_height)
        if item.source:  # a library folder's image or video: its folder's name in a badge, top right
            self._source_badge(painter, rect, item.source, option.font)
        if is_new(item.mtime_ms, self.model.now_ms):
            painter.setFont(option.font)
            painter.drawText(rect.adjusted(4, 2, -4, -2), Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignTop, "🆕")

        selected = bool(option.state & QStyle.StateFlag.State_Selected)
        focused = bool(option.state & QStyle.StateFlag.State_HasFocus)
        if selected or focused:
            pen = painter.pen()
            pen.setStyle(Qt.PenStyle.SolidLine)
            pen.setColor(palette.color(QPalette.ColorRole.Highlight))
            pen.setWidth(3 if selected else 2)
            painter.setPen(pen)
            painter.setBrush(Qt.BrushStyle.NoBrush)
            painter.drawRoundedRect(rect.adjusted(1, 1, -2, -2), RADIUS, RADIUS)
        elif option.state & QStyle.StateFlag.State_MouseOver:
            hover = QColor(palette.color(QPalette.ColorRole.Highlight))
            hover.setAlphaF(0.18)
            painter.setBrush(hover)
            painter.setPen(Qt.PenStyle.NoPen)
            painter.drawRoundedRect(rect, RADIUS, RADIUS)
        painter.restore()

    def _cover(self, width: int, height: int) -> QRect:
        """The centred square of the image (object-fit: cover)."""
        side = min(width, height)
        return QRect((width - side) // 2, (height - side) // 2, side, side)

    @staticmethod
    def _placeholder(painter: QPainter, rect: QRect, item: ViewRow, thumb, palette: QPalette) -> None:
        painter.setPen(placeholder_text(palette))
        font = QFont(painter.font())
        font.setPointSizeF(max(7.0, font.pointSizeF() * 0.9))
        painter.setFont(font)
        extension = item.rel.rsplit(".", 1)[-1].upper()
        text = extension if thumb is None else f"{extension}\n⚠"
        painter.drawText(rect, Qt.AlignmentFlag.AlignCenter, text)

    @staticmethod
    def _video_marks(painter: QPainter, rect: QRect, duration_ms: int, font: QFont, lift: int) -> None:
        centre = QPointF(rect.center())
        r = max(10.0, rect.width() * 0.14)
        painter.setPen(Qt.PenStyle.NoPen)
        painter.setBrush(QColor(0, 0, 0, 130))
        painter.drawEllipse(centre, r, r)
        painter.setBrush(QColor(255, 255, 255, 235))
        triangle = QPolygonF([centre + QPointF(-r * 0.35, -r * 0.5), centre + QPointF(-r * 0.35, r * 0.5),
                              centre + QPointF(r * 0.55, 0)])
        painter.drawPolygon(triangle)
        if duration_ms > 0:
            small = QFont(font)
            small.setPointSizeF(max(7.0, font.pointSizeF() * 0.85))
            painter.setFont(small)
            text = duration_text(duration_ms)
            fm = QFontMetrics(small)
            w, h = fm.horizontalAdvance(text) + 8, fm.height() + 2
            badge = QRect(rect.right() - w - 4, rect.bottom() - lift - h - 4, w, h)
            painter.setBrush(QColor(0, 0, 0, BADGE_ALPHA))
            painter.drawRoundedRect(badge, 3, 3)
            painter.setPen(QColor("white"))
            painter.drawText(badge, Qt.AlignmentFlag.AlignCenter, text)

    @staticmethod
    def _source_badge(painter: QPainter, rect: QRect, label: str, font: QFont) -> None:
        """White on the video badge's dark (its contrast is measured over a white picture)."""
        small = QFont(font)
        small.setPointSizeF(max(7.0, font.pointSizeF() * 0.85))
        fm = QFontMetrics(small)
        text = fm.elidedText(label, Qt.TextElideMode.ElideMiddle, rect.width() // 2)
        w, h = fm.horizontalAdvance(text) + 8, fm.height() + 2
        badge = QRect(rect.right() - w - 4, rect.top() + 4, w, h)
        painter.setPen(Qt.PenStyle.NoPen)
        painter.setBrush(QColor(0, 0, 0, BADGE_ALPHA))
        painter.drawRoundedRect(badge, 3, 3)
        painter.setFont(small)
        painter.setPen(QColor("white"))
        painter.drawText(badge, Qt.AlignmentFlag.AlignCenter, text)

    @staticmethod
    def _label(painter: QPainter, rect: QRect, name: str, font: QFont) -> int:
        small = QFont(font)
        small.setPointSizeF(max(7.0, font.pointSizeF() * 0.85))
        fm = QFontMetrics(small)
        h = fm.height() + 4
        band = QRect(rect.left(), rect.bottom() - h + 1, rect.width(), h)
        painter.setPen(Qt.PenStyle.NoPen)
        painter.setBrush(QColor(0, 0, 0, LABEL_BAND_ALPHA))
        painter.drawRect(band)
        painter.setFont(small)
        painter.setPen(QColor("white"))
        painter.drawText(band.adjusted(5, 0, -5, 0), Qt.AlignmentFlag.AlignVCenter | Qt.AlignmentFlag.AlignLeft,
                         fm.elidedText(name, Qt.TextElideMode.ElideMiddle, band.width() - 10))
        return h
