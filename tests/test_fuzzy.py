"""The labelled fuzzy layer: near-misses for query words that match nothing, never above a real hit."""

from knit_desktop.core.rank.fuzzy import osa_distance
from knit_desktop.core.workspace import RankInput, Workspace

DAY = 86_400_000


def test_osa_distance_counts_a_swap_as_one_edit():
    assert osa_distance("attachmnet", "attachment", 2) == 1
    assert osa_distance("cahce", "cache", 1) == 1
    assert osa_distance("eviction", "evictions", 1) == 1
    assert osa_distance("kitten", "sitting", 2) == 3  # past the limit: limit + 1


def test_typos_find_their_words_labelled_and_below_every_real_hit(make_workspace, now_ms):
    root = make_workspace(
        {
            "attach.md": ("# Attachment cache\n\nThe attachment cache drops old entries.", now_ms - 5 * DAY),
            "evict.md": ("# Eviction\n\nEviction order of the queue.", now_ms - 9 * DAY),
            "other.md": ("# Other\n\nNothing related.", now_ms),
        }
    )
    ranking = Workspace.open(str(root)).rank(RankInput.from_query("attachmnet cahce eviction"), now_ms=now_ms)
    order = [r.doc.rel for r in ranking.hits]
    assert order == ["evict.md", "attach.md"]  # the real hit on `eviction` ranks first
    attach = ranking.hits[1]
    assert set(attach.matched) == {"fuzzy: attachment ← attachmnet", "fuzzy: cache ← cahce"}
    assert all(h.fuzzy for h in attach.hits)
    assert "fuzzy: attachment ← attachmnet" in ranking.topic


def test_a_word_of_the_documents_never_gets_a_stand_in(make_workspace, now_ms):
    root = make_workspace({"a.md": "# Cache\n\ncache and caches", "b.md": "# Cachet\n\na cachet"})
    ranking = Workspace.open(str(root)).rank(RankInput.from_query("cache"), now_ms=now_ms)
    assert ranking.fuzzy_labels == [] and [r.doc.rel for r in ranking.hits] == ["a.md"]


def test_a_cjk_typo_finds_the_gram_one_character_away(make_workspace, now_ms):
    root = make_workspace(
        {
            "approval.md": ("# 审批策略\n\n审批策略决定何时询问用户。", now_ms - DAY),
            "other.md": ("# 重试策略\n\n失败后按策略重试。", now_ms),
        }
    )
    ranking = Workspace.open(str(root)).rank(RankInput.from_query("审比策略"), now_ms=now_ms)
    assert ranking.hits[0].doc.rel == "approval.md"
    assert "fuzzy: 审批策 ← 审比策" in ranking.hits[0].matched


def test_short_and_present_words_are_left_alone(make_workspace, now_ms):
    root = make_workspace({"a.md": "# Sync\n\nsync engine", "b.md": "# Other\n\nunrelated"})
    ranking = Workspace.open(str(root)).rank(RankInput.from_query("synk"), now_ms=now_ms)
    assert len(ranking.hits) == 0 and ranking.fuzzy_labels == []  # under 5 letters: no guess


def test_the_context_pack_never_calls_a_near_miss_direct(make_workspace, now_ms):
    root = make_workspace({"attach.md": "# Attachment cache\n\nThe attachment cache.", "b.md": "# Other\n\ntext"})
    pack = Workspace.open(str(root)).context(RankInput.from_query("attachmnet cahce"), now_ms=now_ms)
    (item,) = pack.primary
    assert item.reason.code == "titleMatch"
    assert item.reason.terms == ("fuzzy: attachment ← attachmnet", "fuzzy: cache ← cahce")
