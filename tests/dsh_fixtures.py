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
