"""Finding the memory entries a question is about: BM25 over entries, the seed's dimensions as boosts, two tiers,
status read from the entries themselves, `file:start-end` answers.

The unit that is scored and returned is the **entry** (a list item, numbered item, table row, paragraph, code
block, or a `###` block with its body — see `library.py`), with its chapter and library as context:

- **Base**: BM25 over entries (k1 1.2, b 0.75; an entry shorter than half the average is normalised as that long,
  so a one-word item does not win on its shortness). Text is compared in CJK character bigrams and Latin words with
  the ranking engine's stemming (`core.keywords.stem`) and prefix matching (`deploy` meets `deployments`);
  version-like tokens (`M1.2`, `22:26`, `2026-02-24`) also stand whole, so `M1.2` is not `M1.1`, and a word with
  the number after it (`Week 10`, `Task #19`) is a term of its own. A question's own form is not its topic:
  Chinese question words (什么, 哪些, 如何…) and "which version" are taken out before the bigrams are made, so they
  never pair with the words around them.
- **Words of where things stand**: a question's status word meets the others of its group, in either language,
  at half weight (STATUS_GROUPS: done / 完成, fixed / 修复 / 修好, merged / 合入 / 合进, tested / 测过, blocked /
  阻塞, remaining / 还差 / 剩余…), when the entry does not hold the word itself.
- **Words of a topic**: a question's word meets the others of its group in a thesaurus of the words developers use
  for one another (`thesaurus.TOPIC_GROUPS`: temporary / throwaway / scratch / 临时, theme / scheme / 配色, secret /
  token / 密钥, leak / expose / 暴露…) at TOPIC_SYNONYM_FACTOR, when the entry does not hold the word itself. British
  spellings are folded into American ones on both sides first (`text.spelling`: colour / color, initialise /
  initialize, catalogue / catalog).
- **Function words**: "are", "on", "before"… are not topic terms, but one the question shares with an entry that
  holds some of its topic adds a small share (FUNCTION_WEIGHT) of its BM25 — "what is X waiting on" prefers "X
  depends on Y" to "X (not started)". Articles and the words that make a sentence a question never count.
- **Words that name the file**: in an untagged library, a query word that its file name or H1 holds ("P2-M1" in
  `p2-m1_user_acceptance.md`) counts for half (NAMED_TERM_FACTOR) in that file's entries — it picks the file, which
  the library dimension rewards, and tells none of its entries from another. A name spelled as a compound
  ("notes-mcp") and its parts ("notes", "mcp") count there once, by the best of them.
- **Context fields**: an entry's chapter title and the `###` heading it sits under count as low-weight fields of
  the entry (× 0.3 and × 0.2, BM25F-style), so "- [✅] Step 0.1" under "## Phase 0 完成总结" answers a question
  about Phase 0. A block of several paragraphs scores as its best paragraph when that one scores higher alone, and
  the hit is then that paragraph.
- **Phrases and answer shapes**: two query words standing side by side in an entry add a share of their IDF
  (PHRASE_WEIGHT; Latin words — CJK bigrams carry adjacency already), and a question that asks when, where, how
  many, which version, which commit, why, what to do or whether it may prefers, among the entries holding its
  words, those holding a date or time, a path or file name, a count ("18 color themes", "3次", not an id's digits),
  a version, a commit hash, a cause ("根因", "because") or a fix
  ("修复", "workaround"), and one that asks what a rule allows ("can I", "should I", "要不要") those stating a rule
  ("never", "only", "必须", "不要") (× ANSWER_FACTOR). In an error book (`### 3. pip 网络中断` / `- 现象：…` / `- 根因：…` /
  `- 修复：…`) the question repeats what was seen and the cause or fix after it answers, in words of its own: such an
  entry scores as the best entry before it in its `###` block, × ANSWER_FACTOR (`_cause_after_symptom`).
- **Lead-ins**: the chapter title, the `###` heading and a lead-in line ("**B 层：受控回放测试**", "Key
  components:") are an entry's context; the line that opened an entry counts at HEADING_LINE_WEIGHT.
- **Boosts** (multiplying an entry's BM25, so they can lift a good entry but never make one): the seed's
  dimensions (almost-for-ever) — ① library tag, ② chapter tag, ③ parent category, ④ heading coverage (chapter
  title and `###` heading), weighted as the seed weighs them (4 : 3 : 0.5 : 8 × coverage, × 0.45 for a one-word
  query) and scaled down so that all of them together at most double an entry's score. In an untagged library the
  heading and the library's own name lift an entry by the share of the query's words they hold.
- **Order**: an entry that holds some of the query's words always ranks above one that holds none, however much
  the latter is boosted. Entries holding none come last, and only when their chapter or library matched (the
  first entry of such a chapter stands for it), so a question answered only by a heading still gets an answer.
- **Tiers**: hand-tagged libraries use the strict tier (their entries count only once a topic dimension — a tag,
  the parent category or the heading — matched, which keeps incidental words out); untagged libraries use the
  loose tier (the body may match alone) and take their library "tags" from the file name and H1.
- **Status intent** ("做到哪一步了", "how far did X get", "done yet", "还在进行吗", and a yes/no question about a
  state: "X 修好了吗", "is X merged", "has X been built"): applies to the entry's own words — entries carrying a status (done / open markers, checkboxes, dates, 现状 / 状态 / currently) are
  preferred, the latest of them in an append-only log first; when the question names a state (blocked, pending, 进行中…), entries in that state
  gain and those in the opposite state lose (the seed's × 1.15 / × 0.85). A record written as fields (`- **任务名称**:
  …` / `- **阶段**: 执行中`, `### BUG-005` / `- **Status:** KNOWN`) is named by one field and says where it stands in
  another: when its best field says no state, the field keyed as one answers (`_state_of_record`).

`score_chapter` keeps the seed's six dimensions at chapter level (it is what the boosts and the strict tier read).
"""

from __future__ import annotations

import functools
import math
import os
import re
from collections import Counter
from collections.abc import Set as AbstractSet
from dataclasses import dataclass

from ..rank.keywords import stem as engine_stem
from .library import CJK, Chapter, Entry, Library
from .thesaurus import TOPIC_GROUPS

W_LIBRARY_TAG = 4.0
W_CHAPTER_TAG = 3.0
W_PARENT = 0.5
W_HEADING = 8.0
SHORT_QUERY_FACTOR = 0.45  # the seed's "55 % off" for one-word queries: one hit is not 100 % evidence
W_BODY = 2.0
OPEN_FACTOR, CLOSED_FACTOR = 1.15, 0.85
DEFAULT_BUDGET = 700
DEFAULT_HITS = 3

BM25_K1, BM25_B = 1.2, 0.75
TOPIC_SCALE = 1.0 / (W_LIBRARY_TAG + W_CHAPTER_TAG + W_PARENT + W_HEADING)  # all dimensions together: × 2
# Untagged libraries: the heading (chapter title and `###`) and the library's own name (file name, H1), each by the
# share of the query's words it holds — a file named after one word of a long question is no answer to all of it.
W_LOOSE_HEADING, W_LOOSE_HEADING_STATUS, W_LOOSE_LIBRARY = 0.5, 1.0, 0.8
HEADING_LINE_WEIGHT = 0.5
CHAPTER_FIELD_WEIGHT, HEADING_FIELD_WEIGHT = 0.3, 0.2  # an entry's chapter title and `###` heading, as fields
NAMED_TERM_FACTOR = 0.5  # a query word that names the entry's (untagged) library, counted in its body
# BM25's length normalisation rewards a short entry; below half the average length it rewards it no further, so a
# bare link or a one-word list item holding one of the query's words does not outrank the entry that answers.
SHORT_ENTRY_FLOOR = 0.5
COORDINATION = 0.4  # an entry holding all of the query's words counts fully, one holding a few a bit less
STATUS_FACTOR = 1.4  # an entry that says how far something got, when the question asks exactly that
RECENCY_FACTOR = 0.3  # the latest status in a log (its position in the file) gains up to this much more
LATEST_FACTOR = 1.3  # …and the last entry of a file that speaks of it gains this

