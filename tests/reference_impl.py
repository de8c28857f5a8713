"""A direct, slow transcription of the reference scoring (knit-engine.md §4): substring counting on the text
itself, no index. Tests compare the indexed engine with it; it is never used by the product."""

from __future__ import annotations

import math

K1 = 1.2
FIELD_B = (0.3, 0.5, 0.75)
FIELD_W = (4, 2, 1)


def count(term: str, text: str) -> int:
    n, pos = 0, text.find(term)
    while pos >= 0:
        n += 1
        pos = text.find(term, pos + len(term))
    return n


def reference_raw(fields_per_doc: list[tuple[str, str, str]], keywords: list[tuple[str, float]]) -> list[float]:
    n = len(fields_per_doc)
    avg = [sum(len(f[i]) for f in fields_per_doc) / n for i in range(3)]
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
                    norm = len(fields_per_doc[d][i]) / avg[i] if avg[i] > 0 else 0
                    s += FIELD_W[i] * tf * (K1 + 1) / (tf + K1 * (1 - FIELD_B[i] + FIELD_B[i] * norm))
            raw[d] += qw * idf * s
    return raw


def naive_weighted_hits(fields_per_doc: list[tuple[str, str, str]], keywords: list[tuple[str, float]]) -> list[float]:
    """The frozen legacy baseline (reference §4.1): weighted hit counting, no IDF, no length normalisation."""
    return [
        sum(w * (4 * min(count(t, f[0]), 6) + 2 * min(count(t, f[1]), 6) + min(count(t, f[2]), 6)) for t, w in keywords)
        for f in fields_per_doc
    ]


def order_like_the_engine(docs: list, raw: list[float], now_ms: int) -> list[str]:
    """Apply the freshness tweak to raw scores and sort with the engine's tie-breaks; returns rels."""
    week = 7 * 86_400_000
    boosted = [r * (1 + 0.1 * (1 - min(1.0, max(0, now_ms - d.mtime_ms) / week))) for d, r in zip(docs, raw)]
    order = sorted(range(len(docs)), key=lambda i: (-boosted[i], -docs[i].mtime_ms, docs[i].rel))
    return [docs[i].rel for i in order]
