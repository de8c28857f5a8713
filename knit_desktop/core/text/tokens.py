"""Character classes, tokenisers and small string helpers shared by the query and document sides."""

from __future__ import annotations

import re
import threading
from collections import Counter
from collections.abc import Iterator, Mapping
from functools import cache, lru_cache
from typing import TypeVar

import Stemmer

# The query side: maximal runs of letters, digits and underscores, cut into 30-character pieces. A piece is a
# query term when it is a letter followed by 2+ more (the reference's rule), a number or digit-led token of
# 2+ characters (`170`, `2010`, `40m`, `3d`), or a two-letter acronym written with a capital (`UI`, `Qt`).
LATIN_QUERY_RUN = re.compile(r"[A-Za-z0-9_]+")
LATIN_PIECE = 30
# The most text the ranker reads of a conversation (its window stops once its messages reach this many
# characters) and of a query, which is read the same way.
WINDOW_CHARS = 6000
# The document side: maximal runs of letters, digits and underscores, each indexed as one word and as its
# word-parts (camelCase, snake_case and letter/digit boundaries split: mtimeMs -> mtime, ms).
LATIN_DOC_RUN = re.compile(r"[A-Za-z0-9_]+")
WORD_PART = re.compile(r"[A-Z]+(?![a-z])|[A-Z]?[a-z]+|[0-9]+")
# CJK ideographs: the unified block, Extension A, the compatibility ideographs and the supplementary-plane
# extensions, so a rare character does not split a run in two.
CJK_CLASS = "\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\U00020000-\U0003134f"
# Their patterns are compiled on first use: each takes about 1.3 ms to compile (the class's 28,000 code points
# are set one by one), which every command paid on import, and a command on ASCII text never uses them.


@cache
def cjk_run() -> re.Pattern[str]:
    """Maximal runs of CJK ideographs."""
    return re.compile(f"[{CJK_CLASS}]+")


# Every overlapping pair and triple of CJK characters, found by the regex engine at each position (an empty match
# with a capturing look-ahead): no Python loop per character or per run.
@cache
def cjk_pair() -> re.Pattern[str]:
    return re.compile(f"(?=([{CJK_CLASS}]{{2}}))")


@cache
def cjk_triple() -> re.Pattern[str]:
    return re.compile(f"(?=([{CJK_CLASS}]{{3}}))")


WHITESPACE = re.compile(r"\s+")


def is_cjk_char(ch: str) -> bool:
    return (
        "\u4e00" <= ch <= "\u9fff"
        or "\u3400" <= ch <= "\u4dbf"
        or "\uf900" <= ch <= "\ufaff"
        or "\U00020000" <= ch <= "\U0003134f"
    )


def is_latin_term(term: str) -> bool:
    """A term of the Latin tokeniser: lowercase letters, digits and `_`, starting with a letter or a digit."""
    return bool(term) and ("a" <= term[0] <= "z" or "0" <= term[0] <= "9")


# Two-letter words that are not acronyms even when a sentence starts with them.
TWO_LETTER_STOP = frozenset(
    "am an as at be by do go he if in is it me my no of oh ok on or so to up us we".split()
)


def _is_query_piece(piece: str, lowered: str) -> bool:
    if piece[0].isdigit():
        return len(piece) >= 2
    if len(piece) >= 3:
        return True
    return len(piece) == 2 and not piece.islower() and lowered not in TWO_LETTER_STOP


def latin_query_terms(text: str) -> list[tuple[str, int, int]]:
    """The Latin query terms of a text, lowercased, with their positions (stop words are the caller's)."""
    out: list[tuple[str, int, int]] = []
    for match in LATIN_QUERY_RUN.finditer(text):
        run, base = match.group(0), match.start()
        for i in range(0, len(run), LATIN_PIECE):
            piece = run[i : i + LATIN_PIECE]
            if i and len(piece) < 3:
                break  # the reference drops a short tail of a long run
            if piece[0] == "_":
                piece = piece.lstrip("_")
                if not piece:
                    continue
            start = base + i + (len(run[i : i + LATIN_PIECE]) - len(piece))
            lowered = piece.lower()
            if _is_query_piece(piece, lowered):
                out.append((lowered, start, start + len(piece)))
    return out


