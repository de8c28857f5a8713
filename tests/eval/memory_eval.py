"""Scoring memory search on a question set: the engine against a plain BM25 over the same entries, per category.

Shared by the memory evals (`test_memory_quality.py` on our own set, `test_memory_heldout.py` on the held-out set)
and runnable on its own to compare the sets in one go, including a set kept outside the repository:

    PYTHONPATH=. python -m tests.eval.memory_eval                      # own + the eight held-out sets
    PYTHONPATH=. python -m tests.eval.memory_eval /work/memeval        # …and a set at DIR (corpus/ + cases.json)
    PYTHONPATH=. python -m tests.eval.memory_eval --misses held-out 5  # …with the misses of a named set

A question set is a folder of memory files and a JSON list of questions. Three spellings of a question are read:
`{"query", "category", "expected": [{"file", "lines": [[a, b], …]}]}` (our own set), the same with
`"contains": [substring, …]` instead of `"lines"` (the held-out set: the lines holding a substring are the expected
lines), and `{"q", "category", "expect": [{"file", "lines": [a, b]}]}` (a set written elsewhere).

A hit is right when it is in an expected file, its line range overlaps an expected range, and it is an entry rather
than a whole section (at most max(20, 3 × the expected span) lines): a bare heading line never overlaps, because
the expected ranges are the lines that hold the answer.
"""

from __future__ import annotations

import json
import math
import re
import shutil
import sys
import tempfile
from collections import Counter
from pathlib import Path

from knit_desktop.core.memory.library import MemoryIndex
from knit_desktop.core.memory.search import search
from knit_desktop.core.rank.keywords import stem

HERE = Path(__file__).resolve().parent
OWN = (HERE / "memory_corpus", HERE / "memory_cases.json")
HELDOUT = (HERE / "memory_heldout", HERE / "memory_heldout_cases.json")
HELDOUT2 = (HERE / "memory_heldout2", HERE / "memory_heldout2_cases.json")
HELDOUT3 = (HERE / "memory_heldout3", HERE / "memory_heldout3_cases.json")
HELDOUT4 = (HERE / "memory_heldout4", HERE / "memory_heldout4_cases.json")
HELDOUT5 = (HERE / "memory_heldout5", HERE / "memory_heldout5_cases.json")
HELDOUT6 = (HERE / "memory_heldout6", HERE / "memory_heldout6_cases.json")
HELDOUT7 = (HERE / "memory_heldout7", HERE / "memory_heldout7_cases.json")
HELDOUT8 = (HERE / "memory_heldout8", HERE / "memory_heldout8_cases.json")
NOT_MEMORY = {"SOURCES.md"}


def load_cases(corpus: Path, cases_path: Path) -> list[dict]:
    """The questions in one spelling: {"query", "category", "lang", "expected": [{"file", "lines": [[a, b]]}]}."""
    out = []
    for raw in json.loads(cases_path.read_text(encoding="utf-8")):
        expected = []
        for answer in raw.get("expected") or raw.get("expect") or []:
            if "contains" in answer:
                lines = (corpus / answer["file"]).read_text(encoding="utf-8").splitlines()
                ranges = [[n, n] for n, line in enumerate(lines, 1) if any(s in line for s in answer["contains"])]
            elif answer["lines"] and isinstance(answer["lines"][0], int):
                ranges = [list(answer["lines"])]
            else:
                ranges = [list(r) for r in answer["lines"]]
            expected.append({"file": answer["file"], "lines": ranges})
        out.append({**raw, "query": raw.get("query", raw.get("q")), "expected": expected})
    return out


def check_answers_stand_in_their_files(corpus: Path, cases_path: Path, cases: list[dict]) -> None:
    """Each question of a set written in the `contains` spelling: its substrings stand in the file named, and pick
    out at least one line (the well-formedness check every held-out set's test makes)."""
    raw = json.loads(cases_path.read_text(encoding="utf-8"))
    for case, written in zip(cases, raw):
        for answer, spelled in zip(case["expected"], written["expected"]):
            text = (corpus / answer["file"]).read_text(encoding="utf-8")
            assert all(s in text for s in spelled["contains"]), (case["query"], spelled["contains"])
            assert answer["lines"], case["query"]


