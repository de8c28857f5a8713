"""The media grid as a Qt model: the ranked images and videos, each with its thumbnail once it has arrived."""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import QAbstractListModel, QCoreApplication, QModelIndex, QPersistentModelIndex, Qt

from ..core.media.layout import duration_text
from ..core.view import ViewRow, matches_filter
from .document_model import KeyRole
from .media_preview import video_unavailable_text
from .wording import is_new, problem_text, relative_time_text

MediaRole = Qt.ItemDataRole.UserRole + 3  # the ViewRow
ThumbRole = Qt.ItemDataRole.UserRole + 4  # the Thumbnail, or None while it is on its way


class MediaGridModel(QAbstractListModel):
    def __init__(self, parent=None) -> None:
        super().__init__(parent)
        self.results: list[ViewRow] = []
        self.items: list[ViewRow] = []
        self.needle = ""
        self.now_ms = 0
        self.total = 0
        self._thumbs: dict[tuple[str, int], object] = {}  # (rel, mtime_ms) -> Thumbnail
        # Thumbnails that arrived while their file was not listed here (another view asked; the service answers
        # each file version once): adopted when the file is listed, else the grid would wait for them for good.
        self._arrived: dict[str, object] = {}

    # --- inputs --------------------------------------------------------------------------------------

    def set_results(self, results: tuple[ViewRow, ...] | list[ViewRow], now_ms: int) -> None:
        self.results = [r for r in results if r.kind in ("image", "video")]
        self.now_ms = now_ms
        self.total = len(self.results)
        self._rebuild()

    def set_filter(self, text: str) -> None:
        if text != self.needle:
            self.needle = text
            self._rebuild()

    def _rebuild(self) -> None:
        needle = self.needle.strip().lower()
        self.beginResetModel()
        self.items = [r for r in self.results if not needle or matches_filter(r, needle)]
        for item in self.items:
            arrived = self._arrived.pop(item.rel, None)
            if arrived is not None:
                self._thumbs.setdefault((item.rel, item.mtime_ms), arrived)
        self.endResetModel()

    def set_thumbnail(self, thumb) -> None:
        """A thumbnail arrived (for the file version this model lists, or an older one: then it is dropped)."""
        for row, item in enumerate(self.items):
            if item.rel == thumb.rel:
                self._thumbs[(item.rel, item.mtime_ms)] = thumb
                index = self.index(row)
                self.dataChanged.emit(index, index, [ThumbRole])
                return
        self._arrived[thumb.rel] = thumb

    # --- queries -------------------------------------------------------------------------------------

    def thumbnail(self, row: int) -> Any:  # a services.thumbnails.Thumbnail, or None
        item = self.items[row]
        return self._thumbs.get((item.rel, item.mtime_ms))

    def missing(self, rows: range) -> list[tuple[str, str, int, str]]:
        """(rel, kind, mtime_ms, library folder or '') of the rows in `rows` with no thumbnail for their current
        version yet."""
        out = []
        for row in rows:
            if 0 <= row < len(self.items) and self.thumbnail(row) is None:
                item = self.items[row]
                out.append((item.rel, item.kind, item.mtime_ms, item.root))
        return out

    def row_of(self, key: str) -> int:
        return next((i for i, r in enumerate(self.items) if r.key == key), -1)

    def count_text(self) -> str:
        total = self.total
        if self.needle.strip():
            return self.tr("%1 / %n media", "", total).replace("%1", str(len(self.items)))
        return self.tr("%n media", "", total)

    # --- QAbstractListModel --------------------------------------------------------------------------

    def rowCount(self, parent: QModelIndex | QPersistentModelIndex = QModelIndex()) -> int:  # noqa: B008
        return 0 if parent.isValid() else len(self.items)

    def flags(self, index: QModelIndex | QPersistentModelIndex) -> Qt.ItemFlag:
        if not index.isValid():
            return Qt.ItemFlag.NoItemFlags
        return Qt.ItemFlag.ItemIsEnabled | Qt.ItemFlag.ItemIsSelectable

    def data(self, index: QModelIndex | QPersistentModelIndex, role: int = Qt.ItemDataRole.DisplayRole):
        if not index.isValid() or index.row() >= len(self.items):
            return None
        item = self.items[index.row()]
        if role == KeyRole:
            return item.key
        if role == MediaRole:
            return item
        if role == ThumbRole:
            return self.thumbnail(index.row())
        if role in (Qt.ItemDataRole.DisplayRole, Qt.ItemDataRole.AccessibleTextRole):
            return self.accessible_name(index.row())
        if role == Qt.ItemDataRole.ToolTipRole:
            thumb = self.thumbnail(index.row())
            problem = problem_text(getattr(thumb, "problem", ""))
            if getattr(thumb, "needs_multimedia", False):
                problem = video_unavailable_text()
            tip = item.rel
            if problem:
                tip += "\n" + QCoreApplication.translate("MediaGrid", "Cannot show it: %1").replace("%1", problem)
            return tip
        return None

    def accessible_name(self, row: int) -> str:
        item = self.items[row]
        parts = [item.rel.rsplit("/", 1)[-1]]
        if item.kind == "video":
            thumb = self.thumbnail(row)
            parts.append(QCoreApplication.translate("MediaGrid", "video"))
            if thumb is not None and getattr(thumb, "duration_ms", None):
                parts.append(duration_text(thumb.duration_ms))
        else:
            parts.append(QCoreApplication.translate("MediaGrid", "image"))
        parts.append(relative_time_text(item.mtime_ms, self.now_ms))
        if is_new(item.mtime_ms, self.now_ms):
            parts.append(QCoreApplication.translate("DocumentList", "new"))
        return ", ".join(parts)
