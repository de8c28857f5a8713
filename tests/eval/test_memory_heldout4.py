"""The fourth held-out memory set: written blind, never tuned on, the most status-heavy of the sets.

Fifteen memory files from public repositories none of the other sets use, each under a licence that allows
redistribution (MIT, Apache-2.0 or CC-BY-4.0; sources and licences in `memory_heldout4/SOURCES.md`): a 267-line
Chinese progress tracker, Chinese development and release logs, a requirement tracker and a template progress file,
a bilingual session log, English progress trackers and a backlog, a Cline active context, two AGENTS.md (one file
with CRLF line ends). The 82 questions (`memory_heldout4_cases.json`, 50 Chinese, 27 about status — yes/no questions
among them) were written from the files alone and committed before the engine was run on them; since then only the
totals below and the answers to five example questions have been read, and nothing has been tuned on them.

    top-1 / top-3   engine (first run)   before causes   before counts   + counts     BM25 over entries
    exact             1.00 1.00            1.00 1.00       1.00 1.00       1.00 1.00    1.00 1.00
    paraphrase        0.19 0.38            0.19 0.44       0.19 0.50       0.25 0.50    0.12 0.44
    status            0.67 0.89            0.67 0.96       0.67 0.96       0.67 0.96    0.56 0.78
    long_log          0.75 0.75            0.75 0.75       0.75 0.75       0.75 0.75    0.62 0.62
    heading_trap      0.89 0.89            0.89 0.89       0.89 0.89       0.89 0.89    0.89 0.89
    boundary          1.00 1.00            1.00 1.00       1.00 1.00       1.00 1.00    1.00 1.00
    all               0.70 0.80            0.70 0.84       0.70 0.85       0.71 0.85    0.63 0.77

"First run" is the engine before yes/no questions about a state counted as status questions and before status
words met their kin in the other language. The engine was one question behind the baseline on paraphrase at top-3
until British and American spellings were folded and the words of a topic met their kin (`core/memory/thesaurus.py`);
it is behind nowhere now. "Before counts" adds a why question preferring the entry that gives a cause and a
what-to-do question the entry that gives a fix (answer shapes in `core/memory/search.py`); "+ counts": a how-many
question prefers the entry where a number counts something ("18 color themes", "3次"), not one with an id's digits.
Paraphrases that share few words with the answer are the weakest category by far.
"""

from __future__ import annotations

from .memory_eval import HELDOUT4, check_held_out, check_well_formed, scored

HELD_OUT = HELDOUT4
MIN_TOP1 = 0.69
MIN_TOP3 = 0.82


def test_the_fourth_held_out_set_is_well_formed(held_out_cases):
    check_well_formed(HELD_OUT, held_out_cases, min_cases=60, min_files=15)
    assert sum(c["lang"] == "zh" for c in held_out_cases) * 2 >= len(held_out_cases)  # half Chinese
    assert sum(c["category"] == "status" for c in held_out_cases) >= 20  # many status questions, in varied phrasing


def test_memory_search_on_the_fourth_held_out_set(held_out_libraries, held_out_cases, capsys):
    mine, base = scored("fourth held-out set", held_out_libraries, held_out_cases, capsys)
    check_held_out(mine, base, MIN_TOP1, MIN_TOP3)
