"""The `knit_docs` agent tool, independent of the protocol that carries it.

It answers with the context pack for the active DSH session's workspace (or a pinned one), ranked by that
session's conversation or by an explicit query: structured content without scores, bodies or absolute paths,
plus the text the model reads. Workspaces stay open between calls and are watched (`ChangeFeed`): a call applies
the paths that changed and ranks; it walks the folders that came, went or moved, and the whole workspace only when
the watch cannot say (no watches allowed, events lost, indexing unfinished) and every few minutes. Between calls the server applies the changes as
they come (`keep_current`) and holds each watched index's watch lease, so a one-shot command on the same
workspace trusts the index instead of walking it, as it does while the window is open. Nothing is ever written
into the workspace.
"""

from __future__ import annotations

import contextlib
import math
import os
import sqlite3
import time
from collections import OrderedDict
from dataclasses import dataclass

from ..dsh.caller import HOW_WORDS, CallerResolver, Resolved
from ..dsh.sessions import SessionCatalog, dsh_home, sessions_root
from ..dsh.usage import UsageAudit
from ..heap import release_heap, settle_heap
from ..index.boundary import UnsafeWorkspace, WorkspaceNotFound, check_workspace
from ..index.pins import Pins
from ..index.scan import outside_folders
from ..index.store import SNAPSHOT_DELAY_S, WATCH_LEASE_S
from ..index.watching import ChangeFeed
from ..output.payloads import context_payload
from ..output.render import render_context
from ..workspace import RankInput, Workspace
from .specs import DEFAULT_LIMIT, KNIT_DOCS, KNIT_DOCS_DESCRIPTION, MAX_LIMIT

