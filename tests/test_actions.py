"""Every menu item, action and button of every window, triggered or clicked as a user would, with its effect.

Each test walks one surface (the main window with its preview, the tray menu, the settings dialog, the memory
panel and a sticky note, the larger preview window), finds every QAction (menus and submenus included) and every
button on it, and fails when one exists that the test has no expectation for: a new action must be added here.
An exception in any slot fails the walk, naming the action (pytest-qt captures it, or PySide6 6.8+ raises it to
the code that emitted the signal), and so does any Qt warning (`qt_log_level_fail`). Whatever would leave the test process — the file manager, the default app, a file dialog,
quitting — is intercepted and asserted on.
"""

from __future__ import annotations

import os
import traceback
from collections.abc import Callable
from pathlib import Path

import pytest
from PySide6.QtCore import QObject, QPoint, Qt, QTimer, QUrl, Signal
from PySide6.QtGui import QAction, QDesktopServices, QGuiApplication
from PySide6.QtWidgets import (
    QAbstractButton,
    QApplication,
    QCheckBox,
    QFileDialog,
    QMenu,
    QRadioButton,
    QToolButton,
    QWidget,
)
from pytestqt.exceptions import TimeoutError as WaitTimeout

from knit_desktop.ui import tray as tray_module

from .test_window import demo_ws, open_app  # noqa: F401  (fixtures)

QT_LINE_EDIT_ICON = "QLineEditIconButton"  # a line edit's clear button (its click clears, not its action)


def action_key(action: QAction) -> str:
    if action.objectName() == "_q_qlineeditclearaction":
        return f"{action.parent().objectName()} clear"
    return action.objectName() or action.text().replace("&&", "&")


def tray_action_key(action: QAction) -> str:
    """The tray's documents change with the conversation: one key for all of them (each has its path as tooltip)."""
    return "document" if action.toolTip() not in ("", action.text()) else action_key(action)


def button_key(button: QAbstractButton) -> str:
    parent = button.parent()
    if button.metaObject().className() == QT_LINE_EDIT_ICON:
        return f"{parent.objectName()} clear button"
    if parent is not None and parent.metaObject().className() == "QTabBar":
        return f"{parent.objectName()} {button.objectName()}"
    return button.objectName() or button.text()


def slot_errors(qtbot, act: Callable[[], None]) -> list[BaseException]:
    """The exceptions raised in slots while `act` runs, however this PySide6 reports them: through the exception
    hook, which pytest-qt captures (a slot called from Qt's event loop, or from Python on 6.7), or raised to the
    Python code that emitted the signal (6.8 and later)."""
    with qtbot.capture_exceptions() as exceptions:
        try:
            act()
        except Exception as error:  # any exception a slot raises is a failure of that action
            return [error]
    return [value for _kind, value, _tb in exceptions]


