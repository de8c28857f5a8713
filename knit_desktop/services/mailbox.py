"""Handing Python objects from a worker thread to the GUI thread.

Queued signals convert their arguments, and objects holding bools that crossed threads that way crashed the
interpreter at exit (a reference-count error in the binding). So workers post the object here and signal only
its integer key; the receiving side takes it out on its own thread.
"""

from __future__ import annotations

import itertools
import threading


class Mailbox:
    def __init__(self) -> None:
        self._items: dict[int, object] = {}
        self._keys = itertools.count(1)
        self._lock = threading.Lock()

    def post(self, item: object) -> int:
        with self._lock:
            key = next(self._keys)
            self._items[key] = item
            return key

    def take(self, key: int) -> object:
        with self._lock:
            return self._items.pop(key, None)

    def __len__(self) -> int:
        with self._lock:
            return len(self._items)
