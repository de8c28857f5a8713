"""The `knit-desktop` command. Exit codes: 0 success, 2 bad arguments or unreadable input, 3 no such workspace."""

from __future__ import annotations

import argparse
import contextlib
import gc
import json
import os
import sqlite3
import sys
import time
from collections import Counter
from collections.abc import Sequence

from . import __version__
from .core.dsh.conversation import (
    MAX_MESSAGES_BYTES,
    Message,
    MessagesFormatError,
    load_messages,
    messages_from_json,
)
from .core.dsh.sessions import SessionLog, active_session, discover, dsh_home, find_session, sessions_root
from .core.index.boundary import UnsafeWorkspace, check_workspace
from .core.output.payloads import context_payload, peek_rows, rank_payload
from .core.output.render import render_context, render_rank
from .core.text.timefmt import relative_time_en
from .core.text.tokens import escape_controls
from .core.workspace import RankInput, Workspace, WorkspaceNotFound, has_persistent_index
from .demo import prepare_demo_workspace
from .resources import demo_conversation

EXIT_OK = 0
EXIT_USAGE = 2
EXIT_NO_WORKSPACE = 3
SUBCOMMANDS = ("gui", "rank", "context", "index", "sessions", "conversation", "mcp", "peek", "selftest", "propose",
               "memory")


class UsageError(Exception):
    """Bad arguments or unreadable input: one line on stderr, exit 2."""


class _Parser(argparse.ArgumentParser):
    def error(self, message: str):  # one clear line instead of a usage dump
        raise UsageError(message)


def _positive_int(value: str) -> int:
    try:
        number = int(value)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a positive whole number, got {value[:40]!r}") from None
    if number < 1:
        raise argparse.ArgumentTypeError(f"expected a positive whole number, got {value[:40]!r}")
    return number


def _epoch_ms(value: str) -> int:
    try:
        return int(value)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected milliseconds since the epoch, got {value[:40]!r}") from None


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="knit-desktop", description="Documents ranked by what your DSH conversation is about.")
    parser.add_argument("--version", action="version", version=f"knit-desktop {__version__}")
    sub = parser.add_subparsers(dest="command", parser_class=_Parser)

    def workspace_args(p: argparse.ArgumentParser) -> None:
        p.add_argument("--workspace", metavar="DIR", help="the project folder to rank")
        p.add_argument("--demo", action="store_true", help="use the bundled demo workspace and conversation")
        p.add_argument("--dsh-home", metavar="DIR", help="DSH's home directory (default: $DSH_HOME or ~/.dsh)")
        allow_large_arg(p)

    def allow_large_arg(p: argparse.ArgumentParser) -> None:
        p.add_argument("--allow-large-workspace", action="store_true",
                       help="accept /, your home folder or a system folder as the workspace")

    def input_args(p: argparse.ArgumentParser) -> None:
        group = p.add_mutually_exclusive_group()
        group.add_argument("--query", metavar="TEXT", help="rank by this text instead of a conversation")
        group.add_argument("--messages", metavar="FILE", help="JSON array of {role, text}, oldest first ('-' = stdin)")
        group.add_argument("--session", metavar="ID|auto", help="rank by a DSH session's conversation (auto: the active one)")
        p.add_argument("--now", type=_epoch_ms, metavar="EPOCH_MS", help="pin the clock (for reproducible results)")
        p.add_argument("--json", action="store_true", help="print JSON")

    gui = sub.add_parser("gui", help="open the window (the default)")
    workspace_args(gui)
    gui.add_argument("--messages", metavar="FILE")
    gui.add_argument("--screenshot", metavar="FILE")

    rank = sub.add_parser("rank", help="print the workspace's documents in rank order")
    workspace_args(rank)
    input_args(rank)
    rank.add_argument("--kind", choices=("doc", "media", "all"), default="doc")
    rank.add_argument("--sort", choices=("relevance", "time"), default="relevance")
    rank.add_argument("--limit", type=_positive_int, metavar="N")

    context = sub.add_parser("context", help="print the context pack (primary / supporting / related)")
    workspace_args(context)
    input_args(context)
    context.add_argument("--limit", type=_positive_int, metavar="N", default=5, help="recent files in time mode")

    sessions = sub.add_parser("sessions", help="list DSH sessions and which one is active")
    sessions.add_argument("--dsh-home", metavar="DIR")
    sessions.add_argument("--json", action="store_true")

    conversation = sub.add_parser("conversation", help="print what Knit reads from a DSH session")
    conversation.add_argument("--dsh-home", metavar="DIR")
    conversation.add_argument("--session", metavar="ID|auto", default="auto")
    conversation.add_argument("--json", action="store_true")

    peek = sub.add_parser("peek", help="print the top 5 documents for the active DSH session (the tray's peek)")
    peek.add_argument("--workspace", metavar="DIR")
    peek.add_argument("--dsh-home", metavar="DIR")
    peek.add_argument("--session", metavar="ID|auto", default="auto")
    peek.add_argument("--now", type=int, metavar="EPOCH_MS")
    peek.add_argument("--json", action="store_true")
    allow_large_arg(peek)

    mcp = sub.add_parser("mcp", help="serve the agent tools (knit_docs) over MCP on stdin/stdout")
    mcp.add_argument("--workspace", metavar="DIR", help="always answer for this folder (default: the active session's)")
    mcp.add_argument("--dsh-home", metavar="DIR", help="DSH's home (DSH strips DSH_* variables from MCP servers)")
    mcp.add_argument(
        "--print-config",
        choices=("dsh", "json", "shell"),
        metavar="dsh|json|shell",
        help="print how to register this server (the DSH cordis row, an mcpServers entry, or the command) and exit",
    )

    memory_help = "the memory directory (default: the one chosen in Settings, else <DSH home>/memory)"
    mcp.add_argument("--memory-dir", metavar="DIR", help=memory_help)
    allow_large_arg(mcp)

    def memory_args(p: argparse.ArgumentParser) -> None:
        p.add_argument("--memory-dir", metavar="DIR", help=memory_help)
        p.add_argument("--dsh-home", metavar="DIR")

    propose = sub.add_parser("propose", help="queue a memory for confirmation on a sticky note")
    propose.add_argument("text", metavar="content", help="the memory, one short self-contained statement")
    propose.add_argument("--target", metavar="LIB", default="", help="the memory file (e.g. preferences.md)")
    propose.add_argument("--chapter", metavar="H", default="", help="the ## chapter to append to")
    propose.add_argument("--kind", default="note", choices=("preference", "project", "environment", "fact", "todo",
                                                            "note"))
    propose.add_argument("--reason", default="", help="why it is worth keeping (shown on the note)")
    memory_args(propose)
    memory = sub.add_parser("memory", help="search the memory files (with a query) or show their structure")
    memory.add_argument("query", nargs="?", default="")
    memory.add_argument("--hits", type=_positive_int, default=3)
    memory.add_argument("--budget", type=_positive_int, default=700, help="characters of answer (default 700)")
    memory.add_argument("--json", action="store_true")
    memory_args(memory)

    sub.add_parser("selftest", help="check that videos, PDFs and both languages work in this installation (JSON)")
    index = sub.add_parser("index", help="index a workspace and report what was indexed, skipped or failed")
    workspace_args(index)
    index.add_argument("--json", action="store_true")
    return parser


