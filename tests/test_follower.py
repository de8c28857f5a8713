"""The conversation follower with real DSH logs and qtbot: appends arrive, the ranking changes, sessions switch."""

from __future__ import annotations

import os

from knit_desktop.core.workspace import RankInput
from knit_desktop.services.conversation import ConversationFollower
from knit_desktop.services.indexer import IndexerService

from .dsh_fixtures import DshLog


def texts(snapshot):
    return [m.text.strip() for m in snapshot["messages"]]


def test_an_appended_message_reaches_the_ranking(qtbot, tmp_path, make_workspace):
    ws = make_workspace({"docs/cache.md": "# Attachment cache\n\neviction", "docs/sync.md": "# Sync\n\nvector clocks"})
    home = tmp_path / "dsh"
    log = DshLog(home, "s1", str(ws))
    log.append_rows([log.user("How does the attachment cache evict?")])

    follower = ConversationFollower(str(home))
    service = IndexerService(str(ws), persistent=False)
    answers = {}
    service.ranked.connect(lambda token, payload: answers.__setitem__(token, payload))
    latest = {}

    def rerank(snapshot):
        latest["token"] = service.rank(RankInput.from_messages(snapshot["messages"]), limit=1)

    with qtbot.waitSignal(service.opened, timeout=10_000):
        service.start()
    with qtbot.waitSignal(follower.sessionChanged, timeout=10_000) as changed:
        follower.start()
    try:
        snapshot = changed.args[0]
        assert snapshot["session"]["cwd"] == str(ws) and texts(snapshot) == ["How does the attachment cache evict?"]
        rerank(snapshot)
        qtbot.waitUntil(lambda: latest["token"] in answers, timeout=5000)
        assert answers[latest["token"]].docs.rows[0].rel == "docs/cache.md"

        follower.messagesChanged.connect(rerank)
        with qtbot.waitSignal(follower.messagesChanged, timeout=5000) as grew:
            log.append_rows([log.assistant("OK."), log.user("Now explain vector clocks in the sync protocol")])
        assert texts(grew.args[0]) == ["OK.", "Now explain vector clocks in the sync protocol"]  # only the new ones
        qtbot.waitUntil(
            lambda: latest["token"] in answers
            and answers[latest["token"]].docs.rows[0].rel == "docs/sync.md",
            timeout=5000,
        )
    finally:
        assert follower.stop() and service.stop()


def test_switches_to_the_newly_active_session_unless_pinned(qtbot, tmp_path):
    home = tmp_path / "dsh"
    first = DshLog(home, "first", "/w/one")
    first.append_rows([first.user("hello from one")])
    os.utime(first.path, (1, 1))
    second = DshLog(home, "second", "/w/two")
    second.append_rows([second.user("hello from two")])
    os.utime(second.path, (2, 2))  # older than any append below, whatever the file system's timestamp tick
    follower = ConversationFollower(str(home))
    with qtbot.waitSignal(follower.sessionChanged, timeout=10_000) as changed:
        follower.start()
    try:
        assert changed.args[0]["session"]["id"] == "second"
        with qtbot.waitSignal(follower.sessionChanged, timeout=5000) as switched:
            first.append_rows([first.user("back in one")])
        assert switched.args[0]["session"]["id"] == "first" and switched.args[0]["session"]["cwd"] == "/w/one"
        with qtbot.waitSignal(follower.sessionChanged, timeout=5000) as pinned:
            follower.pin("second")
        assert pinned.args[0]["session"]["id"] == "second"
        with qtbot.assertNotEmitted(follower.sessionChanged, wait=400):
            first.append_rows([first.user("one again, but two is pinned")])
    finally:
        assert follower.stop()
