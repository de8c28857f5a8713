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
if os.environ.get("PEERS_KNIT_TREE"):  # a child measuring another checkout imports Knit from there
    sys.path.insert(0, os.environ["PEERS_KNIT_TREE"])

from tests.benchmarks.workspace_generator import CN_TOPICS, TOPICS, generate  # noqa: E402

QUERIES = TOPICS + CN_TOPICS + ["Meridian photos sync", "budget owner risk"]
if os.environ.get("PEERS_QUERIES"):  # a workspace of real material brings its own (`--workspace … --queries …`)
    QUERIES = json.loads(os.environ["PEERS_QUERIES"])
NOW_MS = 1_780_000_000_000
TEXT_SUFFIXES = (".md", ".txt")


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(q * (len(ordered) - 1))))]


def dir_size(path: Path) -> int:
    return sum(p.stat().st_size for p in path.rglob("*") if p.is_file())


def run_measured(args: list[str], env: dict, cwd: Path | None = None) -> tuple[float, int, str]:
    """Wall seconds, the child's own peak RSS (bytes, from wait4) and its stdout (through a temp file, so no
    pipe deadlock)."""
    with tempfile.TemporaryFile("w+") as out, tempfile.TemporaryFile("w+") as err:
        t0 = time.perf_counter()
        proc = subprocess.Popen(args, env=env, stdout=out, stderr=err, text=True, cwd=cwd)
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


def compile_tree(tree: Path) -> None:
    """The bytecode the wheel and the bundle ship. Without it (PYTHONDONTWRITEBYTECODE, or a source file newer
    than its .pyc) every cold process compiles the modules it imports: 36 ms of a `rank` for one module."""
    subprocess.run([sys.executable, "-m", "compileall", "-q", str(Path(tree) / "knit_desktop")], check=True,
                   stdout=subprocess.DEVNULL)


