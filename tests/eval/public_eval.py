"""Ranking quality on public documentation (corpus_public/, see SOURCES.md) with questions written from it.

The engine is measured through the path `knit-desktop rank --json --query` takes (`RankInput.from_query` then
`Workspace.rank`, every document in rank order) and compared with bm25s, a plain BM25 library, on the same files
and query strings in the same run. Relevance is graded (2: the document that answers; 1: the same document in the
other language). Metrics: nDCG@10 over the grades, MRR and top-1 of the first grade-2 document.

Run as a script for the table: `python -m tests.eval.public_eval`.
"""

from __future__ import annotations

import json
import math
import os
import re
import shutil
from dataclasses import dataclass
from pathlib import Path

HERE = Path(__file__).resolve().parent
CORPUS = HERE / "corpus_public"
CASES = HERE / "cases_public.json"
SLICES = ("en", "zh", "typo", "num")
SLICE_NAMES = {"en": "English", "zh": "Chinese", "typo": "typos/fragments", "num": "numbers/acronyms", "all": "all"}
NOW_MS = 1_780_000_000_000
K = 10


def load_cases() -> list[dict]:
    return json.loads(CASES.read_text(encoding="utf-8"))["cases"]


def corpus_files(root: Path = CORPUS) -> list[str]:
    return sorted(p.relative_to(root).as_posix() for p in root.rglob("*") if p.suffix in (".md", ".txt"))


# --- metrics ---------------------------------------------------------------------------------------------


def ndcg_at(order: list[str], grades: dict[str, int], k: int = K) -> float:
    dcg = sum((2 ** grades.get(rel, 0) - 1) / math.log2(i + 2) for i, rel in enumerate(order[:k]))
    ideal = sorted(grades.values(), reverse=True)[:k]
    idcg = sum((2**g - 1) / math.log2(i + 2) for i, g in enumerate(ideal))
    return dcg / idcg if idcg else 0.0


def reciprocal_rank(order: list[str], grades: dict[str, int]) -> float:
    top = max(grades.values())
    for i, rel in enumerate(order):
        if grades.get(rel, 0) == top:
            return 1 / (i + 1)
    return 0.0


@dataclass
class Scores:
    ndcg: float = 0.0
    mrr: float = 0.0
    top1: float = 0.0
    n: int = 0

    def add(self, order: list[str], grades: dict[str, int]) -> None:
        rr = reciprocal_rank(order, grades)
        self.ndcg += ndcg_at(order, grades)
        self.mrr += rr
        self.top1 += rr == 1.0
        self.n += 1

    def mean(self) -> tuple[float, float, float]:
        return (self.ndcg / self.n, self.mrr / self.n, self.top1 / self.n) if self.n else (0.0, 0.0, 0.0)


# --- the two systems -------------------------------------------------------------------------------------


def engine_ranker(root: Path):
    from knit_desktop.core.workspace import RankInput, Workspace

    ws = Workspace.open(str(root))

    def run(query: str) -> list[str]:
        return [r.doc.rel for r in ws.rank(RankInput.from_query(query), now_ms=NOW_MS).ranked]

    return run


_LATIN = re.compile(r"[a-z0-9]+")
_CJK = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]+")


def baseline_tokens(text: str, stemmer) -> list[str]:
    """A fair tokenizer for the baseline: Snowball-stemmed English words (stop words out) and CJK bigrams (a
    single CJK character stands alone), the usual analyser for mixed English/Chinese BM25."""
    import bm25s.stopwords as sw

    lowered = text.lower()
    stop = set(sw.STOPWORDS_EN)
    words = [w for w in _LATIN.findall(lowered) if w not in stop]
    tokens = stemmer.stemWords(words)
    for run in _CJK.findall(lowered):
        tokens.extend([run] if len(run) == 1 else [run[i : i + 2] for i in range(len(run) - 1)])
    return tokens


def bm25s_ranker(root: Path, rels: list[str]):
    import bm25s
    import numpy as np
    import Stemmer

    stemmer = Stemmer.Stemmer("english")
    corpus = [baseline_tokens((root / rel).read_text(encoding="utf-8"), stemmer) for rel in rels]
    retriever = bm25s.BM25()
    retriever.index(corpus, show_progress=False)
    vocab = retriever.vocab_dict

    def run(query: str) -> list[str]:
        tokens = [t for t in baseline_tokens(query, stemmer) if t in vocab]
        scores = retriever.get_scores(tokens) if tokens else np.zeros(len(rels))
        order = sorted(range(len(rels)), key=lambda i: (-float(scores[i]), rels[i]))
        return [rels[i] for i in order]

    return run


# --- the table -------------------------------------------------------------------------------------------


def evaluate(root: Path) -> dict[str, dict[str, tuple[float, float, float]]]:
    """{system: {slice: (nDCG@10, MRR, top-1)}} for the engine and bm25s, per slice and overall."""
    cases = load_cases()
    systems = {"knit": engine_ranker(root), "bm25s": bm25s_ranker(root, corpus_files(root))}
    out: dict[str, dict[str, tuple[float, float, float]]] = {}
    for name, run in systems.items():
        per = {s: Scores() for s in (*SLICES, "all")}
        for case in cases:
            order = run(case["query"])
            per[case["slice"]].add(order, case["relevant"])
            per["all"].add(order, case["relevant"])
        out[name] = {s: per[s].mean() for s in per}
    return out


def misses(root: Path, system: str = "knit") -> list[str]:
    cases = load_cases()
    run = engine_ranker(root) if system == "knit" else bm25s_ranker(root, corpus_files(root))
    lines = []
    for case in cases:
        order = run(case["query"])
        rr = reciprocal_rank(order, case["relevant"])
        if rr < 1.0:
            lines.append(f"[{case['slice']}] rr={rr:.2f} {case['query']!r} -> {order[0]}")
    return lines


def table(results: dict[str, dict[str, tuple[float, float, float]]]) -> str:
    counts = {s: 0 for s in SLICES}
    for case in load_cases():
        counts[case["slice"]] += 1
    counts["all"] = sum(counts.values())
    lines = [
        f"{'slice':<18}{'n':>4}  {'nDCG@10 knit/bm25s':>20}  {'MRR knit/bm25s':>16}  {'top-1 knit/bm25s':>18}  ratio",
    ]
    for s in (*SLICES, "all"):
        k, b = results["knit"][s], results["bm25s"][s]
        ratio = k[0] / b[0] if b[0] else float("inf")
        lines.append(
            f"{SLICE_NAMES[s]:<18}{counts[s]:>4}  {k[0]:>9.3f} / {b[0]:.3f}  {k[1]:>7.3f} / {b[1]:.3f}"
            f"  {k[2]:>8.3f} / {b[2]:.3f}  {ratio:.3f}"
        )
    return "\n".join(lines)


def copy_corpus(dest: Path) -> Path:
    """The corpus in a fresh folder, every file a month old: freshness and copy order decide nothing."""
    shutil.copytree(CORPUS, dest, ignore=shutil.ignore_patterns("SOURCES.md"))
    mtime_ns = (NOW_MS - 30 * 86_400_000) * 1_000_000
    for path in dest.rglob("*"):
        if path.is_file():
            os.utime(path, ns=(mtime_ns, mtime_ns))
    return dest


if __name__ == "__main__":
    import sys
    import tempfile

    with tempfile.TemporaryDirectory() as tmp:
        root = copy_corpus(Path(tmp) / "public")
        print(table(evaluate(root)))
        if "--misses" in sys.argv:
            print("\n".join(misses(root)))
