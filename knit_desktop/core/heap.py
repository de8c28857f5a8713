"""Keeping Python's cyclic garbage collector from freezing the window.

The index is hundreds of thousands of long-lived objects, and a ranking hands the window thousands more. Left
in the oldest generation, every full collection walks them all with the GIL held (50-130 ms for 5,000
documents, on whichever thread happens to trigger it), and the window stalls for that long. Freezing moves the
objects alive now out of the collector's reach; frozen objects are still freed by reference counting, and
`release_heap` hands everything back when an index closes so its reference cycles can be collected.

Freeze only after an index opens (or while it is first built): what is alive then stays alive. Never after a
ranking or a live update: short-lived objects caught by a freeze are freed only by reference counting, so any
reference cycle among them would be kept for good (rankings are built without cycles for that reason, see
`rank/ranking.py` `RowDetails`, and a test holds weak references to delivered rankings to keep it so).
"""

from __future__ import annotations

import gc


def settle_heap() -> None:
    """Call once a burst of long-lived allocations is done: an index opened (or a thousand more files of its first build)."""
    gc.freeze()


def release_heap() -> None:
    gc.unfreeze()
