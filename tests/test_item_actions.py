"""The right-click menu on documents and thumbnails, dragging a document out, pin and hide in the window.

Every menu entry is chosen by a click on the menu item (QTest) in the menu a right-click's event opened."""

from __future__ import annotations

import os

import pytest
from PySide6.QtCore import QPoint, Qt, QTimer
from PySide6.QtGui import QContextMenuEvent, QDrag, QGuiApplication
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication, QMenu

from knit_desktop.core.index.pins import Pins
from knit_desktop.ui import item_actions as item_actions_module

from . import test_window
from .test_window import doc_rels

demo_ws = test_window.demo_ws  # the window tests' fixtures: the demo workspace, and the app opened on it
open_app = test_window.open_app


def right_click_and_choose(qtbot, view, row: int, action_name: str) -> list[str]:
    """Right-click the row in its view as a user does, then click the named entry; returns the menu's texts."""
    index = view.model().index(row, 0)
    view.scrollTo(index)
    centre = view.visualRect(index).center()
    seen: list[str] = []

    def choose() -> None:
        menu = QApplication.activePopupWidget()
        if not isinstance(menu, QMenu):
            QTimer.singleShot(20, choose)
            return
        seen.extend(a.text() for a in menu.actions() if not a.isSeparator())
        action = next(a for a in menu.actions() if a.objectName() == action_name)
        QTest.mouseClick(menu, Qt.MouseButton.LeftButton, pos=menu.actionGeometry(action).center())

    QTimer.singleShot(0, choose)
    # The event a right-click makes (QTest's synthetic clicks on a window lose the second context-menu event
    # offscreen after other window tests; the real-X end-to-end test right-clicks with real input events).
    viewport = view.viewport()
    QApplication.sendEvent(viewport, QContextMenuEvent(QContextMenuEvent.Reason.Mouse, centre,
                                                       viewport.mapToGlobal(centre)))
    qtbot.waitUntil(lambda: bool(seen), timeout=5000)
    return seen


def test_copy_entries_put_the_path_relative_path_and_markdown_link_on_the_clipboard(qtbot, open_app, demo_ws):
    knit = open_app()
    window = knit.window
    row = window.model.document_rows()[0]
    rel = window.model.rows[row].rel
    title = window.model.rows[row].item.title
    texts = right_click_and_choose(qtbot, window.list, row, "CopyPath")
    assert texts == ["Open", "Open with system app", "Show in folder", "Copy path", "Copy relative path",
                     "Copy as Markdown link", "Pin to the top", "Hide from the list"]
    clipboard = QGuiApplication.clipboard()
    qtbot.waitUntil(lambda: clipboard.text() == os.path.realpath(demo_ws / rel))
    right_click_and_choose(qtbot, window.list, row, "CopyRelativePath")
    qtbot.waitUntil(lambda: clipboard.text() == rel)
    right_click_and_choose(qtbot, window.list, row, "CopyMarkdownLink")
    qtbot.waitUntil(lambda: clipboard.text().startswith(f"[{title}]("))


def test_pin_puts_a_document_in_a_pinned_tier_that_survives_a_restart(qtbot, open_app, demo_ws, settings):
    knit = open_app()
    window = knit.window
    last = doc_rels(window.model)[-1]
    right_click_and_choose(qtbot, window.list, window.model.row_of(last), "Pin")
    qtbot.waitUntil(lambda: window.model.rows[0].tier == "pinned" and window.model.rows[1].rel == last,
                    timeout=10_000)
    knit.close()
    again = open_app()  # a restart: the pin is read back from Knit's data folder
    qtbot.waitUntil(lambda: again.window.model.rows[0].tier == "pinned", timeout=10_000)
    assert again.window.model.rows[1].rel == last
    assert Pins.load(str(demo_ws)).pinned == [last]
    right_click_and_choose(qtbot, again.window.list, 1, "Pin")  # now reads "Unpin"
    qtbot.waitUntil(lambda: again.window.model.rows[0].tier != "pinned", timeout=10_000)


def test_hide_removes_a_document_until_unhidden_from_the_footer(qtbot, open_app, demo_ws):
    knit = open_app()
    window = knit.window
    first = doc_rels(window.model)[0]
    assert not window.hidden_footer.isVisible()
    right_click_and_choose(qtbot, window.list, window.model.row_of(first), "Hide")
    qtbot.waitUntil(lambda: window.model.row_of(first) < 0, timeout=10_000)
    assert window.hidden_footer.isVisible() and window.hidden_footer.text() == "Hidden (1)"

    def choose_unhide_all() -> None:
        menu = QApplication.activePopupWidget()
        if not isinstance(menu, QMenu):
            QTimer.singleShot(20, choose_unhide_all)
            return
        action = next(a for a in menu.actions() if a.objectName() == "UnhideAll")
        QTest.mouseClick(menu, Qt.MouseButton.LeftButton, pos=menu.actionGeometry(action).center())

    QTimer.singleShot(0, choose_unhide_all)
    qtbot.mouseClick(window.hidden_footer, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: window.model.row_of(first) >= 0, timeout=10_000)
    assert not window.hidden_footer.isVisible()


