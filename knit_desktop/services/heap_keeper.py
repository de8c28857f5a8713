"""Runs the garbage collector's full collections when the window is quiet, instead of whenever Python's
thresholds say (see `core/heap.py` for why): a ranking shown or indexing progress counts as activity; once none
has come for `quiet_ms`, the next check collects. A window that never goes quiet still gets one every `longest_ms`.
"""

from __future__ import annotations

import gc
import time

from PySide6.QtCore import QObject, QTimer, Signal, Slot

from ..core.heap import (
    collect_full,
    forget_source_lines,
    hold_full_collections,
    release_full_collections,
    return_free_memory,
)

CHECK_MS = 5_000  # how often to look whether it is quiet
QUIET_MS = 10_000  # no activity for this long: quiet
LONGEST_MS = 600_000  # a full collection at least this often, quiet or not


class HeapKeeper(QObject):
    collected = Signal(int, float)  # objects freed, milliseconds the collection took

    def __init__(self, parent: QObject | None = None, *, check_ms: int = CHECK_MS, quiet_ms: int = QUIET_MS,
                 longest_ms: int = LONGEST_MS) -> None:
        super().__init__(parent)
        self.quiet_ms = quiet_ms
        self.longest_ms = longest_ms
        self._last_activity = self._last_full = time.monotonic()
        self._timer = QTimer(self)
        self._timer.setInterval(check_ms)
        self._timer.timeout.connect(self.check)
        self._holding = False

    def start(self) -> None:
        if not self._holding:
            hold_full_collections()
            self._holding = True
        self._timer.start()

    def stop(self) -> None:
        self._timer.stop()
        if self._holding:
            release_full_collections()
            self._holding = False

    @Slot()
    def note_activity(self, *_args: object) -> None:
        self._last_activity = time.monotonic()

    @Slot()
    def check(self) -> None:
        now = time.monotonic()
        quiet = (now - self._last_activity) * 1000 >= self.quiet_ms
        overdue = (now - self._last_full) * 1000 >= self.longest_ms
        # gc.get_count()[2]: young collections since the last full one; none means nothing new reached the old
        # generation, and a full collection would walk it for nothing.
        if (quiet or overdue) and gc.get_count()[2] > 0:
            self._last_full = now
            forget_source_lines()  # (what modules imported since read: see core/heap.py)
            freed, took_ms = collect_full()
            return_free_memory()  # what the collection and the rankings since freed (see core/heap.py)
            self.collected.emit(freed, took_ms)
