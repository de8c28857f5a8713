"""The document list view: one painted column, ↑/↓ skipping the tier headers, Home/End, no wrap."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QListView

from .document_delegate import DocumentDelegate
from .document_model import DocumentListModel
from .item_view import ItemView


class DocumentListView(ItemView):
    def __init__(self, model: DocumentListModel, parent=None) -> None:
        super().__init__(model, parent)
        self.setObjectName("DocumentList")
        self.setItemDelegate(DocumentDelegate(model, self))
        self.setUniformItemSizes(False)
        # Lay thousands of rows out in slices between events, so a re-rank never stalls the window.
        self.setLayoutMode(QListView.LayoutMode.Batched)
        self.setBatchSize(200)

    def selectable_rows(self) -> list[int]:
        return self._model.document_rows()

    def move_cursor(self, key: Qt.Key) -> bool:
        rows = self.selectable_rows()
        if key not in (Qt.Key.Key_Up, Qt.Key.Key_Down, Qt.Key.Key_Home, Qt.Key.Key_End) or not rows:
            return False
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
        return True
