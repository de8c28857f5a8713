"""The companion window: it assembles the header bar, the list views (documents, media grid, All), the preview
controller and the status line, routes the ranking's results to the views and the keys between the parts."""

from __future__ import annotations

import time

from PySide6.QtCore import QEvent, QModelIndex, QSignalBlocker, QSize, Qt, QTimer, Signal
from PySide6.QtGui import QCloseEvent, QGuiApplication, QKeySequence, QShortcut
from PySide6.QtWidgets import QMainWindow, QStackedWidget, QVBoxLayout, QWidget

from ..core.config import LIBRARY_FOLDERS
from ..core.view import ViewResult
from .all_view import AllView
from .document_model import DocumentListModel
from .document_view import DocumentListView
from .folder_drop import FolderDrop
from .header_bar import HeaderBar
from .hidden_footer import HiddenFooter
from .history_view import RecallStrip
from .item_actions import ItemActions
from .media_model import MediaGridModel
from .media_view import MediaGridView
from .metrics import XS, S
from .newcomer import NewcomerPanel
from .preview_controller import PreviewController
from .screen_fit import fitted_size
from .settings import Settings
from .status_line import StatusLine
from .wording import topic_line


def now_ms() -> int:
    return int(time.time() * 1000)


def default_size(screen) -> QSize:
    """440 × 760, or less where the screen's available area is smaller: the whole window, frame included, on screen."""
    return fitted_size(screen, 440, 760)


