"""Query-side keyword extraction from the conversation window (knit-engine.md §2.1, §2.3)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from ..text.spelling import fold_spelling
from ..text.stopwords import CN_EDGE_STOP, CN_STOP_BIGRAMS, CN_STOP_CHARS, EN_STOP
from ..text.tokens import cjk_run, collation_key, is_latin_term, latin_query_terms, match_key

KEYWORD_LIMIT = 30
MAX_SPANS_PER_TERM = 8
RECENCY_WEIGHTS = (3, 2)  # then 1 for every older message


@dataclass(frozen=True)
class Span:
    text: str  # the whole message the term came from, original case
    start: int
    end: int


@dataclass
class Keyword:
    term: str
    weight: float  # the extraction score: weighted occurrences x len(term)^2
    spans: list[Span] = field(default_factory=list)
    match: str = ""  # the index key the documents are searched for (text.match_key: Latin words stemmed)

    def __post_init__(self) -> None:
        if not self.match:
            self.match = match_key(self.term)


LATIN_WORD_WEIGHT = 9


def size_weight(term: str) -> int:
    """How much a term's size weighs in its score: a CJK n-gram by its length squared (a trigram is a more
    specific match than the bigrams inside it); a Latin word by a constant, the weight of a CJK trigram,
    because IDF already tells rare words from common ones and a long word is not a better one
    ("theoretically" would otherwise weigh 169 to "layer"'s 25)."""
    return LATIN_WORD_WEIGHT if is_latin_term(term) else len(term) ** 2


MIN_STEM = 4


def stem(term: str) -> str:
    """Strip one common English inflection, after folding a British spelling into the American one
    (`text.spelling`); the stem is a prefix of the (folded) term (`searched` -> `search`, `retries` -> `retr`,
    `colours` -> `color`).

    The ranking no longer matches with it (documents are matched by words through `text.latin_key`, Snowball
    stems, which do not fold: that would change the keys of every index already built); it stays for callers that
    match by prefix, such as memory search. CJK is untouched.
    """
    if not is_latin_term(term):
        return term
    term = fold_spelling(term)
    if len(term) <= MIN_STEM:
        return term
    for suffix in ("ies", "ing", "ed"):
        if term.endswith(suffix) and len(term) - len(suffix) >= MIN_STEM:
            return term[: -len(suffix)]
    if (term.endswith("es") and term[-3] in "sxz" or term.endswith(("ches", "shes"))) and len(term) - 2 >= MIN_STEM:
        return term[:-2]
    if term.endswith("s") and not term.endswith(("ss", "us", "is")) and len(term) - 1 >= MIN_STEM:
        return term[:-1]
    return term


def recency_weight(index: int) -> int:
    return RECENCY_WEIGHTS[index] if index < len(RECENCY_WEIGHTS) else 1


def candidate_spans(text: str) -> list[tuple[str, int, int]]:
    """Every candidate term of one message with its position: Latin tokens first, then CJK 2- and 3-grams."""
    out: list[tuple[str, int, int]] = []
    for term, start, end in latin_query_terms(text):
        if term not in EN_STOP:
            out.append((term, start, end))
    # (An ASCII message has no CJK run: its pattern is not even compiled.)
    for match in () if text.isascii() else cjk_run().finditer(text):
        run, base = match.group(0), match.start()
        if len(run) < 2:
            continue
        for size in (2, 3):
            for i in range(len(run) - size + 1):
                gram = run[i : i + size]
                if size == 2 and gram in CN_STOP_BIGRAMS:
                    continue
                if all(ch in CN_STOP_CHARS for ch in gram):
                    continue
                out.append((gram, base + i, base + i + size))
    return out


def extract_keywords(texts_newest_first: list[str], limit: int = KEYWORD_LIMIT) -> list[Keyword]:
    seen: dict[str, int] = {}
    weighted: dict[str, int] = {}
    spans: dict[str, list[Span]] = {}
    for index, text in enumerate(texts_newest_first):
        w = recency_weight(index)
        for term, start, end in candidate_spans(text):
            seen[term] = seen.get(term, 0) + 1
            weighted[term] = weighted.get(term, 0) + w
            bucket = spans.setdefault(term, [])
            if len(bucket) < MAX_SPANS_PER_TERM:
                bucket.append(Span(text, start, end))

    scored: list[Keyword] = []
    for term, count in seen.items():
        if not is_latin_term(term):
            if term[0] in CN_EDGE_STOP or term[-1] in CN_EDGE_STOP:
                continue
            if count < 2 and weighted[term] < 3:
                continue
        scored.append(Keyword(term, weighted[term] * size_weight(term), spans[term]))
    # Equal weights: the longer term first (a Latin word's length no longer weighs, but still orders the pick).
    scored.sort(key=lambda k: (-k.weight, -len(k.term), collation_key(k.term)))
    return KeywordList(_de_overlap(scored, limit), scored, limit)


class KeywordList(list):
    """The picked keywords, remembering every scored candidate so the choice can be redone against an index."""

    def __init__(self, picked: list[Keyword], candidates: list[Keyword], limit: int) -> None:
        super().__init__(picked)
        self.candidates = candidates
        self.limit = limit


def _overlaps(keyword: Keyword, picked: list[Keyword]) -> bool:
    """CJK grams overlap by containment (a trigram swallows its bigrams). Latin terms are matched as words, so
    they overlap only when they are the same word: `searching` after `searched`, not `time` after `mtime`."""
    if is_latin_term(keyword.term):
        return any(keyword.match == p.match for p in picked)
    return any(keyword.term in p.term or p.term in keyword.term for p in picked if not is_latin_term(p.term))


def _de_overlap(scored: list[Keyword], limit: int, picked: list[Keyword] | None = None) -> list[Keyword]:
    """Greedy de-overlap: walk by score, skip a term that contains or is contained in one already picked."""
    picked = [] if picked is None else picked
    for keyword in scored:
        if len(picked) >= limit:
            break
        if not _overlaps(keyword, picked):
            picked.append(keyword)
    return picked


def choose_keywords(keywords: list[Keyword], present: Callable[[str], bool]) -> list[Keyword]:
    """Redo the de-overlap knowing which candidates the documents contain: present candidates are picked
    first (by score), absent ones only fill what is left. So a CJK trigram that straddles two words and occurs
    nowhere can no longer swallow the bigrams inside it, while a present trigram still outranks its bigrams.
    A list without candidates (built by hand) is returned as it is; with nothing present, the choice is the
    index-blind one (and the ranking stays in relevance mode with every score 0, as the reference does)."""
    candidates = getattr(keywords, "candidates", None)
    if candidates is None:
        return keywords
    limit = getattr(keywords, "limit", KEYWORD_LIMIT)
    found = [k for k in candidates if present(k.match)]
    if not found:
        return keywords
    picked = _de_overlap(found, limit)
    taken = {id(k) for k in picked}
    return _de_overlap([k for k in candidates if id(k) not in taken], limit, picked)


def query_keywords(query: str) -> list[Keyword]:
    """An explicit query is one newest message (weight 3)."""
    return extract_keywords([query]) if query.strip() else []
