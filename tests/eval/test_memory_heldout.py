"""The held-out memory set: reported, never tuned against.

Eleven memory files from public repositories other than the main memory corpus's sources' files (sources and
licences in `memory_heldout/SOURCES.md`) and 50 questions written from the files alone before the engine was run on
them (`memory_heldout_cases.json`; each answer is a file and substrings of the answer). The engine and the
BM25-over-entries baseline are scored per category in the same run and printed; what is asserted is only that the
set is what it says it is, so that changes to the engine are judged here rather than fitted here.
"""

from __future__ import annotations

from .memory_eval import HELDOUT, check_well_formed, scored

HELD_OUT = HELDOUT
CATEGORIES = frozenset({"exact", "status", "paraphrase", "chinese", "untagged", "long_log"})


def test_the_held_out_set_is_well_formed(held_out_cases):
    check_well_formed(HELD_OUT, held_out_cases, min_cases=40, min_files=10, categories=CATEGORIES)
    assert sum(c["lang"] == "zh" for c in held_out_cases) * 3 >= len(held_out_cases)


def test_held_out_scores_are_reported(held_out_libraries, held_out_cases, capsys):
    mine, _ = scored("held-out set", held_out_libraries, held_out_cases, capsys)
    assert sum(row[0] for row in mine.values()) == len(held_out_cases)
