"""The window's settings: typed options from core.config, applied at once, written to disk debounced."""

from __future__ import annotations

import pytest
from PySide6.QtCore import QByteArray

from knit_desktop.core import config as options
from knit_desktop.core.config import Config
from knit_desktop.ui import settings as settings_module
from knit_desktop.ui.settings import Settings
from knit_desktop.ui.throttle import Throttle

# Every setter with a value that is not its default; each must reach the file.
CHANGES = {
    "language": "zh_CN", "sort": "time", "kind": "media", "workspace": "/srv/项目 a", "dsh_home": "/home/张三/.dsh",
    "always_on_top": True, "tray": False, "show_usage": True, "preview_ratio": 0.3, "memory_dir": "/m, with comma",
    "note_shape": "circle", "note_colour": "rose", "note_size": "L", "note_position": (7, 9),
}


def test_throttle_calls_once_now_then_once_with_the_latest_arguments(qtbot):
    calls: list[int] = []
    throttle = Throttle(calls.append, 200)
    throttle(1)
    for n in range(2, 50):  # a burst within the interval
        throttle(n)
    assert calls == [1] and throttle.pending
    qtbot.waitUntil(lambda: calls == [1, 49], timeout=2000)
    qtbot.wait(300)
    assert calls == [1, 49]
    throttle(50)  # the interval has passed: at once again
    assert calls == [1, 49, 50]
    throttle(51)
    throttle.flush()
    assert calls == [1, 49, 50, 51] and not throttle.pending
    throttle(52)
    throttle.cancel()
    qtbot.wait(300)
    assert calls == [1, 49, 50, 51]


def test_a_splitter_drag_writes_the_file_once_or_twice_not_on_every_move(qtbot, tmp_path, monkeypatch):
    settings = Settings(str(tmp_path / "settings.ini"))
    saves: list[int] = []
    original = settings.config.save
    monkeypatch.setattr(settings.config, "save", lambda: (saves.append(1), original())[1])
    changed: list[str] = []
    settings.changed.connect(changed.append)
    for step in range(200):
        settings.preview_ratio = 0.2 + step * 0.003
    assert len(changed) == 200 and len(saves) == 1  # every move applied, one write so far
    qtbot.waitUntil(lambda: len(saves) == 2, timeout=3000)
    assert Config(settings.path).get(options.PREVIEW_RATIO) == pytest.approx(0.2 + 199 * 0.003)


@pytest.mark.parametrize("name", sorted(CHANGES))
def test_every_setter_persists_after_the_debounce(qtbot, tmp_path, monkeypatch, name):
    monkeypatch.setattr(settings_module, "WRITE_INTERVAL_MS", 150)
    settings = Settings(str(tmp_path / "settings.ini"))
    settings.sort = "relevance"  # the first write goes at once; the next ones wait for the interval
    setattr(settings, name, CHANGES[name])
    qtbot.waitUntil(lambda: not settings.config.unsaved, timeout=3000)
    assert getattr(Settings(settings.path), name) == (CHANGES[name].strip() if isinstance(CHANGES[name], str)
                                                      else CHANGES[name])


def test_settings_survive_a_restart(qtbot, tmp_path):
    first = Settings(str(tmp_path / "settings.ini"))
    for name, value in CHANGES.items():
        setattr(first, name, value)
    first.geometry = QByteArray(b"\x01\xd9\xd0\xcb\x00\x03,;=\x00 geometry")
    assert first.config.unsaved  # still in the debounce: quitting writes it
    first.flush()
    second = Settings(first.path)
    assert {name: getattr(second, name) for name in CHANGES} == CHANGES
    assert bytes(second.geometry.data()) == b"\x01\xd9\xd0\xcb\x00\x03,;=\x00 geometry"


def test_a_bool_set_to_what_the_file_says_is_not_a_change(qtbot, tmp_path):
    path = tmp_path / "settings.ini"
    path.write_text("[window]\ntray=true\nalways_on_top=false\n", encoding="utf-8")
    settings = Settings(str(path))
    changed: list[str] = []
    settings.changed.connect(changed.append)
    settings.tray = True
    settings.always_on_top = False
    assert changed == [] and not settings.config.unsaved
    settings.tray = False
    assert changed == [options.TRAY.key]


def test_a_failed_write_is_kept_and_said(qtbot, tmp_path, monkeypatch):
    monkeypatch.setattr(settings_module, "WRITE_INTERVAL_MS", 0)
    blocked = tmp_path / "file-not-folder"
    blocked.write_text("")
    settings = Settings(str(blocked / "settings.ini"))
    settings.sort = "time"
    assert settings.write_error and settings.config.unsaved and settings.sort == "time"
