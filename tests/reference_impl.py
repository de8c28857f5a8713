"""A direct, slow transcription of the scoring (knit-engine.md §4 with the word matching README describes):
words and word-parts counted on the text itself, no index. Tests compare the indexed engine with it; it is
never used by the product. The naive baseline keeps the reference's substring counting, frozen."""

from __future__ import annotations

import math
import re

from knit_desktop.core.rank.ranking import FIELD_B, K1
from knit_desktop.core.rank.ranking import FIELD_WEIGHTS as FIELD_W
from knit_desktop.core.text.tokens import latin_key


def substring_count(term: str, text: str) -> int:
    n, pos = 0, text.find(term)
    while pos >= 0:
        n += 1
        pos = text.find(term, pos + len(term))
    return n


_RUN = re.compile(r"[A-Za-z0-9_]+")
_PART = re.compile(r"[A-Z]+(?![a-z])|[A-Z]?[a-z]+|[0-9]+")
_CJK = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]")


def count(term: str, text: str) -> int:
    """Occurrences of a query term in a field as written: a CJK gram as a substring; a Latin term as a word
    (the whole run) or as one of the run's camelCase / snake_case / digit parts, compared after stemming."""
    if _CJK.match(term):
        return substring_count(term, text)
    key = latin_key(term)
    n = 0
    for run in _RUN.findall(text):
        whole = latin_key(run)
        n += whole == key and len(whole) >= 2
        parts = _PART.findall(run)
        if len(parts) > 1:
            n += sum(1 for p in parts if len(p) >= 2 and latin_key(p) == key != whole)
    return n


def length(text: str) -> int:
    return len(_RUN.findall(text)) + len(_CJK.findall(text))


def reference_raw(
    fields_per_doc: list[tuple[str, str, str]], keywords: list[tuple[str, float]], count=None, length=None
) -> list[float]:
    """BM25F by direct counting; `count`/`length` default to words (as the engine), or pass
    `substring_count`/`len` over lowercased fields for the reference plugin's own scan."""
    count = count or globals()["count"]
    length = length or globals()["length"]
    n = len(fields_per_doc)
    avg = [sum(length(f[i]) for f in fields_per_doc) / n for i in range(3)]
    max_w = max(w for _, w in keywords)
    raw = [0.0] * n
    for term, weight in keywords:
        tfs = [[count(term, f[i]) for i in range(3)] for f in fields_per_doc]
        df = sum(1 for t in tfs if any(t))
        if not df:
            continue
        idf = math.log(1 + (n - df + 0.5) / (df + 0.5))
        qw = (weight / max_w) ** 0.25
        for d, t in enumerate(tfs):
            s = 0.0
            for i in range(3):
                if t[i]:
                    tf = min(t[i], 20)
                    norm = length(fields_per_doc[d][i]) / avg[i] if avg[i] > 0 else 0
                    s += FIELD_W[i] * tf * (K1 + 1) / (tf + K1 * (1 - FIELD_B[i] + FIELD_B[i] * norm))
            raw[d] += qw * idf * s
    return raw


def naive_weighted_hits(fields_per_doc: list[tuple[str, str, str]], keywords: list[tuple[str, float]]) -> list[float]:
    """The frozen legacy baseline (reference §4.1): weighted hit counting, no IDF, no length normalisation."""
    return [
        sum(
            w * (4 * min(substring_count(t, f[0]), 6) + 2 * min(substring_count(t, f[1]), 6) + min(substring_count(t, f[2]), 6))
            for t, w in keywords
        )
        for f in fields_per_doc
    ]


def order_like_the_engine(docs: list, raw: list[float], now_ms: int) -> list[str]:
    """Apply the freshness tweak to raw scores and sort with the engine's tie-breaks; returns rels."""
    week = 7 * 86_400_000
    boosted = [r * (1 + 0.1 * (1 - min(1.0, max(0, now_ms - d.mtime_ms) / week))) for d, r in zip(docs, raw)]
    order = sorted(range(len(docs)), key=lambda i: (-boosted[i], -docs[i].mtime_ms, docs[i].rel))
    return [docs[i].rel for i in order]
