"""The `knit-desktop` command. Exit codes: 0 success, 2 bad arguments or unreadable input, 3 no such workspace.

One module per command group (`documents`, `sessions`, `memory`, `app`), the grammar in `parser`, shared helpers in
`common`. A command's module is imported only when it runs, so `--version` loads neither the engine nor Qt.
"""

from __future__ import annotations

import argparse
import contextlib
import gc
import importlib
import os
import sqlite3
import sys
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

from .. import use_builtin_hashes
from ..core.index.boundary import UnsafeWorkspace, WorkspaceNotFound, check_workspace
from .parser import EXIT_BROKEN_PIPE, EXIT_NO_WORKSPACE, EXIT_USAGE, UsageError, build_parser

if TYPE_CHECKING:
    from ..core.index.scan import BackgroundScan

Command = Callable[..., int]


def _lazy(module: str, name: str) -> Command:
    def run(args) -> int:
        return getattr(importlib.import_module(f"{__name__}.{module}"), name)(args)

    run.__name__ = name
    return run


COMMANDS: dict[str, Command] = {
    "gui": _lazy("app", "cmd_gui"),
    "rank": _lazy("documents", "cmd_rank"),
    "context": _lazy("documents", "cmd_context"),
    "index": _lazy("documents", "cmd_index"),
    "sessions": _lazy("sessions", "cmd_sessions"),
    "conversation": _lazy("sessions", "cmd_conversation"),
    "mcp": _lazy("app", "cmd_mcp"),
    "peek": _lazy("documents", "cmd_peek"),
    "selftest": _lazy("app", "cmd_selftest"),
    "propose": _lazy("memory", "cmd_propose"),
    "memory": _lazy("memory", "cmd_memory"),
    "recall": _lazy("recall", "cmd_recall"),
    "history": _lazy("recall", "cmd_recall"),
    "library": _lazy("library", "cmd_library"),
    "ask": _lazy("library", "cmd_ask"),
    "stats": _lazy("library", "cmd_stats"),
}
# What a command's process sets up before the command's module (and what it imports) loads.
PREPARE: dict[str, Callable[[], None]] = {"gui": use_builtin_hashes}
SUBCOMMANDS = tuple(COMMANDS)
ONE_SHOT = frozenset({"rank", "context", "peek", "sessions", "conversation", "recall", "history", "ask", "stats"})


def _exit_now(status: int) -> None:
    """End a one-shot command without tearing the interpreter down object by object: freeing a loaded
    20,000-document index takes ~70 ms and nothing is left to save (writes are committed as they happen)."""
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except BrokenPipeError:  # a reader that went away (`| head`): the status `main` gives it too
            status = EXIT_BROKEN_PIPE if stream is sys.stdout else status
        except (OSError, ValueError):  # a closed stream
            pass
    os._exit(status)


def main(argv: Sequence[str] | None = None) -> int:
    as_program = argv is None
    argv = list(sys.argv[1:] if argv is None else argv)
    if not argv or (argv[0] not in SUBCOMMANDS and argv[0] not in ("-h", "--help", "--version")):
        argv.insert(0, "gui")
    try:
        args = build_parser(argv[0] if argv[0] in SUBCOMMANDS else None).parse_args(argv)
        prepare = PREPARE.get(args.command)
        if prepare is not None:
            prepare()
        if args.command in ("gui", "selftest"):  # before Qt loads: one line naming the packages, no traceback
            from ..core.system_libraries import preflight

            if not preflight():
                return EXIT_USAGE
        if args.command in ONE_SHOT:
            # These load an index, answer and exit: the cyclic collector would only walk the freshly loaded
            # index again and again (about 50 ms of a 20,000-document `rank`); the process ends before it matters.
            gc.disable()
            scan = _walk_ahead(args) if as_program else None
            try:
                status = COMMANDS[args.command](args)
            finally:
                if scan is not None:
                    scan.cancel()  # (a no-op once the command took its walk)
            if as_program:
                _exit_now(status)
            return status
        return COMMANDS[args.command](args)
    except WorkspaceNotFound as exc:
        _error(f"workspace not found: {exc}")
        return EXIT_NO_WORKSPACE
    except BrokenPipeError as exc:
        if not _stdout_reader_gone():  # another pipe of the command's own: a failure like any other
            _error(_failure_line(exc) or str(exc))
            return EXIT_USAGE
        # The reader of the output went away (`knit-desktop rank … | head`): it has what it wanted, so no error
        # line. Output still buffered goes nowhere (else the interpreter's last flush fails again), and the status
        # is the one a shell reports for a program ended by SIGPIPE, as `cat` or `grep` would end.
        with contextlib.suppress(OSError, ValueError):
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return EXIT_BROKEN_PIPE
    except BaseException as exc:  # noqa: BLE001 - the one place where anything left becomes one line
        message = _failure_line(exc)
        if message is None:
            raise
        _error(message)
        return EXIT_USAGE


def _stdout_reader_gone() -> bool:
    """Whether standard output is a pipe whose reader has closed it (poll says POLLERR on the writing end)."""
    try:
        import select

        poller = select.poll()
        poller.register(sys.stdout.fileno(), select.POLLOUT)
        return any(events & select.POLLERR for _, events in poller.poll(0))
    except (AttributeError, OSError, ValueError):  # (no poll on this system, no stdout): take it as the reader's
        return True


def _walk_ahead(args: argparse.Namespace) -> BackgroundScan | None:
    """For `rank` and `context` on a workspace folder: its walk, started in another process before the command
    imports the engine, so the two overlap (the command's refresh takes it; see BackgroundScan). Only a folder
    the command will accept as a workspace is walked, and not one whose index a window keeps current (the
    command trusts that index and walks nothing)."""
    if args.command not in ("rank", "context") or args.scope != "workspace" or not args.workspace:
        return None
    root = os.path.realpath(os.path.expanduser(args.workspace))
    try:
        if not os.path.isdir(root):
            return None
        check_workspace(os.path.abspath(args.workspace), args.allow_large_workspace)
    except (UnsafeWorkspace, OSError, ValueError):
        return None  # (the command says why)
    from ..core.index.scan import BackgroundScan
    from ..core.index.watch_lease import index_watched_elsewhere
    from ..core.paths import index_db_path

    if index_watched_elsewhere(index_db_path(root)):
        return None

    args.background_scan = scan = BackgroundScan.start(root)
    return scan


def _error(message: str) -> None:
    # Imported here: the tokeniser compiles its CJK patterns on import (4 ms), which every command would pay
    # before its walk ahead starts, for a line only a failure prints.
    from ..core.text.tokens import escape_controls

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
