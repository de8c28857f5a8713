"""Keeping Python's cyclic garbage collector from freezing the window.

The index is hundreds of thousands of long-lived objects, and a ranking hands the window thousands more. Left
in the oldest generation, every full collection walks them all with the GIL held (50-130 ms for 5,000
documents, on whichever thread happens to trigger it), and the window stalls for that long. Freezing moves the
objects alive now out of the collector's reach; frozen objects are still freed by reference counting, and
`release_heap` hands everything back when an index closes so its reference cycles can be collected.
"""

from __future__ import annotations

import gc


def settle_heap() -> None:
    """Call after a burst of long-lived allocations (an index opened or updated, a ranking delivered)."""
    gc.freeze()


def release_heap() -> None:
    gc.unfreeze()
