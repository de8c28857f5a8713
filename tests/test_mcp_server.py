"""`knit-desktop mcp` end to end: a real server subprocess, driven by the MCP SDK's own stdio client."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
from pathlib import Path

import jsonschema
import pytest
from mcp.client.session import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client

from .dsh_fixtures import DshLog
from .media_fixtures import two_page_pdf

DAY = 86_400_000


def server(*args: str) -> StdioServerParameters:
    env = {"KNIT_DESKTOP_HOME": os.environ["KNIT_DESKTOP_HOME"]}
    return StdioServerParameters(command=sys.executable, args=["-m", "knit_desktop", "mcp", *args], env=env)


def talk(params: StdioServerParameters, script):
    """Start the server, initialise a session, run `script(session)` and return what it returns."""

    async def main():
        async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
            await session.initialize()
            return await script(session)

    return asyncio.run(asyncio.wait_for(main(), timeout=60))


@pytest.fixture
def project(make_workspace, now_ms):
    root = make_workspace(
        {
            "docs/sync-engine.md": (
                "# Sync engine\n\nVector clocks order edits.\n\n## Conflicts\n\nWhen two vector clocks are "
                "concurrent the sync engine keeps both edits; see [merge rules](merge-rules.md).\n",
                now_ms - DAY,
            ),
            "docs/merge-rules.md": ("# Merge rules\n\nConcurrent edits are merged line by line.\n", now_ms - 2 * DAY),
            "docs/theme.md": ("# Theme\n\nColours.\n", now_ms - 3 * DAY),
        }
    )
    two_page_pdf(root / "report.pdf")
    return root


def pack_items(data: dict) -> list[dict]:
    return data["primary"] + data["supporting"] + data["related"]


def test_tools_schemas_and_calls_with_and_without_a_query(project, tmp_path):
    home = tmp_path / "dsh"
    log = DshLog(home, "s-live", str(project))
    log.append_rows([log.user("Two devices edited the same note; how do the vector clocks decide the conflict?")])

    async def script(session: ClientSession):
        tools = (await session.list_tools()).tools
        by_query = await session.call_tool("knit_docs", {"query": "capybara habitat survey"})
        by_conversation = await session.call_tool("knit_docs", {})
        return tools, by_query, by_conversation

    tools, by_query, by_conversation = talk(server("--dsh-home", str(home)), script)
    assert [t.name for t in tools] == ["knit_docs", "memory_search", "memory_propose", "recall", "knit_search",
                                       "knit_ask", "knit_stats"]
    tool = tools[0]
    assert set(tool.input_schema["properties"]) == {"query", "limit", "audit"}
    assert "required" not in tool.input_schema
    assert tool.output_schema["additionalProperties"] is False
    assert set(tool.output_schema["required"]) == {"mode", "topic", "total", "primary", "supporting", "related",
                                                   "workspace"}

    for result in (by_query, by_conversation):
        assert not result.is_error, result.content
        jsonschema.validate(result.structured_content, tool.output_schema)
        data = dict(result.structured_content)
        assert data.pop("workspace") == str(project.resolve())  # the one absolute path in the answer
        assert str(project) not in json.dumps({k: v for k, v in data.items() if k != "session"})
        assert result.content[0].text.startswith(f"Workspace: {project.resolve()} — DSH session s-live")

    pdf = pack_items(by_query.structured_content)[0]
    assert pdf["rel"] == "report.pdf" and pdf["matches"][0]["page"] == 2
    assert "match: page 2, lines 1–2" in by_query.content[0].text

    data = by_conversation.structured_content
    assert data["mode"] == "relevance" and data["task"].startswith("Two devices edited the same note")
    assert data["primary"][0]["rel"] == "docs/sync-engine.md"
    match = data["primary"][0]["matches"][0]
    lines = (project / "docs/sync-engine.md").read_text().splitlines()
    cited = " ".join(lines[match["start_line"] - 1 : match["end_line"]]).lower()
    assert "vector clocks" in cited and match["end_line"] >= match["start_line"]
    related = {i["rel"] for i in pack_items(data)}
    assert "docs/merge-rules.md" in related and "docs/theme.md" not in related
    assert "\n\nContext for 「" in by_conversation.content[0].text
    assert data["session"] == {"id": "s-live", "title": "", "cwd": str(project), "resolved_by": "newest"}


def test_no_workspace_is_a_tool_error(tmp_path):
    async def script(session: ClientSession):
        return await session.call_tool("knit_docs", {"query": "anything"})

    result = talk(server("--dsh-home", str(tmp_path / "empty-dsh")), script)
    assert result.is_error
    assert "no DSH session" in result.content[0].text and "--workspace" in result.content[0].text


def test_malformed_arguments_never_crash_the_server(project, tmp_path):
    async def script(session: ClientSession):
        out = {}
        out["query_int"] = await session.call_tool("knit_docs", {"query": 5})
        out["limit_text"] = await session.call_tool("knit_docs", {"limit": "many"})
        out["limit_negative"] = await session.call_tool("knit_docs", {"limit": -5})
        out["huge_query"] = await session.call_tool("knit_docs", {"query": "vector clocks " * 75_000})
        out["unknown_tool"] = await session.call_tool("knit_nope", {})
        out["after"] = await session.call_tool("knit_docs", {"query": "merge rules", "audit": "yes"})
        return out

    out = talk(server("--workspace", str(project), "--dsh-home", str(tmp_path / "no-dsh")), script)
    assert out["query_int"].is_error and "query must be a string" in out["query_int"].content[0].text
    # A bad limit falls back or is clamped, as the reference does: 5 (of 4 documents here), and 1.
    for key, shown in (("limit_text", 4), ("limit_negative", 1)):
        result = out[key]
        assert not result.is_error and result.structured_content["mode"] == "time"
        assert len(result.structured_content["docs"]) == shown
    assert not out["huge_query"].is_error
    assert out["huge_query"].structured_content["primary"][0]["rel"] == "docs/sync-engine.md"
    assert out["unknown_tool"].is_error
    assert not out["after"].is_error and "usage" not in out["after"].structured_content


def test_print_config_fills_in_this_machines_paths(project, tmp_path):
    out = subprocess.run(
        [sys.executable, "-m", "knit_desktop", "mcp", "--print-config", "dsh", "--dsh-home", str(tmp_path / "h")],
        capture_output=True, text=True, timeout=60,
    )
    assert out.returncode == 0, out.stderr
    text = out.stdout
    assert text.startswith("- insert:\n  - id: mcp-knit\n    name: '@deepseek-ai/dsh-mcp-client'\n")  # insert holds a list
    assert "transport: stdio" in text and "serverName: knit" in text
    assert f'"--dsh-home", "{tmp_path / "h"}"' in text
    command = json.loads(text.split("command: ", 1)[1].splitlines()[0])
    assert os.path.exists(command)

    generic = subprocess.run(
        [sys.executable, "-m", "knit_desktop", "mcp", "--print-config", "json", "--workspace", str(project)],
        capture_output=True, text=True, timeout=60,
    )
    entry = json.loads(generic.stdout)["mcpServers"]["knit"]
    assert entry["args"][-2:] == ["--workspace", str(project)]

    missing = subprocess.run(
        [sys.executable, "-m", "knit_desktop", "mcp", "--workspace", str(tmp_path / "nope")],
        capture_output=True, text=True, timeout=60,
    )
    assert missing.returncode == 3 and "workspace not found" in missing.stderr


def test_memory_search_and_propose_over_mcp(tmp_path):
    memory = tmp_path / "memory"
    memory.mkdir()
    (memory / "preferences.md").write_text("# Preferences\n\n## Editor\n<!-- tags: editor -->\n- vim keys\n",
                                           encoding="utf-8")

    async def script(session):
        tools = {t.name: t for t in (await session.list_tools()).tools}
        found = await session.call_tool("memory_search", {"query": "which editor keys"})
        proposed = await session.call_tool("memory_propose", {
            "content": "Prefers dark themes", "target": "preferences.md", "chapter": "Editor", "kind": "preference",
            "reason": "said twice this week"})
        again = await session.call_tool("memory_propose", {"content": "prefers  DARK themes",
                                                           "target": "preferences.md", "chapter": "Editor"})
        new_file = await session.call_tool("memory_propose", {"content": "Deploys on Fridays", "target": "ops.md"})
        bad = await session.call_tool("memory_search", {"query": 42})
        refused = {
            "kind": await session.call_tool("memory_propose", {"content": "x", "kind": "secret"}),
            "path": await session.call_tool("memory_propose", {"content": "x", "target": "../escape.md"}),
            "not_md": await session.call_tool("memory_propose", {"content": "x", "target": "notes.txt"}),
            "old_name": await session.call_tool("memory_propose", {"text": "x"}),
        }
        return tools, found, proposed, again, new_file, bad, refused

    tools, found, proposed, again, new_file, bad, refused = talk(server("--memory-dir", str(memory)), script)
    assert {"knit_docs", "memory_search", "memory_propose"} <= set(tools)
    for name, result in (("memory_search", found), ("memory_propose", proposed)):
        assert not result.is_error
        jsonschema.validate(result.structured_content, tools[name].output_schema)
    hit = found.structured_content["hits"][0]
    assert hit["location"] == "preferences.md:5-5" and hit["path"] == str(memory / "preferences.md")
    assert found.structured_content["memory_dir"] == str(memory)
    # The text gives paths the agent's read tool opens whatever its working folder is.
    assert f"{memory / 'preferences.md'}:5-5" in found.content[0].text
    assert found.content[0].text.startswith(f"Memory folder: {memory}")
    assert proposed.structured_content["queued"] and again.structured_content["duplicate"]
    assert not new_file.is_error and new_file.structured_content["target"] == "ops.md"
    assert bad.is_error and "non-empty string" in bad.content[0].text
    assert refused["kind"].is_error and "kind must be one of preference" in refused["kind"].content[0].text
    assert refused["path"].is_error and "not a path" in refused["path"].content[0].text
    assert refused["not_md"].is_error and "new .md file name" in refused["not_md"].content[0].text
    assert refused["old_name"].is_error and "content must be a non-empty string" in refused["old_name"].content[0].text
    queued = json.loads((Path(os.environ["KNIT_DESKTOP_HOME"]) / "memory-proposals.json").read_text(encoding="utf-8"))
    assert [(q["text"], q["target"], q["chapter"], q["kind"], q["reason"]) for q in queued] == [
        ("Prefers dark themes", "preferences.md", "Editor", "preference", "said twice this week"),
        ("Deploys on Fridays", "ops.md", "", "note", "")]
    assert not (memory / "memory-proposals.json").exists()  # nothing unconfirmed goes near the memory files
    assert (memory / "preferences.md").read_text(encoding="utf-8").endswith("- vim keys\n")


def test_the_server_keeps_a_workspace_current_between_calls_and_holds_its_watch_lease(project, tmp_path):
    """A real server: after its first call it holds the watch lease of the workspace's index (a one-shot command
    then trusts that index instead of walking), a file written afterwards reaches the index without another call,
    and the lease is given up when the server ends."""
    import sqlite3

    from knit_desktop.core.index.watch_lease import index_watched_elsewhere
    from knit_desktop.core.paths import index_db_path

    db_path = index_db_path(str(project.resolve()))

    def indexed(rel: str) -> bool:
        db = sqlite3.connect(f"file:{db_path}?mode=ro", uri=True)
        try:
            return db.execute("SELECT 1 FROM files WHERE rel = ? AND state = 'indexed'", (rel,)).fetchone() is not None
        finally:
            db.close()

    async def until(condition, timeout_s: float = 10.0) -> bool:
        for _ in range(int(timeout_s / 0.05)):
            if condition():
                return True
            await asyncio.sleep(0.05)
        return condition()

    async def script(session: ClientSession):
        first = await session.call_tool("knit_docs", {"query": "vector clocks"})
        leased = await until(lambda: index_watched_elsewhere(db_path))
        (project / "docs" / "okapi-survey.md").write_text("# Okapi survey\n\nOkapi sightings by month.\n")
        applied = await until(lambda: indexed("docs/okapi-survey.md"))
        return first, leased, applied

    first, leased, applied = talk(server("--workspace", str(project), "--dsh-home", str(tmp_path / "no-dsh")), script)
    assert not first.is_error, first.content
    assert leased and applied
    assert not index_watched_elsewhere(db_path)


def test_ctrl_c_ends_a_server_whose_stdin_stays_open_and_gives_up_its_lease(project, tmp_path):
    """A server started by hand in a terminal: Ctrl-C (SIGINT) with stdin still open ends it at once, where it went
    on until its next line of input, and its watch lease is given up."""
    import signal
    import time

    from knit_desktop.core.index.watch_lease import index_watched_elsewhere
    from knit_desktop.core.paths import index_db_path

    db_path = index_db_path(str(project.resolve()))
    params = server("--workspace", str(project), "--dsh-home", str(tmp_path / "no-dsh"))
    proc = subprocess.Popen([params.command, *params.args], env=params.env, stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        deadline = time.monotonic() + 30
        while not index_watched_elsewhere(db_path) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert index_watched_elsewhere(db_path), "the pinned workspace was never opened"
        proc.send_signal(signal.SIGINT)
        proc.wait(timeout=10)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        proc.stdin.close()
        proc.stdout.close()
        proc.stderr.close()
    assert proc.returncode == 128 + signal.SIGINT
    assert not index_watched_elsewhere(db_path)


def test_a_server_pinned_to_a_workspace_opens_it_before_the_first_call(project, tmp_path):
    """Started with --workspace, the server indexes and watches that workspace once it is up, without waiting for
    a call: its watch lease is there before the agent asks anything."""
    from knit_desktop.core.index.watch_lease import index_watched_elsewhere
    from knit_desktop.core.paths import index_db_path

    db_path = index_db_path(str(project.resolve()))

    async def script(session: ClientSession):
        for _ in range(200):
            if index_watched_elsewhere(db_path):
                return True
            await asyncio.sleep(0.05)
        return False

    assert talk(server("--workspace", str(project), "--dsh-home", str(tmp_path / "no-dsh")), script)
    assert not index_watched_elsewhere(db_path)


def test_a_walk_between_calls_that_runs_out_of_time_goes_on_between_calls(project, tmp_path):
    """Directories that came between calls make the server walk the workspace within its time budget; what the
    budget left unindexed is indexed in slices between calls, as after a call, so the workspace is complete and
    its lease held again without waiting for the agent's next call."""
    import sqlite3
    import time

    from knit_desktop.core.agent.tools import AgentTools
    from knit_desktop.core.paths import index_db_path
    from knit_desktop.mcp_server import ToolHost

    db_path = index_db_path(str(project.resolve()))

    def read(sql: str):
        if not db_path.exists():
            return None
        db = sqlite3.connect(f"file:{db_path}?mode=ro", uri=True)
        try:
            return db.execute(sql).fetchone()
        except sqlite3.OperationalError:  # not made yet
            return None
        finally:
            db.close()

    def held() -> bool:
        row = read("SELECT value FROM meta WHERE key = 'watch_lease'")
        return row is not None and row[0].split()[0] == str(os.getpid())

    def until(condition, timeout_s: float = 20.0) -> bool:
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline:
            if condition():
                return True
            time.sleep(0.05)
        return condition()

    def factory() -> AgentTools:
        tools = AgentTools(str(project), str(tmp_path / "no-dsh"), str(tmp_path / "memory"), watch=True)
        tools.docs.budget_s = 0.0  # every walk stops after its first batch of files
        return tools

    host = ToolHost(factory)
    try:
        assert until(held)  # the pinned workspace, opened at warm-up
        staging = tmp_path / "imported"
        staging.mkdir()
        for i in range(450):
            (staging / f"note-{i:03}.md").write_text(f"# Note {i}\n\nAn imported note about topic {i}.\n")
        staging.rename(project / "imported")
        # (walked within its budget of nothing: 200 of the 450 indexed, the lease given up, the rest left over)
        assert until(lambda: held() and read("SELECT count(*) FROM files WHERE rel LIKE 'imported/%'") == (450,))
    finally:
        host.close()