PARENTS = {"项目", "游戏", "工具", "学术", "网络", "project", "game", "tool", "research", "network"}
PROGRESS_WORDS = ("做到哪", "到哪了", "到哪一步", "哪一步", "进度", "进展", "状态", "怎么样了", "完成了吗", "完成没",
                  "实现了吗", "关闭了吗", "关了吗", "做完了吗", "还在", "还是已完成", "status", "progress",
                  "where was i", "where did i", "how far", "done yet", "finished yet", "still", "is it done")
# "待" + a verb is work still to do ("待完善功能", "待验证", "待联调"); "待" alone is not ("期待", "等待", "对待").
OPEN_WORDS = ("进行中", "未完成", "未开始", "未实现", "未启动", "未处理", "未修复", "没开始", "待办", "待修", "待开始", "待定", "待完善", "待实现", "待优化", "待验证", "待验收",
              "待联调", "待处理", "待测", "待补", "待做", "待发", "暂缓", "阻塞", "搁置", "暂停", "不可用", "暂时",
              "还没", "尚未", "卡在", "卡住", "未解决", "剩下", "剩余", "todo", "in progress", "in_progress",
              "in-progress", "ongoing", "wip", "pending", "blocked", "backlog", "not yet", "not started",
              "not implemented", "stuck", "on hold",
              "paused", "unavailable", "broken", "failing", "remaining", "left to build", "☐", "[ ]", "⏳", "🔄",
              "🚧", "⏸")
CLOSED_WORDS = ("已完成", "已结束", "完结", "已结项", "已关闭", "关闭", "完成", "通过", "已修复", "已解决", "解决了",
                "搞定", "上线", "done", "finished", "closed", "complete", "completed", "merged", "passed", "pass",
                "archived", "fixed", "resolved", "shipped", "released", "works", "✅", "[x]", "☑")
# Words that say an entry describes where something stands now, open or closed.
STATE_WORDS = ("当前", "目前", "现在", "现状", "截至", "状态", "进度", "做到", "status", "currently", "as of", "so far")
# What a yes/no question asks about when it asks about a state ("is X finished", "X 修好了吗", "has X been merged",
# "测过了吗"): such a question is a status question, answered by the entries that say where X stands.
STATE_PREDICATES = ("完成", "做完", "做了", "做好", "修好", "修复", "修了", "解决", "处理", "合进", "合入", "合并", "通过",
                    "测过", "测试过", "跑过", "验证", "上线", "发布", "关闭", "关掉", "关了", "实现", "建好", "建了",
                    "好了", "定了", "开始", "开工", "结束", "触发", "启用", "done", "finished", "fixed", "merged",
                    "resolved", "closed", "complete", "completed", "implemented", "built", "tested", "passed",
                    "released", "shipped", "deployed", "ready", "working", "started", "running", "broken",
                    "blocked", "solved", "landed", "triggered", "enabled")
# The words of where things stand, grouped by what they say, in both languages: a question's word meets the others
# of its group at SYNONYM_FACTOR ("修好了吗" finds "已修复", "is it merged" finds "合入", "还差什么" finds "剩余").
SYNONYM_FACTOR = 0.5
# The words of a topic people use for one another ("temporary" / "throwaway" / 临时, "theme" / "配色", "secret" /
# "token" / 密钥: `thesaurus.TOPIC_GROUPS`) meet at TOPIC_SYNONYM_FACTOR, when the entry does not hold the
# question's own word, by at most the IDF of the word itself (of the group's words when no entry holds it): an entry
# holding the question's word counts more than one holding only a word of its group. Measured on the five memory
# evals: 0.2 to 0.3 gain and lose nothing; from 0.4 a held-out set loses a question at top-3 (synonyms outvote
# the words an entry shares with the question); counting a synonym once however often it is said lost one at top-1.
TOPIC_SYNONYM_FACTOR = 0.25
STATUS_GROUPS = ("done finished completed complete 完成 做完 搞定 结束",
                 "fixed fix resolved solved 修复 修好 解决",
                 "merged merge landed 合并 合入 合进",
                 "tested test verified 测试 测过 验证",
                 "blocked blocker stuck 阻塞 卡住 卡在",
                 "remaining left missing todo 剩余 剩下 还差 待办",
                 "started start begin 开始 开工 启动",
                 "released release shipped deployed publish 发布 上线 部署",
                 "ran run running 跑过 运行 执行")
# What a status question says about itself rather than about its topic: kept out of the topic terms.
QUESTION_PHRASES = ("做到哪一步了", "做到哪一步", "做到哪了", "做到哪", "到哪一步了", "到哪一步", "到哪了", "哪一步",
                    "怎么样了", "进行中还是已完成", "还是已完成", "完成了吗", "实现了吗", "关闭了吗", "做完了吗",
                    "how far did", "how far", "done yet", "finished yet")
# Negations ("not", "no") are not stop words: memory files state rules and limits by them ("do not commit
# generated files", "no tests for the exporter", "is not shared between workers"), and a question that says "not"
# asks for the entry that says it. Common words, so their IDF keeps them weak.
STOP_WORDS = frozenset(
    "a an the and or of to in on for with at by from is are was were be been it this that these those i me my we "
    "our you your he she they them what which who whom how why when where do does did can could should would "
    "will shall about into over there here any some all yes use used using get got yet now ever also just "
    "please after before than then".split()
)
# Function words are left out of the topic but not thrown away: one the question shares with an entry ("tokens are
# processed", "depends on") adds FUNCTION_WEIGHT of its IDF to an entry that holds some of the topic, never to one
# that holds none, and never counts towards an entry's length or the share of the query it holds. Articles and the
# words that make a sentence a question are its form and count for nothing.
FUNCTION_WEIGHT = 0.3
FUNCTION_WORDS = STOP_WORDS - frozenset("a an the what which who whom how why when where do does did".split())
CJK_STOP = frozenset("的了吗呢吧啊是在有和与及或这那哪我你他她它们都也就还又很把被让给对从为以而但")
CJK_STOP_BIGRAMS = frozenset({"什么", "怎么", "哪里", "哪个", "如何", "为什", "么样", "一下", "我们", "你们",
                              "他们", "这个", "那个", "是不", "不是", "之前", "以后", "的时", "时候", "在哪"})
# "那个阶段", "这些问题": a demonstrative and its measure word point at the topic and are none of it; read as
# bigrams, the measure word also pairs with the noun after it ("个阶") and met "5 个阶段" in an unrelated entry.
DETERMINERS = re.compile("[这那哪每某][个些种次件位条样]")
# (An A-not-A question, 会不会 / 能不能 / 有没有 / 是不是, asks yes or no as 是否 does.)
CJK_QUESTION_WORDS = re.compile("为什么|什么样|什么|为何|哪些|哪个|哪里|哪儿|哪天|怎么样|怎么|怎样|如何|是否|多少|几个|可不可以|"
                                "([\u4e00-\u9fff])[不没]\\1")
