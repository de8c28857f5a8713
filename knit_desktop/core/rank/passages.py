"""Matched passages: the part of a document that carries the topic, cited by line range (and page for PDFs)."""

from __future__ import annotations

import bisect
import re
from collections import Counter
from dataclasses import dataclass

from ..index.documents import Document
from ..text.tokens import LATIN_DOC_RUN, collapse_whitespace, is_cjk_char, key_positions, run_keys
from .bm25 import K1, PASSAGE_B, TF_CAP, keyword_factor
from .keywords import Keyword

PASSAGE_CHARS = 1200
MIN_PASSAGE_CHARS = 300
HARD_SPLIT_OVERLAP = 120  # a line longer than a passage is cut at sentence ends, the pieces overlapping this much
MAX_PASSAGES_PER_FILE = 200
# Kinds whose text has `#` heading lines (HTML, DOCX and FB2 are extracted into that shape): passages are cut there.
HEADING_KINDS = frozenset({"md", "html", "docx", "fb2"})
PASSAGES_PER_DOC = 2
SNIPPET_CHARS = 200
SNIPPET_LEAD = 40

_HEADING = re.compile(r"^#{1,6}\s")
_SENTENCE_END = re.compile(r"(?:[.!?](?=\s)|[。！？；])\s*")


@dataclass(frozen=True)
class Passage:
    start_offset: int  # body[start_offset:end_offset] is the passage
    end_offset: int
    start_line: int  # 1-based, inclusive; within the page for PDFs
    end_line: int
    page: int | None = None
    terms: tuple[str, ...] = ()
    snippet: str = ""

    def to_json(self) -> dict:
        out: dict = {"start_line": self.start_line, "end_line": self.end_line}
        if self.page is not None:
            out["page"] = self.page
        out.update(
            start_offset=self.start_offset, end_offset=self.end_offset, terms=list(self.terms), snippet=self.snippet
        )
        return out


class Lines:
    def __init__(self, body: str) -> None:
        self.body = body
        self.starts = [0]
        pos = body.find("\n")
        while pos >= 0:
            self.starts.append(pos + 1)
            pos = body.find("\n", pos + 1)

    def __len__(self) -> int:
        return len(self.starts)

    def span(self, i: int) -> tuple[int, int]:
        end = self.starts[i + 1] - 1 if i + 1 < len(self.starts) else len(self.body)
        return self.starts[i], end

    def text(self, i: int) -> str:
        s, e = self.span(i)
        return self.body[s:e]

    def line_of(self, offset: int) -> int:
        return bisect.bisect_right(self.starts, offset)  # 1-based


def _sections(doc: Document, lines: Lines) -> list[list[int]]:
    """Line indices per section: Markdown (and HTML, DOCX) is cut at headings, paged documents at pages, plain text is
    one section."""
    n = len(lines)
    cuts = {0}
    if doc.kind in HEADING_KINDS:
        in_fence = False
        for i in range(n):
            stripped = lines.text(i).strip()
            if stripped.startswith(("```", "~~~")):
                in_fence = not in_fence
            elif not in_fence and i > 0 and _HEADING.match(lines.text(i)):
                cuts.add(i)
    elif doc.page_starts:
        for start in doc.page_starts[1:]:
            cuts.add(lines.line_of(start) - 1)
    ordered = sorted(c for c in cuts if c < n)
    bounds = ordered + [n]
    return [list(range(bounds[i], bounds[i + 1])) for i in range(len(ordered))]


def _chunk_section(section: list[int], lines: Lines) -> list[tuple[int, int]]:
    """Offsets of the passages of one section, closed before 1200 characters, preferably at a blank line."""
    out: list[tuple[int, int]] = []
    current: list[int] = []

    def length(ids: list[int]) -> int:
        return lines.span(ids[-1])[1] - lines.span(ids[0])[0] if ids else 0

    def emit(ids: list[int]) -> None:
        if ids:
            out.append((lines.span(ids[0])[0], lines.span(ids[-1])[1]))

    for i in section:
        s, e = lines.span(i)
        if e - s > PASSAGE_CHARS:
            emit(current)
            current = []
            out.extend(split_long_line(lines.body, s, e))
            continue
        while current and e - lines.span(current[0])[0] > PASSAGE_CHARS:
            cut = None
            for k in range(len(current) - 1, 0, -1):
                if not lines.text(current[k]).strip() and length(current[:k]) >= MIN_PASSAGE_CHARS:
                    cut = k
                    break
            if cut is None:
                emit(current)
                current = []
            else:
                emit(current[:cut])
                current = current[cut:]
        current.append(i)
    emit(current)
    return out


