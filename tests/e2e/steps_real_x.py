"""The steps of the real-X test, run by `test_real_x.py` in a child pytest with QT_QPA_PLATFORM=xcb and DISPLAY
set to its Xvfb. Every input is a real X event from xdotool at a widget's place on the screen; the checks read the
widgets. Each step saves a screenshot of the whole X screen (window manager frame, tray and all)."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest
from PySide6.QtCore import QPoint, Qt, QTimer
from PySide6.QtGui import QGuiApplication
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication, QMenu, QWidget

from knit_desktop.core.dsh.conversation import load_messages
from knit_desktop.demo import prepare_demo_workspace
from knit_desktop.resources import demo_conversation
from knit_desktop.ui.app import KnitApp

if os.environ.get("QT_QPA_PLATFORM") != "xcb" or not os.environ.get("DISPLAY"):
    pytest.skip("run by test_real_x.py under its X server", allow_module_level=True)

LANGUAGE = os.environ.get("KNIT_E2E_LANGUAGE", "en")
SHOTS = Path(os.environ.get("KNIT_E2E_SCREENSHOTS", "."))
PREFS = "# Preferences\n\n## Editor\n<!-- tags: editor -->\n- vim keys\n"


def xdo(*args: str) -> None:
    subprocess.run(["xdotool", *args], check=True, timeout=20)


_running: list[subprocess.Popen] = []


def xdo_later(*args: str) -> None:
    """A chain of xdotool commands sent while Qt runs: a click that opens a menu with exec(), or a drag (QDrag
    runs its own event loop), would otherwise wait for this code, which waits for them."""
    _running.append(subprocess.Popen(["xdotool", *args]))


def moves(start: QPoint, end: QPoint, steps: int, pause: str = "0.04") -> list[str]:
    out: list[str] = []
    for step in range(1, steps + 1):
        x = start.x() + (end.x() - start.x()) * step // steps
        y = start.y() + (end.y() - start.y()) * step // steps
        out += ["mousemove", "--sync", str(x), str(y), "sleep", pause]
    return out


def screen_point(widget: QWidget, point: QPoint | None = None) -> QPoint:
    """A widget's point in X screen pixels (logical coordinates times the device pixel ratio)."""
    local = point if point is not None else widget.rect().center()
    logical = widget.mapToGlobal(local)
    ratio = widget.devicePixelRatioF()
    return QPoint(round(logical.x() * ratio), round(logical.y() * ratio))


def click(widget: QWidget, point: QPoint | None = None, button: int = 1) -> None:
    where = screen_point(widget, point)
    xdo_later("mousemove", "--sync", str(where.x()), str(where.y()), "click", str(button))
    for process in _running:
        process.wait(20)  # sent; Qt handles it when this code next waits (qtbot), menus included
    _running.clear()


def shot(name: str) -> Path:
    QTest.qWait(400)  # the window manager maps and the app repaints what just changed before the capture
    path = SHOTS / f"{name}-{LANGUAGE}.png"
    assert QGuiApplication.primaryScreen().grabWindow(0).save(str(path))
    return path


def when_menu(pick, shoot: str = "") -> list:
    """Once a popup menu shows (maybe inside its own exec() loop), click the action `pick(menu)` names with a
    real click; returns a list that holds the action once it was clicked."""
    done: list = []

    def poll() -> None:
        menu = QApplication.activePopupWidget()
        if not isinstance(menu, QMenu) or not menu.isVisible():
            QTimer.singleShot(50, poll)
            return
        if not done:
            done.append(None)  # seen: give the window manager a moment to place it
            QTimer.singleShot(250, poll)
            return
        action = pick(menu)
        if shoot:
            shot(shoot)
        where = screen_point(menu, menu.actionGeometry(action).center())
        done[0] = action
        xdo("mousemove", "--sync", str(where.x()), str(where.y()), "click", "1")

    QTimer.singleShot(0, poll)
    return done


def named(name: str):
    return lambda menu: next(a for a in menu.actions() if a.objectName() == name)