def memory_files(corpus: Path) -> list[Path]:
    return sorted(p for p in corpus.iterdir() if p.suffix in (".md", ".markdown") and p.name not in NOT_MEMORY)


def load_libraries(corpus: Path, into: Path) -> list:
    """The corpus's memory files (not its SOURCES.md) copied into `into` and parsed as a memory folder."""
    for path in memory_files(corpus):
        shutil.copyfile(path, into / path.name)
    return MemoryIndex(str(into)).libraries()


def is_right(case: dict, file: str, start: int, end: int) -> bool:
    for expected in case["expected"]:
        if expected["file"] != file:
            continue
        for a, b in expected["lines"]:
            if start <= b and end >= a and end - start + 1 <= max(20, 3 * (b - a + 1)):
                return True
    return False


# --- the baseline: plain BM25 over the same entries -----------------------------------------------------------

CJK_RUN = re.compile(r"[\u3400-\u9fff\uf900-\ufaff]+")
LATIN = re.compile(r"[A-Za-z0-9_]+")


def tokens(text: str) -> list[str]:
    out = []
    for run in CJK_RUN.findall(text):
        out += [run] if len(run) == 1 else [run[i : i + 2] for i in range(len(run) - 1)]
    out += [stem(w.lower()) for w in LATIN.findall(text)]
    return out


def baseline(libraries, query: str, k: int = 3) -> list[tuple[str, int, int]]:
    """BM25 (k1 1.2, b 0.75) over every entry of every library: no boosts, no headings, no status intent."""
    docs = [(Path(lib.path).name, e.start, e.end, Counter(tokens(e.text)))
            for lib in libraries for chapter in lib.chapters for e in chapter.entries]
    n = len(docs)
    avgdl = sum(sum(d[3].values()) for d in docs) / max(n, 1)
    df = Counter(t for d in docs for t in d[3])
    q = set(tokens(query))
    scored = []
    for file, start, end, tf in docs:
        dl = sum(tf.values())
        s = 0.0
        for t in q:
            if tf[t]:
                idf = math.log(1 + (n - df[t] + 0.5) / (df[t] + 0.5))
                s += idf * tf[t] * 2.2 / (tf[t] + 1.2 * (0.25 + 0.75 * dl / avgdl))
        if s > 0:
            scored.append((-s, file, start, end))
    scored.sort()
    return [(f, a, b) for _, f, a, b in scored[:k]]


def engine(libraries, query: str, k: int = 3) -> list[tuple[str, int, int]]:
    return [(Path(h.library.path).name, h.start, h.end) for h in search(libraries, query, k)]


def score(libraries, cases, run) -> dict[str, list[int]]:
    """{category: [questions, right first, right in the top 3]}."""
    table: dict[str, list[int]] = {}
    for case in cases:
        hits = run(libraries, case["query"])
        row = table.setdefault(case["category"], [0, 0, 0])
        row[0] += 1
        row[1] += bool(hits) and is_right(case, *hits[0])
        row[2] += any(is_right(case, *h) for h in hits[:3])
    return table


def totals(table: dict[str, list[int]]) -> list[int]:
    return [sum(row[i] for row in table.values()) for i in range(3)]


def report(title: str, mine: dict[str, list[int]], base: dict[str, list[int]]) -> str:
    rows = ["", title,
            f"  {'category':13} {'n':>3}   {'engine top-1':>12} {'top-3':>6}   {'BM25 entries top-1':>18} {'top-3':>6}"]
    for c in sorted(mine, key=lambda c: list(mine).index(c)):
        n, m1, m3 = mine[c]
        _, b1, b3 = base[c]
        rows.append(f"  {c:13} {n:3}   {m1 / n:12.2f} {m3 / n:6.2f}   {b1 / n:18.2f} {b3 / n:6.2f}")
    (n, m1, m3), (_, b1, b3) = totals(mine), totals(base)
    rows.append(f"  {'all':13} {n:3}   {m1 / n:12.2f} {m3 / n:6.2f}   {b1 / n:18.2f} {b3 / n:6.2f}")
    return "\n".join(rows)


