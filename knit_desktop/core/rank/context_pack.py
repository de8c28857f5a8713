"""The context pack: primary / supporting / related with deterministic reasons (knit-engine.md §5)."""

from __future__ import annotations

import itertools
from dataclasses import dataclass, field

from ..index.links import LinkGraph
from .passages import Passage, best_passages, window_tf
from .ranking import RankedDoc, Ranking
from .roles import source_type

MAX_PRIMARY = 1
MAX_SUPPORTING = 3
MAX_RELATED = 5
PRIMARY_MIN_SHARE = 0.30
STRONG_BODY_TF = 2
PASSAGE_WINDOW = 24
REASON_ORDER = {
    "direct": 0,
    "titleMatch": 1,
    "filenameMatch": 1,
    "summaryMatch": 2,
    "bodyMatch": 3,
    "linkTarget": 4,
    "linkSource": 5,
    "related": 6,
    "pinned": 7,
}


@dataclass(frozen=True)
class Reason:
    code: str
    terms: tuple[str, ...] = ()
    fields: int = 0
    term: str = ""

    def to_json(self) -> dict:
        return {"code": self.code, "terms": list(self.terms), "fields": self.fields, "term": self.term}


@dataclass
class PackItem:
    record: RankedDoc
    rank: int
    source: str
    reason: Reason
    provenance: str  # "retrieval" | "relation"
    passages: list[Passage] = field(default_factory=list)
    relations: list[dict] = field(default_factory=list)


@dataclass
class ContextPack:
    mode: str
    topic: str
    task: str
    total: int
    matched: int
    primary: list[PackItem] = field(default_factory=list)
    supporting: list[PackItem] = field(default_factory=list)
    related: list[PackItem] = field(default_factory=list)
    recent: list[RankedDoc] = field(default_factory=list)  # time mode only
    pinned: list[PackItem] = field(default_factory=list)  # the user's pins, above primary (rank.pinning)
    hidden: int = 0  # how many documents the user's hides took out of this pack

    def tiers(self) -> list[tuple[str, list[PackItem]]]:
        return [("pinned", self.pinned), ("primary", self.primary), ("supporting", self.supporting),
                ("related", self.related)]

    def items(self) -> list[PackItem]:
        return self.pinned + self.primary + self.supporting + self.related


def explain(record: RankedDoc, link: str | None = None) -> Reason:
    names = tuple(h.term for h in record.hits)
    if any(h.title for h in record.hits):
        term = next(h.term for h in record.hits if h.title)
        fields = sum(1 for f in ("title", "summary", "body") if any(getattr(h, f) for h in record.hits))
        if record.doc.is_media:
            return Reason("filenameMatch", names, fields, term)
        real = sum(1 for h in record.hits if not h.fuzzy)  # near-misses never make a match "direct"
        return Reason("direct" if real >= 2 else "titleMatch", names, fields, term)
    if any(h.summary for h in record.hits):
        fields = sum(1 for f in ("summary", "body") if any(getattr(h, f) for h in record.hits))
        return Reason("summaryMatch", names, fields, names[0])
    if names:
        body_terms = [h.term for h in record.hits if h.body]
        return Reason("bodyMatch", names, len(body_terms), body_terms[0] if body_terms else names[0])
    if link in ("linkTarget", "linkSource"):
        return Reason(link)
    return Reason("related")


