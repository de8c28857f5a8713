"""Library speed: index time, `knit_ask` warm and cold, peak memory — against bm25s, SQLite FTS5 and dsh-kb-lite's
method (BM25 rebuilt per query) on the same passages, each system in its own process (so peak RSS is its own).

Run: .venv/bin/python tests/benchmarks/library.py [--docs 2000] [--sections 10]
A generated library of DOCS Markdown documents, SECTIONS sections of ~1,000 characters each (about one passage per
section: --docs 2000 gives ~20,000 passages, --docs 20000 the issue's 200,000). Targets (issue 17): knit_ask warm
<= 150 ms, cold open (a fresh `knit-desktop ask` process on the saved index) <= 2 s, indexing as fast per MB as the
workspace index.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from tests.benchmarks.workspace_generator import CN_TOPICS, EN_FILLER, TOPICS  # noqa: E402

QUERIES = [f"{a} {b.split()[0]}" for a, b in zip(TOPICS, TOPICS[5:] + TOPICS[:5])] + CN_TOPICS[:6] + [
    "how does the upload retry backoff work", "thumbnail cache eviction policy", "w1234 w777"]


def generate_library(root: Path, docs: int, sections: int, seed: int = 7) -> int:
    """Deterministic documents: a title, SECTIONS `##` sections naming a topic, each ~1,000 characters of filler with
    rare words (w0..w20000) so IDF varies as in real text. Returns the bytes written."""
    rng = random.Random(seed)
    root.mkdir(parents=True, exist_ok=True)
    total = 0
    for d in range(docs):
        topic = rng.choice(TOPICS + CN_TOPICS)
        parts = [f"# Manual {d}: {topic}", ""]
        for s in range(sections):
            sub = rng.choice(TOPICS + CN_TOPICS)
            words = " ".join(rng.choice(EN_FILLER) if rng.random() < 0.85 else f"w{rng.randint(0, 20000)}"
                             for _ in range(150))
            parts += [f"## {s + 1}. {sub}", "", f"This section covers {sub}. " + words + ".", ""]
        text = "\n".join(parts)
        folder = root / f"shelf{d // 500:03}"
        folder.mkdir(exist_ok=True)
        (folder / f"manual-{d:05}.md").write_text(text, encoding="utf-8")
        total += len(text.encode("utf-8"))
    return total


def peak_rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def percentile(values: list[float], p: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(p * (len(ordered) - 1))))]


def timed_queries(run, queries: list[str]) -> dict:
    times = []
    for query in queries:
        t0 = time.perf_counter()
        run(query)
        times.append((time.perf_counter() - t0) * 1000)
    return {"median_ms": statistics.median(times), "p95_ms": percentile(times, 0.95)}


def passages_of(root: Path) -> list[str]:
    from knit_desktop.core.index.documents import extract_document
    from knit_desktop.core.rank.passages import chunk_document

    out = []
    for path in sorted(root.rglob("*.md")):
        doc = extract_document(str(path), path.name, "md", 0, path.stat().st_size)
        out.extend(doc.body[s:e] for s, e in chunk_document(doc, limit=None))
    return out


# --- one system per process --------------------------------------------------------------------------------


def system_knit(root: Path) -> dict:
    from knit_desktop.core.library import Library
    from knit_desktop.core.workspace import Workspace

    t0 = time.perf_counter()
    Workspace.open_persistent(str(root)).close()
    index_s = time.perf_counter() - t0
    t0 = time.perf_counter()
    library = Library.open([str(root)])
    warm_open_s = time.perf_counter() - t0
    library.ask(QUERIES[0])  # the first query builds the pools
    stats = timed_queries(lambda q: library.ask(q), QUERIES)
    passages = library.stats(count_passages=True)[0]["passages"]
    return {"index_s": index_s, "warm_open_s": warm_open_s, "passages": passages, **stats}


def system_bm25s(root: Path) -> dict:
    import bm25s
    import Stemmer

    from tests.eval.public_eval import baseline_tokens

    t0 = time.perf_counter()
    texts = passages_of(root)
    stemmer = Stemmer.Stemmer("english")
    retriever = bm25s.BM25()
    retriever.index([baseline_tokens(t, stemmer) for t in texts], show_progress=False)
    index_s = time.perf_counter() - t0
    vocab = retriever.vocab_dict

    def run(query: str):
        tokens = [t for t in baseline_tokens(query, stemmer) if t in vocab]
        scores = retriever.get_scores(tokens)
        return sorted(range(len(texts)), key=lambda i: -float(scores[i]))[:5] if tokens else []

    return {"index_s": index_s, "passages": len(texts), **timed_queries(run, QUERIES)}


def system_fts5(root: Path) -> dict:
    import sqlite3

    t0 = time.perf_counter()
    texts = passages_of(root)
    db = sqlite3.connect(":memory:")
    db.execute("CREATE VIRTUAL TABLE p USING fts5(body, tokenize='unicode61')")
    db.executemany("INSERT INTO p (body) VALUES (?)", ((t,) for t in texts))
    db.commit()
    index_s = time.perf_counter() - t0

    def run(query: str):
        terms = " OR ".join('"' + w.replace('"', "") + '"' for w in query.split())
        return db.execute("SELECT rowid FROM p WHERE p MATCH ? ORDER BY bm25(p) LIMIT 5", (terms,)).fetchall()

    return {"index_s": index_s, "passages": len(texts), **timed_queries(run, QUERIES)}


def system_kblite(root: Path) -> dict:
    from tests.eval.passage_eval import kb_lite_ranker

    t0 = time.perf_counter()
    run = kb_lite_ranker_over(root, kb_lite_ranker)
    index_s = time.perf_counter() - t0
    return {"index_s": index_s, **timed_queries(run, QUERIES[:3])}  # seconds per query: three are enough


def kb_lite_ranker_over(root: Path, factory):
    import tests.eval.passage_eval as pe

    original = pe.corpus_files
    pe.corpus_files = lambda r: sorted(p.relative_to(r).as_posix() for p in r.rglob("*.md"))
    try:
        return factory(root)
    finally:
        pe.corpus_files = original


SYSTEMS = {"knit": system_knit, "bm25s": system_bm25s, "fts5": system_fts5, "kb-lite": system_kblite}


def cold_ask(root: Path, env: dict) -> tuple[float, float]:
    """Wall time of a fresh `knit-desktop ask` process on the saved index, and of a bare `--version`."""
    def wall(args: list[str]) -> float:
        times = []
        for _ in range(3):
            t0 = time.perf_counter()
            subprocess.run([sys.executable, "-m", "knit_desktop", *args], env=env, check=True, capture_output=True)
            times.append(time.perf_counter() - t0)
        return statistics.median(times)

    return wall(["ask", QUERIES[1], "--json"]), wall(["--version"])


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--docs", type=int, default=2000)
    parser.add_argument("--sections", type=int, default=10)
    parser.add_argument("--system", choices=tuple(SYSTEMS))
    parser.add_argument("--root")
    parser.add_argument("--skip", default="", help="comma-separated systems to leave out")
    args = parser.parse_args()
    if args.system:  # a child: one system, one JSON line
        result = SYSTEMS[args.system](Path(args.root))
        result["peak_rss_mb"] = peak_rss_mb()
        print(json.dumps(result))
        return
    work = Path(tempfile.mkdtemp(prefix="knit-library-bench-"))
    root = work / "library"
    size = generate_library(root, args.docs, args.sections)
    env = dict(os.environ, KNIT_DESKTOP_HOME=str(work / "home"), PYTHONPATH=str(ROOT))
    print(f"library: {args.docs} documents, {size / 1e6:.1f} MB, in {root}")
    results = {}
    for name in SYSTEMS:
        if name in args.skip.split(","):
            continue
        out = subprocess.run([sys.executable, __file__, "--system", name, "--root", str(root)], env=env,
                             capture_output=True, text=True, check=True)
        results[name] = json.loads(out.stdout.strip().splitlines()[-1])
    subprocess.run([sys.executable, "-m", "knit_desktop", "library", "add", str(root), "--no-index"], env=env,
                   check=True, capture_output=True)
    cold, bare = cold_ask(root, env)
    print(f"{'system':8} {'index s':>8} {'MB/s':>6} {'passages':>9} {'median ms':>10} {'p95 ms':>8} {'peak RSS MB':>12}")
    for name, r in results.items():
        print(f"{name:8} {r['index_s']:8.1f} {size / 1e6 / r['index_s']:6.2f} {r.get('passages', ''):>9} "
              f"{r['median_ms']:10.1f} {r['p95_ms']:8.1f} {r['peak_rss_mb']:12.0f}")
    if "knit" in results:
        print(f"knit: warm open of the saved index {results['knit']['warm_open_s']:.2f} s; cold `knit-desktop ask` "
              f"{cold:.2f} s (bare `--version` {bare:.2f} s); targets: warm ask <= 150 ms, cold <= 2 s")


if __name__ == "__main__":
    main()
