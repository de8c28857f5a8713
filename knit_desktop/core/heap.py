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

The ranking on show is itself tens of thousands of objects (a row per document: 120,000 objects at 20,000
documents), alive for the second until the next one, so it reaches the oldest generation, and with Python's
default thresholds nearly every ranking set off a full collection that walked it again: 20-40 ms with the GIL held
at 20,000 documents, five times that at 100,000, while the user watched the list change. A window therefore holds
automatic full collections (`hold_full_collections`): the young generations are still collected as usual (they
are small), and the window runs the full collection itself when it has been quiet for a while
(`services/heap_keeper.py`), as qutebrowser does. Nothing is kept that a full collection would free, only later.
"""

from __future__ import annotations

import ctypes
import functools
import gc
import linecache
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager

HELD_FULL_THRESHOLD = 1_000_000  # young collections before an automatic full one while held: in practice never

_held: list[tuple[int, int, int]] = []  # the thresholds before each hold still in force, innermost last


def settle_heap() -> None:
    """Call once a burst of long-lived allocations is done: an index opened (or a thousand more files of its first build)."""
    gc.freeze()
    return_free_memory()


def return_free_memory() -> None:
    """Give the C allocator's free pages back to the system. Opening a 100,000-file index walks the workspace
    and compares the walk with the index: tens of megabytes of short-lived lists and arrays, freed when it is done.
    glibc keeps what was freed inside its heaps (it only gives back the top of a heap, and above a threshold it raises
    itself after large frees), so the process stayed 14 MB larger for good. `malloc_trim` hands back every free page
    of every heap (about 1 ms). Elsewhere (macOS, Windows, musl) there is no such call and nothing is done."""
    trim = _malloc_trim()
    if trim is not None:
        trim(0)


@functools.cache
def _malloc_trim() -> Callable[[int], int] | None:
    if not sys.platform.startswith("linux"):
        return None
    try:
        trim: Callable[[int], int] = ctypes.CDLL(None).malloc_trim  # the C library the process runs on
    except (OSError, AttributeError):  # not glibc
        return None
    return trim


def release_heap() -> None:
    gc.unfreeze()


def hold_full_collections() -> None:
    """Stop the collector from starting full collections on its own (until `release_full_collections`); the young
    generations are still collected automatically. Holds nest."""
    thresholds = gc.get_threshold()
    _held.append(thresholds)
    gc.set_threshold(thresholds[0], thresholds[1], HELD_FULL_THRESHOLD)


def release_full_collections() -> None:
    """End the innermost hold: the thresholds go back to what they were before it."""
    if _held:
        gc.set_threshold(*_held.pop())


@contextmanager
def holding_full_collections() -> Iterator[None]:
    """`hold_full_collections` for the length of a `with` block: for a process whose job is one build (the builder
    process, `knit-desktop index`). Its index only grows while it builds, so each full collection walked all of it
    again, five times in a build of 20,000 files: a fifth of the indexing process's processor time."""
    hold_full_collections()
    try:
        yield
    finally:
        release_full_collections()


def full_collections_held() -> bool:
    return bool(_held)


def collect_full() -> tuple[int, float]:
    """A full collection now: (objects freed, milliseconds it took)."""
    started = time.perf_counter()
    freed = gc.collect()
    return freed, (time.perf_counter() - started) * 1000


def forget_source_lines() -> None:
    """Let go of the source lines Python's `linecache` holds. Once PySide6 is loaded it reads the whole source of
    every module imported (its `__feature__` support looks for the word "PySide6" with `inspect.getsource`), and
    `linecache` keeps what it read: 130,000 lines, about 11 MB, by the time the window is up, and more with each
    module imported later. Nothing in the app reads them; a traceback printed later reads its few lines again."""
    linecache.clearcache()