def _read_messages(source: str) -> list[Message]:
    try:
        if source == "-":
            return messages_from_json(sys.stdin.read(MAX_MESSAGES_BYTES + 1))
        return load_messages(source)
    except MessagesFormatError as exc:
        raise UsageError(f"--messages {source}: {exc}") from None
    except OSError as exc:
        raise UsageError(f"--messages {source}: cannot read it ({exc.strerror or exc})") from None


def _session_log(args: argparse.Namespace) -> SessionLog:
    logs = discover(dsh_home(args.dsh_home))
    log = find_session(logs, args.session)
    if log is None:
        wanted = "active DSH session" if args.session in (None, "auto") else f"DSH session {args.session!r}"
        raise UsageError(f"found no {wanted} under {sessions_root(dsh_home(args.dsh_home))}")
    log.update()
    if log.header is None:
        raise UsageError(f"DSH session log {log.path} is unreadable: {log.problem or 'no header'}")
    return log


def _rank_input(args: argparse.Namespace) -> RankInput:
    if getattr(args, "session", None):
        log = _session_log(args)
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
        return RankInput.from_messages(_read_messages(args.messages))
    if args.demo:
        return RankInput.from_messages(_read_messages(str(demo_conversation())))
    return RankInput([])


def _workspace_root(args: argparse.Namespace) -> str:
    root = args.workspace or (str(prepare_demo_workspace(_now(args))) if args.demo else None)
    if root is None:
        raise UsageError("--workspace DIR is required (or --demo)")
    _check_workspace(root, args)
    return root


def _check_workspace(root: str, args: argparse.Namespace) -> None:
    """The core rule for what may be a workspace (exit 2 with one line); a missing folder is left to exit 3."""
    if os.path.isdir(root):
        check_workspace(os.path.abspath(root), getattr(args, "allow_large_workspace", False))


