"""Whether Qt Multimedia can load here: the one place that imports it optimistically.

QtMultimedia links the system's PulseAudio client library (libpulse.so.0), which a minimal machine may lack. The
rest of the app must start anyway: images keep their thumbnails and previews, videos get a placeholder saying why,
and the status line and `knit-desktop selftest` say so. Everything that plays or probes a video asks
`multimedia_available()` first (through this module, so a test can make it say no) and imports
`PySide6.QtMultimedia` only when it said yes.
"""

from __future__ import annotations

import functools

from ..core.system_libraries import missing_libraries

_state: tuple[bool, str] | None = None


def multimedia_available() -> tuple[bool, str]:
    """(True, "") when QtMultimedia loads; otherwise (False, why) with the loader's own words."""
    global _state
    if _state is None:
        try:
            import PySide6.QtMultimedia  # noqa: F401  (loads libQt6Multimedia and the libraries it links)
        except ImportError as exc:
            _state = (False, str(exc) or type(exc).__name__)
        else:
            _state = (True, "")
            convert_frames_on_the_cpu()
    return _state


def known() -> tuple[bool, str] | None:
    """What `multimedia_available` found, without asking it: None while nothing has needed Qt Multimedia yet (a
    video's poster or preview). For what only reports it (the status line): asking loads QtMultimedia and
    QtNetwork, 5.8 MB resident, in a window that may never show a video."""
    return _state


def convert_frames_on_the_cpu() -> None:
    """Make `QVideoFrame.toImage()` (the preview's frames, the video posters) convert on the CPU.

    Where the platform offers OpenGL (X11, Wayland) Qt converts each frame through a GPU context of its own; with
    Mesa's software renderer that loads llvmpipe and LLVM: 75 MB resident and 40 ms for the first 320x240 frame,
    against 2 MB and 2 ms on the CPU, whose colours are also the closer to FFmpeg's. Qt takes the CPU path when the
    application forbids GL-based widgets, and Knit's widgets draw with the raster engine anyway."""
    from PySide6.QtCore import QCoreApplication, Qt

    QCoreApplication.setAttribute(Qt.ApplicationAttribute.AA_ForceRasterWidgets)


@functools.cache
def missing_packages() -> list[str]:
    """The Debian/Ubuntu packages whose libraries Qt Multimedia lacks here (empty when none is known)."""
    return list(dict.fromkeys(row.debian for row in missing_libraries(("multimedia",))))  # asked once: ~30 ms


def unavailable_problem() -> str:
    """Why videos cannot be shown, in English, for logs and `selftest` (the window says it through Qt's tr)."""
    _ok, why = multimedia_available()
    packages = missing_packages()
    install = f" (on Debian/Ubuntu: sudo apt install {' '.join(packages)})" if packages else ""
    return f"videos need Qt Multimedia, which cannot load: {why}{install}"
