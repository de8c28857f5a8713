"""The second held-out memory set: the engine must not be behind a plain BM25 over entries in any category.

Twelve memory files from public repositories that are not among the sources of the other two sets (sources and
licences in `memory_heldout2/SOURCES.md`): Chinese progress logs, a task list, a risk register and a fix write-up, a
current-state note, an English devlog, AGENTS.md / CLAUDE.md / GEMINI.md files. The 53 questions
(`memory_heldout2_cases.json`, 26 Chinese) were written from the files alone before the engine was run on them.

Measured when the set was written, then after the entry-boundary and query-handling changes of the same work
(`PYTHONPATH=. python -m tests.eval.memory_eval`):

    top-1 / top-3   engine before   engine after   BM25 over entries (after)
    exact             0.75 1.00       0.88 1.00       0.88 0.88
    paraphrase        0.30 0.60       0.30 0.60       0.30 0.50
    status            0.89 0.89       1.00 1.00       0.44 0.67
    long_log          0.89 0.89       0.89 1.00       0.56 0.78
    heading_trap      1.00 1.00       1.00 1.00       0.88 0.88
    boundary          0.78 1.00       1.00 1.00       0.78 1.00
    all               0.75 0.89       0.83 0.92       0.62 0.77

Since then the engine scores 0.85 0.92 in all; with British and American spellings folded and the words of a topic
meeting their kin (`core/memory/thesaurus.py`) paraphrase went to 0.40 0.60 and all to 0.87 0.92 (long_log 1.00 1.00,
the other categories as above). With a why question preferring the entry that gives a cause and a what-to-do
question the entry that gives a fix (answer shapes, `core/memory/search.py`) paraphrase is 0.50 0.60 and all 0.89 0.92.

The floors below are what the engine meets with a margin of a question or two, so that a change which costs this set
more than that fails here rather than passing unnoticed.
"""

from __future__ import annotations

from .memory_eval import HELDOUT2, check_held_out, check_well_formed, scored

HELD_OUT = HELDOUT2
MIN_TOP1 = 0.85
MIN_TOP3 = 0.90


def test_the_second_held_out_set_is_well_formed(held_out_cases):
    check_well_formed(HELD_OUT, held_out_cases, min_cases=40, min_files=12)
    assert sum(c["lang"] == "zh" for c in held_out_cases) * 2 >= len(held_out_cases) - 1  # half Chinese


def test_memory_search_is_not_behind_bm25_over_entries_on_the_second_held_out_set(held_out_libraries, held_out_cases,
                                                                                  capsys):
    mine, base = scored("second held-out set", held_out_libraries, held_out_cases, capsys)
    check_held_out(mine, base, MIN_TOP1, MIN_TOP3)
