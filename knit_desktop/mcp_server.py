"""`knit-desktop mcp`: the agent tools over MCP (stdio), on the official SDK's low-level server.

The low-level server is used so the schemas are exactly ours (closed, no scores) and bad arguments can be
clamped the reference's way instead of being refused by generated validation. Tool work runs on one dedicated
thread: SQLite connections belong to the thread that opened them, and the event loop stays free to answer pings.
"""

from __future__ import annotations

import asyncio
import json
import shlex
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import anyio
import mcp_types as types
from mcp.server.lowlevel import Server
from mcp.server.stdio import stdio_server

from . import __version__
from .core.dsh_sessions import dsh_home
from .core.knit_docs import DEFAULT_LIMIT, DESCRIPTION, MAX_LIMIT, KnitDocs, ToolError
from .core.memory.search import hits_payload

SERVER_NAME = "knit"


def _closed(properties: dict, required: list[str]) -> dict:
    return {"type": "object", "properties": properties, "required": required, "additionalProperties": False}


_STR = {"type": "string"}
_INT = {"type": "integer"}
_STRS = {"type": "array", "items": _STR}

MATCH_SCHEMA = _closed(
    {
        "start_line": _INT,
        "end_line": _INT,
        "page": _INT,
        "start_offset": _INT,
        "end_offset": _INT,
        "terms": _STRS,
        "snippet": _STR,
    },
    ["start_line", "end_line", "start_offset", "end_offset", "terms", "snippet"],
)
RELATION_SCHEMA = _closed(
    {"type": _STR, "dir": {"enum": ["in", "out"]}, "other": _STR, "line": _INT}, ["type", "dir", "other"]
)
ITEM_SCHEMA = _closed(
    {
        "rel": _STR,
        "title": _STR,
        "summary": _STR,
        "mtime_ms": _INT,
        "kind": {"enum": ["md", "txt", "pdf"]},
        "source": {"enum": ["impl", "test", "config", "design", "doc"]},
        "reason": _closed({"code": _STR, "terms": _STRS, "fields": _INT, "term": _STR}, ["code", "terms", "fields", "term"]),
        "provenance": {"enum": ["retrieval", "relation", "manual"]},
        "relations": {"type": "array", "items": RELATION_SCHEMA},
        "relations_total": _INT,
        "snippet": _STR,
        "matches": {"type": "array", "items": MATCH_SCHEMA},
    },
    ["rel", "title", "summary", "mtime_ms", "kind", "source", "reason", "provenance"],
)
RECENT_SCHEMA = _closed({"rel": _STR, "title": _STR, "summary": _STR, "mtime_ms": _INT}, ["rel", "title", "summary", "mtime_ms"])
KNIT_DOCS_OUTPUT = _closed(
    {
        "mode": {"enum": ["relevance", "time"]},
        "topic": _STR,
        "task": _STR,
        "total": _INT,
        "primary": {"type": "array", "items": ITEM_SCHEMA},
        "supporting": {"type": "array", "items": ITEM_SCHEMA},
        "related": {"type": "array", "items": ITEM_SCHEMA},
        "totals": _closed(
            {"primary": _INT, "supporting": _INT, "related": _INT, "matched": _INT, "total": _INT},
            ["primary", "supporting", "related", "matched", "total"],
        ),
        "usage": _STR,
        "docs": {"type": "array", "items": RECENT_SCHEMA},
    },
    ["mode", "topic", "total", "primary", "supporting", "related"],
)
KNIT_DOCS_INPUT = {
    "type": "object",
    "properties": {
        "query": {"type": "string", "description": "Optional search text. Omit to rank by the current conversation."},
        "limit": {
            "type": "integer",
            "description": f"How many recent files to list when there is not enough conversation (1–{MAX_LIMIT}, "
            f"default {DEFAULT_LIMIT}).",
        },
        "audit": {
            "type": "boolean",
            "description": "Also report what the session did with the previous pack (reads since it was handed "
            "out). Default false.",
        },
    },
}

KNIT_DOCS_TOOL = types.Tool(
    name="knit_docs",
    title="Project documents for the current task",
    description=DESCRIPTION,
    input_schema=KNIT_DOCS_INPUT,
    output_schema=KNIT_DOCS_OUTPUT,
    annotations=types.ToolAnnotations(read_only_hint=True, open_world_hint=False, idempotent_hint=True),
)


