"""`sessions` and `conversation`: what Knit reads from DSH's session logs."""

from __future__ import annotations

import argparse
import sys

from ..core.dsh.sessions import SessionLog, active_session, discover, dsh_home, sessions_root
from .common import (
    print_json,
    say,
    session_log,
)
from .parser import EXIT_OK


def _session_summary(log: SessionLog, active: SessionLog | None) -> dict:
    header = log.header or {}
    out = {
        "id": log.session_id,
        "cwd": log.cwd,
        "title": log.title,
        "updated_ms": log.updated_ms,
        "active": log is active,
        "top_level": log.top_level if log.header else False,
        "parent": header.get("parentSession") or None,
    }
    if log.problem:
        out["problem"] = log.problem
    return out


def cmd_sessions(args: argparse.Namespace) -> int:
    logs = discover(dsh_home(args.dsh_home))
    for log in logs:
        log.update()  # titles are events: read each log (incrementally, in the app)
    active = active_session(logs)
    ordered = sorted(logs, key=lambda log: -log.updated_ms)
    if args.json:
        print_json({"root": str(sessions_root(dsh_home(args.dsh_home))), "sessions": [_session_summary(x, active) for x in ordered]})
        return EXIT_OK
    if not ordered:
        say(f"No DSH sessions under {sessions_root(dsh_home(args.dsh_home))}.")
    for log in ordered:
        mark = "*" if log is active else " "
        title = log.title or "(untitled)"
        note = f"  [unreadable: {log.problem}]" if log.problem and log.header is None else ""
        say(f"{mark} {log.session_id}  {title}  {log.cwd}{note}")
    return EXIT_OK


def cmd_conversation(args: argparse.Namespace) -> int:
    log = session_log(args)
    payload = {
        "session": {"id": log.session_id, "cwd": log.cwd, "title": log.title, "updated_ms": log.updated_ms},
        "messages": [{"role": m.role, "text": m.text, "seq": m.seq} for m in log.messages],
        "reads": [{"path": r.path, "ok": r.ok} for r in log.reads],
    }
    if log.problem:  # frames skipped as corrupt or too large: said once, outside the contract's stdout
        print(f"knit-desktop: {log.session_id}: {log.problem}", file=sys.stderr)
    if args.json:
        print_json(payload)
        return EXIT_OK
    say(f"{log.title or '(untitled)'} — {log.session_id} — {log.cwd}")
    for m in log.messages:
        first = m.text.strip().splitlines()[0] if m.text.strip() else ""
        say(f"  [{m.seq}] {m.role}: {first[:100]}")
    say(f"{len(log.messages)} messages, {len(log.reads)} reads")
    return EXIT_OK