VERSION_QUESTION = re.compile(r"哪个版本|什么版本|哪一版|\b(?:which|what) version\b", re.IGNORECASE)
# A yes/no question about what exists or what something can do, not about where work stands: "is there a working
# example?", "does it support running tests?", "do we have a built-in parser?", "能通过 API 调用吗", "有没有现成的模板".
EXISTENCE = re.compile(r"^\s*(?:is|are|was|were) there\b|^\s*(?:do|does|did) (?:we|you|i|it|they|this|that|the \S+) "
                       r"(?:have|has|support|handle|allow|need|use)\b|^\s*(?:can|could) |有没有", re.IGNORECASE)
ABILITY_WORDS = ("能", "可以", "会")  # "能…吗" asks what something can do ("能否" and "是…能" excepted)


def _asks_existence(query: str) -> bool:
    """Whether a yes/no question asks what exists or what something can do (EXISTENCE, or "…能…吗"). Written as
    string steps, not one pattern: the pattern it replaced backtracked quadratically on a long question."""
    if EXISTENCE.search(query):
        return True
    text = query.strip().rstrip("？?").rstrip()
    if not text.endswith("吗") or "能否" in text:
        return False
    first = min((i for i in (text.find(w) for w in ABILITY_WORDS) if i >= 0), default=-1)
    return first >= 0 and "是" not in text[:first]


ALREADY = re.compile(r"\b(?:yet|already|by now)\b|了", re.IGNORECASE)  # "can it be released yet?" asks where it stands
YES_NO = re.compile(r"(吗|没有|了没|没)\s*(?:[？?]\s*)?$|^\s*(is|are|was|were|has|have|did|does|do)\b|\byet\b", re.IGNORECASE)
WORD = re.compile(r"[A-Za-z0-9_]+(?:[.:\-/][A-Za-z0-9_]+)*")
PART = re.compile(r"[A-Za-z0-9]+")
# A word and the number after it name one thing ("Week 10", "Phase 4", "Task #19", "Step 3.2"): the pair is a term
# of its own, so "Week 10 plan" is answered by week 10, not by any week that mentions a plan.
NUMBERED_NAME = re.compile(r"\b([A-Za-z]{2,})(?:[ \t]+#?|[ \t]*#)(\d+(?:\.\d+)*)\b")
CJK_RUN = re.compile(r"[\u3400-\u9fff\uf900-\ufaff]+")
DATE = re.compile(r"\b(?:19|20)\d\d[-/.]\d{1,2}[-/.]\d{1,2}\b|\d{4}年|\d{1,2}月\d{1,2}日|"
                  r"\b(?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]* \d{1,2}\b", re.IGNORECASE)
PREFIX_MIN = 4
# A thesaurus word meets the longer words it begins only from this many letters: its four-letter words are short
# forms (temp, auth, repo, spec, memo, quit, stat) that begin other words (template, author, report, specific,
# memory, quite, status). The entries' words that begin a thesaurus word still meet it (temp, auth, retr).
SYNONYM_PREFIX_MIN = 5
# Two query words standing side by side in an entry (a phrase: "rate limiting", "default gateway") add this share
# of their IDF once more. Latin words only: CJK bigrams already carry adjacency within a run.
PHRASE_WEIGHT = 0.3
# What a question asks for, read from its first words ("when…", "where…", "how many…", "why…", "多少", "什么时候",
# "哪个版本", "为什么", "怎么办"): an entry that holds the query's words and something of that shape (a date or time, a
# path or file name, a number, a version, a commit hash, a cause, a fix) gains ANSWER_FACTOR — "where is
# libpython3.12.so" is answered by the line that gives a path.
ANSWER_FACTOR = 1.3
# "Why" asks for a cause: a pitfall or bug log says what was seen (in the question's own words) and then why it
# happened ("根因", "because", "导致"); the latter answers. "What should I do", "怎么办" asks for a remedy: the entry
# that says what fixes it or what to do instead.
CAUSE_SHAPE = (
    re.compile(r"\bwhy\b|\bwhat (?:made|makes|caused|causes)\b|\bhow come\b|为什么|为何|什么原因|怎么回事|原因", re.IGNORECASE),
    re.compile(r"\b(?:because|due to|caused|causes|cause|reasons?|root cause|so that)\b|因为|由于|原因|根因|导致|造成|所以|是因",
               re.IGNORECASE))
FIX_SHAPE = (
    re.compile(r"怎么办|怎么解决|如何解决|怎么修|\bhow (?:do|can|should) (?:i|we) (?:fix|solve|get around)\b|"
               r"\bwhat should (?:i|we) (?:do|check)\b|\bworkaround\b", re.IGNORECASE),
    re.compile(r"\b(?:fix|fixed|workaround|solution|solved|resolve|resolved|instead|ensure|check)\b|修复|解决|办法|方案|"
               r"改为|改成|换成|换用|应该|需要", re.IGNORECASE))
# "Can I…", "should I…", "is it ok to…", "要不要", "能不能" asks what a rule allows: the entry that states one ("never",
# "always", "only", "must", "do not", 禁止, 必须, 不要) answers — AGENTS.md and CLAUDE.md files are written in rules.
RULE_SHAPE = (
    re.compile(r"^\s*(?:can|may|should|must|shall) (?:i|we)\b|\bis it (?:ok|okay|fine|allowed|safe)\b|\bam i allowed\b|"
               r"\b(?:do|does) (?:i|we) (?:need|have) to\b|可以.{0,20}吗|能不能|要不要|是否允许|该不该|允许.{0,10}吗",
               re.IGNORECASE),
    re.compile(r"\b(?:never|always|must|do not|don't|dont|only|avoid|shouldn't|should not|required|forbidden|not allowed)\b|"
               r"禁止|不要|必须|不得|不能|只能|务必|严禁|不允许|一律|不准", re.IGNORECASE))
# "How many…", "多少", "几次" asks for a count: a number that counts something ("18 color themes", "1095 行", "3次",
# "37 → 44", a log line's "检索到 {len(memories)} 条"), not any digit — an id ("CLEANUP-003"), a list number ("5."),
# a date or a version holds digits too.
COUNT = re.compile(r"(?:(?<![A-Za-z0-9_.,\-/#])\d+(?:,\d{3})*(?:\.\d+)?|\{[^{}\n]{1,40}\})[ \t]*"
                   r"(?:[次行个条项篇天人步秒倍%]|[a-z]{3,})|\d\s*(?:→|->)\s*\d", re.IGNORECASE)
