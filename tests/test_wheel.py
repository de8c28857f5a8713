"""A wheel installs a working app: built from the sources, installed in a fresh venv that cannot see this checkout,
it opens the window on the bundled demo (icons, translations and demo come from inside the package) and ranks.

Dependencies come from the package registry through pip's cache, so after the first run this takes well under a
minute; without a reachable registry the test is skipped and says so.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
SOURCES = ("pyproject.toml", "setup.py", "MANIFEST.in", "README.md", "LICENSE", "knit_desktop", "resources")
UNREACHABLE = ("No matching distribution found", "Could not find a version", "NewConnectionError",
               "Temporary failure in name resolution", "Network is unreachable", "ConnectTimeout", "ReadTimeout")

pytestmark = pytest.mark.slow

TRANSLATIONS_LOAD = """
import sys
from PySide6.QtCore import QCoreApplication
from PySide6.QtWidgets import QApplication
import knit_desktop
from knit_desktop.resources import resources_dir
from knit_desktop.ui.i18n import LanguageSwitcher
app = QApplication([])
switcher = LanguageSwitcher()
switcher.apply("zh_CN")
print(knit_desktop.__file__)
print(resources_dir())
print(QCoreApplication.translate("HeaderBar", "Settings…"))
"""


def _pip(venv_python: Path | str, *args: str, cwd: Path) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}
    out = subprocess.run([str(venv_python), "-m", "pip", *args], capture_output=True, text=True, cwd=cwd, env=env,
                         timeout=1200)
    if out.returncode != 0 and any(marker in out.stdout + out.stderr for marker in UNREACHABLE):
        pytest.skip(f"the package registry is unreachable: {(out.stderr or out.stdout).strip().splitlines()[-1]}")
    assert out.returncode == 0, out.stdout[-3000:] + out.stderr[-3000:]
    return out


def test_a_wheel_installed_in_a_fresh_venv_opens_the_demo_and_ranks(tmp_path):
    started = time.monotonic()
    source = tmp_path / "src"  # a copy: building in the checkout would leave build/ and *.egg-info behind
    source.mkdir()
    for name in SOURCES:
        if (REPO / name).is_dir():
            shutil.copytree(REPO / name, source / name, ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
        else:
            shutil.copy2(REPO / name, source / name)
    dist = tmp_path / "dist"
    _pip(sys.executable, "wheel", "--no-deps", "--quiet", "-w", str(dist), str(source), cwd=tmp_path)
    wheel = next(dist.glob("knit_desktop-*.whl"))
    built = time.monotonic()

    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True, timeout=300)
    python = venv / "bin" / "python"
    _pip(python, "install", "--quiet", str(wheel), cwd=tmp_path)
    installed = time.monotonic()

    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV", "KNIT_DESKTOP_RESOURCES")}
    env.update(QT_QPA_PLATFORM="offscreen", KNIT_DESKTOP_HOME=str(tmp_path / "home"))
    probe = subprocess.run([str(python), "-c", TRANSLATIONS_LOAD], capture_output=True, text=True, cwd=tmp_path,
                           env=env, timeout=120)
    assert probe.returncode == 0, probe.stderr
    package_file, resources, settings_label = probe.stdout.splitlines()[:3]
    assert package_file.startswith(str(venv)) and resources.startswith(str(venv))  # not this checkout
    assert settings_label == "设置…"  # the Chinese catalogue shipped in the wheel

    shot = tmp_path / "demo.png"
    window = subprocess.run([str(venv / "bin" / "knit-desktop"), "--demo", "--screenshot", str(shot)],
                            capture_output=True, text=True, cwd=tmp_path, env=env, timeout=180)
    assert window.returncode == 0, window.stderr
    assert shot.stat().st_size > 10_000

    ranked = subprocess.run([str(venv / "bin" / "knit-desktop"), "rank", "--demo", "--query", "x"],
                            capture_output=True, text=True, cwd=tmp_path, env=env, timeout=120)
    assert ranked.returncode == 0, ranked.stderr
    assert len(ranked.stdout.splitlines()) >= 10  # every demo document, in rank order
    print(f"\nwheel: build {built - started:.1f} s, install {installed - built:.1f} s, "
          f"run {time.monotonic() - installed:.1f} s")
