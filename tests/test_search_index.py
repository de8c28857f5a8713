import random

import pytest

from knit_desktop.core.index.documents import Document
from knit_desktop.core.index.search_index import SearchIndex, field_sources
from knit_desktop.core.rank.keywords import Keyword
from knit_desktop.core.rank.ranking import freshness, rank

from .reference_impl import count, reference_raw

NOW = 1_780_000_000_000
WORDS = (
    "sync cache mtime mtimems lastmtime thumbnail thumbnails video render renderer index reindex bm25 bm25f "
    "webhook hook config reconfigure test_case snake_case a1b2c3 x9 索引 缓存 附件 离线 排序算法 相关性 预览 "
    "的 是 文档 项目文档 设计 方案"
).split()


def random_doc(rng: random.Random, i: int) -> Document:
    def text(n):
        return " ".join(rng.choice(WORDS) for _ in range(n))

    body = "\n".join(text(rng.randint(3, 12)) for _ in range(rng.randint(1, 30)))
    return Document(
        rel=f"d{i:03}.md",
        kind="md",
        title=text(rng.randint(1, 4)).title(),
        summary=text(rng.randint(0, 8)),
        mtime_ms=NOW - rng.randint(0, 20) * 86_400_000,
        size=len(body),
        body=body,
    )


@pytest.fixture(scope="module")
def corpus():
    rng = random.Random(7)
    docs = [random_doc(rng, i) for i in range(120)]
    index = SearchIndex()
    for d in docs:
        index.add(d)
    return docs, index


@pytest.mark.parametrize(
    "term", ["mtime", "hook", "index", "bm25", "case", "b2c", "thumbnail", "缓存", "排序算", "项目文", "ndex", "zzz"]
)
def test_term_frequencies_equal_word_and_word_part_counts(corpus, term):
    docs, index = corpus
    pool = index.pool("doc")
    got = index.term_frequencies(term, pool.mask)
    expected = {}
    for i, d in enumerate(docs):
        counts = tuple(count(term, f) for f in field_sources(d))
        if any(counts):
            expected[i] = counts
    assert got == expected


def test_ranking_reproduces_the_reference_formula(corpus):
    docs, index = corpus
    keywords = [Keyword("mtime", 75), Keyword("thumbnail", 243), Keyword("缓存", 12), Keyword("reindex", 49)]
    ranking = rank(index, keywords, now_ms=NOW)
    expected = reference_raw([field_sources(d) for d in docs], [(k.term, k.weight) for k in keywords])
    boosted = {d.rel: r * (1 + 0.1 * freshness(d.mtime_ms, NOW)) for d, r in zip(docs, expected)}
    for r in ranking.ranked:
        assert r.raw == pytest.approx(boosted[r.doc.rel], rel=1e-9)
    order = sorted(docs, key=lambda d: (-boosted[d.rel], -d.mtime_ms, d.rel))
    assert [r.doc.rel for r in ranking.ranked] == [d.rel for d in order]


def test_removed_documents_leave_the_pool_and_the_statistics():
    index = SearchIndex()
    index.add(Document("a.md", "md", "Cache", "", NOW, 1, "cache"))
    index.add(Document("b.md", "md", "Other", "", NOW, 1, "other words"))
    assert index.pool("doc").size == 2
    index.remove("a.md")
    assert index.pool("doc").size == 1
    assert index.term_frequencies("cache", index.pool("doc").mask) == {}
    index.add(Document("a.md", "md", "Again", "", NOW, 1, "cache again"))
    assert list(index.term_frequencies("cache", index.pool("doc").mask).values()) == [(0, 0, 1)]


def test_media_pool_is_scored_by_file_name():
    index = SearchIndex()
    index.add(Document("shots/login-flow.png", "image", "login-flow", "", NOW, 1))
    index.add(Document("docs/login.md", "md", "Login", "", NOW, 1, "login flow"))
    assert index.pool("media").size == 1 and index.pool("all").size == 2
    ranking = rank(index, [Keyword("png", 27)], now_ms=NOW, kind="media")
    assert ranking.hits[0].doc.rel == "shots/login-flow.png"
