"""Pins cost rows for the pins, not for the workspace: a list of ten with two pins in 5,000 documents builds about
twelve ranked rows and leaves the ranking's lazy order unsorted past its head, in the same order as before."""

from __future__ import annotations

import pytest

from knit_desktop.core.index.pins import Pins
from knit_desktop.core.output.payloads import rank_payload
from knit_desktop.core.rank.pinning import pinned_ranked
from knit_desktop.core.view import merge_tiers
from knit_desktop.core.workspace import RankInput, Workspace
from tests.benchmarks.workspace_generator import generate

NOW_MS = 1_780_000_000_000
DOCUMENTS = 5_000
QUERY = RankInput.from_query("upload retry backoff")


@pytest.fixture(scope="module")
def workspace(tmp_path_factory):
    return Workspace.open(str(generate(tmp_path_factory.mktemp("ws") / "ws", DOCUMENTS)))


def counted(ranking) -> list[int]:
    """Count every ranked row the ranking builds from here on."""
    built: list[int] = []
    build = ranking._details.row

    def row(doc_id: int):
        built.append(doc_id)
        return build(doc_id)

    ranking._details.row = row
    return built


def eager_order(workspace: Workspace, pins: Pins) -> list[str]:
    """The order pins gave by building every row: the pinned first in pin order, then the rest less the hidden."""
    rels = [r.doc.rel for r in workspace.rank(QUERY, now_ms=NOW_MS).ranked]
    pinned = [rel for rel in pins.pinned if rel in set(rels)]
    skip = set(pins.hidden) | set(pinned)
    return pinned + [rel for rel in rels if rel not in skip]


@pytest.fixture(scope="module")
def pins(workspace) -> Pins:
    tail = [r.doc.rel for r in workspace.rank(QUERY, now_ms=NOW_MS).ranked][-3:]  # far below the head
    head = workspace.rank(QUERY, now_ms=NOW_MS).ranked[1].doc.rel
    return Pins(workspace.root, pinned=[tail[-1], tail[0]], hidden=[head])


def test_a_short_list_with_pins_builds_rows_for_the_pins_only(workspace, pins):
    assert len(workspace.index.docs) >= DOCUMENTS
    ranking = workspace.rank(QUERY, now_ms=NOW_MS)
    built = counted(ranking)
    rows, pinned, hidden = pinned_ranked(ranking, pins, limit=10)
    listed = [r.doc.rel for r in rows]
    assert len(built) <= 10 + len(pins.pinned) + 1, len(built)  # the list, the pins, at most one hidden passed
    assert ranking.ranked._order._full is None  # the lazy order was not sorted past its head
    assert listed == eager_order(workspace, pins)[:10]
    assert pinned == pins.pinned and hidden == 1
    assert len(rows) == 10


def test_the_whole_list_with_pins_is_in_the_order_it_always_had(workspace, pins):
    ranking = workspace.rank(QUERY, now_ms=NOW_MS)
    rows, _, hidden = pinned_ranked(ranking, pins)
    expected = eager_order(workspace, pins)
    assert len(rows) == len(expected) == ranking.total - hidden
    assert [r.doc.rel for r in rows] == expected
    assert rows[-1].doc.rel == expected[-1] and [r.doc.rel for r in rows[2:5]] == expected[2:5]


def test_the_window_list_and_the_agent_tool_with_pins_stay_lazy(workspace, pins):
    ranking = workspace.rank(QUERY, now_ms=NOW_MS)
    built = counted(ranking)
    view = merge_tiers(ranking, None, limit=10, pins=pins)
    payload = rank_payload(ranking, limit=10, pins=pins)
    assert len(set(built)) <= 10 + len(pins.pinned) + 1
    assert [r.rel for r in view.rows] == [r["rel"] for r in payload["results"]] == eager_order(workspace, pins)[:10]
    assert view.total == payload["total"] == ranking.total - 1
