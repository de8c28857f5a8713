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

    # A document added to the word: its list is kept and grows, the views are not what is ranked any more.
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
