"""One typed result per ranking: what the window's list, grid, All view, tray and preview show.

The indexer's worker ranks once per request and builds a `ViewResult` from that ranking and, for the relevance
list of documents, the context pack built on the same ranking. The rows come already in the order the window
lists them: the pack's tiers first (pinned, primary, supporting, related, numbered across the tiers), then every
other document in rank order; with the user's pins, hidden documents are left out and pinned ones come first. `merge_tiers` is the one place that order is made; the command line's `peek` uses it too.
Only the command line and the MCP server turn rankings into JSON (`output/payloads.py`).
"""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from itertools import islice
from typing import Any

from .dsh.usage import Usage
from .index.pins import Pins
from .rank.context_pack import ContextPack, Reason
from .rank.passages import Passage
from .rank.pinning import pinned_ranked
from .rank.ranking import RankedDoc, Ranking

TIERS = ("pinned", "primary", "supporting", "related")  # "pinned": the user's pins, above primary
PEEK_LIMIT = 5
# The window lists a ranking's first rows (after the pack's tiers), not all of them: building, sending and laying
# out a row for each of 100,000 documents took about half a second of the indexer's time a ranking and as much of
# the GUI thread's, for rows nobody scrolls to. A filter typed in the window is applied to all of them (`needle`).
LISTED_ROWS = 2000


def text_matches(needle: str, *texts: str) -> bool:
    """Whether a lowercase `needle` is in one of `texts` (case-insensitive): the window's filter."""
    return any(needle in text.lower() for text in texts)


def listing_key(root: str, rel: str) -> str:
    """How the window tells listed documents apart: a workspace document by its relative path, a library folder's
    by its absolute path. A relative path is never absolute, so a README.md in the workspace and one in a library
    folder are two rows, each selected, previewed and pinned on its own."""
    return os.path.join(root, rel) if root else rel


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
    source: str = ""  # the library folder's label; '' for the workspace's own documents
    root: str = ""  # the library folder it lives in; '' for the workspace's own documents

    @property
    def key(self) -> str:
        """Its identity in the window's lists (`listing_key`)."""
        return listing_key(self.root, self.rel)


def matches_filter(item: ViewRow, needle: str) -> bool:
    """Whether the window's filter (a lowercase `needle`) keeps a row: its title, summary, path or folder label."""
    return text_matches(needle, item.title, item.summary, item.rel, item.source)


@dataclass(frozen=True, slots=True)
class RankedRows:
    """One ranking's rows in the order shown, with the facts of the line above the list."""

    mode: str  # relevance | time
    topic: str
    keywords: tuple[str, ...]  # the matched keywords shown in the topic line's tooltip
    total: int  # documents in the ranked pool
    rows: tuple[ViewRow, ...]
    tiered: bool = False  # the rows start with the context pack's tiers
    complete: bool = True  # False: the ranking's rows were cut at a limit (`total` says how many there are)
    needle: str = ""  # the filter the ranking's own rows were chosen by ('' for none; the tiers are never filtered)
    head: tuple[ViewRow, ...] = ()  # with a `needle`: the first rows as they would be without it (the tray's)

    def row(self, key: str) -> ViewRow | None:
        """The row listed under `key` (`listing_key`: a workspace document's relative path)."""
        return next((r for r in self.rows if r.key == key), None)


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
    # Whether the workspace's index holds a path now (its listed rows may be cut at a limit): what the usage audit
    # asks, the same question knit_docs answers from the index.
    is_indexed: Callable[[str], bool] | None = dataclasses.field(default=None, compare=False, repr=False)

    @property
    def mode(self) -> str:
        return self.docs.mode

    def with_usage(self, usage: Usage | None) -> ViewResult:
        return dataclasses.replace(self, usage=usage)

    def find(self, key: str) -> ViewRow | None:
        """The row listed under `key` in either section."""
        row = self.docs.row(key)
        if row is None and self.media is not None:
            row = self.media.row(key)
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
        """The tray's top documents (never the window's filter: a ranking asked for with one keeps its head)."""
        return (self.docs.head if self.docs.needle else self.docs.rows)[:limit]


@dataclass(frozen=True)
class SourceRanking:
    """One folder's ranking among several (the workspace's and the library folders'), with that folder's pins."""

    ranking: Ranking
    pins: Pins | None = None
    label: str = ""  # '' for the workspace
    root: str = ""  # '' for the workspace


