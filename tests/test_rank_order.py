"""The ranking sorts only its head at once; the rest of the order, the context pack and every row must come out
exactly as a full sort gives them, ties included."""

import numpy as np
import pytest

from knit_desktop.core.dsh.conversation import Message
from knit_desktop.core.rank import ranking as ranking_module
from knit_desktop.core.workspace import RankInput, Workspace
from tests.benchmarks.workspace_generator import conversations, generate

NOW_MS = 1_780_000_000_000
QUERIES = ["upload retry backoff", "team review", "缩略图缓存", "Meridian", "thumbnial cache", "budget owner risk"]


def full_sort(ranking) -> list[int]:
    """The order as one lexsort over every hit, then the zero-score documents by time."""
    raw, pool = ranking._raw, ranking.pool
    hits = np.flatnonzero(raw > 0)
    real = ranking._real
    order = hits[np.lexsort((pool.rel_rank[hits], -pool.mtimes[hits], -raw[hits], ~real[hits]))]
    rest = pool.time_order[raw[pool.time_order] <= 0]
    return [int(d) for d in np.concatenate([order, rest])]


def snapshot(ws: Workspace, request: RankInput) -> tuple:
    ranking = ws.rank(request, now_ms=NOW_MS)
    top = [(r.doc.rel, r.raw, r.matched) for r in ranking.hits[:12]]
    pack = ws.context(request, now_ms=NOW_MS)
    tiers = [[(it.record.doc.rel, it.rank, it.reason.code) for it in items] for _, items in pack.tiers()]
    return top, tiers, len(ranking.hits)


@pytest.fixture(scope="module")
def workspace(tmp_path_factory):
    return Workspace.open(str(generate(tmp_path_factory.mktemp("ws") / "ws", 600)))


def requests() -> list[RankInput]:
    return [RankInput.from_query(q) for q in QUERIES] + [
        RankInput.from_messages([Message(role, text) for role, text in conv]) for conv in conversations(count=6)
    ]


@pytest.mark.parametrize("head_rows", [1, 3, 40])
def test_a_short_head_gives_the_order_of_a_full_sort(workspace, monkeypatch, head_rows):
    monkeypatch.setattr(ranking_module, "HEAD_ROWS", head_rows)
    for request in requests():
        ranking = workspace.rank(request, now_ms=NOW_MS)
        expected = full_sort(ranking)
        assert len(ranking.ranked._order.head) >= min(head_rows, len(ranking.hits))
        assert [r.doc_id for r in ranking.ranked[:50]] == expected[:50]  # read from the head, then past it
        assert [int(d) for d in np.asarray(ranking.ranked._order)] == expected
        assert [ranking.position(d) for d in expected[:60]] == list(range(60))


def test_packs_and_rows_do_not_depend_on_the_head_size(workspace, monkeypatch):
    monkeypatch.setattr(ranking_module, "HEAD_ROWS", 10_000)
    whole = [snapshot(workspace, request) for request in requests()]
    monkeypatch.setattr(ranking_module, "HEAD_ROWS", 2)
    assert [snapshot(workspace, request) for request in requests()] == whole


def test_the_pool_is_sorted_by_time_only_when_a_ranking_reads_past_its_hits(workspace):
    """Every process sorted each pool's members by time when it first ranked (and again after each change to the
    index), though a relevance ranking read from its head never reaches the documents without a hit."""
    workspace.index.version += 1  # fresh pools
    ranking = workspace.rank(RankInput.from_query("upload retry backoff"), now_ms=NOW_MS)
    [r.doc.rel for r in ranking.ranked[:10]]
    assert "time_order" not in ranking.pool.derived
    expected = full_sort(ranking)  # (sorts it)
    assert "time_order" in ranking.pool.derived
    assert [int(d) for d in np.asarray(ranking.ranked._order)] == expected
    by_time = workspace.rank(RankInput.from_query(""), now_ms=NOW_MS)
    mtimes = [by_time.ranked[i].doc.mtime_ms for i in range(len(by_time.ranked))]
    assert mtimes == sorted(mtimes, reverse=True) and len(mtimes) == by_time.pool.size


def test_every_row_names_the_counts_of_each_keyword_in_its_document(workspace, monkeypatch):
    """A row's hits come from where its document sits in each keyword's postings: found for the head's rows in one
    search per keyword, one by one for the others. Both give the counts the postings hold, in keyword order."""
    monkeypatch.setattr(ranking_module, "HEAD_ROWS", 5)
    near_misses = 0
    for request in requests():
        ranking = workspace.rank(request, now_ms=NOW_MS)
        near_misses += len(ranking._fuzzy)
        postings = [(k, p, False) for k, p in ranking._present] + [(k, p, True) for k, p in ranking._fuzzy]
        for i in [*range(min(12, len(ranking.hits))), *range(12, len(ranking.hits), 7)]:
            row = ranking.hits[i]
            expected = []
            for keyword, p, fuzzy in postings:
                at = np.flatnonzero(p.ids == row.doc_id)
                if len(at):
                    t, s, b = (int(v) for v in p.tfs[:, at[0]])
                    expected.append((keyword.term, keyword.match, t > 0, s > 0, b > 0, b, fuzzy))
            assert [(h.term, h.match, h.title, h.summary, h.body, h.body_tf, h.fuzzy) for h in row.hits] == expected
            assert all(type(h.body_tf) is int for h in row.hits)
    assert near_misses  # ("thumbnial")
