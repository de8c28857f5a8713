"""The library in the window: the Workspace / Library / Both switch (clicked, remembered, disabled and explained
without a library folder), library documents labelled with their folder in the list, the grid and the tray, their
preview read from their own folder, and library folders watched like the workspace; in both languages, with
screenshots."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from PySide6.QtCore import Qt, QTimer
from PySide6.QtGui import QGuiApplication, QIcon
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication, QMenu

from knit_desktop.core.index.pins import Pins
from knit_desktop.services.watcher import MODE_POLLING, MODE_WATCHING
from knit_desktop.ui.settings import Settings
from knit_desktop.ui.tray import TrayPeek

from . import test_window
from .media_fixtures import make_png
from .test_item_actions import right_click_and_choose

demo_ws = test_window.demo_ws
open_app = test_window.open_app


def click_scope(qtbot, header, scope: str) -> None:
    """Open the switch beside the kind tabs with a click, then click the scope's entry in its menu."""
    clicked: list[str] = []

    def choose() -> None:
        menu = QApplication.activePopupWidget()
        if not isinstance(menu, QMenu):
            QTimer.singleShot(20, choose)
            return
        action = header.scope_actions[scope]
        QTest.mouseClick(menu, Qt.MouseButton.LeftButton, pos=menu.actionGeometry(action).center())
        clicked.append(scope)

    QTimer.singleShot(0, choose)
    QTest.mouseClick(header.scope_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: bool(clicked), timeout=5000)


def library_rows(window) -> list[tuple[str, str]]:
    return [(r.item.source, r.rel) for r in window.model.rows if r.item is not None]


def library_key(lib: Path, rel: str) -> str:
    """A library document is listed under its absolute path (a workspace document under its relative one)."""
    return str(lib.resolve() / rel)


def make_library(tmp_path: Path) -> Path:
    lib = tmp_path / "manuals"
    (lib / "pumps").mkdir(parents=True)
    (lib / "pumps" / "pressure.md").write_text("# Pump pressure\n\nHow the pump pressure is held steady.\n",
                                               encoding="utf-8")
    (lib / "valves.md").write_text("# Valves\n\nSeals and valves of the pump.\n", encoding="utf-8")
    make_png(lib / "pump-photo.png", 24, 16)
    return lib


