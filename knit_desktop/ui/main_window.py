"""The companion window: header (workspace, session, topic line, sort, kinds, filter), the list, the preview."""

from __future__ import annotations

import os
import time

from PySide6.QtCore import QEvent, QModelIndex, QSize, Qt, QTimer, QUrl, Signal
from PySide6.QtGui import QAction, QCloseEvent, QDesktopServices, QGuiApplication, QKeySequence, QShortcut
from PySide6.QtWidgets import (
    QButtonGroup,
    QComboBox,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QMainWindow,
    QMenu,
    QSplitter,
    QStackedWidget,
    QTabBar,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from ..core.index.documents import kind_for_name
from ..services import multimedia
from .all_view import AllView
from .compact import ElidedButton
from .document_model import DocumentListModel
from .document_view import DocumentListView
from .folder_drop import FolderDrop
from .hidden_footer import HiddenFooter
from .history_view import RecallStrip
from .item_actions import ItemActions
from .media_model import MediaGridModel
from .media_preview import video_unavailable_text
from .media_view import MediaGridView
from .newcomer import NewcomerPanel
from .preview import PreviewPane
from .settings import KINDS, Settings, clamp_ratio
from .wording import relative_time_text, topic_line

FOLLOW_ACTIVE = ""


def now_ms() -> int:
    return int(time.time() * 1000)


FRAME_ALLOWANCE = 48  # a title bar and borders, before the window manager has said how large they are


def default_size(screen) -> QSize:
    """440 × 760, or less where the screen's available area is smaller (a laptop at a scale factor of 2): the
    whole window, frame included, on screen."""
    area = screen.availableGeometry() if screen is not None else None
    if area is None or area.isEmpty():
        return QSize(440, 760)
    return QSize(min(440, area.width() - 16), min(760, area.height() - FRAME_ALLOWANCE))


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
        self.fixed_conversation = fixed_conversation  # "demo" or a file name when DSH is not followed
        self.setObjectName("KnitMainWindow")
        self.ranking = ranking
        self.settings = settings
        self.clock = clock
        self.payload: dict | None = None
        self.root = ""
        self.session: dict | None = None
        self.status = {"progress": "", "watch": "", "problems": 0, "failed": "", "memory": "", "notice": ""}
        self._shown_first = False
        self._preview_windows: list = []

        self.model = DocumentListModel(self)
        self.list = DocumentListView(self.model)
        self.grid_model = MediaGridModel(self)
        self.grid = MediaGridView(self.grid_model)
        self.all_view = AllView()
        self.views = QStackedWidget(objectName="Views")
        for view in (self.list, self.grid, self.all_view):
            self.views.addWidget(view)
        self.preview = PreviewPane(ranking, images=images)
        self.preview.hide()
        self.splitter = QSplitter(Qt.Orientation.Vertical)
        self.splitter.setObjectName("ListPreviewSplitter")
        self.splitter.setChildrenCollapsible(False)
        self.splitter.addWidget(self.views)
        self.splitter.addWidget(self.preview)
        self.splitter.splitterMoved.connect(self._on_splitter_moved)

        self._build_header()
        central = QWidget()
        layout = QVBoxLayout(central)
        layout.setContentsMargins(8, 8, 8, 4)
        layout.setSpacing(6)
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
        self.item_actions.previewRequested.connect(self.show_document)
        self.item_actions.pinsChanged.connect(self.ranking.rerank)
        self._notice_timer = QTimer(self, singleShot=True, interval=10_000)  # a notice is read, then it goes
        self._notice_timer.timeout.connect(lambda: self._set_status(notice=""))
        self.item_actions.notice.connect(self.show_notice)
        self.preview.notice.connect(self.show_notice)
        self.hidden_footer = HiddenFooter(self.item_actions)
        layout.addWidget(self.hidden_footer)
        self.status_label = QLabel(objectName="StatusLine")
        self.status_label.setWordWrap(True)
        layout.addWidget(self.status_label)
        self.setCentralWidget(central)

        for view in (self.list, self.grid, self.all_view):
            view.activatedRel.connect(self._preview_rel)
            view.toggleRequested.connect(self._toggle_preview)
            view.openWindowRequested.connect(self.open_preview_window)
        for view in (self.grid, self.all_view):
            view.thumbnailsWanted.connect(self._want_thumbnails)
        self.all_view.viewAllRequested.connect(lambda: setattr(self.settings, "kind", "doc"))
        if images is not None:
            images.thumbnailReady.connect(self.grid_model.set_thumbnail)
            images.thumbnailReady.connect(self.all_view.media_model.set_thumbnail)
        self.preview.closed.connect(self.close_preview)
        self.preview.fullscreenToggled.connect(self._on_fullscreen)
        self.preview.documentRequested.connect(self.show_document)

        ranking.rankingChanged.connect(self.set_payload)
        ranking.workspaceChanged.connect(self._on_workspace)
        ranking.sessionChanged.connect(self._on_session)
        ranking.indexProgress.connect(self._on_progress)
        ranking.indexOpened.connect(lambda _r: self._set_status(progress=""))
        ranking.watchModeChanged.connect(lambda mode: self._set_status(watch=mode))
        ranking.failed.connect(lambda text: self._set_status(failed=text))
        ranking.follower.sessionsListed.connect(self._fill_sessions)
        settings.changed.connect(self._on_setting)

        self._tick = QTimer(self)  # relative times and the 🆕 mark age while the window is open
        self._tick.setInterval(30_000)
        self._tick.timeout.connect(lambda: self.active_view().viewport().update())
        self._tick.start()
        self._restore()
        self.retranslate()

    # --- construction --------------------------------------------------------------------------------

    def _build_header(self) -> None:
        self.header = QWidget(objectName="Header")
        self.workspace_button = ElidedButton(objectName="WorkspaceBreadcrumb")  # middle-elided, full path in its tooltip
        self.workspace_button.clicked.connect(self.open_workspace_folder)
        self.session_picker = QComboBox(objectName="SessionPicker")
        self.session_picker.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
        self.session_picker.setMinimumContentsLength(6)  # the rest is in its popup and tooltip: 320 px must do
        self.session_picker.activated.connect(self._on_session_picked)
        self.session_picker.installEventFilter(self)
        self.menu_button = QToolButton(objectName="MenuButton", text="⋯")
        self.menu_button.setPopupMode(QToolButton.ToolButtonPopupMode.InstantPopup)
        self.menu = QMenu(self)
        self.action_refresh = QAction(self, triggered=self.refresh)
        self.action_refresh.setShortcut(QKeySequence.StandardKey.Refresh)
        self.action_top = QAction(self, checkable=True, triggered=lambda on: setattr(self.settings, "always_on_top", on))
        self.action_dock_left = QAction(self, triggered=lambda: self.dock("left"))
        self.action_dock_right = QAction(self, triggered=lambda: self.dock("right"))
        # Signal to signal with connect(): a signal given as `triggered=` is called as a slot, which PySide6 6.11
        # refuses ("native Qt signal instance … is not callable"), and the menu item does nothing.
        self.action_settings = QAction(self)
        self.action_settings.triggered.connect(self.settingsRequested)
        self.action_memory = QAction(self)
        self.action_memory.triggered.connect(self.memoryRequested)
        self.action_history = QAction(self)
        self.action_history.triggered.connect(self.historyRequested)
        self.action_quit = QAction(self)
        self.action_quit.triggered.connect(self.quitRequested)
        for action in (self.action_refresh, None, self.action_top, self.action_dock_left, self.action_dock_right,
                       None, self.action_history, self.action_memory, self.action_settings, self.action_quit):
            self.menu.addSeparator() if action is None else self.menu.addAction(action)
        self.addAction(self.action_refresh)
        self.menu_button.setMenu(self.menu)

        self.topic_label = QLabel(objectName="TopicLine", wordWrap=True)  # wraps rather than widen the window
        self.relevance_button = QToolButton(objectName="SortRelevance", checkable=True)
        self.time_button = QToolButton(objectName="SortTime", checkable=True)
        self.sort_group = QButtonGroup(self)
        self.sort_group.setExclusive(True)
        self.sort_group.addButton(self.relevance_button)
        self.sort_group.addButton(self.time_button)
        self.relevance_button.clicked.connect(lambda: self._set_sort("relevance"))
        self.time_button.clicked.connect(lambda: self._set_sort("time"))
        self.refresh_button = QToolButton(objectName="Refresh", text="⟳")
        self.refresh_button.clicked.connect(self.refresh)

        self.kind_tabs = QTabBar(objectName="KindTabs")
        self.kind_tabs.setDrawBase(False)
        self.kind_tabs.setExpanding(False)
        for _ in KINDS:
            self.kind_tabs.addTab("")
        self.kind_tabs.currentChanged.connect(self._on_kind_tab)
        self.count_label = QLabel(objectName="CountLabel")

        self.filter_box = QLineEdit(objectName="FilterBox")
        self.filter_box.setClearButtonEnabled(True)
        self.filter_box.textChanged.connect(self._on_filter)
        self.filter_box.installEventFilter(self)
        self.topic_box = QLineEdit(objectName="TopicBox")
        self.topic_box.setClearButtonEnabled(True)
        self._topic_timer = QTimer(self, singleShot=True, interval=250)  # rank once typing pauses
        self._topic_timer.timeout.connect(lambda: self.ranking.set_topic(self.topic_box.text()))
        self.topic_box.textChanged.connect(lambda _t: self._topic_timer.start())
        self.topic_box.installEventFilter(self)  # Esc clears the topic (not the preview)
        QShortcut(QKeySequence.StandardKey.Find, self, self.filter_box.setFocus)

        row1 = QHBoxLayout()
        row1.addWidget(self.workspace_button, 1)
        row1.addWidget(self.session_picker, 1)
        row1.addWidget(self.menu_button)
        row2 = QHBoxLayout()
        row2.addWidget(self.topic_label, 1)
        row2.addWidget(self.relevance_button)
        row2.addWidget(self.time_button)
        row2.addWidget(self.refresh_button)
        row3 = QHBoxLayout()
        row3.addWidget(self.kind_tabs)
        row3.addStretch(1)
        row3.addWidget(self.count_label)
        layout = QVBoxLayout(self.header)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(4)
        for row in (row1, row2, row3):
            layout.addLayout(row)
        layout.addWidget(self.topic_box)
        layout.addWidget(self.filter_box)

    def _restore(self) -> None:
        geometry = self.settings.geometry
        if geometry is None or not self.restoreGeometry(geometry):
            self.resize(default_size(self.screen() or QGuiApplication.primaryScreen()))
        self._apply_on_top()
        self.kind_tabs.setCurrentIndex(KINDS.index(self.settings.kind))
        (self.relevance_button if self.settings.sort == "relevance" else self.time_button).setChecked(True)
        self.ranking.set_view(self.settings.kind, self.settings.sort)

    # --- ranking results -----------------------------------------------------------------------------

    def active_view(self):
        return self.views.currentWidget()

    def set_payload(self, payload: dict) -> None:
        keep = self.active_view().current_rel()
        previous_topic = self.payload["rank"].get("topic") if self.payload else None
        self.payload = payload
        kind = payload.get("kind", "doc")
        now = self.clock()
        if kind == "media":
            self.grid_model.set_results(payload["rank"]["results"], now)
            self.views.setCurrentWidget(self.grid)
        elif kind == "all":
            self.all_view.set_payload(payload, now)
            self.views.setCurrentWidget(self.all_view)
        else:
            self.model.set_payload(payload, now)
            self.views.setCurrentWidget(self.list)
        view = self.active_view()
        if keep and not view.select_rel(keep) and self.preview.isVisible():
            view.clearSelection()
        if previous_topic is not None and payload["rank"].get("topic") != previous_topic:
            view.scrollToTop()  # a new topic: its new top results in view; the selection stays where it is
        self._update_texts()
        if not self._shown_first:
            self._shown_first = True
            self.firstListShown.emit()

    def _update_texts(self) -> None:
        payload = self.payload
        relevance = payload is not None and payload["rank"].get("mode") == "relevance"
        self.setWindowTitle(self.tr("Knit — documents by relevance") if relevance else self.tr("Knit — recent documents"))
        if payload:
            text, tip = topic_line(payload["rank"], self.settings.sort)
            self.topic_label.setText(text)
            self.topic_label.setToolTip(tip)
            self.count_label.setText(self._count_text())
        else:
            self.topic_label.setText(self.tr("Scanning the workspace…") if self.root else "")
            self.count_label.setText("")
        self.list.empty_text = self.grid.empty_text = self._empty_text()
        self.active_view().viewport().update()
        self._show_status()

    def _count_text(self) -> str:
        view = self.active_view()
        if view is self.grid:
            return self.grid_model.count_text()
        if view is self.all_view:
            return self.all_view.count_text()
        return self.model.count_text()

    def _want_thumbnails(self, items: list) -> None:
        if self.images is not None and self.root:
            self.images.request(self.root, items)

    def _empty_text(self) -> str:
        if not self.root:
            return self.tr("No workspace yet — start a DSH session, or choose a folder in Settings.")
        if self.payload is None:
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
        self.payload = None
        self.model.set_payload(None, self.clock())
        self.grid_model.set_results([], self.clock())
        self.close_preview()
        home = os.path.expanduser("~")
        shown = "~" + root[len(home):] if root.startswith(home + os.sep) else root
        self.workspace_button.setText(shown or self.tr("No workspace"))
        self.workspace_button.setToolTip(root)
        self._update_texts()

    def _on_session(self, snapshot: dict | None) -> None:
        self.session = snapshot
        self._update_session_picker()

    def _update_session_picker(self) -> None:
        picker = self.session_picker
        picker.blockSignals(True)
        picker.clear()
        if not self.ranking.follow:  # a conversation given at start: no session to follow or pick
            name = self.fixed_conversation
            picker.addItem(self.tr("Demo conversation") if name in ("", "demo")
                           else self.tr("Conversation from %1").replace("%1", os.path.basename(name)))
            picker.setEnabled(False)
            picker.setToolTip(self.tr("Started with a fixed conversation; DSH sessions are not followed"))
            picker.blockSignals(False)
            return
        following = self.session["session"] if self.session else None
        label = self.tr("Follow the active session")
        if following and not self.ranking.pinned_session:
            label += f" — {following['title'] or following['id']}"
        picker.addItem(label, FOLLOW_ACTIVE)
        if following and self.ranking.pinned_session:
            picker.addItem(following["title"] or following["id"], following["id"])
            picker.setCurrentIndex(1)
        picker.blockSignals(False)
        picker.setToolTip(following["cwd"] if following else self.tr("No DSH session found"))

    def _fill_sessions(self, rows: list[dict]) -> None:
        picker = self.session_picker
        current = picker.currentData()
        picker.blockSignals(True)
        while picker.count() > 1:
            picker.removeItem(1)
        for row in rows[:30]:
            name = row["title"] or os.path.basename(row["cwd"].rstrip("/")) or row["id"]
            picker.addItem(f"{name} · {relative_time_text(row['updated_ms'], self.clock())}", row["id"])
        index = picker.findData(current)
        picker.setCurrentIndex(max(index, 0))
        picker.blockSignals(False)

    def _on_session_picked(self, index: int) -> None:
        session_id = self.session_picker.itemData(index) or None
        self.ranking.pin_session(session_id)

    def _on_progress(self, done: int, total: int, rel: str) -> None:
        text = self.tr("Indexing %1 / %2").replace("%1", str(done)).replace("%2", str(total)) if done < total else ""
        self._set_status(progress=text)

    def show_notice(self, text: str) -> None:
        """A passing message in the status line (an app that cannot be opened, …), gone after a while."""
        self._set_status(notice=text)
        self._notice_timer.start()

    def show_memory_warning(self, text: str) -> None:
        """A problem with the memory proposal queue (a damaged queue file set aside), in the status line."""
        self._set_status(memory=text)

    def _set_status(self, **values) -> None:
        self.status.update(values)
        self._show_status()

    def _show_status(self) -> None:
        parts = [self.status["progress"]]
        if self.status["watch"] == "polling":
            parts.append(self.tr("Watching by polling (the system refused more folder watches)"))
        if self.status["failed"]:
            parts.append(self.tr("Failed to read: %1").replace("%1", self.status["failed"]))
        if not multimedia.multimedia_available()[0]:
            parts.append(video_unavailable_text())
        if self.status["memory"]:
            parts.append(self.status["memory"])
        if self.status["notice"]:
            parts.append(self.status["notice"])
        usage = (self.payload or {}).get("usage", "")
        if usage and self.settings.show_usage:
            parts.append(usage)
        text = " · ".join(p for p in parts if p)
        self.status_label.setText(text)
        self.status_label.setVisible(bool(text))

    def _on_filter(self, text: str) -> None:
        view = self.active_view()
        keep = view.current_rel()
        self.model.set_filter(text)
        self.grid_model.set_filter(text)
        self.all_view.set_filter(text)
        if keep and not view.select_rel(keep):
            view.select_first()  # the cursor was filtered out: move to the first item
        self._update_texts()

    def _set_sort(self, sort: str) -> None:
        self.settings.sort = sort

    def _on_kind_tab(self, index: int) -> None:
        if 0 <= index < len(KINDS):
            self.settings.kind = KINDS[index]

    def _on_setting(self, key: str) -> None:
        if key in ("list/sort", "list/kind"):
            self.ranking.set_view(self.settings.kind, self.settings.sort)
        elif key == "window/always_on_top":
            self._apply_on_top()
        elif key == "list/show_usage":
            self._show_status()

    def _apply_on_top(self) -> None:
        on = self.settings.always_on_top
        self.action_top.setChecked(on)
        if bool(self.windowFlags() & Qt.WindowType.WindowStaysOnTopHint) != on:
            visible = self.isVisible()
            self.setWindowFlag(Qt.WindowType.WindowStaysOnTopHint, on)
            if visible:
                self.show()

    def refresh(self) -> None:
        self.ranking.refresh()
        self.ranking.rerank()

    # --- preview -------------------------------------------------------------------------------------

    def _row_matches(self, rel: str) -> tuple[str, list[dict]]:
        for media in (self.grid_model, self.all_view.media_model):
            row = media.row_of(rel)
            if row >= 0:
                return media.items[row]["kind"], []
        row = self.model.row_of(rel)
        if row < 0:
            return kind_for_name(rel.rsplit("/", 1)[-1]) or "", []
        item = self.model.rows[row]
        return (item.doc or {}).get("kind", ""), item.matches

    def _preview_rel(self, rel: str) -> None:
        kind, matches = self._row_matches(rel)
        self._open_preview(rel, kind, matches)

    def show_document(self, rel: str) -> None:
        """Preview any workspace document (a followed link, a citation, the tray): select it when listed."""
        view = self.active_view()
        if not view.select_rel(rel):
            view.clearSelection()
            self._open_preview(rel, kind_for_name(rel.rsplit("/", 1)[-1]) or "txt", [])

    def _open_preview(self, rel: str, kind: str, matches: list[dict]) -> None:
        first = not self.preview.isVisible()
        self.preview.show()
        self.preview.show_document(self.root, rel, kind, matches)
        if first:
            self._apply_ratio(self.settings.preview_ratio)

    def _toggle_preview(self) -> None:
        if self.preview.isVisible():
            self.close_preview()
        elif self.active_view().current_rel():
            self._preview_rel(self.active_view().current_rel())

    def close_preview(self) -> None:
        if self.preview.fullscreen:
            self.preview.set_fullscreen(False)
        self.preview.hide()
        self.active_view().setFocus()

    def _apply_ratio(self, ratio: float) -> None:
        total = max(1, sum(self.splitter.sizes()) or self.splitter.height())
        preview = int(total * clamp_ratio(ratio))
        self.splitter.setSizes([total - preview, preview])

    def preview_ratio(self) -> float:
        sizes = self.splitter.sizes()
        return sizes[1] / max(1, sum(sizes)) if len(sizes) == 2 else self.settings.preview_ratio

    def _on_splitter_moved(self, _pos: int, _index: int) -> None:
        ratio = self.preview_ratio()
        clamped = clamp_ratio(ratio)
        if abs(clamped - ratio) > 1e-3:
            self._apply_ratio(clamped)
        self.settings.preview_ratio = clamped

    def _on_fullscreen(self, on: bool) -> None:
        self.header.setVisible(not on)
        self.views.setVisible(not on)
        if on:
            self._was_maximized = self.isMaximized()
            self.showFullScreen()
        else:
            self.showMaximized() if getattr(self, "_was_maximized", False) else self.showNormal()
            self.active_view().setFocus()

    def open_preview_window(self, rel: str) -> None:
        if not rel:
            return
        window = QWidget(None, Qt.WindowType.Window)
        window.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        window.setWindowTitle(rel)
        pane = PreviewPane(self.ranking, window, images=self.images)
        pane.close_button.hide()
        pane.closed.connect(window.close)
        pane.fullscreenToggled.connect(lambda on: window.showFullScreen() if on else window.showNormal())
        pane.documentRequested.connect(lambda other: pane.show_document(self.root, other, "", []))
        QVBoxLayout(window).addWidget(pane)
        kind, matches = self._row_matches(rel)
        pane.show_document(self.root, rel, kind, matches)
        window.resize(900, 1000)
        window.show()
        self._preview_windows.append(window)
        window.destroyed.connect(lambda *_: self._preview_windows.remove(window) if window in self._preview_windows else None)

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
        if self.root:
            QDesktopServices.openUrl(QUrl.fromLocalFile(self.root))
        else:  # "No workspace": choose one
            self.newcomer.choose_folder()

    def open_demo(self) -> None:
        """The bundled demo workspace and conversation, as `--demo` opens them."""
        from ..core.dsh.conversation import load_messages
        from ..demo import prepare_demo_workspace
        from ..resources import demo_conversation

        self.ranking.pin_workspace(str(prepare_demo_workspace()))
        self.ranking.set_messages(load_messages(str(demo_conversation())))

    # --- events --------------------------------------------------------------------------------------

    def eventFilter(self, watched, event) -> bool:
        if (watched in (self.filter_box, self.topic_box) and event.type() == QEvent.Type.ShortcutOverride
                and event.key() == Qt.Key.Key_Escape and watched.text()):
            event.accept()  # Esc clears the box before it can close the preview
            return True
        if (watched is self.topic_box and event.type() == QEvent.Type.KeyPress
                and event.key() == Qt.Key.Key_Escape and self.topic_box.text()):
            self.topic_box.clear()
            return True  # Esc in the topic box clears the topic and goes no further
        if watched is self.filter_box and event.type() == QEvent.Type.KeyPress:
            if event.key() == Qt.Key.Key_Escape and self.filter_box.text():
                self.filter_box.clear()
                return True  # Esc in the filter clears it and goes no further
            if event.key() in (Qt.Key.Key_Down, Qt.Key.Key_Up):
                view = self.active_view()
                target = view.docs if view is self.all_view and view.doc_model.rowCount() else view
                target = view.grid if view is self.all_view and target is view else target
                target.setFocus()
                target.keyPressEvent(event)
                return True
        if watched is self.session_picker and event.type() == QEvent.Type.MouseButtonPress and self.ranking.follow:
            self.ranking.follower.list_sessions()
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
        for window in list(self._preview_windows):
            window.close()
        super().closeEvent(event)

    def retranslate(self) -> None:
        self.relevance_button.setText(self.tr("Relevant"))
        self.relevance_button.setToolTip(
            self.tr("Sort by relevance to the current conversation (local keyword matching, no model call)"))
        self.time_button.setText(self.tr("Recent"))
        self.time_button.setToolTip(self.tr("Sort by file modified time, newest first"))
        self.refresh_button.setToolTip(self.tr("Refresh now"))
        for i, text in enumerate((self.tr("Docs"), self.tr("Images & video"), self.tr("All"))):
            self.kind_tabs.setTabText(i, text.replace("&", "&&"))  # a literal ampersand, not a mnemonic
        self.kind_tabs.setToolTip(self.tr("Switch which artifacts are listed"))
        self.filter_box.setPlaceholderText(self.tr("Filter title / summary / path"))
        self.filter_box.setAccessibleName(self.tr("Filter documents"))
        self.topic_box.setPlaceholderText(self.tr("What are you working on? (replaces the conversation while set)"))
        self.topic_box.setAccessibleName(self.tr("Topic"))
        self.workspace_button.setAccessibleName(self.tr("Open in file manager"))
        self.list.setAccessibleName(self.tr("Recent documents"))
        self.grid.setAccessibleName(self.tr("Images and videos"))
        self.menu_button.setToolTip(self.tr("More"))
        self.action_refresh.setText(self.tr("Refresh"))
        self.action_top.setText(self.tr("Always on top"))
        self.action_dock_left.setText(self.tr("Dock to the left edge"))
        self.action_dock_right.setText(self.tr("Dock to the right edge"))
        self.action_settings.setText(self.tr("Settings…"))
        self.action_memory.setText(self.tr("Memory…"))
        self.action_history.setText(self.tr("Conversation history…"))
        self.action_quit.setText(self.tr("Quit"))
        if not self.root:
            self.workspace_button.setText(self.tr("No workspace"))
        self._update_session_picker()
        self._update_texts()

    def current_index(self) -> QModelIndex:
        return self.active_view().currentIndex()
