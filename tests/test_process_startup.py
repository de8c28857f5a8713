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
