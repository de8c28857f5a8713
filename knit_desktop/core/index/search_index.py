"""An in-memory inverted index over document fields, so a query never re-reads or re-scans text.

Document text is cut into the units a query term matches: Latin words (runs of letters, digits and `_`) and
their word-parts (camelCase / snake_case / digit boundaries, so `mtime` finds `mtimeMs` and `mtime_ms` but
not `lastmtime`), keyed by `text.latin_key` (lowercased, stemmed), and CJK 2/3-grams (CJK query terms are
exactly those). A trigram index over the Latin keys serves the fuzzy layer's near-miss search.

Postings are appended as documents arrive (so each list is sorted by document id) and turned into NumPy
arrays per query term, which is what lets a 10,000-document ranking take milliseconds. A document's postings
first go to one flat run shared by every term (`PendingPostings`: a copy of its arrays, no step per posting);
the run is sorted into the per-term lists in one pass when it grows large or a list is read.
"""

from __future__ import annotations

from array import array
from bisect import bisect_left
from collections.abc import Callable, Mapping, MutableMapping, Sequence
from dataclasses import dataclass, field
from itertools import repeat
from typing import Any, cast

import numpy as np

from ..sized_cache import SizedCache
from ..text.tokens import RUN_KEY_NAMES, Key, is_cjk_char, keyed_counts, match_key
from .doc_table import DocumentTable
from .documents import DOC_KINDS, MEDIA_KINDS, Document
from .rel_ids import RelIds

# A snapshot's vocabulary is looked up by binary search over its saved sort order until this many lookups, then
# the dictionary is built (a one-shot query makes tens; the build of that dictionary was a third of its open).
VOCAB_SEARCHES = 512
TF_MAX = 65535  # per field and vocabulary entry; ranking caps tf at 20 anyway
POOL_KINDS = {"doc": frozenset(DOC_KINDS), "media": frozenset(MEDIA_KINDS), "all": frozenset(DOC_KINDS + MEDIA_KINDS)}
TERM_CACHE_LIMIT = 512
# Postings kept for terms looked up again (a common term: 10 bytes per document holding it). The pools keep
# their own share of each term (rank/ranking.py), so this one mostly serves the lookups within one ranking.
TERM_CACHE_BYTES = 8 * 1024 * 1024
# Postings held in the flat run before they are sorted into the per-term lists (10 bytes each, and about three
# times that while they are sorted): large enough that a sort pays for its fixed cost, small enough that memory
# stays flat during a 100,000-document build.
PENDING_POSTINGS = 1 << 20


def _capped(counts: dict[Key, int]) -> dict[Key, int]:
    """The counts with none above TF_MAX (what a uint16 column holds); almost always the same dict."""
    if counts and max(counts.values()) > TF_MAX:
        for token, n in counts.items():
            if n > TF_MAX:
                counts[token] = TF_MAX
    return counts


def field_sources(doc: Document) -> tuple[str, str, str]:
    """The title, summary and body as written (media: the file name), which the index cuts into keys."""
    if doc.is_media:
        return (doc.name, "", "")
    return (doc.title, doc.summary, doc.body)


@dataclass(frozen=True, slots=True)
class TokenStats:
    """What indexing a document needs from its text: the field lengths and each key with its counts per field
    (`tokens[i]` occurs `title[i]`, `summary[i]` and `body[i]` times). Computed by `document_stats`, in the
    indexing process or in a worker process (it pickles small: the text itself is not in it)."""

    lengths: tuple[int, int, int]
    tokens: list[str]
    title: array  # uint16 counts, one per token
    summary: array
    body: array

    def __reduce__(self) -> tuple:  # (see Document.__reduce__: one comes back per file from a worker)
        return (TokenStats, (self.lengths, self.tokens, self.title, self.summary, self.body))


def document_stats(doc: Document) -> TokenStats:
    """Cut a document's fields into index keys and count them (the costly half of `SearchIndex.add`)."""
    lengths, tokens, columns = counted_fields(field_sources(doc), RUN_KEY_NAMES)
    return TokenStats(lengths, tokens, *columns)


