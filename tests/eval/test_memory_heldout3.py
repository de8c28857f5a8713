"""The third held-out memory set: written last, never tuned on, the most honest of the sets.

Fifteen memory files from public repositories none of the other sets use (sources and licences in
`memory_heldout3/SOURCES.md`): a Chinese work log with dated chapters, a daily agent memory, an error book,
memory-bank slices, Chinese auto-memory files and a CLAUDE.md, an English progress tracker and decision log, an
AGENTS.md, work logs and a status note. The 60 questions (`memory_heldout3_cases.json`, 33 Chinese) were written
from the files alone and committed before the engine was run on them; since then only the totals below have been
read, never which questions miss.

    top-1 / top-3   engine (first run)   engine now   BM25 over entries
    exact             1.00 1.00            1.00 1.00    0.73 0.91
    paraphrase        0.60 0.80            0.60 0.90    0.70 0.80
    status            0.45 0.64            0.64 0.73    0.27 0.55
    long_log          1.00 1.00            1.00 1.00    1.00 1.00
    heading_trap      0.88 0.88            0.88 0.88    0.62 0.62
    boundary          1.00 1.00            1.00 1.00    0.55 0.82
    all               0.82 0.88            0.85 0.92    0.63 0.78

The engine is one question behind the baseline on paraphrase at top-1 here: a known gap (`BEHIND`), which this
test lets stand at that size and no larger. Status questions are the weakest category on files nobody tuned on.
"""

from __future__ import annotations

import pytest

from .memory_eval import (
    HELDOUT3,
    baseline,
    check_answers_stand_in_their_files,
    check_held_out,
    engine,
    load_cases,
    load_libraries,
    memory_files,
    report,
    score,
)

CORPUS, CASES = HELDOUT3
CATEGORIES = {"exact", "paraphrase", "status", "long_log", "heading_trap", "boundary"}
MIN_TOP1 = 0.83
MIN_TOP3 = 0.89
BEHIND = {("paraphrase", "top1"): 1}  # questions the engine may be behind the baseline by, where it is now


@pytest.fixture(scope="module")
def cases():
    return load_cases(CORPUS, CASES)


@pytest.fixture(scope="module")
def libraries(tmp_path_factory):
    return load_libraries(CORPUS, tmp_path_factory.mktemp("heldout3"))


def test_the_third_held_out_set_is_well_formed(cases):
    assert len(cases) >= 50 and len(memory_files(CORPUS)) >= 14
    assert {c["category"] for c in cases} == CATEGORIES
    assert sum(c["lang"] == "zh" for c in cases) * 2 >= len(cases)  # half Chinese
    check_answers_stand_in_their_files(CORPUS, CASES, cases)


def test_memory_search_on_the_third_held_out_set(libraries, cases, capsys):
    mine, base = score(libraries, cases, engine), score(libraries, cases, baseline)
    with capsys.disabled():
        print(report(f"memory search, third held-out set ({len(cases)} questions, {len(libraries)} memory files)",
                     mine, base))
    check_held_out(mine, base, MIN_TOP1, MIN_TOP3, BEHIND)
