"""The fifth held-out memory set: written blind, the most paraphrase-heavy of the sets, now a development set.

Sixteen memory files from eleven public repositories none of the other sets use, each under the MIT licence (sources
and licences in `memory_heldout5/SOURCES.md`): an 897-line Chinese progress log, two Chinese error books, Chinese
development logs, a Chinese session handoff, Chinese and bilingual progress trackers, a memory bank (active context
and progress, CRLF), two AGENTS.md (one CRLF), a backlog of one-line tasks, a Claude auto-memory file without
chapters, a memory index and an English devlog. The 78 questions (`memory_heldout5_cases.json`, 49 Chinese, 25
paraphrases asked the way someone who forgot the exact words would ask) were written from the files alone and
committed before the engine was run on them. The blind first run is recorded below; since then the set is a
development set (its misses are read: `python -m tests.eval.memory_eval --misses held-out 5`), and the later column
is not a blind figure.

    top-1 / top-3   blind        + entries, names   before causes   + causes, fixes   + counts    BM25 entries
    exact           1.00 1.00    1.00 1.00          1.00 1.00       1.00 1.00         1.00 1.00   1.00 1.00
    paraphrase      0.24 0.40    0.24 0.40          0.28 0.48       0.40 0.56         0.40 0.56   0.08 0.28
    status          0.69 0.94    0.75 0.94          0.75 0.94       0.75 0.94         0.75 0.94   0.62 0.75
    long_log        0.33 0.67    0.56 0.78          0.56 0.78       0.56 0.78         0.67 0.78   0.11 0.67
    heading_trap    0.25 0.75    0.38 0.88          0.38 0.88       0.50 0.88         0.50 0.88   0.25 0.62
    boundary        0.67 0.89    0.67 0.89          0.67 0.89       0.67 0.89         0.67 0.89   0.56 0.78
    all             0.50 0.72    0.55 0.74          0.56 0.77       0.62 0.79         0.63 0.79   0.40 0.62

"+ entries, names": '待' + a verb ('待完善功能') is open work; a paragraph that ends by announcing a list comes back
with its first item; a fenced block inside a `###` block is never the hit alone; a file name spelled as a compound
('notes-mcp') counts once in the file's entries, not once per part. "Before causes" is the engine after the later
changes of other sets (British spellings, the thesaurus). "+ causes, fixes": a why question prefers the entry that
gives a cause (根因, because), a what-to-do question the entry that gives a fix (修复, workaround), and in an error book
the cause or fix after the best-matching symptom of its `###` block answers though it shares none of the question's
words; a question about what is allowed ("should I…", "要不要") prefers the entry that states a rule. "+ counts":
a how-many question prefers the entry where a number counts something ("1095 行", "18 color themes"), not one with
an id's or a list's digits. The engine is not behind the baseline in any category here (`BEHIND` is empty).
Paraphrases that share few words with the answer remain the weak spot.
"""

from __future__ import annotations

from .memory_eval import HELDOUT5, check_held_out, check_well_formed, memory_files, scored

HELD_OUT = HELDOUT5
MIN_TOP1 = 0.60
MIN_TOP3 = 0.76
BEHIND: dict[tuple[str, str], int] = {}  # questions the engine may be behind the baseline by, where it is now


def test_the_fifth_held_out_set_is_well_formed(held_out_cases):
    cases = held_out_cases
    check_well_formed(HELD_OUT, cases, min_cases=70, min_files=15, min_paraphrases=22)  # in both languages
    assert sum(c["lang"] == "zh" for c in cases) * 2 >= len(cases)  # half Chinese
    assert any(len(path.read_text(encoding="utf-8").splitlines()) >= 500 for path in memory_files(HELD_OUT[0]))


def test_memory_search_on_the_fifth_held_out_set(held_out_libraries, held_out_cases, capsys):
    mine, base = scored("fifth held-out set", held_out_libraries, held_out_cases, capsys)
    check_held_out(mine, base, MIN_TOP1, MIN_TOP3, BEHIND)
