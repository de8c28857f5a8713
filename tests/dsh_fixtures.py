"""Writes DSH session logs in DSH's physical format (dsh-sessions.md §1.2): a header frame, then one
independent zstd frame per append batch of JSON lines; or plain JSON lines with `compression: none`."""

from __future__ import annotations

import json
import re
from itertools import count
from pathlib import Path

import zstandard

T0 = 1_780_000_000_000


def project_key(cwd: str) -> str:
    out = []
    for part in re.split(r"([/\\:]+)", cwd):
        if re.fullmatch(r"[/\\:]+", part):
            out.append("-")
        else:
            out.extend(ch if re.fullmatch(r"[A-Za-z0-9._-]", ch) else f"~{ord(ch):04x}" for ch in part)
    return "".join(out).lstrip("-")[:251]


class DshLog:
    def __init__(self, home: Path, session_id: str, cwd: str | None, *, version: int = 4, compress: bool = True,
                 **header) -> None:
        name = f"session.v{version}.jsonl" if version else "session.jsonl"
        if compress:
            name += ".zstd"
        project = f"--{project_key(cwd)}--" if cwd else "_no-cwd"
        self.path = home / "sessions" / project / session_id / name
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self.compress = compress
        self.version = version
        self.seq = count(header.pop("first_seq", 0))
        head = {"type": "session", "version": version, "id": session_id, "createdAt": T0, "delegationDepth": 0}
        if cwd:
            head["cwd"] = cwd
        head.update(header)
        self.path.write_bytes(b"")
        self.append_rows([head])

    def frame(self, rows: list[dict]) -> bytes:
        text = "".join(json.dumps(row, ensure_ascii=False) + "\n" for row in rows).encode()
        return zstandard.ZstdCompressor().compress(text) if self.compress else text

    def append_rows(self, rows: list[dict]) -> None:
        with open(self.path, "ab") as handle:
            handle.write(self.frame(rows))

    def append_bytes(self, data: bytes) -> None:
        with open(self.path, "ab") as handle:
            handle.write(data)

    def event(self, kind: str, data, **extra) -> dict:
        seq = next(self.seq)
        return {"type": kind, "seq": seq, "time": T0 + seq * 1000, "data": data, **extra}

    def user(self, text: str, kind: str = "user", **extra) -> dict:
        source = {"kind": kind} if kind else None
        data = {"id": f"u{text[:8]}", "role": "user", "content": [{"type": "text", "text": text}]}
        if source:
            data["source"] = source
        return self.event("user/message", data, surfaceOp="append", **extra)

    def assistant(self, text: str) -> dict:
        message = {"role": "assistant", "content": [{"type": "reasoning", "text": "thinking"}, {"type": "text", "text": text}],
                   "source": {"kind": "model", "provider": "deepseek", "model": "v4"}}
        return self.event("assistant/message", {"turn": 1, "step": 1, "message": message}, surfaceOp="append")

    def read_call(self, call_id: str, path: str, key: str = "file_path") -> dict:
        return self.event("tool/call", {"turn": 1, "step": 1, "callId": call_id, "name": "read",
                                        "arguments": json.dumps({key: path})})

    def result_v4(self, call_id: str, is_error: bool = False) -> dict:
        message = {"role": "tool", "toolCallId": call_id, "isError": is_error, "content": [{"type": "text", "text": "…"}]}
        return self.event("tool/result", {"turn": 1, "step": 1, "message": message}, surfaceOp="append")

    def result_v0(self, call_id: str, is_error: bool = False) -> dict:
        message = {"role": "user", "source": {"kind": "tool", "callId": call_id},
                   "content": [{"type": "tool-result", "toolCallId": call_id, "content": "…", "isError": is_error}]}
        return self.event("tool/result", {"turn": 1, "step": 1, "message": message}, surfaceOp="append")

    def title(self, text: str) -> dict:
        return self.event("session/title", {"title": text})

    def chunk_row(self) -> dict:
        seq0 = next(self.seq)
        next(self.seq), next(self.seq)
        return {"type": "text-chunks", "seq0": seq0, "time0": T0, "dt": [0, 5, 5], "chunks": ["par", "tial", " text"]}

    # An assistant calling an MCP tool, as DSH 0.1.0-rc.8 writes it (observed with real DSH headless; see
    # docs/dsh-mcp-calls.md). The MCP server receives `tools/call` only after the call frame is on disk.

    def mcp_call_rows(self, name: str = "mcp__knit__knit_docs", arguments: dict | None = None,
                      call_id: str = "call_1", turn: int = 1, step: int = 1) -> list[dict]:
        """One append batch (one frame): the streamed chunks, the assistant/message holding the tool-call block,
        then the tool/call event. `arguments` is stored as a raw JSON string in both places."""
        raw = json.dumps(arguments or {}, ensure_ascii=False)
        block = {"type": "tool-call", "id": call_id, "name": name, "arguments": raw}
        chunks = [{"type": "block-start", "index": 0, "blockType": "tool-call"},
                  {"type": "tool-call-delta", "index": 0, "id": call_id, "name": name, "argumentsDelta": raw},
                  {"type": "block-end", "index": 0, "block": block},
                  {"type": "finish", "reason": {"kind": "tool-calls"}}]
        rows = [self.event("assistant/chunk", {"turn": turn, "step": step, "chunk": chunk}) for chunk in chunks]
        message = {"role": "assistant", "content": [block],
                   "source": {"kind": "model", "provider": "deepseek-official", "model": "deepseek-v4-flash"},
                   "id": f"assistant-{call_id}"}
        rows.append(self.event("assistant/message", {"turn": turn, "step": step, "message": message},
                               sourceEventSeqs=[row["seq"] for row in rows], surfaceOp="append"))
        rows.append(self.event("tool/call", {"turn": turn, "step": step, "callId": call_id, "name": name,
                                             "arguments": raw}))
        return rows

    def mcp_result_rows(self, call: dict, text: str, is_error: bool = False) -> list[dict]:
        """One append batch after the server answered: tool/result (pointing back at the tool/call's seq), step/end.
        Version 0 logs (what 0.1.0-rc.8 writes) carry the v0 result shape; version ≥ 4 the v4 one."""
        data = call["data"]
        call_id = data["callId"]
        blocks = [{"type": "text", "text": text}]
        if self.version >= 4:
            message = {"role": "tool", "toolCallId": call_id, "isError": is_error, "content": blocks,
                       "id": f"result-{call_id}"}
        else:
            message = {"source": {"kind": "tool", "callId": call_id},
                       "content": [{"type": "tool-result", "toolCallId": call_id, "content": blocks,
                                    "isError": is_error}], "role": "user", "id": f"result-{call_id}"}
        result = self.event("tool/result", {"turn": data["turn"], "step": data["step"], "message": message},
                            sourceEventSeqs=[call["seq"]], surfaceOp="append")
        return [result, self.event("step/end", {"turn": data["turn"], "step": data["step"]})]

    def append_mcp_call(self, name: str = "mcp__knit__knit_docs", arguments: dict | None = None,
                        call_id: str = "call_1", turn: int = 1, step: int = 1, *, title: str | None = None) -> dict:
        """Append the call frame (and, like the first turn of a real session, optionally the title frame that the
        title model's answer may land *after* the call) and return the tool/call event for `append_mcp_result`."""
        rows = self.mcp_call_rows(name, arguments, call_id, turn, step)
        self.append_rows(rows)
        if title is not None:
            self.append_rows([self.event("session/title", {"title": title, "messageSeqs": [],
                                                           "source": {"kind": "provider", "provider": "session-title-first-prompt-llm"}})])
        return rows[-1]

    def append_mcp_result(self, call: dict, text: str, is_error: bool = False) -> None:
        self.append_rows(self.mcp_result_rows(call, text, is_error))
