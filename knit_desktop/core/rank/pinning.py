"""The user's pins and hides applied to a ranking: hidden documents leave it, pinned ones lead it.

One place for every consumer (the window, the tray, `rank`, `context`, `knit_docs`): a context pack gets a "pinned"
tier above primary (a pinned document leaves the tier it would have been in, keeping its reason and passage), and a
rank list puts the pinned first in the order they were pinned. `--ignore-pins` skips this step.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from ..index.documents import Document
from ..index.pins import Pins
from .context_pack import ContextPack, PackItem, Reason
from .ranking import RankedDoc, Ranking
from .roles import source_type


def pin_pack(pack: ContextPack, pins: Pins, document: Callable[[str], Document | None]) -> ContextPack:
    """`pack` without hidden documents and with the pinned ones (that `document` knows) in its pinned tier."""
    if not pins.pinned and not pins.hidden:
        return pack
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


def pin_order(rels: list[str], pins: Pins) -> list[str]:
    """A ranked list of paths without the hidden ones, the pinned (that are in it) first in pin order."""
    if not pins.pinned and not pins.hidden:
        return rels
    present = set(rels)
    pinned = [rel for rel in pins.pinned if rel in present]
    skip = set(pins.hidden) | set(pinned)
    return pinned + [rel for rel in rels if rel not in skip]


def pinned_ranked(ranking: Ranking, pins: Pins | None, limit: int | None = None
                  ) -> tuple[Sequence[RankedDoc], list[str], int]:
    """The ranking's rows as listed with the user's pins (pinned first, hidden left out, then `limit`), the pinned
    paths that are in it, and how many of its documents are hidden. Without pins: the ranking as it is."""
    if pins is None or (not pins.pinned and not pins.hidden):
        return (ranking.ranked if limit is None else ranking.ranked[:limit]), [], 0
    by_rel = {r.doc.rel: r for r in ranking.ranked}
    order = pin_order(list(by_rel), pins)
    rows = [by_rel[rel] for rel in (order if limit is None else order[:limit])]
    return rows, [rel for rel in pins.pinned if rel in by_rel], sum(1 for rel in pins.hidden if rel in by_rel)
