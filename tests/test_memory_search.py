"""Memory retrieval: each of the seed's dimensions alone, the two tiers, and the seed's portability scenarios
(other people's libraries: a beginner's untagged notes, English, unfamiliar Chinese names, pure prose)."""

from __future__ import annotations

from pathlib import Path

import pytest

from knit_desktop.core.memory.library import MemoryIndex, parse_library
from knit_desktop.core.memory.search import (
    CLOSED_FACTOR,
    OPEN_FACTOR,
    SHORT_QUERY_FACTOR,
    W_BODY,
    W_CHAPTER_TAG,
    W_HEADING,
    W_LIBRARY_TAG,
    W_PARENT,
    _query_terms,
    render_hits,
    score_chapter,
    search,
    stem,
    units,
)


def lib(text: str, name: str = "lib.md"):
    return parse_library(f"/m/{name}", text)


def score(query: str, library, chapter_index: int = 0) -> float:
    return score_chapter(query, units(query), library, library.chapters[chapter_index])


# --- the dimensions, one at a time --------------------------------------------------------------------


def test_library_tag_alone():
    library = lib("# X\n<!-- tags: gardening -->\n\n## Notes\n- water twice a week\n")
    assert score("gardening", library) == pytest.approx(W_LIBRARY_TAG)


def test_chapter_tag_alone():
    library = lib("# X\n<!-- tags: misc -->\n\n## Notes\n<!-- tags: tomatoes -->\n- water twice a week\n")
    assert score("tomatoes", library) == pytest.approx(W_CHAPTER_TAG)


def test_parent_category_adds_half_a_point():
    library = lib("# X\n<!-- 标签: 游戏 -->\n\n## 卡牌\n- 回合制\n")
    with_parent = score("游戏", library)
    assert with_parent == pytest.approx(W_LIBRARY_TAG + W_PARENT)


def test_heading_coverage_with_the_short_query_discount():
    library = lib("# X\n<!-- tags: misc -->\n\n## deploy checklist\n- run the smoke test\n")
    two_words = score("deploy checklist", library)  # heading fully covered, body: neither word
    assert two_words == pytest.approx(W_HEADING * 1.0 + W_BODY * 1.0)  # the body holds the heading line too
    one_word = score("checklist", library)
    assert one_word == pytest.approx(W_HEADING * SHORT_QUERY_FACTOR + W_BODY)


def test_body_counts_only_after_a_topic_match_in_tagged_libraries_but_alone_in_untagged_ones():
    tagged = lib("# X\n<!-- tags: misc -->\n\n## Notes\n- the capybara eats grass\n")
    assert score("capybara", tagged) == 0  # strict tier: a word in the body alone is noise
    untagged = lib("# X\n\n## Notes\n- the capybara eats grass\n", name="zoo.md")
    assert score("capybara", untagged) == pytest.approx(W_BODY)  # loose tier


def test_status_intent_favours_open_work_and_discounts_finished_work():
    library = lib("# P\n<!-- 标签: 项目 -->\n\n## game-a\n<!-- 标签: 卡牌, 进行中 -->\n- 战斗\n\n"
                  "## game-b\n<!-- 标签: 卡牌, 已完成 -->\n- 战斗\n")
    plain_a, plain_b = score("卡牌", library, 0), score("卡牌", library, 1)
    assert plain_a == plain_b
    assert score("卡牌 做到哪了", library, 0) / score("卡牌 做到哪了", library, 1) == pytest.approx(
        OPEN_FACTOR / CLOSED_FACTOR)


def test_a_yes_no_question_about_a_state_is_a_status_question():
    # "X 合进 main 了吗" / "has X landed" ask where X stands: the dated entry that says so answers, not the plan
    # that names X in fewer words. A yes/no question that names no state ("is X in main?") is not a status question.
    from knit_desktop.core.memory.search import status_intent
    log = lib("# 工作日志\n\n## 计划\n- 导出器分支合进 main\n- 补齐导出器的文档\n\n## 2026-03-02\n"
              "- ✅ 导出器分支合进 main，CI 全绿，发布说明也写好了，下周再看性能\n", name="log.md")
    assert status_intent("导出器分支合进 main 了吗") and search([log], "导出器分支合进 main 了吗")[0].start == 8
    english = lib("# Work log\n\n## Plan\n- exporter branch into main\n- write the exporter docs\n\n## 2026-03-02\n"
                  "- exporter branch into main: merged, CI green, release notes written, performance next week\n",
                  name="log.md")
    assert status_intent("has the exporter branch landed in main?")
    assert search([english], "has the exporter branch landed in main?")[0].start == 8
    assert not status_intent("is the exporter branch in main?") and not status_intent("导出器要补文档吗")