def test_the_media_grid_has_the_same_menu(qtbot, open_app):
    knit = open_app()
    window = knit.window
    qtbot.mouseClick(window.kind_tabs, Qt.MouseButton.LeftButton, pos=window.kind_tabs.tabRect(1).center())
    qtbot.waitUntil(lambda: window.grid_model.rowCount() > 0, timeout=10_000)
    rel = window.grid_model.items[0].rel
    right_click_and_choose(qtbot, window.grid, 0, "CopyRelativePath")
    qtbot.waitUntil(lambda: QGuiApplication.clipboard().text() == rel)


def test_open_with_no_app_registered_says_so(qtbot, open_app, monkeypatch):
    knit = open_app()
    window = knit.window
    monkeypatch.setattr(item_actions_module.QDesktopServices, "openUrl", staticmethod(lambda url: False))
    right_click_and_choose(qtbot, window.list, window.model.document_rows()[0], "OpenWithSystem")
    qtbot.waitUntil(lambda: "No app is registered to open" in window.status_label.text())
    assert window.status_label.isVisible()


def test_dragging_a_row_carries_the_file_and_its_path(qtbot, open_app, demo_ws, monkeypatch):
    knit = open_app()
    window = knit.window
    carried = []
    monkeypatch.setattr(QDrag, "exec", lambda self, *a: carried.append(self.mimeData()) or Qt.DropAction.CopyAction)
    row = window.model.document_rows()[0]
    rel = window.model.rows[row].rel
    index = window.model.index(row)
    start = window.list.visualRect(index).center()
    viewport = window.list.viewport()
    QTest.mousePress(viewport, Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier, start)
    QTest.mouseMove(viewport, start + QPoint(40, 6))
    QTest.mouseRelease(viewport, Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier, start + QPoint(40, 6))
    assert carried, "no drag started"
    mime = carried[0]
    path = os.path.realpath(demo_ws / rel)
    assert [u.toLocalFile() for u in mime.urls()] == [path] and mime.text() == path


def test_typing_a_topic_brings_the_new_top_results_into_view(qtbot, open_app):
    knit = open_app()
    window = knit.window
    window.resize(420, 520)  # a short list: the last row and the first cannot both be in view
    last = window.model.index(window.model.document_rows()[-1])
    window.list.scrollTo(last)
    qtbot.mouseClick(window.list.viewport(), Qt.MouseButton.LeftButton, pos=window.list.visualRect(last).center())
    assert not window.list.viewport().rect().intersects(window.list.visualRect(window.model.index(0)))
    qtbot.mouseClick(window.topic_box, Qt.MouseButton.LeftButton)
    initial = window.result.docs.topic
    QTest.keyClicks(window.topic_box, "conflict banner resolution")
    qtbot.waitUntil(lambda: window.result.docs.topic != initial, timeout=10_000)
    first = window.model.index(window.model.document_rows()[0])
    qtbot.waitUntil(lambda: window.list.viewport().rect().intersects(window.list.visualRect(first)), timeout=5000)


def test_open_locally_with_no_app_registered_says_so(qtbot, open_app, monkeypatch):
    knit = open_app()
    window = knit.window
    monkeypatch.setattr(item_actions_module.QDesktopServices, "openUrl", staticmethod(lambda url: False))
    row = window.model.document_rows()[0]
    qtbot.mouseClick(window.list.viewport(), Qt.MouseButton.LeftButton,
                     pos=window.list.visualRect(window.model.index(row)).center())
    qtbot.waitUntil(window.preview.isVisible)
    qtbot.mouseClick(window.preview.open_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: "No app is registered to open" in window.status_label.text())


def test_esc_in_the_topic_box_clears_the_topic_and_leaves_the_preview_open(qtbot, open_app):
    knit = open_app()
    window = knit.window
    row = window.model.document_rows()[0]
    qtbot.mouseClick(window.list.viewport(), Qt.MouseButton.LeftButton,
                     pos=window.list.visualRect(window.model.index(row)).center())
    qtbot.waitUntil(window.preview.isVisible)
    qtbot.mouseClick(window.topic_box, Qt.MouseButton.LeftButton)
    QTest.keyClicks(window.topic_box, "conflict banner")
    qtbot.waitUntil(lambda: knit.ranking.topic == "conflict banner", timeout=5000)
    QTest.keyClick(window.topic_box, Qt.Key.Key_Escape)
    assert window.topic_box.text() == "" and window.preview.isVisible()
    qtbot.waitUntil(lambda: knit.ranking.topic == "", timeout=5000)


