"""The media grid view: square cells sized from the width, grid keys, thumbnails asked for visible cells only."""

from __future__ import annotations

from PySide6.QtCore import QSize, Qt, QTimer, Signal
from PySide6.QtWidgets import QListView

from ..core.media.layout import GAP, GRID_PADDING, grid_geometry, grid_step
from .item_view import ItemView
from .media_delegate import MediaDelegate
from .media_model import MediaGridModel

KEYS = {Qt.Key.Key_Left: "left", Qt.Key.Key_Right: "right", Qt.Key.Key_Up: "up", Qt.Key.Key_Down: "down",
        Qt.Key.Key_Home: "home", Qt.Key.Key_End: "end"}
AHEAD_ROWS = 2  # thumbnails asked for beyond the visible rows, so scrolling finds them ready


class MediaGridView(ItemView):
    thumbnailsWanted = Signal(list)  # [(rel, kind, mtime_ms)] of visible cells without a thumbnail
    leaveTop = Signal()  # ↑ on the first row (the All view moves focus to the documents above)

    def __init__(self, model: MediaGridModel, parent=None, scrolls: bool = True) -> None:
        super().__init__(model, parent)
        self.setObjectName("MediaGrid")
        self.delegate = MediaDelegate(model, self)
        self.setItemDelegate(self.delegate)
        self.setViewMode(QListView.ViewMode.IconMode)
        self.setMovement(QListView.Movement.Static)
        self.setWrapping(True)
        self.setUniformItemSizes(True)
        self.setSpacing(0)
        if not scrolls:  # inside the All view the page scrolls, not the grid
            self.setVerticalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.scrolls = scrolls
        # The reference's list and grid padding (16 + 24 px) is what grid_geometry takes off the width; the cells'
        # 10 px gaps sit inside their grid squares, so the margins here only need to balance the scroll bar.
        self.setViewportMargins(GRID_PADDING // 3, GRID_PADDING // 3, 0, GRID_PADDING // 3)
        self._want = QTimer(self, singleShot=True, interval=30)  # coalesce scrolls and resizes
        self._want.timeout.connect(self._ask_visible)
        self.verticalScrollBar().valueChanged.connect(lambda _v: self._want.start())
        model.modelReset.connect(self.relayout)
        model.modelReset.connect(self._want.start)
        self.relayout()

    # --- geometry ------------------------------------------------------------------------------------

    @property
    def columns(self) -> int:
        return self.delegate.geometry.columns

    def relayout(self) -> None:
        geometry = grid_geometry(self.width())
        self.delegate.geometry = geometry
        self.setGridSize(QSize(geometry.pitch, geometry.pitch))
        self.setIconSize(QSize(geometry.cell, geometry.cell))
        if not self.scrolls:
            self.setFixedHeight(self.content_height())
        self.doItemsLayout()

    def content_height(self) -> int:
        rows = -(-self._model.rowCount() // max(1, self.columns))
        return rows * self.delegate.geometry.pitch + GRID_PADDING + 2 * self.frameWidth() - GAP if rows else 0

    def resizeEvent(self, event) -> None:
        old = self.delegate.geometry
        super().resizeEvent(event)
        if grid_geometry(self.width()) != old:
            self.relayout()
        self._want.start()

    # --- thumbnails for what is on screen -----------------------------------------------------------

    def visible_rows(self) -> range:
        count = self._model.rowCount()
        if count == 0:
            return range(0)
        columns = max(1, self.columns)
        pitch = self.delegate.geometry.pitch
        if self.scrolls:
            top = self.verticalScrollBar().value()
            height = self.viewport().height()
        else:  # inside a scrolling page: what of this grid the page shows
            visible = self.visibleRegion().boundingRect()
            top, height = visible.top(), visible.height() if not visible.isEmpty() else 0
        first_row = max(0, top // pitch)
        last_row = (top + height) // pitch + AHEAD_ROWS
        return range(first_row * columns, min(count, (last_row + 1) * columns))

    def _ask_visible(self) -> None:
        wanted = self._model.missing(self.visible_rows())
        if wanted:
            self.thumbnailsWanted.emit(wanted)

    def ask_visible_now(self) -> None:
        self._ask_visible()

    def ask_visible_soon(self) -> None:
        """After a scroll or resize: once things settle, ask for what became visible."""
        self._want.start()

    # --- selection and keys --------------------------------------------------------------------------

    def move_cursor(self, key: Qt.Key) -> bool:
        if key not in KEYS:
            return False
        current = self.currentIndex().row() if self.currentIndex().isValid() else -1
        if key == Qt.Key.Key_Up and 0 <= current < self.columns:
            self.leaveTop.emit()
        target = grid_step(current, KEYS[key], self.columns, self._model.rowCount())
        if target >= 0:
            self.setCurrentIndex(self._model.index(target))
        return True
