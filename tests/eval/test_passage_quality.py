"""knit_ask quotes the labelled answer passage at least as often as dsh-kb-lite's method, within its budget."""

from __future__ import annotations

from .passage_eval import MAX_CHARS, evaluate


def test_knit_ask_finds_the_answer_passage_and_keeps_its_budget():
    results = evaluate()
    knit, peer, bm25s = results["knit"], results["kb-lite"], results["bm25s"]
    assert knit["questions"] >= 40
    assert knit["recall"]["all"] >= 0.9, results
    assert knit["recall"]["all"] >= peer["recall"]["all"] and knit["recall"]["all"] >= bm25s["recall"]["all"] - 0.02
    assert knit["budget_max"] <= MAX_CHARS
