from knit_desktop.core.dsh.conversation import Message, conversation_window, is_substantive, task_line
from knit_desktop.core.rank.keywords import candidate_spans, extract_keywords, query_keywords
from knit_desktop.core.text.tokens import collation_key
from knit_desktop.core.workspace import RankInput, Workspace


def terms(texts):
    return [k.term for k in extract_keywords(texts)]


def test_latin_tokens_are_3_to_30_chars_lowercased_and_split_on_punctuation():
    spans = candidate_spans("ctx.sidebarRightTabs go a1 BM25f")
    assert [s[0] for s in spans] == ["ctx", "sidebarrighttabs", "bm25f"]
    assert spans[1][1:] == (4, 20)


def test_long_latin_runs_split_into_30_character_pieces():
    pieces = [s[0] for s in candidate_spans("a" * 35 + " " + "b" * 31)]
    assert pieces == ["a" * 30, "a" * 5, "b" * 30]  # a 1-character rest is dropped


def test_english_stop_words_are_dropped():
    assert terms(["the function should return this value"]) == ["value"]


def test_cjk_runs_emit_every_bigram_then_every_trigram():
    spans = candidate_spans("排序算法")
    assert [s[0] for s in spans] == ["排序", "序算", "算法", "排序算", "序算法"]
    assert spans[3][1:] == (0, 3)


def test_cjk_single_characters_emit_nothing_and_stop_grams_are_dropped():
    assert candidate_spans("图 和 表") == []
    assert "我们" not in [s[0] for s in candidate_spans("我们的索引")]  # stop bigram
    assert "的了" not in [s[0] for s in candidate_spans("的了")]  # only stop characters


def test_cjk_edge_characters_drop_cross_word_fragments():
    picked = terms(["索引的设计"])
    assert "引的" not in picked and "的设" not in picked and "的设计" not in picked
    assert "设计" in picked


def test_dui_is_not_an_edge_character():
    assert "对比" in terms(["对比"])


def test_cjk_threshold_newest_message_or_seen_twice():
    # Once in an older message: weighted 2 < 3 and seen 1 -> dropped.
    assert "缓存" not in terms(["别的话题", "缓存"])
    # Twice across older messages -> kept.
    assert "缓存" in terms(["别的话题", "缓存", "缓存"])
    # Once in the newest message -> kept.
    assert "缓存" in terms(["缓存"])


def test_latin_terms_need_one_occurrence_anywhere():
    assert "webhook" in terms(["x y z", "a b", "c d", "webhook"])


def test_recency_weights_and_size_weights():
    keywords = {k.term: k.weight for k in extract_keywords(["alpha", "alpha beta", "beta", "gamma"])}
    assert keywords["alpha"] == (3 + 2) * 9  # a Latin word weighs 9 whatever its length
    assert keywords["beta"] == (2 + 1) * 9
    assert keywords["gamma"] == 1 * 9
    cjk = {k.term: k.weight for k in extract_keywords(["缓存策略"])}
    assert cjk["缓存策"] == 3 * 9 and cjk["存策略"] == 3 * 9  # a CJK gram by its length squared


def test_a_long_generic_word_does_not_outweigh_a_short_specific_one():
    keywords = {k.term: k.weight for k in extract_keywords(["theoretically the layer"])}
    assert keywords["theoretically"] == keywords["layer"]


def test_greedy_de_overlap_keeps_both_overlapping_trigrams_and_drops_contained_terms():
    assert terms(["项目文档"]) == ["目文档", "项目文"]


def test_latin_terms_overlap_only_when_they_are_the_same_word():
    # Matched as words, `mtime` is not part of `mtimems` (the reference's substring de-overlap dropped it).
    assert terms(["mtimems mtime"]) == ["mtimems", "mtime"]
    assert terms(["searching searched"]) == ["searching"]


def test_limit_of_30_terms():
    text = " ".join(f"word{chr(97 + i // 26)}{chr(97 + i % 26)}" for i in range(40))
    assert len(extract_keywords([text])) == 30


def test_at_most_8_spans_per_term():
    keyword = extract_keywords([" ".join(["sync"] * 12)])[0]
    assert len(keyword.spans) == 8


def test_ties_break_like_locale_compare():
    # Equal scores: localeCompare puts '_' and digits before letters and ignores case at first.
    assert [k.term for k in extract_keywords(["zeta beta alfa"])] == ["alfa", "beta", "zeta"]
    assert sorted(["b", "_a", "1a", "A"], key=collation_key) == ["_a", "1a", "A", "b"]


def test_query_is_one_newest_message():
    assert [(k.term, k.weight) for k in query_keywords("缓存 cache")] == [("cache", 3 * 9), ("缓存", 3 * 4)]
    assert query_keywords("   ") == []


def test_window_keeps_six_newest_non_synthetic_messages():
    messages = [Message("user", f"message{i}") for i in range(10)]
    messages.append(Message("user", "AGENTS.md says hello", synthetic=True))
    window = conversation_window(messages)
    assert window.texts == [f"message{i}" for i in (9, 8, 7, 6, 5, 4)]


def test_window_cuts_messages_and_stops_at_6000_characters():
    messages = [Message("assistant", "x" * 5000) for _ in range(4)]
    window = conversation_window(messages)
    assert [len(t) for t in window.texts] == [2000, 2000, 2000]


