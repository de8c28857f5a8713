"""The window's header: workspace breadcrumb, session picker and menu; the topic line with the sort buttons; the
kind tabs with the count; the topic box and the filter box.

It turns clicks into settings (sort, kind, always on top) and ranking inputs (the typed topic, the pinned
session) itself; what concerns the rest of the window (refresh, docking, the filter, the dialogs) it signals.
"""

from __future__ import annotations

import os

from PySide6.QtCore import QEvent, Qt, QTimer, QUrl, Signal
from PySide6.QtGui import QAction, QActionGroup, QKeySequence
from PySide6.QtWidgets import (
    QButtonGroup,
    QComboBox,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QMenu,
    QTabBar,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from .compact import ElidedButton
from .item_actions import open_url
from .settings import KINDS, LIST_SCOPES, Settings
from .wording import relative_time_text

FOLLOW_ACTIVE = ""


class HeaderBar(QWidget):
    refreshRequested = Signal()
    dockRequested = Signal(str)  # "left" | "right"
    settingsRequested = Signal()
    memoryRequested = Signal()
    historyRequested = Signal()
    quitRequested = Signal()
    filterChanged = Signal(str)
    chooseFolderRequested = Signal()  # "No workspace" was clicked

    def __init__(self, ranking, settings: Settings, clock, fixed_conversation: str = "",
                 parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("Header")
        self.ranking = ranking
        self.settings = settings
        self.clock = clock
        self.fixed_conversation = fixed_conversation  # "demo" or a file name when DSH is not followed
        self.root = ""
        self.session: dict | None = None

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
        # Signal to signal with connect(): a signal given as `triggered=` is called as a slot, which PySide6 6.11
        # refuses ("native Qt signal instance … is not callable"), and the menu item does nothing.
        self.action_refresh = QAction(self)
        self.action_refresh.triggered.connect(self.refreshRequested)
        self.action_refresh.setShortcut(QKeySequence.StandardKey.Refresh)
        self.action_top = QAction(self, checkable=True, triggered=lambda on: setattr(self.settings, "always_on_top", on))
        self.action_dock_left = QAction(self, triggered=lambda: self.dockRequested.emit("left"))
        self.action_dock_right = QAction(self, triggered=lambda: self.dockRequested.emit("right"))
        self.action_settings = QAction(self)
        self.action_settings.triggered.connect(self.settingsRequested)
        self.action_memory = QAction(self)
        self.action_memory.triggered.connect(self.memoryRequested)
        self.action_history = QAction(self)
        self.action_history.triggered.connect(self.historyRequested)
        self.action_quit = QAction(self)
        self.action_quit.triggered.connect(self.quitRequested)
        # What the list ranks over: the workspace, the library folders, or both. In the ⋯ menu always (disabled,
        # with a line saying why, until a library folder exists), and as a small button beside the kind tabs
        # once there is a library to switch to.
        self.scope_menu = QMenu(self)
        self.scope_menu.setObjectName("ScopeMenu")
        self.scope_group = QActionGroup(self)
        self.scope_group.setExclusive(True)
        self.scope_actions: dict[str, QAction] = {}
        for scope in LIST_SCOPES:
            action = QAction(self, checkable=True)
            action.setObjectName(f"Scope_{scope}")
            action.triggered.connect(lambda _on=False, scope=scope: setattr(self.settings, "scope", scope))
            self.scope_group.addAction(action)
            self.scope_menu.addAction(action)
            self.scope_actions[scope] = action
        self.scope_menu.addSeparator()
        self.action_scope_hint = QAction(self, enabled=False)
        self.scope_menu.addAction(self.action_scope_hint)
        self.library_available = False
        entries: tuple[QAction | None, ...] = (
            self.action_refresh, self.scope_menu.menuAction(), None, self.action_top, self.action_dock_left,
            self.action_dock_right, None, self.action_history, self.action_memory, self.action_settings,
            self.action_quit)
        for entry in entries:
            self.menu.addSeparator() if entry is None else self.menu.addAction(entry)
        self.menu_button.setMenu(self.menu)

        self.topic_label = QLabel(objectName="TopicLine", wordWrap=True)  # wraps rather than widen the window
        self.relevance_button = QToolButton(objectName="SortRelevance", checkable=True)
        self.time_button = QToolButton(objectName="SortTime", checkable=True)
        self.sort_group = QButtonGroup(self)
        self.sort_group.setExclusive(True)
        self.sort_group.addButton(self.relevance_button)
        self.sort_group.addButton(self.time_button)
        self.fallback = False  # relevance asked for, but the list is in time order (nothing to rank by yet)
        self.relevance_button.clicked.connect(self._choose_relevance)
        self.time_button.clicked.connect(lambda: setattr(self.settings, "sort", "time"))
        self.refresh_button = QToolButton(objectName="Refresh", text="⟳")
        self.refresh_button.clicked.connect(self.refreshRequested)

        self.kind_tabs = QTabBar(objectName="KindTabs")
        self.kind_tabs.setDrawBase(False)
        self.kind_tabs.setExpanding(False)
        for _ in KINDS:
            self.kind_tabs.addTab("")
        self.kind_tabs.currentChanged.connect(self._on_kind_tab)
        self.count_label = QLabel(objectName="CountLabel")
        self.scope_button = QToolButton(objectName="ScopeButton")
        self.scope_button.setPopupMode(QToolButton.ToolButtonPopupMode.InstantPopup)
        self.scope_button.setMenu(self.scope_menu)
        self.scope_button.hide()

        self.filter_box = QLineEdit(objectName="FilterBox")
        self.filter_box.setClearButtonEnabled(True)
        self.filter_box.textChanged.connect(self.filterChanged)
        self.topic_box = QLineEdit(objectName="TopicBox")
        self.topic_box.setClearButtonEnabled(True)
        self._topic_timer = QTimer(self, singleShot=True, interval=250)  # rank once typing pauses
        self._topic_timer.timeout.connect(lambda: self.ranking.set_topic(self.topic_box.text()))
        self.topic_box.textChanged.connect(lambda _t: self._topic_timer.start())
        self.topic_box.installEventFilter(self)  # Esc clears the topic (not the preview)

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
        row3.addWidget(self.scope_button)
        row3.addStretch(1)
        row3.addWidget(self.count_label)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(4)
        for row in (row1, row2, row3):
            layout.addLayout(row)
        layout.addWidget(self.topic_box)
        layout.addWidget(self.filter_box)

        ranking.sessionChanged.connect(self._on_session)
        ranking.follower.sessionsListed.connect(self._fill_sessions)

    def restore(self) -> None:
        """Show the view the settings hold (kind tab, sort button)."""
        self.kind_tabs.setCurrentIndex(KINDS.index(self.settings.kind))
        self.show_order(self.settings.sort)

    def _choose_relevance(self) -> None:
        if self.fallback:  # already the preference: the list stays in time order until there are words
            self.show_order("time")
        self.settings.sort = "relevance"

    def show_order(self, mode: str) -> None:
        """Press the button of the order the list is really in: relevance asked for but nothing to rank by yet
        lists by time, and says so (the preference stays relevance; the next ranking with words goes back)."""
        (self.relevance_button if mode == "relevance" else self.time_button).setChecked(True)
        self.fallback = mode == "time" and self.settings.sort == "relevance"
        self.retranslate_sort()

    # --- workspace and session -----------------------------------------------------------------------

    def set_workspace(self, root: str) -> None:
        self.root = root
        home = os.path.expanduser("~")
        shown = "~" + root[len(home):] if root.startswith(home + os.sep) else root
        self.workspace_button.setText(shown or self.tr("No workspace"))
        self.workspace_button.setToolTip(root)

    def open_workspace_folder(self) -> None:
        if self.root:
            open_url(QUrl.fromLocalFile(self.root))
        else:  # "No workspace": choose one
            self.chooseFolderRequested.emit()

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

    def _on_kind_tab(self, index: int) -> None:
        if 0 <= index < len(KINDS):
            self.settings.kind = KINDS[index]

    def set_on_top(self, on: bool) -> None:
        self.action_top.setChecked(on)

    # --- events and words ----------------------------------------------------------------------------

    def eventFilter(self, watched, event) -> bool:
        escape = (event.type() in (QEvent.Type.ShortcutOverride, QEvent.Type.KeyPress)
                  and event.key() == Qt.Key.Key_Escape)
        if watched is self.topic_box and escape and self.topic_box.text():
            if event.type() == QEvent.Type.ShortcutOverride:
                event.accept()  # Esc clears the box before it can close the preview
            else:
                self.topic_box.clear()  # Esc in the topic box clears the topic and goes no further
            return True
        if watched is self.session_picker and event.type() == QEvent.Type.MouseButtonPress and self.ranking.follow:
            self.ranking.follower.list_sessions()
        return super().eventFilter(watched, event)

    def changeEvent(self, event: QEvent) -> None:
        if event.type() == QEvent.Type.LanguageChange:
            self.retranslate()
        super().changeEvent(event)

    def retranslate_sort(self) -> None:
        if self.fallback:
            self.relevance_button.setToolTip(self.tr(
                "Nothing to rank by yet: listed by time until the conversation (or a topic) has words to match"))
        else:
            self.relevance_button.setToolTip(
                self.tr("Sort by relevance to the current conversation (local keyword matching, no model call)"))

    def set_library_available(self, available: bool) -> None:
        """Whether any library folder is configured: without one the switch is disabled and says why."""
        self.library_available = available
        for action in self.scope_actions.values():
            action.setEnabled(available)
        self.scope_button.setVisible(available)
        self.show_scope(self.settings.scope)
        self.retranslate_scope()

    def show_scope(self, scope: str) -> None:
        shown = scope if self.library_available else "workspace"
        self.scope_actions.get(shown, self.scope_actions["workspace"]).setChecked(True)
        self.retranslate_scope()

    def scope_names(self) -> dict[str, str]:
        return {"workspace": self.tr("Workspace"), "library": self.tr("Library"), "all": self.tr("Both")}

    def retranslate_scope(self) -> None:
        names = self.scope_names()
        for scope, action in self.scope_actions.items():
            action.setText(names[scope])
        self.scope_menu.setTitle(self.tr("Rank over"))
        self.action_scope_hint.setText(
            self.tr("Library folders rank beside the workspace") if self.library_available
            else self.tr("No library folder yet: add one in Settings → Library"))
        self.action_scope_hint.setVisible(True)
        current = self.settings.scope if self.library_available else "workspace"
        self.scope_button.setText(names.get(current, names["workspace"]))
        self.scope_button.setToolTip(self.tr("Rank over the workspace, the library folders, or both"))
        self.scope_button.setAccessibleName(self.tr("Rank over"))

    def retranslate(self) -> None:
        self.retranslate_scope()
        self.relevance_button.setText(self.tr("Relevant"))
        self.retranslate_sort()
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
