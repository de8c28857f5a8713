"""A large workspace's list: the window lists a ranking's first rows, says so, and its filter still finds the rest."""

from __future__ import annotations

import pytest
from PySide6.QtCore import Qt

from knit_desktop.core.dsh.conversation import Message
from knit_desktop.core.view import matches_filter
from knit_desktop.core.workspace import RankInput, Workspace
from knit_desktop.ui.app import KnitApp

from .conftest import NOW_MS

DAY_MS = 86_400_000


@pytest.fixture
def notes(make_workspace):
    """Twelve notes: three about alpha caches (the conversation's topic), nine others, the oldest about a zebra."""
    files = {f"alpha-{i}.md": (f"# Alpha cache {i}\n\nalpha cache eviction notes {i}\n", NOW_MS - i * DAY_MS)
             for i in range(3)}
    files |= {f"other-{i}.md": (f"# Other {i}\n\nunrelated note {i}\n", NOW_MS - (10 + i) * DAY_MS) for i in range(8)}
    files["zebra.md"] = ("# Zebra crossing\n\nthe oldest note\n", NOW_MS - 90 * DAY_MS)
    return make_workspace(files)


def test_a_ranking_cut_at_a_limit_says_so_and_a_filter_chooses_its_rows_before_the_cut(notes):
    ws = Workspace.open(str(notes))
    request = RankInput.from_query("alpha cache")

    whole = ws.view(request, now_ms=NOW_MS, with_context=True).docs
    assert whole.complete and not whole.needle and len(whole.rows) == whole.total == 12

    cut = ws.view(request, now_ms=NOW_MS, with_context=True, limit=4).docs
    assert not cut.complete and cut.total == 12
    tiers = [r for r in cut.rows if r.tier]
    assert [r.rel for r in cut.rows] == [r.rel for r in whole.rows][: len(cut.rows)]
    assert "zebra.md" not in {r.rel for r in cut.rows}
    assert len(cut.rows) <= len(tiers) + 4

    found = ws.view(request, now_ms=NOW_MS, with_context=True, limit=4, needle=" Zebra ").docs
    assert found.complete and found.needle == "zebra"
    assert [r.rel for r in found.rows if not r.tier] == ["zebra.md"]
    assert [r.rel for r in found.rows if r.tier] == [r.rel for r in tiers]  # the tiers are never filtered

    many = ws.view(request, now_ms=NOW_MS, with_context=True, limit=2, needle="note").docs
    rest = [r for r in many.rows if not r.tier]
    assert not many.complete and len(rest) == 2 and all(matches_filter(r, "note") for r in rest)

    both = ws.view(request, now_ms=NOW_MS, kind="all", limit=4, needle="zebra")  # the All view's documents too
    assert [r.rel for r in both.docs.rows] == ["zebra.md"] and both.docs.complete and both.media is not None

    # The tray's peek is the ranking's head whatever the window's filter (with no tiers: the time order).
    recent = ws.view(request, now_ms=NOW_MS, sort="time", limit=4, needle="qqq")
    assert recent.docs.rows == () and recent.peek() == ws.view(request, now_ms=NOW_MS, sort="time").peek()
    assert found.head == tuple(whole.rows[:5])

    check = ws.view(request, now_ms=NOW_MS).is_indexed  # the index answers, not the rows listed
    assert check is not None and check("zebra.md") and not check("missing.md")
    del ws
    assert not check("zebra.md")  # it holds the workspace weakly: a workspace switched away from is freed


@pytest.fixture
def notes_window(qtbot, tmp_path, notes, settings, monkeypatch):
    """The window on the notes, its list of documents cut at three rows; closed at the end."""
    monkeypatch.setattr("knit_desktop.services.live_ranking.LISTED_ROWS", 3)
    knit = KnitApp(workspace=str(notes), dsh_home=str(tmp_path / "no-dsh"),
                   messages=[Message("user", "how does the alpha cache evict?")], settings=settings, persistent=False)
    knit.window.show()
    yield knit
    knit.close()


def test_the_window_lists_the_first_rows_and_its_filter_finds_a_document_past_them(qtbot, notes_window):
    window = notes_window.window
    model = window.model
    qtbot.waitUntil(lambda: window.result is not None and model.total == 12, timeout=15_000)
    listed = {row.rel for row in model.rows.documents}
    assert "zebra.md" not in listed and model.shown < 12
    assert model.count_text() == f"{model.shown} / 12 docs"

    qtbot.mouseClick(window.filter_box, Qt.MouseButton.LeftButton)
    qtbot.keyClicks(window.filter_box, "zebra")
    qtbot.waitUntil(lambda: [r.rel for r in model.rows.documents if not r.tier] == ["zebra.md"], timeout=10_000)
    assert window.result.docs.needle == "zebra"

    window.filter_box.clear()  # the list goes back to its first rows, ranked without the filter
    qtbot.waitUntil(lambda: window.result.docs.needle == "" and "zebra.md" not in
                    {r.rel for r in model.rows.documents}, timeout=10_000)
    assert model.count_text() == f"{model.shown} / 12 docs"


