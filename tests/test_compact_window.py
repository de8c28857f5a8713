"""The window lives in 320 px, in English and in 简体中文, with a long workspace path and the preview open: the path
is middle-elided (its tooltip has it whole) and the preview header is icon buttons with tooltips."""

from __future__ import annotations

import pytest
from PySide6.QtCore import Qt

from knit_desktop.core.dsh.conversation import Message
from knit_desktop.ui.app import KnitApp


@pytest.mark.parametrize("language", ["en", "zh_CN"])
def test_the_window_fits_in_320_px_with_a_long_path(qtbot, tmp_path, settings, make_workspace, language):
    settings.language = language
    root = make_workspace({"a-rather-long-folder-name/and-a-long-document-file-name-too.md":
                           "# Attachment cache eviction\n\nWhen the attachment cache is full we evict.\n"},
                          name="projects/customer-portal-with-a-very-long-name/attachments-and-sync-workspace")
    knit = KnitApp(workspace=str(root), dsh_home=str(tmp_path / "no-dsh"),
                   messages=[Message("user", "attachment cache eviction")], settings=settings, persistent=False)
    try:
        window = knit.window
        window.resize(320, 700)
        window.show()
        qtbot.waitUntil(lambda: window.model.shown == 1, timeout=15_000)
        row = window.model.document_rows()[0]
        qtbot.mouseClick(window.list.viewport(), Qt.MouseButton.LeftButton,
                         pos=window.list.visualRect(window.model.index(row)).center())
        qtbot.waitUntil(window.preview.isVisible)
        assert window.minimumSizeHint().width() <= 320, window.minimumSizeHint()
        assert window.width() <= 320
        assert window.header.workspace_button.toolTip() == str(root.resolve())
        assert window.preview.path_button.toolTip().endswith("and-a-long-document-file-name-too.md")
        for button in (window.preview.open_button, window.preview.full_button, window.preview.close_button):
            assert not button.icon().isNull() and button.toolTip()
    finally:
        knit.close()
