"""The memory structure panel: every library (friendly name, file, tags) with its chapters' line ranges, token
estimates, entry counts and tags, the largest first, a search box, and starter templates for an empty directory."""

from __future__ import annotations

import os

from PySide6.QtCore import QEvent, Qt
from PySide6.QtWidgets import (
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QTreeWidget,
    QTreeWidgetItem,
    QVBoxLayout,
    QWidget,
)

from ..core.memory.store import MemoryStore
from ..core.memory.templates import create_templates


class MemoryPanel(QWidget):
    def __init__(self, store: MemoryStore, parent: QWidget | None = None) -> None:
        super().__init__(parent, Qt.WindowType.Window)
        self.setObjectName("MemoryPanel")
        self.store = store
        self.search = QLineEdit(objectName="MemorySearch")
        self.search.setClearButtonEnabled(True)
        self.search.textChanged.connect(self._filter)
        self.overview = QLabel(objectName="MemoryOverview", wordWrap=True)
        self.tree = QTreeWidget(objectName="MemoryTree")
        self.tree.setColumnCount(4)
        self.tree.setRootIsDecorated(True)
        self.tree.setUniformRowHeights(True)
        self.empty = QWidget(objectName="MemoryEmpty")
        self.empty_text = QLabel(wordWrap=True)
        self.result = QLabel(objectName="TemplateResult", wordWrap=True)
        self.template_buttons = {which: QPushButton(objectName=f"Template-{which}") for which in ("three", "eight", "english")}
        for which, button in self.template_buttons.items():
            button.clicked.connect(lambda _=False, w=which: self.create(w))
        row = QHBoxLayout()
        for button in self.template_buttons.values():
            row.addWidget(button)
        empty_layout = QVBoxLayout(self.empty)
        empty_layout.addWidget(self.empty_text)
        empty_layout.addLayout(row)
        empty_layout.addStretch(1)
        layout = QVBoxLayout(self)
        layout.addWidget(self.search)
        layout.addWidget(self.overview)
        layout.addWidget(self.tree, 1)
        layout.addWidget(self.empty, 1)
        layout.addWidget(self.result)
        self.resize(560, 520)
        self.retranslate()
        self.reload()

    def reload(self) -> None:
        libraries = sorted(self.store.libraries(), key=lambda lib: -lib.tokens)
        self.tree.clear()
        total = sum(lib.tokens for lib in libraries) or 1
        for lib in libraries:
            tags = ", ".join(lib.tags)
            item = QTreeWidgetItem([lib.name, os.path.basename(lib.path), f"~{lib.tokens}", tags])
            item.setData(0, Qt.ItemDataRole.UserRole, f"{lib.name} {os.path.basename(lib.path)} {tags}".lower())
            for chapter in lib.chapters:
                if chapter.implicit:
                    continue
                child = QTreeWidgetItem([
                    chapter.title, f"{chapter.start}–{chapter.end}", f"~{chapter.tokens}",
                    self.tr("%n entries", "", len(chapter.entries)) + (f" · {', '.join(chapter.tags)}" if chapter.tags else ""),
                ])
                child.setData(0, Qt.ItemDataRole.UserRole, f"{chapter.title} {' '.join(chapter.tags)}".lower())
                item.addChild(child)
            self.tree.addTopLevelItem(item)
        for column in range(4):
            self.tree.resizeColumnToContents(column)
        top = libraries[:3]
        self.overview.setText(" · ".join(f"{lib.name} {lib.tokens * 100 // total}%" for lib in top))
        has = bool(libraries)
        for widget in (self.tree, self.overview, self.search):
            widget.setVisible(has)
        self.empty.setVisible(not has)
        self.empty_text.setText(self.tr("🗂 No memory files yet in %1. Start from a template, or put Markdown files "
                                        "there yourself.").replace("%1", self.store.memory_dir))  # (it may change)
        self._filter(self.search.text())
        if libraries and not self.search.text().strip():
            self.tree.topLevelItem(0).setExpanded(True)  # the largest library, opened: is it time to split it?
        self.layout().activate()

    def _filter(self, text: str) -> None:
        needle = text.strip().lower()
        for i in range(self.tree.topLevelItemCount()):
            item = self.tree.topLevelItem(i)
            own = not needle or needle in item.data(0, Qt.ItemDataRole.UserRole)
            any_child = False
            for j in range(item.childCount()):
                child = item.child(j)
                hit = not needle or own or needle in child.data(0, Qt.ItemDataRole.UserRole)
                child.setHidden(not hit)
                any_child = any_child or (hit and bool(needle))
            item.setHidden(not (own or any_child))
            item.setExpanded(bool(needle) and any_child)

    def create(self, which: str) -> None:  # type: ignore[override]  # (shadows QWidget.create, which Knit never calls)
        result = create_templates(self.store.memory_dir, which)
        parts = []
        if result.created:
            parts.append(self.tr("Created: %1").replace("%1", ", ".join(result.created)))
        if result.left_alone:
            parts.append(self.tr("Left alone (already there): %1").replace("%1", ", ".join(result.left_alone)))
        self.result.setText("\n".join(parts))
        self.reload()

    def changeEvent(self, event: QEvent) -> None:
        if event.type() == QEvent.Type.LanguageChange:
            self.retranslate()
            self.reload()
        super().changeEvent(event)

    def retranslate(self) -> None:
        self.setWindowTitle(self.tr("Memory"))
        self.search.setPlaceholderText(self.tr("Search libraries and chapters"))
        self.tree.setHeaderLabels([self.tr("Library / chapter"), self.tr("File / lines"), self.tr("Tokens"),
                                   self.tr("Tags")])
        self.template_buttons["three"].setText(self.tr("Three to start\n(preferences, projects, environment)"))
        self.template_buttons["eight"].setText(self.tr("All eight\n(+ software, network, commands, cleanup, fixes)"))
        self.template_buttons["english"].setText(self.tr("Three in English\n(Preferences, Projects, Environment)"))
