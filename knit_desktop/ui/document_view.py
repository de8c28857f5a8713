"""The document list view: keyboard behaviour of the reference panel, an empty state painted in place."""

from __future__ import annotations

from PySide6.QtCore import QModelIndex, Qt, Signal
from PySide6.QtGui import QKeyEvent, QPainter, QPalette
from PySide6.QtWidgets import QAbstractItemView, QListView

from .document_delegate import DocumentDelegate
from .document_model import DocumentListModel, RelRole


class UserCursorMixin:
    """Qt puts the cursor on the first item when a view gains focus; here only the user moves it, because moving
    it opens a preview."""

    focusing = False  # True while Qt's own focus handling moves the cursor (currentChanged ignores it)

    def focusInEvent(self, event) -> None:  # noqa: N802
        had_cursor = self.currentIndex().isValid()
        self.focusing = True
        try:
            super().focusInEvent(event)
            if not had_cursor and self.currentIndex().isValid():
                self.selectionModel().clearCurrentIndex()
        finally:
            self.focusing = False


class DocumentListView(UserCursorMixin, QListView):
    activatedRel = Signal(str)  # the current document changed (preview it)
    toggleRequested = Signal()  # Enter: open or close the preview
    openWindowRequested = Signal(str)  # double-click: a larger preview window

    def __init__(self, model: DocumentListModel, parent=None) -> None:
        super().__init__(parent)
        self.setObjectName("DocumentList")
        self.setModel(model)
        self.setItemDelegate(DocumentDelegate(model, self))
        self.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.setVerticalScrollMode(QAbstractItemView.ScrollMode.ScrollPerPixel)
        self.setUniformItemSizes(False)
        # Lay thousands of rows out in slices between events, so a re-rank never stalls the window.
        self.setLayoutMode(QListView.LayoutMode.Batched)
        self.setBatchSize(200)
        self.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.setResizeMode(QListView.ResizeMode.Adjust)
        self.setMouseTracking(True)
        self.setFocusPolicy(Qt.FocusPolicy.StrongFocus)
        self.empty_text = ""
        self._model = model
        self.doubleClicked.connect(lambda index: self.openWindowRequested.emit(index.data(RelRole) or ""))

    def current_rel(self) -> str:
        index = self.currentIndex()
        return index.data(RelRole) if index.isValid() else ""

    def select_rel(self, rel: str) -> bool:
        row = self._model.row_of(rel)
        if row < 0:
            return False
        self.setCurrentIndex(self._model.index(row))
        return True

    def select_first(self) -> None:
        rows = self._model.document_rows()
        if rows:
            self.setCurrentIndex(self._model.index(rows[0]))

    def currentChanged(self, current: QModelIndex, previous: QModelIndex) -> None:
        super().currentChanged(current, previous)
        rel = current.data(RelRole) if current.isValid() else ""
        if rel and not self.focusing:
            self.scrollTo(current)
            self.activatedRel.emit(rel)

    def keyPressEvent(self, event: QKeyEvent) -> None:
        key = event.key()
        rows = self._model.document_rows()
        if key in (Qt.Key.Key_Return, Qt.Key.Key_Enter):
            if not self.currentIndex().isValid():
                self.select_first()
            self.toggleRequested.emit()
            return
        if key in (Qt.Key.Key_Up, Qt.Key.Key_Down, Qt.Key.Key_Home, Qt.Key.Key_End) and rows:
            current = self.currentIndex().row()
            if key == Qt.Key.Key_Home:
                target = rows[0]
            elif key == Qt.Key.Key_End:
                target = rows[-1]
            elif current not in rows:
                target = rows[0]
            else:
                i = rows.index(current) + (1 if key == Qt.Key.Key_Down else -1)
                target = rows[min(max(i, 0), len(rows) - 1)]  # stop at the ends, no wrap; headers are skipped
            self.setCurrentIndex(self._model.index(target))
            return
        super().keyPressEvent(event)

    def paintEvent(self, event) -> None:
        super().paintEvent(event)
        if self._model.rowCount() == 0 and self.empty_text:
            painter = QPainter(self.viewport())
            color = self.palette().color(QPalette.ColorRole.Text)
            color.setAlphaF(0.6)
            painter.setPen(color)
            rect = self.viewport().rect().adjusted(16, 16, -16, -16)
            painter.drawText(rect, Qt.AlignmentFlag.AlignHCenter | Qt.AlignmentFlag.AlignTop | Qt.TextFlag.TextWordWrap,
                             self.empty_text)
            painter.end()  # before the backing store flushes, whatever holds on to this frame