def _open_workspace(args: argparse.Namespace) -> Workspace:
    """The persistent index when `knit-desktop index` (or the app) has built one, else an in-memory scan."""
    root = _workspace_root(args)
    if has_persistent_index(root):
        return _say_notice(Workspace.open_persistent(root))
    return Workspace.open(root)


def _say_notice(workspace: Workspace) -> Workspace:
    """One line on stderr about the index itself (set aside and rebuilt, read-only); stdout stays the answer."""
    if workspace.notice:
        print(f"knit-desktop: {workspace.notice}", file=sys.stderr)
    return workspace


class _ProgressBar:
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


def _now(args: argparse.Namespace) -> int:
    return args.now if getattr(args, "now", None) is not None else int(time.time() * 1000)


def _say(text: str = "") -> None:
    """One piece of human-readable output: control characters that came from files (titles, snippets, paths) are
    escaped so they cannot drive the terminal (JSON output is escaped by json itself)."""
    print(escape_controls(text))


def _print_json(data: object) -> None:
    sys.stdout.write(json.dumps(data, ensure_ascii=False, indent=2) + "\n")


def cmd_rank(args: argparse.Namespace) -> int:
    request = _rank_input(args)
    workspace = _open_workspace(args)
    now = _now(args)
    ranking = workspace.rank(request, now_ms=now, kind=args.kind, sort=args.sort)
    if args.json:
        _print_json(rank_payload(ranking, args.limit))
    else:
        _say(render_rank(ranking, now, args.limit))
        _report_problems(workspace)
    return EXIT_OK


def cmd_context(args: argparse.Namespace) -> int:
    request = _rank_input(args)
    workspace = _open_workspace(args)
    pack = workspace.context(request, now_ms=_now(args), recent_limit=args.limit)
    if args.json:
        _print_json(context_payload(pack))
    else:
        _say(render_context(pack))
        _report_problems(workspace)
    return EXIT_OK


def cmd_index(args: argparse.Namespace) -> int:
    bar = _ProgressBar()
    started = time.monotonic()
    workspace = Workspace.open_persistent(_workspace_root(args), bar)
    bar.finish()
    _say_notice(workspace)
    elapsed = time.monotonic() - started
    counts = workspace.status_counts()
    if args.json:
        files = [
            {"rel": s.rel, "state": s.state, "reason": s.reason}
            for s in sorted(workspace.statuses.values(), key=lambda s: s.rel)
        ]
        _print_json({"root": workspace.root, "counts": counts, "files": files})
        return EXIT_OK
    report = workspace.last_refresh
    _say(f"{workspace.root}: {counts['indexed']} indexed, {counts['skipped']} skipped, {counts['failed']} failed")
    _say(
        f"this run: {report.added} new, {report.changed} changed, {report.touched} touched, {report.removed} removed,"
        f" {report.unchanged} unchanged in {elapsed:.1f} s"
    )
    reasons = Counter((s.state, s.reason) for s in workspace.problems())
    for (state, reason), n in reasons.most_common(5):
        _say(f"  {n:>5} {state}: {reason}")
    problems = workspace.problems()
    for status in problems[:20]:
        _say(f"  {status.state:8} {status.rel}: {status.reason}")
    if len(problems) > 20:
        _say(f"  … and {len(problems) - 20} more (--json lists every file)")
    return EXIT_OK


def cmd_gui(args: argparse.Namespace) -> int:
    if args.workspace and os.path.isdir(args.workspace):
        _check_workspace(args.workspace, args)  # before Qt loads: a refusal is one line, no window
    from .ui import app  # Qt widgets load only for the window

    messages = None
    if args.messages:
        messages = _read_messages(args.messages)
    workspace = args.workspace
    if args.demo:
        workspace = workspace or str(prepare_demo_workspace())
        if messages is None:
            messages = _read_messages(str(demo_conversation()))
    if workspace and not os.path.isdir(workspace):
        raise WorkspaceNotFound(workspace)
    name = "demo" if args.demo and not args.messages else (args.messages or "")
    return app.run(workspace=workspace, dsh_home=args.dsh_home, messages=messages, screenshot=args.screenshot,
                   persistent=not args.demo, conversation_name=name)


