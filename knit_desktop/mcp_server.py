"""`knit-desktop mcp`: the agent tools over MCP (stdio), on the official SDK's low-level server.

The low-level server is used so the schemas are exactly ours (closed, no scores) and bad arguments can be
clamped the reference's way instead of being refused by generated validation. The tools themselves live in
`core.agent` (protocol-free); this module only carries them.

Tool work runs on one dedicated thread: SQLite connections belong to the thread that opened them, PyMuPDF is not
thread-safe, and the event loop stays free to answer `initialize` and pings. The ranking engine is imported on
that thread after the server is up, so DSH gets its `initialize` answer in well under a second; a workspace
whose first indexing ran out of its time budget goes on indexing there between calls, in short slices, and the
changes its watches see are applied there between calls too (KnitDocs.keep_current: the index stays current for
the window and the command line, which trust it while the server holds its watch lease).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import shlex
import signal
import sys
import threading
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path
from typing import TYPE_CHECKING

import anyio
import mcp_types as types
from mcp.server.lowlevel import Server
from mcp.server.stdio import stdio_server

from . import __version__
from .mcp_tools import ALL_TOOLS

if TYPE_CHECKING:
    from .core.agent.tools import AgentTools

SERVER_NAME = "knit"
INDEXING_SLICE_S = 1.0
WARM_UP_AFTER_S = 0.5  # a call arriving while the server indexes in the background waits at most this long
KEEP_CURRENT_S = 0.5  # between calls, what the watches saw is applied this often (see KnitDocs.keep_current)


def _error(message: str) -> types.CallToolResult:
    return types.CallToolResult(content=[types.TextContent(type="text", text=message)], is_error=True)


class ToolHost:
    """The tools on their one worker thread: built there (the heavy imports happen off the event loop), called
    there, and indexing a new workspace there between calls."""

    def __init__(self, factory) -> None:
        self.executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix="knit-mcp")
        self._factory = factory
        self._tools: AgentTools | None = None
        self._background: Future | None = None
        self._indexing_pending = False
        self._closing = False
        # Warm up (import the engine, open nothing) once the handshake is done: importing on this thread while
        # the event loop answers `initialize` would only slow both down (one GIL).
        self._warm = threading.Timer(WARM_UP_AFTER_S, self._warm_up)
        self._warm.daemon = True
        self._warm.start()
        self._stopping = threading.Event()
        self._keeping: Future | None = None
        self._keeper = threading.Thread(target=self._keep_current_loop, name="knit-mcp-keeper", daemon=True)
        self._keeper.start()

    def _warm_up(self) -> None:
        with contextlib.suppress(RuntimeError):  # the executor already shut down: the server is ending
            self.executor.submit(self._open_pinned)

    def _open_pinned(self) -> None:
        """Import the engine and open the pinned workspace (if any), so its watch and lease start now and the
        first call finds it open; a first build over its time budget goes on in slices, as after a call."""
        tools = self._get()
        if not self._closing and tools.docs.open_pinned():
            self._indexing_pending = tools.docs.indexing_pending()
            self._schedule_indexing()

    def _get(self) -> AgentTools:
        if self._tools is None:
            self._tools = self._factory()
        return self._tools

    def _run(self, name: str, arguments: object):
        tools = self._get()
        try:
            return tools.call(name, arguments)
        finally:
            # Read here, on the worker that owns the open workspaces, never from the event loop's thread.
            self._indexing_pending = tools.docs.indexing_pending()

    async def call(self, name: str, arguments: object):
        loop = asyncio.get_running_loop()
        try:
            return await loop.run_in_executor(self.executor, self._run, name, arguments)
        finally:
            self._schedule_indexing()

    def _schedule_indexing(self) -> None:
        if self._background is not None and not self._background.done():
            return
        if self._indexing_pending and not self._closing:
            self._background = self.executor.submit(self._index_slice)

    def _keep_current_loop(self) -> None:
        """Every KEEP_CURRENT_S, once the tools exist: queue `_keep_current` on the worker unless one is queued."""
        while not self._stopping.wait(KEEP_CURRENT_S):
            if self._tools is None or (self._keeping is not None and not self._keeping.done()):
                continue
            try:
                self._keeping = self.executor.submit(self._keep_current)
            except RuntimeError:  # the executor shut down: the server is ending
                return

    def _keep_current(self) -> None:
        assert self._tools is not None
        with contextlib.suppress(Exception):  # applied by the next call instead; an error must not end the worker
            self._tools.docs.keep_current()
            # A walk it made (directories came or went) may have run out of its time budget: index the rest in
            # slices, as after a call; until then the workspace holds no lease and is not kept current.
            self._indexing_pending = self._tools.docs.indexing_pending()
        self._schedule_indexing()

    def _index_slice(self) -> None:
        assert self._tools is not None
        try:
            more = self._tools.docs.continue_indexing(INDEXING_SLICE_S)
        except Exception:  # indexing is retried on the next call; a background error must not kill the thread
            return
        self._indexing_pending = more
        if more and not self._closing:
            self._background = self.executor.submit(self._index_slice)

    def close(self) -> None:
        def shut() -> None:
            if self._tools is not None:
                self._tools.close()

        self._closing = True
        self._stopping.set()
        self._warm.cancel()
        with contextlib.suppress(Exception):  # a worker stuck in a long refresh: the process is ending anyway
            self.executor.submit(shut).result(timeout=30)
        self.executor.shutdown(wait=False, cancel_futures=True)


def build_server(host: ToolHost) -> Server:
    tools = list(ALL_TOOLS)
    names = {t.name for t in tools}

    async def list_tools(ctx, params) -> types.ListToolsResult:
        return types.ListToolsResult(tools=tools)

    async def call_tool(ctx, params: types.CallToolRequestParams) -> types.CallToolResult:
        from .core.agent.knit_docs import ToolError

        if params.name not in names:
            return _error(f"unknown tool {params.name!r}; this server has {', '.join(sorted(names))}")
        try:
            answer = await host.call(params.name, params.arguments)
        except ToolError as exc:
            return _error(str(exc))
        except Exception as exc:  # a bug must cost one call, not the agent's tool server
            return _error(f"{params.name} failed: {type(exc).__name__}: {exc}")
        return types.CallToolResult(
            content=[types.TextContent(type="text", text=answer.text)], structured_content=answer.structured
        )

    return Server(
        SERVER_NAME,
        version=__version__,
        instructions="knit_docs ranks this project's documents by the current DSH conversation; memory_search "
        "finds what the user asked to remember; memory_propose queues a memory for the user to confirm; knit_search, knit_ask and knit_stats answer from "
        "the user's library folders with cited passages. Every "
        "answer names the workspace and the DSH session it is for.",
        on_list_tools=list_tools,
        on_call_tool=call_tool,
    )


def serve(workspace: str | None, dsh_home_dir: str | None, memory_dir: str | None = None,
          allow_large_workspace: bool = False) -> int:
    def factory() -> AgentTools:
        from .core.agent.tools import AgentTools

        # The server lives on: it watches the workspaces it answers for instead of walking them on every call.
        return AgentTools(workspace, dsh_home_dir, memory_dir, allow_large_workspace=allow_large_workspace, watch=True)

    from .core.index.doc_table import bound_open_pieces

    bound_open_pieces()  # a server reads a few dozen rows per call, for as long as it lives
    host = ToolHost(factory)
    server = build_server(host)

    async def main() -> None:
        async with stdio_server() as (read_stream, write_stream):
            await server.run(read_stream, write_stream, server.create_initialization_options())

    _end_on_interrupt(host)
    try:
        anyio.run(main)
    except KeyboardInterrupt:
        pass
    finally:
        host.close()
    return 0


def _end_on_interrupt(host: ToolHost) -> None:
    """Ctrl-C (a server started by hand in a terminal) ends the server at once. The SDK reads stdin in a thread
    that a cancel does not stop: after Ctrl-C the server went on until its next line of input, which in a terminal
    never comes. The workspaces are closed first (their watch leases given up, as when stdin closes)."""

    def interrupted(signum: int, _frame: object) -> None:
        host.close()
        sys.stderr.flush()
        os._exit(128 + signum)

    if threading.current_thread() is threading.main_thread():
        signal.signal(signal.SIGINT, interrupted)


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
    from .core.dsh.sessions import dsh_home

    args = [*launch_command(), "mcp", "--dsh-home", str(dsh_home(dsh_home_dir))]
    return args + (["--workspace", workspace] if workspace else [])


def _yaml_str(text: str) -> str:
    """A YAML double-quoted scalar: JSON's escapes, plus the characters YAML does not allow unescaped."""
    quoted = json.dumps(text, ensure_ascii=False)
    return "".join(
        f"\\u{ord(c):04x}" if c == "\x7f" or "\x80" <= c <= "\x9f" or "\ud800" <= c <= "\udfff" or c in "\ufffe\uffff"
        else c for c in quoted)


def dsh_config(workspace: str | None, dsh_home_dir: str | None) -> str:
    """The `cordis.patch.yml` row that makes DSH start this server (DSH strips DSH_* from its environment).

    DSH parses the file with js-yaml's JSON schema and spreads each `insert` into its entry list, so `insert`
    holds a list of rows; every path is a double-quoted scalar, whatever spaces, quotes or `: #` it contains.
    """
    command, *args = server_command(workspace, dsh_home_dir)
    row = [
        "- insert:",
        "  - id: mcp-knit",
        "    name: '@deepseek-ai/dsh-mcp-client'",
        "    config:",
        f"      serverName: {SERVER_NAME}",
        "      transport: stdio",
        f"      command: {_yaml_str(command)}",
        f"      args: [{', '.join(_yaml_str(arg) for arg in args)}]",
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