@pytest.mark.parametrize("language", ["en", "zh_CN"])
def test_the_switch_ranks_over_the_workspace_the_library_or_both(qtbot, tmp_path, open_app, settings, language):
    settings.language = language
    lib = make_library(tmp_path)
    knit = open_app()
    window, header = knit.window, knit.window.header
    names = header.scope_names()
    # No library folder: the switch is not beside the tabs, and in the ⋯ menu it is disabled and says why.
    assert not header.scope_button.isVisible()
    assert not any(a.isEnabled() for a in header.scope_actions.values())
    assert header.scope_actions["workspace"].isChecked()
    hint = header.action_scope_hint.text()
    assert ("Settings" in hint) if language == "en" else ("设置" in hint)
    assert all(not source for source, _ in library_rows(window))

    settings.library_folders = [str(lib)]
    qtbot.waitUntil(header.scope_button.isVisible, timeout=5000)
    assert all(a.isEnabled() for a in header.scope_actions.values())
    assert header.scope_button.text() == names["workspace"]
    assert window.minimumSizeHint().width() <= 320, window.minimumSizeHint()  # the switch keeps the header narrow
    if language == "zh_CN":
        assert names == {"workspace": "工作区", "library": "资料库", "all": "两者"}
        assert header.scope_menu.title() == "排序范围"
    qtbot.keyClicks(window.topic_box, "pump pressure")

    click_scope(qtbot, header, "all")
    assert settings.scope == "all" and header.scope_button.text() == names["all"]
    qtbot.waitUntil(lambda: library_rows(window)[:1] == [("manuals", "pumps/pressure.md")], timeout=15_000)
    rows = library_rows(window)
    assert rows[0] == ("manuals", "pumps/pressure.md")  # the best hit leads, whichever folder it is in
    assert any(not source for source, _ in rows)  # the workspace's documents are listed too, unlabelled
    assert window.model.data(window.model.index(window.model.row_of(library_key(lib, "pumps/pressure.md"))),
                             Qt.ItemDataRole.ToolTipRole).startswith("manuals: pumps/pressure.md")

    # The preview reads a library document from its own folder.
    assert window.list.select_key(library_key(lib, "pumps/pressure.md"))
    qtbot.waitUntil(lambda: "held steady" in window.preview.browser.toPlainText(), timeout=10_000)
    assert window.preview.root == str(lib.resolve())

    # The tray's top 5 name the library document's folder, and choosing it there previews it from that folder.
    tray = TrayPeek(QIcon(), lambda: 0)
    tray.documentChosen.connect(window.show_document)
    tray.set_result(window.result)
    window.close_preview()
    action = next(a for a in tray.menu.actions() if "Pump pressure" in a.text())
    assert "manuals" in action.text()
    action.trigger()
    qtbot.waitUntil(lambda: "held steady" in window.preview.browser.toPlainText(), timeout=10_000)
    assert window.list.current_key() == library_key(lib, "pumps/pressure.md")
    tray.hide()

    suffix = "zh" if language == "zh_CN" else "en"
    shots = Path(os.environ.get("KNIT_SCREENSHOT_DIR", str(tmp_path)))
    window.list.clearSelection()
    window.close_preview()
    qtbot.wait(100)
    assert window.grab().save(str(shots / f"library-both-{suffix}.png"))

    # The grid labels a library folder's images too.
    QTest.mouseClick(header.kind_tabs, Qt.MouseButton.LeftButton,
                     pos=header.kind_tabs.tabRect(1).center())
    qtbot.waitUntil(lambda: any(r.source == "manuals" for r in window.grid_model.items), timeout=10_000)
    photo = next(i for i, r in enumerate(window.grid_model.items) if r.source == "manuals")
    qtbot.waitUntil(lambda: window.grid_model.thumbnail(photo) is not None, timeout=10_000)
    thumb = window.grid_model.thumbnail(photo)  # read from the library folder, not looked for in the workspace
    assert not getattr(thumb, "problem", "") and thumb.image is not None
    qtbot.wait(100)
    assert window.grab().save(str(shots / f"library-grid-{suffix}.png"))
    QTest.mouseClick(header.kind_tabs, Qt.MouseButton.LeftButton, pos=header.kind_tabs.tabRect(0).center())

    click_scope(qtbot, header, "library")
    qtbot.waitUntil(lambda: library_rows(window) and all(s == "manuals" for s, _ in library_rows(window)),
                    timeout=10_000)
    assert window.model.total == 2

    click_scope(qtbot, header, "workspace")
    qtbot.waitUntil(lambda: library_rows(window) and all(not s for s, _ in library_rows(window)), timeout=10_000)
    assert Settings(settings.path).scope == "workspace" or settings.scope == "workspace"
    settings.flush()
    assert Settings(settings.path).scope == "workspace"  # remembered

    # Without the folder again, the switch goes back to disabled and the list to the workspace.
    click_scope(qtbot, header, "all")
    settings.library_folders = []
    qtbot.waitUntil(lambda: not header.scope_button.isVisible(), timeout=5000)
    qtbot.waitUntil(lambda: all(not s for s, _ in library_rows(window)), timeout=10_000)
    assert knit.ranking.library_watch_modes() == {}


def _library_folder_followed(qtbot, tmp_path, open_app, settings, modes: set[str]):
    """A library folder in library scope, its documents listed and its watches in place in one of `modes` (they
    are set up off the GUI thread: a file written before they are in place is seen by no watch)."""
    lib = make_library(tmp_path)
    settings.library_folders = [str(lib)]
    settings.scope = "library"
    knit = open_app()
    qtbot.waitUntil(lambda: ("manuals", "valves.md") in library_rows(knit.window), timeout=15_000)

    def followed() -> bool:
        found = set(knit.ranking.library_watch_modes().values())
        return len(found) == 1 and found <= modes

    qtbot.waitUntil(followed, timeout=5000)
    return lib, knit


def test_a_file_added_changed_or_removed_in_a_library_folder_shows_without_restart(qtbot, tmp_path, open_app,
                                                                                     settings):
    lib, knit = _library_folder_followed(qtbot, tmp_path, open_app, settings, {MODE_WATCHING, MODE_POLLING})
    window = knit.window
    (lib / "pumps" / "impeller.md").write_text("# Impeller\n\nBlades.\n", encoding="utf-8")
    qtbot.waitUntil(lambda: ("manuals", "pumps/impeller.md") in library_rows(window), timeout=15_000)
    (lib / "valves.md").write_text("# Check valves\n\nChanged.\n", encoding="utf-8")
    qtbot.waitUntil(lambda: any(r.item is not None and r.item.title == "Check valves" for r in window.model.rows),
                    timeout=15_000)
    (lib / "pumps" / "pressure.md").unlink()
    qtbot.waitUntil(lambda: ("manuals", "pumps/pressure.md") not in library_rows(window), timeout=15_000)


