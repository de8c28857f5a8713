"""Passages that can be cited: a document's passages with their heading path and line range (or page), ranked
across many documents with the engine's passage BM25 (passages.score_texts) and the query's keywords.

The documents come from the document ranking (BM25F over title, summary and body); only the best of them are cut
into passages, so a query costs the passages of a few dozen documents, not of the whole library.
"""

from __future__ import annotations

from array import array
from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import dataclass

from ..index.documents import Document
from .keywords import Keyword
from .passages import HEADING_KINDS, Lines, chunk_document, locate, score_texts

# How much a document's own rank (0-1 of the best document of its source) weighs on its passages' scores: the
# document ranking (BM25F over title, summary and body) is the stronger signal. On the labelled public questions
# (tests/eval/passage_eval.py) recall@5 was 57/62 at 0.25, 58 at 0.5, 60 at 0.75 and still 60 at 0.9 and 1.0.
DOC_PRIOR = 0.75


@dataclass(frozen=True)
class CitedPassage:
    owner: object  # whose document (a library folder, the workspace): the caller's
    doc: Document
    start_offset: int
    end_offset: int
    heading: tuple[str, ...]  # the headings above the passage, outermost first
    start_line: int
    end_line: int
    page: int | None
    score: float
    terms: tuple[str, ...]

    @property
    def text(self) -> str:
        """The passage verbatim: the document's text at the cited lines (or on the cited page)."""
        return self.doc.body[self.start_offset : self.end_offset]

    def location(self) -> str:
        if self.page is not None:
            return f"page {self.page}, lines {self.start_line}–{self.end_line}"
        return f"lines {self.start_line}–{self.end_line}"


def citation_text(path: str, match: dict | None = None, heading: tuple[str, ...] | list[str] = ()) -> str:
    """A citation a person pastes: `path — Heading › Sub — lines 12–30` (`page 3, lines 1–9` for paged documents);
    the path alone when there is no matched passage."""
    parts = [path]
    if heading:
        parts.append(" › ".join(heading))
    if match:
        lines = f"lines {match['start_line']}–{match['end_line']}"
        parts.append(f"page {match['page']}, {lines}" if match.get("page") else lines)
    return " — ".join(parts)


def atx_heading(line: str) -> tuple[int, str] | None:
    """(level, text) of an ATX heading line (`## Title`, optionally closed by `#`s), else None. String work, not a
    regular expression: a pattern for the closing run backtracks quadratically on long runs of spaces."""
    indent = len(line) - len(line.lstrip(" "))
    rest = line[indent:]
    level = len(rest) - len(rest.lstrip("#"))
    if indent > 3 or not 1 <= level <= 6 or rest[level : level + 1] not in (" ", "\t"):
        return None
    content = rest[level:].strip(" \t")
    unclosed = content.rstrip("#")
    if unclosed != content and (not unclosed or unclosed[-1] in " \t"):
        content = unclosed.rstrip(" \t")
    return level, content


def headings(doc: Document) -> list[tuple[int, int, str]]:
    """(offset, level, text) of every heading line outside code fences, for the kinds cut at headings."""
    if doc.kind not in HEADING_KINDS:
        return []
    out: list[tuple[int, int, str]] = []
    in_fence = False
    pos = 0
    body = doc.body
    for line in body.splitlines(keepends=True):
        stripped = line.strip()
        if stripped.startswith(("```", "~~~")):
            in_fence = not in_fence
        elif not in_fence and stripped.startswith("#"):
            found = atx_heading(line.rstrip("\r\n"))
            if found and found[1]:
                out.append((pos, found[0], found[1]))
        pos += len(line)
    return out


def heading_path(marks: list[tuple[int, int, str]], offset: int) -> tuple[str, ...]:
    """The headings in force at `offset` (a passage starting on a heading line is under that heading)."""
    stack: list[tuple[int, str]] = []
    for at, level, text in marks:
        if at > offset:
            break
        while stack and stack[-1][0] >= level:
            stack.pop()
        stack.append((level, text))
    return tuple(text for _, text in stack)