def cmd_peek(args: argparse.Namespace) -> int:
    """The tray's top 5 for the active session, for systems without a tray."""
    args.session = args.session or "auto"
    args.query = args.messages = None
    args.demo = False
    request = _rank_input(args)
    workspace = _open_workspace(args)
    now = _now(args)
    pack = workspace.context(request, now_ms=now)
    ranking = workspace.rank(request, now_ms=now)
    payload = {"rank": rank_payload(ranking), "context": context_payload(pack)}
    rows = peek_rows(payload)
    if args.json:
        _print_json([{k: r[k] for k in ("rel", "title", "mtime_ms")} for r in rows])
        return EXIT_OK
    for i, r in enumerate(rows, start=1):
        _say(f"{i}. {r['title']} — {r['rel']}  ({relative_time_en(r['mtime_ms'], now)})")
    if not rows:
        _say("No documents in this workspace yet.")
    return EXIT_OK


def cmd_selftest(args: argparse.Namespace) -> int:
    from .selftest import main as selftest_main  # Qt loads only here

    return selftest_main()


def _report_problems(workspace: Workspace) -> None:
    problems = workspace.problems()
    if problems:
        print(f"\n{len(problems)} file(s) not indexed (run `knit-desktop index` for the list).", file=sys.stderr)


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
        _print_json({"root": str(sessions_root(dsh_home(args.dsh_home))), "sessions": [_session_summary(x, active) for x in ordered]})
        return EXIT_OK
    if not ordered:
        _say(f"No DSH sessions under {sessions_root(dsh_home(args.dsh_home))}.")
    for log in ordered:
        mark = "*" if log is active else " "
        title = log.title or "(untitled)"
        note = f"  [unreadable: {log.problem}]" if log.problem and log.header is None else ""
        _say(f"{mark} {log.session_id}  {title}  {log.cwd}{note}")
    return EXIT_OK


def cmd_conversation(args: argparse.Namespace) -> int:
    log = _session_log(args)
    payload = {
        "session": {"id": log.session_id, "cwd": log.cwd, "title": log.title, "updated_ms": log.updated_ms},
        "messages": [{"role": m.role, "text": m.text, "seq": m.seq} for m in log.messages],
        "reads": [{"path": r.path, "ok": r.ok} for r in log.reads],
    }
    if log.problem:  # frames skipped as corrupt or too large: said once, outside the contract's stdout
        print(f"knit-desktop: {log.session_id}: {log.problem}", file=sys.stderr)
    if args.json:
        _print_json(payload)
        return EXIT_OK
    _say(f"{log.title or '(untitled)'} — {log.session_id} — {log.cwd}")
    for m in log.messages:
        first = m.text.strip().splitlines()[0] if m.text.strip() else ""
        _say(f"  [{m.seq}] {m.role}: {first[:100]}")
    _say(f"{len(log.messages)} messages, {len(log.reads)} reads")
    return EXIT_OK


def cmd_mcp(args: argparse.Namespace) -> int:
    from . import mcp_server  # the SDK is only imported by the command that needs it

    workspace = os.path.realpath(args.workspace) if args.workspace else None
    if workspace is not None and not os.path.isdir(workspace):
        raise WorkspaceNotFound(args.workspace)
    if workspace is not None:
        _check_workspace(workspace, args)
    if args.print_config:
        sys.stdout.write(mcp_server.print_config(args.print_config, workspace, args.dsh_home))
        return EXIT_OK
    return mcp_server.serve(workspace, args.dsh_home, args.memory_dir, args.allow_large_workspace)


def _memory_store(args: argparse.Namespace):
    from .core.memory.store import MemoryStore

    return MemoryStore(args.memory_dir, args.dsh_home)


def cmd_propose(args: argparse.Namespace) -> int:
    store = _memory_store(args)
    try:
        proposal, new = store.propose(args.text, args.target, args.chapter, args.kind, source="user",
                                      reason=args.reason)
    except ValueError as exc:
        raise UsageError(str(exc)) from None
    if store.queue.warning:
        print(store.queue.warning, file=sys.stderr)
    where = f" → {proposal.target}" + (f" › {proposal.chapter}" if proposal.chapter else "") if proposal.target else ""
    _say(("Queued for confirmation" if new else "Already waiting for confirmation") + f"{where}: {proposal.text}")
    return EXIT_OK