def test_a_refused_watch_falls_back_to_polling_for_library_folders(qtbot, tmp_path, open_app, settings,
                                                                    monkeypatch):
    from knit_desktop.services import watcher as watcher_module

    lib = make_library(tmp_path)
    real_observer = watcher_module.Observer

    class RefusingObserver(real_observer):
        def schedule(self, handler, path, recursive=False, **kw):
            if os.path.realpath(path).startswith(str(lib.resolve())):
                raise OSError(24, "inotify instance limit reached")
            return super().schedule(handler, path, recursive=recursive, **kw)

    monkeypatch.setattr(watcher_module, "Observer", RefusingObserver)
    monkeypatch.setattr(watcher_module, "POLL_INTERVAL_S", 0.2)
    settings.library_folders = [str(lib)]
    settings.scope = "library"
    knit = open_app()
    window = knit.window
    qtbot.waitUntil(lambda: ("manuals", "valves.md") in library_rows(window), timeout=15_000)
    qtbot.waitUntil(lambda: list(knit.ranking.library_watch_modes().values()) == [MODE_POLLING], timeout=5000)
    (lib / "polled.md").write_text("# Polled note\n\nFound by listing.\n", encoding="utf-8")
    qtbot.waitUntil(lambda: ("manuals", "polled.md") in library_rows(window), timeout=15_000)


def test_a_library_document_is_pinned_and_copied_from_its_own_folder(qtbot, tmp_path, open_app, settings):
    lib = make_library(tmp_path)
    settings.library_folders = [str(lib)]
    settings.scope = "all"
    knit = open_app()
    window = knit.window
    qtbot.waitUntil(lambda: ("manuals", "valves.md") in library_rows(window), timeout=15_000)
    right_click_and_choose(qtbot, window.list, window.model.row_of(library_key(lib, "valves.md")), "CopyPath")
    assert QGuiApplication.clipboard().text() == str(lib.resolve() / "valves.md")
    right_click_and_choose(qtbot, window.list, window.model.row_of(library_key(lib, "valves.md")), "Pin")
    assert Pins.load(str(lib)).pinned == ["valves.md"] and not Pins.load(knit.ranking.root).pinned
    qtbot.waitUntil(lambda: library_rows(window)[:1] == [("manuals", "valves.md")], timeout=10_000)
    right_click_and_choose(qtbot, window.list, window.model.row_of(library_key(lib, "pumps/pressure.md")), "Hide")
    qtbot.waitUntil(lambda: ("manuals", "pumps/pressure.md") not in library_rows(window), timeout=10_000)
    assert Pins.load(str(lib)).hidden == ["pumps/pressure.md"]


def test_the_same_path_in_the_workspace_and_a_library_folder_is_two_documents(qtbot, tmp_path, open_app, settings):
    """A README.md (here docs/attachment-cache.md) in both: two rows, each selected, previewed and pinned on its
    own; a link followed inside the library copy stays in the library folder."""
    lib = make_library(tmp_path)
    (lib / "docs").mkdir()
    (lib / "docs" / "attachment-cache.md").write_text(
        "# Library copy of the cache notes\n\nThe vendor's own cache manual, see [valves](../valves.md).\n",
        encoding="utf-8")
    settings.library_folders = [str(lib)]
    settings.scope = "all"
    knit = open_app()
    window = knit.window
    rel = "docs/attachment-cache.md"
    qtbot.waitUntil(lambda: {("manuals", rel), ("", rel)} <= set(library_rows(window)), timeout=15_000)
    in_library, in_workspace = library_key(lib, rel), rel
    assert window.model.row_of(in_library) != window.model.row_of(in_workspace)

    assert window.list.select_key(in_library)
    qtbot.waitUntil(lambda: "vendor's own cache manual" in window.preview.browser.toPlainText(), timeout=10_000)
    assert window.preview.root == str(lib.resolve())
    assert window.list.select_key(in_workspace)
    qtbot.waitUntil(lambda: "vendor's own cache manual" not in window.preview.browser.toPlainText()
                    and window.preview.rel == rel and window.preview.root != str(lib.resolve()), timeout=10_000)

    # A link in the library copy opens the library's valves.md; Back returns to the library copy, not the workspace's.
    assert window.list.select_key(in_library)
    qtbot.waitUntil(lambda: "vendor's own cache manual" in window.preview.browser.toPlainText(), timeout=10_000)
    window.preview.follow("valves.md")
    qtbot.waitUntil(lambda: "Seals and valves" in window.preview.browser.toPlainText(), timeout=10_000)
    assert window.list.current_key() == library_key(lib, "valves.md")
    window.preview.back_button.click()
    qtbot.waitUntil(lambda: "vendor's own cache manual" in window.preview.browser.toPlainText(), timeout=10_000)

    right_click_and_choose(qtbot, window.list, window.model.row_of(in_library), "Pin")
    assert Pins.load(str(lib)).pinned == [rel] and not Pins.load(knit.ranking.root).pinned
    first = lambda: next(r for r in window.model.rows if not r.is_header)  # noqa: E731
    qtbot.waitUntil(lambda: first().key == in_library, timeout=10_000)  # the pinned library copy leads
    right_click_and_choose(qtbot, window.list, window.model.row_of(in_workspace), "Hide")
    assert Pins.load(knit.ranking.root).hidden == [rel] and not Pins.load(str(lib)).hidden
    qtbot.waitUntil(lambda: window.model.row_of(in_workspace) < 0, timeout=10_000)
    assert first().key == in_library  # hiding the workspace's copy leaves the library's


