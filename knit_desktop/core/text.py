"""Character classes, tokenisers and small string helpers shared by the query and document sides."""

from __future__ import annotations

import re
from functools import lru_cache

# The query side: a letter followed by 2-29 letters, digits or underscores, with no word-boundary anchors,
# so a longer run splits into consecutive 30-character pieces.
LATIN_QUERY_TOKEN = re.compile(r"[A-Za-z][A-Za-z0-9_]{2,29}")
# The document side: maximal runs of the characters a query token can contain. Any occurrence of a query
# token in lowercased text lies inside one such run, so "term is a substring of a run" reproduces the
# reference's substring-count semantics (and covers prefix matches such as mtime -> mtimems).
LATIN_DOC_RUN = re.compile(r"[a-z0-9_]{3,}")
CJK_RUN = re.compile(r"[\u4e00-\u9fff]+")
WHITESPACE = re.compile(r"\s+")


def is_cjk_char(ch: str) -> bool:
    return "\u4e00" <= ch <= "\u9fff"


def is_latin_term(term: str) -> bool:
    return bool(term) and "a" <= term[0] <= "z"


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


def latin_doc_runs(lowered: str) -> list[str]:
    """Runs of [a-z0-9_] at least 3 long that contain a letter (only those can contain a query token)."""
    return [run for run in LATIN_DOC_RUN.findall(lowered) if not run.isdigit()]


def cjk_grams(text: str) -> list[str]:
    """Every 2-gram and 3-gram inside each maximal CJK run (the document side of CJK matching)."""
    grams: list[str] = []
    for run in CJK_RUN.findall(text):
        n = len(run)
        if n < 2:
            continue
        grams.extend(run[i : i + 2] for i in range(n - 1))
        grams.extend(run[i : i + 3] for i in range(n - 2))
    return grams


# C0 controls but tab and newline, DEL, C1 controls, and the bidirectional overrides that can make a terminal
# show text in another order than it is stored.
_CONTROL_ESCAPES = {
    code: f"\\x{code:02x}" for code in (*range(0x00, 0x09), *range(0x0B, 0x20), *range(0x7F, 0xA0))
}
_CONTROL_ESCAPES.update({code: f"\\u{code:04x}" for code in (*range(0x202A, 0x202F), *range(0x2066, 0x206A))})


def escape_controls(text: str) -> str:
    """`text` safe to print to a terminal: control characters (ESC, BEL, CR, …) shown as `\\x1b`-style escapes."""
    return text.translate(_CONTROL_ESCAPES)
