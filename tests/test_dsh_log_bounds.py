"""DSH logs are read in bounded memory: a zstd bomb is reported and skipped without being decoded, a 200 MB log is
read frame by frame in well under 512 MB, an over-long line of an uncompressed log is skipped, and a followed
session keeps only its newest messages while counting them all. Peak memory is measured in a real subprocess."""

from __future__ import annotations

import json
import os
import time

from knit_desktop.core.dsh.log import MAX_FRAME_BYTES, LogReader, frame_extent
from knit_desktop.core.dsh.sessions import KEEP_MESSAGES, SessionLog
from tests.bad_inputs import big_log, json_bomb, knit, measure, zstd_bomb
from tests.dsh_fixtures import DshLog

RSS_LIMIT_MB = 512


def _env(tmp_path):
    return {**os.environ, "KNIT_DESKTOP_HOME": str(tmp_path / "knit-home")}


def test_a_zstd_bomb_is_reported_as_too_large_and_skipped_not_decoded(tmp_path):
    home = tmp_path / "dsh"
    w = DshLog(home, "bomb", "/w")
    w.append_rows([w.user("before the bomb")])
    bomb = zstd_bomb()  # 2 GB of zeros in ~65 KB, size not declared (a streaming writer's frame)
    w.append_bytes(bomb)
    w.append_bytes(zstd_bomb(declare_size=True))  # and one that says how large it is
    w.append_bytes(json_bomb())  # one JSON line of 2 GB
    w.append_rows([w.user("after the bomb")])
    assert len(bomb) < 100_000
    log = SessionLog(str(w.path))
    t0 = time.perf_counter()
    texts = [m.text.strip() for m in log.update()]
    took = time.perf_counter() - t0
    assert texts == ["before the bomb", "after the bomb"]
    assert "3 frame(s) too large to decode (over 64 MB) skipped" in log.problem
    assert took < 5, took  # walked over, never decoded (decoding 6 GB takes tens of seconds)
    run = measure(knit("conversation", "--dsh-home", str(home), "--json"), env=_env(tmp_path))
    assert run.code == 0 and not run.traceback, run.stderr
    assert [m["text"].strip() for m in json.loads(run.stdout)["messages"]] == ["before the bomb", "after the bomb"]
    assert "too large" in run.stderr  # said once, on stderr
    assert run.rss_mb < 200, f"{run.rss_mb:.0f} MB"
    print(f"zstd bomb ({len(bomb):,} bytes → 2 GiB): conversation took {run.wall_s:.2f} s, peak RSS {run.rss_mb:.0f} MB")


def test_the_frame_walk_finds_extents_and_bounds_without_decoding(tmp_path):
    path = tmp_path / "frames.zstd"
    w = DshLog(tmp_path, "s", "/w")
    small = w.frame([w.user("hello")])
    bomb = zstd_bomb(MAX_FRAME_BYTES + 1)
    path.write_bytes(small + bomb + small[:-3])
    size = path.stat().st_size
    with open(path, "rb") as handle:
        assert frame_extent(handle, 0, size) == ("frame", len(small), False)
        assert frame_extent(handle, len(small), size) == ("frame", len(small) + len(bomb), True)
        assert frame_extent(handle, len(small) + len(bomb), size)[0] == "torn"
        assert frame_extent(handle, 1, size)[0] == "corrupt"
    # A frame that declares 100 bytes over 520 raw blocks of 128 KB (65 MB): too large, by its blocks.
    liar = tmp_path / "liar.zstd"
    block = 128 * 1024
    with open(liar, "wb") as fh:
        fh.write(b"\x28\xb5\x2f\xfd\xa0" + (100).to_bytes(4, "little"))
        for i in range(520):
            fh.write(((block << 3) | (i == 519)).to_bytes(3, "little"))
            fh.write(bytes(block))
    with open(liar, "rb") as handle:
        assert frame_extent(handle, 0, liar.stat().st_size) == ("frame", liar.stat().st_size, True)