def counted_fields(
    texts: tuple[str, str, str], run_keys_of: Mapping[str, tuple[Key, ...]], gram_key: Mapping[str, Key] | None = None
) -> tuple[tuple[int, int, int], list[Key], tuple[array, array, array]]:
    """The field lengths, every key once (the title's first, then the summary's, then the body's others in their
    order) and each field's count of each key, as `text.keyed_counts` gives the keys (strings, or numbers
    standing for them)."""
    (title, title_len), (summary, summary_len), (body, body_len) = (
        keyed_counts(t, run_keys_of, gram_key) if t else ({}, 0) for t in texts
    )
    title, summary, body = _capped(title), _capped(summary), _capped(body)
    lengths = (title_len, summary_len, body_len)
    if not title and not summary:
        only = list(body)
        return lengths, only, (_zeros(len(only)), _zeros(len(only)), array("H", body.values()))
    # Each column is read from its own dict in C where the keys are in its order: only the few keys of the title
    # and the summary are looked up one by one (each of the three columns looked up every key: a sixth of a
    # worker's counting time).
    head: dict[Key, int] = {**title, **summary}
    body_only: dict[Key, int] = dict(body)
    for key in head:
        body_only.pop(key, None)
    tokens: list[Key] = list(head)
    tokens.extend(body_only)
    rest = len(body_only)
    title_counts = array("H", title.values())
    title_counts.extend(_zeros(len(tokens) - len(title)))
    summary_counts = array("H", map(summary.get, head, repeat(0)))
    summary_counts.extend(_zeros(rest))
    body_counts = array("H", map(body.get, head, repeat(0)))
    body_counts.extend(array("H", body_only.values()))
    return lengths, tokens, (title_counts, summary_counts, body_counts)


def _zeros(n: int) -> array:
    return array("H", bytes(2 * n))


def _stable_order(keys: np.ndarray) -> np.ndarray:
    """The stable sort order of uint32 `keys`, as two radix passes over their 16-bit halves: NumPy sorts 16-bit
    keys stably by radix, five times faster than its stable sort of 32-bit ones (a merge sort)."""
    order = np.argsort((keys & 0xFFFF).astype(np.uint16), kind="stable")
    if len(keys) and int(keys.max()) > 0xFFFF:
        order = order[np.argsort((keys >> 16).astype(np.uint16)[order], kind="stable")]
    return order


class PendingPostings:
    """Postings of documents added since the per-term lists were last brought up to date, in one flat run: for each
    document, its token ids and their counts per field, copied as whole arrays. Appending a document's postings
    to each of its terms' lists one by one was ten million Python-level appends in a 100,000-document build, the
    indexing process's largest cost; sorting the run by token id does the same work in a few NumPy passes."""

    __slots__ = ("tids", "title", "summary", "body", "doc_ids", "doc_sizes")

    def __init__(self) -> None:
        self._reset()

    def _reset(self) -> None:
        self.tids = array("I")
        self.title, self.summary, self.body = array("H"), array("H"), array("H")
        self.doc_ids = array("I")  # each document in the run once, with how many postings it has
        self.doc_sizes = array("I")

    def __len__(self) -> int:
        return len(self.tids)

    def add(self, doc_id: int, tids: array, stats: TokenStats) -> None:
        self.tids.extend(tids)
        self.title.extend(stats.title)
        self.summary.extend(stats.summary)
        self.body.extend(stats.body)
        self.doc_ids.append(doc_id)
        self.doc_sizes.append(len(tids))

    def drain_into(self, post_docs: list[array], post_tfs: list[tuple[array, array, array]]) -> None:
        """Append the run to the per-term lists (a term's postings in the order their documents came, one append
        per term and column) and empty it."""
        if not len(self.tids):
            return
        tids = np.frombuffer(self.tids, dtype=np.uint32)
        order = _stable_order(tids)  # stable: each term's postings stay in document order
        sorted_tids = tids[order]
        cuts = np.flatnonzero(sorted_tids[1:] != sorted_tids[:-1]) + 1
        terms = sorted_tids[np.concatenate(([0], cuts))].tolist()
        bounds = [0, *cuts.tolist(), len(order)]
        del tids, sorted_tids, cuts
        doc_ids = np.repeat(np.frombuffer(self.doc_ids, dtype=np.uint32), np.frombuffer(self.doc_sizes, dtype=np.uint32))
        sources: list[np.ndarray] = [doc_ids, *(np.frombuffer(c, dtype=np.uint16) for c in (self.title, self.summary, self.body))]
        del doc_ids
        self._reset()  # new buffers; the old ones live on in `sources` until sorted
        # (A list loaded lazily from a snapshot takes the new postings in a tail, not by being cut out and kept.)
        columns = list(map(getattr(post_tfs, "appendable", post_tfs.__getitem__), terms))
        docs = list(map(getattr(post_docs, "appendable", post_docs.__getitem__), terms))
        targets: list[list[array]] = [docs, *([c[f] for c in columns] for f in range(3))]
        del columns
        while sources:
            column = sources.pop(0)[order]  # one column sorted at a time: memory stays flat
            size, values = column.itemsize, memoryview(column).cast("B")
            for target, lo, hi in zip(targets.pop(0), bounds, bounds[1:]):
                target.frombytes(values[lo * size : hi * size])
            del column, values


