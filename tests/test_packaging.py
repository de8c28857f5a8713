"""The frozen bundle (dist/knit-desktop, built by `make package`): smoke test and the Linux install script.

Skipped when no bundle has been built, so the default suite (and CI) do not need PyInstaller.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
BUNDLE = REPO / "dist" / "knit-desktop"

pytestmark = pytest.mark.skipif(not (BUNDLE / "knit-desktop-bin").exists(),
                                reason="no bundle in dist/knit-desktop (run `make package`)")


def test_the_frozen_app_renders_reads_media_and_pdfs_speaks_both_languages_ranks_and_serves_mcp():
    import sys

    sys.path.insert(0, str(REPO / "packaging"))
    try:
        import smoke
    finally:
        sys.path.pop(0)
    results = smoke.run(BUNDLE)
    assert results["window"]["first_list_ms"] < 3000
    assert results["selftest"]["video"]["duration_ms"] == 4000
    assert results["mcp"]["primary"]


def snapshot(root: Path) -> set[str]:
    return {str(p.relative_to(root)) for p in root.rglob("*")}


def test_the_install_script_installs_for_the_user_and_removes_exactly_what_it_added(tmp_path):
    home = tmp_path / "home"
    foreign = home / ".local" / "share" / "applications" / "someone-else.desktop"
    foreign.parent.mkdir(parents=True)
    foreign.write_text("[Desktop Entry]\nName=Other\n", encoding="utf-8")
    before = snapshot(home)
    env = {**os.environ, "HOME": str(home)}
    env.pop("XDG_DATA_HOME", None)

    subprocess.run(["sh", str(BUNDLE / "install-linux.sh")], env=env, check=True, capture_output=True)
    launcher = home / ".local" / "bin" / "knit-desktop"
    assert launcher.is_symlink() and launcher.resolve() == (home / ".local/opt/knit-desktop/knit-desktop-bin").resolve()
    entry = (home / ".local/share/applications/knit-desktop.desktop").read_text(encoding="utf-8")
    assert f"Exec={home}/.local/opt/knit-desktop/knit-desktop-bin %f" in entry
    for size in (16, 48, 256, 512):
        assert (home / f".local/share/icons/hicolor/{size}x{size}/apps/knit-desktop.png").exists()
    assert (home / ".local/share/metainfo/io.github.knit_desktop.KnitDesktop.metainfo.xml").exists()
    version = subprocess.run([str(launcher), "--version"], env=env, capture_output=True, text=True, timeout=60)
    assert version.returncode == 0 and version.stdout.startswith("knit-desktop ")

    subprocess.run(["sh", str(BUNDLE / "install-linux.sh"), "--uninstall"], env=env, check=True, capture_output=True)
    assert snapshot(home) == before
    assert foreign.read_text(encoding="utf-8").startswith("[Desktop Entry]")
