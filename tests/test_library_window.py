"""Settings → Library in the window: add (checked by the workspace's rules), refuse with the reason, remove; the list
is the one the command line reads; both languages, with screenshots."""

from __future__ import annotations

from pathlib import Path

import pytest
from PySide6.QtCore import Qt
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QFileDialog

from knit_desktop.core.config import SharedSettings
from knit_desktop.ui.i18n import LanguageSwitcher
from knit_desktop.ui.settings_dialog import SettingsDialog


@pytest.mark.parametrize("language", ["en", "zh_CN"])
def test_library_folders_are_added_refused_and_removed_in_the_settings(qtbot, tmp_path, monkeypatch, settings,
                                                                       language):
    settings.language = language
    switcher = LanguageSwitcher()
    switcher.apply(language)
    try:
        check_the_library_box(qtbot, tmp_path, monkeypatch, settings, language)
    finally:
        switcher.clear()


def check_the_library_box(qtbot, tmp_path, monkeypatch, settings, language):
    papers = tmp_path / "papers"
    papers.mkdir()
    (tmp_path / "manuals").mkdir()
    dialog = SettingsDialog(settings)
    qtbot.addWidget(dialog)
    dialog.show()
    box = dialog.library
    assert box.folders.count() == 0 and not box.remove.isEnabled()
    empty_status = box.status.text()
    chosen = iter([str(papers), str(tmp_path / "manuals"), str(papers), "/etc"])
    monkeypatch.setattr(QFileDialog, "getExistingDirectory", staticmethod(lambda *a: next(chosen)))
    for _ in range(2):
        QTest.mouseClick(box.add, Qt.MouseButton.LeftButton)
    assert settings.library_folders == [str(papers.resolve()), str((tmp_path / "manuals").resolve())]
    assert SharedSettings.load(Path(settings.path)).library == tuple(settings.library_folders)  # what the CLI reads
    assert box.folders.count() == 2 and box.status.text() != empty_status
    QTest.mouseClick(box.add, Qt.MouseButton.LeftButton)  # the same folder again
    assert box.folders.count() == 2 and str(papers.resolve()) in box.status.text()
    assert ("already" if language == "en" else "已在资料库中") in box.status.text()
    QTest.mouseClick(box.add, Qt.MouseButton.LeftButton)  # a system folder
    assert box.folders.count() == 2 and "/etc" in box.status.text()
    assert ("system folder" if language == "en" else "系统文件夹") in box.status.text()
    if language == "zh_CN":
        assert box.add.text() == "添加文件夹…" and dialog.library_label.text() == "资料库"
    dialog.grab().save(str(tmp_path / f"settings-library-{language}.png"))
    box.folders.setCurrentRow(0)
    assert box.remove.isEnabled()
    QTest.mouseClick(box.remove, Qt.MouseButton.LeftButton)
    assert settings.library_folders == [str((tmp_path / "manuals").resolve())] and box.folders.count() == 1
    (tmp_path / "manuals").rmdir()
    box.reload()
    assert box.folders.item(0).text().endswith(("(missing)", "（不存在）"))


def test_an_epub_in_the_workspace_previews_on_its_matched_page(qtbot, tmp_path, settings):
    """An EPUB ranks like any document; its preview is the extracted text, marked on the cited page's lines."""
    from knit_desktop.core.dsh.conversation import Message
    from knit_desktop.ui.app import KnitApp

    from .library_fixtures import make_epub

    ws = tmp_path / "ws"
    ws.mkdir()
    make_epub(ws / "rivers.epub", "Book of rivers", [("Chapter one", "Herons wade in the shallows."),
                                                     ("Chapter two", "Otters fish for trout at dawn.")])
    (ws / "notes.md").write_text("# Notes\n\nNothing about rivers.\n", encoding="utf-8")
    knit = KnitApp(workspace=str(ws), dsh_home=str(tmp_path / "no-dsh"), settings=settings, persistent=False,
                   messages=[Message("user", "How do otters fish for trout at dawn?")])
    try:
        knit.window.resize(480, 820)
        knit.window.show()
        qtbot.waitUntil(lambda: knit.window.model.shown > 0, timeout=15_000)
        knit.window.show_document("rivers.epub")
        preview = knit.window.preview
        qtbot.waitUntil(lambda: bool(preview.browser.marked_blocks()), timeout=10_000)
        assert preview.passages and preview.passages[0].page == 2
        marked = [block.text() for block in preview.browser.marked_blocks()]
        assert any("Otters fish for trout" in text for text in marked), marked
    finally:
        knit.close()