@dataclass(frozen=True)
class TermPostings:
    """Every document containing a term (sorted ids) with its occurrences per field (columns: title, summary,
    body)."""

    ids: np.ndarray  # int32
    # shape (3, len(ids)), one contiguous row per field: uint16 counts as stored (10 bytes a posting with the
    # ids, where float64 and int64 took 32), float64 only for a key summed over several vocabulary entries.
    tfs: np.ndarray

    @property
    def title(self) -> np.ndarray:
        field: np.ndarray = self.tfs[0]
        return field

    @property
    def summary(self) -> np.ndarray:
        field: np.ndarray = self.tfs[1]
        return field

    @property
    def body(self) -> np.ndarray:
        field: np.ndarray = self.tfs[2]
        return field

    def within(self, mask: np.ndarray) -> TermPostings:
        keep = mask.take(self.ids)  # (take: half the time of indexing for a list of most documents)
        if keep.all():
            return self
        at = np.flatnonzero(keep)  # (a boolean index of the (3, n) counts took 0.7 ms for 85,000 postings)
        return TermPostings(self.ids.take(at), self.tfs.take(at, axis=1))

    def __len__(self) -> int:
        return len(self.ids)


def postings_nbytes(p: TermPostings) -> int:
    """The memory a list holds: its arrays, or the whole inflated block when they are views of one (a word that
    is most of its block, see _PostingBlocks.arrays), so a cache bounded by bytes is not fooled by views."""
    root: Any = p.ids
    while getattr(root, "base", None) is not None:
        root = root.base
    return len(root) if isinstance(root, bytes) else int(p.ids.nbytes + p.tfs.nbytes)



def _copy(values: array, dtype: type) -> np.ndarray:
    # A copy: a lasting view would stop the array from growing when documents are added.
    return np.frombuffer(values, dtype=np.uint32 if values.typecode == "I" else np.uint16).astype(dtype)


def _field_rows(columns: tuple[array, array, array], n: int) -> np.ndarray:
    rows = np.empty((3, n), dtype=np.uint16)
    for f, column in enumerate(columns):
        rows[f] = np.frombuffer(column, dtype=np.uint16)  # copied on assignment; the view is dropped at once
    return rows


def peek_posting_list(lists: list, i: int) -> Any:
    """Entry `i` of a posting list column without keeping what was cut from a snapshot block for it (the term
    caches keep what is looked up again; a lazily loaded column would otherwise keep every list ever read)."""
    peek = getattr(lists, "peek", None)
    return lists[i] if peek is None else peek(i)


def _posting_arrays(post_docs: list, post_tfs: list, tid: int) -> tuple[np.ndarray, np.ndarray]:
    """Token `tid`'s ids (int32) and counts (3, n), copied once from a snapshot's blocks when they come from there."""
    peek_arrays = getattr(post_docs, "peek_arrays", None)
    found: tuple[np.ndarray, np.ndarray] | None = peek_arrays(tid) if peek_arrays is not None else None
    if found is not None:
        return found
    ids = _copy(peek_posting_list(post_docs, tid), np.int32)
    return ids, _field_rows(peek_posting_list(post_tfs, tid), len(ids))


_EMPTY = TermPostings(np.zeros(0, dtype=np.int32), np.zeros((3, 0), dtype=np.uint16))


