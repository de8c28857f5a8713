"""An in-memory inverted index over document fields, so a query never re-reads or re-scans text.

Document text is cut into the only units a query term can match: runs of [a-z0-9_] (Latin query terms are
3-30 of those characters, so every occurrence lies inside one run) and CJK 2/3-grams (CJK query terms are
exactly those). A Latin term matches every run that contains it, so `mtime` finds `mtimems` and `lastmtime`
as the reference's substring counting does; runs are found through a trigram index over the vocabulary.
"""

from __future__ import annotations

from array import array
from collections import Counter
from dataclasses import dataclass, field

from .documents import DOC_KINDS, MEDIA_KINDS, Document
from .text import cjk_grams, is_cjk_char, latin_doc_runs

FIELDS = ("title", "summary", "body")
TF_BITS = 10
TF_MASK = (1 << TF_BITS) - 1
POOL_KINDS = {"doc": frozenset(DOC_KINDS), "media": frozenset(MEDIA_KINDS), "all": frozenset(DOC_KINDS + MEDIA_KINDS)}


def _pack(title: int, summary: int, body: int) -> int:
    return min(title, TF_MASK) | (min(summary, TF_MASK) << TF_BITS) | (min(body, TF_MASK) << (2 * TF_BITS))


def field_tokens(text: str) -> Counter:
    tokens = Counter(latin_doc_runs(text))
    tokens.update(cjk_grams(text))
    return tokens


@dataclass
class Pool:
    """The documents one ranking call competes over, with the statistics BM25F needs for them."""

    kind: str
    members: list[int]
    mask: bytearray
    avgdl: tuple[float, float, float]
    time_order: list[int]  # members by mtime desc, then rel asc: the order of every zero-score document
    derived: dict = field(default_factory=dict)  # per-pool values the ranker computes once (dropped with the pool)

    @property
    def size(self) -> int:
        return len(self.members)


