"""History recall (issue 18) on DSH logs in DSH's real format: the index, the layers, events, scopes, the command
line and the agent tool's budgets."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
import zstandard

from knit_desktop.core.agent.recall_tool import RecallTool, browse_text
from knit_desktop.core.dsh.caller import Resolved
from knit_desktop.core.dsh.history_index import HistoryIndex
from knit_desktop.core.memory.library import estimate_tokens
from knit_desktop.core.recall.recall import (
    FUZZY,
    LITERAL,
    Recall,
    ScopeError,
    auto_recall,
    browse_payload,
    detail_payload,
    ranked_events,
    refers_back,
    scope_sessions,
)
from tests.dsh_fixtures import DshLog

ROOT = Path(__file__).resolve().parents[1]


def open_index(tmp_path: Path, home: Path) -> HistoryIndex:
    index = HistoryIndex(home, tmp_path / "history.sqlite3")
    index.refresh()
    return index


def texts(results) -> list[str]:
    return [h.row.text for e in ranked_events(results) for h in e.hits]


@pytest.fixture
def home(tmp_path):
    home = tmp_path / "dsh"
    log = DshLog(home, "s-main", "/work/alpha")
    log.append_rows([log.title("Storage decisions"),
                     log.user("AGENTS.md: the project stores data in DuckDB", kind="plugin"),
                     log.user("Let's move the attachment cache to a content-addressed store."),
                     log.assistant("Agreed: thumbnails keyed by sha256, evicted least-recently-used at 2 GB."),
                     log.read_call("c1", "docs/cache.md")])
    log.append_rows([log.user("数据库迁移放在下周三，先备份生产库。"),
                     log.assistant("好的，迁移前先做一次全量备份。")])
    other = DshLog(home, "s-other", "/work/alpha")
    other.append_rows([other.user("The vector clock merge rules need a tie-breaker."),
                       other.assistant("Use the device id as the tie-breaker.")])
    far = DshLog(home, "s-far", "/work/beta")
    far.append_rows([far.user("Vector clocks again, in another project.")])
    os.utime(log.path, ns=(2_000_000_000_000_000_000, 2_000_000_000_000_000_000))  # the followed session
    return home


def test_messages_and_tool_calls_are_indexed_and_injections_are_not(tmp_path, home):
    index = open_index(tmp_path, home)
    rows = index.all_rows(["s-main"])
    assert [r.kind for r in rows] == ["user", "assistant", "tool", "user", "assistant"]
    assert not [r for r in rows if "DuckDB" in r.text]
    recall = Recall(index)
    assert recall.search("DuckDB", None) == []
    tool = recall.search("docs/cache.md", None)
    assert tool and tool[0].row.kind == "tool" and tool[0].row.text == "read docs/cache.md"
    sessions = index.sessions()
    assert sessions["s-main"].title == "Storage decisions" and sessions["s-main"].cwd == "/work/alpha"


def test_exact_words_are_literal_and_typos_and_fragments_are_fuzzy(tmp_path, home):
    recall = Recall(open_index(tmp_path, home))
    exact = recall.search("content-addressed store", None)
    assert exact[0].layer == LITERAL and "content-addressed" in exact[0].row.text
    typo = recall.search("attachmnet cahce", None)
    assert typo[0].layer == FUZZY and "attachment cache" in typo[0].row.text
    wrong_char = recall.search("数剧库迁移", None)  # 据 → 剧
    assert wrong_char[0].layer == FUZZY and wrong_char[0].row.text.startswith("数据库迁移")
    missing_char = recall.search("全量备", None)
    assert missing_char and "全量备份" in missing_char[0].row.text
    results = recall.recall("attachmnet cahce", None)
    payload = browse_payload("attachmnet cahce", "all", results)
    event = payload["sessions"][0]["events"][0]
    assert event["matched_by"] == "fuzzy" and event["snippets"][0]["role"] == "user"


def test_compacted_turns_stay_searchable_and_detail_marks_them(tmp_path):
    home = tmp_path / "dsh"
    log = DshLog(home, "s1", "/w")
    first = [log.user("The release train leaves on Thursdays."), log.assistant("Noted: Thursday release train.")]
    log.append_rows(first)
    shadow = {"start": first[0]["seq"], "end": first[-1]["seq"]}
    log.append_rows([log.event("compaction/summary", {"compactionId": "c", "summary": [{"type": "text", "text": "S"}],
                                                      "shadowedRange": shadow}),
                     log.event("user/message", {"id": "cp", "role": "user", "content": [
                         {"type": "text", "text": "Summary: release cadence agreed."}],
                         "source": {"kind": "plugin", "plugin": "compact"}}, surfaceOp={"op": "replace", **shadow})])
    log.append_rows([log.user("Now the changelog format."), log.assistant("Keep a Changelog it is.")])
    index = open_index(tmp_path, home)
    recall = Recall(index)
    hits = recall.search("release train thursday", None)
    assert {h.row.seq for h in hits} == {first[0]["seq"], first[1]["seq"]} and all(h.row.compacted for h in hits)
    assert recall.search("release cadence agreed", None) == [] or \
        all("Summary" not in h.row.text for h in recall.search("release cadence agreed", None))
    detail = detail_payload(index, index.sessions()["s1"], first[0]["seq"], 3)
    assert [m.get("compacted", False) for m in detail["messages"]] == [True, True, False, False]
    assert detail["messages"][0] == {"seq": first[0]["seq"], "role": "user",
                                     "text": "The release train leaves on Thursdays.", "compacted": True}


def test_a_fork_does_not_count_its_parents_turns_twice(tmp_path):
    home = tmp_path / "dsh"
    parent = DshLog(home, "p", "/w")
    rows = [parent.user("Pick the zebra theme for the dashboard."), parent.assistant("Zebra theme it is.")]
    parent.append_rows(rows)
    fork = DshLog(home, "f", "/w", parentSession="p", seedLength=2)
    fork.append_rows(rows)  # replayed history, same seqs
    fork.seq = iter(range(2, 100))
    fork.append_rows([fork.user("And the zebra colours for dark mode?")])
    recall = Recall(open_index(tmp_path, home))
    found = [(h.row.session_id, h.row.seq) for h in recall.search("zebra", None)]
    assert sorted(found) == [("f", 2), ("p", 0), ("p", 1)]


def test_events_merge_close_turns_and_split_far_ones(tmp_path):
    home = tmp_path / "dsh"
    log = DshLog(home, "s", "/w")
    turns = ["quokka one"] + [f"filler {i}" for i in range(3)] + ["quokka two"] + [f"other {i}" for i in range(8)] + \
        ["quokka three"]
    log.append_rows([log.user(t) if i % 2 == 0 else log.assistant(t) for i, t in enumerate(turns)])
    results = Recall(open_index(tmp_path, home)).recall("quokka", None)
    events = results[0].events
    spans = sorted((e.start_seq, e.end_seq) for e in events)
    assert spans == [(0, 4), (13, 13)]
    assert all(len(e.snippet_hits()) <= 3 for e in events)


def test_an_event_never_spans_a_whole_session_and_a_session_shows_three_events(tmp_path):
    home = tmp_path / "dsh"
    log = DshLog(home, "s", "/w")
    log.append_rows([log.user(f"okapi note {i}") for i in range(60)])
    results = Recall(open_index(tmp_path, home)).recall("okapi", None)
    assert len(results[0].events) == 3
    assert all(e.end_seq - e.start_seq < 12 for e in results[0].events)


def test_scopes(tmp_path, home):
    index = open_index(tmp_path, home)
    known = index.sessions()
    assert scope_sessions(known, "session", None) == ["s-main"]  # the followed one: newest log
    assert sorted(scope_sessions(known, "workspace", None)) == ["s-main", "s-other"]
    assert scope_sessions(known, "all", None) is None
    assert scope_sessions(known, "session", "s-oth") == ["s-other"]  # a unique prefix
    assert scope_sessions(known, "workspace", "s-far") == ["s-far"]
    with pytest.raises(ScopeError):
        scope_sessions(known, "session", "nope")
    with pytest.raises(ScopeError):
        scope_sessions(known, "everything", None)
    recall = Recall(index)
    assert {r.session.id for r in recall.recall("vector clocks", scope_sessions(known, "workspace", None))} == {"s-other"}
    assert {r.session.id for r in recall.recall("vector clocks", None)} == {"s-other", "s-far"}


def test_appends_are_read_incrementally_and_found_at_once(tmp_path, home):
    index = open_index(tmp_path, home)
    log_path = next(Path(home).glob("sessions/*/s-main/*"))
    before = index.db.execute("SELECT offset FROM logs WHERE path=?", (str(log_path),)).fetchone()[0]
    assert index.refresh().read == 0  # nothing changed: nothing read
    with open(log_path, "ab") as handle:
        handle.write(zstandard.ZstdCompressor().compress(json.dumps(
            {"type": "user/message", "seq": 50, "time": 1, "surfaceOp": "append",
             "data": {"role": "user", "content": [{"type": "text", "text": "platypus migration"}],
                      "source": {"kind": "user"}}}).encode() + b"\n"))
    report = index.refresh()
    assert report.read == 1 and report.added == 1 and report.reindexed == 0
    after = index.db.execute("SELECT offset FROM logs WHERE path=?", (str(log_path),)).fetchone()[0]
    assert after > before
    assert Recall(index).search("platypus", None)[0].row.seq == 50


def test_a_corrupt_frame_costs_that_frame_only(tmp_path):
    home = tmp_path / "dsh"
    log = DshLog(home, "s", "/w")
    log.append_rows([log.user("first narwhal")])
    good = log.frame([log.user("lost narwhal")])
    log.append_bytes(good[:6] + b"\xff" * 12 + good[18:])  # a damaged frame
    log.append_rows([log.user("third narwhal")])
    index = HistoryIndex(home, tmp_path / "h.sqlite3")
    report = index.refresh()
    assert report.corrupt_frames == 1
    assert sorted(h.row.text for h in Recall(index).search("narwhal", None)) == ["first narwhal", "third narwhal"]


def test_a_rewritten_log_is_read_again_and_a_deleted_one_forgotten(tmp_path):
    home = tmp_path / "dsh"
    log = DshLog(home, "s", "/w")
    log.append_rows([log.user("original wombat text")])
    index = open_index(tmp_path, home)
    again = DshLog(home, "s", "/w")  # truncates and writes a new log at the same path
    again.append_rows([again.user("rewritten wombat words and more words to change the size")])
    report = index.refresh()
    assert report.reindexed == 1
    assert [h.row.text for h in Recall(index).search("wombat", None)] == [
        "rewritten wombat words and more words to change the size"]
    log.path.unlink()
    assert index.refresh().removed == 1
    assert index.all_rows() == [] and index.sessions() == {}


def test_a_newer_transcript_generation_replaces_the_old_one(tmp_path):
    home = tmp_path / "dsh"
    old = DshLog(home, "s", "/w", version=3)
    old.append_rows([old.user("ibis in version three")])
    index = open_index(tmp_path, home)
    new = DshLog(home, "s", "/w", version=4)
    new.append_rows([new.user("ibis in version three"), new.user("ibis in version four")])
    index.refresh()
    assert sorted(h.row.text for h in Recall(index).search("ibis", None)) == ["ibis in version four",
                                                                               "ibis in version three"]


def test_auto_recall_needs_a_cue_and_an_earlier_fragment(tmp_path, home):
    index = open_index(tmp_path, home)
    recall = Recall(index)
    assert refers_back("As we discussed, the content-addressed store?") and refers_back("之前说的数据库迁移呢")
    assert not refers_back("Let's add a settings page.")
    event = auto_recall(recall, "as we discussed, the content-addressed store", "s-main", before_seq=10**6)
    assert event is not None and event.session_id == "s-main"
    assert auto_recall(recall, "as we discussed, the capybara habitat", "s-main", 10**6) is None  # nothing earlier
    assert auto_recall(recall, "the content-addressed store", "s-main", 10**6) is None  # no cue
    chinese = auto_recall(recall, "之前说的数据库迁移什么时候", "s-main", 10**6)
    assert chinese is not None and "数据库迁移" in chinese.hits[0].row.text


def test_the_agent_tool_keeps_its_budgets(tmp_path, monkeypatch):
    monkeypatch.setenv("KNIT_DESKTOP_HOME", str(tmp_path / "knit"))
    home = tmp_path / "dsh"
    for n in range(12):
        log = DshLog(home, f"s{n:02d}", "/w")
        log.append_rows([log.user(f"The marmot pipeline number {n} " + "with a long explanation " * 30)
                         if i % 2 == 0 else log.assistant("marmot reply " + "detail " * 80) for i in range(10)])
    tool = RecallTool(home)
    answer = tool.call({"query": "marmot pipeline", "scope": "all"}, Resolved(None, "none"))
    assert estimate_tokens(answer.text) <= 800
    assert answer.structured["sessions"] and answer.structured["scope"] == "all"
    first = answer.structured["sessions"][0]
    detail = tool.call({"detail": {"session": first["id"], "seq": 4, "window": 3}}, Resolved(None, "none"))
    assert len(detail.structured["detail"]["messages"]) == 7
    assert estimate_tokens(detail.text) <= 450  # ≈ 300 tokens for ±3 turns
    assert browse_text(answer.structured).startswith("Recall for")
    tool.close()


def run_cli(*args: str, env_home: Path) -> subprocess.CompletedProcess:
    env = {**os.environ, "KNIT_DESKTOP_HOME": str(env_home), "PYTHONPATH": str(ROOT)}
    return subprocess.run([sys.executable, "-m", "knit_desktop", *args], capture_output=True, text=True, env=env,
                          timeout=60)


def test_the_command_line_contract(tmp_path, home):
    knit = tmp_path / "knit"
    out = run_cli("recall", "attachmnet cahce", "--scope", "all", "--dsh-home", str(home), "--json", env_home=knit)
    assert out.returncode == 0, out.stderr
    payload = json.loads(out.stdout)
    assert set(payload) == {"query", "scope", "sessions"} and payload["scope"] == "all"
    session = payload["sessions"][0]
    assert set(session) == {"id", "title", "cwd", "events"} and session["id"] == "s-main"
    event = session["events"][0]
    assert set(event) == {"start_seq", "end_seq", "matched_by", "snippets"} and event["matched_by"] == "fuzzy"
    assert all(set(s) == {"seq", "role", "text"} and s["role"] in ("user", "assistant") for s in event["snippets"])

    detail = run_cli("recall", "--detail", "--session", "s-main", "--seq", str(event["start_seq"]), "--window", "1",
                     "--dsh-home", str(home), "--json", env_home=knit)
    assert detail.returncode == 0, detail.stderr
    opened = json.loads(detail.stdout)
    assert opened["session"] == {"id": "s-main", "title": "Storage decisions", "cwd": "/work/alpha"}
    assert [m["role"] for m in opened["messages"]] == ["user", "assistant"]

    # The default scope is the followed session; `history --all` is every session.
    followed = json.loads(run_cli("recall", "vector clocks", "--dsh-home", str(home), "--json",
                                  env_home=knit).stdout)
    assert followed["scope"] == "session" and followed["sessions"] == []
    everywhere = run_cli("history", "vector clocks", "--all", "--dsh-home", str(home), env_home=knit)
    assert everywhere.returncode == 0 and "s-other" in everywhere.stdout and "s-far" in everywhere.stdout

    for bad, message in ((["recall", "--dsh-home", str(home)], "needs a QUERY"),
                         (["recall", "x", "--session", "nope", "--dsh-home", str(home)], "no DSH session 'nope'"),
                         (["recall", "--detail", "--session", "s-main", "--dsh-home", str(home)], "--seq")):
        out = run_cli(*bad, env_home=knit)
        assert out.returncode == 2 and message in out.stderr, out.stderr


def test_the_agent_tool_says_what_is_wrong_with_bad_arguments(tmp_path, home, monkeypatch):
    from knit_desktop.core.agent.knit_docs import ToolError

    monkeypatch.setenv("KNIT_DESKTOP_HOME", str(tmp_path / "knit"))
    tool = RecallTool(home)
    nobody = Resolved(None, "none")
    for args, message in (({}, "query must be a non-empty string"),
                          ({"query": 5}, "query must be a non-empty string"),
                          ({"query": "x", "scope": "galaxy"}, "scope must be one of session, workspace, all"),
                          ({"query": "x", "session": 7}, "session must be a session id string"),
                          ({"query": "x", "session": "nope"}, "no DSH session 'nope'"),
                          ({"detail": "s-main"}, "detail must be an object"),
                          ({"detail": {"session": "s-main", "seq": "12"}}, "detail.seq must be a whole number"),
                          ({"detail": {"session": "nope", "seq": 1}}, "no DSH session 'nope'")):
        with pytest.raises(ToolError, match=message.replace("(", r"\(")):
            tool.call(args, nobody)
    # No caller known: `session` scope is the followed (newest) session; a huge window is capped.
    answer = tool.call({"query": "content-addressed"}, nobody)
    assert answer.structured["sessions"][0]["id"] == "s-main"
    wide = tool.call({"detail": {"session": "s-main", "seq": 0, "window": 10_000}}, nobody)
    assert len(wide.structured["detail"]["messages"]) == 4  # every turn of the session, no more
    tool.close()


def test_a_time_budget_reads_the_newest_logs_first_and_the_rest_later(tmp_path):
    home = tmp_path / "dsh"
    for n in range(3):
        log = DshLog(home, f"s{n}", "/w")
        log.append_rows([log.user(f"gecko number {n}")])
        os.utime(log.path, ns=(10**18 + n * 10**9,) * 2)
    index = HistoryIndex(home, tmp_path / "h.sqlite3")
    first = index.refresh(budget_s=0)  # room for one log: the newest
    assert (first.logs, first.pending) == (1, 2) and first.removed == 0
    assert [r.session_id for r in index.all_rows()] == ["s2"]
    second = index.refresh(budget_s=60)
    assert second.pending == 0 and sorted(index.sessions()) == ["s0", "s1", "s2"]
