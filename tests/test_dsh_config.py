"""DSH loads Knit: the `cordis.patch.yml` row and every tool schema, run through DSH's own code.

`tests/dsh_node/` pins the npm packages `@deepseek-ai/dsh` 0.1.0-rc.8 resolves (`dsh-app-boot` reads and composes
the patch file, `cordis-plugin-include` owns `applyEntryPatches` and the YAML dialect, `dsh-mcp-client` its config
schema, `dsh-tools` `assertObjectJsonSchema` / `assertSupportedJsonSchema` / `validateJsonSchemaValue`). They are
installed once per lockfile with `npm ci` into the user's cache; without node or npm the tests skip locally and fail
in CI.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import os
import re
import subprocess
import sys
import uuid
from pathlib import Path

import pytest
from mcp.client.session import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client

from knit_desktop.core.config import write_library_folders
from knit_desktop.core.index.pins import Pins
from knit_desktop.mcp_server import print_config, server_command
from knit_desktop.mcp_tools import ALL_TOOLS

from .dsh_fixtures import DshLog
from .library_fixtures import make_epub, make_html
from .media_fixtures import two_page_pdf
from .node_runtime import node_binary, npm_project, unavailable

NODE_DIR = Path(__file__).with_name("dsh_node")
README = Path(__file__).resolve().parents[1] / "README.md"
MCP_CLIENT = "@deepseek-ai/dsh-mcp-client"
# A folder name with spaces, both quotes, Chinese, and YAML's `: ` and ` #` (a plain scalar would end at them).
AWKWARD = "my \"proj\" it's: #1 项目 文档"


@pytest.fixture(scope="module")
def dsh_check():
    """A function: request dict → the JSON report of `tests/dsh_node/check.mjs` (run next to DSH's packages)."""
    node, why = node_binary()
    if node is None:
        unavailable(why + " (apt install nodejs npm)")
    installed = npm_project(NODE_DIR, "dsh-node", ["ci"], node)
    # ESM resolves packages from the script's own folder, so the script runs from inside the install.
    source = (NODE_DIR / "check.mjs").read_bytes()
    script = installed / f"check-{hashlib.sha256(source).hexdigest()[:12]}.mjs"
    if not script.exists():
        partial = script.with_name(f".{script.name}.{os.getpid()}-{uuid.uuid4().hex[:8]}")
        partial.write_bytes(source)
        os.replace(partial, script)

    def run(request: dict) -> dict:
        done = subprocess.run([node, str(script)], input=json.dumps(request, ensure_ascii=False),
                              capture_output=True, text=True, encoding="utf-8", timeout=120)
        assert done.returncode == 0, done.stderr
        return json.loads(done.stdout)

    return run


def tool_schemas() -> list[dict]:
    dumped = [tool.model_dump(by_alias=True, exclude_none=True, mode="json") for tool in ALL_TOOLS]
    return [{"name": t["name"], "inputSchema": t["inputSchema"], "outputSchema": t.get("outputSchema")}
            for t in dumped]


def printed_row(*args: str) -> str:
    """The row exactly as a user gets it: the real command line."""
    out = subprocess.run([sys.executable, "-m", "knit_desktop", "mcp", "--print-config", "dsh", *args],
                         capture_output=True, text=True, encoding="utf-8", timeout=60)
    assert out.returncode == 0, out.stderr
    return out.stdout


def readme_row() -> str:
    blocks = re.findall(r"^```yaml\n(.*?)^```", README.read_text(encoding="utf-8"), re.S | re.M)
    rows = [block for block in blocks if "mcp-knit" in block]
    assert len(rows) == 1, "the README shows the DSH row in exactly one ```yaml block"
    return rows[0]


def assert_one_knit_row(report: dict) -> dict:
    """DSH boots the patch file into exactly one mcp-client row, `mcp-knit`, whose config the plugin accepts."""
    assert report["boot"]["ok"], report["boot"]["error"]
    assert report["include"]["ok"], report["include"]["error"]
    assert report["same_rows"], "dsh-app-boot and cordis-plugin-include compose the file differently"
    assert report["boot"]["warnings"] == []
    assert report["mcp_client_rows"] == 1 and report["knit"] is not None, report["boot"]["rows"]
    assert report["knit"]["ok"], report["knit"]["error"]
    config = report["knit"]["config"]
    assert config["serverName"] == "knit" and config["transport"] == "stdio"
    assert isinstance(config["command"], str) and config["command"]
    assert isinstance(config["args"], list) and config["args"][0] == "mcp"
    return config


def test_dsh_composes_the_printed_row_and_accepts_every_tool_schema(dsh_check, tmp_path):
    home = tmp_path / "dsh home"
    report = dsh_check({"patch_yaml": printed_row("--dsh-home", str(home)), "tools": tool_schemas()})
    assert report["versions"]["@deepseek-ai/cordis-plugin-include"] == "1.0.9"
    config = assert_one_knit_row(report)
    assert config["args"] == ["mcp", "--dsh-home", str(home)]
    assert os.path.exists(config["command"])
    assert [t["name"] for t in report["tools"]] == ["knit_docs", "memory_search", "memory_propose", "recall",
                                                   "knit_search", "knit_ask", "knit_stats"]
    for tool in report["tools"]:
        assert tool["input_violations"] == [], tool
        assert tool["output_violations"] == [], tool
        assert tool["output_schema_kept"], tool  # dsh-mcp-client keeps it, so answers are typed for the model


def test_awkward_paths_survive_dshs_yaml(dsh_check, tmp_path):
    workspace = tmp_path / AWKWARD
    workspace.mkdir()
    home = tmp_path / "dsh: #home 中文 \"q\""
    text = printed_row("--workspace", str(workspace), "--dsh-home", str(home))
    config = assert_one_knit_row(dsh_check({"patch_yaml": text, "tools": []}))
    assert config["args"] == ["mcp", "--dsh-home", str(home), "--workspace", str(workspace)]
    # The same through the function the command line prints, for a path that does not exist here.
    odd = "/tmp/a\tb\\c #d: e\x7f\x85\u2028 ' \" }]"
    config = assert_one_knit_row(dsh_check({"patch_yaml": print_config("dsh", odd, odd), "tools": []}))
    command, *args = server_command(odd, odd)
    assert config["command"] == command and config["args"] == args and args[-1] == odd


def test_the_readme_row_composes_the_same_way(dsh_check):
    report = dsh_check({"patch_yaml": readme_row(), "tools": []})
    config = assert_one_knit_row(report)
    assert config["command"] == "/home/you/knit-desktop/.venv/bin/knit-desktop"
    assert config["args"] == ["mcp", "--dsh-home", "/home/you/.dsh"]


def test_the_row_in_an_existing_patch_file(dsh_check, tmp_path):
    """Added to a file that already holds patches (as the README says), and in place of a new profile's `[]`."""
    row = printed_row("--dsh-home", str(tmp_path / "h"))
    existing = ("# my patches\n- id: some-row\n  disabled: true\n- insert:\n  - id: mcp-other\n"
                f"    name: '{MCP_CLIENT}'\n    config: {{serverName: other, transport: stdio, command: other}}\n")
    report = dsh_check({"patch_yaml": existing + row, "tools": []})
    assert report["boot"]["ok"] and report["mcp_client_rows"] == 2
    assert [r["id"] for r in report["boot"]["rows"]] == ["mcp-other", "mcp-knit"]
    assert report["knit"]["ok"] and report["knit"]["config"]["serverName"] == "knit"
    template = "# Your patch layer for this dsh profile\n[]\n"
    assert_one_knit_row(dsh_check({"patch_yaml": template.replace("[]\n", row), "tools": []}))


def test_the_old_row_shape_is_what_dsh_refuses(dsh_check):
    """The check itself can fail: a mapping under `insert` stops DSH at boot."""
    old = ("- insert:\n    id: mcp-knit\n    name: '@deepseek-ai/dsh-mcp-client'\n    config:\n"
           "      serverName: knit\n      transport: stdio\n      command: \"/x/knit-desktop\"\n      args: [\"mcp\"]\n")
    report = dsh_check({"patch_yaml": old, "tools": [
        {"name": "bad", "inputSchema": {"type": "object"}, "outputSchema": {
            "type": "object", "properties": {"mode": {"enum": ["a", "b"]}, "n": {"type": ["integer", "null"]}}}}]})
    assert not report["boot"]["ok"] and "iterable" in report["boot"]["error"]
    assert not report["include"]["ok"] and report["knit"] is None
    bad = report["tools"][0]
    assert not bad["output_schema_kept"]
    assert any("enum requires type or oneOf" in v for v in bad["output_violations"])
    assert any("type arrays are not supported" in v for v in bad["output_violations"])


def _server_answers(tmp_path: Path) -> list[dict]:
    """Real answers of every tool, from the real server over stdio."""
    workspace = tmp_path / AWKWARD
    (workspace / "docs").mkdir(parents=True)
    (workspace / "docs" / "sync-engine.md").write_text(
        "# Sync engine\n\nVector clocks order edits; see [merge rules](merge-rules.md).\n", encoding="utf-8")
    (workspace / "docs" / "merge-rules.md").write_text(
        "# Merge rules\n\nConcurrent vector clock edits are merged line by line.\n", encoding="utf-8")
    (workspace / "notes.txt").write_text("vector clocks, again\n", encoding="utf-8")
    two_page_pdf(workspace / "report.pdf")
    home = tmp_path / "dsh"
    log = DshLog(home, "s-live", str(workspace))
    log.append_rows([log.user("How do the vector clocks decide a conflict between two devices?"),
                     log.assistant("The later clock wins; concurrent edits are merged line by line.")])
    log.append_rows([log.event("compaction/summary", {"summary": [], "shadowedRange": {"start": 0, "end": 1}})])
    memory = tmp_path / "memory"
    memory.mkdir()
    (memory / "preferences.md").write_text("# Preferences\n\n## Editor\n<!-- tags: editor -->\n- vim keys\n",
                                           encoding="utf-8")
    def server(dsh_home: Path) -> StdioServerParameters:
        return StdioServerParameters(
            command=sys.executable,
            args=["-m", "knit_desktop", "mcp", "--workspace", str(workspace), "--dsh-home", str(dsh_home),
                  "--memory-dir", str(memory)],
            env={"KNIT_DESKTOP_HOME": os.environ["KNIT_DESKTOP_HOME"]},
        )

    library = tmp_path / "papers"
    library.mkdir()
    (library / "clocks.md").write_text("# Clocks\n\n## Vector clocks\n\nEach device keeps a vector clock; a merge "
                                       "takes the maximum of each entry.\n", encoding="utf-8")
    make_html(library / "guide.html", "Sync guide", [("Conflicts", "Vector clocks detect concurrent edits.")])
    make_epub(library / "book.epub", "Clock book", [("Time", "Lamport and vector clocks order events.")])
    (library / "comic.cbz").write_bytes(b"not a zip")
    write_library_folders([str(library), str(tmp_path / "unplugged")])
    with_session = [
        ("knit_docs", {}),  # ranked by the session's conversation
        ("knit_docs", {"query": "vector clocks merge"}),
        ("knit_docs", {"query": "capybara habitat survey"}),  # nothing matches
        ("knit_docs", {"query": "vector clocks", "audit": True, "limit": 2}),
        ("memory_search", {"query": "which editor keys"}),
        ("memory_propose", {"content": "Prefers dark themes", "target": "preferences.md", "chapter": "Editor",
                            "kind": "preference", "reason": "said twice"}),
        ("memory_propose", {"content": "Prefers dark themes", "target": "preferences.md", "chapter": "Editor"}),
        ("recall", {"query": "vector clokcs conflict"}),  # fuzzy, in the caller's (here: the newest) session
        ("recall", {"query": "merged line by line", "scope": "workspace"}),
        ("recall", {"query": "capybara habitat", "scope": "all"}),  # nothing
        ("recall", {"detail": {"session": "s-live", "seq": 1, "window": 2}}),  # compacted turns, marked
        ("knit_ask", {"query": "vector clocks merge", "max_chars": 400}),
        ("knit_ask", {"query": "vector clocks", "scope": "library", "top_k": 2}),
        ("knit_search", {"query": "vector clocks"}),
        ("knit_stats", {}),
    ]
    # No DSH session at all: the time-ordered list of recent documents, and no `session` in the answers.
    without_session = [("knit_docs", {"limit": 2}), ("memory_search", {"query": "editor"}),
                       ("knit_ask", {"query": "lamport events", "scope": "library"})]

    async def talk(params: StdioServerParameters, calls: list[tuple[str, dict]]) -> list[dict]:
        async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
            await session.initialize()
            answers = []
            for name, arguments in calls:
                result = await session.call_tool(name, arguments)
                assert not result.is_error, (name, result.content)
                answers.append({"tool": name, "structuredContent": result.structured_content})
            return answers

    async def main() -> list[dict]:
        answers = await talk(server(home), with_session) + await talk(server(tmp_path / "no-dsh"), without_session)
        pins = Pins.load(str(workspace))  # the user pinned one document and hid another in the window
        pins.set_pinned("notes.txt", True)
        pins.set_hidden("docs/merge-rules.md", True)
        return answers + await talk(server(home), [("knit_docs", {"query": "vector clocks merge"})])

    return asyncio.run(asyncio.wait_for(main(), timeout=120))


def test_dsh_accepts_every_real_answer(dsh_check, tmp_path):
    """Once DSH keeps an output schema it validates every answer against it (a mismatch fails the call)."""
    answers = _server_answers(tmp_path)
    report = dsh_check({"patch_yaml": "[]\n", "tools": tool_schemas(), "values": answers})
    assert report["boot"]["ok"] and report["mcp_client_rows"] == 0
    assert [v["tool"] for v in report["values"]] == [a["tool"] for a in answers]
    for value in report["values"]:
        assert value["violations"] == [], value
    # The answers exercise the optional parts too: the session or none, a PDF page, the time-ordered docs.
    docs = [a["structuredContent"] for a in answers if a["tool"] == "knit_docs"]
    assert [d.get("session", {}).get("id") for d in docs] == ["s-live"] * 4 + [None, "s-live"]
    assert any(m.get("page") for d in docs for i in d["primary"] + d["supporting"] + d["related"]
               for m in i.get("matches", []))
    assert docs[-2]["mode"] == "time" and len(docs[-2]["docs"]) == 2
    pinned = docs[-1]
    assert [i["rel"] for i in pinned["pinned"]] == ["notes.txt"] and pinned["totals"]["hidden"] == 1
    assert "docs/merge-rules.md" not in str(pinned)
    recalls = [a["structuredContent"] for a in answers if a["tool"] == "recall"]
    assert recalls[0]["sessions"][0]["events"][0]["matched_by"] == "fuzzy"
    assert recalls[1]["sessions"][0]["events"][0]["matched_by"] == "literal"
    assert recalls[2]["sessions"] == []
    assert [m.get("compacted") for m in recalls[3]["detail"]["messages"]] == [True, True]
    # The library tools: cited passages from the library folder and the workspace, the budget kept, a missing folder
    # and a file that failed reported by stats.
    asks = [a["structuredContent"] for a in answers if a["tool"] == "knit_ask"]
    assert asks[0]["used_chars"] <= 400 and asks[0]["passages"]
    assert {p["scope"] for p in asks[0]["passages"]} <= {"workspace", "library"}
    assert all(p["scope"] == "library" for p in asks[1]["passages"]) and len(asks[1]["passages"]) <= 2
    assert any(p["kind"] == "epub" and p["page"] == 1 for p in asks[2]["passages"])
    stats = next(a["structuredContent"] for a in answers if a["tool"] == "knit_stats")
    by_source = {f["source"]: f for f in stats["folders"]}
    assert by_source["papers"]["documents"] == 3 and by_source["papers"]["failed"] == 1
    assert "does not exist" in by_source["unplugged"]["problem"]
