"""The command line's grammar: every command and option, and the one-line usage error. Imports nothing heavy, so
`--version` and `--help` answer at once."""

from __future__ import annotations

import argparse

from .. import __version__
from ..core.memory.kinds import KINDS as MEMORY_KINDS

EXIT_OK = 0
EXIT_USAGE = 2
EXIT_NO_WORKSPACE = 3
EXIT_BROKEN_PIPE = 128 + 13  # what a shell reports for a program ended by SIGPIPE


class UsageError(Exception):
    """Bad arguments or unreadable input: one line on stderr, exit 2."""


class Parser(argparse.ArgumentParser):
    def error(self, message: str):  # one clear line instead of a usage dump
        raise UsageError(message)


def positive_int(value: str) -> int:
    try:
        number = int(value)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a positive whole number, got {value[:40]!r}") from None
    if number < 1:
        raise argparse.ArgumentTypeError(f"expected a positive whole number, got {value[:40]!r}")
    return number


def epoch_ms(value: str) -> int:
    try:
        return int(value)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected milliseconds since the epoch, got {value[:40]!r}") from None


SCOPES = ("workspace", "library", "all")


def scope_arg(p: argparse.ArgumentParser, default: str | None) -> None:
    p.add_argument("--scope", choices=SCOPES, default=default,
                   help="the workspace, the library folders or both" + (f" (default {default})" if default else
                                                                          " (default: all with --workspace, else library)"))


class _Unbuilt(Parser):
    """Stands in for the grammar of a command that is not the one being run: what it is given goes nowhere."""

    def add_argument(self, *args, **kwargs):
        return None

    def add_mutually_exclusive_group(self, *args, **kwargs):
        return self


def build_parser(command: str | None = None) -> argparse.ArgumentParser:
    """The whole grammar, or with `command` only that command's: building all sixteen took 13 ms, which a
    one-shot command such as `rank` paid before it could start its walk (the top level's help and every other
    command's are then not there; `main` builds the whole grammar when the first argument names no command)."""
    parser = Parser(prog="knit-desktop", description="Documents ranked by what your DSH conversation is about.")
    parser.add_argument("--version", action="version", version=f"knit-desktop {__version__}")
    subparsers = parser.add_subparsers(dest="command", parser_class=Parser)
    unbuilt = _Unbuilt(add_help=False)

    class Commands:  # (the subparsers' own add_parser, skipping the commands not asked for)
        @staticmethod
        def add_parser(name: str, help: str) -> argparse.ArgumentParser:  # noqa: A002 (argparse's own name)
            if command is not None and name != command:
                return unbuilt
            return subparsers.add_parser(name, help=help)

    sub = Commands()

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
        p.add_argument("--now", type=epoch_ms, metavar="EPOCH_MS", help="pin the clock (for reproducible results)")
        p.add_argument("--json", action="store_true", help="print JSON")

    gui = sub.add_parser("gui", help="open the window (the default)")
    gui.add_argument("path", nargs="?", metavar="FOLDER",
                     help="open this folder as the workspace (a file: the folder it is in); what a file manager "
                          "or the desktop entry passes")
    workspace_args(gui)
    gui.add_argument("--messages", metavar="FILE")
    gui.add_argument("--screenshot", metavar="FILE")

    rank = sub.add_parser("rank", help="print the workspace's documents in rank order")
    workspace_args(rank)
    input_args(rank)
    rank.add_argument("--kind", choices=("doc", "media", "all"), default="doc")
    rank.add_argument("--sort", choices=("relevance", "time"), default="relevance")
    rank.add_argument("--limit", type=positive_int, metavar="N")
    rank.add_argument("--ignore-pins", action="store_true",
                      help="rank as if nothing were pinned or hidden in the window")
    scope_arg(rank, "workspace")

    context = sub.add_parser("context", help="print the context pack (primary / supporting / related)")
    workspace_args(context)
    input_args(context)
    context.add_argument("--limit", type=positive_int, metavar="N", default=5, help="recent files in time mode")
    context.add_argument("--ignore-pins", action="store_true",
                         help="no pinned tier, and hidden documents included")
    scope_arg(context, "workspace")

    library = sub.add_parser("library", help="add, remove or list the library folders (ranked beside the workspace)")
    library.add_argument("action", choices=("add", "remove", "list"))
    library.add_argument("folder", nargs="?", metavar="DIR", help="the folder (add, remove; remove also takes a name)")
    library.add_argument("--json", action="store_true")
    library.add_argument("--no-index", action="store_true", help="add without indexing now")
    allow_large_arg(library)

    ask = sub.add_parser("ask", help="the best passages verbatim, cited, within a character budget")
    ask.add_argument("text", metavar="QUERY")
    ask.add_argument("--max-chars", type=positive_int, default=6000, metavar="N", help="characters of answer (default 6000)")
    ask.add_argument("--top-k", type=positive_int, default=5, metavar="N", help="at most this many passages (default 5)")
    ask.add_argument("--workspace", metavar="DIR", help="also answer from this project folder (scope all/workspace)")
    ask.add_argument("--now", type=epoch_ms, metavar="EPOCH_MS", help="pin the clock (for reproducible results)")
    ask.add_argument("--json", action="store_true")
    scope_arg(ask, None)
    allow_large_arg(ask)

    stats = sub.add_parser("stats", help="per folder: documents, passages, files by status, index size, last update")
    stats.add_argument("--workspace", metavar="DIR", help="also report this project folder")
    stats.add_argument("--json", action="store_true")
    scope_arg(stats, None)
    allow_large_arg(stats)

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
    propose.add_argument("--kind", default="note", choices=MEMORY_KINDS)
    propose.add_argument("--reason", default="", help="why it is worth keeping (shown on the note)")
    memory_args(propose)
    memory = sub.add_parser("memory", help="search the memory files (with a query) or show their structure")
    memory.add_argument("query", nargs="?", default="")
    memory.add_argument("--hits", type=positive_int, default=3)
    memory.add_argument("--budget", type=positive_int, default=700, help="characters of answer (default 700)")
    memory.add_argument("--json", action="store_true")
    memory_args(memory)

    def recall_args(p: argparse.ArgumentParser) -> None:
        p.add_argument("query", nargs="?", default="", metavar="QUERY")
        p.add_argument("--session", metavar="ID|auto", help="the session to search, or whose workspace (default: the "
                       "followed one); with --detail, the session to read")
        p.add_argument("--dsh-home", metavar="DIR")
        p.add_argument("--limit", type=positive_int, metavar="N", help="at most N sessions (default 10)")
        p.add_argument("--detail", action="store_true", help="print the turns around --seq instead of searching")
        p.add_argument("--seq", type=int, metavar="N", help="with --detail: the turn to open on")
        p.add_argument("--window", type=positive_int, default=3, metavar="K", help="with --detail: K turns each side")
        p.add_argument("--json", action="store_true")

    recall = sub.add_parser("recall", help="find what was said in past DSH conversations (compacted history included)")
    recall_args(recall)
    recall.add_argument("--scope", choices=("session", "workspace", "all"), default="session")
    history = sub.add_parser("history", help="the same as recall; --all searches every session")
    recall_args(history)
    history.add_argument("--scope", choices=("session", "workspace", "all"), default="session")
    history.add_argument("--all", action="store_true", help="search every session (scope all)")

    sub.add_parser("selftest", help="check that videos, PDFs and both languages work in this installation (JSON)")
    index = sub.add_parser("index", help="index a workspace and report what was indexed, skipped or failed")
    workspace_args(index)
    index.add_argument("--json", action="store_true")
    return parser
