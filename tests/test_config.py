"""One configuration for every process: what the window's settings say, the command line and the MCP server
read through a Qt-free reader; command-line flags override it."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from knit_desktop.core.config import SharedSettings, settings_path, unescape_ini_value
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
