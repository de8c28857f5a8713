"""The fuzzy layer: near-misses in the workspace's vocabulary for a query word that matches nothing.

A Latin word of 5+ letters looks for vocabulary words within edit distance 1 (2 from 8 letters on), found
through the index's trigram table and checked with an optimal-string-alignment distance (a swapped pair is
one edit). A CJK gram looks for vocabulary grams of the same length that differ in exactly one character. Only
specific neighbours are used (a gram whose wildcard matches many grams is ambiguous and gives nothing).

The ranking adds neighbours at a reduced weight and never ranks a document that only has fuzzy hits above a
document with a real hit; every fuzzy hit is labelled `fuzzy: attachment ← attachmnet`.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Container, Mapping, Sequence
from dataclasses import dataclass
from typing import Protocol, cast

from ..text.tokens import LATIN_DOC_RUN, WORD_PART, is_cjk_char, latin_key

MIN_FUZZY_LATIN = 5
MAX_NEIGHBOURS = 2
MAX_CJK_CHOICES = 3  # more vocabulary grams than this behind one wildcard: too ambiguous to guess
MAX_TRIGRAM_LIST = 50_000  # a trigram shared by more vocabulary words than this is too common to vote


@dataclass(frozen=True)
class Neighbour:
    typed: str  # the query term as the user wrote it (lowercased)
    key: str  # the vocabulary key it is matched by
    shown: str  # a word of the documents with that key, for the label

    @property
    def label(self) -> str:
        return f"fuzzy: {self.shown} ← {self.typed}"


def osa_distance(a: str, b: str, limit: int) -> int:
    """Optimal string alignment distance (Levenshtein plus adjacent swaps), or limit + 1 once it exceeds it."""
    if abs(len(a) - len(b)) > limit:
        return limit + 1
    prev2: list[int] = []
    prev = list(range(len(b) + 1))
    for i in range(1, len(a) + 1):
        cur = [i] + [0] * len(b)
        for j in range(1, len(b) + 1):
            cost = a[i - 1] != b[j - 1]
            cur[j] = min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + cost)
            if i > 1 and j > 1 and a[i - 1] == b[j - 2] and a[i - 2] == b[j - 1]:
                cur[j] = min(cur[j], prev2[j - 2] + 1)
        if min(cur) > limit:
            return limit + 1
        prev2, prev = prev, cur
    return prev[-1]


# Endings the Snowball stemmer removes: the vocabulary holds stems (`attach` for attachment), so a typed word
# is also read as "a near-stem plus a near-ending".
ENDINGS = (
    "", "e", "s", "es", "ed", "er", "ers", "ing", "ings", "ly", "y", "al", "ic", "ment", "ments", "ness", "ion",
    "ions", "ation", "ations", "ity", "ive", "able", "ible", "ance", "ence", "ism", "ist", "ize", "ise", "ful",
    "ous",
)


def stem_split_distance(typed: str, key: str, limit: int) -> int:
    """The fewest edits turning `typed` into `key` plus one of ENDINGS (limit + 1 when more than limit)."""
    best = limit + 1
    for j in range(max(1, len(key) - limit), min(len(typed), len(key) + limit) + 1):
        head = osa_distance(typed[:j], key, limit)
        if head > limit:
            continue
        rest = typed[j:]
        tail = min(osa_distance(rest, ending, limit - head) for ending in ENDINGS)
        best = min(best, head + tail)
    return best


LETTERS = "abcdefghijklmnopqrstuvwxyz"


def edits1(word: str) -> set[str]:
    """The word and every string one deletion, swap, substitution or insertion away from it."""
    splits = [(word[:i], word[i:]) for i in range(len(word) + 1)]
    out = {word}
    out.update(a + b[1:] for a, b in splits if b)
    out.update(a + b[1] + b[0] + b[2:] for a, b in splits if len(b) > 1)
    out.update(a + c + b[1:] for a, b in splits if b for c in LETTERS)
    out.update(a + c + b for a, b in splits for c in LETTERS)
    return out


def max_edits(term: str) -> int:
    return 2 if len(term) >= 8 else 1


class Vocabulary(Protocol):
    """What the fuzzy layer reads of a vocabulary: its keys, a membership test, and each trigram's key ids (the
    search index, or recall's vocabulary of past conversations)."""

    @property
    def tokens(self) -> Sequence[str]: ...

    @property
    def vocab(self) -> Container[str]: ...

    @property
    def trigrams(self) -> Mapping[str, Sequence[int]]: ...