def collapse_whitespace(text: str) -> str:
    return WHITESPACE.sub(" ", text).strip()


def truncate(text: str, limit: int) -> str:
    """Cut to `limit` characters and add an ellipsis, the way summaries and task lines are cut."""
    return text if len(text) <= limit else text[:limit] + "…"


def count_occurrences(needle: str, haystack: str) -> int:
    """Non-overlapping occurrences, found by restarting the search at the end of each match."""
    return haystack.count(needle) if needle else 0


def _char_weight(ch: str) -> tuple[int, int]:
    # A small stand-in for ICU root collation (JavaScript's localeCompare): punctuation, then digits,
    # then Latin letters case-insensitively, then everything else (CJK by code point).
    if ch.isdigit() and ch.isascii():
        return (2, ord(ch))
    if ch.isascii() and ch.isalpha():
        return (3, ord(ch.lower()))
    if ch.isascii():
        return (1, ord(ch))
    return (4, ord(ch))


@lru_cache(maxsize=4096)
def collation_key(text: str) -> tuple:
    """Sort key approximating `a.localeCompare(b)`: primary letters ignore case, lowercase first on ties."""
    primary = tuple(_char_weight(ch) for ch in text)
    tertiary = tuple(0 if not ch.isupper() else 1 for ch in text)
    return (primary, tertiary)


_STEMMERS = threading.local()  # a PyStemmer object is not to be shared between threads


def snowball_stem(term: str) -> str:
    """The Snowball (Porter 2) English stem of a lowercased word, so `flexibility` meets `flexible`, `retries`
    meets `retry` and `stabilize` meets `stability`. Words with digits or underscores, and CJK, are untouched."""
    if len(term) < 3 or not term.isascii() or not term.isalpha():
        return term
    stemmer = getattr(_STEMMERS, "english", None)
    if stemmer is None:
        stemmer = _STEMMERS.english = Stemmer.Stemmer("english")
    stem: str = stemmer.stemWord(term)
    return stem


@lru_cache(maxsize=65536)
def latin_key(word: str) -> str:
    """What a Latin word is matched by: lowercased, without underscores, stemmed (the query and the documents
    go through the same function, so `mtime_ms`, `mtimeMs` and `MTIMEMS` are one word)."""
    return snowball_stem(word.lower().replace("_", ""))


def match_key(term: str) -> str:
    """The index key a query term looks up: the Latin key, or the CJK gram itself."""
    return term if is_cjk_char(term[0]) else latin_key(term)


@lru_cache(maxsize=262144)
def run_keys(run: str) -> tuple[tuple[str, int], ...]:
    """The keys of one Latin run with their offsets in it: the whole run, then each of its word-parts when it
    has more than one. Keys shorter than 2 characters are not indexed (no query term is that short)."""
    whole = latin_key(run)
    out = [(whole, 0)] if len(whole) >= 2 else []
    if run.isalpha() and (run.islower() or run[1:].islower()):
        return tuple(out)  # one plain word (`cache`, `Cache`): no parts
    parts = list(WORD_PART.finditer(run))
    if len(parts) > 1:
        for part in parts:
            if part.end() - part.start() >= 2:
                key = latin_key(part.group(0))
                if key != whole:
                    out.append((key, part.start()))
    return tuple(out)


def latin_words(text: str) -> Iterator[tuple[str, int]]:
    """Every Latin word of a text as (key, start): each run once, then each of its word-parts."""
    for match in LATIN_DOC_RUN.finditer(text):
        base = match.start()
        for key, offset in run_keys(match.group(0)):
            yield key, base + offset


class _RunKeyNames(dict[str, tuple[str, ...]]):
    """The keys of `run_keys` without their offsets, by run: what counting a run's occurrences needs. A plain
    dict looked up from C (`__getitem__` through map), computed on a miss; emptied when it grows past
    RUN_KEY_NAMES_LIMIT (a worker sees every spelling of every word of a large workspace)."""

    def __missing__(self, run: str) -> tuple[str, ...]:
        if len(self) >= RUN_KEY_NAMES_LIMIT:
            self.clear()
        names = self[run] = tuple(key for key, _ in run_keys(run))
        return names