def test_a_question_about_what_exists_or_what_something_can_do_is_not_a_status_question():
    # A state word in a question about existence or ability is not about where work stands: "built" of
    # "built-in", "通过" (via) of "能通过 API 调用吗", "working" of "a working example".
    from knit_desktop.core.memory.search import status_intent
    for question in ("is there a working example?", "does it support running tests?", "do we have a built-in parser?",
                     "is there a ready-made template?", "does the parser handle closed tags?", "能通过 API 调用吗？",
                     "有没有处理完成回调的测试夹具", "is there a test fixture for done callbacks?"):
        assert not status_intent(question), question
    for question in ("can it be released yet?", "能上线了吗", "is the exporter done?", "导出器修好了吗"):
        assert status_intent(question), question


def test_a_status_word_meets_the_others_of_its_kind():
    # "修好了吗" is answered by "已修复", "fixed" by "resolved": the entry that says the thing is fixed, not the later
    # one that says something else about it was done.
    log = lib("# 工作日志\n\n## 2026-02-01\n- 登录超时：已修复 ✅\n\n## 2026-03-01\n- 登录超时的提示文案改了 ✅\n",
              name="log.md")
    assert search([log], "登录超时修好了吗")[0].start == 4
    english = lib("# Work log\n\n## 2026-02-01\n- login timeout: resolved\n\n## 2026-03-01\n"
                  "- login timeout message reworded, done\n", name="log.md")
    assert search([english], "is the login timeout fixed?")[0].start == 4


def test_english_stems_prefixes_and_stop_words():
    # The ranking engine's stemming (core.keywords.stem): one inflection off, the stem always a prefix of the word,
    # and prefix matching does the rest ("librar" meets "library", "deploy" meets "deployments").
    from knit_desktop.core.rank.keywords import stem as engine_stem
    assert stem("backups") == stem("backup") == "backup" == engine_stem("backups")
    assert stem("searched") == "search" and stem("libraries") == "librar"
    assert stem("notes") == stem("note") and stem("matches") == "match"
    assert "the" not in units("the backups of the laptop")
    assert {"m1.2", "m1", "2", "22:26"} <= units("M1.2 at 22:26")  # versions and times count whole and by parts
    library = lib("# Ops\n\n## Deployment\n- deployments go out on Fridays\n", name="ops.md")
    assert score("deploy", library) > 0  # a prefix of the heading word


def test_a_negation_is_a_word_of_the_question():
    # Memory files state rules and limits by negation; "what is not shared" asks for the entry that says "not".
    assert {"not", "no"} <= units("the cache is not shared, no locks")
    library = lib("# Cache\n\n## Notes\n- the build cache is shared between runs of one job\n"
                  "- the build cache is not shared between workers\n", name="cache.md")
    hits = search([library], "what is not shared")
    assert hits[0].start == 5


def test_answers_are_line_ranges_within_the_budget_and_the_hit_cap(tmp_path):
    memory = tmp_path / "memory"
    memory.mkdir()
    (memory / "prefs.md").write_text("# Preferences\n\n## Editor\n<!-- tags: editor -->\n- vim keys everywhere\n"
                                     "- font size 14\n\n## Shell\n- fish with starship\n", encoding="utf-8")
    hits = search(MemoryIndex(str(memory)).libraries(), "editor vim keys", max_hits=3)
    assert hits[0].location == "prefs.md:5-5"
    text = render_hits(hits, budget=40)
    assert len(text) <= 40 and text.startswith("prefs.md:5-5")
    assert len(render_hits(hits * 5, budget=700).splitlines()) <= 15


# --- portability: other people's memories --------------------------------------------------------------

