"""The tray icon: a peek at the top 5 documents for the current conversation, Show/Hide, Quit."""

from __future__ import annotations

from PySide6.QtCore import QCoreApplication, QObject, Signal
from PySide6.QtGui import QAction, QIcon
from PySide6.QtWidgets import QMenu, QSystemTrayIcon

from ..core.view import ViewResult
from .wording import relative_time_text


class TrayPeek(QObject):
    documentChosen = Signal(str)
    toggleWindow = Signal()
    quitRequested = Signal()

    def __init__(self, icon: QIcon, clock, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.clock = clock
        self.result: ViewResult | None = None
        self.menu = QMenu()
        self.icon = QSystemTrayIcon(icon, self)
        self.icon.setContextMenu(self.menu)
        self.icon.activated.connect(self._on_activated)
        self.menu.aboutToShow.connect(self.rebuild)
        self.rebuild()

    @staticmethod
    def available() -> bool:
        return QSystemTrayIcon.isSystemTrayAvailable()

    def show(self) -> None:
        self.icon.show()

    def hide(self) -> None:
        self.icon.hide()

    def set_result(self, result: ViewResult) -> None:
        self.result = result
        self.rebuild()

    def rebuild(self) -> None:
        self.menu.clear()
        rows = self.result.peek() if self.result is not None else ()
        if not rows:
            self.menu.addAction(QCoreApplication.translate("Tray", "No Markdown documents in this workspace yet.")).setEnabled(False)
        now = self.clock()
        for row in rows:
            where = f"  ·  {row.source}" if row.source else ""  # a library document names its folder
            action = QAction(f"{row.title}{where}  ·  {relative_time_text(row.mtime_ms, now)}", self.menu)
            action.setToolTip(f"{row.source}: {row.rel}" if row.source else row.rel)
            action.triggered.connect(lambda _=False, key=row.key: self.documentChosen.emit(key))
            self.menu.addAction(action)
        self.menu.addSeparator()
        self.menu.addAction(QCoreApplication.translate("Tray", "Show / Hide"), self.toggleWindow.emit)
        self.menu.addAction(QCoreApplication.translate("Tray", "Quit"), self.quitRequested.emit)
        self.icon.setToolTip(QCoreApplication.translate("Tray", "Knit — recent documents"))

    def _on_activated(self, reason: QSystemTrayIcon.ActivationReason) -> None:
        if reason == QSystemTrayIcon.ActivationReason.Trigger:
            self.toggleWindow.emit()