RUN_KEY_NAMES_LIMIT = 262144
# Every byte that LATIN_DOC_RUN does not match, as a space.
_NOT_WORD_TO_SPACE = bytes(b if chr(b).isascii() and (chr(b).isalnum() or chr(b) == "_") else 32 for b in range(256))
_RUN_KEY_NAMES = _RunKeyNames()
RUN_KEY_NAMES: Mapping[str, tuple[str, ...]] = _RUN_KEY_NAMES  # (read only elsewhere)


def run_key_names(run: str) -> tuple[str, ...]:
    """The keys of `run_keys` without their offsets: what counting a run's occurrences needs."""
    return _RUN_KEY_NAMES[run]


def field_counts(text: str) -> tuple[dict[str, int], int]:
    """The index keys of one field (original case: camelCase boundaries need it) with their counts, and the
    field's length in words: Latin runs plus CJK characters (a character is about a word's worth of meaning, so
    an English page and its Chinese translation come out about the same length).

    One pass over the text for the Latin runs, counted by one Counter fed from C, then the keys of each distinct
    run (cached by run) given its count. The keys come out in the order they first occur, as the ids of new
    vocabulary entries must."""
    return keyed_counts(text, _RUN_KEY_NAMES)


Key = TypeVar("Key", str, int)  # an index key as its string, or a number standing for it


def keyed_counts(text: str, run_keys_of: Mapping[str, tuple[Key, ...]],
                 gram_key: Mapping[str, Key] | None = None) -> tuple[dict[Key, int], int]:
    """`field_counts` with each key as `run_keys_of` gives a run's keys and `gram_key` a CJK gram's (None: the
    gram itself): the keys' strings (`_RUN_KEY_NAMES`), or numbers standing for them (a build's worker numbers
    the keys as it counts them: see index/preparing.py). Keys stand one for one for the strings, so they come
    out in the same order with the same counts."""
    # The runs are what is left between the bytes that are not word characters, in the text's UTF-8 form (a third
    # faster than the pattern, which finds the same runs): a character outside ASCII is bytes of 0x80 and above
    # there, never a word character, so it cuts runs as the pattern does. (surrogatepass: a lone surrogate is
    # three such bytes too, where strict encoding would raise.)
    runs = text.encode("utf-8", "surrogatepass").translate(_NOT_WORD_TO_SPACE).decode("ascii").split()
    length = len(runs)
    # Each distinct run's keys are looked up once, with its count: a page repeats its words (6 runs for each
    # distinct one in generated English), and a lookup per run in the large cache of run keys cost more than
    # this loop per distinct run.
    counts: dict[Key, int] = {}
    count = counts.get
    for run, n in Counter(runs).items():
        for key in run_keys_of[run]:
            counts[key] = count(key, 0) + n
    if not text.isascii():  # (checked at C speed; most English text has no CJK run to look for)
        cjk_runs = cjk_run().findall(text)
        length += sum(map(len, cjk_runs))
        # The pairs and triples of each run, cut from the runs: the look-ahead patterns (`cjk_pair`) found the
        # same grams trying every position of the whole text, twice the time on a Chinese page.
        # (Grams are CJK, Latin keys ASCII: no key is in both. dict.update: Counter's own would add in Python.)
        for grams in ([run[i : i + 2] for run in cjk_runs for i in range(len(run) - 1)],
                      [run[i : i + 3] for run in cjk_runs for i in range(len(run) - 2)]):
            counted = Counter(grams)
            if gram_key is None:
                dict.update(counts, counted)
            else:
                dict.update(counts, zip(map(gram_key.__getitem__, counted), counted.values()))
    return counts, length