SCENARIOS = {
    "beginner": {
        "随手记.md": "家里 wifi 密码写在路由器背面的贴纸上\n\n"
                    "牙医预约在下周三下午三点\n\n"
                    "楼下那家面馆叫老王拉面，周一休息\n",
    },
    "english": {
        "preferences.md": "# Preferences\n\n## Editor\n- vim keybindings in every editor\n- font size 14\n\n"
                          "## Shell\n- fish shell with the starship prompt\n",
        "projects.md": "# Projects\n\n## Blog migration\n- moved the blog hosting from VPS to a static host\n\n"
                       "## Laptop backup\n- nightly backups with restic to the NAS\n",
    },
    "chinese_names": {
        "工作日志.md": "# 工作日志\n\n## 周报模板\n- 本周完成 / 下周计划 / 风险\n\n## 客户A 需求\n- 要导出 Excel 报表\n",
        "health.md": "# 身体\n\n## 睡眠\n- 晚上十一点前睡觉\n\n## 跑步\n- 每周二、四跑五公里\n",
    },
    "prose": {
        "diary.md": "去年春天把博客搬到了新的静态托管，速度快了很多。\n\n"
                    "备份脚本放在 ~/bin/backup.sh，每天夜里跑一次。\n",
    },
}

QUERIES = [  # (scenario, query, expected file, a phrase of the expected entry)
    ("beginner", "wifi 密码在哪", "随手记.md", "wifi 密码"),
    ("beginner", "牙医什么时候", "随手记.md", "牙医预约"),
    ("beginner", "那家面馆叫什么", "随手记.md", "面馆"),
    ("english", "which editor keybindings do I use", "preferences.md", "vim keybindings"),
    ("english", "how do I back up the laptop", "projects.md", "nightly backups"),
    ("english", "where is the blog hosted now", "projects.md", "blog hosting"),
    ("chinese_names", "周报怎么写", "工作日志.md", "本周完成"),
    ("chinese_names", "客户A 要什么", "工作日志.md", "导出 Excel"),
    ("chinese_names", "几点睡觉", "health.md", "十一点"),
    ("chinese_names", "跑步计划", "health.md", "五公里"),
    ("prose", "备份脚本在哪", "diary.md", "备份脚本"),
    ("prose", "博客搬到哪里了", "diary.md", "博客"),
]


def build(tmp_path: Path, scenario: str) -> MemoryIndex:
    root = tmp_path / scenario
    root.mkdir(exist_ok=True)
    for name, text in SCENARIOS[scenario].items():
        (root / name).write_text(text, encoding="utf-8")
    return MemoryIndex(str(root))


def test_portability_scenarios_find_the_right_entry(tmp_path, capsys):
    top1 = top3 = 0
    rows = []
    for scenario, query, expected, phrase in QUERIES:
        hits = search(build(tmp_path, scenario).libraries(), query)

        def right(hit, expected=expected, phrase=phrase) -> bool:
            text = hit.entry.text if hit.entry else hit.chapter.text
            return hit.library.path.endswith(expected) and phrase in text

        first = bool(hits) and right(hits[0])
        any3 = any(right(h) for h in hits[:3])
        top1 += first
        top3 += any3
        rows.append(f"  {'✓' if first else ('·' if any3 else '✗')} [{scenario}] {query} → "
                    f"{hits[0].location if hits else 'nothing'}")
    with capsys.disabled():
        print("\nmemory portability (seed scenarios):")
        print("\n".join(rows))
        print(f"  top-1 {top1}/{len(QUERIES)} · top-3 {top3}/{len(QUERIES)}")
    assert top3 == len(QUERIES)
    assert top1 >= len(QUERIES) - 1


def test_the_answer_names_its_cost_tier_and_how_to_get_the_others(tmp_path):
    from knit_desktop.core.agent.specs import (
        MEMORY_SEARCH_DESCRIPTION,
        MEMORY_TIER_LINE,
        MEMORY_TIER_LINE_EMPTY,
    )
    from knit_desktop.core.memory.library import estimate_tokens

    hits = search(build(tmp_path, "english").libraries(), "which editor keybindings do I use")
    text = render_hits(hits)
    line = MEMORY_TIER_LINE.format(count=f"{len(hits)} entries", tokens=estimate_tokens(text))
    assert "L2" in line and "L3" in line and "read tool" in line and "knit-desktop memory" in line
    assert "L1" in MEMORY_TIER_LINE_EMPTY and "L2" in MEMORY_SEARCH_DESCRIPTION and "L3" in MEMORY_SEARCH_DESCRIPTION
    assert estimate_tokens(text) <= 220 and len(text) <= 700