def test_the_default_size_fits_the_available_screen_at_scale_two(tmp_path):
    """At QT_SCALE_FACTOR=2 the offscreen screen is 400 × 400 logical pixels: 440 × 760 would not fit."""
    import subprocess
    import sys

    script = (
        "import sys\n"
        "from PySide6.QtWidgets import QApplication\n"
        "from knit_desktop.ui.app import KnitApp\n"
        "from knit_desktop.ui.settings import Settings\n"
        "app = QApplication(sys.argv[:1])\n"
        f"knit = KnitApp(workspace=None, dsh_home={str(tmp_path / 'no-dsh')!r}, messages=[],"
        f" settings=Settings({str(tmp_path / 'settings.ini')!r}), persistent=False)\n"
        "knit.window.show()\n"
        "area = knit.window.screen().availableGeometry()\n"
        "print(knit.window.width(), knit.window.height(), area.width(), area.height())\n"
        "knit.close()\n"
    )
    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen", "QT_SCALE_FACTOR": "2", "KNIT_DESKTOP_HOME": str(tmp_path),
           "PYTHONPATH": os.path.dirname(os.path.dirname(os.path.abspath(__file__)))}
    out = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    width, height, area_w, area_h = map(int, out.stdout.split()[-4:])
    assert width <= area_w and height + 40 <= area_h


@pytest.mark.qt_log_ignore("No such signal QPlatformNativeInterface::systemTrayWindowChanged", extend=True)
def test_closing_to_the_tray_is_said_once(qtbot, open_app, settings, monkeypatch):
    from PySide6.QtWidgets import QSystemTrayIcon

    from knit_desktop.ui import tray as tray_module

    monkeypatch.setattr(tray_module.TrayPeek, "available", staticmethod(lambda: True))
    told = []
    monkeypatch.setattr(QSystemTrayIcon, "showMessage", lambda self, title, text, *a: told.append((title, text)))
    knit = open_app()
    settings.tray = False
    settings.tray = True
    QApplication.setQuitOnLastWindowClosed(False)  # as `run` sets it where a tray is available
    try:
        knit.window.close()  # the window manager's close button sends this close event
        assert len(told) == 1 and "tray" in told[0][1]
        knit.window.show()
        knit.window.close()
        assert len(told) == 1 and settings.told_about_tray  # once, remembered
    finally:
        QApplication.setQuitOnLastWindowClosed(True)


def test_back_and_forward_after_following_links(qtbot, open_app):
    knit = open_app()
    window = knit.window
    preview = window.preview
    window.show_document("docs/attachment-cache.md")
    browser = preview.browser
    qtbot.waitUntil(lambda: "sync protocol" in browser.toPlainText(), timeout=10_000)
    assert not preview.back_button.isVisible()
    found = browser.document().find("sync protocol")
    browser.setTextCursor(found)
    browser.ensureCursorVisible()
    rect = browser.cursorRect(found)
    at = rect.center() - QPoint(rect.width() // 2 + 20, 0)  # inside the link's text, left of the cursor
    qtbot.mouseClick(browser.viewport(), Qt.MouseButton.LeftButton, pos=at)
    qtbot.waitUntil(lambda: preview.rel == "docs/sync-protocol.md", timeout=10_000)
    assert preview.back_button.isVisible() and preview.back_button.isEnabled()
    assert not preview.forward_button.isEnabled()
    QTest.keyClick(browser, Qt.Key.Key_Left, Qt.KeyboardModifier.AltModifier)
    qtbot.waitUntil(lambda: preview.rel == "docs/attachment-cache.md", timeout=10_000)
    assert preview.forward_button.isEnabled() and not preview.back_button.isEnabled()
    QTest.keyClick(browser, Qt.Key.Key_Right, Qt.KeyboardModifier.AltModifier)
    qtbot.waitUntil(lambda: preview.rel == "docs/sync-protocol.md", timeout=10_000)
    qtbot.mouseClick(preview.back_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: preview.rel == "docs/attachment-cache.md", timeout=10_000)


def test_filter_matches_are_marked_in_titles_and_summaries(qtbot, open_app):
    from knit_desktop.ui.colours import row_colours

    knit = open_app()
    window = knit.window
    window.resize(480, 820)
    marked = row_colours(window.list.palette()).match_background.name()

    def painted() -> set[str]:
        image = window.list.viewport().grab().toImage()
        return {image.pixelColor(x, y).name() for x in range(0, image.width(), 2) for y in range(0, image.height(), 2)}

    assert marked not in painted()
    qtbot.mouseClick(window.filter_box, Qt.MouseButton.LeftButton)
    QTest.keyClicks(window.filter_box, "sync")
    qtbot.waitUntil(lambda: window.model.needle == "sync")
    qtbot.waitUntil(lambda: marked in painted(), timeout=5000)


def test_the_window_title_says_how_the_list_is_sorted(qtbot, open_app):
    knit = open_app()
    window = knit.window
    qtbot.waitUntil(lambda: window.windowTitle() == "Knit — documents by relevance")
    qtbot.mouseClick(window.time_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: window.windowTitle() == "Knit — recent documents", timeout=10_000)
