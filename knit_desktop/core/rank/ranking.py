"""BM25F ranking over the inverted index (knit-engine.md §4), with the honest fallback to time order.

Scores are computed for the whole pool at once with NumPy; the per-document details (which keyword hit
which field) are worked out only for the rows someone looks at.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import overload

import numpy as np

from ..index.documents import Document
from ..index.search_index import Pool, SearchIndex, TermPostings, field_sources, postings_nbytes
from ..sized_cache import SizedCache
from ..text.tokens import is_latin_term
from .bm25 import FIELD_B, FIELD_WEIGHTS, K1, TF_CAP, keyword_factor
from .keywords import Keyword, choose_keywords
from .topic import topic_for

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
    fuzzy: bool = False  # a near-miss of the fuzzy layer; `term` is then its label, `fuzzy: word ← typed`


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


class RowDetails:
    """What building one ranked row needs: the scores and the present keywords' postings.

    Held by the ranked lists and by their `Ranking`, never pointing back at either: a ranking is then freed by
    reference counting alone as soon as the window drops it, with no cycle left for the collector (which a
    frozen heap would never visit)."""

    def __init__(self, index: SearchIndex, raw: np.ndarray, present: list[tuple[Keyword, TermPostings]],
                 fuzzy: list[tuple[Keyword, TermPostings]], head: np.ndarray | None = None) -> None:
        self.index = index
        self.raw = raw
        self.top = float(raw.max()) if len(raw) else 0.0
        self.present = present
        self.fuzzy = fuzzy
        self._head = head  # the first documents in rank order, the rows most read
        self._head_at: dict[int, int] | None = None  # document id -> its column in _head_positions
        self._head_positions: list[list[int]] = []  # per keyword (present, then fuzzy): posting index or -1

    def _positions_in_head(self) -> dict[int, int]:
        """Where each head document sits in each keyword's postings, found in one search per keyword instead of
        one per keyword and row (a conversation's thirty keywords times the rows of a pack: 12 ms of a call)."""
        if self._head_at is None:
            head = self._head[:HEAD_ROWS] if self._head is not None else np.zeros(0, dtype=np.int64)
            self._head_at = {d: i for i, d in enumerate(head.tolist())}
            for _, p in self.present + self.fuzzy:
                at = p.ids.searchsorted(head)
                inside = at < len(p.ids)
                found = np.zeros(len(head), dtype=bool)
                found[inside] = p.ids[at[inside]] == head[inside]
                self._head_positions.append(np.where(found, at, -1).tolist())
        return self._head_at

    def row(self, doc_id: int) -> RankedDoc:
        raw = float(self.raw[doc_id]) if len(self.raw) else 0.0
        hits: list[TermHit] = []
        if raw > 0:
            column = self._positions_in_head().get(doc_id)
            for k, (keyword, p) in enumerate(self.present + self.fuzzy):
                if column is not None:
                    pos = self._head_positions[k][column]
                    if pos < 0:
                        continue
                else:
                    pos = int(p.ids.searchsorted(doc_id))
                    if pos >= len(p.ids) or p.ids[pos] != doc_id:
                        continue
                t, s, b = map(int, p.tfs[:, pos].tolist())
                hits.append(TermHit(keyword.term, keyword.match, t > 0, s > 0, b > 0, b,
                                    fuzzy=k >= len(self.present)))
        score = round(raw / self.top * 100) if self.top > 0 else 0
        return RankedDoc(doc_id, self.index.docs[doc_id], raw, score, hits)  # type: ignore[arg-type]


class LazyOrder:
    """Document ids in rank order, sorted only as far as someone reads: the head (at least the top HEAD_ROWS
    hits) is exact at once; the rest is sorted on the first read past it. The pages, the context pack and an
    agent's top ten never read past it, and a query matching most of 100,000 documents no longer sorts them."""

    def __init__(self, head: np.ndarray, length: int, complete: Callable[[], np.ndarray],
                 parent: LazyOrder | None = None) -> None:
        self.head = head
        self._length = length
        self._complete = complete  # () -> the whole order, as an array
        self._parent = parent
        self._full: np.ndarray | None = None

    def full(self) -> np.ndarray:
        if self._full is None:
            whole = self._parent.full() if self._parent is not None else self._complete()
            self._full = whole[: self._length]
        return self._full

    def __len__(self) -> int:
        return self._length

    @overload
    def __getitem__(self, i: int) -> int: ...

    @overload
    def __getitem__(self, i: slice) -> LazyOrder | np.ndarray: ...

    def __getitem__(self, i: int | slice) -> int | LazyOrder | np.ndarray:
        if isinstance(i, slice):
            start, stop, step = i.indices(self._length)
            if start == 0 and step == 1:
                return LazyOrder(self.head[:stop], stop, self._complete, self)
            part: np.ndarray = self.full()[i]
            return part
        if i < 0:
            i += self._length
        if 0 <= i < len(self.head):
            return int(self.head[i])
        return int(self.full()[i])

    def __array__(self, dtype: np.dtype | None = None, copy: bool | None = None) -> np.ndarray:
        full = self.full()
        return full if dtype is None else full.astype(dtype)


HEAD_ROWS = 128


class RankedList(Sequence):
    """The ranking in order; each row's details are built on first access."""

    def __init__(self, details: RowDetails, order: np.ndarray, rows: dict[int, RankedDoc] | None = None) -> None:
        self._details = details
        self._order = order
        self._rows: dict[int, RankedDoc] = {} if rows is None else rows  # shared by a list and its prefix

    def __len__(self) -> int:
        return len(self._order)

    @overload
    def __getitem__(self, i: int) -> RankedDoc: ...

    @overload
    def __getitem__(self, i: slice) -> list[RankedDoc]: ...

    def __getitem__(self, i: int | slice) -> RankedDoc | list[RankedDoc]:
        if isinstance(i, slice):
            return [self[j] for j in range(*i.indices(len(self)))]
        if i < 0:
            i += len(self)
        if not 0 <= i < len(self):
            raise IndexError(i)
        row = self._rows.get(i)
        if row is None:
            row = self._rows[i] = self._details.row(int(self._order[i]))
        return row

    def __iter__(self) -> Iterator[RankedDoc]:
        return (self[i] for i in range(len(self)))

    def doc_id(self, i: int) -> int:
        """The document id at position `i`, without building its row."""
        return int(self._order[i])

    def __repr__(self) -> str:
        return f"RankedList({len(self)} documents)"


class Ranking:
    def __init__(
        self,
        index: SearchIndex,
        pool: Pool,
        mode: str,
        requested_sort: str,
        keywords: list[Keyword],
        present: list[tuple[Keyword, TermPostings]],
        raw: np.ndarray,
        order: np.ndarray,
        hit_count: int,
        fuzzy: list[tuple[Keyword, TermPostings]] | None = None,
        real: np.ndarray | None = None,
    ) -> None:
        self.index = index
        self.pool = pool
        self.kind = pool.kind
        self.mode = mode  # "relevance" | "time"
        self.requested_sort = requested_sort
        self.keywords = keywords  # everything extracted from the conversation or query
        self._present = present  # keywords some pool document contains, by weight, with their postings
        self.present = [k for k, _ in present]
        self._fuzzy = fuzzy or []  # near-misses (Keyword.term is the label) with their postings
        self.fuzzy_labels = [k.term for k, _ in self._fuzzy]
        self._raw = raw
        self._real = real if real is not None else raw > 0  # documents with a hit that is not a near-miss
        self.total = pool.size
        self.hit_count = hit_count
        self._order = order
        self._positions: np.ndarray | None = None
        self._max_body: dict[str, int] = {}
        self._head_positions: dict[int, int] | None = None
        self._rows_below_head: dict[int, RankedDoc] = {}
        self._details = details = RowDetails(index, raw, present, self._fuzzy,
                                             order.head if isinstance(order, LazyOrder) else None)
        self.ranked = RankedList(details, order)
        self.hits = RankedList(details, order[:hit_count], self.ranked._rows)
        self.topic = topic_for(self.present, lambda label: index.contains_text(label, pool)) if self.present else ""
        if self.fuzzy_labels:  # the topic line says when a near-miss stood in for a typed word
            self.topic = " · ".join([self.topic, *self.fuzzy_labels] if self.topic else self.fuzzy_labels)

    @property
    def matched_terms(self) -> list[str]:
        return [k.term for k in self.present[:MATCHED_KEYWORDS_SHOWN]]

    def max_body_tf(self, term: str) -> int:
        """The highest body count of `term` over the pool (the deep-hit rule compares against it)."""
        cached = self._max_body.get(term)
        if cached is None:
            cached = 0
            for keyword, postings in self._present:
                if keyword.term == term:
                    cached = int(postings.body.max()) if len(postings) else 0
                    break
            self._max_body[term] = cached
        return cached

    def strong_body_hits(self, min_tf: int) -> np.ndarray:
        """The hits (document ids, in rank order) with some keyword or near-miss at least `min_tf` times in the
        body and at least as often as in any pool document (`max_body_tf`): the candidates of the deep-hit
        rule, found over the postings instead of by building every row."""
        found = [
            p.ids[p.body >= max(min_tf, self.max_body_tf(keyword.term))]
            for keyword, p in self._present + self._fuzzy
        ]
        ids = _sorted_distinct(np.concatenate(found)) if found else np.zeros(0, dtype=np.int64)
        return self._in_rank_order(ids[self._raw[ids] > 0]) if len(ids) else ids

    def _in_rank_order(self, ids: np.ndarray) -> np.ndarray:
        return _rank_sorted(ids, self._raw, self._real, self.pool)

    def _head_position(self, doc_id: int) -> int | None:
        """The position of a document in the sorted head, without sorting the rest (None: not in the head,
        or the head is not all that is sorted)."""
        if self._positions is not None or not isinstance(self._order, LazyOrder) or self._order._full is not None:
            return None
        if self._head_positions is None:
            self._head_positions = {int(d): i for i, d in enumerate(self._order.head)}
        return self._head_positions.get(doc_id)

    def position(self, doc_id: int) -> int:
        """Where a document sits in the ranking (0-based)."""
        found = self._head_position(doc_id)
        if found is not None:
            return found
        if self._positions is None:
            self._positions = np.empty(len(self.index.docs), dtype=np.int64)
            self._positions[np.asarray(self._order)] = np.arange(len(self._order))
        return int(self._positions[doc_id])

    def row(self, doc_id: int) -> RankedDoc:
        """The ranked row of any pool document (shares the rows the list has built). A document below the
        sorted head gets its row without the rest of the order being sorted (`position` sorts it if asked)."""
        found = self._head_position(doc_id)
        if found is not None or self._positions is not None or not isinstance(self._order, LazyOrder):
            return self.ranked[found if found is not None else self.position(doc_id)]
        row = self._rows_below_head.get(doc_id)
        if row is None:
            row = self._rows_below_head[doc_id] = self._details.row(doc_id)
        return row

def freshness(mtime_ms: int, now_ms: int) -> float:
    return 1.0 - min(1.0, max(0, now_ms - mtime_ms) / FRESHNESS_WINDOW_MS)


def _denominators(pool: Pool) -> np.ndarray:
    """The length-normalised part of each field's BM25 denominator, per document id, once per pool."""
    cached = pool.derived.get("bm25_denominators")
    if cached is None:
        # Rows per field (3, documents), so each field's values are contiguous; computed a field at a time in place
        # (the same operations on the same values as K1 * (1 - b + b * length / avgdl) over the whole table, which
        # took 2-3 ms of a process's first query at 100,000 documents in temporaries).
        lengths = pool.lengths
        cached = np.zeros(lengths.shape)
        for f, (avg, b) in enumerate(zip(pool.avgdl, FIELD_B)):
            row = cached[f]
            if avg > 0:
                np.divide(lengths[f], avg, out=row)
            np.multiply(row, b, out=row)
            np.add(row, 1 - b, out=row)
            np.multiply(row, K1, out=row)
        pool.derived["bm25_denominators"] = cached
    return cached


TERM_CACHE_LIMIT = 2048
TERM_CACHE_BYTES = 24 * 1024 * 1024  # per pool: postings within it and their contributions (see sized_cache.py)
_WEIGHTS_K1 = np.array(FIELD_WEIGHTS) * (K1 + 1)


def _term_in_pool(index: SearchIndex, pool: Pool, match: str, dens: np.ndarray) -> tuple[TermPostings, np.ndarray]:
    """A term's postings inside the pool and its summed field saturation per document.

    Both depend only on the term and the pool, not on the query, so they are kept with the pool: while a
    conversation goes on most keywords persist from one re-ranking to the next.
    """
    cache = _pool_terms(pool)
    cached: tuple[TermPostings, np.ndarray] | None = cache.get(match)
    if cached is not None:
        return cached
    p = index.postings(match).within(pool.mask)
    # Denominators are positive, so a document without the term in a field (tf 0) gets exactly 0 there, and adding
    # that 0 changes nothing: a field the term is in for a few of its documents (a common word's title and summary)
    # is worked out for those alone (or for all, its zeros giving 0, when it is in more than an eighth).
    # The arithmetic is W * tf / (tf + denominator) as ever, in place and with `take` (the same values; a word in
    # most of 100,000 documents took 1 ms a field in temporaries and indexing, 0.15 ms now).
    contribution = np.zeros(len(p))
    for f in range(3):
        row = p.tfs[f]
        count = np.count_nonzero(row)
        if not count:
            continue
        # (finding the few is worth it below an eighth: finding them costs more than scoring all)
        nonzero = np.flatnonzero(row) if count * 8 < len(row) else None
        capped = np.minimum(row if nonzero is None else row.take(nonzero), TF_CAP)
        denominator = dens[f].take(p.ids if nonzero is None else p.ids.take(nonzero))
        denominator += capped
        value = np.multiply(capped, _WEIGHTS_K1[f])
        value /= denominator
        if nonzero is None:
            contribution += value
        else:
            contribution[nonzero] += value
    cache.put(match, (p, contribution))
    return p, contribution


def _pool_terms(pool: Pool) -> SizedCache[str, tuple[TermPostings, np.ndarray]]:
    """The pool's cache of `_term_in_pool`, by round: one ranking's keywords do not push each other out."""
    cache: SizedCache[str, tuple[TermPostings, np.ndarray]] | None = pool.derived.get("terms")
    if cache is None:
        cache = pool.derived["terms"] = SizedCache(TERM_CACHE_LIMIT, TERM_CACHE_BYTES, _pair_nbytes, by_round=True)
    return cache


def _pair_nbytes(pair: tuple[TermPostings, np.ndarray]) -> int:
    """What a pool's cache entry holds: its contributions and its postings (counted even when they are the index's
    own cached postings: an over-estimate, never an under-estimate)."""
    p, contribution = pair
    return int(contribution.nbytes) + postings_nbytes(p)


def score_pool(
    index: SearchIndex, pool: Pool, keywords: list[Keyword], max_weight: float | None = None
) -> tuple[np.ndarray, list[tuple[Keyword, TermPostings]]]:
    """Raw BM25F for every document id (0 outside the pool or without a hit) and the present keywords."""
    raw = np.zeros(len(index.docs))
    present: list[tuple[Keyword, TermPostings]] = []
    if not keywords or not pool.size:
        return raw, present
    n = pool.size
    if max_weight is None:
        max_weight = max(k.weight for k in keywords)
    dens = _denominators(pool)
    for keyword in keywords:
        p, contribution = _term_in_pool(index, pool, keyword.match, dens)
        df = len(p)
        if df == 0:
            continue
        present.append((keyword, p))
        factor = keyword_factor(keyword.weight, max_weight, n, df)
        raw[p.ids] += factor * contribution
    return raw, present


def rank(
    index: SearchIndex,
    keywords: list[Keyword],
    *,
    now_ms: int,
    kind: str = "doc",
    sort: str = "relevance",
) -> Ranking:
    pool = index.pool(kind)
    candidates = getattr(keywords, "candidates", None) or list(keywords)
    if sort == "relevance" and keywords:
        keywords = choose_keywords(keywords, lambda match: index.in_pool(match, pool))
    mode = "relevance" if sort == "relevance" and keywords else "time"
    if mode == "time":
        return Ranking(index, pool, mode, sort, keywords, [], np.zeros(0), pool.time_order, 0)

    _pool_terms(pool).new_round()
    raw, present = score_pool(index, pool, keywords)
    fuzzy_keywords = fuzzy_stand_ins(index, pool, [k for k, _ in present], candidates)
    fuzzy: list[tuple[Keyword, TermPostings]] = []
    real = raw > 0
    if fuzzy_keywords:
        fuzzy_raw, fuzzy = score_pool(index, pool, fuzzy_keywords, max(k.weight for k in keywords))
        raw += FUZZY_WEIGHT * fuzzy_raw
    hit_ids = np.flatnonzero(raw > 0 if fuzzy_keywords else real)
    raw[hit_ids] *= _freshness_factors(pool.mtimes.take(hit_ids), now_ms)
    head = _rank_sorted(_head_candidates(hit_ids, raw, real), raw, real, pool)

    def complete() -> np.ndarray:
        rest = pool.time_order[raw[pool.time_order] <= 0]
        return np.concatenate([_rank_sorted(hit_ids, raw, real, pool), rest])

    order = LazyOrder(head, pool.size, complete)
    return Ranking(index, pool, mode, sort, keywords, present, raw, order, len(hit_ids), fuzzy, real)  # type: ignore[arg-type]


def _sorted_distinct(values: np.ndarray) -> np.ndarray:
    """The distinct values of a 1-d integer array in ascending order, as `np.unique` gives them (sorted in place:
    pass an array of your own). `np.unique` asks `numpy.ma` whether its input is masked, which imported numpy.ma,
    and the window then held its modules and their 11,000 source lines (read by PySide6, see core/heap.py) for
    good: 2 MB from its first ranking on, for a check that is never true here."""
    values.sort()
    if len(values) > 1:
        keep = np.empty(len(values), dtype=bool)
        keep[0] = True
        np.not_equal(values[1:], values[:-1], out=keep[1:])
        values = values[keep]
    return values


def _freshness_factors(mtimes: np.ndarray, now_ms: int) -> np.ndarray:
    """1 + FRESHNESS_BOOST * freshness, per hit (its mtime array is reused): the arithmetic of `freshness`, in
    place, where each step's temporary of a query matching most of 100,000 documents cost page faults."""
    age = np.subtract(now_ms, mtimes, out=mtimes)
    np.maximum(age, 0, out=age)
    fresh: np.ndarray = np.true_divide(age, FRESHNESS_WINDOW_MS)
    np.minimum(fresh, 1.0, out=fresh)
    np.subtract(1.0, fresh, out=fresh)
    np.multiply(fresh, FRESHNESS_BOOST, out=fresh)
    np.add(fresh, 1, out=fresh)
    return fresh


def _rank_sorted(ids: np.ndarray, raw: np.ndarray, real: np.ndarray, pool: Pool) -> np.ndarray:
    """Hits in rank order: a document with a real hit above one with only near-misses, then by score, newer
    first, then by path."""
    return ids[np.lexsort((pool.rel_rank[ids], -pool.mtimes[ids], -raw[ids], ~real[ids]))]


def _head_candidates(hit_ids: np.ndarray, raw: np.ndarray, real: np.ndarray) -> np.ndarray:
    """The hits that can be among the top HEAD_ROWS (all ties at the cut included), found by argpartition-style
    selection in O(hits): sorted, they are exactly the head of the full order."""
    if len(hit_ids) <= 2 * HEAD_ROWS:
        return hit_ids
    is_real = real.take(hit_ids)
    if is_real.all():  # (no near-miss: no copies of most of 100,000 ids)
        real_ids, near_ids = hit_ids, hit_ids[:0]
    else:
        real_ids, near_ids = hit_ids[is_real], hit_ids[~is_real]
    if len(real_ids) >= HEAD_ROWS:
        return _at_least_kth(real_ids, raw, HEAD_ROWS)
    return np.concatenate([real_ids, _at_least_kth(near_ids, raw, HEAD_ROWS - len(real_ids))])


def _at_least_kth(ids: np.ndarray, raw: np.ndarray, k: int) -> np.ndarray:
    values = raw.take(ids)
    if k >= len(ids):
        return ids
    kth = np.partition(values, len(values) - k)[len(values) - k]
    chosen: np.ndarray = ids[values >= kth]
    return chosen


FUZZY_WEIGHT = 0.5


def fuzzy_stand_ins(
    index: SearchIndex, pool: Pool, present: list[Keyword], candidates: list[Keyword]
) -> list[Keyword]:
    """Near-miss keywords for query terms no pool document contains (labelled, see fuzzy.py).

    A Latin word that matched nothing looks for its neighbours. A CJK gram that matched nothing does so only
    where the text around it is unexplained: at least two of its characters lie outside every present gram
    (a typo leaves both grams through the wrong character absent, while a gram straddling two real words
    has at most one such character) and outside the stand-ins already found; trigrams are tried first."""
    out: list[Keyword] = []
    taken = {k.match for k in present}
    explained = {(sp.text, i) for k in present if not is_latin_term(k.term) for sp in k.spans for i in range(sp.start, sp.end)}

    def usable(key: str) -> bool:
        return key not in taken and index.in_pool(key, pool)

    for keyword in candidates:
        if keyword.match in taken or index.in_pool(keyword.match, pool):
            continue
        cjk = not is_latin_term(keyword.term)
        if cjk and not any(
            sum((sp.text, i) not in explained for i in range(sp.start, sp.end)) >= 2 for sp in keyword.spans
        ):
            continue
        from .fuzzy import Neighbour, neighbours, surface_word  # (loaded only when a word matched nothing)

        found = neighbours(index, keyword.term, usable)
        for key in found:
            taken.add(key)
            p = index.postings(key).within(pool.mask)
            doc = index.docs[int(p.ids[0])]
            shown = surface_word(field_sources(doc), key) if doc is not None else key
            out.append(Keyword(Neighbour(keyword.term, key, shown).label, keyword.weight, keyword.spans, match=key))
        if found and cjk:
            explained.update((sp.text, i) for sp in keyword.spans for i in range(sp.start, sp.end))
    return out