def test_a_hit_is_an_entry_with_its_body_never_a_bare_heading():
    library = lib("# Log\n\n## 2026-03-01\n### Step 9\nbuilt the parser\n\n### Step 10\n做到 Step 10：Windows 上暂时不可用\n"
                  "\n---\n\nA note after the rule, about the release checklist.\n", name="log.md")
    hits = search([library], "Windows 做到哪一步了")
    assert hits[0].location == "log.md:7-8" and hits[0].entry.text.startswith("### Step 10\n")
    hits = search([library], "release checklist")
    assert hits[0].location == "log.md:12-12"  # the paragraph after `---` is its own entry, not Step 10's


def test_boosts_never_lift_an_entry_without_the_query_words_over_one_with_them():
    notes = lib("# Git\n\n## Git\n- see https://example.com/git-book\n", name="git.md")
    other = lib("# Misc\n\n## Tools\n- rebase onto main before merging a branch\n", name="misc.md")
    hits = search([notes, other], "rebase before merging")
    assert hits[0].library is other  # the file and heading called Git hold none of the words


def test_status_comes_from_the_entry_and_the_latest_entry_of_a_log_wins():
    log = lib("# Progress\n\n## 2026-02-01\n- parser: in progress\n\n## 2026-02-03\n- parser: done, merged\n"
              "\n## 2026-02-04\n- docs: todo\n", name="progress.md")
    hits = search([log], "how far did the parser get")
    assert hits[0].location == "progress.md:7-7"


def test_query_words_side_by_side_outrank_the_same_words_apart():
    # Both entries hold "rate" and "limiting" equally often; only the second says them as the question does.
    library = lib("# Ops\n\n## Writes\n- rate checks before limiting writes\n- writes before rate limiting checks\n")
    hits = search([library], "rate limiting")
    assert [h.start for h in hits] == [5, 4]
    # The phrase only ever decides between entries that hold the words: none is lifted from nothing.
    assert [h.start for h in search([library], "limiting")] == [4, 5]


@pytest.mark.parametrize(("query", "answer"), [
    ("where is the backup script", "~/bin/backup.sh"),
    ("备份脚本在哪", "~/bin/backup.sh"),
    ("when is the dentist", "2026-03-14 at 15:00"),
    ("牙医什么时候", "2026-03-14 at 15:00"),
    ("how many dentist visits", "2 visits"),
])
def test_a_question_asking_where_when_or_how_many_prefers_the_entry_that_gives_one(query, answer):
    # The first entry of each pair holds the question's words more often; the second holds the kind of answer
    # the question asks for (a path, a date, a number).
    library = lib("# Notes\n\n## Backup\n- the backup script runs every night, the backup script mails a report\n"
                  "- 备份脚本每天夜里跑一次，备份脚本会发邮件\n- backup script / 备份脚本: ~/bin/backup.sh\n\n"
                  "## Dentist\n- dentist check-up due soon, dentist visit booked 牙医\n"
                  "- dentist: 2 visits to go\n- dentist 牙医 on 2026-03-14 at 15:00\n")
    assert answer in search([library], query)[0].entry.text


def test_a_lead_in_comes_back_with_the_rows_it_introduces_never_alone():
    library = lib("# Acceptance\n\n## Runs\n**B 层：受控回放测试**\n\n| 用例 | 状态 |\n|------|------|\n"
                  "| T07 Skill Runtime e2e | |\n| T08 GC-1 | |\n", name="acceptance.md")
    hits = search([library], "受控回放测试有哪些用例")
    assert hits[0].location == "acceptance.md:4-8" and "T07" in hits[0].entry.text
    assert hits[1].location == "acceptance.md:9-9"  # the next row stands under the lead-in too


