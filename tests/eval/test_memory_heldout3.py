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

from .memory_eval import HELDOUT3, check_held_out, check_well_formed, scored

HELD_OUT = HELDOUT3
MIN_TOP1 = 0.83
MIN_TOP3 = 0.89
BEHIND = {("paraphrase", "top1"): 1}  # questions the engine may be behind the baseline by, where it is now


def test_the_third_held_out_set_is_well_formed(held_out_cases):
    check_well_formed(HELD_OUT, held_out_cases, min_cases=50, min_files=14)
    assert sum(c["lang"] == "zh" for c in held_out_cases) * 2 >= len(held_out_cases)  # half Chinese


def test_memory_search_on_the_third_held_out_set(held_out_libraries, held_out_cases, capsys):
    mine, base = scored("third held-out set", held_out_libraries, held_out_cases, capsys)
    check_held_out(mine, base, MIN_TOP1, MIN_TOP3, BEHIND)