# Answers kept per pool (`in_pool`, `contains_text`), at most this many of each kind: a long conversation's keys.
POOL_ANSWERS = 65536


@dataclass
class Pool:
    """The documents one ranking call competes over, with the statistics BM25F needs for them."""

    kind: str
    members: np.ndarray  # document ids
    mask: np.ndarray  # bool, indexed by document id
    avgdl: tuple[float, float, float]
    lengths: np.ndarray  # uint32 (3, documents): field lengths, one row per field, indexed by document id
    mtimes: np.ndarray  # int64, indexed by document id
    rel_rank: np.ndarray  # position of each document's rel in sorted order (the last tie-break)
    derived: dict = field(default_factory=dict)  # per-pool values the ranker computes once

    @property
    def size(self) -> int:
        return len(self.members)

    @property
    def time_order(self) -> np.ndarray:
        """Members by mtime desc, then rel asc: the order of every zero-score document. Sorted when first asked
        for: a relevance ranking read from its head never is (a sort of every member, in each new process and
        after each change to the index)."""
        order: np.ndarray | None = self.derived.get("time_order")
        if order is None:
            members = self.members
            order = members[np.lexsort((self.rel_rank[members], -self.mtimes[members]))] if len(members) else members
            self.derived["time_order"] = order
        return order


def _pool_answers(pool: Pool, kind: str) -> dict[str, bool]:
    answers: dict[str, bool] | None = pool.derived.get(kind)
    if answers is None or len(answers) >= POOL_ANSWERS:
        answers = pool.derived[kind] = {}
    return answers