def test_words_that_name_the_file_pick_the_file_not_the_entry():
    # "P2-M1" names the file: every entry of it is about P2-M1, so the guide line repeating the name is no better
    # an answer than the row that holds T04, the word that tells the entries apart.
    acceptance = lib("# P2-M1 用户验收测试记录\n\n> 对应测试指导：`docs/p2_m1_user_test_guide.md`\n\n## 执行记录\n"
                     "| 用例 | 状态 |\n|---|---|\n| T03 soul_propose | |\n| T04 soul_rollback | |\n",
                     name="p2-m1_user_acceptance.md")
    others = [lib(f"# M{n}\n\n## Gates\n- gate {n}: PASS\n- T0{n} checklist\n", name=f"m{n}-pm.md") for n in (5, 6)]
    hits = search([acceptance, *others], "P2-M1 验收 T04 是什么用例")
    assert hits[0].location == "p2-m1_user_acceptance.md:9-9"


def test_a_word_and_its_number_name_one_thing():
    plan = lib("# Plan\n\n## Timeline\n- Week 7: Phase 3 Planning and Architecture\n- Week 9: Templates\n"
               "- Week 10: Monitoring & Analysis\n", name="plan.md")
    assert {"week 10", "task 19", "phase 3.2"} <= units("Week 10, Task #19 and Phase 3.2")
    assert search([plan], "Week 10 plan")[0].location == "plan.md:6-6"


def test_an_a_not_a_question_is_the_question_form_not_its_topic():
    # 会不会, 能不能, 有没有 ask yes or no, as 是不是 does: read as bigrams (会不, 不会) they met an unrelated entry that
    # wonders aloud with the same words, over the one entry that holds the thing asked about.
    log = lib("# 开发日志\n\n## 2023年1月17日\n目前不知道单线程处理连接请求会不会成为性能瓶颈？\n", name="worklog.md")
    guide = lib("# CLAUDE.md\n\n## 核心架构说明\n- **`requestClient`**：统一的请求客户端。\n"
                "- **`authenticateResponseInterceptor`**：处理 401，自动刷新 token 或跳转登录。\n", name="CLAUDE.md")
    assert search([log, guide], "接口报 401 以后会不会自己去换新凭证？")[0].location == "CLAUDE.md:5-5"
    for form in ("会不会", "能不能", "有没有", "要不要", "可不可以"):
        terms, _ = _query_terms(f"缓存{form}过期")
        assert terms == units("缓存 过期"), form


def test_asking_which_version_is_the_question_form_not_a_word_the_answer_repeats():
    # "which version" and 哪个版本 ask for a version (the answer's shape); 哪个 and 是 would otherwise pair with the
    # words around them into bigrams ("个版", "题是") that only the wrong entry holds.
    notes = lib("# 当前场景\n\n**版本**: v1.45.11 已发布，10 个问题已修复\n\n---\n\n"
                "v46.0 | 2026-02-13 | v1.45.11 修复文件名特殊字符（agentId 冒号）\n", name="context.md")
    assert search([notes], "agentId 冒号问题是哪个版本修的")[0].location == "context.md:7-7"


def test_a_which_commit_question_prefers_the_entry_that_gives_a_hash():
    log = lib("# Devlog\n\n## 2026-03-18\n- Sync fix: read the target commit from the main worktree, then sync again\n"
              "- Commits: d711586 (core), c0ab0f7 (sync fix)\n", name="devlog.md")
    assert search([log], "which commit fixed the sync")[0].location == "devlog.md:5-5"


def test_a_status_entry_says_where_it_stands_in_its_own_words():
    risks = lib("# 风险清单\n\n## R-007 关键路径缺少一键回归脚本\n- **等级**：中\n"
                "- **现状**：已启动（新增 `scripts/smoke.py`）\n- **影响**：改动后回归成本高\n", name="risks.md")
    assert search([risks], "一键回归脚本进展到哪一步了")[0].location == "risks.md:5-5"


def test_not_started_is_an_open_state_in_both_languages():
    # A tracker's table says "未开始" / "not started" for each task it has not begun: those rows say where the task
    # stands (open), as an unchecked box does, and answer "has X started?".
    from knit_desktop.core.memory.search import _states
    for row in ("| cancel方法 | 未开始 | - |", "| 导出 | 未实现 |", "| cancel button | not started | - |",
                "- retry: not implemented"):
        assert _states(row) == (True, False), row
    tracker = lib("# 实施跟踪\n\n## 状态概览\n| 功能 | 状态 | 开始日期 |\n|---|---|---|\n| execute方法 | 进行中 | 2025/3/24 |\n"
                  "| cancel方法 | 未开始 | - |\n\n## 检查清单\n\n#### 周二\n\n- [ ] 实现cancel方法\n- [ ] 实现validate方法\n",
                  name="tracker.md")
    assert search([tracker], "cancel 方法开始做了吗？")[0].location == "tracker.md:7-7"