def key_positions(text: str, key: str) -> list[int]:
    """Where `key` (a match key) occurs in `text`: word or word-part starts for Latin keys, non-overlapping
    substring starts for CJK grams."""
    if not key:
        return []
    if is_cjk_char(key[0]):
        out, pos = [], text.find(key)
        while pos >= 0:
            out.append(pos)
            pos = text.find(key, pos + len(key))
        return out
    runs = _runs_by_key(text).get(key)
    if not runs:
        return []
    # A match preceded by a word character is inside a longer run, and so is every match that could start within
    # it (runs are word characters only): skipping it changes nothing that follows. Checked here rather than by a
    # look-behind in the pattern, which kept the regular expression engine from skipping ahead to the runs' first
    # characters: a context pack looks up every keyword in the bodies of its two dozen documents, and the scan
    # was 30 ms of a knit_docs call on a conversation at 100,000 documents.
    starts = [m.start() for m in _runs_pattern(tuple(sorted(runs))).finditer(text)]
    starts = [at for at in starts if at == 0 or text[at - 1] not in _WORD_CHARS]
    offsets = {run: [offset for k, offset in run_keys(run) if k == key] for run in runs}
    if all(found == [0] for found in offsets.values()):
        return starts  # the key is each whole run (a plain word, the usual case)
    out = []
    for at in starts:
        run = LATIN_DOC_RUN.match(text, at)
        assert run is not None
        out.extend([at + offset for offset in offsets[run.group(0)]])
    return out


def _runs_by_key(text: str) -> dict[str, list[str]]:
    if len(text) <= _CACHED_TEXT_CHARS:
        return _passage_runs_by_key(text)
    cached = _LAST_LONG_TEXT[0]  # one read: another thread may replace it meanwhile
    if cached[0] is not text:  # a whole body, searched for each of its hits in turn: kept until the next one
        cached = _LAST_LONG_TEXT[0] = (text, _scan_runs_by_key(text))
    return cached[1]


# Passages are at most 1,200 characters: those are cached by text, many at a time; a long body only while it
# is the last one asked about, so the cache never holds more than a few megabytes.
_CACHED_TEXT_CHARS = 4096
_LAST_LONG_TEXT: list[tuple[str | None, dict[str, list[str]]]] = [(None, {})]


def _scan_runs_by_key(text: str) -> dict[str, list[str]]:
    """Which distinct Latin runs of a text carry each key. Distinct runs are found in C (findall, set), so a
    text costs Python work per distinct word, not per word; most keys of a query are in no run at all."""
    out: dict[str, list[str]] = {}
    for run in set(LATIN_DOC_RUN.findall(text)):
        for k, _ in run_keys(run):
            found = out.get(k)
            if found is None:
                out[k] = [run]
            elif found[-1] != run:
                found.append(run)
    return out


@lru_cache(maxsize=256)
def _passage_runs_by_key(text: str) -> dict[str, list[str]]:
    # A passage is searched for each keyword of a query in turn; a string caches its hash, so a repeated
    # lookup of the same text is a dictionary probe. 256 passages (about 2 MB of runs) cover a context pack's;
    # 1,024 held 8 MB in a server for little more.
    return _scan_runs_by_key(text)


_WORD_CHARS = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_")  # what LATIN_DOC_RUN takes


@lru_cache(maxsize=1024)
def _runs_pattern(runs: tuple[str, ...]) -> re.Pattern:
    """One of `runs` not followed by a word character (the end of a LATIN_DOC_RUN run; where it starts is checked
    by the caller)."""
    return re.compile(r"(?:" + "|".join(runs) + r")(?![A-Za-z0-9_])")


def cjk_grams(text: str) -> list[str]:
    """Every 2-gram and 3-gram inside each maximal CJK run (the document side of CJK matching): all the pairs,
    then all the triples, in text order."""
    if text.isascii():  # checked at C speed; most English text has no CJK run to look for
        return []
    return cjk_pair().findall(text) + cjk_triple().findall(text)


# C0 controls but tab and newline, DEL, C1 controls, and the bidirectional overrides that can make a terminal
# show text in another order than it is stored.
_CONTROL_ESCAPES = {
    code: f"\\x{code:02x}" for code in (*range(0x00, 0x09), *range(0x0B, 0x20), *range(0x7F, 0xA0))
}
_CONTROL_ESCAPES.update({code: f"\\u{code:04x}" for code in (*range(0x202A, 0x202F), *range(0x2066, 0x206A))})


def escape_controls(text: str) -> str:
    """`text` safe to print to a terminal: control characters (ESC, BEL, CR, …) shown as `\\x1b`-style escapes."""
    return text.translate(_CONTROL_ESCAPES)
