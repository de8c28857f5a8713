"""What a document row or a thumbnail offers beyond a click: the right-click menu (open, open with the system's
app, show in folder, copy path / relative path / Markdown link, pin, hide) and the data a drag carries out.

One object per window, shared by every list and grid, holding the workspace root and its pins. The system's
handlers are reached only through Qt (QDesktopServices, the freedesktop FileManager1 D-Bus call); when none is
registered the user is told so in the status line instead of nothing happening.
"""

from __future__ import annotations

import os
from collections.abc import Callable

from PySide6.QtCore import QCoreApplication, QMimeData, QObject, QUrl, Signal
from PySide6.QtGui import QAction, QDesktopServices, QGuiApplication
from PySide6.QtWidgets import QMenu, QWidget

from .. import release_blas_default
from ..core.index.boundary import resolve_inside
from ..core.index.pins import Pins


def open_url(url: QUrl) -> bool:
    """Open a URL with the desktop's handler for it (which inherits this process's environment, less Knit's own
    setting for NumPy: see `release_blas_default`); False when the desktop has none."""
    release_blas_default()
    return QDesktopServices.openUrl(url)


def open_with_system_app(path: str) -> bool:
    """Open a file or folder with the desktop's default app; False when the desktop has none for it."""
    return bool(path) and open_url(QUrl.fromLocalFile(path))


def no_app_text(path: str) -> str:
    return QCoreApplication.translate("ItemActions", "No app is registered to open %1").replace(
        "%1", os.path.basename(path) or path)


def show_in_file_manager(path: str) -> bool:
    """Select the file in the file manager (freedesktop FileManager1), else open its folder."""
    try:
        from PySide6.QtDBus import QDBusConnection, QDBusInterface, QDBusMessage

        bus = QDBusConnection.sessionBus()
        if bus.isConnected():
            manager = QDBusInterface("org.freedesktop.FileManager1", "/org/freedesktop/FileManager1",
                                     "org.freedesktop.FileManager1", bus)
            if manager.isValid():
                reply = manager.call("ShowItems", [QUrl.fromLocalFile(path).toString()], "")
                if reply.type() != QDBusMessage.MessageType.ErrorMessage:
                    return True
    except ImportError:  # Qt built without D-Bus (Windows, macOS)
        pass
    return open_with_system_app(os.path.dirname(path))


class ItemActions(QObject):
    previewRequested = Signal(str)  # "Open": preview here
    pinsChanged = Signal()  # a pin or hide changed: rank again
    notice = Signal(str)  # something the user should read in the status line

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.root = ""
        self.pins = Pins("")
        # Every action takes the item's listing key (core.view.listing_key); the window answers where it lives,
        # (folder, relative path), so a library document is opened, copied and pinned in its own folder.
        self.locate: Callable[[str], tuple[str, str]] = lambda key: (self.root, key)

    def set_root(self, root: str) -> None:
        self.root = root
        self.pins = Pins.load(root) if root else Pins("")

    def _pins(self, folder: str) -> Pins:
        return Pins.load(folder) if folder and folder != self.root else self.pins

    def path(self, key: str) -> str:
        """The file's absolute path (inside the workspace or its library folder; "" otherwise)."""
        root, rel = self.locate(key)
        if not root or not rel:
            return ""
        resolved = resolve_inside(root, rel)
        return os.path.normpath(str(resolved)) if resolved is not None else ""

    # --- drag out ------------------------------------------------------------------------------------

    def mime(self, key: str) -> QMimeData:
        """A file for file managers and editors (text/uri-list), its path for a chat box (text/plain)."""
        data = QMimeData()
        path = self.path(key)
        if path:
            data.setUrls([QUrl.fromLocalFile(path)])
            data.setText(path)
        return data

    # --- the menu ------------------------------------------------------------------------------------

    def menu(self, key: str, title: str, parent: QWidget) -> QMenu:
        menu = QMenu(parent)
        menu.setObjectName("ItemMenu")
        folder, rel = self.locate(key)
        pinned = self._pins(folder).is_pinned(rel)
        entries = [
            ("Open", self.tr("Open"), lambda: self.previewRequested.emit(key)),
            ("OpenWithSystem", self.tr("Open with system app"), lambda: self.open_external(key)),
            ("ShowInFolder", self.tr("Show in folder"), lambda: self.show_in_folder(key)),
            None,
            ("CopyPath", self.tr("Copy path"), lambda: self.copy(self.path(key))),
            ("CopyRelativePath", self.tr("Copy relative path"), lambda: self.copy(rel)),
            ("CopyMarkdownLink", self.tr("Copy as Markdown link"), lambda: self.copy(markdown_link(title, rel))),
            None,
            ("Pin", self.tr("Unpin") if pinned else self.tr("Pin to the top"), lambda: self.set_pinned(key, not pinned)),
            ("Hide", self.tr("Hide from the list"), lambda: self.set_hidden(key, True)),
        ]
        for entry in entries:
            if entry is None:
                menu.addSeparator()
                continue
            name, text, slot = entry
            action = QAction(text, menu)
            action.setObjectName(name)
            action.triggered.connect(slot)
            menu.addAction(action)
        return menu

    def open_external(self, key: str) -> None:
        path = self.path(key)
        if not open_with_system_app(path):
            self.notice.emit(no_app_text(path or key))

    def show_in_folder(self, key: str) -> None:
        path = self.path(key)
        if not show_in_file_manager(path):
            self.notice.emit(no_app_text(os.path.dirname(path) or key))

    @staticmethod
    def copy(text: str) -> None:
        if text:
            QGuiApplication.clipboard().setText(text)

    def set_pinned(self, key: str, on: bool) -> None:
        folder, rel = self.locate(key)
        self._pins(folder).set_pinned(rel, on)
        self.pinsChanged.emit()

    def set_hidden(self, key: str, on: bool) -> None:
        folder, rel = self.locate(key)
        self._pins(folder).set_hidden(rel, on)
        self.pinsChanged.emit()

    def unhide_all(self) -> None:
        for rel in list(self.pins.hidden):
            self.pins.set_hidden(rel, False)
        self.pinsChanged.emit()


def markdown_link(title: str, rel: str) -> str:
    """`[title](path)` with the characters that would break the link escaped."""
    text = (title or rel.rsplit("/", 1)[-1]).replace("\\", "\\\\").replace("[", "\\[").replace("]", "\\]")
    target = rel.replace(" ", "%20").replace("(", "%28").replace(")", "%29")
    return f"[{text}]({target})"
