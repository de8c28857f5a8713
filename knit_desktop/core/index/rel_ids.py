"""Document id by rel, for an index whose documents were loaded from a snapshot's columns.

A dictionary of every rel held each as a Python string: 15 MB at 100,000 documents (8 MB of strings, 6 MB of
table), for as long as the window or the MCP server lives. The rows of the snapshot are found instead by the hash
of their rel, in one sorted array (16 bytes a row, made at the first lookup), and each hit is checked against the
rel the column holds, so a collision costs a second look, never a wrong answer. The rows added or removed since the load are few: added ones
go to a small dictionary, removed ones to a set.

Looking up a whole walk one rel at a time would decode a rel per file; `ids_of` decodes the column once and looks
the walk up in a dictionary made for that call alone. `under` answers which documents lie below some folders by
binary search in the snapshot's saved order by rel, without decoding the others.
"""

from __future__ import annotations

from collections.abc import Iterator, MutableMapping, Sequence
from itertools import repeat

import numpy as np

from .doc_table import DocumentTable

# Fewer rels than this are looked up one at a time; more, by decoding the column once (a whole walk).
BULK_LOOKUP = 2048


class RelIds(MutableMapping[str, int]):
    def __init__(self, docs: DocumentTable) -> None:
        self._docs = docs
        columns = docs.columns
        self._base = columns.count if columns is not None else 0
        self._extra: dict[str, int] = {}  # rows after the snapshot's, and any set since the load
        live = docs.live()
        # The rows alive in the snapshot (ascending); those removed since are `_gone`.
        self._rows = np.flatnonzero(columns.alive).astype(np.int32) if columns is not None else np.zeros(0, np.int32)
        self._gone: set[int] = set(np.flatnonzero(columns.alive & ~live[: self._base]).tolist()) \
            if columns is not None else set()
        # Those rows sorted by the hash of their rel, with the hashes: made at the first lookup of one rel (a
        # one-shot command that only walks looks the walk up with `ids_of` and never needs them).
        self._by_hash: tuple[np.ndarray, np.ndarray] | None = None
        for i in np.flatnonzero(live[self._base :]).tolist():
            self._extra[docs.rel(self._base + i)] = self._base + i

    # --- one rel -------------------------------------------------------------------------------------

    def prepare(self) -> None:
        """Make the array of hashes now, on the calling thread (the first lookup of one rel makes it otherwise,
        on whichever thread asks: 37 ms at 100,000 documents)."""
        if len(self._rows):
            self._hashed()

    def _hashed(self) -> tuple[np.ndarray, np.ndarray]:
        if self._by_hash is None:
            columns = self._docs.columns
            assert columns is not None
            names = columns.texts["rel"].all()
            rows = self._rows
            hashes = np.fromiter(map(hash, map(names.__getitem__, rows.tolist())), dtype=np.int64, count=len(rows))
            order = np.argsort(hashes, kind="stable")
            self._by_hash = hashes[order], rows[order]
        return self._by_hash

    def _snapshot_row(self, rel: str) -> int | None:
        """The live snapshot row holding `rel`, if any."""
        if not len(self._rows):
            return None
        hashes, rows = self._hashed()
        h = hash(rel)
        k = int(hashes.searchsorted(h))
        while k < len(hashes) and hashes.item(k) == h:
            row: int = rows.item(k)
            if row not in self._gone and self._docs.rel(row) == rel:
                return row
            k += 1
        return None

    def __getitem__(self, rel: str) -> int:
        found = self.get(rel)
        if found is None:
            raise KeyError(rel)
        return found

    def get(self, rel: str, default: int | None = None) -> int | None:  # type: ignore[override]
        found = self._extra.get(rel)
        if found is not None:
            return found
        row = self._snapshot_row(rel)
        return default if row is None else row

    def __contains__(self, rel: object) -> bool:
        return isinstance(rel, str) and self.get(rel) is not None

    def __setitem__(self, rel: str, doc_id: int) -> None:
        row = self._snapshot_row(rel)
        if row is not None:
            self._gone.add(row)
        self._extra[rel] = doc_id

    def __delitem__(self, rel: str) -> None:
        if self.pop(rel, None) is None:
            raise KeyError(rel)

    def pop(self, rel: str, default: int | None = None) -> int | None:  # type: ignore[override]
        found = self._extra.pop(rel, None)
        if found is not None:
            return found
        row = self._snapshot_row(rel)
        if row is None:
            return default
        self._gone.add(row)
        return row

    # --- all of them ---------------------------------------------------------------------------------

    def __len__(self) -> int:
        return len(self._rows) - len(self._gone) + len(self._extra)

    def __iter__(self) -> Iterator[str]:
        """Snapshot rows in id order, then the others in the order they were set (as a dictionary built the same
        way would give them)."""
        if len(self._rows):
            columns = self._docs.columns
            assert columns is not None
            names = columns.texts["rel"].all()
            gone = self._gone
            yield from (names[row] for row in self._rows.tolist() if row not in gone)
        yield from list(self._extra)

    def ids_of(self, rels: Sequence[str], table: dict[str, int] | None = None) -> np.ndarray:
        """The id of each of `rels`, -1 for those not held (int64). `table`: `bulk_table()`, made earlier (while
        the walk to look up was on its way from another process)."""
        n = len(rels)
        if table is None and (n < BULK_LOOKUP or not len(self._rows)):
            return np.fromiter(map(self.get, rels, repeat(-1)), dtype=np.int64, count=n)
        # (made for this call and let go with it: the walk it serves allocates as much again)
        lookup = (table if table is not None else self.bulk_table()).get
        return np.fromiter(map(lookup, rels, repeat(-1)), dtype=np.int64, count=n)

    def bulk_table(self) -> dict[str, int]:
        """Every live rel with its id, in one dictionary: the column decoded once (a whole walk's lookup). Not
        kept: it is as large as the walk, and a window lives on long after it (see the module's docstring)."""
        table: dict[str, int] = {}
        if len(self._rows):
            columns = self._docs.columns
            assert columns is not None
            names = columns.texts["rel"].all()
            gone = self._gone
            table = {names[row]: row for row in self._rows.tolist() if row not in gone}
        table.update(self._extra)
        return table

    def under(self, prefixes: tuple[str, ...]) -> list[tuple[str, int]]:
        """(rel, id) of the rels starting with one of `prefixes` (each non-empty); the snapshot's rows are found by
        binary search in its order by rel."""
        out = [(rel, i) for rel, i in self._extra.items() if rel.startswith(prefixes)]
        columns = self._docs.columns
        if not len(self._rows) or columns is None:
            return out
        text, gone = columns.texts["rel"], self._gone
        live = columns.live_in_rel_order()
        seen: set[int] = set()
        spans = []
        for prefix in prefixes:
            # Every string starting with `prefix` sorts at or after it and before it with its last character
            # raised by one.
            lo = columns.find_rel(live, prefix)
            hi = columns.find_rel(live, prefix[:-1] + chr(ord(prefix[-1]) + 1), lo) \
                if ord(prefix[-1]) < 0x10FFFF else len(live)
            spans.append((lo, hi))
        # (a rel at a time costs about 2 us; past an eighth of them, decoding the whole column at once is cheaper)
        name = text.all().__getitem__ if sum(hi - lo for lo, hi in spans) * 8 > len(live) else text.__getitem__
        for lo, hi in spans:
            for row in columns.rel_order[live[lo:hi]].tolist():
                if row not in gone and row not in seen:
                    seen.add(row)
                    out.append((name(row), row))
        return out