def test_a_file_written_in_a_library_folder_before_its_watches_are_in_place_is_found(qtbot, tmp_path, open_app,
                                                                                     settings, monkeypatch):
    """A library folder's walk and the setting up of its watches run side by side (the watches off the GUI
    thread): a file written after the walk, before the watches were in place, was in neither, for good."""
    import threading

    from knit_desktop.services import indexer as indexer_module
    from knit_desktop.services import watcher as watcher_module

    lib = make_library(tmp_path)
    walked = threading.Event()
    real_open_folder, real_plan = indexer_module.open_folder, watcher_module.plan_watches

    def open_folder(*args, **kwargs):
        source = real_open_folder(*args, **kwargs)
        walked.set()
        return source

    def late_plan(root):
        if root == str(lib.resolve()):
            assert walked.wait(15)  # the library's walk is over ...
            (lib / "pumps" / "late.md").write_text("# Late gasket\n\nWritten in the gap.\n", encoding="utf-8")
        return real_plan(root)  # ... and no watch is there yet: no event for the file above

    monkeypatch.setattr(indexer_module, "open_folder", open_folder)
    monkeypatch.setattr(watcher_module, "plan_watches", late_plan)
    settings.library_folders = [str(lib)]
    settings.scope = "library"
    knit = open_app()
    window = knit.window
    qtbot.waitUntil(lambda: list(knit.ranking.library_watch_modes().values()) == [MODE_WATCHING], timeout=15_000)
    qtbot.waitUntil(lambda: ("manuals", "pumps/late.md") in library_rows(window), timeout=10_000)


def test_a_folder_made_or_deleted_in_a_library_folder_is_walked_alone(qtbot, tmp_path, open_app, settings,
                                                                      monkeypatch):
    """As in the workspace: a folder that comes or goes in a library folder is walked, not the whole library
    folder."""
    from knit_desktop.core import workspace as workspace_module

    lib, knit = _library_folder_followed(qtbot, tmp_path, open_app, settings, {MODE_WATCHING})
    window = knit.window
    walked: list = []
    real_scan = workspace_module.scan_workspace

    def recording_scan(root, statuses=None, under=""):
        if root == str(lib.resolve()):
            walked.append(under if isinstance(under, str) else list(under))
        return real_scan(root, statuses, under=under) if under != "" else real_scan(root, statuses)

    monkeypatch.setattr(workspace_module, "scan_workspace", recording_scan)
    (lib / "seals").mkdir()
    (lib / "seals" / "gasket.md").write_text("# Gasket\n\nSeals.\n", encoding="utf-8")
    qtbot.waitUntil(lambda: ("manuals", "seals/gasket.md") in library_rows(window), timeout=15_000)
    qtbot.waitUntil(lambda: walked == [["seals"]], timeout=5000)
    import shutil

    shutil.rmtree(lib / "seals")
    qtbot.waitUntil(lambda: ("manuals", "seals/gasket.md") not in library_rows(window), timeout=15_000)
    qtbot.waitUntil(lambda: walked == [["seals"], ["seals"]], timeout=5000)
