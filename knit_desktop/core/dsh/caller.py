"""Which DSH session made an agent tool call, from DSH's own logs.

An MCP request carries no session id and no working directory. What does identify the caller is the log: DSH
writes the assistant's `tool/call` event (named `mcp__<server>__<tool>`) and flushes it before it sends the
request to the server, and writes the `tool/result` only after the answer (reference: dsh-sessions.md §4,
docs/dsh-mcp-calls.md). So the caller is a session holding an unanswered call of this tool. When none does (a
client other than DSH, a log on another disk), the session in the pinned workspace is used, and only for a
server started without a workspace the newest session: a pinned server never ranks by another folder's talk.

Two DSH processes each start their own server, and each server sees the other's unanswered call too (for about
0.1 s, docs/dsh-mcp-calls.md). Among unanswered calls the one whose recorded arguments equal the request's wins,
then the one whose session works in the server's own folder (DSH starts its servers in its own working folder,
the project's when DSH runs in a terminal), then the newest.
"""

from __future__ import annotations

import os
import time
from dataclasses import dataclass

from .sessions import SessionCatalog, SessionLog, ToolCall

# Only a log written this recently can hold the call being answered: DSH flushes the call just before it sends
# the request, and gives up on a tool after 60 s. An unanswered call in an older log is one DSH abandoned.
RECENT_WINDOW_MS = 2 * 60 * 1000

CALLER = "caller"  # the session whose unanswered call of this tool is on disk
WORKSPACE = "workspace"  # the newest session in the pinned workspace
NEWEST = "newest"  # the newest session anywhere (server started without a workspace)
NONE = "none"

HOW_WORDS = {
    CALLER: "the session that made this call",
    WORKSPACE: "the newest session in this workspace (the call was not found in any log)",
    NEWEST: "the newest DSH session (the call was not found in any log)",
    NONE: "no session",
}


@dataclass(frozen=True)
class Resolved:
    log: SessionLog | None
    how: str
    call: ToolCall | None = None

    def describe(self) -> dict:
        if self.log is None:
            return {}
        return {"id": self.log.session_id, "title": self.log.title, "cwd": self.log.cwd, "resolved_by": self.how}


def tool_matches(call_name: str, tool: str) -> bool:
    """`mcp__<any server name>__<tool>`: the user may have named the server row anything."""
    return call_name == tool or (call_name.startswith("mcp__") and call_name.endswith("__" + tool))


def _cwd() -> str:
    try:
        return os.getcwd()
    except OSError:
        return ""


def _depth_of_match(here: str, cwd: str) -> int:
    """How closely a session's folder holds the server's: the longer the matching folder, the better (a DSH in
    `project/sub` beats one in `project`); -1 when it does not hold it at all."""
    return len(os.path.realpath(cwd)) if here and inside(here, cwd) else -1


def inside(path: str, root: str) -> bool:
    if not path or not root:
        return False
    path, root = os.path.realpath(path), os.path.realpath(root)
    return path == root or path.startswith(root.rstrip(os.sep) + os.sep)


class CallerResolver:
    """Remembers the calls it has answered, so two calls in flight at once go to two different sessions."""

    def __init__(self, catalog: SessionCatalog) -> None:
        self.catalog = catalog
        self._answered: set[tuple[str, str]] = set()

    def resolve(self, tool: str, pinned: str | None = None, now_ms: int | None = None,
                arguments: object = None, server_cwd: str | None = None) -> Resolved:
        now = now_ms if now_ms is not None else int(time.time() * 1000)
        here = server_cwd if server_cwd is not None else _cwd()
        self.catalog.refresh()
        logs = [log for log in self.catalog.logs if log.header is not None and log.top_level]
        recent = [log for log in logs if now - log.updated_ms <= RECENT_WINDOW_MS]
        log: SessionLog | None
        for log in recent:
            log.update()
        open_calls = [
            ((call.arguments_equal(arguments) if arguments is not None else False,
              _depth_of_match(here, log.cwd), call.time_ms, log.updated_ms, call.seq), log, call)
            for log in recent
            for call in log.open_calls.values()
            if tool_matches(call.name, tool)
            and (log.session_id, call.call_id) not in self._answered
            and (pinned is None or inside(log.cwd, pinned))
        ]
        if open_calls:
            _, log, call = max(open_calls, key=lambda item: item[0])
            self._answered.add((log.session_id, call.call_id))
            if len(self._answered) > 4096:
                self._answered.clear()  # answered calls get their results on disk within seconds
            return Resolved(log, CALLER, call)
        if pinned is not None:
            in_workspace = [log for log in logs if inside(log.cwd, pinned)]
            log = max(in_workspace, key=lambda log: (log.updated_ms, log.session_id), default=None)
            if log is None:
                return Resolved(None, NONE)
            log.update()
            return Resolved(log, WORKSPACE)
        log = self.catalog.active()
        if log is None:
            return Resolved(None, NONE)
        log.update()
        return Resolved(log, NEWEST)
