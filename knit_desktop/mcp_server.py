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
from .core.knit_docs import DEFAULT_LIMIT, KnitDocs, ToolError
from .core.memory.search import hits_payload
from .mcp_tools import KNIT_DOCS_TOOL, MEMORY_PROPOSE_TOOL, MEMORY_SEARCH_TOOL

SERVER_NAME = "knit"


def _memory_call(store, name: str, raw: dict | None) -> tuple[str, dict]:
    args = raw if isinstance(raw, dict) else {}
    if name == "memory_search":
        query = args.get("query")
        if not isinstance(query, str) or not query.strip():
            raise ToolError("memory_search: query must be a non-empty string")
        limit = args.get("limit", 3)
        limit = min(10, max(1, int(limit))) if isinstance(limit, int | float) and limit == limit else 3
        hits, text = store.search(query[:2000], limit)
        return text or "No memory entry matches.", hits_payload(hits, text, store.skipped)
    fields = {k: args.get(k, "") for k in ("text", "target", "chapter", "kind")}
    if not all(isinstance(v, str) for v in fields.values()):
        raise ToolError("memory_propose: text, target, chapter and kind must be strings")
    try:
        proposal, new = store.propose(fields["text"], fields["target"], fields["chapter"], fields["kind"] or "note")
    except ValueError as exc:
        raise ToolError(f"memory_propose: {exc}") from None
    text = "Queued for the user to confirm." if new else "The same proposal is already waiting for the user."
    result = {"queued": new, "duplicate": not new, "id": proposal.id}
    if store.queue.warning:
        text += " " + store.queue.warning
        result["warning"] = store.queue.warning
    return text, result


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
