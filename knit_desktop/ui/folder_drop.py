"""Dropping a folder on the window makes it the workspace, after asking whether to pin it (Knit then always opens
it) or use it until Knit quits. A dropped file offers its folder the same way."""

from __future__ import annotations

import os

from PySide6.QtCore import QEvent, QObject, QTimer
from PySide6.QtWidgets import QMessageBox, QWidget


def dropped_folder(event) -> str:
    """The folder a drag carries (a file's folder for a file), or "" when it carries none."""
    mime = event.mimeData()
    if mime is None or not mime.hasUrls():
        return ""
    for url in mime.urls():
        path = url.toLocalFile()
        if path and os.path.isdir(path):
            return path
        if path and os.path.isfile(path):
            return os.path.dirname(path)
    return ""


class FolderDrop(QObject):
    def __init__(self, window: QWidget, settings, ranking) -> None:
        super().__init__(window)
        self.window = window
        self.settings = settings
        self.ranking = ranking
        self.dialog: QMessageBox | None = None
        window.setAcceptDrops(True)
        window.installEventFilter(self)

    def eventFilter(self, watched, event) -> bool:
        kind = event.type()
        if kind in (QEvent.Type.DragEnter, QEvent.Type.DragMove) and dropped_folder(event):
            event.acceptProposedAction()
            return True
        if kind == QEvent.Type.Drop:
            folder = dropped_folder(event)
            if folder:
                event.acceptProposedAction()
                # asked once the drop is over: the app the folder came from is not kept waiting on a question
                QTimer.singleShot(0, lambda: self.ask(folder))
                return True
        return super().eventFilter(watched, event)

    def ask(self, folder: str) -> None:
        box = QMessageBox(self.window)
        box.setObjectName("DropFolderQuestion")
        box.setIcon(QMessageBox.Icon.Question)
        box.setWindowTitle(self.tr("Use this folder"))
        box.setText(self.tr("Make %1 the workspace?").replace("%1", folder))
        box.setInformativeText(self.tr("Pinned, Knit opens this folder every time (change it in Settings); "
                                       "otherwise only until you quit."))
        pin = box.addButton(self.tr("Pin as the workspace"), QMessageBox.ButtonRole.AcceptRole)
        pin.setObjectName("PinWorkspace")
        once = box.addButton(self.tr("Only for now"), QMessageBox.ButtonRole.ActionRole)
        once.setObjectName("UseOnce")
        box.addButton(QMessageBox.StandardButton.Cancel)
        box.setDefaultButton(pin)
        self.dialog = box
        box.exec()
        chosen = box.clickedButton()
        self.dialog = None
        box.deleteLater()
        if chosen is pin:
            self.settings.workspace = folder  # the app pins it (Settings → workspace: always this folder)
        elif chosen is once:
            self.ranking.pin_workspace(folder)
