"""The system libraries Qt needs and a minimal Debian lacks: one table, checked before Qt starts.

The PySide6 wheels bundle Qt, ICU and FFmpeg, but Qt links (or opens at run time) a few libraries every desktop
has and a fresh server or container does not: OpenGL/EGL, fontconfig, xkbcommon, the xcb libraries of the X11
platform plugin, PulseAudio's client library for QtMultimedia, VA-API for its FFmpeg backend. Without them
`import PySide6.QtGui` or the platform plugin fails with a traceback or an abort. `knit-desktop` checks this table
first and prints one line naming the packages instead.

The table was derived from what is really loaded, not from memory: `LD_DEBUG=files` on `knit-desktop selftest`
and on the window (`--demo --screenshot`), then `ldd` on those Qt libraries and plugins (plus the X11 platform
plugin and its GL integrations, the image-format and icon plugins) inside a `debootstrap --variant=minbase`
bookworm root with python3 installed; every "not found" soname was mapped to its package with `dpkg -S`, and
`ldd` found nothing missing once they were installed. Opened at run time, so invisible to `ldd`: VA-API by Qt's
FFmpeg stubs (without it Qt warns "Couldn't load va library") and PipeWire by QtMultimedia (without it Qt warns
"Couldn't load pipewire-0.3 library"); both warnings fail tests. `tools/fresh-machine-check.sh` repeats the proof.

Standard library only, no Qt: it runs before Qt loads, and as a script with the system python before any
virtual environment exists:

    python3 knit_desktop/core/system_libraries.py --apt     # the Debian packages CI installs (with fonts)
    python3 knit_desktop/core/system_libraries.py --check   # what is missing here; exit 2 if anything is
"""

from __future__ import annotations

import ctypes
import sys
from collections.abc import Iterable
from dataclasses import dataclass

PARTS = ("core", "multimedia")


@dataclass(frozen=True)
class MissingLibrary:
    soname: str
    debian: str  # Debian/Ubuntu package
    fedora: str  # Fedora package ("" if unknown)
    part: str  # core | multimedia | wayland


# soname, Debian/Ubuntu package, Fedora package, part.
# core: QtCore/QtGui/QtWidgets/QtSvg/QtNetwork/QtDBus, the offscreen and xcb platform plugins (with their GL
# integrations), image formats and SVG icons. multimedia: QtMultimedia and its FFmpeg plugin. wayland: the native
# Wayland platform plugin, optional (Qt falls back to xcb through XWayland), so neither checked nor installed.
TABLE: tuple[MissingLibrary, ...] = tuple(MissingLibrary(*row) for row in (
    ("libGL.so.1", "libgl1", "libglvnd-glx", "core"),
    ("libEGL.so.1", "libegl1", "libglvnd-egl", "core"),
    ("libxkbcommon.so.0", "libxkbcommon0", "libxkbcommon", "core"),
    ("libfontconfig.so.1", "libfontconfig1", "fontconfig", "core"),
    ("libfreetype.so.6", "libfreetype6", "freetype", "core"),
    ("libglib-2.0.so.0", "libglib2.0-0", "glib2", "core"),
    ("libgthread-2.0.so.0", "libglib2.0-0", "glib2", "core"),
    ("libdbus-1.so.3", "libdbus-1-3", "dbus-libs", "core"),
    ("libbrotlicommon.so.1", "libbrotli1", "libbrotli", "core"),
    ("libbrotlidec.so.1", "libbrotli1", "libbrotli", "core"),
    ("libX11.so.6", "libx11-6", "libX11", "core"),
    ("libX11-xcb.so.1", "libx11-xcb1", "libX11-xcb", "core"),
    ("libxcb.so.1", "libxcb1", "libxcb", "core"),
    ("libxcb-cursor.so.0", "libxcb-cursor0", "xcb-util-cursor", "core"),
    ("libxcb-glx.so.0", "libxcb-glx0", "libxcb", "core"),
    ("libxcb-icccm.so.4", "libxcb-icccm4", "xcb-util-wm", "core"),
    ("libxcb-image.so.0", "libxcb-image0", "xcb-util-image", "core"),
    ("libxcb-keysyms.so.1", "libxcb-keysyms1", "xcb-util-keysyms", "core"),
    ("libxcb-randr.so.0", "libxcb-randr0", "libxcb", "core"),
    ("libxcb-render.so.0", "libxcb-render0", "libxcb", "core"),
    ("libxcb-render-util.so.0", "libxcb-render-util0", "xcb-util-renderutil", "core"),
    ("libxcb-shape.so.0", "libxcb-shape0", "libxcb", "core"),
    ("libxcb-shm.so.0", "libxcb-shm0", "libxcb", "core"),
    ("libxcb-sync.so.1", "libxcb-sync1", "libxcb", "core"),
    ("libxcb-util.so.1", "libxcb-util1", "xcb-util", "core"),
    ("libxcb-xfixes.so.0", "libxcb-xfixes0", "libxcb", "core"),
    ("libxcb-xkb.so.1", "libxcb-xkb1", "libxcb", "core"),
    ("libxkbcommon-x11.so.0", "libxkbcommon-x11-0", "libxkbcommon-x11", "core"),
    ("libpulse.so.0", "libpulse0", "pulseaudio-libs", "multimedia"),
    ("libdrm.so.2", "libdrm2", "libdrm", "multimedia"),
    ("libXext.so.6", "libxext6", "libXext", "multimedia"),
    ("libXrandr.so.2", "libxrandr2", "libXrandr", "multimedia"),
    ("libva.so.2", "libva2", "libva", "multimedia"),
    ("libva-drm.so.2", "libva-drm2", "libva", "multimedia"),
    ("libva-x11.so.2", "libva-x11-2", "libva", "multimedia"),
    ("libpipewire-0.3.so.0", "libpipewire-0.3-0", "pipewire-libs", "multimedia"),
    ("libwayland-client.so.0", "libwayland-client0", "libwayland-client", "wayland"),
    ("libwayland-cursor.so.0", "libwayland-cursor0", "libwayland-cursor", "wayland"),
    ("libwayland-egl.so.1", "libwayland-egl1", "libwayland-egl", "wayland"),
))