ANSWER_SHAPES = (
    (re.compile(r"^\s*(when|what time|what date|since when)\b|什么时候|何时|哪天|哪一天|几点|日期", re.IGNORECASE),
     re.compile(r"\b(?:19|20)\d\d[-/.]\d{1,2}[-/.]\d{1,2}|\d{4}年|\d{1,2}月\d{1,2}[日号]|\b\d{1,2}:\d{2}\b|"
                r"\b(?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]* \d{1,2}\b", re.IGNORECASE)),
    (re.compile(r"^\s*where\b|在哪|哪里|哪个目录|路径|目录在", re.IGNORECASE),
     re.compile(r"[\\/]\S|\w\.(?:md|py|json|ya?ml|toml|txt|sh|js|ts|so|log|cfg|ini)\b", re.IGNORECASE)),
    (re.compile(r"^\s*how (many|much|long|big|large|often)\b|多少|几个|几条|几次|几步|几行|几天|几篇|几项|几人",
                re.IGNORECASE), COUNT),
    (re.compile(r"\b(which|what) version\b|版本号|哪个版本|什么版本|依赖版本", re.IGNORECASE),
     re.compile(r"\d\.\d|\bv\d")),
    (re.compile(r"\b(which|what) commits?\b|\bcommit (id|hash|sha)\b|哪个提交|哪次提交|提交号", re.IGNORECASE),
     re.compile(r"\b(?=[0-9a-f]*\d)(?=[0-9a-f]*[a-f])[0-9a-f]{7,40}\b")),
) + (CAUSE_SHAPE, FIX_SHAPE, RULE_SHAPE)
FOLLOWING_SHAPES = (CAUSE_SHAPE, FIX_SHAPE)
# A record written as fields, one list item each (`- **任务名称**: 抖音推介…` / `- **阶段**: 执行中` / `- **下一步**: …`,
# `### BUG-005` / `- **File:** …` / `- **Status:** KNOWN`, `## … | M1.2` / `- Status: done` / `- Next: …`): one field
# names the thing, another says where it stands. A status question names the thing; the field of its state answers
# (`_state_of_record`).
# The key starts with a non-space, so the spaces before it are read one way only (linear on any line).
FIELD = re.compile(r"^[ \t]*(?:[-*+]|\d+[.)])[ \t]+(?:\*\*|__)?([^\s*_:：][^*_:：\n]{0,23}?)(?:\*\*|__)?[ \t]*[:：]")
STATE_KEYS = frozenset(("status", "state", "stage", "phase", "progress", "next", "next step", "next steps", "状态",
                        "阶段", "进度", "进展", "下一步", "现状", "当前状态", "当前阶段", "当前进度"))  # what an error book says after the problem (`_cause_after_symptom`)
TOKEN = re.compile(r"[\u3400-\u9fff\uf900-\ufaff]+|[A-Za-z0-9]+")
MONTHS = {m: i + 1 for i, m in enumerate("jan feb mar apr may jun jul aug sep oct nov dec".split())}
MONTH_DAY = re.compile(r"\b(?:19|20)\d\d[-/.](\d{1,2})[-/.](\d{1,2})\b|(\d{1,2})月(\d{1,2})[日号]|"
                       r"\b(jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*\.? (\d{1,2})\b", re.IGNORECASE)


def _month_days(text: str) -> list[str]:
    """`2025-07-28`, `7月28日` and `Jul 28` all give the token `07-28`, so a date asked one way finds it written
    another."""
    out = []
    for match in MONTH_DAY.finditer(text):
        month, day = (match.group(1), match.group(2)) if match.group(1) else (
            (match.group(3), match.group(4)) if match.group(3) else (MONTHS[match.group(5).lower()[:3]], match.group(6)))
        month, day = int(month), int(day)
        if 1 <= month <= 12 and 1 <= day <= 31:
            out.append(f"{month:02d}-{day:02d}")
    return out


@functools.lru_cache(maxsize=65536)
def stem(word: str) -> str:
    """The ranking engine's stemming (`core.keywords.stem`): a British spelling folded into the American one
    (`text.spelling`: "colours" -> "color"), then one English inflection off, the stem a prefix."""
    return engine_stem(word.lower())


def _latin(token: str) -> str | None:
    lowered = token.lower()
    if lowered in STOP_WORDS or (len(lowered) < 2 and not lowered.isdigit()):
        return None
    return stem(lowered) if lowered.isalpha() else lowered


def terms(text: str) -> list[str]:
    """What a text is compared by, with repeats: CJK bigrams (a lone character stands alone) and stemmed Latin
    words; a compound such as `M1.2` or `22:26` counts whole and by its parts."""
    out: list[str] = _month_days(text)
    for run in CJK_RUN.findall(MONTH_DAY.sub(" ", text)):
        if len(run) == 1:
            if run not in CJK_STOP:
                out.append(run)
            continue
        for i in range(len(run) - 1):
            pair = run[i : i + 2]
            if pair not in CJK_STOP_BIGRAMS and not (pair[0] in CJK_STOP and pair[1] in CJK_STOP):
                out.append(pair)
    for token in WORD.findall(text):
        parts = PART.findall(token)
        if len(parts) > 1 or "_" in token:
            out.append(token.lower())
        for part in parts:
            term = _latin(part)
            if term:
                out.append(term)
    for word, number in NUMBERED_NAME.findall(text):
        name = _latin(word)
        if name:
            out.append(f"{name} {number}")
    return out


def units(text: str) -> set[str]:
    """The distinct terms of a text."""
    return set(terms(text))


@functools.lru_cache(maxsize=1)
def _status_synonyms() -> dict[str, set[str]]:
    """Each term of STATUS_GROUPS and the other terms of its group."""
    out: dict[str, set[str]] = {}
    for group in STATUS_GROUPS:
        words = set().union(*(units(w) for w in group.split()))
        for word in words:
            out.setdefault(word, set()).update(words - {word})
    return out


@functools.lru_cache(maxsize=1)
def _topic_synonyms() -> dict[tuple[str, ...], frozenset[tuple[str, ...]]]:
    """Each word of the thesaurus's TOPIC_GROUPS and the other words of its groups, a word as the terms it is
    compared by: one, or the bigrams of a CJK word of three characters or more (数据库 is 数据 + 据库, and only a
    text holding both says it: 数据 alone is "data", not "database")."""
    out: dict[tuple[str, ...], set[tuple[str, ...]]] = {}
    for group in TOPIC_GROUPS:
        words = {tuple(sorted(units(w))) for w in group.split()} - {()}
        for word in words:
            out.setdefault(word, set()).update(words - {word})
    return {word: frozenset(others) for word, others in out.items()}


def _synonyms_held(wanted: set[str], vocabulary: set[str]) -> dict[str, set[str]]:
    """For each of the `wanted` words, the entries' terms that it meets: itself, and for a Latin word the terms it
    is a prefix of or that are a prefix of it. One pass over the vocabulary, a few set look-ups per term."""
    out: dict[str, set[str]] = {w: set() for w in wanted}
    longer: dict[str, list[str]] = {}  # a prefix of a wanted word (PREFIX_MIN letters or more) -> those words
    for word in wanted:
        if word.isalpha() and not CJK.match(word):
            for k in range(PREFIX_MIN, len(word)):
                longer.setdefault(word[:k], []).append(word)
    for term in vocabulary:
        if term in out:
            out[term].add(term)
        if len(term) < PREFIX_MIN or CJK.match(term) or not term.isalpha():
            continue
        for word in longer.get(term, ()):
            out[word].add(term)
        for k in range(SYNONYM_PREFIX_MIN, len(term)):
            head = term[:k]
            if head in out and head.isalpha():
                out[head].add(term)
    return out


def _matches(unit: str, pool: AbstractSet[str]) -> bool:
    if unit in pool:
        return True
    if CJK.match(unit) or len(unit) < PREFIX_MIN or not unit.isalpha():
        return False
    return any(len(other) >= PREFIX_MIN and (other.startswith(unit) or unit.startswith(other)) for other in pool)


def coverage(query: set[str], text_units: AbstractSet[str]) -> float:
    if not query:
        return 0.0
    return sum(1 for u in query if _matches(u, text_units)) / len(query)


@functools.lru_cache(maxsize=65536)
def _covered(query: frozenset[str], label: frozenset[str]) -> float:
    """`coverage` of a question by a label's units, kept: asked again for every entry under the label."""
    return coverage(set(query), label)


