"""The seventh held-out memory set: written blind, never tuned on, drawn from ten repositories for a broad judge.

Sixteen memory files from ten public repositories none of the other sets use, no repository giving more than three
(MIT, Apache-2.0 and BSD-3-Clause; sources and licences in `memory_heldout7/SOURCES.md`): English and Chinese
Cline-style memory banks (`activeContext.md` / `progress.md`), three Claude auto-memory files with front matter and no
`##` chapters, a Chinese AGENTS.md, a Chinese error book, a Chinese personal memo, a Chinese development log and a
938-line Chinese changelog of many version chapters. The 96 questions (`memory_heldout7_cases.json`, 55 Chinese, 37
paraphrases asked the way someone who forgot the exact words would ask, in both languages) were written from the files
alone and committed before the engine was run on them; since then only the totals below have been read, and nothing
has been tuned on them.

    top-1 / top-3   engine (first run)   BM25 over entries
    exact             1.00 1.00            1.00 1.00
    paraphrase        0.32 0.43            0.22 0.32
    status            0.50 0.75            0.38 0.62
    long_log          0.64 0.82            0.45 0.64
    heading_trap      0.64 0.82            0.18 0.55
    boundary          0.42 0.67            0.42 0.58
    all               0.50 0.66            0.36 0.53

The engine is behind the baseline in no category (on boundary it ties it at top-1, 5 of 12 right first each), so
`BEHIND` is empty. Paraphrases are the weakest category: 12 of 37 right first, 16 in the top 3. Read again, in
aggregate only, after the answer-shape rules for why / what-to-do / may-I questions and an error book's cause after
its symptom (tuned on the development sets alone): all 0.52 / 0.68, paraphrase 0.32 / 0.46, long_log 0.82 / 0.91,
every other category unchanged; and after the count shape for how-many questions: all 0.53 / 0.68, status 0.56 /
0.75.
"""

from __future__ import annotations

from .memory_eval import HELDOUT7, check_held_out, check_well_formed, memory_files, scored

HELD_OUT = HELDOUT7
MIN_TOP1 = 0.50
MIN_TOP3 = 0.66
BEHIND: dict[tuple[str, str], int] = {}  # questions the engine may be behind the baseline by, where it is now


def test_the_seventh_held_out_set_is_well_formed(held_out_cases):
    cases = held_out_cases
    check_well_formed(HELD_OUT, cases, min_cases=70, min_files=15, min_paraphrases=28)  # in both languages
    assert sum(c["lang"] == "zh" for c in cases) * 2 >= len(cases)  # half Chinese
    assert sum(len(path.read_text(encoding="utf-8").splitlines()) >= 500 for path in memory_files(HELD_OUT[0])) >= 1
    assert sum(c["category"] == "paraphrase" for c in cases) * 10 >= len(cases) * 3  # over 30% paraphrases


def test_memory_search_on_the_seventh_held_out_set(held_out_libraries, held_out_cases, capsys):
    mine, base = scored("seventh held-out set", held_out_libraries, held_out_cases, capsys)
    check_held_out(mine, base, MIN_TOP1, MIN_TOP3, BEHIND)
