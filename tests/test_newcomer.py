"""A window without a workspace: the newcomer screen's Choose folder… and Open the demo, the "No workspace"
button, and dropping a folder on the window."""

from __future__ import annotations

import os

import pytest
from PySide6.QtCore import QMimeData, QPoint, QPointF, Qt, QTimer, QUrl
from PySide6.QtGui import QDragEnterEvent, QDropEvent
from PySide6.QtWidgets import QApplication, QFileDialog, QMessageBox, QPushButton

from knit_desktop.ui import newcomer as newcomer_module
from knit_desktop.ui.app import KnitApp


@pytest.fixture
def empty_app(qtbot, tmp_path, settings):
    knit = KnitApp(workspace=None, dsh_home=str(tmp_path / "no-dsh"), messages=None, settings=settings,
                   persistent=False)
    knit.window.resize(400, 700)
    knit.window.show()
    yield knit
    knit.close()


def test_the_newcomer_screen_opens_the_demo(qtbot, empty_app):
    window = empty_app.window
    qtbot.waitUntil(lambda: window.newcomer.isVisible())
    assert not window.splitter.isVisible()
    assert "knit-desktop mcp --print-config dsh" in window.newcomer.dsh.text()
    qtbot.mouseClick(window.newcomer.demo_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: window.model.shown > 0, timeout=15_000)
    assert window.splitter.isVisible() and not window.newcomer.isVisible()
    assert window.result.mode == "relevance"  # the demo conversation drives it


def test_choose_folder_makes_it_the_workspace(qtbot, empty_app, make_workspace, monkeypatch):
    folder = make_workspace({"notes/plan.md": "# Plan\n\nShip it.\n"})
    monkeypatch.setattr(newcomer_module.QFileDialog, "getExistingDirectory",
                        staticmethod(lambda *a, **k: str(folder)))  # the system's folder dialog, answered
    window = empty_app.window
    qtbot.mouseClick(window.newcomer.choose_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: window.model.shown == 1, timeout=15_000)
    assert empty_app.settings.workspace == str(folder)


def test_the_no_workspace_button_offers_the_folder_dialog(qtbot, empty_app, monkeypatch):
    asked = []
    monkeypatch.setattr(QFileDialog, "getExistingDirectory", staticmethod(lambda *a, **k: asked.append(1) or ""))
    qtbot.mouseClick(empty_app.window.header.workspace_button, Qt.MouseButton.LeftButton)
    assert asked == [1]


@pytest.mark.parametrize("answer", ["UseOnce", "PinWorkspace"])
def test_dropping_a_folder_asks_whether_to_pin_it(qtbot, empty_app, make_workspace, answer):
    folder = make_workspace({"a.md": "# Alpha\n", "b.md": "# Beta\n"}, name=f"dropped-{answer}")
    window = empty_app.window
    mime = QMimeData()
    mime.setUrls([QUrl.fromLocalFile(str(folder))])
    point = QPoint(100, 100)
    enter = QDragEnterEvent(point, Qt.DropAction.CopyAction, mime, Qt.MouseButton.LeftButton,
                            Qt.KeyboardModifier.NoModifier)
    QApplication.sendEvent(window, enter)
    assert enter.isAccepted()

    def answer_question() -> None:
        box = QApplication.activeModalWidget()
        if not isinstance(box, QMessageBox):
            QTimer.singleShot(20, answer_question)
            return
        button = next(b for b in box.findChildren(QPushButton) if b.objectName() == answer)
        qtbot.mouseClick(button, Qt.MouseButton.LeftButton)

    QTimer.singleShot(0, answer_question)
    drop = QDropEvent(QPointF(point), Qt.DropAction.CopyAction, mime, Qt.MouseButton.LeftButton,
                      Qt.KeyboardModifier.NoModifier)
    QApplication.sendEvent(window, drop)
    qtbot.waitUntil(lambda: window.model.shown == 2, timeout=15_000)
    assert window.root == os.path.realpath(folder)
    assert empty_app.settings.workspace == (str(folder) if answer == "PinWorkspace" else "")
