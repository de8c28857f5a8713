"""The real-X end-to-end test: the app under Xvfb with a window manager (openbox) and a tray host (trayer), driven
by real input events (xdotool), in English and in 简体中文. Run with `pytest -m e2e` (`make test-e2e`).

This process only provides the X server: the steps run in a child pytest on the xcb platform
(`steps_real_x.py`), where the window is in the same process as the code that reads widget geometry, so every
click lands on a widget found by name, not on guessed coordinates. Screenshots of each step are saved in
KNIT_E2E_SCREENSHOTS (default: the test's temp dir). Skipped when Xvfb, openbox or xdotool is missing, unless
KNIT_E2E_REQUIRED=1 (CI), where a missing tool fails the run.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

pytestmark = pytest.mark.e2e

HERE = Path(__file__).resolve().parent
REPO = HERE.parent.parent
TOOLS = ("Xvfb", "openbox", "xdotool")


def _free_display() -> int:
    for number in range(90, 160):
        if not os.path.exists(f"/tmp/.X11-unix/X{number}") and not os.path.exists(f"/tmp/.X{number}-lock"):
            return number
    raise RuntimeError("no free X display number")


def _wait_for(check, seconds: float, what: str) -> None:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if check():
            return
        time.sleep(0.1)
    raise RuntimeError(f"{what} did not start within {seconds:.0f} s")


@pytest.fixture(scope="module")
def x_server(tmp_path_factory):
    missing = [tool for tool in TOOLS if shutil.which(tool) is None]
    if missing:
        if os.environ.get("KNIT_E2E_REQUIRED") == "1":
            pytest.fail(f"the real-X test needs {', '.join(missing)} (apt-get install xvfb openbox xdotool trayer)")
        pytest.skip(f"no {', '.join(missing)}: the real-X test needs Xvfb, openbox and xdotool")
    number = _free_display()
    display = f":{number}"
    logs = tmp_path_factory.mktemp("x-logs")
    env = {**os.environ, "DISPLAY": display}
    processes = []

    def start(*command: str) -> subprocess.Popen:
        log = open(logs / f"{Path(command[0]).name}.log", "wb")  # noqa: SIM115 - closed with the process
        process = subprocess.Popen(command, env=env, stdout=log, stderr=subprocess.STDOUT)
        processes.append((process, log))
        return process

    try:
        start("Xvfb", display, "-screen", "0", "1280x900x24", "-nolisten", "tcp")
        # ready when a client can connect (the socket file can appear before the server answers on a busy machine)
        _wait_for(lambda: subprocess.run(["xdotool", "getdisplaygeometry"], env=env, capture_output=True)
                  .returncode == 0, 60, "Xvfb")
        for _attempt in range(3):  # openbox gives up at once if the display was not ready for it: start it again
            openbox = start("openbox")
            try:
                _wait_for(lambda wm=openbox: wm.poll() is None and _wm_running(env), 30, "openbox")
                break
            except RuntimeError:
                if openbox.poll() is None:
                    raise
        else:
            raise RuntimeError("openbox did not start")
        if shutil.which("trayer"):
            start("trayer", "--edge", "top", "--align", "right", "--widthtype", "pixel", "--width", "120",
                  "--height", "28", "--SetDockType", "true", "--transparent", "false")
        yield display
    finally:
        for process, log in reversed(processes):
            process.terminate()
            try:
                process.wait(5)
            except subprocess.TimeoutExpired:
                process.kill()
            log.close()


def _wm_running(env: dict) -> bool:
    if shutil.which("xprop") is None:
        return True  # without xprop, trust the start
    out = subprocess.run(["xprop", "-root", "_NET_SUPPORTING_WM_CHECK"], env=env, capture_output=True, text=True)
    return "window id" in out.stdout


@pytest.mark.parametrize("language", ["en", "zh_CN"])
def test_the_window_under_real_x(x_server, tmp_path, language):
    shots = Path(os.environ.get("KNIT_E2E_SCREENSHOTS") or tmp_path / "screenshots")
    shots.mkdir(parents=True, exist_ok=True)
    env = {**os.environ, "DISPLAY": x_server, "QT_QPA_PLATFORM": "xcb", "PYTHONPATH": str(REPO),
           "KNIT_E2E_LANGUAGE": language, "KNIT_E2E_SCREENSHOTS": str(shots)}
    env.pop("WAYLAND_DISPLAY", None)
    result = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-x", "-o", "python_files=steps_*.py",
         str(HERE / "steps_real_x.py")],
        cwd=REPO, env=env, capture_output=True, text=True, timeout=600)
    print(result.stdout[-6000:], result.stderr[-3000:])
    assert result.returncode == 0, "the steps under real X failed (output above)"
    assert sorted(p.name for p in shots.glob(f"*-{language}.png")), "no screenshot saved"