HIT_SCHEMA = _closed({"location": _STR, "library": _STR, "chapter": _STR, "start_line": _INT, "end_line": _INT},
                     ["location", "library", "chapter", "start_line", "end_line"])
MEMORY_SEARCH_TOOL = types.Tool(
    name="memory_search",
    title="Find what the user asked you to remember",
    description="Search the user's Markdown memory files. Returns `file:start-end` line ranges of the best entries "
    "(read exactly those lines with your read tool), at most `limit` of them within a small character budget.",
    input_schema={"type": "object", "properties": {
        "query": {"type": "string", "description": "What you want to recall, in the user's words."},
        "limit": {"type": "integer", "description": "At most this many entries (1–10, default 3)."}},
        "required": ["query"]},
    output_schema=_closed({"text": _STR, "hits": {"type": "array", "items": HIT_SCHEMA}}, ["text", "hits"]),
    annotations=types.ToolAnnotations(read_only_hint=True, open_world_hint=False, idempotent_hint=True),
)
MEMORY_PROPOSE_TOOL = types.Tool(
    name="memory_propose",
    title="Propose a memory for the user to confirm",
    description="Propose one thing worth remembering across sessions (a preference, a project fact, an environment "
    "detail). Nothing is written until the user confirms it on a sticky note. Do not propose anything when there is "
    "nothing worth keeping; never pad.",
    input_schema={"type": "object", "properties": {
        "text": {"type": "string", "description": "The memory, one short self-contained statement."},
        "target": {"type": "string", "description": "The memory file it belongs in (e.g. preferences.md), if known."},
        "chapter": {"type": "string", "description": "The ## chapter of that file, if known."},
        "kind": {"type": "string", "enum": ["preference", "project", "environment", "fact", "todo", "note"]}},
        "required": ["text"]},
    output_schema=_closed({"queued": {"type": "boolean"}, "duplicate": {"type": "boolean"}, "id": _STR},
                          ["queued", "duplicate", "id"]),
    annotations=types.ToolAnnotations(read_only_hint=False, destructive_hint=False, open_world_hint=False),
)


def _memory_call(store, name: str, raw: dict | None) -> tuple[str, dict]:
    args = raw if isinstance(raw, dict) else {}
    if name == "memory_search":
        query = args.get("query")
        if not isinstance(query, str) or not query.strip():
            raise ToolError("memory_search: query must be a non-empty string")
        limit = args.get("limit", 3)
        limit = min(10, max(1, int(limit))) if isinstance(limit, int | float) and limit == limit else 3
        hits, text = store.search(query[:2000], limit)
        return text or "No memory entry matches.", hits_payload(hits, text)
    fields = {k: args.get(k, "") for k in ("text", "target", "chapter", "kind")}
    if not all(isinstance(v, str) for v in fields.values()):
        raise ToolError("memory_propose: text, target, chapter and kind must be strings")
    try:
        proposal, new = store.propose(fields["text"], fields["target"], fields["chapter"], fields["kind"] or "note")
    except ValueError as exc:
        raise ToolError(f"memory_propose: {exc}") from None
    text = "Queued for the user to confirm." if new else "The same proposal is already waiting for the user."
    return text, {"queued": new, "duplicate": not new, "id": proposal.id}


def _error(message: str) -> types.CallToolResult:
    return types.CallToolResult(content=[types.TextContent(type="text", text=message)], is_error=True)


def _arguments(raw: dict | None) -> tuple[str | None, object, bool]:
    """Read the arguments leniently: a wrong-typed query is refused, a bad limit falls back, audit is truthy-only."""
    args = raw if isinstance(raw, dict) else {}
    query = args.get("query")
    if query is not None and not isinstance(query, str):
        raise ToolError(f"knit_docs: query must be a string, not {type(query).__name__}")
    return query, args.get("limit", DEFAULT_LIMIT), args.get("audit") is True


