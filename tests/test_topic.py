import pytest

from knit_desktop.core.workspace import RankInput, Workspace

CORPUS = {
    "a.md": "# 项目文档\n\n项目文档的写法。\n",
    "b.md": "# 排序\n\n排序算法与相关性排序，BM25 打分。\n",
    "c.md": "# 白名单\n\n扩展名白名单决定哪些文件可以预览。\n",
    "d.md": "# 浮层\n\n悬停浮层在鼠标停留 250 毫秒后出现。\n",
}


@pytest.mark.parametrize(
    ("query", "topic"),
    [
        ("项目文档 索引", "项目文档"),
        ("排序算法 相关性排序 BM25", "BM25、排序算法、相关性排序"),
        ("扩展名白名单都放行什么", "扩展名白名单"),
        ("悬停浮层是怎么做的", "悬停浮层"),
    ],
)
def test_reference_label_examples(make_workspace, now_ms, query, topic):
    ws = Workspace.open(str(make_workspace(CORPUS)))
    ranking = ws.rank(RankInput.from_query(query), now_ms=now_ms)
    assert ranking.topic == topic


def test_label_only_uses_text_present_in_the_corpus(make_workspace, now_ms):
    ws = Workspace.open(str(make_workspace({"a.md": "# 项目\n\n项目文 和 目文档 分开出现。\n"})))
    ranking = ws.rank(RankInput.from_query("项目文档"), now_ms=now_ms)
    # 项目文档 is in no document, so the merge stops at the longest present prefix, and the overlapping
    # fragment it started from is consumed with it (reference §2.4 marks every span starting before the end).
    assert ranking.topic == "项目文"


def test_long_latin_terms_only_reach_the_label_through_the_fallback(make_workspace, now_ms):
    ws = Workspace.open(str(make_workspace({"a.md": "# Headers\n\nnosniff chokidar\n"})))
    ranking = ws.rank(RankInput.from_query("nosniff chokidar"), now_ms=now_ms)
    assert ranking.topic == "chokidar、nosniff"


def test_no_topic_in_time_mode(make_workspace, now_ms):
    ws = Workspace.open(str(make_workspace({"a.md": "# A\n"})))
    ranking = ws.rank(RankInput.from_query("的 了"), now_ms=now_ms)
    assert ranking.mode == "time" and ranking.topic == ""