def check_held_out(mine: dict[str, list[int]], base: dict[str, list[int]], min_top1: float, min_top3: float,
                   behind: dict[tuple[str, str], int] | None = None) -> None:
    """What a held-out set's test asserts: the engine is not behind the baseline in any category (by more than
    `behind` allows, in questions, where it is behind now), and its totals stay above the floors."""
    behind = behind or {}
    for category, (_, top1, top3) in mine.items():
        _, base1, base3 = base[category]
        assert top1 + behind.get((category, "top1"), 0) >= base1, (category, mine[category], base[category])
        assert top3 + behind.get((category, "top3"), 0) >= base3, (category, mine[category], base[category])
    n, top1, top3 = totals(mine)
    assert top1 / n >= min_top1 and top3 / n >= min_top3, (top1 / n, top3 / n)


HELD_OUT_CATEGORIES = frozenset({"exact", "paraphrase", "status", "long_log", "heading_trap", "boundary"})


def check_well_formed(held_out: tuple[Path, Path], cases: list[dict], min_cases: int, min_files: int,
                      categories: frozenset[str] = HELD_OUT_CATEGORIES, min_paraphrases: int = 0) -> None:
    """What every held-out set's test asserts of the set itself: its size, its categories, that each expected
    answer stands in its file, and with `min_paraphrases` that many paraphrases in both languages (each test adds
    what is particular to its set)."""
    corpus, cases_path = held_out
    assert len(cases) >= min_cases and len(memory_files(corpus)) >= min_files
    assert {c["category"] for c in cases} == categories
    if min_paraphrases:
        assert sum(c["category"] == "paraphrase" for c in cases) >= min_paraphrases
        assert {c["lang"] for c in cases if c["category"] == "paraphrase"} == {"en", "zh"}
    check_answers_stand_in_their_files(corpus, cases_path, cases)


def scored(title: str, libraries: list, cases: list[dict], capsys) -> tuple[dict[str, list[int]], dict[str, list[int]]]:
    """The engine's and the baseline's scores on a held-out set, their table printed past pytest's capture."""
    mine, base = score(libraries, cases, engine), score(libraries, cases, baseline)
    with capsys.disabled():
        print(report(f"memory search, {title} ({len(cases)} questions, {len(libraries)} memory files)", mine, base))
    return mine, base


def evaluate(name: str, corpus: Path, cases_path: Path, show_misses: bool = False) -> str:
    cases = load_cases(corpus, cases_path)
    with tempfile.TemporaryDirectory(prefix="memq-eval-") as tmp:
        libraries = load_libraries(corpus, Path(tmp))
        text = report(f"{name} ({len(cases)} questions, {len(libraries)} memory files)",
                      score(libraries, cases, engine), score(libraries, cases, baseline))
        if show_misses:
            for case in cases:
                hits = engine(libraries, case["query"])
                if not (hits and is_right(case, *hits[0])):
                    text += f"\n  miss [{case['category']}] {case['query']} -> {hits[:3]}"
    return text


def main(argv: list[str]) -> None:
    """`--misses` shows our own set's misses; `--misses NAME` (e.g. `--misses held-out 5`) a named set's, once its
    blind figures are recorded and it has become a development set."""
    show, argv = "own", list(argv)
    if "--misses" in argv:
        at = argv.index("--misses")
        named = []
        while at + 1 < len(argv) and not argv[at + 1].startswith("--") and not Path(argv[at + 1]).is_dir():
            named.append(argv.pop(at + 1))
        argv.pop(at)
        show = " ".join(named) or "own"
    else:
        show = ""
    sets = [("own", *OWN), ("held-out", *HELDOUT), ("held-out 2", *HELDOUT2), ("held-out 3", *HELDOUT3),
            ("held-out 4", *HELDOUT4), ("held-out 5", *HELDOUT5), ("held-out 6", *HELDOUT6),
            ("held-out 7", *HELDOUT7), ("held-out 8", *HELDOUT8)]
    for extra in (a for a in argv if not a.startswith("--")):
        folder = Path(extra)
        sets.append((folder.name, folder / "corpus", folder / "cases.json"))
    for name, corpus, cases_path in sets:
        # Only the named set's misses are shown (our own by default): a blind set is checked in aggregate, never
        # tuned against, until its blind figures are recorded.
        print(evaluate(name, corpus, cases_path, show_misses=name == show))


if __name__ == "__main__":
    main(sys.argv[1:])