class GramVocabulary(Vocabulary, Protocol):
    """A vocabulary that also finds CJK grams by a one-character wildcard (the search index)."""

    def cjk_wildcard(self, pattern: str) -> list[str]: ...


def latin_candidates(index: Vocabulary, term: str, usable: Callable[[str], bool]) -> list[tuple[int, str]]:
    """(distance, key) of vocabulary keys near `term` that `usable(key)` accepts, nearest first."""
    key = latin_key(term)
    limit = max_edits(term)
    votes: Counter = Counter()
    for i in range(len(key) - 2):
        ids = index.trigrams.get(key[i : i + 3])
        if ids is None or len(ids) > MAX_TRIGRAM_LIST:
            continue
        votes.update(ids)
    tokens = index.tokens
    pool = {tokens[tid] for tid in votes}
    # A swapped pair can leave a short word no trigram in common with its key, so also every vocabulary key one
    # edit away from the typed word or from its first letters (the vocabulary holds stems): a few thousand
    # dictionary look-ups, no table of its own.
    vocab = index.vocab
    for j in range(max(3, len(term) - 4), len(term) + 1):
        for variant in edits1(term[:j]):
            if variant in vocab:
                pool.add(variant)
    found = []
    for cand in sorted(pool):
        if cand == key or len(cand) < 3 or len(cand) > len(term) + limit:
            continue
        d = min(osa_distance(key, cand, limit), stem_split_distance(term, cand, limit))
        if d <= limit and usable(cand):
            found.append((d, cand))
    found.sort()
    return found


def cjk_candidates(index: GramVocabulary, gram: str, usable: Callable[[str], bool]) -> list[str]:
    """Vocabulary grams of the same length as `gram` that differ from it in exactly one character."""
    found: set[str] = set()
    for i in range(len(gram)):
        choices = [g for g in index.cjk_wildcard(gram[:i] + "?" + gram[i + 1 :]) if g != gram and usable(g)]
        if 0 < len(choices) <= MAX_CJK_CHOICES:
            found.update(choices)
    return sorted(found)


def neighbours(index: Vocabulary, term: str, usable: Callable[[str], bool]) -> list[str]:
    """Up to MAX_NEIGHBOURS vocabulary keys standing in for a query term that matched nothing."""
    if not term:
        return []
    if is_cjk_char(term[0]):
        if len(term) < 2:
            return []
        return cjk_candidates(cast(GramVocabulary, index), term, usable)[:MAX_NEIGHBOURS]  # CJK: the search index
    if len(term) < MIN_FUZZY_LATIN or not term.isalpha():
        return []
    found = latin_candidates(index, term, usable)
    if not found:
        return []
    best = found[0][0]
    return [key for d, key in found if d == best][:MAX_NEIGHBOURS]


def surface_word(texts: tuple[str, ...], key: str) -> str:
    """A word of `texts` that the index keys as `key` (lowercased), for labels; the key itself if none."""
    if is_cjk_char(key[0]):
        return key
    for text in texts:
        for match in LATIN_DOC_RUN.finditer(text):
            run = match.group(0)
            if latin_key(run) == key:
                return run.lower()
            part: str
            for part in WORD_PART.findall(run):
                if latin_key(part) == key:
                    return part.lower()
    return key

