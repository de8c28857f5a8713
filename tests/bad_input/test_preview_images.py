"""The Markdown preview loads images only from inside the workspace: remote URLs and paths leading out (absolute,
`../..`, `file://`, a symlink) get a placeholder saying why, and the outside file is never opened."""

from __future__ import annotations

import os
from pathlib import Path

from PySide6.QtCore import QUrl
from PySide6.QtGui import QImage, QTextDocument

from knit_desktop.ui.preview import WorkspaceTextBrowser

from ..media_fixtures import make_png

IMAGE = QTextDocument.ResourceType.ImageResource.value


def _workspace(tmp_path: Path) -> tuple[Path, Path]:
    root = tmp_path / "ws"
    make_png(root / "docs" / "img" / "inside.png", 40, 30)
    outside = make_png(tmp_path / "outside" / "secret.png", 50, 20)
    os.symlink(outside, root / "docs" / "img" / "link-out.png")
    return root, outside


def test_images_inside_load_and_everything_else_gets_a_placeholder(qtbot, tmp_path):
    root, outside = _workspace(tmp_path)
    browser = WorkspaceTextBrowser()
    qtbot.addWidget(browser)
    browser.set_location(str(root), str(root / "docs"))
    image = QImage.fromData(browser.loadResource(IMAGE, QUrl("img/inside.png")))
    assert (image.width(), image.height()) == (40, 30)
    refused = [
        QUrl("https://example.com/tracker.png"),
        QUrl("http://127.0.0.1:8000/x.png"),
        QUrl("ftp://example.com/x.png"),
        QUrl.fromLocalFile(str(outside)),  # file:// to outside
        QUrl(str(outside)),  # an absolute path
        QUrl("../../outside/secret.png"),  # climbing out
        QUrl("img/link-out.png"),  # a symlink leading out
        QUrl("file://server/share/x.png"),
    ]
    for url in refused:
        placeholder = browser.loadResource(IMAGE, url)
        assert isinstance(placeholder, QImage) and (placeholder.width(), placeholder.height()) == (360, 36), url
    assert len(browser.refused) == len(refused)
    reasons = {why for _, why in browser.refused}
    assert reasons == {"remote images are not loaded", "the image is outside the workspace"}
    assert browser.loadResource(QTextDocument.ResourceType.StyleSheetResource.value, QUrl("x.css")) is None


def test_a_rendered_document_never_loads_an_outside_image(qtbot, tmp_path):
    root, outside = _workspace(tmp_path)
    browser = WorkspaceTextBrowser()
    qtbot.addWidget(browser)
    browser.resize(500, 400)
    browser.document().setBaseUrl(QUrl.fromLocalFile(str(root / "docs") + os.sep))
    browser.set_location(str(root), str(root / "docs"))
    browser.setMarkdown(
        f"# Doc\n\n![in](img/inside.png)\n\n![abs]({outside})\n\n![up](../../outside/secret.png)\n\n"
        "![web](https://example.com/a.png)\n"
    )
    browser.show()
    browser.grab()  # lays the document out, which asks for its images
    urls = [url for url, _ in browser.refused]
    assert any("example.com" in u for u in urls)
    assert any("secret.png" in u for u in urls)
    assert not any("inside.png" in u for u in urls)


def test_the_window_asks_before_taking_root_or_home_as_the_workspace(qtbot, settings, tmp_path, monkeypatch):
    from PySide6.QtWidgets import QFileDialog, QMessageBox

    from knit_desktop.ui.settings_dialog import SettingsDialog

    dialog = SettingsDialog(settings)
    qtbot.addWidget(dialog)
    asked: list[str] = []
    answer = [QMessageBox.StandardButton.No]

    def question(parent, title, text, *args):
        asked.append(text)
        return answer[0]

    monkeypatch.setattr(QMessageBox, "question", staticmethod(question))
    chosen = ["/"]
    monkeypatch.setattr(QFileDialog, "getExistingDirectory", staticmethod(lambda *a: chosen[0]))
    dialog._choose_folder()
    assert asked and "/" in asked[0] and settings.workspace == ""  # declined: nothing changes
    answer[0] = QMessageBox.StandardButton.Yes
    dialog._choose_folder()
    assert settings.workspace == "/"  # confirmed
    asked.clear()
    chosen[0] = str(tmp_path)
    dialog._choose_folder()
    assert not asked and settings.workspace == str(tmp_path)  # an ordinary folder: no question
