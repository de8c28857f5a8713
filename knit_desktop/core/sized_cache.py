"""A least-recently-used cache bounded by the bytes of what it holds, not only by how many entries.

The ranking caches each looked-up term's postings (and, per pool, its BM25 contribution) so that a conversation,
whose keywords persist from one re-ranking to the next, does not rebuild them. Bounded by count alone, a long
session at 100,000 documents kept hundreds of megabytes: one common term's postings are 32 bytes per document
holding it. The byte bound keeps the cache at a size a companion may hold, whatever the terms.

A cache made `by_round` has its user mark rounds (`new_round`: one ranking): an entry used in the current round is not pushed
out by another of the same round, which is then not kept instead. Least-recently-used alone keeps nothing when a
round asks for more than fits, in the same order each time: a conversation's thirty keywords at 100,000 documents
(two million postings) pushed each other out, and every re-ranking computed all of them again.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable
from typing import Generic, TypeVar

K = TypeVar("K")
V = TypeVar("V")


class SizedCache(Generic[K, V]):
    def __init__(self, max_items: int, max_bytes: int, size_of: Callable[[V], int], by_round: bool = False) -> None:
        self.max_items = max_items
        self.max_bytes = max_bytes
        self._size_of = size_of
        self._items: OrderedDict[K, tuple[V, int, int]] = OrderedDict()  # value, size, round of its last use
        self.bytes = 0
        self.by_round = by_round
        self._round = 0

    def new_round(self) -> None:
        """Start a round: from now on, the entries used before it may be pushed out by the new ones again."""
        self._round += 1

    def get(self, key: K) -> V | None:
        found = self._items.get(key)
        if found is None:
            return None
        self._items[key] = (found[0], found[1], self._round)
        self._items.move_to_end(key)
        return found[0]

    def put(self, key: K, value: V) -> None:
        """Keep `value`, dropping the least recently used entries while either bound is exceeded (by round: only
        those of earlier rounds; when only entries of this round are left to drop, `value` is not kept). A value
        larger than the whole budget is not kept."""
        size = self._size_of(value)
        old = self._items.pop(key, None)
        if old is not None:
            self.bytes -= old[1]
        if size > self.max_bytes:
            return
        self._items[key] = (value, size, self._round)
        self.bytes += size
        while len(self._items) > self.max_items or self.bytes > self.max_bytes:
            oldest = next(iter(self._items))
            # Used this round: so is every entry after it (each use moves an entry to the end).
            last_use = self._items[oldest][2]
            if self.by_round and last_use == self._round and oldest != key:
                _, dropped, _ = self._items.pop(key)
                self.bytes -= dropped
                return
            _, dropped, _ = self._items.pop(oldest)
            self.bytes -= dropped

    def clear(self) -> None:
        self._items.clear()
        self.bytes = 0

    def __len__(self) -> int:
        return len(self._items)

    def __contains__(self, key: object) -> bool:
        return key in self._items