# A workspace met for the first time is indexed for at most this long before the first answer (DSH waits 60 s).
FIRST_ANSWER_BUDGET_S = 7.0
OPEN_WORKSPACES = 4
FULL_LOOK_S = 300.0  # a walk at least this often even with a change feed (a missed event is mended by then)
TOOL_NAME = KNIT_DOCS
DESCRIPTION = KNIT_DOCS_DESCRIPTION


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
    """One per server process: the pinned workspace (if any), DSH's sessions, open workspaces, the usage audit.

    Workspaces are opened on their persistent index (in Knit's cache, shared with the window and the command
    line), so a restarted server starts from what was indexed before. A workspace met for the first time is
    indexed within a time budget: the first answer comes from what is indexed so far and says how far indexing
    got; `continue_indexing` goes on between calls."""

    def __init__(self, workspace: str | None = None, dsh_home_dir: str | None = None,
                 first_answer_budget_s: float = FIRST_ANSWER_BUDGET_S, allow_large_workspace: bool = False,
                 watch: bool = False) -> None:
        self.pinned = os.path.realpath(os.path.expanduser(workspace)) if workspace else None
        self.allow_large = allow_large_workspace
        self.catalog = SessionCatalog(dsh_home(dsh_home_dir))
        self.callers = CallerResolver(self.catalog)
        self.audit = UsageAudit()
        self.budget_s = first_answer_budget_s
        self._open: OrderedDict[str, Workspace] = OrderedDict()
        # With `watch` (the MCP server, which lives on): each open workspace is watched, and a call applies the
        # changed paths instead of walking. A one-off user walks, holding no watches to forget to close.
        self.watch = watch
        self._feeds: dict[str, ChangeFeed] = {}
        self._walked: dict[str, float] = {}  # when each workspace was last walked
        self._leased: dict[str, float] = {}  # when this process last renewed each workspace's watch lease
        self._save_due: dict[str, float] = {}  # when a workspace changed between calls saves its snapshot

    def close(self) -> None:
        for root, ws in self._open.items():
            with contextlib.suppress(Exception):  # what the feed applied since the last walk, for the next start
                ws.save()
            self._close_workspace(root, ws)
        self._open.clear()

    def _close_workspace(self, root: str, ws: Workspace) -> None:
        """Give up the watch lease, close the index and stop watching (the lease first: once the watch stops,
        nothing keeps the index current any more)."""
        self._release_lease(root, ws)
        self._save_due.pop(root, None)
        ws.close()
        self._unwatch(root)

    def _release_lease(self, root: str, ws: Workspace) -> None:
        if self._leased.pop(root, None) is not None and ws.store is not None:
            ws.store.release_watch_lease()

    def resolve_session(self, tool: str = TOOL_NAME, arguments: object = None) -> Resolved:
        """The session that made this call (`arguments`: the request's, to tell two calls in flight apart)."""
        return self.callers.resolve(tool, self.pinned, arguments=arguments)

    def _workspace(self, root: str) -> Workspace:
        """An open workspace brought up to date with the disk (within the budget while it is being built)."""
        real = os.path.realpath(root)
        ws = self._open.pop(real, None)
        if ws is None:
            self._watch(real)  # before the first look: nothing that changes during it is missed
            ws = open_workspace(real, self.budget_s)
            self._walked[real] = time.monotonic()
            settle_heap()  # the server lives on: keep full collections from walking the index on every call
        else:
            try:
                changed = self._bring_up_to_date(real, ws)
            except Exception:
                self._close_workspace(real, ws)  # reopened from scratch on the next call
                raise
            if changed:
                settle_heap()
                self._save_due.setdefault(real, time.monotonic() + SNAPSHOT_DELAY_S)
        self._open[real] = ws
        while len(self._open) > OPEN_WORKSPACES:
            old_root, old = self._open.popitem(last=False)
            with contextlib.suppress(Exception):  # (its changes since the last save, as `close` keeps them)
                if old_root in self._save_due:
                    old.save()
            self._close_workspace(old_root, old)
            release_heap()
        return ws

    def open_pinned(self) -> bool:
        """Open the pinned workspace before the first call asks for it (the MCP server, once it is up): its watch
        starts and its lease follows, and the first call finds it open. False when none is pinned or it cannot be
        opened now (the call will say why)."""
        if not self.pinned:
            return False
        try:
            check_workspace(self.pinned, self.allow_large)
            self._workspace(self.pinned)
        except (UnsafeWorkspace, WorkspaceNotFound, sqlite3.Error, OSError):
            return False
        return True

    def keep_current(self, now: float | None = None) -> int:
        """Between calls (the MCP server runs this every KEEP_CURRENT_S): apply what each open workspace's change
        feed saw, save its snapshot SNAPSHOT_DELAY_S after the first change since the last save, and hold its watch
        lease, renewed every third of WATCH_LEASE_S. A workspace whose feed cannot say (no watches allowed) or
        whose indexing is unfinished holds none: one-shot commands walk it. Returns the number of documents
        changed."""
        now = time.monotonic() if now is None else now
        changed = 0
        for real, ws in list(self._open.items()):
            feed = self._feeds.get(real)
            if ws.store is None or ws.store.read_only:
                continue
            if feed is None or not feed.healthy or ws.last_refresh.pending:
                self._release_lease(real, ws)
                continue
            try:
                applied = self._bring_up_to_date(real, ws)
            except Exception:
                self._open.pop(real, None)
                self._close_workspace(real, ws)  # reopened from scratch on the next call
                continue
            if applied:
                changed += applied
                self._save_due.setdefault(real, now + SNAPSHOT_DELAY_S)
            if self._save_due.get(real, now + 1) <= now:
                del self._save_due[real]
                with contextlib.suppress(Exception):  # (kept in the rows meanwhile: the next save tries again)
                    ws.save()
            if not feed.healthy or ws.last_refresh.pending:  # the walk it made: the folder went, or its budget ran out
                self._release_lease(real, ws)
            elif now - self._leased.get(real, -WATCH_LEASE_S) >= WATCH_LEASE_S / 3:
                ws.store.hold_watch_lease()
                self._leased[real] = now
        if changed:
            settle_heap()
        return changed

    def _bring_up_to_date(self, real: str, ws: Workspace) -> int:
        """Apply what the change feed saw since the last call; walk only the folders that came, went or moved, and
        the whole workspace only when the feed cannot say (no watches, events lost, indexing unfinished) or every
        FULL_LOOK_S as a safety net."""
        feed = self._feeds.get(real)
        paths, rescan, folders = feed.drain() if feed is not None else ([], True, [""])
        stale = time.monotonic() - self._walked.get(real, 0.0) >= FULL_LOOK_S
        if feed is None or not feed.healthy or rescan or stale or ws.last_refresh.pending:
            if feed is not None and rescan:
                # Directories came or went: the index is behind until the walk has indexed what they hold, so the
                # lease goes first (a folder of 20,600 files moved in: a trusting `rank` found 1,050 of them).
                self._release_lease(real, ws)
                # Watch what is there now, before the walk, so that a file written into a new directory after the
                # walk passed it is still seen (restarted after the walk, 11 to 22 of ~500 files written into a
                # new folder over 3 s were never indexed).
                feed.restart()
            if feed is not None and feed.healthy and rescan and not stale and not ws.last_refresh.pending \
                    and folders and "" not in folders and feed.watched_throughout:
                # Only those folders: the whole walk took 90-160 ms at 20,000 files (half a second at 100,000) for
                # each folder made, and every call waited for it. The files changed elsewhere, as reported. (Not
                # when the watches were planned anew: nothing was heard while they were down.)
                changed = ws.refresh(budget_s=self.budget_s, folders=folders).changes
                elsewhere = outside_folders(paths, folders)
                return changed + (ws.apply_changes(elsewhere).changes if elsewhere else 0)
            changed = ws.refresh(budget_s=self.budget_s).changes
            self._walked[real] = time.monotonic()
            return changed
        return ws.apply_changes(paths).changes if paths else 0

    def _watch(self, real: str) -> None:
        if self.watch and real not in self._feeds:
            feed = ChangeFeed(real)
            feed.start()  # unhealthy when the system refuses watches: every call walks, as without a feed
            self._feeds[real] = feed

    def _unwatch(self, real: str) -> None:
        feed = self._feeds.pop(real, None)
        if feed is not None:
            feed.stop()

    def workspace(self, root: str) -> Workspace:
        """The open workspace at `root` brought up to date, shared with the library tools (one index per process)."""
        return self._workspace(root)

    def indexing_pending(self) -> bool:
        return any(ws.last_refresh.pending for ws in self._open.values())

    def continue_indexing(self, seconds: float = 1.5) -> bool:
        """Index a little more of a workspace that is not finished; True while some work remains."""
        for ws in self._open.values():
            if ws.last_refresh.pending:
                ws.refresh(budget_s=seconds)
                if not ws.last_refresh.pending:
                    settle_heap()
                break
        return self.indexing_pending()

    def call(
        self, query: str | None = None, limit: object = DEFAULT_LIMIT, audit: bool = False, now_ms: int | None = None,
        arguments: object = None,
    ) -> ToolAnswer:
        resolved = self.resolve_session(TOOL_NAME, arguments)
        session = resolved.log
        root = self.pinned or (session.cwd if session is not None else "")
        if not root:
            where = sessions_root(self.catalog.home)
            if session is None:
                raise ToolError(
                    f"knit_docs needs a workspace: there is no DSH session under {where} and the server was "
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
        pack = ws.context(request, now_ms=now, recent_limit=clamp_limit(limit), pins=Pins.load(ws.root))
        structured = context_payload(pack)
        text = render_context(pack)
        if session is not None:
            if audit:
                usage = self.audit.usage(
                    session.session_id,
                    session.reads,
                    root=ws.root,
                    cwd=session.cwd,
                    is_indexed=ws.is_indexed,
                )
                line = usage.line() if usage is not None else ""
                if line:
                    structured["usage"] = line
                    text += "\n\n" + line
            self.audit.record(session.session_id, structured, session.last_seq)
        structured["workspace"] = ws.root
        if resolved.log is not None:
            structured["session"] = resolved.describe()
        header = [where_line(ws.root, resolved)]
        report = ws.last_refresh
        if report.pending:
            indexed = max(0, report.total - report.pending)
            structured["indexing"] = {"done": indexed, "total": report.total}
            header.append(f"Indexing {indexed} / {report.total} files: this answer covers the files indexed so far; "
                          "ask again in a moment for the rest.")
        if ws.notice:
            header.append(f"Note: {ws.notice}.")
        return ToolAnswer(structured, "\n".join(header) + "\n\n" + text)


def where_line(root: str, resolved: Resolved) -> str:
    """The line every answer starts with: which folder and which conversation it is for."""
    log = resolved.log
    if log is None:
        return f"Workspace: {root} — no DSH session in this folder, so ranked by the query or by time."
    title = f" “{log.title}”" if log.title else ""
    return f"Workspace: {root} — DSH session {log.session_id}{title} ({HOW_WORDS[resolved.how]})."


def open_workspace(root: str, budget_s: float | None) -> Workspace:
    """The workspace on its persistent index; in memory only if the index cannot be opened at all (an unwritable
    cache, a database that cannot even be moved aside)."""
    try:
        return Workspace.open_persistent(root, budget_s=budget_s)
    except (sqlite3.Error, OSError):
        return Workspace.open(root, budget_s=budget_s)