@functools.lru_cache(maxsize=16384)
def _label_units(text: str) -> frozenset[str]:
    """`units` of a label — tags, a chapter title with a `###` heading, a library's name — kept: the same few
    strings are asked about for every entry under them, and cutting them each time was most of a question's time
    on a long log."""
    return frozenset(terms(text))


def _tag_units(tags: list[str]) -> frozenset[str]:
    return _label_units(" ".join(tags))


@dataclass
class Hit:
    library: Library
    chapter: Chapter
    entry: Entry | None
    score: float

    @property
    def start(self) -> int:
        return self.entry.start if self.entry else self.chapter.start

    @property
    def end(self) -> int:
        return self.entry.end if self.entry else self.chapter.end

    @property
    def location(self) -> str:
        return f"{self.library.path.rsplit('/', 1)[-1]}:{self.start}-{self.end}"


# --- the seed's dimensions, at chapter level -----------------------------------------------------------------


def _status_factor(query: str, chapter: Chapter, library: Library) -> float:
    q = query.lower()
    if not any(word in q for word in PROGRESS_WORDS):
        return 1.0
    labels = " ".join(chapter.tags + library.tags + [chapter.title]).lower()
    if any(word in labels for word in OPEN_WORDS):
        return OPEN_FACTOR
    if any(word in labels for word in CLOSED_WORDS):
        return CLOSED_FACTOR
    return 1.0


def _library_units(library: Library) -> frozenset[str]:
    return _tag_units(library.tags) if library.tagged else _label_units(f"{library.stem} {library.h1}")


def topic_score(query: str, q: set[str], library: Library, chapter: Chapter, heading: str = "") -> float:
    """Dimensions ① to ④: library tag, chapter tag, parent category, heading coverage (the chapter title, and for
    an entry its `###` heading too)."""
    topic = 0.0
    asked = frozenset(q)
    if _covered(asked, _library_units(library)):
        topic += W_LIBRARY_TAG
    chapter_tags = _tag_units(chapter.tags)
    if chapter_tags and _covered(asked, chapter_tags):
        topic += W_CHAPTER_TAG
    mentioned = {p for p in PARENTS if p in query.lower()}
    if mentioned and mentioned & {t.lower() for t in chapter.tags + library.tags}:
        topic += W_PARENT
    title = chapter.title if not chapter.implicit else ""
    heading_cov = _covered(asked, _label_units(f"{title} {heading}"))
    topic += W_HEADING * heading_cov * (SHORT_QUERY_FACTOR if len(q) == 1 else 1.0)
    return topic


def score_chapter(query: str, q: set[str], library: Library, chapter: Chapter) -> float:
    """The seed's six dimensions for a whole chapter (① – ④ as above, ⑤ body coverage — for tagged libraries only
    once a topic matched — and ⑥ the status intent read from the chapter's labels)."""
    topic = topic_score(query, q, library, chapter)
    body = 0.0
    if topic > 0 or not library.tagged:
        body = W_BODY * coverage(q, units(chapter.text))
    return (topic + body) * _status_factor(query, chapter, library)


# --- entries -----------------------------------------------------------------------------------------------


def _entry_terms(entry: Entry) -> Counter:
    """An entry's terms with their counts; the `###` line that opened it counts at HEADING_LINE_WEIGHT (a title
    word is weaker evidence than the same word in the body)."""
    cached = entry.__dict__.get("_terms")
    if cached is None or cached[0] != entry.text:
        text = entry.text
        bag: Counter = Counter()
        if entry.opened_by_heading:
            first, _, text = text.partition("\n")
            for term, count in Counter(terms(first)).items():
                bag[term] += count * HEADING_LINE_WEIGHT  # type: ignore[assignment]  # a weighted, float count
        bag.update(terms(text))
        cached = (entry.text, bag)
        entry.__dict__["_terms"] = cached
    return cached[1]


def status_intent(query: str) -> bool:
    """Whether a question asks where something stands: it says so ("做到哪一步了", "how far did X get"), or it asks
    yes or no about a state ("is X finished", "X 修好了吗", "has X been merged")."""
    q = query.lower()
    if any(word in q for word in PROGRESS_WORDS):
        return True
    if not YES_NO.search(query) or (_asks_existence(query) and not ALREADY.search(query)):
        return False
    words = set(re.findall(r"[a-z]+(?:-[a-z]+)*", q))  # ("built-in" is not "built")
    return any((w in words) if w.isascii() else (w in q) for w in STATE_PREDICATES)


def _states(text: str) -> tuple[bool, bool]:
    """Whether a text marks something open, and whether it marks something closed (its own words)."""
    lowered = text.lower()
    words = set(re.findall(r"[a-z_]+", lowered))
    is_open = any((w in words) if w.replace("_", "").isalpha() and w.isascii() else (w in lowered)
                  for w in OPEN_WORDS)
    is_closed = any((w in words) if w.isalpha() and w.isascii() else (w in lowered) for w in CLOSED_WORDS)
    return is_open, is_closed


def _query_terms(query: str) -> tuple[set[str], str]:
    """The topic terms of a query (what a status question says about itself taken out) and the text they came
    from."""
    text = query
    if status_intent(query):
        for phrase in QUESTION_PHRASES:
            text = re.sub(re.escape(phrase), " ", text, flags=re.IGNORECASE)
    # A Chinese question word is the question's form, not its topic, and its characters would pair with the words
    # around it into bigrams no answer holds ("有哪些用例" -> "些用", "是什么用例" -> "是什", "么用").
    # Asking which version is the question's form too: the answer shape (a version number) is what it looks for,
    # and an entry that says "版本" or "version" without the thing asked about is no answer.
    text = DETERMINERS.sub(" ", CJK_QUESTION_WORDS.sub(" ", VERSION_QUESTION.sub(" ", text)))
    q = units(text)
    return (q or units(query)), text


@dataclass
class _Candidate:
    library: Library
    chapter: Chapter
    entry: Entry
    topic: float


@functools.lru_cache(maxsize=4096)
def _title_terms(title: str) -> Counter:
    return Counter(terms(title))


def _with_context(candidate: _Candidate) -> Counter:
    """An entry's terms plus, at low weight, those of where it stands: its chapter's title and the `###` heading
    it sits under (BM25F-style context fields). A log's headings say what its entries are about ("Phase 0 完成总结"
    over "- [✅] Step 0.1"); at these weights they decide between entries, never for them."""
    bag = _entry_terms(candidate.entry)
    title = "" if candidate.chapter.implicit else candidate.chapter.title
    heading = candidate.entry.heading if not candidate.entry.text.startswith("#") else ""
    lead_in = candidate.entry.lead_in
    if not title and not heading and not lead_in:
        return bag
    bag = bag.copy()
    for weight, words in ((CHAPTER_FIELD_WEIGHT, title), (HEADING_FIELD_WEIGHT, heading), (HEADING_FIELD_WEIGHT, lead_in)):
        for term, count in _title_terms(words).items():
            bag[term] += weight * count  # type: ignore[assignment]  # a weighted, float count
    return bag


def _part_terms(entry: Entry) -> list[tuple[Entry, Counter]]:
    """The paragraphs of a block entry with their terms (cached on the entry, like `_entry_terms`)."""
    cached = entry.__dict__.get("_part_terms")
    if cached is None or cached[0] != entry.text:
        cached = (entry.text, [(part, _entry_terms(part)) for part in entry.part_entries()])
        entry.__dict__["_part_terms"] = cached
    return cached[1]


