"""What the commands share: reading the conversation they rank by, opening the workspace, printing safely."""

from __future__ import annotations

import argparse
import os
import sys
import time
from typing import TYPE_CHECKING

from ..core.index.boundary import UnsafeWorkspace, check_workspace
from ..core.text.tokens import escape_controls
from ..core.workspace import RankInput, Workspace, has_persistent_index
from .parser import UsageError

if TYPE_CHECKING:
    from ..core.dsh.conversation import Message
    from ..core.dsh.sessions import SessionLog


def read_messages(source: str) -> list[Message]:
    # Imported here: a query needs no conversation reader.
    from ..core.dsh.conversation import (
        MAX_MESSAGES_BYTES,
        MessagesFormatError,
        load_messages,
        messages_from_json,
    )

    try:
        if source == "-":
            return messages_from_json(sys.stdin.read(MAX_MESSAGES_BYTES + 1))
        return load_messages(source)
    except MessagesFormatError as exc:
        raise UsageError(f"--messages {source}: {exc}") from None
    except OSError as exc:
        raise UsageError(f"--messages {source}: cannot read it ({exc.strerror or exc})") from None


def session_log(args: argparse.Namespace) -> SessionLog:
    # Imported here: only a command reading a DSH session needs the log reader (and the settings it loads).
    from ..core.dsh.sessions import discover, dsh_home, find_session, sessions_root

    logs = discover(dsh_home(args.dsh_home))
    log = find_session(logs, args.session)
    if log is None:
        wanted = "active DSH session" if args.session in (None, "auto") else f"DSH session {args.session!r}"
        raise UsageError(f"found no {wanted} under {sessions_root(dsh_home(args.dsh_home))}")
    log.update()
    if log.header is None:
        raise UsageError(f"DSH session log {log.path} is unreadable: {log.problem or 'no header'}")
    return log


def rank_input(args: argparse.Namespace) -> RankInput:
    if getattr(args, "session", None):
        log = session_log(args)
        if not args.workspace:
            if not log.cwd:
                raise UsageError(f"DSH session {log.session_id} has no working directory; pass --workspace")
            try:
                check_workspace(log.cwd, getattr(args, "allow_large_workspace", False))
            except UnsafeWorkspace as exc:
                raise UsageError(f"DSH session {log.session_id}: {exc}") from None
            args.workspace = log.cwd
        return RankInput.from_messages(log.messages)
    if getattr(args, "query", None) is not None:
        return RankInput.from_query(args.query)
    if getattr(args, "messages", None):
        return RankInput.from_messages(read_messages(args.messages))
    if args.demo:
        from ..resources import demo_conversation

        return RankInput.from_messages(read_messages(str(demo_conversation())))
    return RankInput([])


def workspace_root(args: argparse.Namespace) -> str:
    root = args.workspace or None
    if root is None and args.demo:
        # Imported here: it loads a JSON reader that a command on a workspace does not need.
        from ..demo import prepare_demo_workspace

        root = str(prepare_demo_workspace(now_ms(args)))
    if root is None:
        raise UsageError("--workspace DIR is required (or --demo)")
    check_workspace_arg(root, args)
    return root


def check_workspace_arg(root: str, args: argparse.Namespace) -> None:
    """The core rule for what may be a workspace (exit 2 with one line); a missing folder is left to exit 3."""
    if os.path.isdir(root):
        check_workspace(os.path.abspath(root), getattr(args, "allow_large_workspace", False))


def open_workspace(args: argparse.Namespace) -> Workspace:
    """The persistent index when `knit-desktop index` (or the app) has built one, else an in-memory scan. While
    the window keeps that index current from its watcher, the workspace is not walked again."""
    root = workspace_root(args)
    scan = getattr(args, "background_scan", None)  # the walk main() started before the engine was imported
    if has_persistent_index(root):
        return say_notice(Workspace.open_persistent(root, trust_watcher=True, scan=scan))
    return Workspace.open(root, scan=scan)


def say_notice(workspace: Workspace) -> Workspace:
    """One line on stderr about the index itself (set aside and rebuilt, read-only); stdout stays the answer."""
    if workspace.notice:
        print(f"knit-desktop: {workspace.notice}", file=sys.stderr)
    return workspace


class ProgressBar:
    """A one-line progress bar on stderr, drawn only when stderr is a terminal."""

    def __init__(self) -> None:
        self.enabled = sys.stderr.isatty()
        self.start = time.monotonic()
        self.last = 0.0

    def __call__(self, done: int, total: int, rel: str) -> None:
        now = time.monotonic()
        if not self.enabled or (now - self.last < 0.1 and done < total):
            return
        self.last = now
        width = 24
        filled = int(width * done / max(total, 1))
        rate = done / max(now - self.start, 1e-6)
        eta = (total - done) / rate if rate > 0 else 0
        name = escape_controls(rel if len(rel) <= 40 else "…" + rel[-39:])
        sys.stderr.write(f"\r[{'#' * filled}{'.' * (width - filled)}] {done}/{total} ETA {eta:4.0f}s {name:<40}")
        sys.stderr.flush()

    def finish(self) -> None:
        if self.enabled:
            sys.stderr.write("\r" + " " * 100 + "\r")
            sys.stderr.flush()


def now_ms(args: argparse.Namespace) -> int:
    return args.now if getattr(args, "now", None) is not None else int(time.time() * 1000)


def say(text: str = "") -> None:
    """One piece of human-readable output: control characters that came from files (titles, snippets, paths) are
    escaped so they cannot drive the terminal (JSON output is escaped by json itself)."""
    print(escape_controls(text))


def print_json(data: object) -> None:
    import json  # (imported here: a command's text output needs no JSON)

    sys.stdout.write(json.dumps(data, ensure_ascii=False, indent=2) + "\n")


def report_problems(workspace: Workspace) -> None:
    problems = workspace.problems()
    if problems:
        print(f"\n{len(problems)} file(s) not indexed (run `knit-desktop index` for the list).", file=sys.stderr)
