"""What every Knit process pays for at start, whatever its entry point (a one-shot command, the window, the MCP
server, an indexing worker)."""

import os
import subprocess
import sys

import pytest

THREADS_AFTER_NUMPY = ("import os, knit_desktop, numpy; "
                       "print(len(os.listdir('/proc/self/task')), os.environ.get('OPENBLAS_NUM_THREADS', '-'))")


def _run(env: dict[str, str]) -> list[str]:
    out = subprocess.run([sys.executable, "-c", THREADS_AFTER_NUMPY], capture_output=True, text=True, env=env,
                         timeout=60, check=True)
    return out.stdout.split()


@pytest.mark.skipif(not os.path.isdir("/proc/self/task") or (os.cpu_count() or 1) < 2,
                    reason="counts threads through /proc; OpenBLAS starts no pool on one core")
def test_importing_numpy_after_knit_starts_no_blas_thread_pool():
    """OpenBLAS would start one thread per core when NumPy is imported (40–50 ms of a cold `rank`)."""
    env = {k: v for k, v in os.environ.items() if k not in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS")}
    assert _run(env) == ["1", "1"]


def test_a_blas_thread_count_the_user_set_is_kept():
    env = {k: v for k, v in os.environ.items() if k != "OMP_NUM_THREADS"} | {"OPENBLAS_NUM_THREADS": "2"}
    assert _run(env)[1] == "2"


OPENED_FROM_THE_WINDOW = """
import os, knit_desktop, numpy
threads = len(os.listdir("/proc/self/task")) if os.path.isdir("/proc/self/task") else 1
from PySide6.QtGui import QDesktopServices
from knit_desktop.ui import item_actions
seen = []
QDesktopServices.openUrl = staticmethod(lambda url: seen.append(os.environ.get("OPENBLAS_NUM_THREADS", "-")) or True)
item_actions.open_with_system_app(os.getcwd())
print(seen[0], threads)
"""


def _opened(env: dict[str, str]) -> list[str]:
    out = subprocess.run([sys.executable, "-c", OPENED_FROM_THE_WINDOW], capture_output=True, text=True,
                         env=env | {"QT_QPA_PLATFORM": "offscreen"}, timeout=60, check=True)
    return out.stdout.split()


def test_a_program_the_window_opens_a_file_with_does_not_inherit_the_one_blas_thread():
    """The application a file is opened with (through xdg-open) inherits the window's environment: it ran its own
    linear algebra (a notebook, a data tool) on one thread. OpenBLAS read the setting when NumPy loaded it, so the
    window keeps its one thread; a value the user set is passed on as it was."""
    env = {k: v for k, v in os.environ.items() if k not in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS")}
    assert _opened(env) == ["-", "1"]
    assert _opened(env | {"OPENBLAS_NUM_THREADS": "2"})[0] == "2"