class SearchIndex:
    def __init__(self) -> None:
        self.docs: list[Document | None] = []
        self.lengths: list[tuple[int, int, int]] = []
        self.by_rel: dict[str, int] = {}
        self.vocab: dict[str, int] = {}
        self.tokens: list[str] = []
        self.post_docs: list[array] = []
        self.post_tfs: list[array] = []
        self.trigrams: dict[str, list[int]] = {}
        self.version = 0
        self._resolve_cache: dict[str, list[tuple[int, int]]] = {}
        self._resolve_version = -1
        self._pools: dict[str, Pool] = {}
        self._pools_version = -1

    # --- building ------------------------------------------------------------------------------------

    def __len__(self) -> int:
        return len(self.by_rel)

    def add(self, doc: Document) -> int:
        """Add or replace the document at `doc.rel`; returns its id."""
        if doc.rel in self.by_rel:
            self.remove(doc.rel)
        doc_id = len(self.docs)
        self.docs.append(doc)
        self.by_rel[doc.rel] = doc_id
        texts = doc.field_texts()
        self.lengths.append(tuple(len(t) for t in texts))  # type: ignore[arg-type]
        counts = [field_tokens(t) if t else Counter() for t in texts]
        for token in set(counts[0]) | set(counts[1]) | set(counts[2]):
            tid = self.vocab.get(token)
            if tid is None:
                tid = self._new_token(token)
            self.post_docs[tid].append(doc_id)
            self.post_tfs[tid].append(_pack(counts[0][token], counts[1][token], counts[2][token]))
        self.version += 1
        return doc_id

    def remove(self, rel: str) -> bool:
        """Forget a document. Its postings stay behind as dead entries that every pool masks out."""
        doc_id = self.by_rel.pop(rel, None)
        if doc_id is None:
            return False
        self.docs[doc_id] = None
        self.version += 1
        return True

    def _new_token(self, token: str) -> int:
        tid = len(self.tokens)
        self.vocab[token] = tid
        self.tokens.append(token)
        self.post_docs.append(array("I"))
        self.post_tfs.append(array("I"))
        if not is_cjk_char(token[0]):
            for i in range(len(token) - 2):
                self.trigrams.setdefault(token[i : i + 3], []).append(tid)
        return tid

    def documents(self) -> list[tuple[int, Document]]:
        return [(i, d) for i, d in enumerate(self.docs) if d is not None]

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
        kinds = POOL_KINDS[kind]
        members = [i for i, d in enumerate(self.docs) if d is not None and d.kind in kinds]
        mask = bytearray(len(self.docs))
        sums = [0, 0, 0]
        for i in members:
            mask[i] = 1
            t, s, b = self.lengths[i]
            sums[0] += t
            sums[1] += s
            sums[2] += b
        n = len(members)
        avgdl = tuple(total / n if n else 0.0 for total in sums)
        docs = self.docs
        time_order = sorted(members, key=lambda i: (-docs[i].mtime_ms, docs[i].rel))  # type: ignore[union-attr]
        pool = Pool(kind, members, mask, avgdl, time_order)  # type: ignore[arg-type]
        self._pools[kind] = pool
        return pool

    # --- term lookup ---------------------------------------------------------------------------------

    def resolve(self, term: str) -> list[tuple[int, int]]:
        """Vocabulary entries containing `term`, each with how many times it occurs in that entry."""
        if self._resolve_version != len(self.tokens):
            self._resolve_cache.clear()
            self._resolve_version = len(self.tokens)
        cached = self._resolve_cache.get(term)
        if cached is not None:
            return cached
        if is_cjk_char(term[0]) or len(term) < 3:
            tid = self.vocab.get(term)
            found = [] if tid is None else [(tid, 1)]
        else:
            found = self._resolve_latin(term)
        self._resolve_cache[term] = found
        return found

    def _resolve_latin(self, term: str) -> list[tuple[int, int]]:
        best: list[int] | None = None
        for i in range(len(term) - 2):
            ids = self.trigrams.get(term[i : i + 3])
            if ids is None:
                return []
            if best is None or len(ids) < len(best):
                best = ids
        tokens = self.tokens
        found = []
        for tid in best or ():
            token = tokens[tid]
            if term in token:
                found.append((tid, token.count(term)))
        return found

    def term_frequencies(self, term: str, mask: bytearray) -> dict[int, tuple[int, int, int]]:
        """Per pool document: occurrences of `term` in title, summary and body (not yet capped)."""
        matches = self.resolve(term)
        out: dict[int, tuple[int, int, int]] = {}
        if not matches:
            return out
        post_docs, post_tfs = self.post_docs, self.post_tfs
        if len(matches) == 1:
            tid, mult = matches[0]
            for d, p in zip(post_docs[tid], post_tfs[tid]):
                if mask[d]:
                    out[d] = (
                        (p & TF_MASK) * mult,
                        ((p >> TF_BITS) & TF_MASK) * mult,
                        (p >> (2 * TF_BITS)) * mult,
                    )
            return out
        for tid, mult in matches:
            for d, p in zip(post_docs[tid], post_tfs[tid]):
                if not mask[d]:
                    continue
                t = (p & TF_MASK) * mult
                s = ((p >> TF_BITS) & TF_MASK) * mult
                b = (p >> (2 * TF_BITS)) * mult
                prev = out.get(d)
                out[d] = (t, s, b) if prev is None else (prev[0] + t, prev[1] + s, prev[2] + b)
        return out

    def contains_text(self, needle: str, pool: Pool) -> bool:
        """Whether any pool document has `needle` (lowercased) in its title, summary or body."""
        needle = needle.lower()
        if not needle:
            return False
        candidates: set[int] | None = None
        if len(needle) >= 2 and all(is_cjk_char(ch) for ch in needle):
            grams = [needle] if len(needle) <= 3 else [needle[i : i + 3] for i in range(len(needle) - 2)]
            for gram in grams:
                tid = self.vocab.get(gram)
                docs = set() if tid is None else {d for d in self.post_docs[tid] if pool.mask[d]}
                candidates = docs if candidates is None else candidates & docs
                if not candidates:
                    return False
            if len(needle) <= 3:
                return True
        elif len(needle) >= 3 and all(ch.isascii() and (ch.isalnum() or ch == "_") for ch in needle):
            if not any(ch.isalpha() for ch in needle):
                candidates = None
            else:
                return bool(self.term_frequencies(needle, pool.mask))
        ids = candidates if candidates is not None else pool.members
        for d in ids:
            doc = self.docs[d]
            if doc is not None and any(needle in text for text in doc.field_texts()):
                return True
        return False
