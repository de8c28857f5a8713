"""A least-recently-used cache bounded by the bytes of what it holds, not only by how many entries.

The ranking caches each looked-up term's postings (and, per pool, its BM25 contribution) so that a conversation,
whose keywords persist from one re-ranking to the next, does not rebuild them. Bounded by count alone, a long
session at 100,000 documents kept hundreds of megabytes: one common term's postings are 32 bytes per document
holding it. The byte bound keeps the cache at a size a companion may hold, whatever the terms.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable
from typing import Generic, TypeVar

K = TypeVar("K")
V = TypeVar("V")


class SizedCache(Generic[K, V]):
    def __init__(self, max_items: int, max_bytes: int, size_of: Callable[[V], int]) -> None:
        self.max_items = max_items
        self.max_bytes = max_bytes
        self._size_of = size_of
        self._items: OrderedDict[K, tuple[V, int]] = OrderedDict()
        self.bytes = 0

    def get(self, key: K) -> V | None:
        found = self._items.get(key)
        if found is None:
            return None
        self._items.move_to_end(key)
        return found[0]

    def put(self, key: K, value: V) -> None:
        """Keep `value`, dropping the least recently used entries while either bound is exceeded (a value larger
        than the whole budget is not kept)."""
        size = self._size_of(value)
        old = self._items.pop(key, None)
        if old is not None:
            self.bytes -= old[1]
        if size > self.max_bytes:
            return
        self._items[key] = (value, size)
        self.bytes += size
        while len(self._items) > self.max_items or self.bytes > self.max_bytes:
            _, (_, dropped) = self._items.popitem(last=False)
            self.bytes -= dropped

    def clear(self) -> None:
        self._items.clear()
        self.bytes = 0

    def __len__(self) -> int:
        return len(self._items)

    def __contains__(self, key: object) -> bool:
        return key in self._items