class SearchIndex:
    def __init__(self, docs: DocumentTable | None = None) -> None:
        self.docs = docs if docs is not None else DocumentTable()
        # Field lengths (title, summary, body) of document i at 3i..3i+2: one flat array, not a tuple per
        # document (100,000 tuples of three ints held 15 MB; this holds 1.2 MB and loads as one buffer).
        self.lengths = array("I")
        self._by_rel: RelIds | None = None if docs is not None and len(docs) else RelIds(self.docs)
        self._vocab: dict[str, int] | None = {}
        self._token_order: Sequence[int] | None = None  # token ids by token, while the dictionary is not built
        self._searches = 0
        self.tokens: list[str] = []
        self._post_docs: list[array] = []  # uint32 document ids, ascending
        self._post_tfs: list[tuple[array, array, array]] = []  # uint16 counts in title, summary, body
        self._pending = PendingPostings()  # postings added since, not in those lists yet
        self._trigrams: MutableMapping[str, list[int]] | None = {}
        self._load_trigrams: Callable[[], MutableMapping[str, list[int]]] | None = None
        # The trigrams as the snapshot holds them, while they are not loaded: saved again as they are.
        self.packed_trigrams: object = None
        self.snapshot_outdated = False  # loaded from an older snapshot format: the next save writes the current one
        self.version = 0
        # Bumped when a document's name comes or goes, not when the document at a name is replaced: what resolves
        # links to names (Workspace.graph) is kept while it stays.
        self.names_version = 0
        self._term_cache: SizedCache[str, TermPostings] = SizedCache(TERM_CACHE_LIMIT, TERM_CACHE_BYTES, postings_nbytes)
        self._term_version = -1
        self._pools: dict[str, Pool] = {}
        self._pools_version = -1
        self._wildcards: dict[str, list[str]] = {}  # CJK gram with one character as "?" -> grams (fuzzy layer)
        self._wildcards_upto = 0

    # --- building ------------------------------------------------------------------------------------

    @property
    def by_rel(self) -> RelIds:
        """Document id by rel (live documents), made on first use (a one-shot query never needs it)."""
        if self._by_rel is None:
            self._by_rel = RelIds(self.docs)
        return self._by_rel

    @property
    def vocab(self) -> dict[str, int]:
        """Token id by token."""
        if self._vocab is None:
            self._vocab = {token: tid for tid, token in enumerate(self.tokens)}
            self._token_order = None
        return self._vocab

    @vocab.setter
    def vocab(self, value: dict[str, int]) -> None:
        self._vocab, self._token_order = value, None

    def defer_vocab(self, token_order: Sequence[int]) -> None:
        """Look tokens up in `token_order` (every token id, sorted by token) until the dictionary pays."""
        if len(token_order) != len(self.tokens):
            raise ValueError("the token order does not cover the vocabulary")
        self._vocab, self._token_order, self._searches = None, token_order, 0

    def token_id(self, token: str) -> int | None:
        order = self._token_order
        if self._vocab is None and order is not None and self._searches < VOCAB_SEARCHES:
            self._searches += 1
            tokens = self.tokens
            at = bisect_left(order, token, key=tokens.__getitem__)
            return order[at] if at < len(order) and tokens[order[at]] == token else None
        return self.vocab.get(token)

    @property
    def post_docs(self) -> list[array]:
        """Per token id, the ids of the documents holding it (ascending)."""
        self._pending.drain_into(self._post_docs, self._post_tfs)
        return self._post_docs

    @property
    def post_tfs(self) -> list[tuple[array, array, array]]:
        """Per token id, its counts in the title, summary and body of each document of `post_docs`."""
        self._pending.drain_into(self._post_docs, self._post_tfs)
        return self._post_tfs

    def set_postings(self, post_docs: list[array], post_tfs: list[tuple[array, array, array]]) -> None:
        """Take the lists of a loaded snapshot (one per token of `tokens`) as the postings."""
        self._post_docs, self._post_tfs, self._pending = post_docs, post_tfs, PendingPostings()

    @property
    def trigrams(self) -> MutableMapping[str, list[int]]:
        """Token ids by Latin trigram, for the fuzzy layer; loaded from the snapshot on first use."""
        if self._trigrams is None:
            assert self._load_trigrams is not None
            self._trigrams = self._load_trigrams()
            self._load_trigrams = None
            self.packed_trigrams = None
        return self._trigrams

    def defer_trigrams(self, load: Callable[[], MutableMapping[str, list[int]]], packed: object) -> None:
        self._trigrams, self._load_trigrams, self.packed_trigrams = None, load, packed

    def __len__(self) -> int:
        return len(self._by_rel) if self._by_rel is not None else self.docs.live_count()

    def add(self, doc: Document) -> int:
        """Add or replace the document at `doc.rel`; returns its id."""
        return self.add_counted(doc, document_stats(doc))

    def add_counted(self, doc: Document, stats: TokenStats, token_ids: array | list[int] | None = None) -> int:
        """`add` with the text already cut and counted (`document_stats`, say in a worker process). `token_ids`,
        when given, are the vocabulary ids of `stats.tokens` in order, already looked up (`token_ids()`; an
        array of typecode "I" or a list)."""
        replaced = self.remove(doc.rel)
        doc_id = len(self.docs)
        self.docs.append(doc)
        self.by_rel[doc.rel] = doc_id
        self.lengths.extend(stats.lengths)
        tids = self.token_ids(stats.tokens) if token_ids is None else token_ids
        self._pending.add(doc_id, tids if isinstance(tids, array) else array("I", tids), stats)
        if len(self._pending) >= PENDING_POSTINGS:
            self._pending.drain_into(self._post_docs, self._post_tfs)
        self.version += 1
        self.names_version += -1 if replaced else 1  # (replaced: the name is back, as `remove` had counted it gone)
        return doc_id

    def token_ids(self, tokens: list[str]) -> list[int]:
        """The vocabulary ids of distinct `tokens`, in order; the new ones are added to the vocabulary."""
        known = list(map(self.vocab.get, tokens))
        if None not in known:
            return cast(list[int], known)
        return [self._new_token(token) if tid is None else tid for tid, token in zip(known, tokens)]

    def remove(self, rel: str) -> bool:
        """Forget a document. Its postings stay behind as dead entries that every pool masks out."""
        doc_id = self.by_rel.pop(rel, None)
        if doc_id is None:
            return False
        self.docs[doc_id] = None
        self.version += 1
        self.names_version += 1
        return True

    def _new_token(self, token: str) -> int:
        tid = len(self.tokens)
        self.vocab[token] = tid
        self.tokens.append(token)
        self._post_docs.append(array("I"))
        self._post_tfs.append((array("H"), array("H"), array("H")))
        if not is_cjk_char(token[0]):
            _add_trigrams(self.trigrams, token, tid)
        return tid

    def swap_document(self, doc: Document) -> None:
        """Put an equal copy in place of the document at `doc.rel` (its postings stay): how a document's text
        is let go once it is tokenised and stored."""
        doc_id = self.by_rel.get(doc.rel)
        if doc_id is not None:
            self.docs[doc_id] = doc

    def touch(self, rel: str, mtime_ms: int, size: int) -> None:
        """A document's file got a new modification time and size but kept its content."""
        doc_id = self.by_rel.get(rel)
        doc = None if doc_id is None else self.docs[doc_id]
        if doc_id is not None and doc is not None:
            doc.mtime_ms = mtime_ms
            doc.size = size
            self.docs[doc_id] = doc  # held as this object from now on, not rebuilt from the columns
            self.version += 1  # modification times feed the pools' time order

    def stat(self, rel: str) -> tuple[int, int] | None:
        """(mtime_ms, size) of the document at `rel` (what a walk compares), without building the document."""
        doc_id = self.by_rel.get(rel)
        return None if doc_id is None else self.docs.stat(doc_id)

    def documents(self) -> list[tuple[int, Document]]:
        return [(i, d) for i, d in enumerate(self.docs) if d is not None]

    def live_rels(self, without_kinds: frozenset[str] = frozenset()) -> list[str]:
        """The rels of the documents, in id order, leaving out those of `without_kinds` (no document is built)."""
        keep = self.docs.live() & ~self.docs.of_kinds(without_kinds)
        rels = self.docs.rels()
        return [rels[int(i)] for i in np.flatnonzero(keep)]

    def get(self, rel: str) -> Document | None:
        doc_id = self.by_rel.get(rel)
        return None if doc_id is None else self.docs[doc_id]

    # --- pools ---------------------------------------------------------------------------------------

    def pool(self, kind: str) -> Pool:
        if self._pools_version != self.version:
            self._pools.clear()
            self._pools_version = self.version
        cached = self._pools.get(kind)
        if cached is not None:
            return cached
        if "_shared" not in self._pools:
            self._pools["_shared"] = self._shared_arrays()  # type: ignore[assignment]
        shared: tuple[np.ndarray, np.ndarray, np.ndarray] = self._pools["_shared"]  # type: ignore[assignment]
        lengths, mtimes, rel_rank = shared
        mask = self.docs.of_kinds(POOL_KINDS[kind])
        members = np.flatnonzero(mask).astype(np.int64)
        n = len(members)
        # Integer sums (exact, so the same whatever the order they are added in): a masked reduction of the
        # field rows, where gathering the members' float rows first took 2 ms of the first query at 100,000.
        sums = np.add.reduce(lengths, axis=1, dtype=np.uint64, where=mask[: lengths.shape[1]]) if n else np.zeros(3)
        avgdl = tuple(float(total) / n if n else 0.0 for total in sums)
        pool = Pool(kind, members, mask, avgdl, lengths, mtimes, rel_rank)  # type: ignore[arg-type]
        self._pools[kind] = pool
        return pool

    def _shared_arrays(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        # One contiguous row per field (title, summary, body), the stored counts as they are (1.2 MB at 100,000
        # documents where float64 took 2.4 MB).
        lengths = np.frombuffer(self.lengths, dtype=np.uint32).reshape(-1, 3).T.copy()
        return lengths, self.docs.mtimes(), self.docs.rel_rank()

    # --- term lookup ---------------------------------------------------------------------------------

    def resolve(self, term: str) -> list[tuple[int, int]]:
        """The vocabulary entry of a match key (a list of at most one (token id, multiplicity) pair)."""
        tid = self.token_id(term)
        return [] if tid is None else [(tid, 1)]

    def postings(self, term: str) -> TermPostings:
        """All documents containing `term` (live or removed; pools mask the removed ones)."""
        if self._term_version != self.version:
            self._term_cache.clear()
            self._term_version = self.version
        cached = self._term_cache.get(term)
        if cached is not None:
            return cached
        matches = self.resolve(term)
        if not matches:
            result = _EMPTY
        else:
            if len(matches) == 1:
                tid, mult = matches[0]
                ids, tfs = _posting_arrays(self.post_docs, self.post_tfs, tid)
                if mult > 1:
                    tfs = tfs * float(mult)
            else:
                lists = [(peek_posting_list(self.post_docs, tid), peek_posting_list(self.post_tfs, tid), m) for tid, m in matches]
                ids = np.concatenate([_copy(docs, np.int32) for docs, _, _ in lists])
                tfs = np.concatenate(
                    [_field_rows(counts, len(docs)).astype(np.float64) * m for docs, counts, m in lists], axis=1
                )
                ids, inverse = np.unique(ids, return_inverse=True)
                summed = np.zeros((3, len(ids)))
                for f in range(3):
                    summed[f] = np.bincount(inverse, weights=tfs[f], minlength=len(ids))
                tfs = summed
            result = TermPostings(ids, tfs)
        self._term_cache.put(term, result)
        return result

    def cjk_wildcard(self, pattern: str) -> list[str]:
        """CJK grams of the vocabulary matching `pattern`, a gram with one character replaced by `?`."""
        tokens = self.tokens
        if self._wildcards_upto < len(tokens):
            wild = self._wildcards
            for token in tokens[self._wildcards_upto :]:
                if is_cjk_char(token[0]):
                    for i in range(len(token)):
                        wild.setdefault(token[:i] + "?" + token[i + 1 :], []).append(token)
            self._wildcards_upto = len(tokens)
        return self._wildcards.get(pattern, [])

    def term_frequencies(self, term: str, mask: np.ndarray) -> dict[int, tuple[int, int, int]]:
        """Per pool document: occurrences of the query term `term` in title, summary and body (for tests and
        tools)."""
        p = self.postings(match_key(term)).within(mask)
        return {int(d): (int(t), int(s), int(b)) for d, t, s, b in zip(p.ids, p.title, p.summary, p.body)}

    def in_pool(self, match: str, pool: Pool) -> bool:
        """Whether any pool document holds the match key `match`. Kept with the pool, which lives as long as the
        index does not change: a conversation asks again for most of its keys on every re-ranking, and a key's
        postings, gone from the term cache, were cut from the snapshot again for each question (at 100,000
        documents a third of a warm `knit_docs` call inflated postings blocks for such questions)."""
        known = _pool_answers(pool, "has_key")
        found = known.get(match)
        if found is None:
            found = known[match] = bool(pool.mask.take(self.postings(match).ids).any())
        return found

    def contains_text(self, needle: str, pool: Pool) -> bool:
        """Whether any pool document has `needle` (lowercased) in its title, summary or body; kept with the pool
        like `in_pool` (a CJK label is checked by reading candidate documents)."""
        needle = needle.lower()
        known = _pool_answers(pool, "has_text")
        found = known.get(needle)
        if found is None:
            found = known[needle] = self._contains_text(needle, pool)
        return found

    def _contains_text(self, needle: str, pool: Pool) -> bool:
        if not needle:
            return False
        candidates: np.ndarray | None = None
        if len(needle) >= 2 and all(is_cjk_char(ch) for ch in needle):
            grams = [needle] if len(needle) <= 3 else [needle[i : i + 3] for i in range(len(needle) - 2)]
            for gram in grams:
                ids = self.postings(gram).within(pool.mask).ids
                candidates = ids if candidates is None else np.intersect1d(candidates, ids, assume_unique=True)
                if not len(candidates):
                    return False
            if len(needle) <= 3:
                return True
        elif len(needle) >= 2 and all(ch.isascii() and (ch.isalnum() or ch == "_") for ch in needle):
            return self.in_pool(match_key(needle), pool)
        ids = candidates if candidates is not None else pool.members
        for d in ids:
            doc = self.docs[int(d)]
            if doc is not None and any(needle in text for text in doc.field_texts()):
                return True
        return False


def _add_trigrams(trigrams: MutableMapping[str, list[int]], token: str, tid: int) -> None:
    for i in range(len(token) - 2):
        trigrams.setdefault(token[i : i + 3], []).append(tid)


def trigrams_of_tokens(tokens: Sequence[str]) -> dict[str, list[int]]:
    """Token ids by Latin trigram for these tokens (ids in order), as adding them one by one makes them."""
    trigrams: dict[str, list[int]] = {}
    for tid, token in enumerate(tokens):
        if token and not is_cjk_char(token[0]):
            _add_trigrams(trigrams, token, tid)
    return trigrams