def test_a_filter_typed_while_a_ranking_is_on_its_way_is_asked_for_again(qtbot, notes_window):
    window, live = notes_window.window, notes_window.ranking
    tabs = window.kind_tabs
    qtbot.waitUntil(lambda: window.result is not None and window.result.kind == "doc", timeout=15_000)
    qtbot.mouseClick(tabs, Qt.MouseButton.LeftButton, pos=tabs.tabRect(1).center())  # Images & video
    qtbot.waitUntil(lambda: window.result.kind == "media", timeout=10_000)
    qtbot.mouseClick(tabs, Qt.MouseButton.LeftButton, pos=tabs.tabRect(0).center())  # Docs: on its way
    asked = live._latest
    qtbot.keyClicks(window.filter_box, "zebra")  # before that answer arrives: it was asked for without the filter
    assert live._latest > asked
    qtbot.waitUntil(lambda: window.result.kind == "doc" and window.result.docs.needle == "zebra", timeout=10_000)
    assert [r.rel for r in window.result.docs.rows if not r.tier] == ["zebra.md"]


def test_the_all_view_asks_for_its_documents_cut_and_its_filter_finds_one_past_the_cut(qtbot, notes_window):
    from knit_desktop.ui.settings import KINDS

    window = notes_window.window
    all_view, tabs = window.all_view, window.kind_tabs
    qtbot.waitUntil(lambda: window.result is not None and window.result.kind == "doc", timeout=15_000)
    qtbot.mouseClick(tabs, Qt.MouseButton.LeftButton, pos=tabs.tabRect(KINDS.index("all")).center())
    qtbot.waitUntil(lambda: window.result.kind == "all", timeout=10_000)
    docs = window.result.docs
    assert not docs.complete and docs.total == 12 and "zebra.md" not in {r.rel for r in docs.rows}
    assert all_view.view_all.isVisibleTo(window) and all_view.count_text() == "12 items"
    assert all_view.docs_title.text() == f"Docs {all_view.doc_model.rowCount()} / 12"  # all, not the rows listed

    qtbot.mouseClick(window.filter_box, Qt.MouseButton.LeftButton)
    qtbot.keyClicks(window.filter_box, "zebra")
    qtbot.waitUntil(lambda: window.result.kind == "all" and window.result.docs.needle == "zebra", timeout=10_000)
    qtbot.waitUntil(lambda: [r.rel for r in all_view.doc_model.rows.documents] == ["zebra.md"], timeout=10_000)
    assert all_view.count_text() == "1 / 12 items" and all_view.docs_title.text() == "Docs 1 / 1"


def test_a_cut_list_counts_every_other_document_and_a_cut_filter_says_there_are_more(qtbot, notes):
    from knit_desktop.ui.document_model import DocumentListModel

    ws = Workspace.open(str(notes))
    request = RankInput.from_query("alpha cache")
    model = DocumentListModel()
    model.set_ranked(ws.view(request, now_ms=NOW_MS, with_context=True, limit=4).docs, NOW_MS)
    tiers = [r for r in model.rows.documents if r.tier]
    assert tiers and model.shown < 12
    other = next(model.rows[i] for i in range(len(model.rows)) if model.rows[i].tier == "other")
    assert other.count == 12 - len(tiers) and other.count_text == str(12 - len(tiers))  # not the 4 listed
    assert model.count_text() == f"{model.shown} / 12 docs"

    model.set_ranked(ws.view(request, now_ms=NOW_MS, with_context=True, limit=2, needle="note").docs, NOW_MS)
    model.set_filter("note")
    other = next(model.rows[i] for i in range(len(model.rows)) if model.rows[i].tier == "other")
    assert other.count == 2 and other.count_text == "2+"  # at least two match: the rest were not ranked
    assert model.count_text() == f"{model.shown}+ / 12 docs"

    model.set_ranked(ws.view(request, now_ms=NOW_MS, with_context=True, limit=4, needle="zebra").docs, NOW_MS)
    model.set_filter("zebra")  # every match listed: an exact count
    assert model.count_text() == f"{model.shown} / 12 docs" and "+" not in model.count_text()
