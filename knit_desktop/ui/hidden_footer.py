"""The "Hidden (N)" footer under the list: hidden documents stay out of every view until un-hidden here."""

from __future__ import annotations

from PySide6.QtCore import QEvent, Qt
from PySide6.QtGui import QAction
from PySide6.QtWidgets import QMenu, QToolButton

from .item_actions import ItemActions


class HiddenFooter(QToolButton):
    def __init__(self, actions: ItemActions, parent=None) -> None:
        super().__init__(parent)
        self.setObjectName("HiddenFooter")
        self.actions_ = actions
        self.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonTextOnly)
        self.setPopupMode(QToolButton.ToolButtonPopupMode.InstantPopup)
        self.setAutoRaise(True)
        self.setMenu(QMenu(self))
        self.menu().setObjectName("HiddenMenu")
        self.menu().aboutToShow.connect(self._fill)
        actions.pinsChanged.connect(self.update_count)
        self.update_count()

    def update_count(self) -> None:
        count = len(self.actions_.pins.hidden)
        self.setText(self.tr("Hidden (%1)").replace("%1", str(count)))
        self.setToolTip(self.tr("Documents you hid; choose one to show it again"))
        self.setVisible(count > 0)

    def _fill(self) -> None:
        menu = self.menu()
        menu.clear()
        for rel in self.actions_.pins.hidden:
            action = QAction(self.tr("Show %1 again").replace("%1", rel), menu)
            action.setData(rel)
            action.triggered.connect(lambda _=False, rel=rel: self.actions_.set_hidden(rel, False))
            menu.addAction(action)
        menu.addSeparator()
        everything = QAction(self.tr("Show all hidden documents"), menu)
        everything.setObjectName("UnhideAll")
        everything.triggered.connect(self.actions_.unhide_all)
        menu.addAction(everything)

    def changeEvent(self, event: QEvent) -> None:
        if event.type() == QEvent.Type.LanguageChange:
            self.update_count()
        super().changeEvent(event)