def test_a_one_word_entry_does_not_outrank_the_entry_that_answers_on_its_shortness():
    # Both entries hold "backup" once; the one-word item is shorter than half the average entry, which BM25 alone
    # would reward more than the path the question asks for.
    library = lib("# Ops\n\n## Backups\n- backup\n- backup: ~/bin/nightly.sh on the ops box\n\n## Other\n"
                  "- the photo library lives on the second disk and syncs with the phone every evening\n"
                  "- the printer in the hall needs new toner before the school term starts again\n"
                  "- the router admin page moved to a new address after the firmware update last spring\n",
                  name="ops.md")
    assert search([library], "where is the backup")[0].location == "ops.md:5-5"


def test_a_function_word_the_question_shares_decides_between_entries_never_for_one():
    # Both entries hold "parser rewrite"; only the second says what it waits "on". The standup line shares "is"
    # and "on" with the question but none of its topic, so it is never an answer.
    plan = lib("# Plan\n\n## Parser\n- CP3 parser rewrite (not started)\n"
               "- parser rewrite depends on the lexer landing first\n\n## Other\n- standup is on mondays\n"
               "- the docs site moved to a new host last week\n", name="plan.md")
    hits = search([plan], "what is the parser rewrite waiting on")
    assert [h.location for h in hits] == ["plan.md:5-5", "plan.md:4-4"]
    assert [h.location for h in search([plan], "parser rewrite")] == ["plan.md:4-4", "plan.md:5-5"]


def _memory(tmp_path, name: str, text: str):
    (tmp_path / name).write_text(text, encoding="utf-8")
    return MemoryIndex(str(tmp_path)).libraries()


def test_work_still_to_do_under_a_dai_heading_is_open(tmp_path):
    # "待完善功能" (features still to finish) is a kanban label like "待办": its items are open work, so "X 做好了没"
    # is answered by the item there, not by the dated entry that merely mentions the same words.
    libraries = _memory(tmp_path, "devlog.md", "# KAMIFAKA\n\n一款基于VUE3.0的开源卡密发卡系统。\n\n## 开发进展\n"
                        "- 2020.10.18 完成支付模块，集成支付宝当面付\n"
                        "- 2020.10.17 完成订单查询页面与分类页面的前后端交互逻辑\n"
                        "- 2020.10.16 完成前端可视化页面初稿，包含管理员界面和访问界面\n"
                        "- 2020.10.15 使用flask完成数据库设计，完成后端api代码\n"
                        "- 2020.10.14 设想一套卡密发卡系统网站，设计了数据表、后端api和管理员页面。\n\n"
                        "## 待完善功能\n管理员界面：\n- 首页Dashboard\n- 网站设置\n- 主题设置\n- 图片上传与调用\n")
    assert search(libraries, "发卡系统的网站设置页做好了没")[0].location == "devlog.md:15-15"


def test_a_paragraph_that_announces_a_list_comes_back_with_its_first_item(tmp_path):
    # "…, so:" stops where the answer begins: the hit runs on into the first item it announced, scored as before.
    libraries = _memory(tmp_path, "progress.md", "# Progress\n\n## Licence and release (2026-09-21)\n\n"
                        "**The licence is MIT.** Changed: `LICENSE`, the mod metadata.\n\n"
                        "**A compliance gap (closed)**: the jars bundle Apache-2.0 libraries (okhttp, okio, gson).\n"
                        "Apache-2.0 asks for a copy of the licence and the NOTICE with every copy, so:\n\n"
                        "* every shadowJar now packs `LICENSE` and `THIRD-PARTY.md`;\n"
                        "* all three jars were checked with `unzip -l`.\n")
    hit = search(libraries, "how were the bundled Apache libraries handled")[0]
    assert hit.location == "progress.md:7-10" and hit.entry.text.endswith("`THIRD-PARTY.md`;")
    assert [h.location for h in search(libraries, "unzip")] == ["progress.md:11-11"]  # the items stand alone


