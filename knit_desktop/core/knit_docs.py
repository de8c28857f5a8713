"""The `knit_docs` agent tool, independent of the protocol that carries it.

It answers with the context pack for the active DSH session's workspace (or a pinned one), ranked by that
session's conversation or by an explicit query: structured content without scores, bodies or absolute paths,
plus the text the model reads. Workspaces stay open between calls and are only refreshed (a stat walk), so a call
costs a walk and a ranking, not an index load. Nothing is ever written into the workspace.
"""

from __future__ import annotations

import math
import os
import time
from collections import OrderedDict
from dataclasses import dataclass

from .boundary import UnsafeWorkspace, check_workspace
from .dsh_sessions import SessionCatalog, SessionLog, dsh_home, sessions_root
from .heap import release_heap, settle_heap
from .payloads import context_payload
from .render import render_context
from .usage import UsageAudit
from .workspace import RankInput, Workspace, WorkspaceNotFound, has_persistent_index

DEFAULT_LIMIT = 5
MAX_LIMIT = 20
OPEN_WORKSPACES = 4

DESCRIPTION = (
    "Project context for the current task, from the workspace documents: primary (read first) / supporting "
    "(evidence, implementation) / related, each with its matched passages (line range, and page for PDFs, plus a "
    "snippet). Ranked by IDF-weighted relevance to the active conversation (or an explicit query), then split by "
    "deterministic rules — prefer it to globbing or counting keyword hits. Reads the workspace; stores nothing in "
    "it, calls no model."
)


class ToolError(Exception):
    """A call that cannot be answered; the message says why, for the agent to read."""


def clamp_limit(value: object) -> int:
    """The reference's rule: anything but a finite number means the default; truncate, then keep within 1–20."""
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        return DEFAULT_LIMIT
    return max(1, min(MAX_LIMIT, int(value)))


@dataclass(frozen=True)
class ToolAnswer:
    structured: dict
    text: str


class KnitDocs:
    """One per server process: the pinned workspace (if any), DSH's sessions, open workspaces, the usage audit."""

    def __init__(self, workspace: str | None = None, dsh_home_dir: str | None = None,
                 allow_large_workspace: bool = False) -> None:
        self.pinned = workspace
        self.allow_large = allow_large_workspace
        self.catalog = SessionCatalog(dsh_home(dsh_home_dir))
        self.audit = UsageAudit()
        self._open: OrderedDict[str, Workspace] = OrderedDict()

    def close(self) -> None:
        for ws in self._open.values():
            ws.close()
        self._open.clear()

    def _active_session(self) -> SessionLog | None:
        self.catalog.refresh()
        log = self.catalog.active()
        if log is not None:
            log.update()
        return log

    def _workspace(self, root: str) -> Workspace:
        """An open workspace brought up to date with the disk; the persistent index when one exists."""
        real = os.path.realpath(root)
        ws = self._open.pop(real, None)
        if ws is not None and ws.store is None and has_persistent_index(real):
            ws = None  # the app has built the persistent index since: use it
        if ws is None:
            ws = Workspace.open_persistent(real) if has_persistent_index(real) else Workspace.open(real)
            settle_heap()  # the server lives on: keep full collections from walking the index on every call
        elif ws.refresh().changes:
            settle_heap()
        self._open[real] = ws
        while len(self._open) > OPEN_WORKSPACES:
            self._open.popitem(last=False)[1].close()
            release_heap()
        return ws

    def call(
        self, query: str | None = None, limit: object = DEFAULT_LIMIT, audit: bool = False, now_ms: int | None = None
    ) -> ToolAnswer:
        session = self._active_session()
        root = self.pinned or (session.cwd if session is not None else "")
        if not root:
            where = sessions_root(self.catalog.home)
            if session is None:
                raise ToolError(
                    f"knit_docs needs a workspace: there is no active DSH session under {where} and the server was "
                    "started without --workspace"
                )
            raise ToolError(f"knit_docs needs a workspace: DSH session {session.session_id} has no working directory")
        try:
            check_workspace(root, self.allow_large)
        except UnsafeWorkspace as exc:
            raise ToolError(f"knit_docs will not read {root}: {exc}") from None
        try:
            ws = self._workspace(root)
        except WorkspaceNotFound:
            raise ToolError(f"knit_docs needs a workspace: {root} does not exist or is not a folder") from None
        if query is not None and query.strip():
            request = RankInput.from_query(query)
        elif session is not None:
            request = RankInput.from_messages(session.messages)
        else:
            request = RankInput([])
        now = now_ms if now_ms is not None else int(time.time() * 1000)
        pack = ws.context(request, now_ms=now, recent_limit=clamp_limit(limit))
        structured = context_payload(pack)
        text = render_context(pack)
        if session is not None:
            if audit:
                usage = self.audit.usage(
                    session.session_id,
                    session.reads,
                    root=ws.root,
                    cwd=session.cwd,
                    is_indexed=lambda rel: rel in ws.index.by_rel,
                )
                line = usage.line() if usage is not None else ""
                if line:
                    structured["usage"] = line
                    text += "\n\n" + line
            self.audit.record(session.session_id, structured, session.last_seq)
        return ToolAnswer(structured, text)
