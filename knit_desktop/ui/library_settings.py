"""Settings → Library: the folders ranked beside the workspace (papers, manuals, specs). Adding checks the folder by
the workspace's rules (core.library.check_new_folder); the list is the QSettings array the command line and the MCP
server read. Indexing happens where the folders are used (`knit-desktop ask`/`stats`, the agent tools)."""

from __future__ import annotations

from PySide6.QtCore import QEvent, Qt
from PySide6.QtWidgets import (
    QFileDialog,
    QHBoxLayout,
    QLabel,
    QListWidget,
    QListWidgetItem,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from ..core.library import LibraryError, check_new_folder, folder_problem, labels_for
from .metrics import S
from .settings import Settings


class LibraryFolders(QWidget):
    def __init__(self, settings: Settings, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("LibraryFolders")
        self.settings = settings
        self.folders = QListWidget(objectName="LibraryList")
        self.folders.setMaximumHeight(96)
        self.add = QPushButton(objectName="AddLibraryFolder")
        self.remove = QPushButton(objectName="RemoveLibraryFolder")
        self.status = QLabel(objectName="LibraryStatus")
        self.status.setWordWrap(True)
        self.add.clicked.connect(self._choose)
        self.remove.clicked.connect(self._remove_selected)
        self.folders.itemSelectionChanged.connect(lambda: self.remove.setEnabled(bool(self.folders.selectedItems())))
        buttons = QHBoxLayout()
        buttons.addWidget(self.add)
        buttons.addWidget(self.remove)
        buttons.addStretch(1)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(S)  # the buttons' row takes it too
        layout.addWidget(self.folders)
        layout.addLayout(buttons)
        layout.addWidget(self.status)
        self._problem = ""
        self.retranslate()

    def reload(self) -> None:
        folders = self.settings.library_folders
        self.folders.clear()
        for label, folder in zip(labels_for(folders), folders):
            text = f"{label} — {folder}"
            if folder_problem(folder):
                text += " " + self.tr("(missing)")
            item = QListWidgetItem(text)
            item.setData(Qt.ItemDataRole.UserRole, folder)
            item.setToolTip(folder)
            self.folders.addItem(item)
        self.remove.setEnabled(bool(self.folders.selectedItems()))
        if self._problem:
            self.status.setText(self._problem)
        elif folders:
            self.status.setText(self.tr("%n folder(s) answer beside the workspace (knit_ask, knit_search, "
                                        "`knit-desktop ask`).", "", len(folders)))
        else:
            self.status.setText(self.tr("No library folders yet: add the folders that hold your papers, manuals "
                                        "or specs."))

    def add_folder(self, folder: str) -> bool:
        """Add a folder if the workspace's rules allow it; otherwise say why below the list."""
        try:
            real = check_new_folder(folder, self.settings.library_folders)
        except LibraryError as exc:
            reasons = {
                "not_a_folder": self.tr("Not added: %1 is not a folder."),
                "already": self.tr("Not added: %1 is in the library already."),
                "unsafe": self.tr("Not added: %1 is the root of the file system, your home folder or a system "
                                  "folder."),
            }
            self._problem = reasons.get(exc.code, self.tr("Not added: %1")).replace("%1", exc.path or folder)
            self.reload()
            return False
        self._problem = ""
        self.settings.library_folders = [*self.settings.library_folders, real]
        self.reload()
        return True

    def _choose(self) -> None:
        folder = QFileDialog.getExistingDirectory(self, self.tr("Choose a library folder"), "")
        if folder:
            self.add_folder(folder)

    def _remove_selected(self) -> None:
        chosen = {item.data(Qt.ItemDataRole.UserRole) for item in self.folders.selectedItems()}
        self._problem = ""
        self.settings.library_folders = [f for f in self.settings.library_folders if f not in chosen]
        self.reload()

    def changeEvent(self, event: QEvent) -> None:  # noqa: N802 - Qt's name
        if event.type() == QEvent.Type.LanguageChange:
            self.retranslate()
        super().changeEvent(event)

    def retranslate(self) -> None:
        self.add.setText(self.tr("Add folder…"))
        self.remove.setText(self.tr("Remove"))
        self.reload()
