"""The All view: the first documents (with "View all →"), then every image and video.

The two sections come from two separate rankings (`Workspace.view(kind="all")`), so however many documents a
workspace has, its media are all here. The page scrolls as one; neither section scrolls on its own.
"""

from __future__ import annotations

from PySide6.QtCore import QEvent, Qt, Signal
from PySide6.QtWidgets import QHBoxLayout, QLabel, QScrollArea, QToolButton, QVBoxLayout, QWidget

from ..core.media.layout import ALL_DOC_CAP
from ..core.view import ViewResult
from .document_model import DocumentListModel
from .document_view import DocumentListView
from .media_model import MediaGridModel
from .media_view import MediaGridView


class AllView(QScrollArea):
    activatedKey = Signal(str)
    toggleRequested = Signal()
    openWindowRequested = Signal(str)
    viewAllRequested = Signal()
    thumbnailsWanted = Signal(list)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("AllView")
        self.setWidgetResizable(True)
        self.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.doc_model = DocumentListModel(self)
        self.doc_model.cap = ALL_DOC_CAP
        self.docs = DocumentListView(self.doc_model)
        self.docs.setVerticalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.media_model = MediaGridModel(self)
        self.grid = MediaGridView(self.media_model, scrolls=False)
        self.docs_title = QLabel(objectName="AllDocsTitle")
        self.view_all = QToolButton(objectName="ViewAll")
        self.view_all.clicked.connect(self.viewAllRequested)
        self.media_title = QLabel(objectName="AllMediaTitle")
        self.empty = QLabel(objectName="AllEmpty", alignment=Qt.AlignmentFlag.AlignCenter, wordWrap=True)

        docs_header = QHBoxLayout()
        docs_header.addWidget(self.docs_title, 1)
        docs_header.addWidget(self.view_all)
        page = QWidget()
        layout = QVBoxLayout(page)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(4)
        layout.addLayout(docs_header)
        layout.addWidget(self.docs)
        layout.addWidget(self.media_title)
        layout.addWidget(self.grid)
        layout.addWidget(self.empty)
        layout.addStretch(1)
        self.setWidget(page)

        for view in (self.docs, self.grid):
            view.activatedKey.connect(self._on_activated)
            view.toggleRequested.connect(self.toggleRequested)
            view.openWindowRequested.connect(self.openWindowRequested)
        self.grid.thumbnailsWanted.connect(self.thumbnailsWanted)
        self.grid.leaveTop.connect(self._to_docs)
        self.docs.installEventFilter(self)
        self.retranslate()

    # --- content -------------------------------------------------------------------------------------

    def set_result(self, result: ViewResult, now_ms: int) -> None:
        self.doc_model.set_ranked(result.docs, now_ms)
        self.media_model.set_results(result.media.rows if result.media is not None else (), now_ms)
        self._update()

    def set_filter(self, text: str) -> None:
        self.doc_model.set_filter(text)
        self.media_model.set_filter(text)
        self._update()

    def _update(self) -> None:
        rows = self.doc_model.rowCount()
        height = sum(self.docs.sizeHintForRow(i) for i in range(rows)) + 2 * self.docs.frameWidth()
        self.docs.setFixedHeight(height if rows else 0)
        self.docs.setVisible(rows > 0)
        self.docs_title.setVisible(rows > 0)
        self.view_all.setVisible(self.doc_model.matching > rows or not self.doc_model.complete)
        self.media_title.setVisible(self.media_model.rowCount() > 0)
        self.grid.setVisible(self.media_model.rowCount() > 0)
        self.empty.setVisible(rows == 0 and self.media_model.rowCount() == 0)
        self.grid.relayout()
        self.retranslate()

    def shown(self) -> int:
        return self.doc_model.rowCount() + self.media_model.rowCount()

    def count_text(self) -> str:
        total = self.doc_model.total + self.media_model.total
        if self.doc_model.needle.strip():
            hits = self.doc_model.matching + self.media_model.rowCount()
            more = "+" if not self.doc_model.complete else ""  # a filter's documents cut at the list's limit
            return self.tr("%1 / %n items", "", total).replace("%1", f"{hits}{more}")
        return self.tr("%n items", "", total)

    # --- selection -----------------------------------------------------------------------------------

    def _on_activated(self, rel: str) -> None:
        other = self.grid if self.sender() is self.docs else self.docs
        other.selectionModel().clearSelection()
        other.setCurrentIndex(other.model().index(-1, 0))
        self.activatedKey.emit(rel)

    def current_key(self) -> str:
        return self.docs.current_key() or self.grid.current_key()

    def select_key(self, rel: str) -> bool:
        return self.docs.select_key(rel) or self.grid.select_key(rel)

    def select_first(self) -> None:
        if self.doc_model.rowCount():
            self.docs.select_first()
        else:
            self.grid.select_first()

    def clearSelection(self) -> None:  # noqa: N802 (the views' Qt name, so the window can treat all alike)
        self.docs.clearSelection()
        self.grid.clearSelection()

    def _to_docs(self) -> None:
        rows = self.doc_model.document_rows()
        if rows:
            self.docs.setFocus()
            self.docs.setCurrentIndex(self.doc_model.index(rows[-1]))

    def eventFilter(self, watched, event) -> bool:
        # ↓ on the last document goes on into the media grid (keyboard reach: the shown docs plus all media)
        if watched is self.docs and event.type() == QEvent.Type.KeyPress and event.key() == Qt.Key.Key_Down:
            rows = self.doc_model.document_rows()
            if rows and self.docs.currentIndex().row() == rows[-1] and self.media_model.rowCount():
                self.grid.setFocus()
                self.grid.select_first()
                return True
        return super().eventFilter(watched, event)

    def resizeEvent(self, event) -> None:
        super().resizeEvent(event)
        self.grid.relayout()
        self.grid.ask_visible_now()

    def scrollContentsBy(self, dx: int, dy: int) -> None:
        super().scrollContentsBy(dx, dy)
        self.grid.ask_visible_soon()

    # --- words ---------------------------------------------------------------------------------------

    def changeEvent(self, event: QEvent) -> None:
        if event.type() == QEvent.Type.LanguageChange:
            self.retranslate()
        super().changeEvent(event)

    def retranslate(self) -> None:
        shown = self.doc_model.rowCount()
        matching = self.doc_model.matching_text()
        self.docs_title.setText(self.tr("Docs %1 / %2").replace("%1", str(shown)).replace("%2", matching))
        self.view_all.setText(self.tr("View all →"))
        self.media_title.setText(self.tr("Images & video %1").replace("%1", str(self.media_model.rowCount())))
        self.empty.setText(self.tr("Nothing in this workspace yet."))
