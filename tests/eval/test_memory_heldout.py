"""The held-out memory set: reported, never tuned against.

Eleven memory files from public repositories other than the main memory corpus's sources' files (sources and
licences in `memory_heldout/SOURCES.md`) and 50 questions written from the files alone before the engine was run on
them (`memory_heldout_cases.json`; each answer is a file and substrings of the answer). The engine and the
BM25-over-entries baseline are scored per category in the same run and printed; what is asserted is only that the
set is what it says it is, so that changes to the engine are judged here rather than fitted here.
"""

from __future__ import annotations

import pytest

from .memory_eval import (
    HELDOUT,
    baseline,
    check_answers_stand_in_their_files,
    engine,
    load_cases,
    load_libraries,
    memory_files,
    report,
    score,
)

CORPUS, CASES = HELDOUT
CATEGORIES = {"exact", "status", "paraphrase", "chinese", "untagged", "long_log"}


@pytest.fixture(scope="module")
def cases():
    return load_cases(CORPUS, CASES)


@pytest.fixture(scope="module")
def libraries(tmp_path_factory):
    return load_libraries(CORPUS, tmp_path_factory.mktemp("heldout"))


def test_the_held_out_set_is_well_formed(cases):
    assert len(cases) >= 40 and len(memory_files(CORPUS)) >= 10
    assert {c["category"] for c in cases} == CATEGORIES
    assert sum(c["lang"] == "zh" for c in cases) * 3 >= len(cases)
    check_answers_stand_in_their_files(CORPUS, CASES, cases)


def test_held_out_scores_are_reported(libraries, cases, capsys):
    mine, base = score(libraries, cases, engine), score(libraries, cases, baseline)
    with capsys.disabled():
        print(report(f"memory search, held-out set ({len(cases)} questions, {len(libraries)} memory files)",
                     mine, base))
    assert sum(row[0] for row in mine.values()) == len(cases)