def build_context_pack(
    ranking: Ranking, graph: LinkGraph | None = None, *, task: str = "", recent_limit: int = 5
) -> ContextPack:
    hits = ranking.hits
    pack = ContextPack(ranking.mode, ranking.topic, task, ranking.total, len(hits))
    if ranking.mode != "relevance":
        pack.recent = ranking.ranked[:recent_limit]
        return pack

    top_raw = hits[0].raw if len(hits) else 0.0
    passages: dict[str, list[Passage]] = {}
    window: dict[str, dict[str, int]] = {}
    for record in hits[:PASSAGE_WINDOW]:
        passages[record.doc.rel] = best_passages(record.doc, [k for k in ranking.present if k.term in record.matched])
        window[record.doc.rel] = {h.term: window_tf(record.doc.body, h.match) for h in record.hits if h.body}
    max_window: dict[str, int] = {}
    for terms in window.values():
        for term, count in terms.items():
            max_window[term] = max(max_window.get(term, 0), count)

    def is_doc_hit(record: RankedDoc) -> bool:
        own = window.get(record.doc.rel)
        for h in record.hits:
            if not h.body:
                continue
            if own is not None:
                pt = own.get(h.term, 0)
                if pt >= STRONG_BODY_TF and pt >= max_window.get(h.term, 0):
                    return True
            elif h.body_tf >= STRONG_BODY_TF and h.body_tf >= ranking.max_body_tf(h.term):
                return True
        return False

    # Hits are walked lazily, in rank order, and only as far as the tiers need.
    primary: list[RankedDoc] = []
    for record in hits:
        grounded = any(h.title or h.summary for h in record.hits)
        if grounded and top_raw > 0 and record.raw / top_raw >= PRIMARY_MIN_SHARE:
            primary.append(record)
            break
        if record.raw / top_raw < PRIMARY_MIN_SHARE:
            break  # ranked by raw: nothing further down can reach the share
    placed = {r.doc.rel for r in primary}
    # Below the passage window only a strong body hit can be supporting: those rows are found over the
    # postings, so a pack never builds the row of every hit (tens of thousands at 100k documents).
    in_window = hits[:PASSAGE_WINDOW]
    window_ids = {r.doc_id for r in in_window}
    deep = (ranking.row(int(d)) for d in ranking.strong_body_hits(STRONG_BODY_TF) if int(d) not in window_ids)
    body_only = (r for r in itertools.chain(in_window, deep) if r.doc.rel not in placed)  # lazily: `placed` grows

    in_pool = ranking.pool.mask
    doc_ids = ranking.index.by_rel

    def ranked_row(rel: str) -> RankedDoc | None:
        doc_id = doc_ids.get(rel)
        return None if doc_id is None or not in_pool[doc_id] else ranking.row(doc_id)

    neighbours: list[tuple[RankedDoc, str]] = []  # (record, linkTarget|linkSource), in order, unique
    if graph is not None:
        seen = set(placed)
        for p in primary:
            for rel, tag in [(t, "linkTarget") for t in graph.outgoing_of(p.doc.rel)] + [
                (s, "linkSource") for s in graph.incoming_of(p.doc.rel)
            ]:
                row = ranked_row(rel)
                if rel not in seen and row is not None:
                    seen.add(rel)
                    neighbours.append((row, tag))

    supporting: list[tuple[RankedDoc, str | None]] = []
    for record in body_only:
        if len(supporting) >= MAX_SUPPORTING:
            break
        if is_doc_hit(record):
            supporting.append((record, None))
            placed.add(record.doc.rel)
    for row, tag in neighbours:
        if len(supporting) >= MAX_SUPPORTING:
            break
        if row.doc.rel not in placed:
            supporting.append((row, tag))
            placed.add(row.doc.rel)

    related: list[tuple[RankedDoc, str | None]] = []
    for record in hits:
        if len(related) >= MAX_RELATED:
            break
        if record.doc.rel not in placed:
            related.append((record, None))
            placed.add(record.doc.rel)
    for row, tag in neighbours:
        if len(related) >= MAX_RELATED:
            break
        if row.doc.rel not in placed:
            related.append((row, tag))
            placed.add(row.doc.rel)

    def make(record: RankedDoc, tag: str | None) -> PackItem:
        reason = explain(record, tag)
        provenance = "relation" if reason.code in ("linkTarget", "linkSource", "related") else "retrieval"
        return PackItem(
            record, ranking.position(record.doc_id), source_type(record.doc.rel), reason, provenance,
            passages.get(record.doc.rel, []),
        )

    def order(items: list[PackItem]) -> list[PackItem]:
        return sorted(items, key=lambda it: (it.rank, REASON_ORDER.get(it.reason.code, 9), it.record.doc.rel))

    pack.primary = order([make(r, None) for r in primary])
    pack.supporting = order([make(r, tag) for r, tag in supporting])
    pack.related = order([make(r, tag) for r, tag in related])
    if graph is not None:
        _attach_relations(pack, graph)
    return pack


def _attach_relations(pack: ContextPack, graph: LinkGraph) -> None:
    """References between items of the pack, registered on both ends; never changes membership or order."""
    members = {it.record.doc.rel for it in pack.items()}
    for item in pack.items():
        rel = item.record.doc.rel
        facts = [
            {"type": "references", "dir": "in", "other": src, "line": line}
            for src, line in graph.incoming_of(rel).items()
            if src in members
        ]
        facts += [
            {"type": "references", "dir": "out", "other": dst, "line": line}
            for dst, line in graph.outgoing_of(rel).items()
            if dst in members
        ]
        facts.sort(key=lambda f: (0 if f["dir"] == "in" else 1, f["line"], f["other"]))
        item.relations = facts
