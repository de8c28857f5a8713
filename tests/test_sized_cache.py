"""The ranking's term caches are bounded by the bytes they hold, least recently used first out; what a pool holds is
asked of the postings once per pool."""

from __future__ import annotations

import numpy as np

from knit_desktop.core.index.documents import Document
from knit_desktop.core.index.search_index import TERM_CACHE_BYTES, SearchIndex
from knit_desktop.core.rank.keywords import query_keywords
from knit_desktop.core.rank.ranking import rank
from knit_desktop.core.sized_cache import SizedCache
from knit_desktop.core.text.tokens import match_key


def test_least_recently_used_entries_leave_first_when_either_bound_is_passed():
    cache: SizedCache[str, bytes] = SizedCache(max_items=3, max_bytes=10, size_of=len)
    cache.put("a", b"1234")
    cache.put("b", b"1234")
    assert cache.get("a") == b"1234"  # a is now the most recently used
    cache.put("c", b"1234")  # 12 bytes: b, the least recently used, goes
    assert "b" not in cache and "a" in cache and "c" in cache and cache.bytes == 8
    cache.put("d", b"1")
    cache.put("e", b"1")  # four entries: a goes
    assert "a" not in cache and len(cache) == 3 and cache.bytes == 6
    cache.put("huge", b"x" * 11)  # larger than the whole budget: not kept, nothing else lost
    assert "huge" not in cache and len(cache) == 3
    cache.put("c", b"12")  # a replaced value is counted once
    assert cache.bytes == 4


def test_the_index_term_cache_stays_within_its_byte_budget():
    index = SearchIndex()
    n = 40_000
    for i in range(n):
        index.add(Document(f"d{i}.md", "md", f"Note {i}", "", 0, 1, body=f"common shared words w{i % 200}"))
    assert index._term_cache.max_bytes == TERM_CACHE_BYTES
    index._term_cache.max_bytes = 1024 * 1024  # room for two of these terms (40,000 × 10 bytes each)
    for word in ("common", "shared", "words", "note"):
        assert len(index.postings(match_key(word))) == n
        assert index._term_cache.bytes <= index._term_cache.max_bytes
    assert len(index._term_cache) == 2
    assert np.array_equal(index.postings(match_key("common")).ids, np.arange(n))  # evicted: the same answer


def test_by_round_an_entry_of_this_round_is_never_pushed_out_by_another_of_it():
    # A ranking whose keywords hold more postings than the budget, asked in the same order each time: plain
    # least-recently-used kept nothing of it from one round to the next.
    cache: SizedCache[str, bytes] = SizedCache(max_items=100, max_bytes=10, size_of=len, by_round=True)
    hits = []
    for _ in range(3):
        cache.new_round()
        found = 0
        for key in ("a", "b", "c", "d"):
            if cache.get(key) is not None:
                found += 1
            else:
                cache.put(key, b"1234")
        hits.append(found)
    assert hits == [0, 2, 2]  # a and b stay; c and d are not kept while a and b are in use
    assert cache.bytes == 8
    cache.new_round()
    for key in ("e", "f"):  # a later round asking for other keys pushes the earlier round's out again
        cache.put(key, b"1234")
    assert "e" in cache and "f" in cache and "a" not in cache and "b" not in cache


def test_a_repeated_question_asks_the_postings_nothing_and_an_index_change_asks_again():
    index = SearchIndex()
    for i in range(50):
        index.add(Document(f"d{i}.md", "md", f"Note {i}", "", 0, 1, body=f"upload retry w{i}"))
    index.add(Document("pic.png", "image", "pic.png", "", 0, 1))
    keywords = query_keywords("upload retry backoff")
    first = rank(index, keywords, now_ms=0)
    looked_up: list[str] = []
    postings = index.postings
    index.postings = lambda term: looked_up.append(term) or postings(term)  # type: ignore[method-assign]
    again = rank(index, keywords, now_ms=0)
    # Which keys the pool holds (and the topic's labels) are kept with the pool, like the keys' scores.
    assert looked_up == []
    assert [r.doc.rel for r in again.ranked[:10]] == [r.doc.rel for r in first.ranked[:10]]
    assert again.topic == first.topic and [k.term for k in again.present] == [k.term for k in first.present]
    index.add(Document("late.md", "md", "Backoff", "", 0, 1, body="backoff"))  # a new version: a new pool
    later = rank(index, keywords, now_ms=0)
    assert "backoff" in looked_up and "backoff" in [k.term for k in later.present]
    assert later.ranked[0].doc.rel == "late.md" or "late.md" in [r.doc.rel for r in later.hits]