def build_server(tool: KnitDocs, memory=None) -> Server:
    executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix="knit-mcp")
    tools = [KNIT_DOCS_TOOL] + ([MEMORY_SEARCH_TOOL, MEMORY_PROPOSE_TOOL] if memory is not None else [])

    async def list_tools(ctx, params) -> types.ListToolsResult:
        return types.ListToolsResult(tools=tools)

    async def call_tool(ctx, params: types.CallToolRequestParams) -> types.CallToolResult:
        if memory is not None and params.name in (MEMORY_SEARCH_TOOL.name, MEMORY_PROPOSE_TOOL.name):
            try:
                loop = asyncio.get_running_loop()
                text, structured = await loop.run_in_executor(
                    executor, lambda: _memory_call(memory, params.name, params.arguments))
            except ToolError as exc:
                return _error(str(exc))
            except Exception as exc:  # a bug must cost one call, not the agent's tool server
                return _error(f"{params.name} failed: {type(exc).__name__}: {exc}")
            return types.CallToolResult(content=[types.TextContent(type="text", text=text)],
                                        structured_content=structured)
        if params.name != KNIT_DOCS_TOOL.name:
            return _error(f"unknown tool {params.name!r}; this server has {', '.join(t.name for t in tools)}")
        try:
            query, limit, audit = _arguments(params.arguments)
            loop = asyncio.get_running_loop()
            answer = await loop.run_in_executor(executor, lambda: tool.call(query, limit, audit))
        except ToolError as exc:
            return _error(str(exc))
        except Exception as exc:  # a bug must cost one call, not the agent's tool server
            return _error(f"knit_docs failed: {type(exc).__name__}: {exc}")
        return types.CallToolResult(
            content=[types.TextContent(type="text", text=answer.text)], structured_content=answer.structured
        )

    return Server(
        SERVER_NAME,
        version=__version__,
        instructions="knit_docs ranks this project's documents by the current DSH conversation; memory_search "
        "finds what the user asked to remember; memory_propose queues a memory for the user to confirm.",
        on_list_tools=list_tools,
        on_call_tool=call_tool,
    )


def serve(workspace: str | None, dsh_home_dir: str | None, memory_dir: str | None = None) -> int:
    from .core.memory.store import MemoryStore

    tool = KnitDocs(workspace, dsh_home_dir)
    server = build_server(tool, MemoryStore(memory_dir, dsh_home_dir))

    async def main() -> None:
        async with stdio_server() as (read_stream, write_stream):
            await server.run(read_stream, write_stream, server.create_initialization_options())

    try:
        anyio.run(main)
    except KeyboardInterrupt:
        pass
    finally:
        tool.close()
    return 0


def launch_command() -> list[str]:
    """How this installation starts itself: the frozen binary, the console script, or the module."""
    if getattr(sys, "frozen", False):
        return [sys.executable]
    script = Path(sys.executable).with_name("knit-desktop")
    if script.exists():
        return [str(script)]
    return [sys.executable, "-m", "knit_desktop"]


def server_command(workspace: str | None, dsh_home_dir: str | None) -> list[str]:
    """The full command line that starts this server with this machine's paths filled in."""
    args = [*launch_command(), "mcp", "--dsh-home", str(dsh_home(dsh_home_dir))]
    return args + (["--workspace", workspace] if workspace else [])


def dsh_config(workspace: str | None, dsh_home_dir: str | None) -> str:
    """The `cordis.patch.yml` row that makes DSH start this server (DSH strips DSH_* from its environment)."""
    command, *args = server_command(workspace, dsh_home_dir)
    row = [
        "- insert:",
        "    id: mcp-knit",
        "    name: '@deepseek-ai/dsh-mcp-client'",
        "    config:",
        f"      serverName: {SERVER_NAME}",
        "      transport: stdio",
        f"      command: {json.dumps(command)}",
        f"      args: {json.dumps(args, ensure_ascii=False)}",
    ]
    return "\n".join(row) + "\n"


def print_config(kind: str, workspace: str | None, dsh_home_dir: str | None) -> str:
    """`dsh`: the cordis row; `json`: the `mcpServers` entry most other clients read; `shell`: the command line."""
    if kind == "dsh":
        return dsh_config(workspace, dsh_home_dir)
    command, *args = server_command(workspace, dsh_home_dir)
    if kind == "json":
        entry = {"mcpServers": {SERVER_NAME: {"command": command, "args": args}}}
        return json.dumps(entry, indent=2, ensure_ascii=False) + "\n"
    return shlex.join([command, *args]) + "\n"
