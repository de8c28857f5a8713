"""The preview under the list: which document it shows (with the passage the ranking matched), the list/preview
split and its remembered ratio, full screen, and the separate preview windows opened by a double click."""

from __future__ import annotations

import os
from collections.abc import Callable

from PySide6.QtCore import QObject, Qt, Signal
from PySide6.QtWidgets import QSplitter, QVBoxLayout, QWidget

from ..core.index.documents import kind_for_name
from ..core.rank.passages import Passage
from ..core.view import ViewResult
from .preview import PreviewPane
from .screen_fit import fitted_size
from .settings import Settings, clamp_ratio


class PreviewController(QObject):
    fullscreenChanged = Signal(bool)  # the pane asked for full screen (True) or back (False)
    closed = Signal()  # the pane was closed: the list takes the focus back

    def __init__(self, ranking, settings: Settings, views: QWidget, *, images=None,
                 root: Callable[[], str], result: Callable[[], ViewResult | None], parent: QObject | None = None) -> None:
        """`root` and `result` give the workspace and the result shown now; `views` is what the pane shares the
        splitter with."""
        super().__init__(parent)
        self.ranking = ranking
        self.settings = settings
        self.images = images
        self._root = root
        self._result = result
        self.windows: list[QWidget] = []
        self.pane = PreviewPane(ranking, images=images)
        self.pane.hide()
        self.splitter = QSplitter(Qt.Orientation.Vertical)
        self.splitter.setObjectName("ListPreviewSplitter")
        self.splitter.setChildrenCollapsible(False)
        self.splitter.addWidget(views)
        self.splitter.addWidget(self.pane)
        self.splitter.splitterMoved.connect(self._on_splitter_moved)
        self.pane.closed.connect(self.close)
        self.pane.fullscreenToggled.connect(self.fullscreenChanged)

    # --- what is shown -------------------------------------------------------------------------------

    def located(self, key: str) -> tuple[str, str, str, tuple[Passage, ...]]:
        """(folder, relative path, kind, matched passages) of the document under a listing key, from the result
        shown; a key the list does not show is a workspace path, or an absolute path in a library folder."""
        result = self._result()
        row = result.find(key) if result is not None else None
        if row is not None:
            return row.root or self._root(), row.rel, row.kind, row.passages
        root, rel = self._root(), key
        if os.path.isabs(key):
            root, rel = next(((folder, os.path.relpath(key, folder).replace(os.sep, "/"))
                              for folder in (self._root(), *self.settings.library_folders)
                              if folder and key.startswith(os.path.join(folder, ""))), ("", key))
        return root, rel, kind_for_name(rel.rsplit("/", 1)[-1]) or "txt", ()

    def listing_key_of(self, path: str) -> str:
        """The listing key of a document named by its absolute path (a followed link): a workspace document's is
        its relative path, a library folder's the path itself."""
        root = self._root()
        if os.path.isabs(path) and root and path.startswith(os.path.join(root, "")):
            return os.path.relpath(path, root).replace(os.sep, "/")
        return path

    def show_listed(self, key: str) -> None:
        """Preview a document of the list (scrolled to its matched passage) or one the tray or a link names."""
        root, rel, kind, passages = self.located(key)
        if root:
            self.show(rel, kind, passages, root)

    def show(self, rel: str, kind: str, passages: tuple[Passage, ...], root: str = "") -> None:
        first = not self.pane.isVisible()
        self.pane.show()
        self.pane.show_document(root or self._root(), rel, kind, passages)
        if first:
            self.apply_ratio(self.settings.preview_ratio)

    def is_visible(self) -> bool:
        return self.pane.isVisible()

    def close(self) -> None:
        if self.pane.fullscreen:
            self.pane.set_fullscreen(False)
        self.pane.hide()
        self.closed.emit()

    # --- the split -----------------------------------------------------------------------------------

    def apply_ratio(self, ratio: float) -> None:
        total = max(1, sum(self.splitter.sizes()) or self.splitter.height())
        preview = int(total * clamp_ratio(ratio))
        self.splitter.setSizes([total - preview, preview])

    def ratio(self) -> float:
        sizes = self.splitter.sizes()
        return sizes[1] / max(1, sum(sizes)) if len(sizes) == 2 else self.settings.preview_ratio

    def _on_splitter_moved(self, _pos: int, _index: int) -> None:
        ratio = self.ratio()
        clamped = clamp_ratio(ratio)
        if abs(clamped - ratio) > 1e-3:
            self.apply_ratio(clamped)
        self.settings.preview_ratio = clamped

    # --- separate windows ----------------------------------------------------------------------------

    def open_window(self, key: str) -> None:
        if not key:
            return
        root, rel, kind, passages = self.located(key)
        window = QWidget(None, Qt.WindowType.Window)
        window.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        window.setWindowTitle(rel)
        pane = PreviewPane(self.ranking, window, images=self.images)
        pane.close_button.hide()
        pane.closed.connect(window.close)
        pane.fullscreenToggled.connect(lambda on: window.showFullScreen() if on else window.showNormal())
        pane.documentRequested.connect(lambda path: pane.show_document(*self.located(path)[:3]))
        layout = QVBoxLayout(window)
        layout.setContentsMargins(0, 0, 0, 0)  # the pane is the window
        layout.setSpacing(0)
        layout.addWidget(pane)
        pane.show_document(root, rel, kind, passages)
        window.resize(fitted_size(window.screen(), 900, 1000))  # its bottom on screen, frame included
        window.show()
        self.windows.append(window)
        window.destroyed.connect(lambda *_: self.windows.remove(window) if window in self.windows else None)

    def close_windows(self) -> None:
        for window in list(self.windows):
            window.close()
