"""What the document list and the media grid share: the cursor only the user moves (moving it previews), Enter
toggling the preview, double-click opening a larger window, selection by path, an empty state painted in place."""

from __future__ import annotations

from PySide6.QtCore import QModelIndex, QPersistentModelIndex, QPoint, Qt, Signal
from PySide6.QtGui import QContextMenuEvent, QDrag, QKeyEvent, QMouseEvent, QPainter
from PySide6.QtWidgets import QAbstractItemView, QApplication, QListView

from .colours import empty_text
from .document_model import KeyRole, RowRole
from .item_actions import ItemActions
from .media_model import MediaRole


class ItemView(QListView):
    activatedKey = Signal(str)  # the current item changed (preview it)
    toggleRequested = Signal()  # Enter: open or close the preview
    openWindowRequested = Signal(str)  # double-click: a larger preview window

    def __init__(self, model, parent=None) -> None:
        super().__init__(parent)
        self._model = model
        self.setModel(model)
        self.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.setVerticalScrollMode(QAbstractItemView.ScrollMode.ScrollPerPixel)
        self.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.setResizeMode(QListView.ResizeMode.Adjust)
        self.setMouseTracking(True)
        self.setFocusPolicy(Qt.FocusPolicy.StrongFocus)
        self.empty_text = ""
        self.focusing = False  # True while Qt's own focus handling moves the cursor (currentChanged ignores it)
        self.doubleClicked.connect(lambda index: self.openWindowRequested.emit(index.data(KeyRole) or ""))
        self.item_actions: ItemActions | None = None  # the window's: the right-click menu, what a drag carries
        self._press: tuple[QPoint, str] | None = None  # where a left press started, on which item

    def item_title(self, index: QModelIndex) -> str:
        """The item's title for a Markdown link: the document's title, else the file name."""
        rel = index.data(KeyRole) or ""
        row = index.data(RowRole)  # a document Row
        item = getattr(row, "item", None) or index.data(MediaRole)  # or a media ViewRow
        return getattr(item, "title", "") or rel.rsplit("/", 1)[-1]

    # --- right-click menu and drag out ---------------------------------------------------------------

    def contextMenuEvent(self, event: QContextMenuEvent) -> None:
        index = self.indexAt(event.pos())
        rel = index.data(KeyRole) if index.isValid() else ""
        if not rel or self.item_actions is None:
            super().contextMenuEvent(event)
            return
        self.setCurrentIndex(index)  # the row the menu is about is the one that looks chosen
        menu = self.item_actions.menu(rel, self.item_title(index), self)
        menu.exec(event.globalPos())
        menu.deleteLater()

    def mousePressEvent(self, event: QMouseEvent) -> None:
        index = self.indexAt(event.position().toPoint())
        rel = index.data(KeyRole) if index.isValid() else ""
        self._press = (event.position().toPoint(), rel) if event.button() == Qt.MouseButton.LeftButton and rel else None
        super().mousePressEvent(event)

    def mouseMoveEvent(self, event: QMouseEvent) -> None:
        press = self._press
        if (press is not None and event.buttons() & Qt.MouseButton.LeftButton and self.item_actions is not None
                and (event.position().toPoint() - press[0]).manhattanLength() >= QApplication.startDragDistance()):
            self._press = None
            self.drag_out(press[1])
            return
        super().mouseMoveEvent(event)

    def mouseReleaseEvent(self, event: QMouseEvent) -> None:
        self._press = None
        super().mouseReleaseEvent(event)

    def drag_out(self, rel: str) -> None:
        """Carry the file to another app: a file manager or editor gets the file, a chat box its path."""
        if self.item_actions is None:
            return
        mime = self.item_actions.mime(rel)
        if not mime.hasUrls():
            return
        drag = QDrag(self)
        drag.setMimeData(mime)
        drag.exec(Qt.DropAction.CopyAction | Qt.DropAction.LinkAction, Qt.DropAction.CopyAction)

    # --- selection -----------------------------------------------------------------------------------

    def selectable_rows(self) -> list[int]:
        return list(range(self._model.rowCount()))

    def current_key(self) -> str:
        index = self.currentIndex()
        return index.data(KeyRole) if index.isValid() else ""

    def select_key(self, rel: str) -> bool:
        row = self._model.row_of(rel)
        if row < 0:
            return False
        self.setCurrentIndex(self._model.index(row))
        return True

    def select_first(self) -> None:
        rows = self.selectable_rows()
        if rows:
            self.setCurrentIndex(self._model.index(rows[0]))

    def focusInEvent(self, event) -> None:
        # Qt puts the cursor on the first item when a view gains focus; here only the user moves it, because
        # moving it opens a preview.
        had_cursor = self.currentIndex().isValid()
        self.focusing = True
        try:
            super().focusInEvent(event)
            if not had_cursor and self.currentIndex().isValid():
                self.selectionModel().clearCurrentIndex()
        finally:
            self.focusing = False

    def currentChanged(self, current: QModelIndex | QPersistentModelIndex,
                       previous: QModelIndex | QPersistentModelIndex) -> None:
        super().currentChanged(current, previous)
        rel = current.data(KeyRole) if current.isValid() else ""
        if rel and not self.focusing:
            self.scrollTo(current)
            self.activatedKey.emit(rel)

    # --- keys ----------------------------------------------------------------------------------------

    def move_cursor(self, key: Qt.Key) -> bool:
        """Subclasses move the cursor for their arrow keys; True when the key was theirs."""
        return False

    def keyPressEvent(self, event: QKeyEvent) -> None:
        if event.key() in (Qt.Key.Key_Return, Qt.Key.Key_Enter):
            if not self.currentIndex().isValid():
                self.select_first()
            self.toggleRequested.emit()
            return
        if self.move_cursor(event.key()):  # type: ignore[arg-type]  # a Qt.Key, typed as int
            return
        super().keyPressEvent(event)

    # --- empty state ---------------------------------------------------------------------------------

    def paintEvent(self, event) -> None:
        super().paintEvent(event)
        if self._model.rowCount() == 0 and self.empty_text:
            painter = QPainter(self.viewport())
            painter.setPen(empty_text(self.palette()))
            painter.drawText(self.viewport().rect().adjusted(16, 16, -16, -16),
                             Qt.AlignmentFlag.AlignHCenter | Qt.AlignmentFlag.AlignTop | Qt.TextFlag.TextWordWrap,
                             self.empty_text)
            painter.end()  # before the backing store flushes, whatever holds on to this frame
