"""Memory search on memory files people really keep (issue 20).

The corpus (`memory_corpus/`, sources and licences in its SOURCES.md) is 28 untagged memory files from public
repositories: Cline memory banks, CLAUDE.md / AGENTS.md, Claude auto-memory indexes and topic files (front matter,
no `##` chapters), Chinese progress logs and PM logs, and a 1,011-line work log. `memory_cases.json` holds 80
questions (half Chinese) in five categories — exact, paraphrase, status, heading_trap, boundary — each with the
file(s) and line range(s) that answer it.

A hit is right when it is in an expected file, its line range overlaps an expected range, and it is an entry rather
than a whole section (at most max(20, 3 × the expected span) lines): a bare heading line never overlaps, because the
expected ranges are the lines that hold the answer.

The engine (`knit_desktop.core.memory.search`) is scored against a plain BM25 over the same entries (written out
below: no boosts, no headings, no status intent), in the same run. The engine must not be behind the baseline in
any category.

Measured (top-1 / top-3; 80 questions, of which the last 10 were written after the first tuning and never tuned on):

    category       before: engine   BM25 entries    entries:  engine   + context fields, best paragraph
    exact                0.69 0.75      0.81 1.00           0.94 1.00           0.94 1.00
    paraphrase           0.44 0.56      0.81 0.94           0.81 0.94           0.88 0.94
    status               0.24 0.35      0.53 0.76           0.82 0.88           0.88 1.00
    heading_trap         0.60 0.73      0.67 0.93           0.87 1.00           1.00 1.00
    boundary             0.25 0.44      0.38 0.62           0.88 1.00           0.88 0.94
    all                  0.44 0.56      0.64 0.85           0.86 0.96           0.91 0.97
    held out (10)        0.30 0.60      0.80 1.00           0.70 1.00           0.90 1.00

(BM25 over entries, the same run: 0.74 / 0.93 overall, 0.80 / 1.00 on the held-out ten.) The last step was checked
on a second set written by someone who had not seen the engine: 12 other public memory files, 48 questions (half
Chinese). There the engine went from 0.71 / 0.83 to 0.77 / 0.85, against 0.62 / 0.83 for BM25 over entries; its
paraphrase questions (0.50 / 0.60) are where a lexical engine is weakest. Ten of those twelve files carry no
licence, so that set is not in the repository.

A third set, held out (`memory_heldout/`, 11 licence-checked public files, 50 questions in six categories written
before the engine was run on them; `test_memory_heldout.py`), and the second set above were then used only in
aggregate to judge two further changes, each kept because it hurt none of the three sets — query words side by side
in an entry (a phrase) and the shape of answer a question asks for (when → a date, where → a path, how many → a
number, which version → a version):

    top-1 / top-3          own 80        held-out 50      second set 48
    before                 0.91 0.97     0.60 0.84        0.77 0.85
    + phrase, answer shape 0.91 0.99     0.68 0.84        0.77 0.85
    BM25 over entries      0.74 0.93     0.56 0.72        0.62 0.83

Then four ideas meant to keep the engine's boosts from overriding the evidence of the words were measured on the
four sets (own 80, held-out 50, held-out 2 53, the second set 48; the last three in aggregate only) and dropped,
each because it lowered some set: fusing the engine's score with a plain BM25 over entries (a normalised sum at
0.2 – 1.0, or reciprocal-rank fusion), keeping the plain BM25's first entry in the top 3 or top 2 (no change: where
the engine ranks it lower it was not the answer), BM25F (the heading boosts replaced by heavier chapter / `###`
fields), the chapter's or the file's BM25 as context of its entries, date / step chapter titles taken as
topicless, and pseudo-relevance feedback (the first entries' rarest words added to the query at 0.1 – 0.3: it drifts,
down to 0.79 top-1 on our own set). Where the engine is behind BM25 in a category (held-out long_log, the second set's boundary) it is by
one question, and the entry it ranks first there has no boost: the two differ in their words' scores alone.
Kept: "not" and "no" count as words (memory files state rules and limits by negation). The third held-out set
(`memory_heldout3/`, 60 questions) arrived after this change was made and was run on it once, in aggregate:

    top-1 / top-3          own 80      held-out 50   held-out 2 53   held-out 3 60   second set 48
    before                 0.94 0.99   0.78 0.86     0.83 0.92       0.82 0.88       0.77 0.85
    + negations as words   0.95 0.99   0.78 0.86     0.83 0.92       0.83 0.90       0.77 0.85
    BM25 over entries      0.75 0.93   0.58 0.74     0.62 0.77       0.63 0.78       0.62 0.81

`PYTHONPATH=. python -m tests.eval.memory_eval [DIR]` prints all of them per category.

"Before" is the chapter-scoring engine with the old entry boundaries (headings as one-line entries, no preamble,
no `---` or code-fence handling), whose entries the baseline then used too.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from knit_desktop.core.memory.library import MemoryIndex
from knit_desktop.core.memory.search import search

from .memory_eval import baseline, engine, score

HERE = Path(__file__).resolve().parent
CORPUS = HERE / "memory_corpus"
CATEGORIES = ("exact", "paraphrase", "status", "heading_trap", "boundary")

# Floors for our own question set (the hidden set's bar is top-1 >= 0.85, top-3 >= 0.95).
MIN_TOP1 = 0.85
MIN_TOP3 = 0.95


@pytest.fixture(scope="module")
def libraries(tmp_path_factory):
    root = tmp_path_factory.mktemp("memory")
    for path in CORPUS.glob("*.md"):
        if path.name != "SOURCES.md":
            shutil.copyfile(path, root / path.name)
    return MemoryIndex(str(root)).libraries()


@pytest.fixture(scope="module")
def cases():
    return json.loads((HERE / "memory_cases.json").read_text(encoding="utf-8"))


def test_the_question_set_is_what_the_issue_asks_for(cases):
    assert len(cases) >= 60
    assert sum(c["lang"] == "zh" for c in cases) * 2 >= len(cases)
    assert {c["category"] for c in cases} == set(CATEGORIES)
    files = {p.name for p in CORPUS.glob("*.md")} - {"SOURCES.md"}
    assert len(files) >= 25
    for case in cases:
        for expected in case["expected"]:
            assert expected["file"] in files
            length = len((CORPUS / expected["file"]).read_text(encoding="utf-8").splitlines())
            assert all(1 <= a <= b <= length for a, b in expected["lines"])


def test_memory_search_beats_bm25_over_entries_in_every_category(libraries, cases, capsys):
    mine = score(libraries, cases, engine)
    base = score(libraries, cases, baseline)
    rows = ["", f"memory search quality ({len(cases)} questions, {len(libraries)} real memory files)",
            f"  {'category':13} {'n':>3}   {'engine top-1':>12} {'top-3':>6}   {'BM25 entries top-1':>18} {'top-3':>6}"]
    total_m, total_b = [0, 0, 0], [0, 0, 0]
    for c in CATEGORIES:
        n, m1, m3 = mine[c]
        _, b1, b3 = base[c]
        rows.append(f"  {c:13} {n:3}   {m1 / n:12.2f} {m3 / n:6.2f}   {b1 / n:18.2f} {b3 / n:6.2f}")
        total_m = [x + y for x, y in zip(total_m, mine[c])]
        total_b = [x + y for x, y in zip(total_b, base[c])]
    n = total_m[0]
    rows.append(f"  {'all':13} {n:3}   {total_m[1] / n:12.2f} {total_m[2] / n:6.2f}   "
                f"{total_b[1] / n:18.2f} {total_b[2] / n:6.2f}")
    held = [c for c in cases if c.get("holdout")]
    if held:
        h = score(libraries, held, engine)
        hb = score(libraries, held, baseline)
        rows.append(f"  {'held out':13} {len(held):3}   {sum(r[1] for r in h.values()) / len(held):12.2f} "
                    f"{sum(r[2] for r in h.values()) / len(held):6.2f}   "
                    f"{sum(r[1] for r in hb.values()) / len(held):18.2f} {sum(r[2] for r in hb.values()) / len(held):6.2f}")
    with capsys.disabled():
        print("\n".join(rows))
    for c in CATEGORIES:
        assert mine[c][1] >= base[c][1], f"{c}: engine top-1 behind BM25 over entries"
        assert mine[c][2] >= base[c][2], f"{c}: engine top-3 behind BM25 over entries"
    assert total_m[1] / n >= MIN_TOP1
    assert total_m[2] / n >= MIN_TOP3


def test_every_hit_holds_text_not_a_bare_heading(libraries, cases):
    for case in cases:
        for hit in search(libraries, case["query"]):
            text = hit.entry.text if hit.entry else hit.chapter.text
            body = [line for line in text.splitlines() if line.strip() and not line.lstrip().startswith("#")]
            assert body, f"{case['query']!r} → {hit.location} is a bare heading"
