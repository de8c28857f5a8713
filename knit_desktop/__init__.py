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


def use_builtin_hashes() -> None:
    """Let `hashlib` use Python's own hash functions in this process, not OpenSSL's. Importing `hashlib` loads
    OpenSSL (`_hashlib`), whose start-up reads its configuration and providers: 3.5 MB of the window's resident
    memory (of a 200 MB budget at 100,000 documents) and 3 ms of its start, for a sha256 of a folder's path or of a
    memory file and a sha1 of a thumbnail's key, which Python's built-in functions compute alike (the content
    hash of documents is blake2b, never OpenSSL's in any case). Effective only before anything imports
    `hashlib`; a process that loads OpenSSL anyway (TLS, the MCP server's HTTP stack) gains nothing from it."""
    sys.modules.setdefault("_hashlib", None)  # type: ignore[arg-type]  # (None: `import _hashlib` raises ImportError)