def merged_ranked(parts: Sequence[SourceRanking], limit: int | None = None
                  ) -> tuple[list[tuple[SourceRanking, RankedDoc]], int]:
    """Several folders' rankings as one list, and how many of their documents are hidden: each folder's pins are
    applied by `pinned_ranked` (the one place pins apply, whatever the scope), then the pinned lead (in folder
    order, then pin order), then the hits by relevance, then the rest by time. A single folder keeps its own
    order, so a workspace ranked alone lists exactly as it always has."""
    if len(parts) == 1:  # read only as far as `limit` (PinnedRows builds rows as they are read)
        rows, _, hidden = pinned_ranked(parts[0].ranking, parts[0].pins, limit)
        return [(parts[0], row) for row in rows], hidden
    pinned: list[tuple[SourceRanking, RankedDoc]] = []
    others: list[tuple[SourceRanking, RankedDoc]] = []
    hidden = 0
    for part in parts:
        rows, pinned_rels, part_hidden = pinned_ranked(part.ranking, part.pins)
        hidden += part_hidden
        pinned += [(part, row) for row in rows[: len(pinned_rels)]]
        others += [(part, row) for row in rows[len(pinned_rels):]]
    hits = [(p, r) for p, r in others if r.raw > 0 and p.ranking.mode == "relevance"]
    rest = [(p, r) for p, r in others if not (r.raw > 0 and p.ranking.mode == "relevance")]
    hits.sort(key=lambda pr: (-pr[1].raw, -pr[1].doc.mtime_ms, pr[0].label, pr[1].doc.rel))
    rest.sort(key=lambda pr: (-pr[1].doc.mtime_ms, pr[0].label, pr[1].doc.rel))
    others = hits + rest
    merged = pinned + others
    return (merged if limit is None else merged[:limit]), hidden


def _row(record: RankedDoc, part: SourceRanking | None = None, **pack: Any) -> ViewRow:
    doc = record.doc
    where: dict[str, Any] = {"source": part.label, "root": part.root} if part is not None and part.root else {}
    return ViewRow(doc.rel, doc.kind, doc.title, doc.summary, doc.mtime_ms, tuple(record.matched), **pack, **where)


def merge_tiers(ranking: Ranking | None, pack: ContextPack | None, limit: int | None = None,
                pins: Pins | None = None, others: Sequence[SourceRanking] = (), needle: str = "") -> RankedRows:
    """The rankings' rows as listed: the pack's tiers first (when both are relevance rankings), then the rest in
    rank order, each document once. `limit` cuts the rankings' own rows, never the pack's. With `pins`, hidden
    documents are left out and pinned ones lead the rest (the pack, built with the same pins, has them in its
    pinned tier already). `others` are library folders' rankings listed beside the workspace's (`ranking`, None
    when the workspace is left out), each row labelled with its folder (`merged_ranked`). With a `needle` (the
    window's filter), the rankings' rows are those it matches, then cut at `limit`."""
    needle = needle.strip().lower()
    parts = ([SourceRanking(ranking, pins)] if ranking is not None else []) + list(others)
    ranked, hidden = merged_ranked(parts, None if needle else limit)
    rows: list[ViewRow] = []
    placed: set[str] = set()
    tiered = (pack is not None and ranking is not None and pack.mode == "relevance"
              and ranking.mode == "relevance")
    if tiered:
        assert pack is not None
        number = 0
        for tier, items in pack.tiers():
            for item in items:
                number += 1
                placed.add(item.record.doc.rel)
                rows.append(_row(item.record, tier=tier, number=number, reason=item.reason,
                                 passages=tuple(item.passages)))
    listed = ((p, r) for p, r in ranked if p.root or r.doc.rel not in placed)
    cut = False
    head: tuple[ViewRow, ...] = ()
    if needle:
        unfiltered = ((p, r) for p, r in ranked if p.root or r.doc.rel not in placed)
        head = (*rows[:PEEK_LIMIT], *(_row(r, p) for p, r in islice(unfiltered, max(0, PEEK_LIMIT - len(rows)))))
        listed = ((p, r) for p, r in listed
                  if text_matches(needle, r.doc.title, r.doc.summary, r.doc.rel, p.label if p.root else ""))
        if limit is not None:  # one more than the limit tells whether the matches were cut
            first = len(rows)
            rows.extend(_row(r, p) for p, r in islice(listed, limit + 1))
            cut = len(rows) - first > limit
            del rows[first + limit:]
    if not needle or limit is None:
        rows.extend(_row(r, p) for p, r in listed)
    relevant = [p.ranking for p in parts if p.ranking.mode == "relevance"]
    lead = relevant[0] if relevant else (parts[0].ranking if parts else None)
    keywords: list[str] = []
    for part in parts:
        keywords += [k for k in part.ranking.matched_terms if k not in keywords]
    total = sum(p.ranking.total for p in parts) - hidden
    complete = limit is None or (not cut if needle else total <= limit)
    return RankedRows("relevance" if relevant else "time", lead.topic if lead is not None else "", tuple(keywords),
                      total, tuple(rows), tiered and bool(placed), complete, needle, head)


def build_view(kind: str, ranking: Ranking | None, pack: ContextPack | None = None, media: Ranking | None = None,
               limit: int | None = None, pins: Pins | None = None, others: Sequence[SourceRanking] = (),
               media_others: Sequence[SourceRanking] = (), needle: str = "",
               is_indexed: Callable[[str], bool] | None = None) -> ViewResult:
    with_media = media is not None or kind == "all"
    return ViewResult(kind, merge_tiers(ranking, pack, limit, pins, others, needle),
                      merge_tiers(media, None, pins=pins, others=media_others) if with_media else None,
                      has_pack=pack is not None, task=pack.task if pack is not None else "", is_indexed=is_indexed)
