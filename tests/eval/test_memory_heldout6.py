"""The sixth held-out memory set: written blind, never tuned on, the hardest of the sets so far.

Fifteen memory files from two public repositories none of the other sets use, both under the MIT licence (sources and
licences in `memory_heldout6/SOURCES.md`): a 630-line English agent progress log with out-of-order session chapters,
a 508-line Chinese CLAUDE.md of deeply nested phase lists, a Chinese audit report, a Chinese error-solution file, two
Chinese feature specs, a Chinese review, an English changelog, and English agent state, learnings, task handoff,
session state, worktree registry, pull-request worklog and follow-up notes. The 86 questions
(`memory_heldout6_cases.json`, 43 Chinese, 26 paraphrases asked the way someone who forgot the exact words would ask)
were written from the files alone and committed before the engine was run on them; since then only the totals below
have been read, and nothing has been tuned on them.

    top-1 / top-3   engine (first run)   BM25 over entries
    exact             0.92 0.92            0.83 0.92
    paraphrase        0.04 0.31            0.08 0.23
    status            0.47 0.67            0.27 0.67
    long_log          0.45 0.73            0.18 0.55
    heading_trap      0.30 0.40            0.20 0.40
    boundary          0.67 0.75            0.25 0.58
    all               0.41 0.58            0.27 0.51

The engine was one question behind the baseline on paraphrase at top-1 on that first run (1 of 26 right first
against 2). Read again, in aggregate only, after the answer-shape rules for why / what-to-do / may-I questions and an
error book's cause after its symptom (tuned on the development sets alone): all 0.43 / 0.58, paraphrase 0.12 / 0.31
(3 of 26 right first), every other category unchanged, behind the baseline nowhere (`BEHIND` is empty). Paraphrases
that share few words with the answer are still right first rarely, and questions whose words stand in another file's
or chapter's heading are the next weakest.
"""

from __future__ import annotations

from .memory_eval import HELDOUT6, check_held_out, check_well_formed, memory_files, scored

HELD_OUT = HELDOUT6
MIN_TOP1 = 0.41
MIN_TOP3 = 0.56
BEHIND: dict[tuple[str, str], int] = {}  # questions the engine may be behind the baseline by, where it is now


def test_the_sixth_held_out_set_is_well_formed(held_out_cases):
    cases = held_out_cases
    check_well_formed(HELD_OUT, cases, min_cases=70, min_files=15, min_paraphrases=22)  # in both languages
    assert sum(c["lang"] == "zh" for c in cases) * 2 >= len(cases)  # half Chinese
    assert sum(len(path.read_text(encoding="utf-8").splitlines()) >= 500 for path in memory_files(HELD_OUT[0])) >= 2


def test_memory_search_on_the_sixth_held_out_set(held_out_libraries, held_out_cases, capsys):
    mine, base = scored("sixth held-out set", held_out_libraries, held_out_cases, capsys)
    check_held_out(mine, base, MIN_TOP1, MIN_TOP3, BEHIND)
