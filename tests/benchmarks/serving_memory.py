"""The resident memory of a process holding a workspace's index, as the window or the MCP server does.

Run:  .venv/bin/python tests/benchmarks/serving_memory.py WORKSPACE [--rounds 3]
(`tests/benchmarks/peers.py --keep DIR` leaves generated 20,000- and 100,000-file workspaces in DIR.) Builds the
persistent index first when there is none (in a child process, so its peak does not count), then in this process:
opens it, ranks and builds the context pack of `knit_docs` for the peers benchmark's 30 queries `--rounds` times,
and prints the RSS after the imports, after the open and after the queries, with the open time and query medians.
Target (speed issue): 200 MB for 100,000 documents.
"""

from __future__ import annotations

import argparse
import gc
import statistics
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from knit_desktop.core.rank import context_pack  # noqa: E402,F401 - imported before the first figure
from knit_desktop.core.workspace import RankInput, Workspace, has_persistent_index  # noqa: E402
from tests.benchmarks.peers import NOW_MS, QUERIES  # noqa: E402


def rss_mb() -> float:
    with open("/proc/self/statm") as statm:
        return int(statm.read().split()[1]) * 4096 / 2**20


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("workspace")
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    if not has_persistent_index(args.workspace):
        subprocess.run([sys.executable, "-m", "knit_desktop", "index", "--workspace", args.workspace], check=True)
    after_imports = rss_mb()
    start = time.perf_counter()
    ws = Workspace.open_persistent(args.workspace)
    opened_s = time.perf_counter() - start
    gc.collect()
    after_open = rss_mb()
    rank_ms, pack_ms = [], []
    for _ in range(args.rounds):
        for query in QUERIES:
            request = RankInput.from_query(query)
            t0 = time.perf_counter()
            ws.rank(request, now_ms=NOW_MS)
            t1 = time.perf_counter()
            ws.context(request, now_ms=NOW_MS)
            rank_ms.append((t1 - t0) * 1000)
            pack_ms.append((time.perf_counter() - t1) * 1000)
    gc.collect()
    print(f"documents: {len(ws.index.by_rel)}  open: {opened_s:.2f} s ({ws.last_refresh.loaded_from})")
    print(f"RSS (MB): after imports {after_imports:.0f}, after the open {after_open:.0f}, "
          f"after {len(rank_ms)} queries and packs {rss_mb():.0f}")
    print(f"rank median / p95 (ms): {statistics.median(rank_ms):.1f} / {sorted(rank_ms)[int(0.95 * len(rank_ms))]:.1f}")
    print(f"context pack median / p95 (ms): {statistics.median(pack_ms):.1f} / "
          f"{sorted(pack_ms)[int(0.95 * len(pack_ms))]:.1f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
