"""Paraphrases in memory search: British and American spellings folded into one, and the words developers use for
one another (`core/memory/thesaurus.py`) meeting at a reduced weight, in English and Chinese alike."""

from __future__ import annotations

from knit_desktop.core.memory.library import parse_library
from knit_desktop.core.memory.search import TOPIC_SYNONYM_FACTOR, search, units
from knit_desktop.core.memory.thesaurus import TOPIC_GROUPS
from knit_desktop.core.rank.keywords import stem as engine_stem
from knit_desktop.core.text.spelling import fold_spelling


def lib(text: str, name: str = "notes.md"):
    return parse_library(f"/m/{name}", text)


def test_british_spellings_fold_into_american_ones_with_their_endings():
    for british, american in (("colour", "color"), ("colours", "colors"), ("colourful", "colorful"),
                              ("behaviour", "behavior"), ("favourite", "favorite"), ("licence", "license"),
                              ("licenced", "licensed"), ("organised", "organized"), ("organisation", "organization"),
                              ("initialising", "initializing"), ("normalise", "normalize"), ("analyse", "analyze"),
                              ("catalogue", "catalog"), ("catalogues", "catalogs"), ("grey", "gray"),
                              ("cancelled", "canceled"), ("labelling", "labeling"), ("centre", "center")):
        assert fold_spelling(british) == american, british
        assert fold_spelling(american) == american
    # Words that only look like a British spelling stay as they are.
    for word in ("hour", "four", "your", "detour", "promise", "exercise", "enterprise", "analysis", "called"):
        assert fold_spelling(word) == word
    assert units("colour schemes") == units("color schemes")
    assert engine_stem("colours") == engine_stem("colors") == "color"  # one fold, in the engine's stemming
    assert units("the cache was initialised") == units("the cache was initialized")


def first_hit_line(memory_file: str, question: str) -> int | None:
    """The first line of the best entry a question gets from one memory file (None: no hit)."""
    hits = search([lib(memory_file)], question)
    return hits[0].start if hits else None


def test_a_question_in_one_spelling_finds_the_entry_in_the_other():
    assert first_hit_line("# Editor\n\n## Look\n- ships two color themes, light and dark\n- tab width is four spaces\n",
                          "which colours") == 4
    assert first_hit_line("# Editor\n\n## Look\n- the colour of the gutter follows the theme\n- fonts load at start\n",
                          "color") == 4


def test_a_word_meets_the_other_words_of_its_group():
    notes = lib("# Dev notes\n\n## Scripts\n- temporary scripts go in /tmp/work and are wiped nightly\n"
                "- the release script tags the commit\n\n## Storage\n- tasks are persistently stored in MongoDB\n"
                "- logs rotate every week\n")
    assert search([notes], "where do throwaway scripts go")[0].start == 4
    assert search([notes], "which database keeps tasks")[0].start == 8
    # A Chinese question meets the English entry: 临时 is "temporary".
    hits = search([notes], "临时脚本放在哪")
    assert hits and hits[0].start == 4


def test_an_english_question_meets_a_chinese_entry():
    notes = lib("# 转发器\n\n## 现状\n- 连接失败后的重试次数从 3 次减少到 1 次\n- 日志按天切分\n\n## 密钥\n"
                "- API 密钥只在主进程注入，渲染进程拿不到\n")
    assert search([notes], "how often does it retry")[0].start == 4
    assert search([notes], "where is the api secret injected")[0].start == 8


def test_a_chinese_word_of_three_characters_is_met_whole():
    # 数据库 is compared as 数据 + 据库: "database" meets it, and so does a question asking for 数据库; 数据 ("data")
    # alone does not open the database group.
    notes = lib("# Stack\n\n## Storage\n- tasks live in PostgreSQL 16, never SQLite\n- the export job runs nightly\n")
    hits = search([notes], "数据库用的是什么")
    assert hits and hits[0].start == 4
    assert not search([notes], "数据在哪")
    english = lib("# 技术栈\n\n## 存储\n- 所有持久化走数据库，不用文件\n- 日志按天切分\n")
    hits = search([english], "which database")
    assert hits and hits[0].start == 4


def test_an_entry_holding_the_question_word_beats_one_holding_only_a_word_of_its_group():
    notes = lib("# Scripts\n\n## Where\n- throwaway ones: ~/scratch, kept a week\n- temporary ones: /tmp/work, wiped "
                "nightly\n\n## Other\n- the linter runs before every push\n")
    hits = search([notes], "temporary")
    assert [h.start for h in hits] == [5, 4]  # both found; the one that says "temporary" first
    assert hits[1].score < hits[0].score
    hits = search([notes], "throwaway")
    assert [h.start for h in hits] == [4, 5]
    assert 0 < TOPIC_SYNONYM_FACTOR < 1


def test_the_thesaurus_is_groups_of_words_the_search_can_use():
    seen = 0
    for group in TOPIC_GROUPS:
        words = group.split()
        assert len(words) >= 2, group
        for word in words:
            assert units(word), (group, word)  # not a stop word, not a lone character
            assert not ("\u4e00" <= word[0] <= "\u9fff" and len(word) < 2), (group, word)
        seen += len(words)
    assert seen >= 300


def test_the_plural_of_analysis_is_not_a_british_verb_and_analysing_folds():
    # "analyses" is the plural of "analysis" in either spelling: folding it into "analyzes" parted it from
    # "analysis" (the stems "analyz" and "analysis" are not prefixes of one another; "analys" is).
    for word in ("analyses", "paralyses", "dialyses"):
        assert fold_spelling(word) == word
    assert fold_spelling("analysing") == "analyzing"
    assert engine_stem("analysing") == engine_stem("analyzing")
    assert first_hit_line("# Notes\n\n## Startup\n- two analyses of the cold start ran last week\n- fonts load at start\n",
                          "analysis") == 4
    assert first_hit_line("# Notes\n\n## Startup\n- analysing the cold start log took a day\n- fonts load at start\n",
                          "analyzing startup") == 4


def test_a_short_form_in_the_thesaurus_does_not_meet_the_longer_words_it_begins():
    # "temp", "auth", "quit", "spec", "repo" are short forms in the thesaurus: "temporary" opened "temp", whose
    # prefix matching then met "template"; "login" met "author", "stop" met "quite", "requirements" met "specific".
    for entry, question in (("the template engine renders the pages", "where do temporary files go"),
                            ("the author of the style guide is Ana", "how does login work"),
                            ("the reply was quite short", "how do I stop the server"),
                            ("a specific version of node is pinned", "what are the requirements"),
                            ("the report is sent weekly", "which repository")):
        notes = lib(f"# Notes\n\n## Misc\n- {entry}\n- fonts load at start\n")
        assert search([notes], question) == [], question
    # A thesaurus word's inflections still meet it, and a short form said in an entry still meets its group.
    notes = lib("# Notes\n\n## Files\n- temp files go to /var/tmp/app\n- fonts load at start\n")
    assert search([notes], "where do temporary files go")[0].start == 4
