"""The calling session: an MCP request names no session, DSH's log does (the unanswered call of the tool)."""

from __future__ import annotations

import json

from knit_desktop.core.agent.knit_docs import KnitDocs
from knit_desktop.core.dsh.caller import CALLER, NONE, WORKSPACE, CallerResolver
from knit_desktop.core.dsh.sessions import SessionCatalog

from .dsh_fixtures import DshLog

DAY = 86_400_000


def mcp_call(log: DshLog, call_id: str, tool: str = "knit_docs", arguments: dict | None = None) -> list[dict]:
    """What DSH flushes before it sends `tools/call`: the assistant's message with the call, then the call."""
    message = {"role": "assistant", "content": [{"type": "tool-call", "toolCallId": call_id,
                                                 "toolName": f"mcp__knit__{tool}", "input": arguments or {}}],
               "source": {"kind": "model", "provider": "deepseek", "model": "v4"}}
    return [log.event("assistant/message", {"turn": 1, "step": 1, "message": message}, surfaceOp="append"),
            log.event("tool/call", {"turn": 1, "step": 1, "callId": call_id, "name": f"mcp__knit__{tool}",
                                    "arguments": json.dumps(arguments or {})})]


def two_projects(make_workspace, now_ms):
    alpha = make_workspace({"alpha/orbit-notes.md": ("# Orbit notes\n\nThe satellite orbit decays.\n", now_ms - DAY),
                            "alpha/other.md": ("# Other\n\nnothing\n", now_ms - DAY)})
    beta = make_workspace({"beta/harvest-plan.md": ("# Harvest plan\n\nThe wheat harvest starts.\n", now_ms - DAY),
                           "beta/misc.md": ("# Misc\n\nnothing\n", now_ms - DAY)})
    return alpha / "alpha", beta / "beta"


def test_two_sessions_in_two_folders_each_get_their_own_answer(make_workspace, tmp_path, now_ms):
    alpha, beta = two_projects(make_workspace, now_ms)
    home = tmp_path / "dsh"
    a = DshLog(home, "s-alpha", str(alpha))
    b = DshLog(home, "s-beta", str(beta))
    a.append_rows([a.user("why does the satellite orbit decay?")])
    b.append_rows([b.user("when does the wheat harvest start?")])
    tool = KnitDocs(None, str(home))
    for round_ in range(6):
        # The sessions call in alternation; the other one always flushed something *after* the caller's call,
        # so "the newest log" is always the wrong answer.
        caller, other = (a, b) if round_ % 2 == 0 else (b, a)
        caller.append_rows(mcp_call(caller, f"call-{round_}"))
        other.append_rows([other.assistant("still thinking about it")])
        answer = tool.call(now_ms=now_ms)
        data = answer.structured
        expected_root = alpha if caller is a else beta
        assert data["workspace"] == str(expected_root.resolve())
        assert data["session"]["id"] == ("s-alpha" if caller is a else "s-beta")
        assert data["session"]["resolved_by"] == CALLER
        assert f"Workspace: {expected_root.resolve()} — DSH session {data['session']['id']}" in answer.text
        top = data["primary"][0]["rel"]
        assert top == ("orbit-notes.md" if caller is a else "harvest-plan.md")
        caller.append_rows([caller.result_v4(f"call-{round_}")])
    tool.close()


def test_two_calls_in_flight_at_once_go_to_two_sessions(make_workspace, tmp_path, now_ms):
    alpha, beta = two_projects(make_workspace, now_ms)
    home = tmp_path / "dsh"
    a = DshLog(home, "s-alpha", str(alpha))
    b = DshLog(home, "s-beta", str(beta))
    a.append_rows(mcp_call(a, "a1"))
    b.append_rows(mcp_call(b, "b1"))
    resolver = CallerResolver(SessionCatalog(home))
    first, second = resolver.resolve("knit_docs"), resolver.resolve("knit_docs")
    assert {first.log.session_id, second.log.session_id} == {"s-alpha", "s-beta"}
    assert first.how == second.how == CALLER


def test_a_pinned_server_never_ranks_by_another_folders_conversation(make_workspace, tmp_path, now_ms):
    alpha, beta = two_projects(make_workspace, now_ms)
    home = tmp_path / "dsh"
    b = DshLog(home, "s-beta", str(beta))
    b.append_rows([b.user("when does the wheat harvest start?")] + mcp_call(b, "b1"))
    tool = KnitDocs(str(alpha), str(home))
    data = tool.call(now_ms=now_ms).structured
    assert data["workspace"] == str(alpha.resolve())
    assert "session" not in data and data["mode"] == "time"  # no conversation in alpha: by time, not by beta's

    a = DshLog(home, "s-alpha", str(alpha))
    a.append_rows([a.user("the satellite orbit decays, why?")])
    b.append_rows([b.assistant("newer talk in the other folder")])
    data = tool.call(now_ms=now_ms).structured
    assert data["session"]["id"] == "s-alpha" and data["session"]["resolved_by"] == WORKSPACE
    assert data["primary"][0]["rel"] == "orbit-notes.md"
    tool.close()


def test_no_session_anywhere_is_said_not_guessed(tmp_path):
    resolved = CallerResolver(SessionCatalog(tmp_path / "empty")).resolve("knit_docs")
    assert resolved.log is None and resolved.how == NONE


def test_calls_in_flight_in_two_dsh_processes_are_told_apart(make_workspace, tmp_path, now_ms):
    """Two DSH processes, one server each: each server also sees the other's unanswered call (newer, here).
    The request's own arguments, then the server's own folder, pick the right one."""
    alpha, beta = two_projects(make_workspace, now_ms)
    home = tmp_path / "dsh"
    a = DshLog(home, "s-alpha", str(alpha))
    b = DshLog(home, "s-beta", str(beta))
    a.append_rows(mcp_call(a, "a1", arguments={"query": "orbit"}))
    b.append_rows(mcp_call(b, "b1", arguments={"query": "harvest"}))  # newer than alpha's
    by_arguments = CallerResolver(SessionCatalog(home)).resolve("knit_docs", arguments={"query": "orbit"},
                                                                server_cwd="/")
    assert by_arguments.log.session_id == "s-alpha"
    a.append_rows(mcp_call(a, "a2"))
    later = mcp_call(b, "b2")
    for row in later:
        row["time"] += 60_000  # beta's call was made after alpha's
    b.append_rows(later)
    by_folder = CallerResolver(SessionCatalog(home)).resolve("knit_docs", arguments={}, server_cwd=str(alpha))
    assert by_folder.log.session_id == "s-alpha" and by_folder.call.call_id == "a2"
    newest = CallerResolver(SessionCatalog(home)).resolve("knit_docs", arguments={}, server_cwd="/")
    assert newest.log.session_id == "s-beta" and newest.call.call_id == "b2"
