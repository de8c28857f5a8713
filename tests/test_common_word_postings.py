"""A word in most documents: its postings are read from the snapshot's inflated block without being copied, and
the ranking over them is exactly the one the freshly built index gives, before and after documents are added."""

from __future__ import annotations

import pytest

from knit_desktop.core.index import store
from knit_desktop.core.workspace import RankInput, Workspace

DAY = 86_400_000
QUERIES = ["budget", "budget owner risk", "owner risk"]


@pytest.fixture
def workspace(make_workspace, now_ms, monkeypatch):
    # Small blocks, so that the common word's list fills most of the block it is saved in, as a word in 85,000 of
    # 100,000 documents does with the real block size.
    monkeypatch.setattr(store, "POSTINGS_BLOCK", 64)
    files = {}
    for i in range(240):
        title = "Budget review" if i % 17 == 0 else f"Note {i}"
        summary = "The budget owner signs off." if i % 5 == 0 else "Weekly notes."
        body = " ".join(["budget"] * (1 + i % 30)) + (" owner" * (i % 3)) + (" risk" if i % 7 == 0 else "")
        files[f"notes/n{i:03}.md"] = (f"# {title}\n\n{summary}\n\n{body} word{i}\n", now_ms - (i % 11) * DAY)
    files["media/shot.png"] = (b"\x89PNG\r\n\x1a\n", now_ms)
    return make_workspace(files)


def scores(ws: Workspace, now_ms: int) -> dict[str, tuple[bytes, list[str]]]:
    out = {}
    for query in QUERIES:
        ranking = ws.rank(RankInput.from_query(query), now_ms=now_ms)
        out[query] = (ranking._raw.tobytes(), [r.doc.rel for r in ranking.ranked[:20]])
    return out


def test_a_common_words_postings_are_views_of_its_block_and_rank_as_the_built_index(workspace, now_ms):
    built = Workspace.open_persistent(str(workspace))
    expected = scores(built, now_ms)
    built_postings = built.index.postings("budget")
    built.close()

    warm = Workspace.open_persistent(str(workspace))
    assert warm.last_refresh.loaded_from == "snapshot"
    postings = warm.index.postings("budget")
    assert len(postings) == 240
    # Read as they are inflated: no copy of the ids or the counts (a copy is writeable).
    assert not postings.ids.flags.writeable and not postings.tfs.flags.writeable
    assert postings.ids.tolist() == built_postings.ids.tolist()
    assert postings.tfs.tolist() == built_postings.tfs.tolist()
    assert scores(warm, now_ms) == expected

    # A document added to the word: it is read after the views (a tail of the list), ranked with them.
    (workspace / "notes" / "late.md").write_text("# Late budget\n\nbudget budget owner risk\n")
    assert warm.apply_changes(["notes/late.md"]).changes == 1
    ranking = warm.rank(RankInput.from_query("budget owner risk"), now_ms=now_ms)
    assert ranking.hit_count == 241 and "notes/late.md" in [r.doc.rel for r in ranking.ranked[:241]]
    after = scores(warm, now_ms)
    warm.save()
    warm.close()
    again = Workspace.open_persistent(str(workspace))
    assert scores(again, now_ms) == after
    again.close()


def test_a_document_added_after_the_open_keeps_no_whole_list_of_its_words(workspace, now_ms):
    """Each document added after a snapshot was loaded (every edited file) cut out and kept the whole posting
    list of each of its words, to append itself to: 160 MB more after 80 edits at 100,000 documents, for as long
    as the window or the server ran. Its postings go to a tail that reads join; ranked and saved as before."""
    Workspace.open_persistent(str(workspace)).close()
    warm = Workspace.open_persistent(str(workspace))
    assert warm.last_refresh.loaded_from == "snapshot"
    (workspace / "notes" / "late.md").write_text("# Late budget\n\nbudget budget owner risk\n")
    assert warm.apply_changes(["notes/late.md"]).changes == 1
    budget = warm.index.token_id("budget")
    postings = warm.index.postings("budget")
    assert len(postings) == 241 and warm.index.by_rel["notes/late.md"] in postings.ids.tolist()
    assert list.__getitem__(warm.index.post_docs, budget) is None  # not cut out and kept
    assert list.__getitem__(warm.index.post_tfs, budget) is None
    after = scores(warm, now_ms)
    warm.save()
    warm.close()
    again = Workspace.open_persistent(str(workspace))
    assert scores(again, now_ms) == after and len(again.index.postings("budget")) == 241
    again.close()
