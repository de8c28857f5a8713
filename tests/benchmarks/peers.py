"""Knit against tantivy on the same generated workspace, measured interleaved in one run.

Run:  .venv/bin/python tests/benchmarks/peers.py [--sizes 1000 20000] [--rounds 3] [--keep /tmp/peers-ws]
Needs the `bench` extra (pip install -e '.[bench]': tantivy's Python binding), which the app never imports.

Both engines get the same files (the workspace generator's .md/.txt documents) and the same 30 queries. Every
measured step alternates between the engines (Knit, tantivy, Knit, tantivy, ...) so a busy shared machine slows
both alike; read the ratios first, the absolute numbers second. Each step runs in a fresh child process, whose
peak RSS comes from wait4():

- build: a cold index of the workspace (Knit: `knit-desktop index`; tantivy: read every file, add it, commit);
- size: the index on disk (Knit: its cache directory; tantivy: its index directory);
- query in process: open the index once, then each query `--rounds` times (Knit: Workspace.rank with the
  snapshot loaded and its top 10 read; tantivy: parse + search top 10 + fetch the stored paths); the first
  run of each query (nothing cached for its terms) and the repeats are reported apart, median and p95;
- context pack in process (Knit only, what `knit_docs` computes): Workspace.context per query;
- cold-process query: one whole process per query (Knit: `knit-desktop rank --limit 10`; tantivy: a script
  that opens the index and searches), median and p95 over the queries;
- serving RSS: the resident set of the in-process query child after its queries.

Tantivy indexes title and body with its `en_stem` analyzer; Chinese runs are single tokens for it, so its CJK
queries do less work than Knit's (whose CJK terms are 2/3-grams). The comparison is about cost, not quality.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO))

from tests.benchmarks.workspace_generator import CN_TOPICS, TOPICS, generate  # noqa: E402

QUERIES = TOPICS + CN_TOPICS + ["Meridian photos sync", "budget owner risk"]
NOW_MS = 1_780_000_000_000
TEXT_SUFFIXES = (".md", ".txt")


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(q * (len(ordered) - 1))))]


def dir_size(path: Path) -> int:
    return sum(p.stat().st_size for p in path.rglob("*") if p.is_file())


def run_measured(args: list[str], env: dict) -> tuple[float, int, str]:
    """Wall seconds, the child's own peak RSS (bytes, from wait4) and its stdout (through a temp file, so no
    pipe deadlock)."""
    with tempfile.TemporaryFile("w+") as out, tempfile.TemporaryFile("w+") as err:
        t0 = time.perf_counter()
        proc = subprocess.Popen(args, env=env, stdout=out, stderr=err, text=True)
        _, status, usage = os.wait4(proc.pid, 0)
        wall = time.perf_counter() - t0
        proc.returncode = os.waitstatus_to_exitcode(status)
        out.seek(0)
        err.seek(0)
        if proc.returncode != 0:
            raise RuntimeError(f"{args} failed ({proc.returncode}): {err.read()[-3000:]}")
        return wall, usage.ru_maxrss * 1024, out.read()


# --- the tantivy side, run as child processes of this script -----------------------------------------------


def tantivy_schema():
    import tantivy

    builder = tantivy.SchemaBuilder()
    builder.add_text_field("rel", stored=True, tokenizer_name="raw")
    builder.add_text_field("title", stored=False, tokenizer_name="en_stem")
    builder.add_text_field("body", stored=False, tokenizer_name="en_stem")
    return builder.build()


def tantivy_build(root: Path, index_dir: Path) -> None:
    import tantivy

    index_dir.mkdir(parents=True, exist_ok=True)
    index = tantivy.Index(tantivy_schema(), path=str(index_dir))
    writer = index.writer(heap_size=100_000_000, num_threads=1)
    for dirpath, _dirs, files in os.walk(root):
        for name in files:
            if not name.endswith(TEXT_SUFFIXES):
                continue
            path = Path(dirpath) / name
            text = path.read_text(encoding="utf-8", errors="replace")
            first = text.split("\n", 1)[0].lstrip("# ").strip()
            rel = str(path.relative_to(root))
            writer.add_document(tantivy.Document(rel=rel, title=first, body=text))
    writer.commit()
    writer.wait_merging_threads()


def tantivy_search(index, query: str) -> list[str]:
    searcher = index.searcher()
    parsed = index.parse_query(query, ["title", "body"])
    hits = searcher.search(parsed, 10).hits
    return [searcher.doc(addr)["rel"][0] for _score, addr in hits]


def tantivy_serve(index_dir: Path, rounds: int) -> dict:
    import tantivy

    index = tantivy.Index.open(str(index_dir))
    times: dict[str, list[float]] = {q: [] for q in QUERIES}
    for _ in range(rounds):
        for q in QUERIES:
            t0 = time.perf_counter()
            tantivy_search(index, q)
            times[q].append((time.perf_counter() - t0) * 1000)
    return {"query_ms": times, "rss": rss_now()}


def knit_serve(root: Path, rounds: int) -> dict:
    from knit_desktop.core.workspace import RankInput, Workspace

    t0 = time.perf_counter()
    ws = Workspace.open_persistent(str(root))
    open_s = time.perf_counter() - t0
    times: dict[str, list[float]] = {q: [] for q in QUERIES}
    context: list[float] = []
    for _ in range(rounds):
        for q in QUERIES:
            request = RankInput.from_query(q)
            t0 = time.perf_counter()
            ranking = ws.rank(request, now_ms=NOW_MS)
            [r.doc.rel for r in ranking.ranked[:10]]
            times[q].append((time.perf_counter() - t0) * 1000)
    for q in QUERIES:
        t0 = time.perf_counter()
        ws.context(RankInput.from_query(q), now_ms=NOW_MS)
        context.append((time.perf_counter() - t0) * 1000)
    return {"query_ms": times, "context_ms": context, "open_s": open_s, "rss": rss_now(),
            "loaded_from": ws.last_refresh.loaded_from}


def knit_top(root: Path) -> dict:
    """The top 10 of every query, to compare rankings before and after an engine change."""
    from knit_desktop.core.workspace import RankInput, Workspace

    ws = Workspace.open_persistent(str(root))
    out = {}
    for q in QUERIES:
        ranking = ws.rank(RankInput.from_query(q), now_ms=NOW_MS)
        out[q] = [(r.doc.rel, round(r.raw, 9)) for r in ranking.ranked[:30]]
        pack = ws.context(RankInput.from_query(q), now_ms=NOW_MS)
        out[q + " #pack"] = [[(it.record.doc.rel, it.reason.code, [p.start_line for p in it.passages])
                              for it in items] for _, items in pack.tiers()]
    return out


def rss_now() -> int:
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) * 1024
    return 0


# --- the driver --------------------------------------------------------------------------------------------


def child_cmd(*args: str) -> list[str]:
    return [sys.executable, str(Path(__file__).resolve()), "--child", *args]


def measure(size: int, base: Path, rounds: int, cold_repeat: int) -> dict:
    root = base / f"ws{size}"
    if not (root / ".generated").exists():
        shutil.rmtree(root, ignore_errors=True)
        generate(root, size)
        (root / ".generated").write_text("")
    n_files = sum(1 for p in root.rglob("*") if p.is_file() and p.suffix in TEXT_SUFFIXES)
    home = base / f"home{size}"
    tdir = base / f"tantivy{size}"
    env = dict(os.environ, KNIT_DESKTOP_HOME=str(home), PYTHONPATH=str(REPO))
    cli = [sys.executable, "-m", "knit_desktop"]
    r: dict = {"size": size, "files": n_files, "build": {"knit": [], "tantivy": []},
               "build_rss": {"knit": [], "tantivy": []}}
    for _ in range(2 if size <= 20000 else 1):  # two builds each where affordable: the first is noisy
        shutil.rmtree(home, ignore_errors=True)
        wall, rss, _ = run_measured([*cli, "index", "--workspace", str(root)], env)
        r["build"]["knit"].append(wall)
        r["build_rss"]["knit"].append(rss)
        shutil.rmtree(tdir, ignore_errors=True)
        wall, rss, _ = run_measured(child_cmd("tantivy-build", str(root), str(tdir)), env)
        r["build"]["tantivy"].append(wall)
        r["build_rss"]["tantivy"].append(rss)
    r["size_bytes"] = {"knit": dir_size(home), "tantivy": dir_size(tdir)}

    serve: dict = {"knit": [], "tantivy": []}
    serve_rss: dict = {"knit": [], "tantivy": []}
    for _ in range(2):
        _, peak, out = run_measured(child_cmd("knit-serve", str(root), str(rounds)), env)
        serve["knit"].append(json.loads(out))
        serve_rss["knit"].append(peak)
        _, peak, out = run_measured(child_cmd("tantivy-serve", str(tdir), str(rounds)), env)
        serve["tantivy"].append(json.loads(out))
        serve_rss["tantivy"].append(peak)
    for engine in ("knit", "tantivy"):
        # A query's first run in a process (its terms never looked up yet) and its repeats, apart.
        first = [v[0] for s in serve[engine] for v in s["query_ms"].values()]
        again = [t for s in serve[engine] for v in s["query_ms"].values() for t in v[1:]]
        r[f"query_{engine}"] = (statistics.median(first), percentile(first, 0.95))
        r[f"query_again_{engine}"] = (statistics.median(again), percentile(again, 0.95)) if again else (0.0, 0.0)
        r[f"rss_serving_{engine}"] = max(s["rss"] for s in serve[engine])
        r[f"rss_serving_peak_{engine}"] = max(serve_rss[engine])
    context = [t for s in serve["knit"] for t in s["context_ms"]]
    r["context_knit"] = (statistics.median(context), percentile(context, 0.95))
    r["knit_open_s"] = statistics.median(s["open_s"] for s in serve["knit"])
    r["knit_loaded_from"] = serve["knit"][0]["loaded_from"]

    cold: dict = {"knit": [], "tantivy": []}
    for i in range(cold_repeat):
        q = QUERIES[(i * 7) % len(QUERIES)]
        wall, _, _ = run_measured([*cli, "rank", "--workspace", str(root), "--query", q, "--limit", "10"], env)
        cold["knit"].append(wall * 1000)
        wall, _, _ = run_measured(child_cmd("tantivy-query", str(tdir), q), env)
        cold["tantivy"].append(wall * 1000)
    for engine in ("knit", "tantivy"):
        r[f"cold_{engine}"] = (statistics.median(cold[engine]), percentile(cold[engine], 0.95))
    return r


def report(r: dict) -> None:
    def ratio(a: float, b: float) -> str:
        return f"{a / b:.1f}x" if b else "-"

    mb = 1024 * 1024
    bk, bt = statistics.median(r["build"]["knit"]), statistics.median(r["build"]["tantivy"])
    rows = [
        ("cold index build (s)", f"{bk:.1f}", f"{bt:.1f}", ratio(bk, bt)),
        ("build peak RSS (MB)", f"{max(r['build_rss']['knit']) / mb:.0f}",
         f"{max(r['build_rss']['tantivy']) / mb:.0f}",
         ratio(max(r["build_rss"]["knit"]), max(r["build_rss"]["tantivy"]))),
        ("index size (MB)", f"{r['size_bytes']['knit'] / mb:.1f}", f"{r['size_bytes']['tantivy'] / mb:.1f}",
         ratio(r["size_bytes"]["knit"], r["size_bytes"]["tantivy"])),
        ("query in process, first time, median / p95 (ms)", "{:.2f} / {:.2f}".format(*r["query_knit"]),
         "{:.2f} / {:.2f}".format(*r["query_tantivy"]), ratio(r["query_knit"][0], r["query_tantivy"][0])),
        ("query in process, repeated, median / p95 (ms)", "{:.2f} / {:.2f}".format(*r["query_again_knit"]),
         "{:.2f} / {:.2f}".format(*r["query_again_tantivy"]),
         ratio(r["query_again_knit"][0], r["query_again_tantivy"][0])),
        ("query from a cold process, median / p95 (ms)", "{:.0f} / {:.0f}".format(*r["cold_knit"]),
         "{:.0f} / {:.0f}".format(*r["cold_tantivy"]), ratio(r["cold_knit"][0], r["cold_tantivy"][0])),
        ("RSS while serving queries (MB)", f"{r['rss_serving_knit'] / mb:.0f}",
         f"{r['rss_serving_tantivy'] / mb:.0f}", ratio(r["rss_serving_knit"], r["rss_serving_tantivy"])),
        ("context pack in process, median / p95 (ms)", "{:.1f} / {:.1f}".format(*r["context_knit"]), "-", "-"),
        ("open persistent index in process (s)", f"{r['knit_open_s']:.2f} ({r['knit_loaded_from']})", "-", "-"),
    ]
    print(f"\n## {r['size']} documents requested, {r['files']} text files")
    print("| | Knit | tantivy | Knit / tantivy |\n|---|---|---|---|")
    for row in rows:
        print("| " + " | ".join(row) + " |")
    print(f"(builds: knit {[round(x, 1) for x in r['build']['knit']]} s, "
          f"tantivy {[round(x, 1) for x in r['build']['tantivy']]} s)", flush=True)


def child(argv: list[str]) -> int:
    what, *rest = argv
    if what == "tantivy-build":
        tantivy_build(Path(rest[0]), Path(rest[1]))
    elif what == "tantivy-serve":
        print(json.dumps(tantivy_serve(Path(rest[0]), int(rest[1]))))
    elif what == "tantivy-query":
        import tantivy

        print("\n".join(tantivy_search(tantivy.Index.open(rest[0]), rest[1])))
    elif what == "knit-serve":
        print(json.dumps(knit_serve(Path(rest[0]), int(rest[1]))))
    elif what == "knit-top":
        print(json.dumps(knit_top(Path(rest[0])), ensure_ascii=False, indent=0))
    else:
        raise SystemExit(f"unknown child step {what}")
    return 0


def main() -> int:
    if len(sys.argv) > 1 and sys.argv[1] == "--child":
        return child(sys.argv[2:])
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sizes", type=int, nargs="+", default=[1000, 20000])
    parser.add_argument("--rounds", type=int, default=3, help="repeats of each query in process")
    parser.add_argument("--cold", type=int, default=7, help="cold-process queries per engine")
    parser.add_argument("--keep", metavar="DIR", help="generate workspaces here and keep them between runs")
    args = parser.parse_args()
    base = Path(args.keep) if args.keep else Path(tempfile.mkdtemp(prefix="knit-peers-"))
    base.mkdir(parents=True, exist_ok=True)
    try:
        for size in args.sizes:
            report(measure(size, base, args.rounds, args.cold))
    finally:
        if not args.keep:
            shutil.rmtree(base, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
