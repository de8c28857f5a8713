"""The window's process hashes with Python's own functions and never loads OpenSSL (3.5 MB of its resident memory)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc/self/maps")

CHECK = """
import hashlib, sys
expected = "2cf24dba5fb0a30e26e83b2ac5b9e29e1b161e5c1fa7425e73043362938b9824"
assert hashlib.sha256(b"hello").hexdigest() == expected
assert hashlib.sha1(b"hello").hexdigest() == "aaf4c61ddcc5e8a2dabede0f3b482cd9aea9434d"
maps = open("/proc/self/maps").read()
print("openssl" if "libcrypto" in maps else "builtin")
"""


def run(code: str) -> str:
    done = subprocess.run([sys.executable, "-c", code + CHECK], cwd=REPO, capture_output=True, text=True,
                          env={"PYTHONPATH": str(REPO), "QT_QPA_PLATFORM": "offscreen", "PATH": "/usr/bin:/bin"},
                          timeout=120)
    assert done.returncode == 0, done.stderr
    return done.stdout.strip().splitlines()[-1]


def test_the_window_modules_load_without_openssl() -> None:
    assert run("import knit_desktop.ui.app\n") == "builtin"


def test_the_gui_command_prepares_its_process_before_its_module_loads() -> None:
    code = "from knit_desktop import cli\ncli.PREPARE['gui']()\nimport knit_desktop.cli.app\n"
    assert run(code) == "builtin"


def test_other_commands_keep_openssl() -> None:
    # (the MCP server and the one-shot commands are left as they were: nothing is set up for them)
    assert run("import knit_desktop.cli.app\n") == "openssl"
