"""What the window shows before it has a workspace: what Knit does, Choose folder…, Open the demo, and how to
connect DSH (a DSH session's folder becomes the workspace by itself; the agent tool is one MCP row)."""

from __future__ import annotations

from PySide6.QtCore import QEvent, Qt, Signal
from PySide6.QtWidgets import QFileDialog, QLabel, QPushButton, QVBoxLayout, QWidget

MCP_COMMAND = "knit-desktop mcp --print-config dsh"


class NewcomerPanel(QWidget):
    folderChosen = Signal(str)
    demoRequested = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("Newcomer")
        self.title = QLabel(objectName="NewcomerTitle", wordWrap=True)
        font = self.title.font()
        font.setPointSizeF(font.pointSizeF() * 1.25)
        font.setWeight(font.Weight.DemiBold)
        self.title.setFont(font)
        self.body = QLabel(objectName="NewcomerBody", wordWrap=True)
        self.choose_button = QPushButton(objectName="ChooseFolder")
        self.choose_button.clicked.connect(self.choose_folder)
        self.demo_button = QPushButton(objectName="OpenDemo")
        self.demo_button.clicked.connect(self.demoRequested)
        self.dsh = QLabel(objectName="NewcomerDsh", wordWrap=True)
        self.dsh.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(16, 24, 16, 16)
        layout.setSpacing(12)
        for widget in (self.title, self.body, self.choose_button, self.demo_button, self.dsh):
            layout.addWidget(widget)
        layout.addStretch(1)
        self.retranslate()

    def choose_folder(self) -> None:
        folder = QFileDialog.getExistingDirectory(self, self.tr("Choose the project folder"))
        if folder:
            self.folderChosen.emit(folder)

    def retranslate(self) -> None:
        self.title.setText(self.tr("No workspace yet"))
        self.body.setText(self.tr("Knit keeps a project folder's documents ranked by what your conversation with "
                                  "the agent is about. Choose the folder, or look around the demo first."))
        self.choose_button.setText(self.tr("Choose folder…"))
        self.demo_button.setText(self.tr("Open the demo"))
        self.dsh.setText(self.tr("With DSH: start a session in your project folder and Knit follows it. To give "
                                 "the agent the same ranking, add the row that %1 prints to DSH's "
                                 "cordis.patch.yml.").replace("%1", MCP_COMMAND))

    def changeEvent(self, event: QEvent) -> None:
        if event.type() == QEvent.Type.LanguageChange:
            self.retranslate()
        super().changeEvent(event)