def test_a_bomb_arriving_in_two_writes_waits_then_is_skipped(tmp_path):
    w = DshLog(tmp_path, "s1", "/w")
    w.append_rows([w.user("first")])
    log = SessionLog(str(w.path))
    assert [m.text.strip() for m in log.update()] == ["first"]
    bomb = zstd_bomb(256 << 20)
    w.append_bytes(bomb[: len(bomb) // 2])
    assert log.update() == [] and not log.problem  # a frame still being written
    w.append_bytes(bomb[len(bomb) // 2 :])
    w.append_rows([w.user("second")])
    assert [m.text.strip() for m in log.update()] == ["second"]
    assert "too large" in log.problem


def test_a_200_mb_log_is_read_frame_by_frame_in_bounded_memory(tmp_path):
    home = tmp_path / "dsh"
    w = big_log(home, 200 * 1024 * 1024)
    size = w.path.stat().st_size
    run = measure(knit("conversation", "--dsh-home", str(home), "--json"), env=_env(tmp_path), timeout=300)
    assert run.code == 0 and not run.traceback, run.stderr
    payload = json.loads(run.stdout)
    assert len(payload["messages"]) == KEEP_MESSAGES  # the newest ones; the ranker reads the last six
    assert payload["messages"][-1]["text"].strip() == "the very last question"
    assert run.rss_mb < RSS_LIMIT_MB, f"{run.rss_mb:.0f} MB"
    print(f"{size / 1e6:.0f} MB log: conversation took {run.wall_s:.1f} s, peak RSS {run.rss_mb:.0f} MB")
    # Incremental reading still decodes only what is appended.
    log = SessionLog(str(w.path))
    log.update()
    count = log.message_count
    assert len(log.messages) == KEEP_MESSAGES and count > 20 * KEEP_MESSAGES
    w.append_rows([w.user("one more")])
    offset = log._reader.offset
    t0 = time.perf_counter()
    assert [m.text.strip() for m in log.update()] == ["one more"]
    assert time.perf_counter() - t0 < 1 and log._reader.offset > offset and log.message_count == count + 1
    assert log.messages[-1].text.strip() == "one more" and len(log.messages) == KEEP_MESSAGES


def test_an_over_long_line_in_an_uncompressed_log_is_skipped(tmp_path):
    w = DshLog(tmp_path, "plain", "/w", compress=False)
    w.append_rows([w.user("before")])
    with open(w.path, "r+b") as handle:  # 100 MB of NUL bytes without a newline, sparse
        handle.truncate(w.path.stat().st_size + 100 * 1024 * 1024)
    log = SessionLog(str(w.path))
    assert [m.text.strip() for m in log.update()] == ["before"]
    w.append_bytes(b"\n")
    w.append_rows([w.user("after")])
    assert [m.text.strip() for m in log.update()] == ["after"]
    assert "1 line(s) over 64 MB skipped" in log.problem
    reader = LogReader(str(w.path))
    events = reader.read_new().events
    assert [e["type"] for e in events] == ["session", "user/message", "user/message"]


def test_a_followed_session_keeps_its_newest_messages_and_counts_them_all(tmp_path):
    w = DshLog(tmp_path, "long", "/w")
    for start in range(0, 1200, 100):
        w.append_rows([w.user(f"message {i}") for i in range(start, start + 100)])
    log = SessionLog(str(w.path))
    new = log.update()
    assert log.message_count == 1200 and len(log.messages) == KEEP_MESSAGES
    assert [m.text.strip() for m in log.messages][-1] == "message 1199" and len(new) == KEEP_MESSAGES
    assert log.messages[0].text.strip() == f"message {1200 - KEEP_MESSAGES}"


def test_a_50_mb_message_is_ranked_in_bounded_memory(tmp_path):
    ws = tmp_path / "ws"
    ws.mkdir()
    (ws / "cache.md").write_text("# Attachment cache\n\nEviction rules.\n", encoding="utf-8")
    messages = tmp_path / "messages.json"
    messages.write_text(json.dumps([{"role": "user", "text": "cache eviction " * 3_500_000}]), encoding="utf-8")
    run = measure(knit("rank", "--workspace", str(ws), "--messages", str(messages), "--json"), env=_env(tmp_path))
    assert run.code == 0 and not run.traceback, run.stderr
    assert json.loads(run.stdout)["results"][0]["rel"] == "cache.md"
    assert run.rss_mb < RSS_LIMIT_MB, f"{run.rss_mb:.0f} MB"  # was 1.1 GB: the whole text was split into words
