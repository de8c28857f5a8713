"""One typed result per ranking: what the window's list, grid, All view, tray and preview show.

The indexer's worker ranks once per request and builds a `ViewResult` from that ranking and, for the relevance
list of documents, the context pack built on the same ranking. The rows come already in the order the window
lists them: the pack's tiers first (pinned, primary, supporting, related, numbered across the tiers), then every
other document in rank order; with the user's pins, hidden documents are left out and pinned ones come first. `merge_tiers` is the one place that order is made; the command line's `peek` uses it too.
Only the command line and the MCP server turn rankings into JSON (`output/payloads.py`).
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any

from .dsh.usage import Usage
from .index.pins import Pins
from .rank.context_pack import ContextPack, Reason
from .rank.passages import Passage
from .rank.pinning import pinned_ranked
from .rank.ranking import RankedDoc, Ranking

TIERS = ("pinned", "primary", "supporting", "related")  # "pinned": the user's pins, above primary
PEEK_LIMIT = 5


@dataclass(frozen=True, slots=True)
class ViewRow:
    """One listed document, image or video."""

    rel: str
    kind: str  # md | txt | pdf | image | video
    title: str
    summary: str
    mtime_ms: int
    matched: tuple[str, ...] = ()  # the keywords it contains
    tier: str = ""  # pinned | primary | supporting | related, or '' outside the context pack
    number: int = 0  # 1-based across the tiers; 0 outside them
    reason: Reason | None = None  # why it is in the pack
    passages: tuple[Passage, ...] = ()  # its matched passages, best first (pack rows only)


@dataclass(frozen=True, slots=True)
class RankedRows:
    """One ranking's rows in the order shown, with the facts of the line above the list."""

    mode: str  # relevance | time
    topic: str
    keywords: tuple[str, ...]  # the matched keywords shown in the topic line's tooltip
    total: int  # documents in the ranked pool
    rows: tuple[ViewRow, ...]
    tiered: bool = False  # the rows start with the context pack's tiers

    def row(self, rel: str) -> ViewRow | None:
        return next((r for r in self.rows if r.rel == rel), None)


@dataclass(frozen=True)
class ViewResult:
    """What one view shows: `docs` is the ranked list (the media ranking for the media view); the All view also
    gets `media`, a separate ranking so documents can never push images and videos out."""

    kind: str  # doc | media | all
    docs: RankedRows
    media: RankedRows | None = None
    has_pack: bool = False  # a context pack was built (the relevance list of documents)
    task: str = ""  # the context pack's task line ('' without a pack)
    usage: Usage | None = None  # what the followed session did with its last pack (filled in by the live ranking)

    @property
    def mode(self) -> str:
        return self.docs.mode

    def with_usage(self, usage: Usage | None) -> ViewResult:
        return dataclasses.replace(self, usage=usage)

    def find(self, rel: str) -> ViewRow | None:
        """The row of `rel` in either section."""
        row = self.docs.row(rel)
        if row is None and self.media is not None:
            row = self.media.row(rel)
        return row

    def pack_tiers(self) -> tuple[tuple[str, int, str], ...]:
        """(tier, rank within the tier, rel) of the pack shown, for the usage audit."""
        ranks: dict[str, int] = {}
        out = []
        for row in self.docs.rows:
            if not row.tier:
                break
            out.append((row.tier, ranks.get(row.tier, 0), row.rel))
            ranks[row.tier] = ranks.get(row.tier, 0) + 1
        return tuple(out)

    def peek(self, limit: int = PEEK_LIMIT) -> tuple[ViewRow, ...]:
        """The tray's top documents."""
        return self.docs.rows[:limit]


def _row(record: RankedDoc, **pack: Any) -> ViewRow:
    doc = record.doc
    return ViewRow(doc.rel, doc.kind, doc.title, doc.summary, doc.mtime_ms, tuple(record.matched), **pack)


def merge_tiers(ranking: Ranking, pack: ContextPack | None, limit: int | None = None, pins: Pins | None = None
                ) -> RankedRows:
    """The ranking's rows as listed: the pack's tiers first (when both are relevance rankings), then the rest in
    rank order, each document once. `limit` cuts the ranking's own rows, never the pack's. With `pins`, hidden
    documents are left out and pinned ones lead the rest (the pack, built with the same pins, has them in its
    pinned tier already)."""
    ranked, _, hidden = pinned_ranked(ranking, pins, limit)
    rows: list[ViewRow] = []
    placed: set[str] = set()
    tiered = pack is not None and pack.mode == "relevance" and ranking.mode == "relevance"
    if tiered:
        assert pack is not None
        number = 0
        for tier, items in pack.tiers():
            for item in items:
                number += 1
                placed.add(item.record.doc.rel)
                rows.append(_row(item.record, tier=tier, number=number, reason=item.reason,
                                 passages=tuple(item.passages)))
    rows.extend(_row(r) for r in ranked if r.doc.rel not in placed)
    return RankedRows(ranking.mode, ranking.topic, tuple(ranking.matched_terms), ranking.total - hidden, tuple(rows),
                      tiered and bool(placed))


def build_view(kind: str, ranking: Ranking, pack: ContextPack | None = None, media: Ranking | None = None,
               limit: int | None = None, pins: Pins | None = None) -> ViewResult:
    return ViewResult(kind, merge_tiers(ranking, pack, limit, pins),
                      merge_tiers(media, None, pins=pins) if media is not None else None,
                      has_pack=pack is not None, task=pack.task if pack is not None else "")
