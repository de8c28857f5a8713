"""The cold index build alone, Knit against tantivy (and optionally an older Knit), interleaved round by round.

Run:  .venv/bin/python tests/benchmarks/build.py [--sizes 20000] [--rounds 3] [--keep /tmp/build-peers]
                                                [--before /path/to/other/checkout] [--workers N]
Each build is a fresh child process (Knit: `knit-desktop index` on an empty index; tantivy: peers.py's build),
timed from outside, its peak RSS from wait4(). The order rotates every round (Knit, tantivy, before; then
tantivy, before, Knit; ...) so a busy shared machine slows every engine alike: read the medians and the ratios.
Knit's own CPU time is printed too (user + system, its worker processes included), which a busy machine
distorts less than wall time. `peers.py` measures the rest (queries, sizes, serving memory).
"""

from __future__ import annotations

import argparse
import os
import resource
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO))

from tests.benchmarks.peers import TEXT_SUFFIXES, child_cmd, compile_tree, run_measured  # noqa: E402
from tests.benchmarks.workspace_generator import generate  # noqa: E402

TARGET_RATIO = 1.5  # issue 16: a cold build within 1.5x tantivy's
PEAK_RSS_LIMIT = 600 * 1024 * 1024  # issue 16: at 100,000 documents


def children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sizes", type=int, nargs="+", default=[20000])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--keep", metavar="DIR", help="generate workspaces here and keep them between runs")
    parser.add_argument("--before", metavar="TREE", type=Path, help="another Knit checkout built alongside")
    args = parser.parse_args()
    base = Path(args.keep) if args.keep else Path(tempfile.mkdtemp(prefix="knit-build-"))
    base.mkdir(parents=True, exist_ok=True)
    trees = {"knit": REPO} | ({"before": args.before.resolve()} if args.before else {})
    for tree in trees.values():
        compile_tree(tree)
    cli = [sys.executable, "-m", "knit_desktop"]
    try:
        for size in args.sizes:
            root = base / f"ws{size}"
            if not (root / ".generated").exists():
                shutil.rmtree(root, ignore_errors=True)
                generate(root, size)
                (root / ".generated").write_text("")
            n_files = sum(1 for p in root.rglob("*") if p.is_file() and p.suffix in TEXT_SUFFIXES)
            engines = [*trees, "tantivy"]
            wall: dict[str, list[float]] = {e: [] for e in engines}
            cpu: dict[str, list[float]] = {e: [] for e in engines}
            rss: dict[str, list[int]] = {e: [] for e in engines}
            for r in range(args.rounds):
                for engine in engines[r % len(engines):] + engines[: r % len(engines)]:
                    home = base / f"build-home-{engine}"
                    shutil.rmtree(home, ignore_errors=True)
                    before_cpu = children_cpu()
                    if engine == "tantivy":
                        tdir = base / f"build-tantivy{size}"
                        shutil.rmtree(tdir, ignore_errors=True)
                        env = dict(os.environ, KNIT_DESKTOP_HOME=str(home))
                        seconds, peak, _ = run_measured(child_cmd("tantivy-build", str(root), str(tdir)), env)
                    else:
                        tree = trees[engine]
                        env = dict(os.environ, KNIT_DESKTOP_HOME=str(home), PYTHONPATH=str(tree))
                        # cwd: `python -m` puts the working directory first on the path, ahead of PYTHONPATH.
                        seconds, peak, _ = run_measured([*cli, "index", "--workspace", str(root)], env, tree)
                    cpu[engine].append(children_cpu() - before_cpu)
                    wall[engine].append(seconds)
                    rss[engine].append(peak)
                    shutil.rmtree(home, ignore_errors=True)
                    print(f"  round {r + 1}: {engine} {seconds:.1f} s, cpu {cpu[engine][-1]:.1f} s, "
                          f"peak RSS {peak / 2**20:.0f} MB", flush=True)
                    time.sleep(0.5)
            med = {e: statistics.median(wall[e]) for e in engines}
            print(f"\n## cold build, {size} documents requested, {n_files} text files, {args.rounds} rounds")
            print("| | wall median (s) | each round (s) | CPU median (s) | peak RSS (MB) | / tantivy |")
            print("|---|---|---|---|---|---|")
            for e in engines:
                print(f"| {e} | {med[e]:.1f} | {', '.join(f'{x:.1f}' for x in wall[e])} | "
                      f"{statistics.median(cpu[e]):.1f} | {max(rss[e]) / 2**20:.0f} | {med[e] / med['tantivy']:.2f}x |")
            ok = med["knit"] <= TARGET_RATIO * med["tantivy"] and (size < 100000 or max(rss["knit"]) <= PEAK_RSS_LIMIT)
            print(f"target (<= {TARGET_RATIO}x tantivy; peak RSS <= 600 MB at 100k): {'met' if ok else 'NOT met'}",
                  flush=True)
    finally:
        if not args.keep:
            shutil.rmtree(base, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
