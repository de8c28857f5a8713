"""`knit_docs` over MCP on a warm persistent index of a generated workspace (default 20,000 documents).

Run: .venv/bin/python tests/benchmarks/agent_tool.py [--size 20000] [--calls 20]
Builds the index with `knit-desktop index`, writes a DSH session whose cwd is the workspace, starts
`knit-desktop mcp` through the SDK's stdio client and times tool calls after the first (the server keeps the
workspace open and only refreshes it). Prints the first call, then medians and p95 for calls by query and by
conversation. Target: <= 300 ms per call after the server started.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from mcp.client.session import ClientSession  # noqa: E402
from mcp.client.stdio import StdioServerParameters, stdio_client  # noqa: E402

from tests.benchmarks.workspace_generator import conversations, generate  # noqa: E402
from tests.dsh_fixtures import DshLog  # noqa: E402

QUERIES = ["upload retry backoff", "vector clock conflict", "search index tokenizer", "theme colours dark mode"]


def p95(values: list[float]) -> float:
    return sorted(values)[max(0, int(len(values) * 0.95) - 1)]


async def measure(params: StdioServerParameters, calls: int, log: DshLog) -> dict[str, list[float]]:
    times: dict[str, list[float]] = {"first": [], "query": [], "conversation": []}
    chats = conversations(count=calls)
    async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
        await session.initialize()
        t0 = time.perf_counter()
        result = await session.call_tool("knit_docs", {"query": QUERIES[0]})
        times["first"].append(time.perf_counter() - t0)
        assert not result.is_error, result.content
        for i in range(calls):
            t0 = time.perf_counter()
            result = await session.call_tool("knit_docs", {"query": QUERIES[i % len(QUERIES)]})
            times["query"].append(time.perf_counter() - t0)
            assert not result.is_error and result.structured_content["mode"] == "relevance"
            log.append_rows([log.user(text) if role == "user" else log.assistant(text) for role, text in chats[i]])
            t0 = time.perf_counter()
            result = await session.call_tool("knit_docs", {"audit": True})
            times["conversation"].append(time.perf_counter() - t0)
            assert not result.is_error, result.content
    return times


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--size", type=int, default=20000)
    parser.add_argument("--calls", type=int, default=20)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        home = str(Path(tmp) / "home")
        env = dict(os.environ, KNIT_DESKTOP_HOME=home)
        root = generate(Path(tmp) / "ws", args.size)
        t0 = time.perf_counter()
        subprocess.run([sys.executable, "-m", "knit_desktop", "index", "--workspace", str(root)], env=env, check=True,
                       capture_output=True)
        print(f"index built in {time.perf_counter() - t0:.1f} s")
        dsh = Path(tmp) / "dsh"
        log = DshLog(dsh, "bench-session", str(root))
        params = StdioServerParameters(
            command=sys.executable,
            args=["-m", "knit_desktop", "mcp", "--dsh-home", str(dsh)],
            env={"KNIT_DESKTOP_HOME": home},
        )
        times = asyncio.run(measure(params, args.calls, log))

    print(f"workspace: {args.size} documents, warm persistent index")
    print(f"first call (opens the index): {times['first'][0] * 1000:.0f} ms")
    worst = 0.0
    for name in ("query", "conversation"):
        values = times[name]
        median, tail = statistics.median(values), p95(values)
        worst = max(worst, median)
        print(f"knit_docs by {name}: median {median * 1000:.0f} ms, p95 {tail * 1000:.0f} ms over {len(values)} calls"
              "  [target <= 300 ms]")
    ok = worst <= 0.3
    print("target: " + ("met" if ok else "NOT met"))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