class DropTarget(QWidget):
    """A window that records what is dropped on it, as a chat box or a file manager would receive it."""

    def __init__(self) -> None:
        super().__init__(None, Qt.WindowType.Window)
        self.setWindowTitle("Drop target")
        self.setAcceptDrops(True)
        self.received: list[tuple[list[str], str]] = []

    def dragEnterEvent(self, event) -> None:
        event.acceptProposedAction()

    def dragMoveEvent(self, event) -> None:
        event.acceptProposedAction()

    def dropEvent(self, event) -> None:
        mime = event.mimeData()
        self.received.append(([u.toString() for u in mime.urls()], mime.text()))
        event.acceptProposedAction()


@pytest.fixture
def knit(qtbot, tmp_path, settings):
    memory = tmp_path / "memory"
    memory.mkdir()
    (memory / "preferences.md").write_text(PREFS, encoding="utf-8")
    settings.memory_dir = str(memory)
    settings.language = LANGUAGE
    settings.kind = "doc"
    demo = prepare_demo_workspace(dest=tmp_path / "demo")
    app = KnitApp(workspace=str(demo), dsh_home=str(tmp_path / "no-dsh"),
                  messages=load_messages(str(demo_conversation())), settings=settings, persistent=False)
    app.demo = demo
    app.window.setGeometry(80, 60, 520, 800)
    app.window.show()
    app.window.raise_()
    app.window.activateWindow()
    qtbot.waitExposed(app.window)
    qtbot.waitUntil(lambda: app.window.model.shown > 0, timeout=20_000)
    qtbot.wait(300)
    yield app
    app.close()