def cmd_memory(args: argparse.Namespace) -> int:
    store = _memory_store(args)
    libraries = store.libraries()
    if args.query:
        hits, text = store.search(args.query, args.hits, args.budget)
        if args.json:
            from .core.memory.search import hits_payload

            _print_json(hits_payload(hits, text, os.path.realpath(store.memory_dir), store.skipped))
        else:
            _say(text or f"No memory matches “{args.query}”.")
            for name, reason in sorted(store.skipped.items()):
                print(escape_controls(f"{name}: {reason}"), file=sys.stderr)
        return EXIT_OK
    rows = sorted(libraries, key=lambda lib: -lib.tokens)
    if args.json:
        _print_json([{"file": os.path.basename(lib.path), "name": lib.name, "tags": lib.tags, "tokens": lib.tokens,
                      "lines": [lib.start, lib.end], "chapters": [
                          {"title": c.title, "lines": [c.start, c.end], "tokens": c.tokens,
                           "entries": len(c.entries), "tags": c.tags} for c in lib.chapters if not c.implicit]}
                     for lib in rows])
        return EXIT_OK
    for name, reason in sorted(store.skipped.items()):
        print(escape_controls(f"{name}: {reason}"), file=sys.stderr)
    if not rows:
        _say(f"No memory files in {store.memory_dir} yet.")
    for lib in rows:
        tags = f"  [{', '.join(lib.tags)}]" if lib.tags else ""
        _say(f"{lib.name} — {os.path.basename(lib.path)}  ~{lib.tokens} tok{tags}")
        for c in lib.chapters:
            if not c.implicit:
                ctags = f"  [{', '.join(c.tags)}]" if c.tags else ""
                _say(f"  {c.start}-{c.end}  {c.title}  ~{c.tokens} tok, {len(c.entries)} entries{ctags}")
    return EXIT_OK


COMMANDS = {
    "gui": cmd_gui,
    "rank": cmd_rank,
    "context": cmd_context,
    "index": cmd_index,
    "sessions": cmd_sessions,
    "conversation": cmd_conversation,
    "mcp": cmd_mcp,
    "peek": cmd_peek,
    "selftest": cmd_selftest,
    "propose": cmd_propose,
    "memory": cmd_memory,
}


ONE_SHOT = frozenset({"rank", "context", "peek", "sessions", "conversation"})


def _exit_now(status: int) -> None:
    """End a one-shot command without tearing the interpreter down object by object: freeing a loaded
    20,000-document index takes ~70 ms and nothing is left to save (writes are committed as they happen)."""
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(OSError, ValueError):  # a reader that went away (`| head`), a closed stream
            stream.flush()
    os._exit(status)


def main(argv: Sequence[str] | None = None) -> int:
    as_program = argv is None
    argv = list(sys.argv[1:] if argv is None else argv)
    if not argv or (argv[0] not in SUBCOMMANDS and argv[0] not in ("-h", "--help", "--version")):
        argv.insert(0, "gui")
    try:
        args = build_parser().parse_args(argv)
        if args.command in ("gui", "selftest"):  # before Qt loads: one line naming the packages, no traceback
            from .core.system_libraries import preflight

            if not preflight():
                return EXIT_USAGE
        if args.command in ONE_SHOT:
            # These load an index, answer and exit: the cyclic collector would only walk the freshly loaded
            # index again and again (about 50 ms of a 20,000-document `rank`); the process ends before it matters.
            gc.disable()
            status = COMMANDS[args.command](args)
            if as_program:
                _exit_now(status)
            return status
        return COMMANDS[args.command](args)
    except WorkspaceNotFound as exc:
        _error(f"workspace not found: {exc}")
        return EXIT_NO_WORKSPACE
    except BaseException as exc:  # noqa: BLE001 - the one place where anything left becomes one line
        message = _failure_line(exc)
        if message is None:
            raise
        _error(message)
        return EXIT_USAGE


def _error(message: str) -> None:
    line = " ".join(escape_controls(message).split())
    with contextlib.suppress(OSError, ValueError):
        print(f"knit-desktop: error: {line[:1000]}", file=sys.stderr)


def _failure_line(exc: BaseException) -> str | None:
    """What an exception that reached the command line says in one line (exit 2), or None to let it through
    (Ctrl-C, SystemExit; any exception when KNIT_DESKTOP_DEBUG is set, for its traceback)."""
    if isinstance(exc, (UsageError, UnsafeWorkspace)):
        return str(exc)
    if isinstance(exc, (KeyboardInterrupt, SystemExit, GeneratorExit)) or os.environ.get("KNIT_DESKTOP_DEBUG"):
        return None
    if isinstance(exc, RecursionError):
        return "the input is nested too deeply"
    if isinstance(exc, MemoryError):
        return "not enough memory for this input"
    if isinstance(exc, OSError):
        where = f" {exc.filename}" if exc.filename else ""
        return f"cannot use{where}: {exc.strerror or exc}"
    if isinstance(exc, sqlite3.Error):
        return f"the index database cannot be used: {exc} (is Knit's data directory writable?)"
    if isinstance(exc, ValueError):
        return f"invalid input: {exc}"
    return f"unexpected {exc.__class__.__name__}: {exc} (set KNIT_DESKTOP_DEBUG=1 for the traceback)"


if __name__ == "__main__":
    sys.exit(main())