def test_quoted_output_in_a_block_comes_back_with_the_prose_that_explains_it(tmp_path):
    # The log lines name Folia and Paper more often than the sentence that says how they are told apart, but a
    # fenced block only shows what the prose around it says: the hit is the whole `###` block, not the bare output.
    libraries = _memory(tmp_path, "progress.md", "# Progress\n\n## Folia: tested on a real server (2026-09-21)\n\n"
                        "### A wrong check, fixed on the way\n\n"
                        "The probe asked whether the region scheduler exists, but Paper has it too. The log showed it:\n\n"
                        "```\n[mc-qq] platform paper-26.2, region scheduler (Folia)   <- wrong: Paper is not Folia\n```\n\n"
                        "Now a class that only Folia ships decides (RegionizedServer); Paper lacks it.\n\n"
                        "## Other\n- the docs site moved to a new host last week\n- the release checklist lives in RELEASE.md\n")
    hit = search(libraries, "how are Folia and Paper told apart")[0]
    assert hit.location == "progress.md:5-13"


def test_a_file_name_spelled_as_a_compound_counts_once_not_once_per_part(tmp_path):
    # "notes-mcp" names the file; inside it, an entry holding "notes" and "mcp" (an API example) held three of the
    # question's words by name alone and outranked the entry about paths on Windows.
    (tmp_path / "devlog.md").write_text("# 开发日志\n\n## 记录\n" + "".join(
        f"- 第 {i} 天：整理了第 {i} 组测试数据，修了 {i} 个小问题\n" for i in range(1, 21)), encoding="utf-8")
    libraries = _memory(tmp_path, "notesmcp-handoff.md", "# notes-mcp 项目交接文档\n\n## 2. 已敲定的关键决策\n\n"
                        "1. **定位**:产品级、可开源、独立目录 `d:\\Learn\\AI\\项目\\notes-mcp\\`\n"
                        "2. **核心洞察**:检索 ≠ 有用。做三层金字塔。\n\n## 4. 已核实的技术 API\n\n"
                        "- `@mcp.tool()` / `@mcp.resource(\"uri\")` / `@mcp.prompt()`\n"
                        "- resource 模板:`@mcp.resource(\"notes://note/{title}\")` + 路径安全\n\n"
                        "## 5. 关键坑(Windows + 协议)\n\n- **绝对路径**:client 的 args 都要绝对路径\n"
                        "- **stdio 别 `print`**:server 用 `logging`\n- **Windows 路径**:用 `pathlib`,别硬编码反斜杠\n")
    hit = search(libraries, "notes-mcp 在 Windows 上处理路径要注意什么坑")[0]
    assert hit.location == "notesmcp-handoff.md:17-17"


@pytest.mark.parametrize(("query", "answer"), [
    ("第二次建库为什么把所有文件当成新增", "根因"),
    ("why does the second build treat every file as new", "Root cause"),
    ("为什么第一次建索引要等好几分钟", "根因"),
    ("pip 下载中断怎么办", "修复"),
    ("pip download keeps breaking, what should I do", "Fix"),
])
def test_a_why_question_prefers_the_cause_and_a_what_to_do_question_the_fix(query, answer):
    # A pitfall log states each problem twice or three times: what was seen (short, the question's own words), why
    # it happened and what fixed it (longer, most of the same words). "Why" asks for the cause; "怎么办" / "what
    # should I do" for the fix.
    pitfalls = lib("# 踩坑记录\n\n"
                   "## 8. 增量建库失效\n- **现象**:第二次建库把所有文件当成新增\n"
                   "- **根因**:Path 与 str 不等,第二次建库把所有文件当成新增\n\n"
                   "## 9. Incremental build broken\n- Symptom: the second build treats every file as new\n"
                   "- Root cause: paths never equal strings, so the second build treats every file as new\n\n"
                   "## 13. 建索引慢\n- **现象**:第一次建索引要等好几分钟\n"
                   "- **根因**:单条请求,第一次建索引要等好几分钟\n\n"
                   "## 3. pip 网络中断\n- **现象**:pip 下载时连接中断\n"
                   "- **修复**:换镜像并加 `--retries 5`,pip 下载不再中断\n\n"
                   "## 4. Downloads break\n- Symptom: pip download keeps breaking halfway\n"
                   "- Fix: when the pip download keeps breaking, use a mirror with `--retries 5`\n", name="pitfalls.md")
    assert answer in search([pitfalls], query)[0].entry.text


