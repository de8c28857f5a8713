"""One configuration for every process: what the window's settings say, the command line and the MCP server
read through a Qt-free reader; command-line flags override it."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from knit_desktop.core import config as options
from knit_desktop.core.config import Config, SharedSettings, settings_path, unescape_ini_value
from knit_desktop.core.dsh.sessions import dsh_home
from knit_desktop.core.memory.store import default_memory_dir

TRICKY = [
    "/home/张三/my dsh",
    '/tmp/a, "quoted" ;semi=colon',
    "C:\\Users\\someone\\memory",
    "@starts with an at",
    "  spaces around  ",
    "tab\there",
]


@pytest.mark.parametrize("value", TRICKY)
def test_reads_exactly_what_the_windows_settings_wrote(settings, value):
    settings.dsh_home = value
    settings.memory_dir = value
    settings.language = "zh_CN"
    settings.flush()
    shared = SharedSettings.load(Path(settings.path))
    assert shared.dsh_home == value.strip() and shared.memory_dir == value.strip()
    assert shared.language == "zh_CN"


def test_missing_or_broken_settings_fall_back_to_defaults(tmp_path):
    assert SharedSettings.load(tmp_path / "none.ini") == SharedSettings()
    broken = tmp_path / "broken.ini"
    broken.write_bytes(b"\xff\xfe[dsh\nhome=\n[[[\x00")
    assert SharedSettings.load(broken).dsh_home == ""
    assert unescape_ini_value("@Variant(\\0\\0\\0\\x7f)") is None and unescape_ini_value("a, b") is None


def test_every_process_uses_the_folders_chosen_in_settings(tmp_path, monkeypatch):
    """The file is where the window keeps it (KNIT_DESKTOP_HOME in tests); flags still win."""
    chosen_home, chosen_memory = tmp_path / "chosen-dsh", tmp_path / "chosen-memory"
    chosen_memory.mkdir()
    (chosen_memory / "preferences.md").write_text("# Preferences\n\n## Editor\n- vim keys everywhere\n")
    path = settings_path()
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(f"[dsh]\nhome={chosen_home}\n\n[memory]\ndir={chosen_memory}\n", encoding="utf-8")
    monkeypatch.setenv("DSH_HOME", str(tmp_path / "env-dsh"))
    assert dsh_home() == chosen_home and dsh_home(str(tmp_path / "flag")) == tmp_path / "flag"
    assert default_memory_dir() == str(chosen_memory)

    env = {**os.environ, "KNIT_DESKTOP_HOME": os.environ["KNIT_DESKTOP_HOME"]}
    out = subprocess.run([sys.executable, "-m", "knit_desktop", "memory", "vim keys", "--json"],
                         capture_output=True, text=True, timeout=60, env=env)
    assert out.returncode == 0, out.stderr
    assert json.loads(out.stdout)["hits"][0]["path"] == str(chosen_memory / "preferences.md")
    other = tmp_path / "flag-memory"
    other.mkdir()
    out = subprocess.run([sys.executable, "-m", "knit_desktop", "memory", "vim keys", "--json", "--memory-dir",
                          str(other)], capture_output=True, text=True, timeout=60, env=env)
    assert json.loads(out.stdout)["hits"] == []


# --- the same file, both ways: QSettings (earlier Knit, or any Qt tool) and the Qt-free Config -----------------

ROUND_TRIP = TRICKY + ["/home/用户/文档", "x=1;y=2", "ends with backslash\\", "\x01 control and \x7f", "cafe 0a",
                       "", "a\nnewline", "0\x001 nul then digits"]


@pytest.mark.parametrize("value", ROUND_TRIP)
def test_what_qsettings_writes_config_reads_and_back(tmp_path, value):
    from PySide6.QtCore import QByteArray, QSettings

    path = tmp_path / "settings.ini"
    qs = QSettings(str(path), QSettings.Format.IniFormat)
    qs.setValue("workspace/fixed", value)
    qs.setValue("window/tray", False)
    qs.setValue("list/show_usage", True)
    qs.setValue("preview/ratio", 0.3125)
    qs.setValue("window/geometry", QByteArray(bytes(range(256)) + b",;= \\"))
    qs.sync()
    del qs
    config = Config(path)
    assert config.get(options.WORKSPACE) == value.strip()
    assert config.get(options.TRAY) is False and config.get(options.SHOW_USAGE) is True
    assert config.get(options.PREVIEW_RATIO) == 0.3125
    assert config.get(options.GEOMETRY) == bytes(range(256)) + b",;= \\"

    # and what Config writes, QSettings reads: strings, bools, numbers and bytes, next to keys it does not know
    path.write_text("[other]\nkept=\"a, b\"\n", encoding="utf-8")
    config = Config(path)
    assert config.set(options.MEMORY_DIR, value) and config.set(options.ALWAYS_ON_TOP, True)
    config.set(options.TRAY, False)
    config.set(options.PREVIEW_RATIO, 0.25)
    config.set(options.GEOMETRY, bytes(range(256)))
    config.set(options.NOTE_POSITION, (12, -3))
    config.save()
    qs = QSettings(str(path), QSettings.Format.IniFormat)
    assert qs.value("memory/dir") == value.strip()
    assert qs.value("window/always_on_top", type=bool) is True and qs.value("window/tray", type=bool) is False
    assert float(qs.value("preview/ratio")) == 0.25
    assert bytes(qs.value("window/geometry").data()) == bytes(range(256))
    assert qs.value("memory/note_position") == "12,-3" and qs.value("other/kept") == "a, b"
    assert Config(path).get(options.NOTE_POSITION) == (12, -3)


def test_an_unchanged_value_is_not_written_again_bools_included(tmp_path):
    path = tmp_path / "settings.ini"
    config = Config(path)
    assert config.set(options.TRAY, True)  # the default, but not in the file yet: written
    config.save()
    mtime = path.stat().st_mtime_ns
    again = Config(path)
    assert not again.set(options.TRAY, True) and not again.unsaved  # "true" in the file is True
    assert not again.set(options.PREVIEW_RATIO, options.DEFAULT_PREVIEW_RATIO) or again.unsaved
    path.write_text("[window]\ntray=true\n[preview]\nratio=0.46\n", encoding="utf-8")
    third = Config(path)
    assert not third.set(options.TRAY, True) and not third.set(options.PREVIEW_RATIO, 0.46)
    assert path.stat().st_mtime_ns >= mtime


def test_options_refuse_what_they_do_not_allow(tmp_path):
    path = tmp_path / "settings.ini"
    path.write_text("[ui]\nlanguage=klingon\n[preview]\nratio=nan\n[window]\ntray=maybe\n"
                    "[memory]\nnote_position=1,2,3\n", encoding="utf-8")
    config = Config(path)
    assert config.get(options.LANGUAGE) == "system" and config.get(options.PREVIEW_RATIO) == 0.46
    assert config.get(options.TRAY) is True and config.get(options.NOTE_POSITION) is None
    config.set(options.PREVIEW_RATIO, 5.0)
    config.set(options.SORT, "random")
    assert config.get(options.PREVIEW_RATIO) == 0.8 and config.get(options.SORT) == "relevance"
    assert len({option.key for option in options.OPTIONS}) == len(options.OPTIONS)  # one key, one option


def test_settings_file_is_replaced_atomically_and_keeps_its_mode(tmp_path):
    path = tmp_path / "settings.ini"
    config = Config(path)
    config.set(options.SORT, "time")
    config.save()
    os.chmod(path, 0o600)
    config.set(options.SORT, "relevance")
    config.save()
    assert path.stat().st_mode & 0o777 == 0o600
    assert [p.name for p in tmp_path.iterdir()] == ["settings.ini"]  # no temp file left behind
