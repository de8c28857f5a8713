from knit_desktop.core.dsh.conversation import Message
from knit_desktop.core.workspace import RankInput, Workspace

DAY = 86_400_000


def test_time_mode_when_the_conversation_has_no_keywords(make_workspace, now_ms):
    root = make_workspace({"old.md": ("# Old", now_ms - 5 * DAY), "new.md": ("# New", now_ms - DAY)})
    ws = Workspace.open(str(root))
    ranking = ws.rank(RankInput.from_messages([Message("user", "好的 嗯嗯 ok")]), now_ms=now_ms)
    assert ranking.mode == "time"
    assert [r.doc.rel for r in ranking.ranked] == ["new.md", "old.md"]


def test_sort_time_is_honoured_even_with_keywords(make_workspace, now_ms):
    root = make_workspace({"a.md": ("# Cache", now_ms - 5 * DAY), "b.md": ("# Other", now_ms - DAY)})
    ranking = Workspace.open(str(root)).rank(RankInput.from_query("cache"), now_ms=now_ms, sort="time")
    assert ranking.mode == "time" and [r.doc.rel for r in ranking.ranked] == ["b.md", "a.md"]


def test_keywords_that_hit_nothing_keep_relevance_mode_and_fall_through_to_time(make_workspace, now_ms):
    root = make_workspace({"a.md": ("# A", now_ms - 5 * DAY), "b.md": ("# B", now_ms - DAY)})
    ranking = Workspace.open(str(root)).rank(RankInput.from_query("zebra"), now_ms=now_ms)
    assert ranking.mode == "relevance" and len(ranking.hits) == 0
    assert [r.doc.rel for r in ranking.ranked] == ["b.md", "a.md"]


def test_ties_break_by_mtime_then_rel(make_workspace, now_ms):
    same = now_ms - 10 * DAY
    root = make_workspace(
        {"b.md": ("# Cache", same), "a.md": ("# Cache", same), "c.md": ("# Cache", same + 1000), "z.md": ("# Z", same)}
    )
    ranking = Workspace.open(str(root)).rank(RankInput.from_query("cache"), now_ms=now_ms)
    assert [r.doc.rel for r in ranking.ranked] == ["c.md", "a.md", "b.md", "z.md"]


def test_freshness_is_at_most_ten_percent(make_workspace, now_ms):
    root = make_workspace({"fresh.md": ("# Cache", now_ms), "stale.md": ("# Cache", now_ms - 30 * DAY)})
    ranking = Workspace.open(str(root)).rank(RankInput.from_query("cache"), now_ms=now_ms)
    fresh, stale = ranking.ranked
    assert fresh.doc.rel == "fresh.md"
    assert fresh.raw / stale.raw == 1.1


def test_prefix_and_infix_matches_count(make_workspace, now_ms):
    root = make_workspace({"a.md": "# Notes\n\nlastMtimeMs is stored", "b.md": "# Other\n\nnothing here"})
    ranking = Workspace.open(str(root)).rank(RankInput.from_query("mtime"), now_ms=now_ms)
    assert ranking.hits[0].doc.rel == "a.md" and ranking.hits[0].matched == ["mtime"]


def test_rank_is_deterministic_and_independent_of_creation_order(make_workspace, now_ms):
    files = {f"n{i}.md": (f"# Note {i}\n\ncache sync {'cache ' * (i % 3)}", now_ms - i * DAY) for i in range(12)}
    a = Workspace.open(str(make_workspace(files, "a"))).rank(RankInput.from_query("cache sync"), now_ms=now_ms)
    b = Workspace.open(str(make_workspace(dict(reversed(files.items())), "b"))).rank(
        RankInput.from_query("cache sync"), now_ms=now_ms
    )
    assert [r.doc.rel for r in a.ranked] == [r.doc.rel for r in b.ranked]


def test_idf_beats_a_readme_full_of_the_project_name(make_workspace, now_ms):
    root = make_workspace(
        {
            "README.md": "# Lumen\n\n" + "Lumen lumen lumen sync. " * 40,
            "docs/eviction.md": "# Attachment eviction\n\nLumen evicts attachments least recently used.",
        }
    )
    ranking = Workspace.open(str(root)).rank(RankInput.from_query("lumen attachment eviction"), now_ms=now_ms)
    assert ranking.ranked[0].doc.rel == "docs/eviction.md"


def test_an_absent_cjk_trigram_never_swallows_the_present_bigrams_inside_it(make_workspace, now_ms):
    # 文档排 and 档排序 straddle two words and occur nowhere; index-blind, they outweigh and suppress 文档 / 排序.
    root = make_workspace(
        {"sort.md": ("# 排序规则\n\n文档按相关度排序。", now_ms - DAY), "other.md": ("# 其他\n\n无关内容。", now_ms)}
    )
    request = RankInput.from_query("文档排序")
    assert {k.term for k in request.keywords} == {"文档排", "档排序"}  # the extraction alone, as the reference
    ranking = Workspace.open(str(root)).rank(request, now_ms=now_ms)
    assert {k.term for k in ranking.present} == {"文档", "排序"}
    assert [r.doc.rel for r in ranking.hits] == ["sort.md"]


def test_a_present_trigram_still_outranks_its_bigrams(make_workspace, now_ms):
    root = make_workspace({"a.md": ("# 项目文档\n\n项目文档的目录。", now_ms)})
    ranking = Workspace.open(str(root)).rank(RankInput.from_query("项目文档"), now_ms=now_ms)
    assert {k.term for k in ranking.present} == {"项目文", "目文档"}
