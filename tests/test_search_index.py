import random
from collections import Counter

import numpy as np
import pytest

from knit_desktop.core.index import search_index
from knit_desktop.core.index.documents import Document
from knit_desktop.core.index.search_index import SearchIndex, document_stats, field_sources
from knit_desktop.core.rank.keywords import Keyword
from knit_desktop.core.rank.ranking import freshness, rank
from knit_desktop.core.text.tokens import LATIN_DOC_RUN, cjk_pair, cjk_run, cjk_triple, field_counts, run_keys

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


def test_postings_from_the_flat_run_equal_one_list_per_term_in_document_order(monkeypatch):
    """Postings wait in one flat run and are sorted into the per-term lists when it fills or a list is read:
    whatever the moment, each term lists its documents in the order they came, with their counts."""
    monkeypatch.setattr(search_index, "PENDING_POSTINGS", 97)  # the run fills many times, mid-document too
    rng = random.Random(11)
    index = SearchIndex()
    expected: dict[str, list[tuple[int, int, int, int]]] = {}
    for i in range(150):
        doc = random_doc(rng, i % 110)  # some rels again: replaced, the old postings stay behind as dead ones
        doc_id = index.add(doc)
        stats = document_stats(doc)
        for k, token in enumerate(stats.tokens):
            expected.setdefault(token, []).append((doc_id, stats.title[k], stats.summary[k], stats.body[k]))
        if i % 37 == 0:  # a query between documents reads (and so sorts) what is pending
            index.postings(rng.choice(list(expected)))
    assert index.tokens == list(expected)  # ids in order of first appearance, as documents came
    for tid, token in enumerate(index.tokens):
        docs, (title, summary, body) = index.post_docs[tid], index.post_tfs[tid]
        assert list(zip(docs, title, summary, body)) == expected[token]


@pytest.mark.parametrize("text", [
    "Plain words, plain WORDS: cache caches cached.",
    "camelCaseWords and snake_case_words, mtimeMs mtime_ms MTIMEMS a1b2c3 x9 __init__ 2026Q3",
    "Café naïve résumé: non-ASCII Latin letters split runs",
    "缩略图缓存的问题 and the cacheEviction plan 排序算法 — 相关性",
    "a缓b 缓 x缓存y 𠀀𠀁𠀂 rare ideographs 𠀀x", "lone \udc80surrogate\udcff bytes mid_word\udce9s",
    "é_word café9 ñandú: letters outside ASCII cut runs",
    "", "   ", "!!!",
])
def test_field_counts_are_every_run_key_counted_in_first_seen_order(text):
    runs = LATIN_DOC_RUN.findall(text)
    expected: dict[str, int] = {}
    for run in runs:
        for key, _ in run_keys(run):
            expected[key] = expected.get(key, 0) + 1
    expected.update(Counter(cjk_pair().findall(text)))
    expected.update(Counter(cjk_triple().findall(text)))
    counts, length = field_counts(text)
    assert list(counts.items()) == list(expected.items())
    assert length == len(runs) + sum(map(len, cjk_run().findall(text)))


def test_document_stats_lists_each_key_once_title_first_with_its_count_in_every_field():
    rng = random.Random(7)
    for i in range(300):
        doc = random_doc(rng, i)
        if i % 3 == 0:
            doc.title = ""
        if i % 4 == 0:
            doc.summary = ""
        if i == 5:  # a count past what a uint16 column holds is capped
            doc.body = "cache " * 70_000
        stats = document_stats(doc)
        fields = [field_counts(text)[0] if text else {} for text in field_sources(doc)]
        expected_tokens = list({**fields[0], **fields[1], **fields[2]})
        assert stats.tokens == expected_tokens
        for column, counts in zip((stats.title, stats.summary, stats.body), fields):
            assert list(column) == [min(counts.get(token, 0), 65535) for token in expected_tokens]
        assert stats.lengths == tuple(field_counts(text)[1] if text else 0 for text in field_sources(doc))


def test_the_radix_order_of_token_ids_is_numpys_stable_order():
    """Token ids past 65,535 (a vocabulary that large) take the second radix pass."""
    rng = np.random.default_rng(5)
    for high in (300, 70_000, 5_000_000):
        keys = rng.integers(0, high, 20_000).astype(np.uint32)
        assert (search_index._stable_order(keys) == np.argsort(keys, kind="stable")).all()
    assert len(search_index._stable_order(np.zeros(0, dtype=np.uint32))) == 0