def test_window_skips_empty_messages():
    window = conversation_window([Message("user", "real question"), Message("assistant", "   \n")])
    assert window.texts == ["real question"]


def test_task_is_newest_substantive_user_message():
    window = conversation_window(
        [
            Message("user", "Please  fix the\nsync conflict bug"),
            Message("assistant", "Done, anything else?"),
            Message("user", "ok, 谢谢!"),
        ]
    )
    assert window.task == "Please fix the sync conflict bug"


def test_task_rules():
    assert not is_substantive("继续")
    assert not is_substantive("ok 好的")
    assert not is_substantive("123")
    assert not is_substantive("a")
    assert is_substantive("继续写缓存")
    long = "word " * 40
    assert task_line(long) == ("word " * 16)[:79] + "…"
    assert len(task_line(long)) == 80


def test_stems_are_prefixes_that_only_widen_matching():
    from knit_desktop.core.rank.keywords import stem

    cases = {
        "searched": "search",
        "retries": "retr",
        "fails": "fail",
        "thumbnails": "thumbnail",
        "caches": "cach",
        "rendering": "render",
        "process": "process",
        "status": "status",
        "analysis": "analysis",
        "sync": "sync",
        "索引": "索引",
    }
    for term, expected in cases.items():
        assert stem(term) == expected
        assert term.startswith(stem(term))


def test_snowball_stems_join_the_forms_of_a_word():
    from knit_desktop.core.text.tokens import snowball_stem as stem

    groups = [
        ("searched", "searching", "search"),
        ("retries", "retried", "retry"),
        ("fails", "failed", "fail"),
        ("flexibility", "flexible"),
        ("stabilize", "stability"),
        ("thumbnails", "thumbnail"),
    ]
    for group in groups:
        assert len({stem(w) for w in group}) == 1, group
    for word in ("索引", "x86", "mtime_ms", "ui"):
        assert stem(word) == word


def test_keywords_with_the_same_stem_count_once():
    picked = [(k.term, k.match) for k in extract_keywords(["searched searching"])]
    assert picked == [("searching", "search")]


def test_inflected_query_words_find_their_base_form(make_workspace, now_ms):
    from knit_desktop.core.workspace import RankInput, Workspace

    root = make_workspace({"retry.md": "# Upload retry\n\nA failed chunk is retried.", "other.md": "# Other\n\ntext"})
    ranking = Workspace.open(str(root)).rank(RankInput.from_query("retries fails"), now_ms=now_ms)
    assert ranking.ranked[0].doc.rel == "retry.md" and ranking.ranked[0].matched == ["retries", "fails"]


def test_numbers_digit_led_tokens_and_capitalised_two_letter_acronyms_are_terms():
    found = terms(["UI and CI on Qt 6 since 2010: 40M rows, a 3d view, error 404, is it OK"])
    for term in ("ui", "ci", "qt", "2010", "40m", "3d", "404"):
        assert term in found
    for word in ("6", "is", "it", "ok"):
        assert word not in found  # one digit, lowercase two-letter words and `OK` are not terms


def test_cjk_extension_a_and_compatibility_ideographs_stay_inside_the_run():
    # 㐀 (U+3400, Extension A) and 﨎 (U+FA0E, a compatibility ideograph) used to split the run.
    found = [s[0] for s in candidate_spans("测㐀试 数﨎据")]
    assert {"测㐀", "㐀试", "测㐀试", "数﨎", "﨎据", "数﨎据"} <= set(found)


def test_a_number_finds_the_document_that_has_it(make_workspace, now_ms):
    root = make_workspace({"a.md": ("# Limits\n\nThe default is 170 jobs.", now_ms), "b.md": ("# Other", now_ms)})
    ranking = Workspace.open(str(root)).rank(RankInput.from_query("170"), now_ms=now_ms)
    assert [r.doc.rel for r in ranking.hits] == ["a.md"]


def test_words_match_as_words_and_word_parts_not_as_substrings(make_workspace, now_ms):
    root = make_workspace(
        {
            "camel.md": "# A\n\nthe stat has mtimeMs set",
            "snake.md": "# B\n\nthe column mtime_ms is stored",
            "noise.md": "# C\n\nnone of this phenomenon happens during spring around the ground wedge",
        }
    )
    ws = Workspace.open(str(root))
    assert sorted(r.doc.rel for r in ws.rank(RankInput.from_query("mtime"), now_ms=now_ms).hits) == [
        "camel.md",
        "snake.md",
    ]
    for word in ("non", "ring", "round", "edge"):
        hits = ws.rank(RankInput.from_query(word), now_ms=now_ms).hits
        assert all(h.fuzzy for r in hits for h in r.hits), word  # `round` ~ `ground` is a labelled near-miss


def test_everyday_words_starting_or_ending_with_former_edge_characters_are_keywords():
    # 进入 / 时间 / 功能 / 输出 / 用户: the reference's edge list dropped them as fragments.
    found = terms(["进入 时间 功能 输出 用户"])
    assert {"进入", "时间", "功能", "输出", "用户"} <= set(found)
    assert "的设" not in terms(["索引的设计"])  # true function words still cut fragments
