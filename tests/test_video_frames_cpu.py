"""Video frames become images on the CPU, not through OpenGL. On an X display Qt converts each frame
(`QVideoFrame.toImage()`, which the preview and the video posters use) through a GL context of its own; with Mesa's
software renderer that loads llvmpipe and LLVM, about 75 MB resident for one small frame. The tests run Qt offscreen,
where there is no GL, so the check runs a real X server (Xvfb) in a child process."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from PySide6.QtCore import QCoreApplication, Qt

from knit_desktop.services import multimedia

from .media_fixtures import copy_video

ROOT = Path(__file__).resolve().parents[1]

# Prints the converted frame's size and whether LLVM (Mesa's llvmpipe, which a GL context loads) is mapped.
CHILD = r"""
import sys
from PySide6.QtCore import QTimer, QUrl
from PySide6.QtWidgets import QApplication

app = QApplication(sys.argv[:1])
if sys.argv[1] == "knit":
    from knit_desktop.services import multimedia
    assert multimedia.multimedia_available()[0]
from PySide6.QtMultimedia import QMediaPlayer, QVideoSink

player, sink = QMediaPlayer(), QVideoSink()
player.setVideoSink(sink)


def on_frame(frame):
    if frame.isValid():
        sink.videoFrameChanged.disconnect(on_frame)
        image = frame.toImage()
        with open("/proc/self/maps") as maps:
            llvm = "libLLVM" in maps.read()
        print("frame", image.width(), image.height(), "llvm" if llvm else "no-llvm", flush=True)
        app.quit()


sink.videoFrameChanged.connect(on_frame)
player.setSource(QUrl.fromLocalFile(sys.argv[2]))
player.pause()
QTimer.singleShot(20_000, app.quit)
app.exec()
"""


@pytest.fixture
def x_display():
    """A private Xvfb display; the test is skipped where Xvfb is not installed."""
    if shutil.which("Xvfb") is None:
        pytest.skip("Xvfb is not installed")
    read, write = os.pipe()
    server = subprocess.Popen(["Xvfb", "-displayfd", str(write), "-nolisten", "tcp", "-screen", "0", "640x480x24"],
                              pass_fds=(write,), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    os.close(write)
    with os.fdopen(read) as pipe:
        number = pipe.readline().strip()
    try:
        if not number:
            pytest.skip("Xvfb did not start")
        yield f":{number}"
    finally:
        server.terminate()
        server.wait(timeout=10)


def convert_one_frame(display: str, video: Path, how: str) -> str:
    env = {k: v for k, v in os.environ.items() if k not in ("QT_QPA_PLATFORM", "WAYLAND_DISPLAY")}
    env.update(DISPLAY=display, PYTHONPATH=str(ROOT))
    done = subprocess.run([sys.executable, "-c", CHILD, how, str(video)], env=env, capture_output=True, text=True,
                          timeout=60)
    lines = [line for line in done.stdout.splitlines() if line.startswith("frame ")]
    assert lines, done.stderr[-2000:]
    return lines[-1]


def test_video_frames_convert_without_a_gl_context_on_x(x_display, tmp_path):
    video = copy_video("tiny.mp4", tmp_path / "clip.mp4")
    plain = convert_one_frame(x_display, video, "plain")
    if not plain.endswith(" llvm"):
        pytest.skip(f"Qt's GL conversion loads no LLVM on this machine ({plain})")
    assert convert_one_frame(x_display, video, "knit") == "frame 96 64 no-llvm"


def test_multimedia_available_asks_qt_for_cpu_frame_conversion(monkeypatch):
    monkeypatch.setattr(multimedia, "_state", None)
    QCoreApplication.setAttribute(Qt.ApplicationAttribute.AA_ForceRasterWidgets, False)
    assert multimedia.multimedia_available() == (True, "")
    assert QCoreApplication.testAttribute(Qt.ApplicationAttribute.AA_ForceRasterWidgets)