class MainWindow(QMainWindow):
    quitRequested = Signal()
    settingsRequested = Signal()
    memoryRequested = Signal()
    historyRequested = Signal()
    firstListShown = Signal()

    def __init__(self, ranking, settings: Settings, clock=now_ms, fixed_conversation: str = "",
                 parent: QWidget | None = None, images=None) -> None:
        """`images` is the ThumbnailService (thumbnails and image previews, off the GUI thread)."""
        super().__init__(parent)
        self.images = images
        self.setObjectName("KnitMainWindow")
        self.ranking = ranking
        self.settings = settings
        self.clock = clock
        self.result: ViewResult | None = None
        self.root = ""
        self._shown_first = False

        self.model = DocumentListModel(self)
        self.list = DocumentListView(self.model)
        self.grid_model = MediaGridModel(self)
        self.grid = MediaGridView(self.grid_model)
        self.all_view = AllView()
        self.views = QStackedWidget(objectName="Views")
        for view in (self.list, self.grid, self.all_view):
            self.views.addWidget(view)
        self.previews = PreviewController(ranking, settings, self.views, images=images, root=lambda: self.root,
                                          result=lambda: self.result, parent=self)
        self.preview, self.splitter = self.previews.pane, self.previews.splitter
        self.header = HeaderBar(ranking, settings, clock, fixed_conversation)
        self.status_line = StatusLine(settings)

        central = QWidget()
        layout = QVBoxLayout(central)
        layout.setContentsMargins(S, S, S, XS)
        layout.setSpacing(S)
        layout.addWidget(self.header)
        layout.addWidget(self.splitter, 1)
        self.recall_strip = RecallStrip()  # "From earlier conversations" (issue 18), hidden until something is recalled
        layout.addWidget(self.recall_strip)
        self.newcomer = NewcomerPanel()  # in the list's place until there is a workspace
        self.newcomer.folderChosen.connect(lambda folder: setattr(self.settings, "workspace", folder))
        self.newcomer.demoRequested.connect(self.open_demo)
        layout.addWidget(self.newcomer, 1)
        waiting = bool(getattr(ranking, "pinned_workspace", None))  # a folder is on its way: no newcomer flash
        self.newcomer.setVisible(not waiting)
        self.splitter.setVisible(waiting)
        self.folder_drop = FolderDrop(self, settings, ranking)
        self.item_actions = ItemActions(self)  # right-click menu, drag out, pins: one for every list and grid
        for view in (self.list, self.grid, self.all_view.docs, self.all_view.grid):
            view.item_actions = self.item_actions
        self.item_actions.locate = self.locate
        self.item_actions.previewRequested.connect(self.show_document)
        self.item_actions.pinsChanged.connect(self.ranking.rerank)
        self.item_actions.notice.connect(self.show_notice)
        self.preview.notice.connect(self.show_notice)
        self.hidden_footer = HiddenFooter(self.item_actions)
        layout.addWidget(self.hidden_footer)
        layout.addWidget(self.status_line)
        self.setCentralWidget(central)

        header = self.header
        self.addAction(header.action_refresh)  # its shortcut works anywhere in the window
        header.refreshRequested.connect(self.refresh)
        header.dockRequested.connect(self.dock)
        header.settingsRequested.connect(self.settingsRequested)
        header.memoryRequested.connect(self.memoryRequested)
        header.historyRequested.connect(self.historyRequested)
        header.quitRequested.connect(self.quitRequested)
        header.filterChanged.connect(self._on_filter)
        header.chooseFolderRequested.connect(self.newcomer.choose_folder)
        header.filter_box.installEventFilter(self)
        QShortcut(QKeySequence.StandardKey.Find, self, header.filter_box.setFocus)

        for view in (self.list, self.grid, self.all_view):
            view.activatedKey.connect(self.previews.show_listed)
            view.toggleRequested.connect(self._toggle_preview)
            view.openWindowRequested.connect(self.open_preview_window)
        for view in (self.grid, self.all_view):
            view.thumbnailsWanted.connect(self._want_thumbnails)
        self.all_view.viewAllRequested.connect(lambda: setattr(self.settings, "kind", "doc"))
        if images is not None:
            images.thumbnailReady.connect(self.grid_model.set_thumbnail)
            images.thumbnailReady.connect(self.all_view.media_model.set_thumbnail)
            images.thumbnailReady.connect(self._on_thumbnail)
        self.previews.closed.connect(lambda: self.active_view().setFocus())
        self.previews.fullscreenChanged.connect(self._on_fullscreen)
        self.preview.documentRequested.connect(lambda path: self.show_document(self.previews.listing_key_of(path)))

        status = self.status_line
        ranking.rankingChanged.connect(self.set_result)
        ranking.workspaceChanged.connect(self._on_workspace)
        ranking.indexProgress.connect(lambda done, total, _rel: status.update_status(progress=(done, total)))
        ranking.indexOpened.connect(lambda _r: status.update_status(progress=(0, 0)))
        ranking.watchModeChanged.connect(lambda mode, _detail: status.update_status(watch=mode))
        ranking.failed.connect(lambda code, detail: status.update_status(failed=(code, detail)))
        ranking.errored.connect(lambda _token, message: status.update_status(error=message))
        if images is not None:
            images.errored.connect(lambda _token, message: status.update_status(error=message))
        settings.changed.connect(self._on_setting)

        self._tick = QTimer(self)  # relative times and the 🆕 mark age while the window is open
        self._tick.setInterval(30_000)
        self._tick.timeout.connect(lambda: self.active_view().viewport().update())
        self._tick.start()
        self._restore()
        self.retranslate()

    # --- the parts, as tests and the application reach them ------------------------------------------

    @property
    def filter_box(self):
        return self.header.filter_box

    @property
    def topic_box(self):
        return self.header.topic_box

    @property
    def topic_label(self):
        return self.header.topic_label

    @property
    def count_label(self):
        return self.header.count_label

    @property
    def relevance_button(self):
        return self.header.relevance_button

    @property
    def time_button(self):
        return self.header.time_button

    @property
    def kind_tabs(self):
        return self.header.kind_tabs

    @property
    def session_picker(self):
        return self.header.session_picker

    @property
    def menu_button(self):
        return self.header.menu_button

    @property
    def menu(self):
        return self.header.menu

    @property
    def action_top(self):
        return self.header.action_top

    @property
    def action_history(self):
        return self.header.action_history

    @property
    def status_label(self) -> StatusLine:
        return self.status_line

    @property
    def _preview_windows(self) -> list:
        return self.previews.windows

    def _restore(self) -> None:
        geometry = self.settings.geometry
        if geometry is None or not self.restoreGeometry(geometry):
            self.resize(default_size(self.screen() or QGuiApplication.primaryScreen()))
        self._apply_on_top()
        self.header.restore()
        self.ranking.set_view(self.settings.kind, self.settings.sort)
        self._apply_library()

    def _apply_library(self) -> None:
        """The library folders and the Workspace / Library / Both switch, from the settings, to the ranking."""
        folders = self.settings.library_folders
        self.header.set_library_available(bool(folders))
        self.ranking.set_scope(self.settings.scope)
        self.ranking.set_library(folders)

    def locate(self, key: str) -> tuple[str, str]:
        """(folder, relative path) of a listed document: a library folder's own, else the workspace's (a key the
        list does not show is a workspace path)."""
        row = self.result.find(key) if self.result is not None else None
        return (row.root or self.root, row.rel) if row is not None else (self.root, key)

    # --- ranking results -----------------------------------------------------------------------------

    def active_view(self):
        return self.views.currentWidget()

    def set_result(self, result: ViewResult) -> None:
        keep = self.active_view().current_key()
        previous_topic = self.result.docs.topic if self.result is not None else None
        self.result = result
        now = self.clock()
        if result.kind == "media":
            self.grid_model.set_results(result.docs.rows, now)
            self.views.setCurrentWidget(self.grid)
        elif result.kind == "all":
            self.all_view.set_result(result, now)
            self.views.setCurrentWidget(self.all_view)
        else:
            self.model.set_ranked(result.docs, now)
            self.views.setCurrentWidget(self.list)
        view = self.active_view()
        if keep:
            # The row that was current is current again, quietly: its document is what the preview shows already,
            # and showing it again with every ranking stopped a video at 0:00 and scrolled a page back to its top.
            with QSignalBlocker(view):
                kept = view.select_key(keep)
            if not kept and self.previews.is_visible():
                view.clearSelection()
        if previous_topic is not None and result.docs.topic != previous_topic:
            view.scrollToTop()  # a new topic: its new top results in view; the selection stays where it is
        self._update_texts()
        if not self._shown_first:
            self._shown_first = True
            self.firstListShown.emit()

    def _update_texts(self) -> None:
        relevance = self.result is not None and self.result.mode == "relevance"
        self.header.show_order(self.result.mode if self.result is not None else self.settings.sort)
        self.setWindowTitle(self.tr("Knit — documents by relevance") if relevance else self.tr("Knit — recent documents"))
        if self.result is not None:
            text, tip = topic_line(self.result.docs, self.settings.sort)
            self.topic_label.setText(text)
            self.topic_label.setToolTip(tip)
            self.count_label.setText(self._count_text())
        else:
            self.topic_label.setText(self.tr("Scanning the workspace…") if self.root else "")
            self.count_label.setText("")
        self.list.empty_text = self.grid.empty_text = self._empty_text()
        self.active_view().viewport().update()
        self.status_line.set_usage(self.result.usage if self.result is not None else None)

    def _count_text(self) -> str:
        view = self.active_view()
        if view is self.grid:
            return self.grid_model.count_text()
        if view is self.all_view:
            return self.all_view.count_text()
        return self.model.count_text()

    def _want_thumbnails(self, items: list) -> None:
        if self.images is None or not self.root:
            return
        by_folder: dict[str, list] = {}
        for rel, kind, mtime_ms, folder in items:  # a library folder's images are read from that folder
            by_folder.setdefault(folder or self.root, []).append((rel, kind, mtime_ms))
        for folder, wanted in sorted(by_folder.items(), key=lambda fw: fw[0] != self.root):
            self.images.request(folder, wanted)

    def _empty_text(self) -> str:
        if not self.root:
            return self.tr("No workspace yet — start a DSH session, or choose a folder in Settings.")
        if self.result is None:
            return self.tr("Scanning the workspace…")
        if self.filter_box.text().strip() and (self.model.total or self.grid_model.total):
            return self.tr("No documents match “%1”.").replace("%1", self.filter_box.text().strip())
        if self.settings.kind == "media":
            return self.tr("No images or videos in this workspace yet.")
        return self.tr("No Markdown documents in this workspace yet.")

    # --- reactions -----------------------------------------------------------------------------------

    def _on_workspace(self, root: str) -> None:
        self.root = root
        self.splitter.setVisible(bool(root))
        self.newcomer.setVisible(not root)
        self.item_actions.set_root(root)
        self.hidden_footer.update_count()
        self.status_line.clear_workspace_problems()
        self.result = None
        self.model.set_ranked(None, self.clock())
        self.grid_model.set_results([], self.clock())
        self.close_preview()
        self.header.set_workspace(root)
        self._update_texts()

    def show_notice(self, text: str) -> None:
        """A passing message in the status line (an app that cannot be opened, …), gone after a while."""
        self.status_line.show_notice(text)

    def show_memory_warning(self, text: str) -> None:
        """A problem with the memory proposal queue (a damaged queue file set aside), in the status line."""
        self.status_line.update_status(memory=text)

    def _on_filter(self, text: str) -> None:
        view = self.active_view()
        keep = view.current_key()
        self.model.set_filter(text)
        self.grid_model.set_filter(text)
        self.all_view.set_filter(text)
        self.ranking.set_filter(text)  # a list cut at its first rows is ranked again with the filter
        if keep and not view.select_key(keep):
            view.select_first()  # the cursor was filtered out: move to the first item
        self._update_texts()

    def _on_setting(self, key: str) -> None:
        if key in ("list/sort", "list/kind"):
            self.ranking.set_view(self.settings.kind, self.settings.sort)
        elif key == "list/scope":
            self.header.show_scope(self.settings.scope)
            self.ranking.set_scope(self.settings.scope)
        elif key == LIBRARY_FOLDERS:
            self._apply_library()
        elif key == "window/always_on_top":
            self._apply_on_top()
        elif key == "list/show_usage":
            self.status_line.refresh()

    def _apply_on_top(self) -> None:
        on = self.settings.always_on_top
        self.header.set_on_top(on)
        if bool(self.windowFlags() & Qt.WindowType.WindowStaysOnTopHint) != on:
            visible = self.isVisible()
            self.setWindowFlag(Qt.WindowType.WindowStaysOnTopHint, on)
            if visible:
                self.show()

    def refresh(self) -> None:
        self.ranking.refresh()
        self.ranking.rerank()

    # --- preview -------------------------------------------------------------------------------------

    def show_document(self, key: str) -> None:
        """Preview any document (a followed link, a citation, the tray: a listing key): select it when listed."""
        view = self.active_view()
        if not view.select_key(key):
            # Not listed: no row stays current either, or the next ranking would select that row again and its
            # preview would replace this document (a video stopped while it was being watched).
            view.clearSelection()
            view.selectionModel().clearCurrentIndex()
            self.previews.show_listed(key)

    def _on_thumbnail(self, thumb) -> None:
        """A video's poster that Qt Multimedia could not make: the status line says why from now on (Qt
        Multimedia is first asked for by a video, not at start, and the status line only reads the answer)."""
        if getattr(thumb, "needs_multimedia", False):
            self.status_line.refresh()

    def _toggle_preview(self) -> None:
        if self.previews.is_visible():
            self.close_preview()
        elif self.active_view().current_key():
            self.previews.show_listed(self.active_view().current_key())

    def close_preview(self) -> None:
        self.previews.close()

    def preview_ratio(self) -> float:
        return self.previews.ratio()

    def open_preview_window(self, key: str) -> None:
        self.previews.open_window(key)

    def _on_fullscreen(self, on: bool) -> None:
        self.header.setVisible(not on)
        self.views.setVisible(not on)
        if on:
            self._was_maximized = self.isMaximized()
            self.showFullScreen()
        else:
            self.showMaximized() if getattr(self, "_was_maximized", False) else self.showNormal()
            self.active_view().setFocus()

    # --- window placement ----------------------------------------------------------------------------

    def dock(self, edge: str) -> None:
        """Stand at the left or right screen edge at the full available height, frame and title bar included."""
        screen = self.screen() or QGuiApplication.primaryScreen()
        area = screen.availableGeometry()
        inner, outer = self.geometry(), self.frameGeometry()
        left, top = inner.left() - outer.left(), inner.top() - outer.top()
        right, bottom = outer.right() - inner.right(), outer.bottom() - inner.bottom()
        width = min(self.width(), area.width() // 2 - left - right)
        width = max(width, self.minimumWidth(), self.minimumSizeHint().width())  # what Qt would make of it anyway
        x = area.left() + left if edge == "left" else area.right() - right - width + 1
        self.setGeometry(x, area.top() + top, width, area.height() - top - bottom)

    def open_workspace_folder(self) -> None:
        self.header.open_workspace_folder()

    def open_demo(self) -> None:
        """The bundled demo workspace and conversation, as `--demo` opens them."""
        from ..core.dsh.conversation import load_messages
        from ..demo import prepare_demo_workspace
        from ..resources import demo_conversation

        self.ranking.pin_workspace(str(prepare_demo_workspace()))
        self.ranking.set_messages(load_messages(str(demo_conversation())))

    # --- events --------------------------------------------------------------------------------------

    def eventFilter(self, watched, event) -> bool:
        filter_box = self.header.filter_box
        if (watched is filter_box and event.type() == QEvent.Type.ShortcutOverride
                and event.key() == Qt.Key.Key_Escape and filter_box.text()):
            event.accept()  # Esc clears the filter before it can close the preview
            return True
        if watched is filter_box and event.type() == QEvent.Type.KeyPress:
            if event.key() == Qt.Key.Key_Escape and filter_box.text():
                filter_box.clear()
                return True  # Esc in the filter clears it and goes no further
            if event.key() in (Qt.Key.Key_Down, Qt.Key.Key_Up):
                view = self.active_view()
                target = view.docs if view is self.all_view and view.doc_model.rowCount() else view
                target = view.grid if view is self.all_view and target is view else target
                target.setFocus()
                if event.key() == Qt.Key.Key_Down:
                    target.select_first()  # ↓ from the filter lands on the first match, even when it was current
                else:
                    target.keyPressEvent(event)
                return True
        return super().eventFilter(watched, event)

    def keyPressEvent(self, event) -> None:
        if event.key() == Qt.Key.Key_Escape and self.preview.isVisible():
            self.preview._escape()
            return
        super().keyPressEvent(event)

    def changeEvent(self, event: QEvent) -> None:
        if event.type() == QEvent.Type.LanguageChange:
            self.retranslate()
        super().changeEvent(event)

    def closeEvent(self, event: QCloseEvent) -> None:
        self.settings.geometry = self.saveGeometry()
        self.previews.close_windows()
        super().closeEvent(event)

    def retranslate(self) -> None:
        self.list.setAccessibleName(self.tr("Recent documents"))
        self.grid.setAccessibleName(self.tr("Images and videos"))
        self.header.retranslate()
        self._update_texts()

    def current_index(self) -> QModelIndex:
        return self.active_view().currentIndex()
