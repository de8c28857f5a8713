"""`recall` (and its short form `history`): find what was said in past DSH conversations (issue 18)."""

from __future__ import annotations

import argparse
import sys

from ..core.dsh.history_index import HistoryIndex
from ..core.dsh.sessions import dsh_home
from ..core.recall.recall import (
    DEFAULT_SESSIONS,
    Recall,
    ScopeError,
    browse_payload,
    detail_payload,
    find_indexed,
    scope_sessions,
)
from .common import print_json, say
from .parser import EXIT_OK, UsageError


def open_index(args: argparse.Namespace) -> HistoryIndex:
    """The DSH home's history index, brought up to date (only what the logs appended since the last look is read)."""
    index = HistoryIndex(dsh_home(args.dsh_home))
    report = index.refresh()
    if report.corrupt_frames:
        print(f"knit-desktop: {report.corrupt_frames} corrupt frame(s) skipped while indexing", file=sys.stderr)
    return index


def cmd_recall(args: argparse.Namespace) -> int:
    if getattr(args, "all", False):
        args.scope = "all"
    index = open_index(args)
    try:
        known = index.sessions()
        if args.detail:
            return _detail(args, index, known)
        if not args.query or not args.query.strip():
            raise UsageError("recall needs a QUERY (or --detail --session ID --seq N)")
        try:
            scoped = scope_sessions(known, args.scope, args.session)
        except ScopeError as exc:
            raise UsageError(str(exc)) from None
        results = Recall(index).recall(args.query, scoped, args.limit or DEFAULT_SESSIONS)
        payload = browse_payload(args.query, args.scope, results)
        if args.json:
            print_json(payload)
            return EXIT_OK
        if not payload["sessions"]:
            say(f"Nothing in {args.scope} scope matches {args.query!r}.")
        for session in payload["sessions"]:
            say(f"{session['title'] or '(untitled)'} — {session['id']} — {session['cwd'] or '(no folder)'}")
            for event in session["events"]:
                say(f"  [{event['start_seq']}..{event['end_seq']}] ({event['matched_by']})")
                for snippet in event["snippets"]:
                    say(f"    {snippet['seq']} {snippet['role']}: {snippet['text']}")
        return EXIT_OK
    finally:
        index.close()


def _detail(args: argparse.Namespace, index: HistoryIndex, known: dict) -> int:
    if not args.session or args.seq is None:
        raise UsageError("--detail needs --session ID and --seq N")
    session = find_indexed(known, args.session)
    if session is None:
        raise UsageError(f"no DSH session {args.session!r} (or the prefix names several)")
    payload = detail_payload(index, session, args.seq, args.window)
    if args.json:
        print_json(payload)
        return EXIT_OK
    say(f"{session.title or '(untitled)'} — {session.id} — {session.cwd or '(no folder)'}")
    for message in payload["messages"]:
        mark = " [compacted]" if message.get("compacted") else ""
        say(f"[{message['seq']}] {message['role']}{mark}:")
        for line in message["text"].splitlines():
            say(f"    {line}")
    return EXIT_OK