@functools.lru_cache(maxsize=65536)
def _latin_sequence(text: str) -> tuple[str, ...]:
    """A text's Latin words (stemmed, stop words out) in the order they stand, a CJK run as a gap ("") between
    them, for phrase matching."""
    out: list[str] = []
    for token in TOKEN.findall(text):
        if CJK.match(token):
            out.append("")
        else:
            term = _latin(token)
            if term:
                out.append(term)
    return tuple(out)


@functools.lru_cache(maxsize=65536)
def _function_words(text: str) -> Counter:
    """The FUNCTION_WORDS a text holds, with their counts (shared from a cache: not to be changed)."""
    return Counter(w for w in (t.lower() for t in PART.findall(text)) if w in FUNCTION_WORDS)


def _bm25(candidates: list[_Candidate], q: set[str], order: tuple[str, ...] = (),
          function_words: frozenset[str] = frozenset()) -> list[tuple[float, float, Entry]]:
    """Each candidate's BM25 over the entries (plus PHRASE_WEIGHT for each pair of query words, `order` being the
    query's words as it says them, that the entry holds side by side, and FUNCTION_WEIGHT of the BM25 of the
    query's `function_words` it holds), the share of the query's (IDF-weighted) topic terms it holds, and the entry
    that earned it: a block of several paragraphs scores as its best paragraph when
    that one scores higher alone (the block's other paragraphs dilute a match; the answer is then that
    paragraph)."""
    bags = [_with_context(c) for c in candidates]
    n = len(bags)
    if not n:
        return []
    lengths = [sum(bag.values()) for bag in bags]
    avgdl = sum(lengths) / n or 1.0
    vocabulary = set().union(*bags)
    weights: dict[str, float] = {}  # the query's terms as the entries hold them, with their IDF
    matched_by: dict[str, set[str]] = {}
    total = 0.0
    synonyms: dict[str, set[str]] = {}  # a query word's synonyms the entries hold, counted at SYNONYM_FACTOR
    # …and the words of its topic groups they hold, at TOPIC_SYNONYM_FACTOR: single terms, and CJK words of several
    # bigrams that an entry holds only when it holds them all.
    related: dict[str, tuple[set[str], list[tuple[str, ...]]]] = {}
    related_idf: dict[str, float] = {}
    asked: dict[str, set[tuple[str, ...]]] = {}  # a query term -> the group words of a thesaurus word it opens
    if TOPIC_SYNONYM_FACTOR:
        for said, others in _topic_synonyms().items():
            if all(t in q for t in said):  # a word of several bigrams counts for its first, once
                asked.setdefault(said[0], set()).update(others)
    singles = {w[0] for words in asked.values() for w in words if len(w) == 1}
    held_by = _synonyms_held(singles, vocabulary) if singles else {}
    for term in q:
        matched = {t for t in vocabulary if t == term or (
            not CJK.match(term) and term.isalpha() and len(term) >= PREFIX_MIN and len(t) >= PREFIX_MIN
            and t.isalpha() and (t.startswith(term) or term.startswith(t)))}
        alike = (_status_synonyms().get(term, set()) & vocabulary) - matched if SYNONYM_FACTOR else set()
        wanted = asked.get(term, ())
        near = set().union(*(held_by[w[0]] for w in wanted if len(w) == 1)) - matched - alike
        near_words = [w for w in wanted if len(w) > 1 and all(t in vocabulary for t in w)]
        if not matched and not alike and not near and not near_words:
            continue  # a word no entry holds neither helps nor hurts
        if matched or alike:
            df = sum(1 for bag in bags if any(t in bag for t in matched | alike))
            weights[term] = math.log(1 + (n - df + 0.5) / (df + 0.5))
        if near or near_words:
            df = sum(1 for bag in bags if not near.isdisjoint(bag) or any(all(t in bag for t in w) for w in near_words))
            related_idf[term] = math.log(1 + (n - df + 0.5) / (df + 0.5))
            weights.setdefault(term, related_idf[term])
            related_idf[term] = min(related_idf[term], weights[term])
        matched_by[term] = matched
        synonyms[term] = alike
        related[term] = (near, near_words)
        total += weights[term]

    pairs = [(a, b) for a, b in zip(order, order[1:]) if a in weights and b in weights and a != b]
    held_words = [_function_words(c.entry.text) for c in candidates] if function_words else []
    function_idf: dict[str, float] = {}
    for word in function_words:
        df = sum(1 for words in held_words if word in words)
        if df:
            function_idf[word] = FUNCTION_WEIGHT * math.log(1 + (n - df + 0.5) / (df + 0.5))

    def phrases(text: str) -> float:
        """The IDF of the query's word pairs that stand side by side in the text."""
        seq = _latin_sequence(text)
        found = 0.0
        for a, b in pairs:
            if any(x in matched_by[a] and y in matched_by[b] or x in matched_by[b] and y in matched_by[a]
                   for x, y in zip(seq, seq[1:])):
                found += (weights[a] + weights[b]) / 2
        return found

    def score(bag: Counter, length: float, text: str, named: frozenset[str]) -> tuple[float, float]:
        value = held = name_value = name_held = 0.0
        length = max(length, SHORT_ENTRY_FLOOR * avgdl)
        for term, idf in weights.items():
            tf = sum(bag[t] for t in matched_by[term] if t in bag)
            share = NAMED_TERM_FACTOR if term in named else 1.0
            if not tf and synonyms[term]:
                tf = sum(bag[t] for t in synonyms[term] if t in bag)
                share *= SYNONYM_FACTOR
            near, near_words = related[term]
            if not tf and (near or near_words):
                tf = sum(bag[t] for t in near.intersection(bag)) + sum(
                    min(bag[t] for t in w) for w in near_words if all(t in bag for t in w))
                share, idf = share * TOPIC_SYNONYM_FACTOR, related_idf[term]
            if tf:
                gained = share * idf * tf * (BM25_K1 + 1) / (tf + BM25_K1 * (1 - BM25_B + BM25_B * length / avgdl))
                if term in named and term in name_parts:
                    # A file's name spelled as a compound ("notes-mcp") is one word of the question however many
                    # parts it has: the compound and its parts count once, by the best of them.
                    name_value, name_held = max(name_value, gained), max(name_held, share * idf)
                    continue
                value += gained
                held += share * idf
        value += name_value
        held += name_held
        if value and pairs:
            value += PHRASE_WEIGHT * phrases(text)
        if value and function_idf:
            words = _function_words(text)
            for word, idf in function_idf.items():
                tf = words.get(word, 0)
                if tf:
                    value += idf * tf * (BM25_K1 + 1) / (tf + BM25_K1 * (1 - BM25_B + BM25_B * length / avgdl))
        return value, (held / total if total else 0.0)

    # A query word that names an untagged library (its file name or H1: "P2-M1" in `p2-m1_user_acceptance.md`)
    # picks the file, which the library dimension rewards; inside that file it tells no entry from another, so it
    # counts for less in the file's entries than the words that do.
    named_in: dict[int, frozenset[str]] = {}
    for candidate in candidates:
        library = candidate.library
        if id(library) not in named_in:
            words = _library_units(library) if not library.tagged else set()
            named_in[id(library)] = frozenset(t for t in weights if words and _matches(t, words))

    # The query's compounds ("notes-mcp", "app_runtime.py") with their parts.
    compounds = {t: set(PART.findall(t)) for t in weights if not CJK.match(t) and len(PART.findall(t)) > 1}
    name_parts = frozenset(compounds).union(*({_latin(x) for x in parts} for parts in compounds.values()))

    out = []
    for candidate, bag, length in zip(candidates, bags, lengths):
        named = named_in[id(candidate.library)]
        best = (*score(bag, length, candidate.entry.text, named), candidate.entry)
        if best[0] > 0:
            for k, (part, part_bag) in enumerate(_part_terms(candidate.entry)):
                value, held = score(part_bag, sum(part_bag.values()), part.text, named)
                if value * (1 - COORDINATION + COORDINATION * held) > best[0] * (1 - COORDINATION + COORDINATION * best[1]):
                    # The first paragraph carries the block's heading, which speaks for the whole block: the
                    # answer stays the block (a heading's words often name what the code below it shows). So does
                    # a fenced code block: quoted output or a snippet shows what the prose around it says.
                    best = (value, held, part if k and not part.text.lstrip().startswith(("```", "~~~")) else candidate.entry)
        out.append(best)
    return out


