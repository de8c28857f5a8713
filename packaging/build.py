"""Build the Linux bundle: PyInstaller onedir into dist/knit-desktop, desktop integration files, a .tar.gz.

Run: make package   (or .venv/bin/python packaging/build.py [--no-smoke])
Prints the build time, the bundle's size on disk and packed, and runs packaging/smoke.py on the result.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tarfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
DIST = REPO / "dist"
BUNDLE = DIST / "knit-desktop"
ICON_SIZES = (16, 24, 32, 48, 64, 128, 256, 512)
LINUX = REPO / "packaging" / "linux"
PACKED_TARGET_MB = 150


def tree_size(path: Path) -> int:
    return sum(f.stat().st_size for f in path.rglob("*") if f.is_file() and not f.is_symlink())


def render_icons(share: Path) -> None:
    """PNG icons at the usual sizes from the SVG, plus the SVG itself (hicolor/scalable)."""
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    from PySide6.QtCore import Qt
    from PySide6.QtGui import QGuiApplication, QImage, QPainter
    from PySide6.QtSvg import QSvgRenderer

    QGuiApplication.instance() or QGuiApplication([])
    svg = REPO / "resources" / "icons" / "knit.svg"
    renderer = QSvgRenderer(str(svg))
    for size in ICON_SIZES:
        image = QImage(size, size, QImage.Format.Format_ARGB32)
        image.fill(Qt.GlobalColor.transparent)
        painter = QPainter(image)
        renderer.render(painter)
        painter.end()
        target = share / "icons" / "hicolor" / f"{size}x{size}" / "apps" / "knit-desktop.png"
        target.parent.mkdir(parents=True, exist_ok=True)
        image.save(str(target))
    scalable = share / "icons" / "hicolor" / "scalable" / "apps" / "knit-desktop.svg"
    scalable.parent.mkdir(parents=True, exist_ok=True)
    shutil.copy(svg, scalable)


def add_desktop_files() -> None:
    share = BUNDLE / "share"
    (share / "applications").mkdir(parents=True, exist_ok=True)
    (share / "metainfo").mkdir(parents=True, exist_ok=True)
    shutil.copy(LINUX / "knit-desktop.desktop", share / "applications" / "knit-desktop.desktop")
    shutil.copy(LINUX / "io.github.knit_desktop.KnitDesktop.metainfo.xml", share / "metainfo")
    shutil.copy(LINUX / "install-linux.sh", BUNDLE / "install-linux.sh")
    render_icons(share)


def pack(version: str) -> Path:
    archive = DIST / f"knit-desktop-{version}-linux-x86_64.tar.gz"
    with tarfile.open(archive, "w:gz", compresslevel=9) as tar:
        tar.add(BUNDLE, arcname="knit-desktop")
    return archive


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--no-smoke", action="store_true")
    args = parser.parse_args()
    sys.path.insert(0, str(REPO))
    from knit_desktop import __version__

    started = time.perf_counter()
    subprocess.run([sys.executable, "-m", "PyInstaller", "--noconfirm", "--clean", "--log-level", "WARN",
                    "--distpath", str(DIST), "--workpath", str(REPO / "build" / "pyinstaller"),
                    str(REPO / "packaging" / "knit-desktop.spec")], check=True, cwd=REPO)
    add_desktop_files()
    frozen = time.perf_counter() - started
    archive = pack(__version__)
    total = time.perf_counter() - started
    on_disk, packed = tree_size(BUNDLE) / 1e6, archive.stat().st_size / 1e6
    print(f"build: {frozen:.0f} s to freeze, {total:.0f} s with the archive")
    print(f"bundle: {on_disk:.0f} MB on disk, {packed:.0f} MB packed ({archive.name})  [target <= {PACKED_TARGET_MB} MB]")
    status = 0 if packed <= PACKED_TARGET_MB else 1
    if not args.no_smoke:
        status |= subprocess.run([sys.executable, str(REPO / "packaging" / "smoke.py"), str(BUNDLE)]).returncode
    return status


if __name__ == "__main__":
    sys.exit(main())
