"""The agent's `recall` tool: a browse of past conversations, then a detail of the turns around one event, each
within a token budget (issue 18). The caller's session is the default scope; `all` is for an explicit request."""

from __future__ import annotations

from pathlib import Path

from ..dsh.caller import Resolved
from ..dsh.history_index import HistoryIndex
from ..memory.library import estimate_tokens
from ..recall.recall import (
    SCOPES,
    SNIPPET_CHARS,
    Recall,
    ScopeError,
    SessionResult,
    browse_payload,
    detail_payload,
    find_indexed,
    scope_sessions,
)
from .knit_docs import ToolAnswer, ToolError
from .specs import RECALL_BROWSE_TOKENS, RECALL_DETAIL_TOKENS

MAX_QUERY = 2000
REFRESH_BUDGET_S = 20.0  # a first call on a large history indexes the newest logs and answers within DSH's timeout
MAX_WINDOW = 10
BROWSE_SESSIONS = 10


class RecallTool:
    def __init__(self, home: Path | str) -> None:
        self.home = home
        self._index: HistoryIndex | None = None
        self._recall: Recall | None = None
        self._progress: dict | None = None  # {"done", "total"} logs while a first indexing is unfinished

    def close(self) -> None:
        if self._index is not None:
            self._index.close()

    def _ready(self) -> Recall:
        if self._index is None:
            self._index = HistoryIndex(self.home)
            self._recall = Recall(self._index)
        report = self._index.refresh(budget_s=REFRESH_BUDGET_S)
        self._progress = {"done": report.logs, "total": report.logs + report.pending} if report.pending else None
        assert self._recall is not None
        return self._recall

    def call(self, args: dict, resolved: Resolved) -> ToolAnswer:
        detail = args.get("detail")
        if detail is not None:
            return self.detail(detail, resolved)
        query = args.get("query")
        if not isinstance(query, str) or not query.strip():
            raise ToolError("recall: query must be a non-empty string (or pass detail: {session, seq, window})")
        scope = args.get("scope", "session")
        if scope not in SCOPES:
            raise ToolError(f"recall: scope must be one of {', '.join(SCOPES)}, not {scope!r}")
        session = args.get("session")
        if session is not None and not isinstance(session, str):
            raise ToolError("recall: session must be a session id string")
        recall = self._ready()
        known = recall.index.sessions()
        anchor = session or (resolved.log.session_id if resolved.log is not None else None)
        try:
            scoped = scope_sessions(known, scope, anchor)
        except ScopeError as exc:
            raise ToolError(f"recall: {exc}") from None
        results = recall.recall(query[:MAX_QUERY], scoped, BROWSE_SESSIONS)
        structured = fit_browse(query[:MAX_QUERY], scope, results)
        if resolved.log is not None:
            structured["caller"] = resolved.describe()
        text = browse_text(structured)
        if self._progress is not None:
            structured["indexing"] = self._progress
            text += (f"\n(The history is still being indexed: {self._progress['done']} of {self._progress['total']} "
                     "conversations so far, the newest first. Ask again for the rest.)")
        return ToolAnswer(structured, text)

    def detail(self, detail: object, resolved: Resolved) -> ToolAnswer:
        if not isinstance(detail, dict):
            raise ToolError("recall: detail must be an object {session, seq, window}")
        seq, window = detail.get("seq"), detail.get("window", 3)
        if isinstance(seq, bool) or not isinstance(seq, int):
            raise ToolError("recall: detail.seq must be a whole number (an event's start_seq or a snippet's seq)")
        if isinstance(window, bool) or not isinstance(window, int) or window < 0:
            window = 3
        window = min(window, MAX_WINDOW)
        recall = self._ready()
        wanted = detail.get("session") or (resolved.log.session_id if resolved.log is not None else None)
        session = find_indexed(recall.index.sessions(), wanted if isinstance(wanted, str) else None)
        if session is None:
            raise ToolError(f"recall: no DSH session {wanted!r}")
        # ≈ RECALL_DETAIL_TOKENS per ±3 turns: each turn gets its share of the budget, in characters.
        turns = 2 * window + 1
        budget = RECALL_DETAIL_TOKENS * max(1, window) // 3
        payload = detail_payload(recall.index, session, seq, window, text_chars=max(80, 3 * budget // turns))
        structured = {"scope": "session", "detail": payload}
        if resolved.log is not None:
            structured["caller"] = resolved.describe()
        return ToolAnswer(structured, detail_text(payload))


def fit_browse(query: str, scope: str, results: list[SessionResult]) -> dict:
    """The browse answer cut to RECALL_BROWSE_TOKENS: shorter snippets first, then one event per session, then
    fewer sessions."""
    chars = SNIPPET_CHARS
    payload = browse_payload(query, scope, results, chars)
    for chars in (SNIPPET_CHARS, 110, 80):
        payload = browse_payload(query, scope, results, chars)
        if estimate_tokens(browse_text(payload)) <= RECALL_BROWSE_TOKENS:
            return payload
    for session in payload["sessions"]:
        del session["events"][1:]
    while len(payload["sessions"]) > 1 and estimate_tokens(browse_text(payload)) > RECALL_BROWSE_TOKENS:
        payload["sessions"].pop()
        payload["truncated"] = True
    return payload


def browse_text(payload: dict) -> str:
    if not payload["sessions"]:
        return (f"Nothing in scope {payload['scope']} matches {payload['query']!r}. Try other words, or scope "
                "workspace if the user means another conversation in this project.")
    lines = [f"Recall for {payload['query']!r} (scope {payload['scope']}); open an event with "
             "detail {session, seq, window}:"]
    for session in payload["sessions"]:
        lines.append(f"- session {session['id']} “{session['title']}” in {session['cwd'] or '(no folder)'}")
        for event in session["events"]:
            lines.append(f"  [{event['start_seq']}..{event['end_seq']}] {event['matched_by']}")
            for snippet in event["snippets"]:
                lines.append(f"    {snippet['seq']} {snippet['role']}: {snippet['text']}")
    return "\n".join(lines)


def detail_text(payload: dict) -> str:
    session = payload["session"]
    lines = [f"Session {session['id']} “{session['title']}” in {session['cwd'] or '(no folder)'}:"]
    for message in payload["messages"]:
        mark = " (compacted)" if message.get("compacted") else ""
        lines.append(f"[{message['seq']}] {message['role']}{mark}: {message['text']}")
    if not payload["messages"]:
        lines.append("(no turns there)")
    return "\n".join(lines)