def split_long_line(body: str, start: int, end: int) -> list[tuple[int, int]]:
    """A line longer than a passage, as pieces of at most PASSAGE_CHARS that end at a sentence end where one is in
    the second half of the piece (else at a space, else anywhere); each piece starts HARD_SPLIT_OVERLAP characters
    before the previous one ended, at a word start when there is one."""
    out: list[tuple[int, int]] = []
    pos = start
    while pos < end:
        limit = min(end, pos + PASSAGE_CHARS)
        if limit >= end:
            out.append((pos, end))
            break
        cut = 0
        for match in _SENTENCE_END.finditer(body, pos + PASSAGE_CHARS // 2, limit):
            cut = match.end()
        if not cut:
            space = body.rfind(" ", pos + PASSAGE_CHARS // 2, limit)
            cut = space + 1 if space > 0 else limit
        out.append((pos, cut))
        nxt = max(pos + 1, cut - HARD_SPLIT_OVERLAP)
        space = body.find(" ", nxt, cut)
        pos = space + 1 if 0 <= space < cut - 1 else nxt
    return out


def _trim(body: str, start: int, end: int) -> tuple[int, int]:
    """Drop leading and trailing blank lines (whole lines only, so offsets stay on line boundaries)."""
    while start < end:
        nl = body.find("\n", start, end)
        if nl < 0 or body[start:nl].strip():
            break
        start = nl + 1
    while end > start:
        nl = body.rfind("\n", start, end)
        if nl < 0 or body[nl + 1 : end].strip():
            break
        end = nl
    return start, end


def chunk_document(doc: Document, limit: int | None = MAX_PASSAGES_PER_FILE) -> list[tuple[int, int]]:
    """The passages of a document as body offsets: sections (headings, pages) cut before PASSAGE_CHARS at blank
    lines, short neighbours merged; at most `limit` of them (None: all)."""
    body = doc.body
    if not body:
        return []
    lines = Lines(body)
    raw: list[tuple[int, int]] = []
    for section in _sections(doc, lines):
        raw.extend(_chunk_section(section, lines))
    trimmed = [(s, e) for s, e in (_trim(body, s, e) for s, e in raw) if body[s:e].strip()]
    merged: list[tuple[int, int]] = []
    for s, e in trimmed:
        if merged:
            ps, pe = merged[-1]
            if pe - ps < MIN_PASSAGE_CHARS and e - ps <= PASSAGE_CHARS and _page(doc, ps) == _page(doc, s) and s >= pe:
                merged[-1] = (ps, e)
                continue
        merged.append((s, e))
    return merged if limit is None else merged[:limit]


def locate(doc: Document, lines: Lines, start: int, end: int) -> tuple[int, int, int | None]:
    """The citation of body[start:end]: first and last line (1-based; within the page for paged documents) and
    the page (None for text formats)."""
    page = _page(doc, start)
    first, last = lines.line_of(start), lines.line_of(max(start, end - 1))
    if page is not None:
        base = lines.line_of(doc.page_starts[page - 1]) - 1
        first, last = first - base, last - base
    return first, last, page


def _page(doc: Document, offset: int) -> int | None:
    if not doc.page_starts:
        return None
    return bisect.bisect_right(doc.page_starts, offset)


def snippet_for(text: str, terms: list[str]) -> str:
    """A window of the passage around the first occurrence of any of `terms` (match keys)."""
    tidy = collapse_whitespace(text)
    positions = [found[0] for found in (key_positions(tidy, t) for t in terms) if found]
    first = min(positions) if positions else 0
    start = max(0, first - SNIPPET_LEAD)
    end = min(len(tidy), start + SNIPPET_CHARS)
    if end - start < SNIPPET_CHARS:
        start = max(0, end - SNIPPET_CHARS)
    piece = tidy[start:end].strip()
    return ("…" if start > 0 else "") + piece + ("…" if end < len(tidy) else "")


def best_passages(doc: Document, keywords: list[Keyword], limit: int = PASSAGES_PER_DOC) -> list[Passage]:
    """Score every passage as a body-only document with the same BM25 and keywords; keep the best two."""
    chunks = chunk_document(doc)
    if not chunks or not keywords:
        return []
    texts = [doc.body[s:e] for s, e in chunks]
    n = len(texts)
    scores, hit_terms = score_texts(texts, keywords)
    ranked = sorted((i for i in range(n) if scores[i] > 0), key=lambda i: (-scores[i], chunks[i][0]))[:limit]
    ranked.sort(key=lambda i: chunks[i][0])
    lines = Lines(doc.body)
    out: list[Passage] = []
    for i in ranked:
        s, e = chunks[i]
        first, last, page = locate(doc, lines, s, e)
        matches = [k.match for k in keywords if k.term in hit_terms[i]]
        out.append(Passage(s, e, first, last, page, tuple(hit_terms[i]), snippet_for(doc.body[s:e], matches)))
    return out


def latin_probe(key: str) -> str:
    """A substring every text holding a word with this Latin match key contains (lowercased, `_` removed)."""
    return key[: len(key) - 2] if len(key) >= 5 else key[:2]


def score_texts(texts: list[str], keywords: list[Keyword]) -> tuple[list[float], list[list[str]]]:
    """BM25 of each text as a body-only document against the keywords (IDF over these texts), and the keywords
    each one contains. Each text's words are cut once (a Counter of match keys), not once per keyword."""
    n = len(texts)
    if not n or not keywords:
        return [0.0] * n, [[] for _ in range(n)]
    # A text is cut into words only when it can hold a Latin keyword, which a substring search tells cheaply: a
    # word's key is its lowercase without `_`, stemmed, and stemming rewrites at most the last two characters
    # (`possibility` -> `possibl`, `using` -> `use`), so the key minus those (two characters of a short key) is in
    # the text. Checked over 86,000 distinct words of real text (tests/test_library.py); most passages of a long
    # document then skip the tokenizer altogether.
    wanted = {k.match for k in keywords if k.match and not is_cjk_char(k.match[0])}
    probes = {latin_probe(key) for key in wanted}
    words: list[Counter] = []
    for t in texts:
        counts: Counter = Counter()
        if probes and any(p in t.lower().replace("_", "") for p in probes):
            # Each distinct run is cut into keys once (as the index does), counting only the wanted keys.
            for run, times in Counter(LATIN_DOC_RUN.findall(t)).items():
                for key, _ in run_keys(run):
                    if key in wanted:
                        counts[key] += times
        words.append(counts)
    avg = sum(len(t) for t in texts) / n
    max_weight = max(k.weight for k in keywords)
    scores = [0.0] * n
    hit_terms: list[list[str]] = [[] for _ in range(n)]
    for keyword in keywords:
        key = keyword.match
        if not key:
            continue
        if is_cjk_char(key[0]):
            per_text = [len(key_positions(t, key)) for t in texts]
        else:
            per_text = [w.get(key, 0) for w in words]
        df = sum(1 for c in per_text if c)
        if not df:
            continue
        factor = keyword_factor(keyword.weight, max_weight, n, df)
        for i, c in enumerate(per_text):
            if c:
                tf = min(c, TF_CAP)
                norm = len(texts[i]) / avg if avg > 0 else 0.0
                scores[i] += factor * tf * (K1 + 1) / (tf + K1 * (1 - PASSAGE_B + PASSAGE_B * norm))
                hit_terms[i].append(keyword.term)
    return scores, hit_terms


def window_tf(body: str, term: str, window: int = PASSAGE_CHARS) -> int:
    """The most occurrences of `term` (a match key) inside any `window`-character stretch of the body."""
    positions = key_positions(body, term)
    best = 0
    lo = 0
    for hi, p in enumerate(positions):
        while p + len(term) - positions[lo] > window:
            lo += 1
        best = max(best, hi - lo + 1)
    return best
