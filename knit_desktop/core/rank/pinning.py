"""The user's pins and hides applied to a ranking: hidden documents leave it, pinned ones lead it.

One place for every consumer (the window, the tray, `rank`, `context`, `knit_docs`): a context pack gets a "pinned"
tier above primary (a pinned document leaves the tier it would have been in, keeping its reason and passage), and a
rank list puts the pinned first in the order they were pinned. `--ignore-pins` skips this step.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from typing import TYPE_CHECKING, overload

from ..index.documents import Document
from ..index.pins import Pins
from .ranking import RankedDoc, Ranking

if TYPE_CHECKING:  # a context pack's modules load with `context`, not with every `rank`
    from .context_pack import ContextPack, PackItem


def pin_pack(pack: ContextPack, pins: Pins, document: Callable[[str], Document | None]) -> ContextPack:
    """`pack` without hidden documents and with the pinned ones (that `document` knows) in its pinned tier."""
    if not pins.pinned and not pins.hidden:
        return pack
    from .context_pack import PackItem, Reason
    from .roles import source_type

    gone = set(pins.hidden) | set(pins.pinned)
    found: dict[str, PackItem] = {}
    hidden = sum(1 for item in pack.items() if item.record.doc.rel in pins.hidden)
    hidden += sum(1 for record in pack.recent if record.doc.rel in pins.hidden)
    for tier in ("primary", "supporting", "related"):
        kept = []
        for item in getattr(pack, tier):
            rel = item.record.doc.rel
            if rel in pins.pinned:
                found[rel] = item
            if rel not in gone:
                kept.append(item)
        setattr(pack, tier, kept)
    pack.recent = [r for r in pack.recent if r.doc.rel not in gone]
    pinned = []
    for rel in pins.pinned:
        item = found.get(rel)
        if item is None:
            doc = document(rel)
            if doc is None or doc.is_media:  # a pinned file that is gone or is not a document stays pinned, unshown
                continue
            item = PackItem(RankedDoc(-1, doc, 0.0, 0), 0, source_type(rel), Reason("pinned"), "manual")
        pinned.append(item)
    pack.pinned = pinned
    pack.hidden = hidden
    hide = set(pins.hidden)
    for item in pack.items():  # a relation names its other end: a hidden one is left out there too
        item.relations = [fact for fact in item.relations if fact.get("other") not in hide]
    return pack


class PinnedRows(Sequence[RankedDoc]):
    """A ranking's rows as listed with the user's pins, built as they are read: the pinned first (in pin order),
    then the ranking's own order without the pinned and the hidden. Reading the first n rows builds about
    n + len(pins) rows of the ranking, whatever its size: pins never make a list of 100,000 documents build
    every row (or sort past its head) to show ten."""

    def __init__(self, ranking: Ranking, pinned: list[int], skipped: set[int], length: int) -> None:
        self._ranking = ranking
        self._pinned = [ranking.row(doc_id) for doc_id in pinned]  # the one row each, sorting nothing
        self._skipped = skipped  # document ids the ranking's own order passes over
        self._length = length
        self._rest: list[RankedDoc] = []  # the ranking's own rows read so far, without the skipped
        self._read = 0  # how far into the ranking's order they come from

    def __len__(self) -> int:
        return self._length

    def _row(self, i: int) -> RankedDoc:
        if i < len(self._pinned):
            return self._pinned[i]
        wanted = i - len(self._pinned)
        ranked = self._ranking.ranked
        while len(self._rest) <= wanted:
            position = self._read
            self._read += 1
            if ranked.doc_id(position) not in self._skipped:  # a skipped document's row is never built
                self._rest.append(ranked[position])
        return self._rest[wanted]

    @overload
    def __getitem__(self, i: int) -> RankedDoc: ...

    @overload
    def __getitem__(self, i: slice) -> list[RankedDoc]: ...

    def __getitem__(self, i: int | slice) -> RankedDoc | list[RankedDoc]:
        if isinstance(i, slice):
            return [self._row(j) for j in range(*i.indices(self._length))]
        if i < 0:
            i += self._length
        if not 0 <= i < self._length:
            raise IndexError(i)
        return self._row(i)

    def __iter__(self) -> Iterator[RankedDoc]:
        return (self._row(i) for i in range(self._length))


def _in_pool(ranking: Ranking, rels: list[str]) -> list[int]:
    """The document ids of those of `rels` that the ranking ranks, in the order given."""
    mask, by_rel = ranking.pool.mask, ranking.index.by_rel
    ids = (by_rel.get(rel) for rel in rels)
    return [doc_id for doc_id in ids if doc_id is not None and doc_id < len(mask) and mask[doc_id]]


def pinned_ranked(ranking: Ranking, pins: Pins | None, limit: int | None = None
                  ) -> tuple[Sequence[RankedDoc], list[str], int]:
    """The ranking's rows as listed with the user's pins (pinned first, hidden left out, then `limit`), the pinned
    paths that are in it, and how many of its documents are hidden. Without pins: the ranking as it is. The rows
    are built as they are read (`PinnedRows`): the cost is the rows read plus the pins, not the ranking's size."""
    if pins is None or (not pins.pinned and not pins.hidden):
        return (ranking.ranked if limit is None else ranking.ranked[:limit]), [], 0
    pinned = list(dict.fromkeys(_in_pool(ranking, pins.pinned)))
    hidden = set(_in_pool(ranking, pins.hidden))
    skipped = hidden | set(pinned)
    length = len(pinned) + len(ranking.ranked) - len(skipped)
    rows = PinnedRows(ranking, pinned, skipped, length if limit is None else min(limit, length))
    docs = ranking.index.docs
    return rows, [docs[doc_id].rel for doc_id in pinned], len(hidden)  # type: ignore[union-attr]
