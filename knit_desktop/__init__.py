"""Knit Desktop: documents ranked by what your DSH conversation is about right now."""

import os

__version__ = "0.1.0"

# NumPy's OpenBLAS starts a pool of threads, one per core, the moment NumPy is imported: 40–50 ms of every
# process that imports it (a one-shot `rank`, the window, the MCP server, each indexing worker), for linear
# algebra Knit never does. Set before NumPy can be imported; a value the user set is kept.
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
