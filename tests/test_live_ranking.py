"""The live ranking follows the conversation, its workspace, and the user's topic."""

from __future__ import annotations

import os

import pytest

from knit_desktop.services.live_ranking import LiveRanking

from .dsh_fixtures import DshLog


def top(result):
    rows = result.docs.rows
    return rows[0].rel if rows and rows[0].matched else None


def test_workspace_follows_the_active_session_and_the_ranking_follows_the_conversation(qtbot, tmp_path, make_workspace):
    ws_one = make_workspace({"cache.md": "# Attachment cache\n\neviction", "sync.md": "# Sync\n\nclocks"}, name="one")
    ws_two = make_workspace({"billing.md": "# Billing\n\ninvoices", "tax.md": "# Tax\n\nrates"}, name="two")
    home = tmp_path / "dsh"
    one = DshLog(home, "one", str(ws_one))
    one.append_rows([one.user("how does the attachment cache evict?")])
    os.utime(one.path, (1, 1))
    two = DshLog(home, "two", str(ws_two))
    two.append_rows([two.user("where are invoices generated?")])
    os.utime(two.path, (2, 2))

    live = LiveRanking(str(home), persistent=False)
    rankings = []
    live.rankingChanged.connect(rankings.append)
    live.start()
    try:
        qtbot.waitUntil(lambda: bool(rankings) and top(rankings[-1]) == "billing.md", timeout=10_000)
        assert live.root == str(ws_two.resolve())

        one.append_rows([one.user("and what about its eviction order?")])  # session one becomes active
        qtbot.waitUntil(lambda: live.root == str(ws_one.resolve()) and top(rankings[-1]) == "cache.md", timeout=10_000)

        live.set_topic("vector clocks sync")  # the user's topic replaces the conversation
        qtbot.waitUntil(lambda: top(rankings[-1]) == "sync.md", timeout=5000)
        live.set_topic("")
        qtbot.waitUntil(lambda: top(rankings[-1]) == "cache.md", timeout=5000)

        live.pin_workspace(str(ws_two))  # a pinned workspace stays, whatever session is active
        qtbot.waitUntil(lambda: live.root == str(ws_two.resolve()), timeout=5000)
        one.append_rows([one.user("still about the cache")])
        qtbot.wait(300)
        assert live.root == str(ws_two.resolve())
        assert rankings[-1].has_pack
    finally:
        live.stop()


def test_the_window_vouches_for_its_index_while_it_watches(qtbot, make_workspace):
    """While the window watches a workspace, its index carries a watch lease (a command then opens it without
    walking the workspace); when it stops watching, the lease is given back."""
    import sqlite3
    import time

    from knit_desktop.core.paths import index_db_path

    root = make_workspace({"cache.md": "# Attachment cache\n\neviction"}).resolve()
    live = LiveRanking(workspace=str(root), persistent=True, follow=False)
    opened = []
    live.indexOpened.connect(opened.append)

    def lease():
        db = sqlite3.connect(str(index_db_path(str(root))))
        try:
            row = db.execute("SELECT value FROM meta WHERE key = 'watch_lease'").fetchone()
        finally:
            db.close()
        return None if row is None else tuple(int(part) for part in row[0].split())

    live.start()
    try:
        qtbot.waitUntil(lambda: bool(opened), timeout=10_000)
        qtbot.waitUntil(lambda: lease() is not None, timeout=5000)
        pid, until = lease()
        assert pid == os.getpid() and until > time.time() * 1000 + 20_000
    finally:
        live.stop()
    assert lease() is None


@pytest.mark.parametrize("reads_between", [False, True], ids=["messages", "messages-and-reads"])
def test_a_conversation_faster_than_one_ranking_still_sees_rankings(qtbot, make_workspace, monkeypatch,
                                                                     reads_between):
    """Each message asks for a ranking; in a large workspace one takes longer than the gap between messages.
    Rankings asked for in the meantime are skipped (only the newest counts), and the newest answer finished is
    shown while a newer one is still being made: the list keeps up instead of showing nothing until the
    conversation pauses."""
    import threading
    import time

    from knit_desktop.core.dsh.conversation import Message
    from knit_desktop.core.workspace import Workspace

    root = make_workspace({f"n{i}.md": f"# Note {i}\n\ncache eviction {i}" for i in range(20)})
    computed: list = []
    real_view = Workspace.view

    def slow_view(self, request, **options):
        if threading.current_thread() is not threading.main_thread():
            time.sleep(0.3)  # a large workspace's ranking
        computed.append(request)
        return real_view(self, request, **options)

    monkeypatch.setattr(Workspace, "view", slow_view)
    live = LiveRanking(workspace=str(root), persistent=False, follow=False)
    shown = []
    live.rankingChanged.connect(shown.append)
    live.start()
    try:
        qtbot.waitUntil(lambda: bool(shown), timeout=10_000)
        computed.clear()
        before = len(shown)
        for i in range(20):  # a message every 100 ms for two seconds
            live.set_messages([Message("user", f"message {i} about the cache eviction")])
            qtbot.wait(50)
            if reads_between:  # the agent reads a file: the same ranking again, with a new usage line
                live.follower.messagesChanged.emit({"messages": [], "reads": [], "session": {"id": "", "cwd": ""}})
            qtbot.wait(50)
        during = len({id(result.docs) for result in shown[before:]} - {id(shown[before - 1].docs)})
        qtbot.wait(1500)  # the last ones finish
        assert during >= 3, f"{during} rankings shown while the conversation moved"
        assert len(computed) <= 10, f"{len(computed)} of 20 rankings computed: superseded ones were not skipped"
    finally:
        live.stop()


def test_the_window_makes_the_lookup_by_name_off_the_gui_thread_when_its_index_opens(qtbot, make_workspace, monkeypatch):
    """The hashes that find a document by its name (37 ms at 100,000 documents) are made by the indexer's thread as
    the index opens, not at the first lookup, which the GUI thread can make (is a previewed file indexed?)."""
    import threading

    from knit_desktop.core.index.rel_ids import RelIds
    from knit_desktop.core.workspace import Workspace

    root = make_workspace({f"n{i}.md": f"# Note {i}\n\norbit" for i in range(30)}).resolve()
    Workspace.open_persistent(str(root)).close()  # saved: the window loads it from its snapshot
    made_on: list[str] = []
    real = RelIds._hashed

    def recording(self):
        if self._by_hash is None:
            made_on.append(threading.current_thread().name)
        return real(self)

    monkeypatch.setattr(RelIds, "_hashed", recording)
    monkeypatch.setattr("knit_desktop.core.index.rel_ids.BULK_LOOKUP", 1)  # (the walk is looked up at once, as at 100,000)
    live = LiveRanking(workspace=str(root), persistent=True, follow=False)
    opened = []
    live.indexOpened.connect(lambda report: opened.append(list(made_on)))
    live.start()
    try:
        qtbot.waitUntil(lambda: bool(opened), timeout=10_000)
    finally:
        live.stop()
    assert opened[0] and threading.main_thread().name not in opened[0]