class Walk:
    """What a surface offers (actions, menus, buttons) and what the test did with each."""

    def __init__(self, qtbot, surface: str, key: Callable[[QAction], str] = action_key, menu: str = "menu") -> None:
        self.qtbot = qtbot
        self.surface = surface
        self.action_key = key
        self.menu_name = menu  # a menu no button opens is called this in the keys
        self.found: dict[str, list[QObject]] = {}
        self.covered: dict[str, str] = {}
        self.failures: list[str] = []

    def scan(self, *roots: QObject) -> None:
        """Every action (menus and submenus first, keyed "menu → text"), every button, under `roots`."""
        menus: list[tuple[str, QMenu]] = []
        actions: list[QAction] = []
        for root in roots:
            if isinstance(root, QMenu):
                menus.append((self.menu_name, root))
            menus += [(self.menu_name, menu) for menu in root.findChildren(QMenu)]
            actions += root.findChildren(QAction)
            if isinstance(root, QWidget):
                actions += root.actions()
                for widget in [root, *root.findChildren(QWidget)]:
                    assert widget.contextMenuPolicy() != Qt.ContextMenuPolicy.CustomContextMenu, (
                        f"{self.surface}: {widget.objectName() or type(widget).__name__} has a context menu of "
                        "its own; walk its actions here")
            for button in root.findChildren(QAbstractButton):
                self._add(button_key(button), button)
                actions += button.actions()
        opened_by = {id(b.menu()): b.text() for root in roots for b in root.findChildren(QAbstractButton)
                     if isinstance(b, QToolButton) and b.menu() is not None}  # "⋯ → Settings…"
        keyed: set[int] = set()
        done: set[int] = set()
        while menus:
            path, menu = menus.pop(0)
            path = opened_by.get(id(menu), menu.title() or path) if path == self.menu_name else path
            if id(menu) in done:
                continue
            done.add(id(menu))
            keyed.add(id(menu.menuAction()))  # the menu's own action: it opens the menu, walked as the menu
            for action in menu.actions():
                if action.isSeparator():
                    continue
                keyed.add(id(action))
                if action.menu() is not None:
                    menus.append((f"{path} → {action.text()}", action.menu()))
                    continue
                self._add(f"{path} → {self.action_key(action)}", action)
        for action in actions:
            if id(action) not in keyed and not action.isSeparator():
                keyed.add(id(action))
                self._add(self.action_key(action), action)

    def _add(self, key: str, obj: QObject) -> None:
        bucket = self.found.setdefault(key, [])
        if all(other is not obj for other in bucket):
            bucket.append(obj)

    def one(self, key: str) -> QObject:
        assert key in self.found, f"{self.surface}: no {key!r} found; found {sorted(self.found)}"
        return self.found[key][-1]

    def _run(self, key: str, what: str, act: Callable[[], None], effect: Callable[[], None] | None) -> None:
        """Do it; a slot's exception or a missing effect is noted and the walk goes on, `finish` fails on them."""
        self.covered[key] = what
        errors = slot_errors(self.qtbot, act)
        if errors:
            self.failures.append(f"{what} {key!r} raised " + "; ".join(
                "".join(traceback.format_exception_only(type(error), error)).strip() for error in errors))
            return
        try:
            if effect is not None:
                effect()
        except (AssertionError, WaitTimeout) as error:
            self.failures.append(f"{what} {key!r} did not have its effect: {str(error).splitlines()[0]}")

    def trigger(self, key: str, effect: Callable[[], None] | None = None, action: QAction | None = None) -> None:
        action = action or self.one(key)
        assert isinstance(action, QAction), f"{self.surface}: {key!r} is not an action"
        self._run(key, "triggering", action.trigger, effect)

    def click(self, key: str, effect: Callable[[], None] | None = None, button: QAbstractButton | None = None) -> None:
        button = button or self.one(key)
        assert isinstance(button, QAbstractButton), f"{self.surface}: {key!r} is not a button"
        assert button.isVisible() and button.isEnabled(), f"{self.surface}: {key!r} cannot be clicked now"
        # a check box or radio button takes clicks on its indicator and label, not on the rest of its row
        at = QPoint(8, button.height() // 2) if isinstance(button, (QCheckBox, QRadioButton)) else button.rect().center()
        self._run(key, "clicking", lambda: self.qtbot.mouseClick(button, Qt.MouseButton.LeftButton, pos=at), effect)

    def through(self, key: str, button_key: str) -> None:
        """An action whose button is what the user clicks (a line edit's clear button): covered by that click."""
        assert button_key in self.covered, f"{self.surface}: click {button_key!r} before {key!r}"
        assert all(isinstance(obj, QAction) for obj in self.found.get(key, [])), f"{self.surface}: {key!r}"
        self.covered[key] = f"through {button_key!r}"

    def not_clickable(self, key: str, reason: str) -> None:
        """A button that exists but is not offered in this state (said why, and checked)."""
        for obj in self.found.get(key, []):
            assert isinstance(obj, QAbstractButton) and not obj.isVisible(), f"{self.surface}: {key!r} is shown"
        self.covered[key] = reason

    def disabled(self, key: str, reason: str) -> None:
        """A menu item that exists but is disabled in this state (said why, and checked)."""
        for obj in self.found.get(key, []):
            assert isinstance(obj, QAction) and not obj.isEnabled(), f"{self.surface}: {key!r} is enabled"
        self.covered[key] = reason

    def finish(self) -> None:
        assert not self.failures, f"{self.surface}:\n  " + "\n  ".join(self.failures)
        missing = sorted(set(self.found) - set(self.covered))
        assert not missing, (f"{self.surface}: no expectation in tests/test_actions.py for {missing}; add what "
                             "each one should do")
        stale = sorted(set(self.covered) - set(self.found))
        assert not stale, f"{self.surface}: expected but not found: {stale}"


@pytest.fixture
def opened_urls(monkeypatch) -> list[QUrl]:
    """QDesktopServices.openUrl, intercepted: nothing is launched, every URL is recorded."""
    urls: list[QUrl] = []

    def record(url: QUrl) -> bool:
        urls.append(QUrl(url))
        return True

    monkeypatch.setattr(QDesktopServices, "openUrl", staticmethod(record))
    return urls


@pytest.fixture
def quits(monkeypatch) -> list[str]:
    """QApplication.quit, intercepted so the test process survives a Quit."""
    calls: list[str] = []
    monkeypatch.setattr(QApplication, "quit", staticmethod(lambda: calls.append("quit")))
    return calls


def test_exceptions_in_slots_and_qt_warnings_fail_these_tests(qtbot, request):
    """The net the walks rely on: pytest-qt captures exceptions raised in slots, and Qt warnings fail a test."""
    assert not request.config.getini("qt_no_exception_capture")
    assert request.node.get_closest_marker("qt_no_exception_capture") is None
    assert request.config.getini("qt_log_level_fail") == "WARNING"

    class Source(QObject):
        fired = Signal()

    def broken() -> None:
        raise RuntimeError("a broken slot")

    source = Source()
    action = QAction(source)
    action.triggered.connect(broken)
    assert [type(error) for error in slot_errors(qtbot, action.trigger)] == [RuntimeError]
    button = QToolButton()
    button.clicked.connect(broken)
    qtbot.addWidget(button)
    button.show()
    assert [type(error) for error in slot_errors(
        qtbot, lambda: qtbot.mouseClick(button, Qt.MouseButton.LeftButton))] == [RuntimeError]

    def signal_to_signal() -> None:
        source.fired.connect(lambda: None)
        action = QAction(source)
        action.triggered.connect(source.fired)  # how a menu item re-emits a window's signal
        action.trigger()

    assert slot_errors(qtbot, signal_to_signal) == []


@pytest.mark.qt_log_ignore("This plugin does not support grabbing the keyboard", extend=True)  # offscreen popups
def test_every_menu_item_and_button_of_the_main_window(qtbot, open_app, opened_urls, quits, demo_ws,  # noqa: F811
                                                       settings):
    knit = open_app()
    window, preview, ranking = knit.window, knit.window.preview, knit.ranking
    walk = Walk(qtbot, "main window")
    walk.scan(window)
    root = str(demo_ws)

    # --- the header ---
    def menu_opens() -> None:
        seen = []

        def look_and_close() -> None:
            seen.append([a.text() for a in window.menu.actions() if a.isVisible() and not a.isSeparator()])
            window.menu.close()

        QTimer.singleShot(200, look_and_close)  # the menu runs its own loop until closed
        qtbot.mouseClick(window.menu_button, Qt.MouseButton.LeftButton)
        qtbot.waitUntil(lambda: bool(seen), timeout=3000)
        assert seen[0][0] == "Refresh" and seen[0][-1] == "Quit"

    walk._run("MenuButton", "clicking", menu_opens, None)
    walk.click("WorkspaceBreadcrumb", lambda: assert_opened(opened_urls, QUrl.fromLocalFile(root)))
    walk.click("SortTime", lambda: qtbot.waitUntil(lambda: settings.sort == "time"
                                                   and window.result.mode == "time", timeout=10_000))
    walk.click("SortRelevance", lambda: qtbot.waitUntil(lambda: settings.sort == "relevance"
                                                        and window.result.mode == "relevance",
                                                        timeout=10_000))
    with qtbot.waitSignal(ranking.rankingChanged, timeout=10_000):
        walk.click("Refresh")
    # The Workspace / Library / Both switch: without a library folder, hidden beside the tabs and disabled in the
    # ⋯ menu with the line saying why (tests/test_library_scope_window.py clicks every state with a folder).
    walk.not_clickable("ScopeButton", "shown once a library folder exists")
    for scope in ("workspace", "library", "all"):
        walk.disabled(f"Workspace → Scope_{scope}", "enabled once a library folder exists")
    walk.disabled("Workspace → No library folder yet: add one in Settings → Library", "an explanation, not a command")
    walk.not_clickable("KindTabs ScrollLeftButton", "Qt's own, shown only when the kind tabs do not fit")
    walk.not_clickable("KindTabs ScrollRightButton", "Qt's own, shown only when the kind tabs do not fit")

    qtbot.keyClicks(window.topic_box, "offline attachments")
    walk.click("TopicBox clear button", lambda: qtbot.waitUntil(lambda: window.topic_box.text() == ""))  # (queued)
    walk.through("TopicBox clear", "TopicBox clear button")
    everything = window.model.shown
    qtbot.keyClicks(window.filter_box, "zh/")
    assert window.model.shown < everything
    walk.click("FilterBox clear button", lambda: qtbot.waitUntil(
        lambda: window.filter_box.text() == "" and window.model.shown == everything))
    walk.through("FilterBox clear", "FilterBox clear button")

    # --- the ⋯ menu ---
    with qtbot.waitSignal(ranking.rankingChanged, timeout=10_000):
        walk.trigger("⋯ → Refresh")
    walk.trigger("⋯ → Always on top", lambda: assert_equal(
        (settings.always_on_top, bool(window.windowFlags() & Qt.WindowType.WindowStaysOnTopHint),
         window.action_top.isChecked(), window.isVisible()), (True, True, True, True)))
    walk.trigger("⋯ → Always on top", lambda: assert_equal(
        (settings.always_on_top, bool(window.windowFlags() & Qt.WindowType.WindowStaysOnTopHint)), (False, False)))
    area = window.screen().availableGeometry()
    walk.trigger("⋯ → Dock to the left edge", lambda: assert_equal(
        (window.frameGeometry().left(), window.frameGeometry().top(), window.frameGeometry().height()),
        (area.left(), area.top(), area.height())))
    walk.trigger("⋯ → Dock to the right edge", lambda: assert_equal(
        (window.frameGeometry().right(), window.frameGeometry().height()), (area.right(), area.height())))
    walk.trigger("⋯ → Settings…", lambda: qtbot.waitUntil(lambda: knit._dialog is not None and knit._dialog.isVisible(),
                                                      timeout=3000))
    if knit._dialog is not None:
        knit._dialog.close()
    walk.trigger("⋯ → Memory…", lambda: qtbot.waitUntil(
        lambda: knit._memory_panel is not None and knit._memory_panel.isVisible(), timeout=3000))
    if knit._memory_panel is not None:
        knit._memory_panel.close()
    walk.trigger("⋯ → Conversation history…", lambda: qtbot.waitUntil(
        lambda: knit._history_panel is not None and knit._history_panel.isVisible(), timeout=3000))
    # The recall strip, as a new message referring back would show it (here: a session no longer on disk).
    window.recall_strip.show_recalled({"session": {"id": "s-gone", "title": "Earlier", "cwd": ""}, "terms": [],
                                       "event": {"start_seq": 1, "end_seq": 2, "matched_by": "fuzzy",
                                                 "snippets": [{"seq": 1, "role": "user", "text": "the cache"}]}})
    knit._history_panel.close()
    walk.click("RecallStripOpen", lambda: qtbot.waitUntil(
        lambda: knit._history_panel.isVisible()
        and "no longer on disk" in knit._history_panel.transcript.toPlainText(), timeout=5000))
    knit._history_panel.close()
    walk.click("RecallStripDismiss", lambda: assert_equal(window.recall_strip.isVisible(), False))

    # --- the preview of a Markdown document ---
    rel = "docs/attachment-cache.md"
    window.show_document(rel)
    qtbot.waitUntil(lambda: preview.data is not None and preview.data.rel == rel, timeout=10_000)
    walk.click("PathButton", lambda: assert_opened(opened_urls, QUrl.fromLocalFile(os.path.join(root, "docs"))))
    walk.click("OpenLocally", lambda: assert_opened(opened_urls, QUrl.fromLocalFile(os.path.join(root, rel))))
    walk.click("CopyCitation", lambda: assert_equal(
        QGuiApplication.clipboard().text().startswith(os.path.join(root, rel)), True))
    walk.click("CitationBar", lambda: assert_equal(preview.links_list.isVisible(), True),
               button=preview.links_button)
    cited = preview.links_list.item(0)  # follow a citation: Back and Forward show up
    qtbot.mouseClick(preview.links_list.viewport(), Qt.MouseButton.LeftButton,
                     pos=preview.links_list.visualItemRect(cited).center())
    qtbot.waitUntil(lambda: preview.rel != rel and preview.back_button.isVisible(), timeout=10_000)
    followed = preview.rel
    walk.click("PreviewBack", lambda: qtbot.waitUntil(lambda: preview.rel == rel, timeout=10_000))
    walk.click("PreviewForward", lambda: qtbot.waitUntil(lambda: preview.rel == followed, timeout=10_000))
    window.show_document(rel)
    qtbot.waitUntil(lambda: preview.data is not None and preview.data.rel == rel, timeout=10_000)
    walk.click("CitationBar", lambda: assert_equal(preview.links_list.isVisible(), False),
               button=preview.links_button)
    walk.click("Fullscreen", lambda: assert_equal((preview.fullscreen, window.header.isVisible(),
                                                   window.isFullScreen()), (True, False, True)))
    assert preview.full_button.text() == "Exit fullscreen"
    walk.click("Fullscreen", lambda: assert_equal((preview.fullscreen, window.header.isVisible(),
                                                   window.isFullScreen()), (False, True, False)),
               button=preview.full_button)
    walk.click("ClosePreview", lambda: assert_equal(preview.isVisible(), False))

    # --- a PDF's pages ---
    window.show_document("docs/sync-whitepaper.pdf")
    # (Shown once the panel and its page bar are on screen too: on a loaded machine the page could arrive first.)
    qtbot.waitUntil(lambda: preview.pages == 2 and preview.page_label.pixmap() is not None
                    and not preview.page_label.pixmap().isNull() and preview.next_page.isVisible(), timeout=10_000)
    assert preview.page == 1
    walk.click("▶", lambda: qtbot.waitUntil(lambda: preview.page == 2, timeout=10_000), button=preview.next_page)
    walk.click("◀", lambda: qtbot.waitUntil(lambda: preview.page == 1, timeout=10_000), button=preview.prev_page)

    # --- a video (where Qt Multimedia loads; elsewhere there is no player and so no buttons) ---
    player = preview.video_player  # made now, with the first video: its buttons join the walk
    if player is not None:
        from PySide6.QtMultimedia import QMediaPlayer

        walk.scan(player)

        window.show_document("assets/sync-demo.mp4")
        qtbot.waitUntil(lambda: preview.stack.currentWidget() is player and player.slider.maximum() > 0,
                        timeout=10_000)
        playing = QMediaPlayer.PlaybackState.PlayingState
        walk.click("PlayPause", lambda: qtbot.waitUntil(
            lambda: player.player.playbackState() == playing and player.play_button.toolTip() == "Pause",
            timeout=5000))
        walk.click("PlayPause", lambda: qtbot.waitUntil(lambda: player.player.playbackState() != playing,
                                                        timeout=5000))
        walk.click("Mute", lambda: assert_equal((player.audio.isMuted(), player.mute_button.toolTip()),
                                                (True, "Unmute")))
        walk.click("Mute", lambda: assert_equal(player.audio.isMuted(), False))
        window.close_preview()

    # --- the All view ---
    settings.kind = "all"
    qtbot.waitUntil(lambda: window.result is not None and window.result.kind == "all" and window.all_view.view_all.isVisible(),
                    timeout=10_000)
    walk.click("ViewAll", lambda: qtbot.waitUntil(
        lambda: settings.kind == "doc" and window.views.currentWidget() is window.list, timeout=10_000))

    # --- shown only in other states; clicked in tests/test_newcomer.py and tests/test_item_actions.py ---
    walk.not_clickable("ChooseFolder", "the newcomer screen shows only without a workspace (test_newcomer.py)")
    walk.not_clickable("OpenDemo", "the newcomer screen shows only without a workspace (test_newcomer.py)")
    walk.not_clickable("HiddenFooter", "shown only once a document is hidden (test_item_actions.py)")

    # --- and last, Quit ---
    walk.trigger("⋯ → Quit", lambda: assert_equal((quits, window.isVisible()), (["quit"], False)))
    walk.finish()


# A tray forced on where the offscreen platform has none: Qt says so once, harmlessly.
@pytest.mark.qt_log_ignore("No such signal QPlatformNativeInterface::systemTrayWindowChanged", extend=True)
def test_every_tray_menu_item(qtbot, open_app, quits, monkeypatch, settings):  # noqa: F811
    monkeypatch.setattr(tray_module.TrayPeek, "available", staticmethod(lambda: True))
    knit = open_app()
    settings.tray = False
    settings.tray = True  # the tray, made and wired as on a desktop that has one
    tray = knit.tray
    assert tray is not None
    walk = Walk(qtbot, "tray menu", key=tray_action_key, menu="tray")
    walk.scan(tray.menu)  # before the first ranking reaches it
    empty = walk.one("tray → No Markdown documents in this workspace yet.")
    walk.trigger("tray → No Markdown documents in this workspace yet.",
                 lambda: assert_equal((empty.isEnabled(), knit.window.preview.isVisible()), (False, False)))

    with qtbot.waitSignal(knit.ranking.rankingChanged, timeout=10_000):
        knit.window.refresh()
    walk.scan(tray.menu)
    documents = walk.found["tray → document"]
    assert len(documents) == 5
    for action in documents:
        knit.window.hide()
        walk.trigger("tray → document", lambda a=action: assert_equal(
            (knit.window.isVisible(), knit.window.preview.isVisible(), knit.window.preview.rel),
            (True, True, a.toolTip())), action=action)
    walk.trigger("tray → Show / Hide", lambda: assert_equal(knit.window.isVisible(), False))
    walk.trigger("tray → Show / Hide", lambda: assert_equal(knit.window.isVisible(), True))
    walk.trigger("tray → Quit", lambda: assert_equal((quits, knit.window.isVisible()), (["quit"], False)))
    walk.finish()


def test_every_button_of_the_settings_dialog(qtbot, open_app, make_workspace, monkeypatch, settings):  # noqa: F811
    knit = open_app()
    knit.show_settings()
    dialog = knit._dialog
    qtbot.waitUntil(dialog.isVisible)
    walk = Walk(qtbot, "settings dialog")
    walk.scan(dialog)
    window = knit.window

    other = make_workspace({"only.md": "# The only document\n\nnothing else here\n"}, name="other")
    asked = []

    def choose(parent, caption, start):
        asked.append(caption)
        return str(other)

    monkeypatch.setattr(QFileDialog, "getExistingDirectory", staticmethod(choose))
    walk.click("Choose…", lambda: qtbot.waitUntil(
        lambda: settings.workspace == str(other) and dialog.fixed.isChecked() and window.model.shown == 1,
        timeout=10_000))
    assert asked == ["Choose the workspace folder"]
    walk.click("FollowSession", lambda: assert_equal((settings.workspace, dialog.folder.isEnabled()), ("", False)))
    walk.click("FixedFolder", lambda: assert_equal((settings.workspace, dialog.folder.isEnabled()),
                                                   (str(other), True)))
    walk.click("Keep the window on top", lambda: assert_equal(
        (settings.always_on_top, bool(window.windowFlags() & Qt.WindowType.WindowStaysOnTopHint)), (True, True)))
    walk.click("Keep the window on top", lambda: assert_equal(settings.always_on_top, False),
               button=dialog.on_top)
    walk.click("Show the tray icon", lambda: assert_equal(settings.tray, False))
    walk.click("Show the tray icon", lambda: assert_equal((settings.tray, knit.tray), (True, None)),
               button=dialog.tray)  # (the offscreen platform has no tray)
    walk.click("Show usage (what the session read of the last pack)", lambda: assert_equal(settings.show_usage, True))
    settings.note_position = (40, 40)
    walk.click("ResetNotePosition", lambda: assert_equal(settings.note_position, None))
    asked.clear()
    walk.click("AddLibraryFolder", lambda: assert_equal((asked, settings.library_folders, dialog.library.folders.count()),
                                                   (["Choose a library folder"], [str(other.resolve())], 1)))
    dialog.library.folders.setCurrentRow(0)
    walk.click("RemoveLibraryFolder", lambda: assert_equal((settings.library_folders, dialog.library.folders.count()), ([], 0)))
    walk.click("Close", lambda: assert_equal(dialog.isVisible(), False))
    walk.finish()


def test_every_button_of_the_memory_panel_and_of_a_sticky_note(qtbot, open_app, tmp_path, settings):  # noqa: F811
    knit = open_app()
    knit.window.memoryRequested.emit()
    panel = knit._memory_panel
    qtbot.waitUntil(lambda: panel is not None and panel.isVisible())
    walk = Walk(qtbot, "memory panel")
    walk.scan(panel)

    def in_new_memory_dir(name: str) -> Path:
        folder = tmp_path / name
        settings.memory_dir = str(folder)
        panel.reload()
        assert panel.empty.isVisible() and str(folder) in panel.empty_text.text()  # names the folder chosen now
        return folder

    first = Path(knit.memory.memory_dir)
    walk.click("Template-three", lambda: assert_equal(
        (sorted(p.name for p in first.iterdir()), panel.tree.topLevelItemCount(), panel.empty.isVisible()),
        (["01-偏好.md", "02-项目.md", "03-环境.md"], 3, False)))
    eight = in_new_memory_dir("memory-eight")
    walk.click("Template-eight", lambda: assert_equal(len(list(eight.iterdir())), 8))
    english = in_new_memory_dir("memory-english")
    walk.click("Template-english", lambda: assert_equal(
        sorted(p.name for p in english.iterdir()), ["environment.md", "preferences.md", "projects.md"]))
    assert panel.result.text() == "Created: preferences.md, projects.md, environment.md"
    qtbot.keyClicks(panel.search, "projects")
    walk.click("MemorySearch clear button", lambda: qtbot.waitUntil(
        lambda: panel.search.text() == "" and not panel.tree.topLevelItem(0).isHidden()))
    walk.through("MemorySearch clear", "MemorySearch clear button")
    walk.finish()

    knit.memory.propose("Answer in short sentences", "preferences.md", "Communication", "preference")
    knit.memory.propose("Not worth keeping", "preferences.md", "Communication")
    knit.notes.refresh()
    qtbot.waitUntil(lambda: len(knit.notes.notes) == 2 and knit.notes.note.isVisible(), timeout=3000)
    front, back = knit.notes.notes.values()
    walk = Walk(qtbot, "sticky note")
    walk.scan(front, back)
    path = english / "preferences.md"
    walk.click("Remember", lambda: assert_equal(
        ("- Answer in short sentences" in path.read_text(encoding="utf-8"), front.isVisible(), len(knit.notes.notes)),
        (True, False, 1)), button=front.remember_button)
    before = path.read_text(encoding="utf-8")
    walk.click("Dismiss", lambda: assert_equal(
        (knit.memory.queue.pending(), path.read_text(encoding="utf-8"), back.isVisible()), ([], before, False)),
        button=back.dismiss_button)
    walk.finish()


def test_every_button_of_the_history_panel(qtbot, tmp_path, settings):
    from knit_desktop.ui.app import KnitApp

    from .dsh_fixtures import DshLog

    home, project = tmp_path / "dsh", tmp_path / "project"
    project.mkdir()
    log = DshLog(home, "s1", str(project))
    log.append_rows([log.title("Cache design"), log.user("Move the attachment cache to a content-addressed store."),
                     log.assistant("Agreed: keyed by sha256.")]
                    + [log.user(f"Step {i}") if i % 2 == 0 else log.assistant(f"Done {i}") for i in range(8)])
    knit = KnitApp(workspace=str(project), dsh_home=str(home), messages=None, settings=settings, persistent=False)
    try:
        knit.show_history()
        panel = knit._history_panel
        qtbot.waitUntil(lambda: panel._indexed is not None and panel._indexed["messages"] == 10, timeout=10_000)
        walk = Walk(qtbot, "history panel")
        walk.scan(panel)
        qtbot.keyClicks(panel.query, "content adressed")
        walk.click("HistorySearch", lambda: qtbot.waitUntil(lambda: panel.results.topLevelItemCount() == 1,
                                                            timeout=10_000))
        walk.click("HistoryOpen", lambda: qtbot.waitUntil(
            lambda: "content-addressed" in panel.transcript.toPlainText(), timeout=10_000))
        walk.click("HistoryLater", lambda: qtbot.waitUntil(lambda: "Step 4" in panel.transcript.toPlainText(),
                                                           timeout=10_000))
        walk.click("HistoryEarlier", lambda: qtbot.waitUntil(lambda: "Cache design" in panel.transcript_title.text(),
                                                             timeout=10_000))
        walk.click("HistoryCopyQuote", lambda: assert_equal(
            QApplication.clipboard().text().startswith("> Move the attachment cache"), True))
        walk.click("HistoryQuery clear button", lambda: qtbot.waitUntil(lambda: panel.query.text() == ""))
        walk.through("HistoryQuery clear", "HistoryQuery clear button")
        walk.finish()
    finally:
        knit.close()


def test_every_button_of_the_larger_preview_window(qtbot, open_app, opened_urls, demo_ws):  # noqa: F811
    knit = open_app()
    window = knit.window
    rel = "docs/attachment-cache.md"
    window.open_preview_window(rel)
    separate = window._preview_windows[0]
    pane = separate.findChild(type(window.preview))
    qtbot.waitUntil(lambda: pane.data is not None, timeout=10_000)
    walk = Walk(qtbot, "larger preview window")
    walk.scan(separate)
    walk.click("PathButton", lambda: assert_opened(opened_urls, QUrl.fromLocalFile(os.path.join(str(demo_ws), "docs"))))
    walk.click("OpenLocally", lambda: assert_opened(opened_urls, QUrl.fromLocalFile(os.path.join(str(demo_ws), rel))))
    walk.click("CopyCitation", lambda: assert_equal(
        QGuiApplication.clipboard().text(), os.path.join(str(demo_ws), rel)
        + (f" — lines {pane.passages[0].start_line}–{pane.passages[0].end_line}" if pane.passages else "")))
    walk.click("CitationBar", lambda: assert_equal(pane.links_list.isVisible(), True))
    walk.click("Fullscreen", lambda: assert_equal((pane.fullscreen, separate.isFullScreen()), (True, True)))
    walk.click("Fullscreen", lambda: assert_equal((pane.fullscreen, separate.isFullScreen()), (False, False)),
               button=pane.full_button)
    walk.not_clickable("ClosePreview", "hidden: the window's own title bar closes it")
    walk.not_clickable("PreviewBack", "shown once a link was followed (the main window's walk clicks them)")
    walk.not_clickable("PreviewForward", "shown once a link was followed (the main window's walk clicks them)")
    walk.not_clickable("▶", "the PDF page buttons, hidden for a Markdown document")
    walk.not_clickable("◀", "the PDF page buttons, hidden for a Markdown document")
    assert "PlayPause" not in walk.found  # the video controls come with the first video, none for a Markdown one
    walk.finish()


def test_what_the_window_opens_does_not_inherit_knits_one_blas_thread(qtbot, open_app, monkeypatch, demo_ws):  # noqa: F811
    """The folder or file a click opens starts a program (xdg-open and the application it runs) with the window's
    environment; Knit's OPENBLAS_NUM_THREADS=1, set for its own processes, is not passed on to it."""
    import knit_desktop

    monkeypatch.setattr(knit_desktop, "_blas_default", True)  # as in a window started without the variable
    monkeypatch.setenv("OPENBLAS_NUM_THREADS", "1")
    launched: list[tuple[str, str]] = []
    monkeypatch.setattr(QDesktopServices, "openUrl", staticmethod(
        lambda url: launched.append((url.toLocalFile(), os.environ.get("OPENBLAS_NUM_THREADS", "-"))) or True))
    knit = open_app()
    try:
        window, rel = knit.window, "docs/attachment-cache.md"
        header_folder = window.findChild(QAbstractButton, "WorkspaceBreadcrumb")
        qtbot.mouseClick(header_folder, Qt.MouseButton.LeftButton)
        window.show_document(rel)
        qtbot.waitUntil(lambda: window.preview.data is not None and window.preview.data.rel == rel, timeout=10_000)
        qtbot.mouseClick(window.preview.findChild(QAbstractButton, "OpenLocally"), Qt.MouseButton.LeftButton)
        assert launched == [(str(demo_ws), "-"), (os.path.join(str(demo_ws), rel), "-")]
    finally:
        knit.close()


def assert_equal(actual, expected) -> None:
    assert actual == expected


def assert_opened(urls: list[QUrl], expected: QUrl) -> None:
    assert urls and urls[-1] == expected, f"opened {[u.toString() for u in urls]}, expected {expected.toString()}"


def test_a_document_shown_from_outside_the_list_stays_when_the_next_ranking_comes(qtbot, open_app, demo_ws):  # noqa: F811
    """A link, a citation or the tray shows a document the list does not hold; the row selected before must not
    be selected again by the next ranking (the conversation moved on), whose preview would then replace the
    document on show: a video the user was watching stopped and the previous row's preview came back."""
    from PySide6.QtGui import QTextCursor

    from knit_desktop.ui.document_model import KeyRole

    (demo_ws / "docs" / "watch-first.md").write_text(
        "# Watch first\n\nThe sync walkthrough: [the recording](../assets/sync-demo.mp4).\n", encoding="utf-8")
    knit = open_app()
    window, preview, ranking = knit.window, knit.window.preview, knit.ranking
    view, listed = window.list, "docs/watch-first.md"
    qtbot.waitUntil(lambda: window.model.row_of(listed) >= 0, timeout=10_000)
    row = window.model.index(window.model.row_of(listed))
    view.scrollTo(row)
    qtbot.mouseClick(view.viewport(), Qt.MouseButton.LeftButton, pos=view.visualRect(row).center())
    assert row.data(KeyRole) == listed
    qtbot.waitUntil(lambda: preview.data is not None and preview.data.rel == listed, timeout=10_000)
    # Click the link in the preview, as a user follows it to the video (which the list of documents does not hold).
    browser = preview.browser
    found = browser.document().find("the recording")
    assert not found.isNull()
    cursor = QTextCursor(found)
    cursor.setPosition(found.selectionStart() + 2)
    qtbot.mouseClick(browser.viewport(), Qt.MouseButton.LeftButton, pos=browser.cursorRect(cursor).center())
    unlisted = "assets/sync-demo.mp4"
    qtbot.waitUntil(lambda: preview.rel == unlisted, timeout=10_000)
    assert window.model.row_of(unlisted) < 0  # (the list shows text documents; the video is in the grid)
    with qtbot.waitSignal(ranking.rankingChanged, timeout=10_000):
        qtbot.keyClicks(window.topic_box, "attachment cache")  # a new topic: a new ranking, as the conversation's
    qtbot.wait(50)
    assert (preview.rel, view.current_key()) == (unlisted, "")