# Not libraries, but the window needs them: Chinese text and the emoji marks (📌, 🆕) would draw as boxes.
FONTS_DEBIAN = ("fonts-noto-cjk", "fonts-noto-color-emoji")
FONTS_FEDORA = ("google-noto-sans-cjk-fonts", "google-noto-color-emoji-fonts")


def _loads(soname: str) -> bool:
    try:
        ctypes.CDLL(soname)  # the dynamic linker's own search: ld.so.cache, LD_LIBRARY_PATH, RUNPATH rules
    except OSError:
        return False
    return True


def missing_libraries(parts: Iterable[str] = PARTS) -> list[MissingLibrary]:
    """The table's rows for `parts` whose library the dynamic linker cannot load here (empty off Linux)."""
    if not sys.platform.startswith("linux"):
        return []
    wanted = set(parts)
    return [row for row in TABLE if row.part in wanted and not _loads(row.soname)]


def _unique(names: Iterable[str]) -> list[str]:
    return list(dict.fromkeys(name for name in names if name))


def install_hint(missing: Iterable[MissingLibrary]) -> str:
    """One line: what is missing and the install commands for Debian/Ubuntu and Fedora."""
    missing = list(missing)
    sonames = ", ".join(row.soname for row in missing)
    debian = " ".join(_unique(row.debian for row in missing))
    line = f"Knit Desktop needs system libraries that are missing: {sonames} — on Debian/Ubuntu: sudo apt install {debian}"
    fedora = _unique(row.fedora for row in missing)
    if fedora:
        line += f"; on Fedora: sudo dnf install {' '.join(fedora)}"
    return line


def preflight(parts: Iterable[str] = ("core",)) -> bool:
    """Before Qt loads: True if it can start; otherwise the one-line hint goes to stderr."""
    missing = missing_libraries(parts)
    if missing:
        print(install_hint(missing), file=sys.stderr)
    return not missing


def apt_packages(parts: Iterable[str] = PARTS, fonts: bool = True) -> list[str]:
    """Every Debian package the table names for `parts` (installed or not), then the fonts, in table order."""
    wanted = set(parts)
    return _unique([row.debian for row in TABLE if row.part in wanted] + (list(FONTS_DEBIAN) if fonts else []))


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    if args == ["--apt"]:
        print(" ".join(apt_packages()))
        return 0
    if args == ["--check"]:
        missing = missing_libraries()
        for row in missing:
            print(f"{row.soname}\t{row.debian}\t{row.fedora}\t{row.part}")
        if missing:
            print(install_hint(missing), file=sys.stderr)
            return 2
        return 0
    print("usage: system_libraries.py --apt | --check", file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main())