@pytest.mark.parametrize(("query", "answer"), [
    ("装依赖时下载中断怎么办", "修复"),
    ("第二次建库为什么把所有文件当成新增", "根因"),
    ("why does the second build treat every file as new", "Cause"),
])
def test_the_cause_or_fix_after_the_problem_it_explains_answers_why_and_what_to_do(query, answer):
    # An error book states each problem as what was seen (the question's words), then why and what fixed it, in
    # words of their own; the cause or fix after the best-matching symptom of its `###` block is the answer.
    book = lib("# 踩坑记录\n\n### 3. pip 网络中断\n- **现象**:装依赖时 pip 下载中断\n- **根因**:国内访问 PyPI 不稳\n"
               "- **修复**:换清华镜像 `--retries 5`\n\n### 8. 增量建库失效\n"
               "- **现象**:第二次建库把所有文件当成新增\n- **根因**:`_scan` 给 Path,`_load_db` 给 str,永不相等\n\n"
               "### 9. Incremental build\n- Symptom: the second build treats every file as new\n"
               "- Cause: paths never equal strings\n\n### 10. Logs\n- 为什么日志为空:见下\n- 修复日志轮转\n",
               name="pitfalls.md")
    assert answer in search([book], query)[0].entry.text
    # …never a cause or fix before the symptom, nor one from another block.
    assert all("日志" not in h.entry.text for h in search([book], query)[:1])


@pytest.mark.parametrize(("query", "answer"), [
    ("can I create README files for a package", "Never"),
    ("should we commit generated files to git", "Do not"),
    ("新模块要不要写单元测试", "必须"),
])
def test_a_question_about_what_is_allowed_prefers_the_entry_that_states_the_rule(query, answer):
    # The first entry of each pair holds the question's words as a description; the second states the rule.
    agents = lib("# AGENTS.md\n\n## Docs\n- each package has README files that describe the package\n"
                 "- Never create README files unless asked\n\n## Git\n- generated files are ignored by git when you commit\n"
                 "- Do not commit generated files\n\n## 测试\n- 新模块的单元测试写在 tests 下\n- 新模块一律必须附带单元测试\n",
                 name="AGENTS.md")
    assert answer in search([agents], query)[0].entry.text


@pytest.mark.parametrize(("query", "answer"), [
    ("how many color themes does the editor ship", "18 color themes"),
    ("转发器重试几次", "1次"),
])
def test_a_how_many_question_prefers_the_entry_that_counts_not_one_with_an_ids_digits(query, answer):
    # Both entries of each chapter hold the question's words and digits; only the second counts something.
    notes = lib("# Notes\n\n## Themes\n- THEME-012: editor color themes\n"
                "- the editor comes with 18 color themes, Dark+ and Monokai among them\n\n"
                "## 转发器\n- 转发器重试见 #12\n- 转发器重试改为1次\n")
    assert answer in search([notes], query)[0].entry.text


def test_a_demonstrative_and_its_measure_word_are_no_topic_of_the_question(tmp_path):
    # "那个阶段" is "that stage": read as bigrams, "个阶" also met "5 个阶段提交" ("5 stage commits") in another row,
    # and two bigrams of a word the question only points with outranked the row its name (W5) picks out.
    libraries = _memory(tmp_path, "PROGRESS.md", "# 进度\n\n## 阶段\n\n| 阶段 | 内容 | 状态 |\n|---|---|---|\n"
                        "| P4 | FastAPI + 单页 Web 看板（项目/阶段/产物/预算） | ✅ |\n"
                        "| P5 | docs/AGENT_GUIDE + README + git 历史（5 个阶段提交）+ 测试全绿 | ✅ |\n"
                        "| W4 | 能看、能发：finish + release_pack | ✅ |\n"
                        "| W5 | Harness 外壳只调 produce：项目 Skill + `progress.next` + `MONTAGE_HEADLESS` 进门拒绝 + "
                        "`doctor --json`；看板仍无一键全片 GEN | 波次1 ✅ 波次2 ✅ 波次3 ✅ |\n")
    assert search(libraries, "W5 那个阶段做了些什么")[0].location == "PROGRESS.md:10-10"
    assert search(libraries, "这个阶段的看板是什么")[0].location == "PROGRESS.md:7-7"