def test_a_user_session_under_real_x(qtbot, knit, tmp_path):
    window = knit.window
    shot("01-start")

    # ⋯ menu → Settings → switch the language → back
    chosen = when_menu(lambda menu: window.header.action_settings)
    click(window.menu_button)
    qtbot.waitUntil(lambda: bool(chosen) and chosen[0] is not None, timeout=10_000)
    qtbot.waitUntil(lambda: knit._dialog is not None and knit._dialog.isVisible(), timeout=5000)
    dialog = knit._dialog
    qtbot.waitExposed(dialog)
    other = "zh_CN" if LANGUAGE == "en" else "en"
    combo = dialog.language
    click(combo)
    qtbot.waitUntil(lambda: combo.view().isVisible(), timeout=5000)
    qtbot.wait(150)
    row = combo.findData(other)
    click(combo.view().viewport(), combo.view().visualRect(combo.model().index(row, 0)).center())
    qtbot.waitUntil(lambda: knit.settings.language == other, timeout=5000)
    qtbot.waitUntil(lambda: window.relevance_button.text() == ("相关" if other == "zh_CN" else "Relevant"), timeout=5000)
    shot("02-language-switched")
    click(combo)
    qtbot.waitUntil(lambda: combo.view().isVisible(), timeout=5000)
    qtbot.wait(150)
    click(combo.view().viewport(), combo.view().visualRect(combo.model().index(combo.findData(LANGUAGE), 0)).center())
    qtbot.waitUntil(lambda: knit.settings.language == LANGUAGE, timeout=5000)
    dialog.close()

    # All first, then Images & video: the thumbnails arrive
    click(window.kind_tabs, window.kind_tabs.tabRect(2).center())
    qtbot.waitUntil(lambda: window.active_view() is window.all_view, timeout=10_000)
    qtbot.wait(800)
    click(window.kind_tabs, window.kind_tabs.tabRect(1).center())
    qtbot.waitUntil(lambda: window.active_view() is window.grid and window.grid_model.rowCount() > 0, timeout=10_000)
    model = window.grid_model
    qtbot.waitUntil(lambda: all(model.thumbnail(r) is not None for r in range(model.rowCount())), timeout=20_000)
    shot("03-images-after-all")

    # the demo's video: click its tile, click play, then type a topic: the new ranking leaves it playing
    preview, video = window.preview, "assets/sync-demo.mp4"
    tile = model.index(model.row_of(video), 0)
    window.grid.scrollTo(tile)
    qtbot.wait(100)
    click(window.grid.viewport(), window.grid.visualRect(tile).center())
    player = preview.video_player
    assert player is not None  # the real-X run has Qt Multimedia (selftest checks it too)
    qtbot.waitUntil(lambda: preview.stack.currentWidget() is player and player.slider.maximum() > 0, timeout=10_000)
    click(player.play_button)
    qtbot.waitUntil(lambda: player.player.position() > 300, timeout=10_000)
    click(window.topic_box)
    before = window.result
    xdo("type", "--delay", "30", "sync demo")
    qtbot.waitUntil(lambda: window.result is not before and knit.ranking.topic == "sync demo", timeout=10_000)
    qtbot.wait(300)
    assert window.grid.current_key() == video and preview.rel == video
    assert player.slider.value() > 300 and player.play_button.toolTip() == ("暂停" if LANGUAGE == "zh_CN" else "Pause")
    shot("03b-video-plays-on-after-a-new-ranking")
    click(player.play_button)
    click(window.topic_box)
    xdo("key", "ctrl+a", "BackSpace")
    qtbot.waitUntil(lambda: knit.ranking.topic == "", timeout=5000)
    click(preview.close_button)
    qtbot.waitUntil(lambda: not preview.isVisible(), timeout=5000)
    click(window.kind_tabs, window.kind_tabs.tabRect(0).center())
    qtbot.waitUntil(lambda: window.active_view() is window.list and window.model.shown > 0, timeout=10_000)

    # select a row far down, then type a topic: the new Primary is in view
    rows = window.model.document_rows()
    far = rows[-1]
    window.list.scrollTo(window.model.index(far))
    qtbot.wait(100)
    click(window.list.viewport(), window.list.visualRect(window.model.index(far)).center())
    qtbot.waitUntil(lambda: window.list.current_key() == window.model.rows[far].rel, timeout=5000)
    click(window.topic_box)
    initial = window.result.docs.topic
    xdo("type", "--delay", "30", "conflict banner resolution")
    qtbot.waitUntil(lambda: knit.ranking.topic == "conflict banner resolution", timeout=5000)
    qtbot.waitUntil(lambda: window.result.docs.topic != initial, timeout=10_000)
    qtbot.waitUntil(lambda: window.model.rows and window.model.rows[0].tier == "primary", timeout=10_000)
    first = window.model.index(window.model.document_rows()[0])
    qtbot.waitUntil(lambda: window.list.viewport().rect().intersects(window.list.visualRect(first)), timeout=5000)
    shot("04-topic-typed")
    click(window.topic_box)
    xdo("key", "ctrl+a", "BackSpace")
    qtbot.waitUntil(lambda: knit.ranking.topic == "", timeout=5000)

    # right-click a row → Copy path: the clipboard holds the file's path
    top = window.model.document_rows()[0]
    window.list.scrollToTop()
    qtbot.wait(100)
    rel = window.model.rows[top].rel
    chosen = when_menu(named("CopyPath"), shoot="05-context-menu")
    click(window.list.viewport(), window.list.visualRect(window.model.index(top)).center(), button=3)
    path = os.path.realpath(knit.demo / rel)
    qtbot.waitUntil(lambda: QGuiApplication.clipboard().text() == path, timeout=5000)

    # drag the row onto another window: it receives the file's URI and path
    target = DropTarget()
    target.setGeometry(700, 200, 360, 300)
    target.show()
    qtbot.waitExposed(target)
    qtbot.wait(300)
    start = screen_point(window.list.viewport(), window.list.visualRect(window.model.index(top)).center())
    end = screen_point(target)
    xdo_later("mousemove", "--sync", str(start.x()), str(start.y()), "mousedown", "1", "sleep", "0.1",
              *moves(start, end, 12), "sleep", "0.3", "mouseup", "1")
    qtbot.waitUntil(lambda: bool(target.received), timeout=10_000)
    urls, text = target.received[0]
    assert urls == [f"file://{path}"] and text == path
    shot("06-dragged-out")
    target.close()

    # tray menu → a document: the window comes back with its preview
    if knit.tray is not None:
        window.showMinimized()
        qtbot.waitUntil(window.isMinimized, timeout=5000)
        qtbot.waitUntil(lambda: knit.tray.icon.geometry().isValid() and knit.tray.icon.geometry().width() > 0,
                        timeout=10_000)
        icon = knit.tray.icon.geometry()
        chosen = when_menu(lambda menu: menu.actions()[0], shoot="07-tray-menu")  # the top document
        xdo_later("mousemove", "--sync", str(icon.center().x()), str(icon.center().y()), "click", "3")
        qtbot.waitUntil(lambda: bool(chosen) and chosen[0] is not None, timeout=10_000)
        document = chosen[0]
        qtbot.waitUntil(lambda: window.isVisible() and not window.isMinimized() and window.preview.isVisible(),
                        timeout=10_000)
        assert window.preview.rel == document.toolTip()
        qtbot.waitExposed(window)
        shot("08-from-the-tray")

    # a sticky note: dragged by its title, then confirmed
    knit.memory.propose("Prefers large fonts in the preview", "preferences.md", "Editor", "preference")
    knit.notes.refresh()
    note = knit.notes.note
    qtbot.waitUntil(note.isVisible, timeout=5000)
    qtbot.waitExposed(note)
    qtbot.wait(300)
    before = note.pos()
    grip = screen_point(note.title)
    xdo_later("mousemove", "--sync", str(grip.x()), str(grip.y()), "mousedown", "1", "sleep", "0.1",
              *moves(grip, grip + QPoint(-150, 100), 6), "sleep", "0.1", "mouseup", "1")
    qtbot.waitUntil(lambda: (note.pos() - before).manhattanLength() > 100, timeout=5000)
    assert not note.mask().isEmpty()  # cut to its shape: no black corners without a compositor
    note.move(window.geometry().left() + 40, window.geometry().top() + 220)  # over the window, not the black root
    qtbot.wait(400)
    corner = QGuiApplication.primaryScreen().grabWindow(0, note.x(), note.y(), 2, 2).toImage().pixelColor(0, 0)
    behind = QGuiApplication.primaryScreen().grabWindow(0, note.x() - 3, note.y() - 3, 1, 1).toImage().pixelColor(0, 0)
    assert corner == behind, (corner.name(), behind.name())  # the corner shows what is behind the note
    shot("09-sticky-note-dragged")
    click(note.remember_button)
    memory_file = Path(knit.settings.memory_dir) / "preferences.md"
    qtbot.waitUntil(lambda: "- Prefers large fonts in the preview" in memory_file.read_text(encoding="utf-8"),
                    timeout=5000)
    shot("10-note-confirmed")

    # ⋯ → Dock to the right edge: the whole window, title bar included, within the screen's available area
    chosen = when_menu(lambda menu: window.header.action_dock_right)
    click(window.menu_button)
    qtbot.waitUntil(lambda: bool(chosen) and chosen[0] is not None, timeout=10_000)
    area = window.screen().availableGeometry()
    qtbot.waitUntil(lambda: window.frameGeometry().right() >= area.right() - 2, timeout=5000)
    qtbot.wait(500)  # the window manager has placed the frame
    frame = window.frameGeometry()
    assert area.contains(frame), (frame, area)
    assert frame.top() <= area.top() + 2 and frame.bottom() >= area.bottom() - 2, (frame, area)
    shot("11-docked-right")

    # the workspace folder moved aside and a copy made in its place, with one new note (a fresh checkout): the window
    # watches the new folder, so the note shows, found by a topic typed into the box
    old = knit.demo.with_name(knit.demo.name + ".old")
    os.rename(knit.demo, old)
    shutil.copytree(old, knit.demo)
    (knit.demo / "zebra-migration.md").write_text("# Zebra migration\n\nThe zebra herd moves north in spring.\n",
                                                   encoding="utf-8")
    click(window.topic_box)
    xdo("type", "--delay", "30", "zebra herd")
    qtbot.waitUntil(lambda: knit.ranking.topic == "zebra herd", timeout=5000)
    qtbot.waitUntil(lambda: window.model.rows and window.model.rows[window.model.document_rows()[0]].rel
                    == "zebra-migration.md", timeout=15_000)
    shot("12-folder-replaced")
