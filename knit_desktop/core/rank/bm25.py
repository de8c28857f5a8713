"""The BM25 parameters and formulas, once: the document ranking (BM25F over fields, `ranking.py`) and the passage
choice inside a document (`passages.py`) score with the same saturation, term-frequency cap, keyword weighting
and idf, so a passage wins for the same reasons its document did."""

from __future__ import annotations

import math

K1 = 1.2
# Title, summary, body. The body already holds the title and summary, so the reference's 4 / 2 / 1 counted a
# title word three times over and let one query word in a title beat a page that discusses all of them; 2 / 1 / 1
# with a stronger length normalisation of the body measured best on the public eval (tests/eval/public_eval.py)
# and keeps the trap eval where it was (README, "How the ranking works").
FIELD_B = (0.3, 0.5, 0.9)
FIELD_WEIGHTS = (2.0, 1.0, 1.0)
# Passages are pieces of one body of similar length: the classic normalisation.
PASSAGE_B = 0.75
TF_CAP = 20  # a keyword repeated more often than this says nothing more
QW_EXPONENT = 0.25  # how much a keyword's own weight (from the conversation) counts, flattened


def idf(pool_size: int, df: int) -> float:
    """BM25's idf with the +1 that keeps it positive for a term in most documents."""
    return math.log(1 + (pool_size - df + 0.5) / (df + 0.5))


def keyword_factor(weight: float, max_weight: float, pool_size: int, df: int) -> float:
    """What one hit of a keyword is worth before saturation: its flattened weight times its idf."""
    factor: float = (weight / max_weight) ** QW_EXPONENT * idf(pool_size, df)
    return factor