def _first_content(body: str, start: int, end: int) -> int:
    """Where the passage's first line that is neither blank nor a heading starts (its heading path is the one in
    force there: a passage opening with `# Manual` and `## Pumps` is about pumps); `start` if it has none."""
    pos = start
    while pos < end:
        nl = body.find("\n", pos, end)
        line = body[pos : nl if nl >= 0 else end].strip()
        if line and not atx_heading(line):
            return pos
        if nl < 0:
            break
        pos = nl + 1
    return start


SPAN_CACHE_DOCS = 50_000
# Offsets as flat unsigned arrays (8 bytes a passage): a 50,000-document library's spans take ~4 MB.
_spans: OrderedDict[tuple[str, str], array] = OrderedDict()


def _cached_spans(doc: Document) -> array:
    key = (doc.kind, doc.content_hash)
    flat = _spans.get(key)
    if flat is None:
        flat = array("I", (offset for span in chunk_document(doc, limit=None) for offset in span))
        _spans[key] = flat
        if len(_spans) > SPAN_CACHE_DOCS:
            _spans.popitem(last=False)
    else:
        _spans.move_to_end(key)
    return flat


def passage_spans(doc: Document) -> list[tuple[int, int]]:
    """chunk_document(doc, limit=None), remembered by content (the content hash of the bytes the body came from and
    the kind): a library's best documents come back query after query, and cutting them is a third of a query's
    cost."""
    if not doc.content_hash:
        return chunk_document(doc, limit=None)
    flat = _cached_spans(doc)
    return list(zip(flat[0::2], flat[1::2]))


def passage_count(doc: Document) -> int:
    return len(_cached_spans(doc)) // 2 if doc.content_hash else len(chunk_document(doc, limit=None))


def cite_document(owner: object, doc: Document) -> list[CitedPassage]:
    """Every passage of one document with its citation (score 0)."""
    return _cite(owner, doc, chunk_document(doc, limit=None), None)


def _cite(owner: object, doc: Document, spans: list[tuple[int, int]],
          scored: list[tuple[float, list[str]]] | None) -> list[CitedPassage]:
    lines = Lines(doc.body)
    marks = headings(doc)
    out = []
    for i, (s, e) in enumerate(spans):
        first, last, page = locate(doc, lines, s, e)
        score, terms = scored[i] if scored is not None else (0.0, ())
        trail = heading_path(marks, _first_content(doc.body, s, e)) if marks else ()
        out.append(CitedPassage(owner, doc, s, e, trail, first, last, page, score, tuple(terms)))
    return out


def rank_cited(candidates: Sequence[tuple[object, Document, float]], keywords: list[Keyword]) -> list[CitedPassage]:
    """Every passage of the candidate documents that contains a keyword, best first. `candidates`: (owner,
    document, prior 0-1 from the document ranking). IDF is taken over all candidate passages, so passages of
    different documents (and different folders) are scored on one scale."""
    spans: list[tuple[int, Document, float, list[tuple[int, int]]]] = []
    texts: list[str] = []
    for i, (_, doc, prior) in enumerate(candidates):
        chunks = passage_spans(doc)
        spans.append((i, doc, prior, chunks))
        texts.extend(doc.body[s:e] for s, e in chunks)
    scores, terms = score_texts(texts, keywords)
    out: list[CitedPassage] = []
    at = 0
    for i, doc, prior, chunks in spans:
        hits = [(j, k) for j, k in enumerate(range(at, at + len(chunks))) if scores[k] > 0]
        if hits:
            chosen = [chunks[j] for j, _ in hits]
            scored = [(scores[k] * (1 - DOC_PRIOR + DOC_PRIOR * prior), terms[k]) for _, k in hits]
            out.extend(_cite(candidates[i][0], doc, chosen, scored))
        at += len(chunks)
    order = {id(c[1]): n for n, c in enumerate(candidates)}
    out.sort(key=lambda p: (-p.score, order[id(p.doc)], p.start_offset))
    return out