def _boost(query: str, q: set[str], candidate: _Candidate, asks_status: bool) -> float:
    """How much the seed's dimensions lift an entry that holds some of the query's words (× 1 to × 2.8 for an
    untagged library whose title and name hold every word of the query). What the entries of one heading or one
    library share is worked out once (`_covered`)."""
    library, chapter = candidate.library, candidate.chapter
    if library.tagged:
        return 1 + TOPIC_SCALE * candidate.topic
    asked = frozenset(q)
    title = chapter.title if not chapter.implicit else ""
    heading = _covered(asked, _label_units(f"{title} {candidate.entry.heading}"))
    if len(q) == 1 and not asks_status:
        heading *= SHORT_QUERY_FACTOR  # one word in a title is weak evidence, unless it names what a status is about
    named = _covered(asked, _library_units(library))
    return 1 + (W_LOOSE_HEADING_STATUS if asks_status else W_LOOSE_HEADING) * heading + W_LOOSE_LIBRARY * named


def _cause_after_symptom(ranked: list[tuple[int, float, str, int, _Candidate]],
                         in_blocks: list[tuple[int, _Candidate, float]],
                         following: list[re.Pattern[str]]) -> list[tuple[int, float, str, int, _Candidate]]:
    """An error book states a problem as what was seen, then why, then what fixed it (`### 3. pip 网络中断` /
    `- 现象：…` / `- 根因：…` / `- 修复：…`): the question repeats what was seen, the answer follows it. An entry that
    gives a cause or a fix (`following`), after the best entry of its `###` block that gives neither, scores as that
    entry with ANSWER_FACTOR — though it may share none of the question's words. `in_blocks` holds each entry under a
    `###` heading with its block's number and its score; only the blocks where some entry scored are read."""
    scored = {block for block, _, score in in_blocks if score > 0}
    best: dict[int, tuple[float, int]] = {}
    shaped: list[tuple[int, _Candidate]] = []
    for block, candidate, score in in_blocks:
        if block not in scored:
            continue
        if any(shape.search(candidate.entry.text) for shape in following):
            shaped.append((block, candidate))
        elif score > best.get(block, (0.0, 0))[0]:
            best[block] = (score, candidate.entry.start)
    lifted: dict[int, tuple[float, _Candidate]] = {}
    for block, candidate in shaped:
        value, start = best.get(block, (0.0, 0))
        if value > 0 and candidate.entry.start > start:
            lifted[id(candidate.entry)] = (value * ANSWER_FACTOR, candidate)
    return _lifted(ranked, lifted, keep_higher=True)


def _is_legend(entry: Entry) -> bool:
    """Whether an entry is a row of a legend: a table row of two cells whose first is a symbol, no word
    (`| ✅ | All tests passed |`, `| [ ] | 待办 |`). It says what a symbol means, not where anything stands."""
    if entry.style != "table":
        return False
    line = entry.text.rsplit("\n", 1)[-1].strip()
    if not line.startswith("|"):
        return False
    cells = [cell.strip() for cell in line[1:].removesuffix("|").split("|")]
    return (len(cells) == 2 and 0 < len(cells[0]) <= 8 and bool(cells[1])
            and not any(ch.isalnum() or ch == "_" for ch in cells[0]))


def _field_key(entry: Entry) -> str | None:
    """The key of a list item written as a field (`- **Status:** done`, `- 阶段：执行中`), lower-cased; else None."""
    if entry.style not in ("list", "numbered"):
        return None
    lines = entry.text.split("\n", 2)
    line = lines[1] if entry.opened_by_heading and len(lines) > 1 else lines[0]
    match = FIELD.match(line)
    return match.group(1).strip().lower() if match else None


def _state_of_record(ranked: list[tuple[int, float, str, int, _Candidate]],
                     fields: list[tuple[tuple[str, int, str], _Candidate, float, bool, bool]]
                     ) -> list[tuple[int, float, str, int, _Candidate]]:
    """A status question about a record written as fields: when the record's best field names the thing without
    saying where it stands, the field whose key says it (STATE_KEYS: `Status`, `阶段`, `下一步`) scores as that field
    × ANSWER_FACTOR — though it may share none of the question's words. `fields` holds each field item with its record
    (file, chapter, `###` heading), its score, whether its key is a state's and whether its text says a state."""
    top: dict[tuple[str, int, str], tuple[float, bool]] = {}  # a record's best field: its score, whether a state
    for record, _, score, keyed, says in fields:
        if score > top.get(record, (0.0, True))[0]:
            top[record] = (score, keyed or says)
    lifted: dict[int, tuple[float, _Candidate]] = {}
    for record, candidate, score, keyed, _ in fields:
        best, best_is_state = top.get(record, (0.0, True))
        if keyed and not best_is_state and best * ANSWER_FACTOR > score:
            lifted[id(candidate.entry)] = (best * ANSWER_FACTOR, candidate)
    return _lifted(ranked, lifted, keep_higher=False)


def _lifted(ranked: list[tuple[int, float, str, int, _Candidate]], lifted: dict[int, tuple[float, _Candidate]],
            keep_higher: bool) -> list[tuple[int, float, str, int, _Candidate]]:
    """`ranked` with the entries of `lifted` (by id of the entry: its new score) in the first tier at their new
    score (with `keep_higher`, a score already higher in the first tier stays), and those not ranked yet added."""
    if not lifted:
        return ranked
    out = []
    for tier, score, path, line, candidate in ranked:
        if id(candidate.entry) in lifted:
            value, _ = lifted.pop(id(candidate.entry))
            score = max(value, score) if keep_higher and tier else value
            tier = 1
        out.append((tier, score, path, line, candidate))
    return out + [(1, value, c.library.path, c.entry.start, c) for value, c in lifted.values()]


