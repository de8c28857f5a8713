"""What the window's ranking costs with library folders beside the workspace: one `Workspace.view` per scope
(Workspace: the list with its context pack, as the window asks for it; Both: the workspace and the library merged;
Library: the library alone), over the same queries. Prints medians and p95 in ms and the ratio to Workspace.

Run: .venv/bin/python tests/benchmarks/library_scope.py [--workspace-docs 2000] [--library-docs 2000] [--sections 10]
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from knit_desktop.core.index.pins import Pins  # noqa: E402
from knit_desktop.core.workspace import RankInput, Workspace  # noqa: E402
from tests.benchmarks.library import QUERIES, generate_library, peak_rss_mb, timed_queries  # noqa: E402
from tests.benchmarks.workspace_generator import generate  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--workspace-docs", type=int, default=2000)
    parser.add_argument("--library-docs", type=int, default=2000)
    parser.add_argument("--sections", type=int, default=10)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="knit-libscope-") as tmp:
        ws_root = generate(Path(tmp) / "ws", args.workspace_docs)
        lib_root = Path(tmp) / "library"
        library_bytes = generate_library(lib_root, args.library_docs, args.sections)
        t0 = time.perf_counter()
        workspace = Workspace.open(str(ws_root))
        shelf = Workspace.open(str(lib_root))
        open_s = time.perf_counter() - t0
        now = int(time.time() * 1000)
        library = [("library", shelf, Pins.load(shelf.root))]
        pins = Pins.load(workspace.root)

        def scope_view(scope: str):
            def run(query: str):
                return workspace.view(RankInput.from_query(query), now_ms=now, pins=pins,
                                      with_context=scope == "workspace",
                                      library=library if scope != "workspace" else (), own=scope != "library")
            return run

        for scope in ("workspace", "all", "library"):  # warm every index and span cache once
            scope_view(scope)(QUERIES[0])
        results = {scope: timed_queries(scope_view(scope), QUERIES * 3) for scope in ("workspace", "all", "library")}
        base = results["workspace"]["median_ms"]
        report = {
            "workspace_docs": args.workspace_docs, "library_docs": args.library_docs,
            "library_mb": round(library_bytes / 1e6, 1), "open_both_s": round(open_s, 1),
            **{scope: {k: round(v, 1) for k, v in r.items()} | {"ratio": round(r["median_ms"] / base, 2)}
               for scope, r in results.items()},
            "queries": len(QUERIES) * 3, "peak_rss_mb": round(peak_rss_mb()),
        }
        print(json.dumps(report, indent=1))


if __name__ == "__main__":
    main()
