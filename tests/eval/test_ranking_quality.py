"""Ranking quality on a corpus with traps, against a frozen naive baseline computed in the same run."""

from __future__ import annotations

from knit_desktop.core.dsh.conversation import Message
from knit_desktop.core.rank.keywords import size_weight
from knit_desktop.core.workspace import RankInput, Workspace

from ..reference_impl import naive_weighted_hits, order_like_the_engine
from .conftest import EVAL_NOW_MS

MIN_TOP1 = 0.90
MIN_MRR = 0.95
MIN_TOP1_GAIN_OVER_BASELINE = 0.15


def request_for(case: dict) -> RankInput:
    if "query" in case:
        return RankInput.from_query(case["query"])
    return RankInput.from_messages([Message(m["role"], m["text"]) for m in case["messages"]])


def reference_weight(keyword) -> float:
    """The keyword's score as the reference computes it (weighted occurrences x length squared), so the naive
    baseline stays frozen while the engine's own weights change."""
    return keyword.weight / size_weight(keyword.term) * len(keyword.term) ** 2


def naive_order(ws: Workspace, request: RankInput) -> list[str]:
    docs = [d for _, d in ws.index.documents() if not d.is_media]
    raw = naive_weighted_hits([d.field_texts() for d in docs], [(k.term, reference_weight(k)) for k in request.keywords])
    return order_like_the_engine(docs, raw, EVAL_NOW_MS)


def reciprocal_rank(order: list[str], expect: str) -> float:
    return 1 / (order.index(expect) + 1) if expect in order else 0.0


def test_corpus_is_large_and_mixed_enough(eval_workspace, eval_cases):
    ws = Workspace.open(str(eval_workspace))
    assert len(ws.index) >= 30
    assert len(eval_cases["ranking"]) >= 25 and len(eval_cases["context"]) >= 10


def test_ranking_quality_beats_the_naive_baseline(eval_workspace, eval_cases):
    ws = Workspace.open(str(eval_workspace))
    traps = set(eval_cases["traps"])
    engine_rr, naive_rr, failures, trap_wins = [], [], [], []
    for case in eval_cases["ranking"]:
        request = request_for(case)
        order = [r.doc.rel for r in ws.rank(request, now_ms=EVAL_NOW_MS).ranked]
        baseline = naive_order(ws, request)
        engine_rr.append(reciprocal_rank(order, case["expect"]))
        naive_rr.append(reciprocal_rank(baseline, case["expect"]))
        label = case.get("query") or case["messages"][-1]["text"]
        if order[0] != case["expect"]:
            failures.append(f"{label!r}: got {order[0]} (expected at {order.index(case['expect']) + 1})")
        if order[0] in traps:
            trap_wins.append(f"{label!r} -> {order[0]}")
    n = len(engine_rr)
    top1 = sum(1 for rr in engine_rr if rr == 1.0) / n
    mrr = sum(engine_rr) / n
    naive_top1 = sum(1 for rr in naive_rr if rr == 1.0) / n
    naive_mrr = sum(naive_rr) / n
    print(
        f"\nranking eval: {n} cases · engine top-1 {top1:.3f} MRR {mrr:.3f} · "
        f"naive baseline top-1 {naive_top1:.3f} MRR {naive_mrr:.3f} · gain {top1 - naive_top1:+.3f}"
    )
    for failure in failures:
        print("  miss:", failure)
    assert not trap_wins, trap_wins
    assert top1 >= MIN_TOP1, failures
    assert mrr >= MIN_MRR, failures
    assert top1 - naive_top1 >= MIN_TOP1_GAIN_OVER_BASELINE


def test_context_pack_tiers(eval_workspace, eval_cases):
    ws = Workspace.open(str(eval_workspace))
    problems = []
    for case in eval_cases["context"]:
        pack = ws.context(RankInput.from_query(case["query"]), now_ms=EVAL_NOW_MS)
        members = [i.record.doc.rel for i in pack.items()]
        assert len(members) == len(set(members)), f"{case['query']}: an item sits in two tiers"
        primary = [i.record.doc.rel for i in pack.primary]
        if primary != [case["primary"]]:
            problems.append(f"{case['query']!r}: primary {primary}, expected {case['primary']}")
        for rel in case["in_pack"]:
            if rel not in members:
                problems.append(f"{case['query']!r}: {rel} missing from the pack {members}")
        for rel in case["not_in_pack"]:
            if rel in members:
                problems.append(f"{case['query']!r}: {rel} should not be in the pack")
    print(f"\ncontext eval: {len(eval_cases['context'])} cases, {len(problems)} problems")
    assert not problems, "\n".join(problems)