def search(libraries: list[Library], query: str, max_hits: int = DEFAULT_HITS) -> list[Hit]:
    q, topic_text = _query_terms(query)
    if not q:
        return []
    asks_status = status_intent(query)
    # A question that names a state asks for the entries in it ("what is still blocked", "哪些还没完成"); one that
    # asks yes or no ("is X done yet", "X 完成了吗") is answered by either.
    wants_open, wants_closed = _states(query) if asks_status and not YES_NO.search(query) else (False, False)
    candidates: list[_Candidate] = []
    for library in libraries:
        for chapter in library.chapters:
            chapter_topic = None
            for entry in chapter.entries:
                topic = topic_score(query, q, library, chapter, entry.heading)
                if library.tagged:
                    if chapter_topic is None:
                        chapter_topic = topic_score(query, q, library, chapter)
                    if topic <= 0 and chapter_topic <= 0:
                        continue  # strict tier: a word in the body alone is noise in a hand-tagged library
                candidates.append(_Candidate(library, chapter, entry, topic))
    ranked: list[tuple[int, float, str, int, _Candidate]] = []
    stand_ins: set[int] = set()
    order = tuple(t for t in _latin_sequence(topic_text) if t in q or not t)  # "" keeps words apart
    shapes = [shape for asks, shape in ANSWER_SHAPES if asks.search(query)]
    function_words = frozenset(_function_words(topic_text))
    # A why or what-to-do question: the entries under a `###` heading, numbered by block, with their scores, for
    # the cause or fix after the best entry of a block (FOLLOWING_SHAPES, `_cause_after_symptom`).
    following = [shape for asks, shape in FOLLOWING_SHAPES if asks.search(query)]
    in_blocks: list[tuple[int, _Candidate, float]] = []
    fields: list[tuple[tuple[str, int, str], _Candidate, float, bool, bool]] = []  # a status question's field items
    block, last = 0, ("", "")  # a block: a run of entries of one file under one `###` heading
    for candidate, (body, held, answer) in zip(candidates, _bm25(candidates, q, order, function_words)):
        if answer is not candidate.entry:
            candidate = _Candidate(candidate.library, candidate.chapter, answer, candidate.topic)
        if (candidate.library.path, candidate.entry.heading) != last:
            block, last = block + 1, (candidate.library.path, candidate.entry.heading)
        score = 0.0
        if body > 0:
            score = body * (1 - COORDINATION + COORDINATION * held) * _boost(query, q, candidate, asks_status)
        if score > 0 and shapes and any(shape.search(candidate.entry.text) for shape in shapes):
            score *= ANSWER_FACTOR
        if score > 0 and asks_status and not _is_legend(candidate.entry):
            is_open, is_closed = _states(candidate.entry.text)
            if not (is_open or is_closed):  # a kanban-style file says it in a heading: `## In Progress`, `## Done`
                labels = [h for h in (candidate.chapter.title, candidate.entry.heading) if 0 < len(terms(h)) <= 4]
                is_open, is_closed = _states(" ".join(labels))
            text = candidate.entry.text.lower()
            if is_open or is_closed or DATE.search(text) or any(word in text for word in STATE_WORDS):
                score *= STATUS_FACTOR
                score *= 1 + RECENCY_FACTOR * candidate.entry.start / max(candidate.library.end, 1)
            if wants_open != wants_closed:
                if (is_open and wants_open) or (is_closed and wants_closed):
                    score *= OPEN_FACTOR
                elif is_open or is_closed:
                    score *= CLOSED_FACTOR
            score *= _status_factor(query, candidate.chapter, candidate.library)
        if following and candidate.entry.heading:
            in_blocks.append((block, candidate, score))
        if asks_status and (key := _field_key(candidate.entry)) is not None:
            # A field that says where it stands in its own words (`Done: M1.2 深审完成`, `Evidence: … (status:
            # approved)`) answers for itself: it lifts no other field of its record.
            text = candidate.entry.text.lower()
            states = any(_states(text)) or bool(DATE.search(text)) or any(word in text for word in STATE_WORDS)
            record = (candidate.library.path, id(candidate.chapter), candidate.entry.heading)
            fields.append((record, candidate, score, key in STATE_KEYS, states))
        if score > 0:
            ranked.append((1, score, candidate.library.path, candidate.entry.start, candidate))
        elif candidate.topic > 0 and id(candidate.chapter) not in stand_ins:
            # Holds none of the query's words, but its chapter or library does: its chapter's first entry stands
            # for it, after every entry that holds some.
            stand_ins.add(id(candidate.chapter))
            ranked.append((0, candidate.topic, candidate.library.path, candidate.entry.start, candidate))
    if in_blocks:
        ranked = _cause_after_symptom(ranked, in_blocks, following)
    if fields:
        ranked = _state_of_record(ranked, fields)
    if asks_status:  # the latest entry about it in each file (logs grow at the end) says where it stands now
        latest: dict[str, int] = {}
        for i, row in enumerate(ranked):
            if row[0] and not _is_legend(row[4].entry) and (row[2] not in latest or row[3] > ranked[latest[row[2]]][3]):
                latest[row[2]] = i
        for i in latest.values():
            tier, score, path, line, candidate = ranked[i]
            ranked[i] = (tier, score * LATEST_FACTOR, path, line, candidate)
    # Scores rounded for the order: sums over sets of words come out a few units in the last place apart with
    # the interpreter's hash seed, and two entries of equal score swapped places from one run to the next.
    ranked.sort(key=lambda r: (-r[0], -round(r[1], 9), r[2], r[3]))
    return [Hit(c.library, c.chapter, _with_announced(c.entry), s) for _, s, _, _, c in ranked[:max_hits]]


def _with_announced(entry: Entry) -> Entry:
    """The entry a hit shows: a paragraph that ends by announcing a list ("…所以：") with the list's first item, so
    the hit holds what it announced rather than stopping at the colon."""
    follower = entry.announces
    if follower is None:
        return entry
    return Entry(entry.start, follower.end, entry.text + "\n" + follower.text, entry.style, entry.number,
                 entry.heading, lead_in=entry.lead_in)


def hits_payload(hits: list[Hit], text: str, folder: str, skipped: dict[str, str] | None = None) -> dict:
    """The JSON answer the command line and the MCP tool share: the rendered text, the memory folder and each
    hit's place (`path` is absolute, for a reader that resolves paths against another folder), and the memory files
    that were not searched and why (only when there are some)."""
    payload: dict = {"text": text, "memory_dir": folder,
                     "hits": [{"location": h.location, "path": os.path.join(folder, os.path.basename(h.library.path)),
                               "library": h.library.name, "chapter": h.chapter.title, "start_line": h.start,
                               "end_line": h.end} for h in hits]}
    if skipped:
        payload["skipped"] = [{"file": name, "reason": reason} for name, reason in sorted(skipped.items())]
    return payload


def render_hits(hits: list[Hit], budget: int = DEFAULT_BUDGET, folder: str = "") -> str:
    """One line per hit, `file:start-end  Library › Chapter — text`, within `budget` characters in all. With
    `folder`, each location is that absolute path (the folder's part does not count against the budget)."""
    lines: list[str] = []
    used = 0
    prefix = folder.rstrip(os.sep) + os.sep if folder else ""
    rendered = []
    for hit in hits:
        where = hit.library.name + ("" if hit.chapter.implicit else f" › {hit.chapter.title}")
        text = " ".join((hit.entry.text if hit.entry else hit.chapter.text).split())
        rendered.append((hit, f"{hit.location}  {where} — {text}"))
    for k, (hit, line) in enumerate(rendered):
        # A fair share: what is left, split among the hits still to come (a short one leaves more to the rest).
        left = budget - used - (1 if lines else 0)
        later = sum(min(len(other), left // max(len(rendered) - k, 1)) for _, other in rendered[k + 1 :])
        room = max(left - later, min(left, left // max(len(rendered) - k, 1)))
        if room < len(hit.location) + 2:
            break
        if len(line) > room:
            line = line[: max(len(hit.location), room - 1)] + "…"
        used += len(line) + (1 if lines else 0)
        lines.append(prefix + line)
    return "\n".join(lines)
