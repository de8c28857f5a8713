"""`rank`, `context`, `peek` and `index`: the workspace's documents, ranked or indexed."""

from __future__ import annotations

import argparse
import time
from collections import Counter

from ..core.heap import holding_full_collections
from ..core.index.pins import Pins
from ..core.output.payloads import context_payload, rank_payload
from ..core.output.render import render_context, render_rank
from ..core.text.timefmt import relative_time_en
from ..core.workspace import Workspace
from .common import (
    ProgressBar,
    now_ms,
    open_workspace,
    print_json,
    rank_input,
    report_problems,
    say,
    say_notice,
    workspace_root,
)
from .parser import EXIT_OK


def cmd_rank(args: argparse.Namespace) -> int:
    if args.scope != "workspace":
        from .library import cmd_rank_scoped

        return cmd_rank_scoped(args)
    request = rank_input(args)
    workspace = open_workspace(args)
    now = now_ms(args)
    ranking = workspace.rank(request, now_ms=now, kind=args.kind, sort=args.sort)
    pins = None if args.ignore_pins else Pins.load(workspace.root)
    if args.json:
        print_json(rank_payload(ranking, args.limit, pins))
    else:
        say(render_rank(ranking, now, args.limit, pins))
        report_problems(workspace)
    return EXIT_OK


def cmd_context(args: argparse.Namespace) -> int:
    if args.scope != "workspace":
        from .library import cmd_context_scoped

        return cmd_context_scoped(args)
    request = rank_input(args)
    workspace = open_workspace(args)
    pins = None if args.ignore_pins else Pins.load(workspace.root)
    pack = workspace.context(request, now_ms=now_ms(args), recent_limit=args.limit, pins=pins)
    if args.json:
        print_json(context_payload(pack))
    else:
        say(render_context(pack))
        report_problems(workspace)
    return EXIT_OK


def cmd_peek(args: argparse.Namespace) -> int:
    """The tray's top 5 for the active session, for systems without a tray."""
    args.session = args.session or "auto"
    args.query = args.messages = None
    args.demo = False
    request = rank_input(args)
    workspace = open_workspace(args)
    now = now_ms(args)
    pins = Pins.load(workspace.root)  # the tray's own rows: the user's pins lead, hidden ones are left out
    rows = workspace.view(request, now_ms=now, with_context=True, pins=pins).peek()
    if args.json:
        print_json([{"rel": r.rel, "title": r.title, "mtime_ms": r.mtime_ms} for r in rows])
        return EXIT_OK
    for i, r in enumerate(rows, start=1):
        say(f"{i}. {r.title} — {r.rel}  ({relative_time_en(r.mtime_ms, now)})")
    if not rows:
        say("No documents in this workspace yet.")
    return EXIT_OK


def cmd_index(args: argparse.Namespace) -> int:
    bar = ProgressBar()
    started = time.monotonic()
    with holding_full_collections():
        workspace = Workspace.open_persistent(workspace_root(args), bar)
    bar.finish()
    say_notice(workspace)
    elapsed = time.monotonic() - started
    counts = workspace.status_counts()
    if args.json:
        files = [
            {"rel": s.rel, "state": s.state, "reason": s.reason}
            for s in sorted(workspace.statuses.values(), key=lambda s: s.rel)
        ]
        print_json({"root": workspace.root, "counts": counts, "files": files})
        return EXIT_OK
    report = workspace.last_refresh
    say(f"{workspace.root}: {counts['indexed']} indexed, {counts['skipped']} skipped, {counts['failed']} failed")
    say(
        f"this run: {report.added} new, {report.changed} changed, {report.touched} touched, {report.removed} removed,"
        f" {report.unchanged} unchanged in {elapsed:.1f} s"
    )
    reasons = Counter((s.state, s.reason) for s in workspace.problems())
    for (state, reason), n in reasons.most_common(5):
        say(f"  {n:>5} {state}: {reason}")
    problems = workspace.problems()
    for status in problems[:20]:
        say(f"  {status.state:8} {status.rel}: {status.reason}")
    if len(problems) > 20:
        say(f"  … and {len(problems) - 20} more (--json lists every file)")
    return EXIT_OK