def measure(size: int, base: Path, rounds: int, cold_repeat: int, before: Path | None = None,
            given: Path | None = None) -> dict:
    root = given or base / f"ws{size}"
    if given is None and not (root / ".generated").exists():
        shutil.rmtree(root, ignore_errors=True)
        generate(root, size)
        (root / ".generated").write_text("")
    n_files = sum(1 for p in root.rglob("*") if p.is_file() and p.suffix in TEXT_SUFFIXES)
    size = size or n_files
    tdir = base / f"tantivy{size}"
    # Knit from this tree, and optionally from another checkout (`--before`), each with its own index.
    knits = {"knit": REPO} | ({"before": before} if before is not None else {})
    homes = {name: base / f"home{size}-{name}" for name in knits}
    envs = {name: dict(os.environ, KNIT_DESKTOP_HOME=str(homes[name]), PYTHONPATH=str(tree), PEERS_KNIT_TREE=str(tree))
            for name, tree in knits.items()}
    engines = [*knits, "tantivy"]
    cli = [sys.executable, "-m", "knit_desktop"]
    for tree in knits.values():
        compile_tree(tree)
    r: dict = {"size": size, "files": n_files, "engines": engines, "build": {e: [] for e in engines},
               "build_rss": {e: [] for e in engines}}
    env_t = envs["knit"]
    for _ in range(2 if size <= 20000 else 1):  # two builds each where affordable: the first is noisy
        for name in knits:
            shutil.rmtree(homes[name], ignore_errors=True)
            # cwd: `python -m` puts the working directory first on the path, ahead of PYTHONPATH.
            wall, rss, _ = run_measured([*cli, "index", "--workspace", str(root)], envs[name], knits[name])
            r["build"][name].append(wall)
            r["build_rss"][name].append(rss)
        shutil.rmtree(tdir, ignore_errors=True)
        wall, rss, _ = run_measured(child_cmd("tantivy-build", str(root), str(tdir)), env_t)
        r["build"]["tantivy"].append(wall)
        r["build_rss"]["tantivy"].append(rss)
    r["size_bytes"] = {name: dir_size(homes[name]) for name in knits} | {"tantivy": dir_size(tdir)}

    serve: dict = {e: [] for e in engines}
    for _ in range(2):
        for name in knits:
            _, _, out = run_measured(child_cmd("knit-serve", str(root), str(rounds)), envs[name])
            serve[name].append(json.loads(out))
        _, _, out = run_measured(child_cmd("tantivy-serve", str(tdir), str(rounds)), env_t)
        serve["tantivy"].append(json.loads(out))
    for engine in engines:
        # A query's first run in a process (its terms never looked up yet) and its repeats, apart.
        first = [v[0] for s in serve[engine] for v in s["query_ms"].values()]
        again = [t for s in serve[engine] for v in s["query_ms"].values() for t in v[1:]]
        r[f"query_{engine}"] = (statistics.median(first), percentile(first, 0.95))
        r[f"query_again_{engine}"] = (statistics.median(again), percentile(again, 0.95)) if again else (0.0, 0.0)
        r[f"rss_serving_{engine}"] = max(s["rss"] for s in serve[engine])
    for name in knits:
        context = [t for s in serve[name] for t in s["context_ms"]]
        r[f"context_{name}"] = (statistics.median(context), percentile(context, 0.95))
        r[f"open_{name}"] = statistics.median(s["open_s"] for s in serve[name])

    cold: dict = {e: [] for e in engines}
    for i in range(cold_repeat):
        q = QUERIES[(i * 7) % len(QUERIES)]
        for name in knits:
            wall, _, _ = run_measured([*cli, "rank", "--workspace", str(root), "--query", q, "--limit", "10"],
                                      envs[name], knits[name])
            cold[name].append(wall * 1000)
        wall, _, _ = run_measured(child_cmd("tantivy-query", str(tdir), q), env_t)
        cold["tantivy"].append(wall * 1000)
    for engine in engines:
        r[f"cold_{engine}"] = (statistics.median(cold[engine]), percentile(cold[engine], 0.95))

    # The same one-shot queries while a window watches the workspace (a process holding the index's watch
    # lease): `rank` then trusts the index and does not walk the workspace. This tree only.
    holder = subprocess.Popen(child_cmd("knit-hold-lease", str(root)), env=envs["knit"], stdin=subprocess.PIPE,
                              stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "held"
        watched = []
        for i in range(cold_repeat):
            q = QUERIES[(i * 7) % len(QUERIES)]
            wall, _, _ = run_measured([*cli, "rank", "--workspace", str(root), "--query", q, "--limit", "10"],
                                      envs["knit"], REPO)
            watched.append(wall * 1000)
    finally:
        holder.kill()
        holder.wait()
    r["cold_watched"] = (statistics.median(watched), percentile(watched, 0.95))
    return r


def report(r: dict) -> None:
    def ratio(a: float, b: float) -> str:
        return f"{a / b:.1f}x" if b else "-"

    mb = 1024 * 1024
    knits = [e for e in r["engines"] if e != "tantivy"]
    build = {e: statistics.median(r["build"][e]) for e in r["engines"]}
    peak = {e: max(r["build_rss"][e]) for e in r["engines"]}
    lines = [
        ("cold index build (s)", lambda e: f"{build[e]:.1f}", lambda e: build[e]),
        ("build peak RSS (MB)", lambda e: f"{peak[e] / mb:.0f}", lambda e: peak[e]),
        ("index size (MB)", lambda e: f"{r['size_bytes'][e] / mb:.1f}", lambda e: r["size_bytes"][e]),
        ("query in process, first time, median / p95 (ms)", lambda e: "{:.2f} / {:.2f}".format(*r[f"query_{e}"]),
         lambda e: r[f"query_{e}"][0]),
        ("query in process, repeated, median / p95 (ms)",  # (none with --rounds 1: "-")
         lambda e: "{:.2f} / {:.2f}".format(*r[f"query_again_{e}"]) if r[f"query_again_{e}"][0] else "-",
         lambda e: r[f"query_again_{e}"][0]),
        ("query from a cold process, median / p95 (ms)", lambda e: "{:.0f} / {:.0f}".format(*r[f"cold_{e}"]),
         lambda e: r[f"cold_{e}"][0]),
        ("RSS while serving queries (MB)", lambda e: f"{r[f'rss_serving_{e}'] / mb:.0f}",
         lambda e: r[f"rss_serving_{e}"]),
    ]
    names = {"knit": "Knit", "before": "Knit before", "tantivy": "tantivy"}
    header = [names[e] for e in r["engines"]] + [f"{names[k]} / tantivy" for k in knits]
    print(f"\n## {r['size']} documents requested, {r['files']} text files, {len(QUERIES)} queries")
    print("| | " + " | ".join(header) + " |\n|" + "---|" * (len(header) + 1))
    for label, shown, value in lines:
        cells = [shown(e) for e in r["engines"]] + [ratio(value(k), value("tantivy")) for k in knits]
        print(f"| {label} | " + " | ".join(cells) + " |")
    watched, tantivy_cold = r["cold_watched"], r["cold_tantivy"]
    print("| query from a cold process while the window watches, median / p95 (ms) | "
          + " | ".join(["{:.0f} / {:.0f}".format(*watched)] + ["-"] * (len(knits) - 1)
                       + ["{:.0f} / {:.0f}".format(*tantivy_cold), ratio(watched[0], tantivy_cold[0])]
                       + ["-"] * (len(knits) - 1)) + " |")
    for label, key, fmt in (("context pack in process (knit_docs), median / p95 (ms)", "context", "{:.1f} / {:.1f}"),
                            ("open the persistent index in process (s)", "open", "{:.2f}")):
        values = [r[f"{key}_{k}"] for k in knits]
        cells = [fmt.format(*v) if isinstance(v, tuple) else fmt.format(v) for v in values]
        print(f"| {label} | " + " | ".join(cells + ["-"] * (len(header) - len(cells))) + " |")
    print("(builds, s: " + ", ".join(f"{names[e]} {[round(x, 1) for x in r['build'][e]]}" for e in r["engines"])
          + ")", flush=True)


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
    elif what == "knit-hold-lease":  # stands in for a window watching the workspace, until stdin closes
        from knit_desktop.core.index.store import IndexStore
        from knit_desktop.core.paths import index_db_path

        store = IndexStore(index_db_path(os.path.realpath(rest[0])), os.path.realpath(rest[0]))
        store.hold_watch_lease(seconds=3600)
        print("held", flush=True)
        sys.stdin.read()
        store.release_watch_lease()
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
    parser.add_argument("--before", metavar="TREE", type=Path,
                        help="another Knit checkout measured alongside (a column 'Knit before')")
    parser.add_argument("--workspace", metavar="DIR", type=Path,
                        help="measure this folder instead of generated ones (real_workspace.py writes one)")
    parser.add_argument("--queries", metavar="FILE", type=Path,
                        help="a JSON list of queries for --workspace (default: the generated topics)")
    args = parser.parse_args()
    if args.queries:
        QUERIES[:] = json.loads(args.queries.read_text(encoding="utf-8"))
        os.environ["PEERS_QUERIES"] = json.dumps(QUERIES)  # the measured children ask the same
    base = Path(args.keep) if args.keep else Path(tempfile.mkdtemp(prefix="knit-peers-"))
    base.mkdir(parents=True, exist_ok=True)
    try:
        if args.workspace:
            report(measure(0, base, args.rounds, args.cold, args.before, args.workspace.resolve()))
        for size in [] if args.workspace else args.sizes:
            report(measure(size, base, args.rounds, args.cold, args.before))
    finally:
        if not args.keep:
            shutil.rmtree(base, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
