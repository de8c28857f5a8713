"""Widgets that let the window live in 320 px: a button whose text is elided in the middle (a path keeps its start
and its file name; the full text is in the tooltip), and icon buttons drawn from the SVG set in `resources/icons`,
tinted with the palette's button text colour so they read on a light and a dark palette alike."""

from __future__ import annotations

from functools import lru_cache

from PySide6.QtCore import QByteArray, QRect, QSize, Qt
from PySide6.QtGui import QFontMetrics, QIcon, QPainter, QPalette, QPixmap
from PySide6.QtSvg import QSvgRenderer
from PySide6.QtWidgets import QSizePolicy, QStyle, QStyleOptionToolButton, QToolButton, QWidget

from ..resources import resources_dir

MIN_ELIDED_CHARS = 6  # an elided button is never narrower than about this many characters


class ElidedButton(QToolButton):
    """A flat text button that shrinks with its layout, eliding its text in the middle; the full text is its
    tooltip unless one is set."""

    def __init__(self, parent: QWidget | None = None, objectName: str = "") -> None:  # noqa: N803 - Qt's keyword
        super().__init__(parent)
        if objectName:
            self.setObjectName(objectName)
        self.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonTextOnly)
        self.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Preferred)
        self._full = ""

    def setText(self, text: str) -> None:  # noqa: N802 - Qt's name
        self._full = text
        super().setText(text)
        self.updateGeometry()
        self.update()

    def full_text(self) -> str:
        return self._full

    def minimumSizeHint(self) -> QSize:  # noqa: N802
        hint = super().minimumSizeHint()
        width = QFontMetrics(self.font()).horizontalAdvance("M" * MIN_ELIDED_CHARS) + 12
        return QSize(min(hint.width(), width), hint.height())

    def paintEvent(self, event) -> None:  # noqa: N802
        option = QStyleOptionToolButton()
        self.initStyleOption(option)
        available = self.style().subControlRect(QStyle.ComplexControl.CC_ToolButton, option,
                                                QStyle.SubControl.SC_ToolButton, self).width() - 12
        option.text = QFontMetrics(self.font()).elidedText(self._full, Qt.TextElideMode.ElideMiddle, max(0, available))
        painter = QPainter(self)
        self.style().drawComplexControl(QStyle.ComplexControl.CC_ToolButton, option, painter, self)
        painter.end()


@lru_cache(maxsize=64)
def _svg(name: str) -> bytes:
    return (resources_dir() / "icons" / f"{name}.svg").read_bytes()


def tinted_icon(name: str, palette: QPalette, size: int = 16) -> QIcon:
    """resources/icons/NAME.svg with its `currentColor` painted in the palette's button text colour (normal and
    disabled), rendered at 1× and 2× so it stays sharp at a scale factor of 2."""
    icon = QIcon()
    for mode, group in ((QIcon.Mode.Normal, QPalette.ColorGroup.Active),
                        (QIcon.Mode.Disabled, QPalette.ColorGroup.Disabled)):
        colour = palette.color(group, QPalette.ColorRole.ButtonText).name()
        renderer = QSvgRenderer(QByteArray(_svg(name).replace(b"currentColor", colour.encode())))
        for scale in (1, 2):
            pixmap = QPixmap(size * scale, size * scale)
            pixmap.fill(Qt.GlobalColor.transparent)
            painter = QPainter(pixmap)
            renderer.render(painter, QRect(0, 0, size * scale, size * scale))
            painter.end()
            pixmap.setDevicePixelRatio(scale)
            icon.addPixmap(pixmap, mode)
    return icon
