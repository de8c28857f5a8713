"""Reading DSH session logs written in DSH's physical format."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import zstandard

from knit_desktop.core.dsh.sessions import (
    active_session,
    best_transcript,
    discover,
    find_session,
    sessions_root,
)

from .dsh_fixtures import DshLog


def conversation(log):
    log.update()
    return [(m.role, m.text.strip()) for m in log.messages]


def only(home):
    (log,) = discover(home)
    return log


def test_human_and_assistant_text_in_two_languages_and_no_injected_context(tmp_path):
    w = DshLog(tmp_path, "s1", "/work/lumen")
    w.append_rows([w.user("AGENTS.md: always run tests", kind="agent-instructions")])
    w.append_rows([w.user("离线附件的缓存上限是多少？"), w.assistant("The RFC proposes 2 GB.")])
    w.append_rows([
        w.user("skill catalog", kind="skill-catalog"), w.user("notice", kind="plugin"),
        w.user("from another agent", kind="agent-message"), w.user("no source at all", kind=""),
        w.user("Thanks — and the eviction policy?"),
    ])
    w.append_rows([w.title("附件缓存"), w.title("Attachment cache limits")])
    log = only(tmp_path)
    assert conversation(log) == [
        ("user", "离线附件的缓存上限是多少？"),
        ("assistant", "The RFC proposes 2 GB."),
        ("user", "Thanks — and the eviction policy?"),
    ]
    assert log.title == "Attachment cache limits" and log.cwd == "/work/lumen" and log.session_id == "s1"
    assert [m.seq for m in log.messages] == [1, 2, 7]


def test_compaction_replacement_and_packed_chunk_rows_are_skipped(tmp_path):
    w = DshLog(tmp_path, "s1", "/w")
    w.append_rows([w.user("first question"), w.chunk_row(), w.assistant("first answer")])
    summary = w.event("compaction/summary", {"compactionId": "c1", "summary": [{"type": "text", "text": "S"}],
                                             "shadowedRange": {"start": 0, "end": 4}})
    checkpoint = w.user("Summary of the conversation so far …", kind="plugin")
    checkpoint["surfaceOp"] = {"op": "replace", "start": 0, "end": 4}
    human_replace = w.user("a replayed human turn")
    human_replace["surfaceOp"] = {"op": "replace", "start": 0, "end": 4}
    w.append_rows([summary, checkpoint, human_replace, w.user("after compaction")])
    assert conversation(only(tmp_path)) == [
        ("user", "first question"), ("assistant", "first answer"), ("user", "after compaction"),
    ]


def test_forked_session_skips_inherited_events(tmp_path):
    w = DshLog(tmp_path, "child", "/w", seedLength=2, parentSession="parent")
    w.append_rows([w.user("inherited question"), w.assistant("inherited answer"), w.user("the fork's own question")])
    log = only(tmp_path)
    assert conversation(log) == [("user", "the fork's own question")]


def test_active_session_is_the_most_recently_appended_top_level_one(tmp_path):
    old = DshLog(tmp_path, "old", "/a")
    new = DshLog(tmp_path, "new", "/b")
    sub = DshLog(tmp_path, "sub", "/b", origin="subagent", delegationDepth=1)
    os.utime(old.path, (1, 1))
    os.utime(new.path, (2, 2))
    os.utime(sub.path, (3, 3))
    logs = discover(tmp_path)
    assert active_session(logs).session_id == "new"
    assert find_session(logs, "auto").session_id == "new"
    assert find_session(logs, "ol").session_id == "old"  # unique prefix
    assert find_session(logs, "missing") is None


def test_newest_transcript_generation_wins(tmp_path):
    v0 = DshLog(tmp_path, "s1", "/w", version=0)
    v0.append_rows([v0.user("old generation")])
    v4 = DshLog(tmp_path, "s1", "/w", version=4)
    v4.append_rows([v4.user("new generation")])
    plain_v4 = v4.path.parent / "session.v4.jsonl"
    plain_v4.write_text("", encoding="utf-8")
    assert best_transcript(v4.path.parent) == v4.path  # highest version, .zstd preferred at the same version
    assert conversation(only(tmp_path)) == [("user", "new generation")]


def test_uncompressed_log(tmp_path):
    w = DshLog(tmp_path, "s1", "/w", compress=False)
    w.append_rows([w.user("plain text log")])
    log = only(tmp_path)
    assert conversation(log) == [("user", "plain text log")]
    w.append_bytes(json.dumps(w.user("half written")).encode())  # no newline yet
    assert log.update() == []
    w.append_bytes(b"\n")
    assert [m.text.strip() for m in log.update()] == ["half written"]


def test_torn_last_frame_completes_on_the_next_append(tmp_path):
    w = DshLog(tmp_path, "s1", "/w")
    w.append_rows([w.user("complete")])
    log = only(tmp_path)
    assert conversation(log) == [("user", "complete")]
    frame = w.frame([w.user("arrives in two writes")])
    w.append_bytes(frame[: len(frame) // 2])
    assert log.update() == [] and not log.problem
    w.append_bytes(frame[len(frame) // 2 :])
    assert [m.text.strip() for m in log.update()] == ["arrives in two writes"]
    offset = log._reader.offset
    assert log.update() == [] and log._reader.offset == offset  # nothing is decoded twice


def test_corrupt_frames_and_non_json_lines_are_skipped_and_reported(tmp_path):
    w = DshLog(tmp_path, "s1", "/w")
    w.append_bytes(b"\x28\xb5\x2f\xfd" + b"\xff" * 40)  # a frame header followed by garbage
    w.append_rows([w.user("still readable")])
    w.append_bytes(zstandard.ZstdCompressor().compress(b"not json\n[1,2]\n"))
    w.append_rows([w.user("and this too")])
    log = only(tmp_path)
    assert conversation(log) == [("user", "still readable"), ("user", "and this too")]
    assert "corrupt frame" in log.problem and "not JSON" in log.problem


def test_read_calls_are_paired_with_results_in_both_shapes(tmp_path):
    w = DshLog(tmp_path, "s1", "/w")
    w.append_rows([w.read_call("c1", "docs/a.md"), w.result_v4("c1")])
    w.append_rows([w.read_call("c2", "docs/missing.md", key="path"), w.result_v4("c2", is_error=True)])
    w.append_rows([w.read_call("c3", "notes/b.md", key="filePath"), w.result_v0("c3")])
    w.append_rows([w.event("tool/call", {"callId": "c4", "name": "grep", "arguments": "{\"pattern\": \"x\"}"})])
    log = only(tmp_path)
    log.update()
    assert [(r.path, r.ok) for r in log.reads] == [("docs/a.md", True), ("docs/missing.md", False), ("notes/b.md", True)]


def test_profile_override_of_the_sessions_root(tmp_path):
    (tmp_path / "profiles" / "work").mkdir(parents=True)
    (tmp_path / "profiles" / "work" / "cordis.patch.yml").write_text(
        "- replace:\n    id: session-persistence-jsonl\n    config:\n      root: 'spaces/main/sessions'\n"
        "      compression: zstd\n",
        encoding="utf-8",
    )
    assert sessions_root(tmp_path) == tmp_path / "spaces" / "main" / "sessions"
    assert sessions_root(tmp_path / "elsewhere") == tmp_path / "elsewhere" / "sessions"


def run(*args):
    return subprocess.run([sys.executable, "-m", "knit_desktop", *args], capture_output=True, text=True, timeout=60)


def test_cli_sessions_conversation_and_rank_by_session(tmp_path, make_workspace, now_ms):
    ws = make_workspace({"docs/cache.md": "# Attachment cache\n\neviction", "docs/sync.md": "# Sync\n\nclocks"})
    home = tmp_path / "dsh"
    w = DshLog(home, "abc123", str(ws))
    w.append_rows([w.title("Cache talk"), w.user("How does the attachment cache eviction work?"),
                   w.assistant("See docs/cache.md."), w.read_call("c1", "docs/cache.md"), w.result_v4("c1")])
    listed = json.loads(run("sessions", "--dsh-home", str(home), "--json").stdout)
    assert [(s["id"], s["title"], s["active"]) for s in listed["sessions"]] == [("abc123", "Cache talk", True)]
    convo = json.loads(run("conversation", "--dsh-home", str(home), "--json").stdout)
    assert convo["session"]["id"] == "abc123" and convo["session"]["cwd"] == str(ws)
    assert [m["role"] for m in convo["messages"]] == ["user", "assistant"]
    assert convo["reads"] == [{"path": "docs/cache.md", "ok": True}]
    ranked = json.loads(run("rank", "--dsh-home", str(home), "--session", "auto", "--now", str(now_ms), "--json").stdout)
    assert ranked["results"][0]["rel"] == "docs/cache.md"
    missing = run("rank", "--dsh-home", str(tmp_path / "none"), "--session", "auto")
    assert missing.returncode == 2 and "found no active DSH session under" in missing.stderr


def test_an_unreadable_log_is_reported_and_others_keep_working(tmp_path):
    home = tmp_path / "dsh"
    good = DshLog(home, "good", "/w")
    good.append_rows([good.user("hello")])
    bad = DshLog(home, "bad", "/w")
    bad.path.chmod(0o000)
    for path in (tmp_path, home, *home.rglob("*")):
        if path.is_dir():
            path.chmod(0o755)
    drop = ["setpriv", "--bounding-set=-dac_override,-dac_read_search"] if os.geteuid() == 0 else []
    out = subprocess.run([*drop, sys.executable, "-m", "knit_desktop", "sessions", "--dsh-home", str(home), "--json"],
                         capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    sessions = {s["id"] or "?": s for s in json.loads(out.stdout)["sessions"]}
    assert sessions["good"]["active"] and "problem" not in sessions["good"]
    assert any("Permission denied" in s.get("problem", "") for s in sessions.values())
