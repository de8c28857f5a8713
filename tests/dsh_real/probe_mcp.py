"""A stand-in MCP stdio server that records what it can see when DSH calls one of its tools.

On `tools/call` it first notes the moment, then snapshots every session log under `<dsh-home>/sessions`
(size, mtime, decoded events, via knit_desktop.core.dsh.log) before answering, and appends one JSON line to
`<out-dir>/probe-<pid>.jsonl` holding that snapshot, the request params (with `_meta`), its own pid, parent pid,
cwd, argv and environment variable names. Its tool is `knit_docs`, so DSH shows it as `mcp__<serverName>__knit_docs`.

    python probe_mcp.py --dsh-home DIR --out-dir DIR [--delay SECONDS]
"""

from __future__ import annotations

import argparse
import contextlib
import glob
import json
import os
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

import anyio  # noqa: E402
import mcp_types as types  # noqa: E402
from mcp.server.lowlevel import Server  # noqa: E402
from mcp.server.stdio import stdio_server  # noqa: E402

from knit_desktop.core.dsh.log import LogReader  # noqa: E402

TOOL = types.Tool(name="knit_docs", description="Probe: records what the server sees when called.",
                  input_schema={"type": "object", "properties": {"query": {"type": "string"}}})


def snapshot(home: str) -> list[dict]:
    out = []
    for path in sorted(glob.glob(os.path.join(home, "sessions", "*", "*", "session*.jsonl*"))):
        stat = os.stat(path)
        reader = LogReader(path)
        try:
            events = reader.read_new().events
        except OSError as exc:
            events = [{"error": str(exc)}]
        out.append({"path": path, "size": stat.st_size, "mtime_ns": stat.st_mtime_ns, "decoded_bytes": reader.offset,
                    "events": events})
    return out


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--dsh-home", required=True)
    parser.add_argument("--out-dir", required=True)
    parser.add_argument("--delay", type=float, default=0.5, help="seconds to wait before answering")
    args = parser.parse_args()
    out = Path(args.out_dir) / f"probe-{os.getpid()}.jsonl"
    started = time.time()
    calls = 0

    def record(row: dict) -> None:
        with open(out, "a", encoding="utf-8") as handle:
            handle.write(json.dumps(row, default=str) + "\n")

    record({"kind": "start", "t": started, "pid": os.getpid(), "ppid": os.getppid(), "cwd": os.getcwd(),
            "argv": sys.argv, "env_names": sorted(os.environ),
            "env": {k: v for k, v in os.environ.items() if k in ("PWD", "OLDPWD", "INIT_CWD") or "DSH" in k
                    or "SESSION" in k.upper()}})

    async def list_tools(ctx, params) -> types.ListToolsResult:
        return types.ListToolsResult(tools=[TOOL])

    async def call_tool(ctx, params: types.CallToolRequestParams) -> types.CallToolResult:
        nonlocal calls
        t_received = time.time()
        calls += 1
        logs = snapshot(args.dsh_home)
        t_snap = time.time()
        meta = getattr(ctx, "meta", None)
        record({"kind": "call", "t": t_received, "t_snapshot_done": t_snap, "n": calls, "pid": os.getpid(),
                "cwd": os.getcwd(), "params": params.model_dump(by_alias=True, mode="json"),
                "ctx_meta": meta if meta is None or isinstance(meta, dict) else repr(meta),
                "request_id": repr(getattr(ctx, "request_id", None)), "logs": logs})
        await anyio.sleep(args.delay)
        text = f"probe answer {calls} from pid {os.getpid()} cwd {os.getcwd()}"
        record({"kind": "answer", "t": time.time(), "n": calls})
        return types.CallToolResult(content=[types.TextContent(type="text", text=text)])

    server = Server("probe", version="0", on_list_tools=list_tools, on_call_tool=call_tool)

    async def run() -> None:
        async with stdio_server() as (read_stream, write_stream):
            await server.run(read_stream, write_stream, server.create_initialization_options())

    with contextlib.suppress(KeyboardInterrupt):
        anyio.run(run)
    record({"kind": "exit", "t": time.time()})
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
