"""BM25F ranking over the inverted index (knit-engine.md §4), with the honest fallback to time order."""

from __future__ import annotations

import math
from dataclasses import dataclass, field

from .documents import Document
from .keywords import Keyword
from .search_index import Pool, SearchIndex
from .topic import topic_for

K1 = 1.2
FIELD_B = (0.3, 0.5, 0.75)  # title, summary, body
FIELD_WEIGHTS = (4.0, 2.0, 1.0)
TF_CAP = 20
QW_EXPONENT = 0.25
FRESHNESS_WINDOW_MS = 7 * 24 * 3600 * 1000
FRESHNESS_BOOST = 0.1
MATCHED_KEYWORDS_SHOWN = 8


@dataclass(frozen=True)
class TermHit:
    """How one keyword hit one document."""

    term: str  # as the user wrote it
    match: str  # what was searched for (the stem for inflected English words)
    title: bool
    summary: bool
    body: bool
    body_tf: int


@dataclass
class RankedDoc:
    doc_id: int
    doc: Document
    raw: float  # relevance with the freshness tweak; 0 when nothing matched
    score: int  # 0-100 relative to the top document; never shown to users
    hits: list[TermHit] = field(default_factory=list)

    @property
    def matched(self) -> list[str]:
        return [h.term for h in self.hits]


@dataclass
class Ranking:
    mode: str  # "relevance" | "time"
    requested_sort: str
    kind: str
    keywords: list[Keyword]  # everything extracted from the conversation or query
    present: list[Keyword]  # the keywords some pool document contains, by weight
    topic: str
    ranked: list[RankedDoc]
    total: int

    @property
    def matched_terms(self) -> list[str]:
        return [k.term for k in self.present[:MATCHED_KEYWORDS_SHOWN]]

    @property
    def hits(self) -> list[RankedDoc]:
        return [r for r in self.ranked if r.raw > 0]


def freshness(mtime_ms: int, now_ms: int) -> float:
    return 1.0 - min(1.0, max(0, now_ms - mtime_ms) / FRESHNESS_WINDOW_MS)


def _denominators(index: SearchIndex, pool: Pool) -> dict[int, tuple[float, float, float]]:
    """The length-normalised part of each field's BM25 denominator, per pool member, computed once per pool."""
    cached = pool.derived.get("bm25_denominators")
    if cached is not None:
        return cached
    avg = pool.avgdl
    lengths = index.lengths
    out: dict[int, tuple[float, float, float]] = {}
    for d in pool.members:
        ls = lengths[d]
        out[d] = tuple(  # type: ignore[assignment]
            K1 * (1 - FIELD_B[f] + FIELD_B[f] * (ls[f] / avg[f] if avg[f] > 0 else 0.0)) for f in range(3)
        )
    pool.derived["bm25_denominators"] = out
    return out


def score_pool(
    index: SearchIndex, pool: Pool, keywords: list[Keyword]
) -> tuple[dict[int, float], dict[int, list[TermHit]], list[Keyword]]:
    """Raw BM25F per pool document with at least one hit, the per-document hits, and the present keywords."""
    raw: dict[int, float] = {}
    hits: dict[int, list[TermHit]] = {}
    present: list[Keyword] = []
    if not keywords or not pool.size:
        return raw, hits, present
    n = pool.size
    max_weight = max(k.weight for k in keywords)
    dens = _denominators(index, pool)
    w_t, w_s, w_b = FIELD_WEIGHTS
    k1p = K1 + 1
    for keyword in keywords:
        tfs = index.term_frequencies(keyword.match, pool.mask)
        df = len(tfs)
        if df == 0:
            continue
        present.append(keyword)
        idf = math.log(1 + (n - df + 0.5) / (df + 0.5))
        factor = (keyword.weight / max_weight) ** QW_EXPONENT * idf
        term, match = keyword.term, keyword.match
        for d, (tt, ts, tb) in tfs.items():
            den = dens[d]
            s = 0.0
            if tt:
                tt = min(tt, TF_CAP)
                s += w_t * tt * k1p / (tt + den[0])
            if ts:
                ts = min(ts, TF_CAP)
                s += w_s * ts * k1p / (ts + den[1])
            if tb:
                tbc = min(tb, TF_CAP)
                s += w_b * tbc * k1p / (tbc + den[2])
            raw[d] = raw.get(d, 0.0) + factor * s
            hit = TermHit(term, match, tt > 0, ts > 0, tb > 0, tb)
            bucket = hits.get(d)
            if bucket is None:
                hits[d] = [hit]
            else:
                bucket.append(hit)
    return raw, hits, present


def rank(
    index: SearchIndex,
    keywords: list[Keyword],
    *,
    now_ms: int,
    kind: str = "doc",
    sort: str = "relevance",
) -> Ranking:
    pool = index.pool(kind)
    docs = index.docs
    mode = "relevance" if sort == "relevance" and keywords else "time"
    if mode == "time":
        ranked = [RankedDoc(d, docs[d], 0.0, 0) for d in pool.time_order]  # type: ignore[arg-type]
        return Ranking(mode, sort, kind, keywords, [], "", ranked, pool.size)

    raw, hits, present = score_pool(index, pool, keywords)
    boosted = {d: r * (1 + FRESHNESS_BOOST * freshness(docs[d].mtime_ms, now_ms)) for d, r in raw.items()}  # type: ignore[union-attr]
    top = max(boosted.values(), default=0.0)
    order = sorted(boosted, key=lambda d: (-boosted[d], -docs[d].mtime_ms, docs[d].rel))  # type: ignore[union-attr]
    ranked = [RankedDoc(d, docs[d], boosted[d], round(boosted[d] / top * 100), hits[d]) for d in order]  # type: ignore[arg-type]
    ranked.extend(RankedDoc(d, docs[d], 0.0, 0) for d in pool.time_order if d not in boosted)  # type: ignore[arg-type]
    topic = topic_for(present, lambda label: index.contains_text(label, pool)) if present else ""
    return Ranking(mode, sort, kind, keywords, present, topic, ranked, pool.size)
