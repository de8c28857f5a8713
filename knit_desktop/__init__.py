"""Knit Desktop: documents ranked by what your DSH conversation is about right now."""

import os
import sys

__version__ = "0.1.0"

# NumPy's OpenBLAS starts a pool of threads, one per core, the moment NumPy is imported: 40–50 ms of every
# process that imports it (a one-shot `rank`, the window, the MCP server, each indexing worker), for linear
# algebra Knit never does. Set before NumPy can be imported; a value the user set is kept.
_BLAS_THREADS = "OPENBLAS_NUM_THREADS"
_blas_default = _BLAS_THREADS not in os.environ
os.environ.setdefault(_BLAS_THREADS, "1")


def release_blas_default() -> None:
    """Take Knit's OPENBLAS_NUM_THREADS back out of the environment once NumPy is loaded (OpenBLAS reads it only
    then), before the window starts another program (a file opened in its application, a folder in the file
    manager): that program inherits the window's environment, and kept one thread for its own linear algebra.
    Knit's own processes started later set it again when they import this package; a value the user set stays."""
    global _blas_default
    if _blas_default and "numpy" in sys.modules:
        _blas_default = False
        if os.environ.get(_BLAS_THREADS) == "1":
            del os.environ[_BLAS_THREADS]
