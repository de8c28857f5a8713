"""One index, several processes: the window's indexer, four MCP servers and the command line on one workspace
at once. SQLite allows one writer at a time; nobody may ever see `database is locked`."""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest
from mcp.client.session import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client

from .media_fixtures import make_pdf

ROUNDS = 20
SERVERS = 4

# What the window's indexer thread does (services/indexer.py): build (here: cold) or open the persistent index,
# then keep it current. The servers and the command line start while it is still building.
WINDOW = textwrap.dedent("""
    import sys, time, pathlib
    from knit_desktop.core.workspace import Workspace
    root, stop = sys.argv[1], pathlib.Path(sys.argv[2])
    ws = Workspace.open_persistent(root)
    print("opened", flush=True)
    while not stop.exists():
        ws.refresh()
        ws.save()
        time.sleep(0.05)
    ws.close()
    print("done", flush=True)
""")


def build(root: Path, n: int) -> None:
    for i in range(n):
        topic = ("retry backoff", "vector clocks", "thumbnail cache", "search tokenizer")[i % 4]
        path = root / f"notes/n{i // 100:02}/note-{i:04}.md"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(f"# Note {i} on {topic}\n\n" + f"The {topic} detail number {i}. " * 40, encoding="utf-8")
    (root / "reports").mkdir()
    pages = [f"Page {p} of the quarterly report on retry backoff and vector clocks.\n" + "Figures and notes. " * 150
             for p in range(40)]
    for i in range(60):  # PDFs are the slow files to extract: a build spends seconds on a batch of them
        make_pdf(root / f"reports/report-{i:02}.pdf", pages)


def touch_some(root: Path, round_: int) -> None:
    for i in range(round_ * 37 % 100, 1200, 25):
        path = root / f"notes/n{i // 100:02}/note-{i:04}.md"
        path.write_text(path.read_text(encoding="utf-8") + f"\nRound {round_} edit.\n", encoding="utf-8")
    (root / f"notes/new-{round_}.md").write_text(f"# New in round {round_}\n\nretry backoff again\n")


@pytest.mark.slow
def test_window_four_mcp_servers_and_the_cli_share_one_index(tmp_path):
    root = tmp_path / "ws"
    build(root, 1200)  # 1,260 files: the window's cold build takes several seconds
    env = {**os.environ, "KNIT_DESKTOP_HOME": os.environ["KNIT_DESKTOP_HOME"]}
    stop = tmp_path / "stop"
    window = subprocess.Popen([sys.executable, "-c", WINDOW, str(root), str(stop)], env=env, text=True,
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    errors: list[str] = []
    answers = 0

    async def server_loop(index: int) -> None:
        nonlocal answers
        params = StdioServerParameters(command=sys.executable,
                                       args=["-m", "knit_desktop", "mcp", "--workspace", str(root),
                                             "--dsh-home", str(tmp_path / "dsh")], env=env)
        async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
            await session.initialize()
            for round_ in range(ROUNDS):
                await round_started[round_].wait()
                result = await session.call_tool("knit_docs", {"query": "retry backoff"})
                text = result.content[0].text if result.content else ""
                if result.is_error or "locked" in text:
                    errors.append(f"server {index} round {round_}: {text[:300]}")
                else:
                    answers += 1
                done[round_].append(index)

    async def cli(round_: int) -> None:
        for command in (["rank", "--query", "vector clocks", "--limit", "3"], ["index"]):
            proc = await asyncio.create_subprocess_exec(
                sys.executable, "-m", "knit_desktop", *command, "--workspace", str(root), env=env,
                stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE)
            out, err = await proc.communicate()
            if proc.returncode != 0 or b"locked" in out + err:
                errors.append(f"cli {command[0]} round {round_}: rc={proc.returncode} {err.decode()[-300:]}")

    round_started = [asyncio.Event() for _ in range(ROUNDS)]
    done: list[list[int]] = [[] for _ in range(ROUNDS)]

    async def main() -> None:
        servers = [asyncio.create_task(server_loop(i)) for i in range(SERVERS)]
        for round_ in range(ROUNDS):
            touch_some(root, round_)
            round_started[round_].set()
            await cli(round_)
            while len(done[round_]) < SERVERS and not all(s.done() for s in servers):
                await asyncio.sleep(0.05)
        await asyncio.gather(*servers)

    started = time.monotonic()
    try:
        asyncio.run(asyncio.wait_for(main(), timeout=600))
    finally:
        stop.write_text("stop")
        out, err = window.communicate(timeout=120)
    assert window.returncode == 0 and "locked" not in err, err[-2000:]
    assert errors == [], errors
    assert answers == ROUNDS * SERVERS
    print(f"{ROUNDS} rounds, {SERVERS} servers, window and CLI: {time.monotonic() - started:.1f} s, no errors")
