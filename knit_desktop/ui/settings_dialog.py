"""The settings dialog: every change is applied the moment it is made (language included, no restart)."""

from __future__ import annotations

from PySide6.QtCore import QEvent
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QFileDialog,
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QMessageBox,
    QPushButton,
    QRadioButton,
    QVBoxLayout,
    QWidget,
)

from ..core.index.boundary import unsafe_workspace_reason
from .library_settings import LibraryFolders
from .metrics import L, M, S
from .settings import LANGUAGES, NOTE_COLOURS, NOTE_SHAPES, NOTE_SIZES, Settings


class SettingsDialog(QDialog):
    def __init__(self, settings: Settings, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("SettingsDialog")
        self.settings = settings
        self.language = QComboBox(objectName="LanguageChoice")
        for code in LANGUAGES:
            self.language.addItem("", code)
        self.language.setCurrentIndex(LANGUAGES.index(settings.language))
        self.language.currentIndexChanged.connect(lambda i: setattr(settings, "language", LANGUAGES[i]))

        self.follow = QRadioButton(objectName="FollowSession")
        self.fixed = QRadioButton(objectName="FixedFolder")
        self.folder = QLineEdit(settings.workspace, objectName="FixedFolderPath")
        self.browse = QPushButton()
        self.browse.clicked.connect(self._choose_folder)
        (self.fixed if settings.workspace else self.follow).setChecked(True)
        self.follow.toggled.connect(self._apply_workspace)
        self.folder.editingFinished.connect(self._apply_workspace)
        folder_row = QHBoxLayout()
        folder_row.setSpacing(S)
        folder_row.addWidget(self.folder, 1)
        folder_row.addWidget(self.browse)

        self.dsh_home = QLineEdit(settings.dsh_home, objectName="DshHome")
        self.dsh_home.editingFinished.connect(lambda: setattr(settings, "dsh_home", self.dsh_home.text().strip()))
        self.on_top = QCheckBox(checked=settings.always_on_top)
        self.on_top.toggled.connect(lambda on: setattr(settings, "always_on_top", on))
        self.tray = QCheckBox(checked=settings.tray)
        self.tray.toggled.connect(lambda on: setattr(settings, "tray", on))
        self.usage = QCheckBox(checked=settings.show_usage)
        self.usage.toggled.connect(lambda on: setattr(settings, "show_usage", on))
        self.memory_dir = QLineEdit(settings.memory_dir, objectName="MemoryDir")
        self.memory_dir.editingFinished.connect(lambda: setattr(settings, "memory_dir", self.memory_dir.text().strip()))
        self.note_shape = self._choice(NOTE_SHAPES, settings.note_shape, "note_shape")
        self.note_colour = self._choice(tuple(NOTE_COLOURS), settings.note_colour, "note_colour")
        self.note_size = self._choice(NOTE_SIZES, settings.note_size, "note_size")
        self.reset_note = QPushButton(objectName="ResetNotePosition")
        self.reset_note.clicked.connect(lambda: setattr(settings, "note_position", None))
        look = QHBoxLayout()
        look.setSpacing(S)
        for widget in (self.note_shape, self.note_colour, self.note_size, self.reset_note):
            look.addWidget(widget)

        self.language_label, self.workspace_label, self.dsh_home_label = QLabel(), QLabel(), QLabel()
        self.memory_label, self.look_label = QLabel(), QLabel()
        self.form = QFormLayout()
        self.form.setHorizontalSpacing(M)
        self.form.setVerticalSpacing(S)
        self.form.addRow(self.language_label, self.language)
        self.form.addRow(self.workspace_label, self.follow)
        self.form.addRow(None, self.fixed)
        self.form.addRow(None, folder_row)
        self.form.addRow(self.dsh_home_label, self.dsh_home)
        for box in (self.on_top, self.tray, self.usage):
            self.form.addRow(None, box)
        self.form.addRow(self.memory_label, self.memory_dir)
        self.library, self.library_label = LibraryFolders(settings, self), QLabel()
        self.form.addRow(self.library_label, self.library)
        self.form.addRow(self.look_label, look)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
        buttons.rejected.connect(self.close)
        buttons.layout().setSpacing(S)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(L, L, L, L)
        layout.setSpacing(L)
        layout.addLayout(self.form)
        layout.addWidget(buttons)
        self.retranslate()

    def _choice(self, values: tuple, current: str, name: str) -> QComboBox:
        box = QComboBox(objectName=name)
        for value in values:
            box.addItem("", value)
        box.setCurrentIndex(values.index(current))
        box.currentIndexChanged.connect(lambda i: setattr(self.settings, name, values[i]))
        return box

    def _choose_folder(self) -> None:
        folder = QFileDialog.getExistingDirectory(self, self.tr("Choose the workspace folder"), self.folder.text())
        if folder and self.confirm_large_workspace(folder):
            self.folder.setText(folder)
            self.fixed.setChecked(True)
            self._apply_workspace()

    def confirm_large_workspace(self, folder: str) -> bool:
        """The window's side of the workspace rule: `/`, the home folder or a system folder only after a yes."""
        if unsafe_workspace_reason(folder) is None:
            return True
        answer = QMessageBox.question(
            self,
            self.tr("Use this folder as the workspace?"),
            self.tr("%1 is the root of the file system, your home folder or a system folder. Knit would read every "
                    "document in it, which can take long and include files that are not a project's. Use it anyway?")
            .replace("%1", folder),
            QMessageBox.StandardButton.Yes | QMessageBox.StandardButton.No,
            QMessageBox.StandardButton.No,
        )
        return answer == QMessageBox.StandardButton.Yes

    def _apply_workspace(self) -> None:
        self.folder.setEnabled(self.fixed.isChecked())
        self.settings.workspace = self.folder.text().strip() if self.fixed.isChecked() else ""

    def changeEvent(self, event: QEvent) -> None:
        if event.type() == QEvent.Type.LanguageChange:
            self.retranslate()
        super().changeEvent(event)

    def retranslate(self) -> None:
        self.setWindowTitle(self.tr("Knit settings"))
        for i, name in enumerate((self.tr("Follow the system"), "简体中文", "English")):
            self.language.setItemText(i, name)
        self.language_label.setText(self.tr("Language"))
        self.workspace_label.setText(self.tr("Workspace"))
        self.dsh_home_label.setText(self.tr("DSH home"))
        self.follow.setText(self.tr("Follow the DSH session's folder"))
        self.fixed.setText(self.tr("Always this folder:"))
        self.browse.setText(self.tr("Choose…"))
        self.dsh_home.setPlaceholderText(self.tr("Default: $DSH_HOME or ~/.dsh"))
        self.on_top.setText(self.tr("Keep the window on top"))
        self.tray.setText(self.tr("Show the tray icon"))
        self.usage.setText(self.tr("Show usage (what the session read of the last pack)"))
        self.memory_label.setText(self.tr("Memory folder"))
        self.library_label.setText(self.tr("Library"))
        self.memory_dir.setPlaceholderText(self.tr("Default: <DSH home>/memory"))
        self.look_label.setText(self.tr("Sticky notes"))
        names = {"capsule": self.tr("Capsule"), "rounded": self.tr("Rounded"), "square": self.tr("Square"),
                 "circle": self.tr("Circle"), "theme": self.tr("Follow the theme"), "sea": self.tr("Sea blue"),
                 "mist": self.tr("Mist purple"), "moss": self.tr("Moss green"), "amber": self.tr("Amber"),
                 "rose": self.tr("Rose"), "S": self.tr("Small"), "M": self.tr("Medium"), "L": self.tr("Large")}
        for box in (self.note_shape, self.note_colour, self.note_size):
            for i in range(box.count()):
                box.setItemText(i, names[box.itemData(i)])
        self.reset_note.setText(self.tr("Reset position"))
        self.folder.setEnabled(self.fixed.isChecked())
