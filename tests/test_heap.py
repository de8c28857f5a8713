"""A long conversation must not keep its old rankings: each one is freed as soon as the next is shown."""

from __future__ import annotations

import gc
import weakref

from knit_desktop.core.dsh.conversation import Message
from knit_desktop.core.workspace import Workspace
from knit_desktop.services.live_ranking import LiveRanking

ROUNDS = 20


def test_delivered_rankings_are_freed_by_reference_counting_alone(qtbot, make_workspace, monkeypatch):
    files = {f"notes/cache-{i}.md": f"# Cache note {i}\n\neviction order and retry backoff {i}" for i in range(30)}
    files.update({f"notes/sync-{i}.md": f"# Sync {i}\n\nvector clocks and conflict {i}" for i in range(30)})
    root = make_workspace(files)
    made: list[weakref.ref] = []
    real_rank = Workspace.rank

    def recording_rank(self, *args, **kwargs):
        ranking = real_rank(self, *args, **kwargs)
        made.append(weakref.ref(ranking))
        return ranking

    monkeypatch.setattr(Workspace, "rank", recording_rank)
    live = LiveRanking(workspace=str(root), persistent=False, follow=False)
    delivered: list[weakref.ref] = []  # the ViewResults the window was given
    live.rankingChanged.connect(lambda result: delivered.append(weakref.ref(result)))
    live.start()
    gc.collect()
    gc.disable()  # freed by reference counting, never by waiting for the collector (a frozen heap never gets it)
    try:
        qtbot.waitUntil(lambda: bool(delivered), timeout=10_000)
        for i in range(ROUNDS):
            before = len(delivered)
            topic = "cache eviction" if i % 2 else "vector clocks"
            live.set_messages([Message("user", f"round {i}: what about the {topic}?")])
            qtbot.waitUntil(lambda before=before: len(delivered) > before, timeout=10_000)
        qtbot.wait(200)  # the worker's frame that built the last one has returned
        assert len(made) >= ROUNDS and len(delivered) > ROUNDS
        alive = [ref for ref in made if ref() is not None]
        assert not alive, f"{len(alive)} of {len(made)} rankings are still alive"
        shown = [ref for ref in delivered if ref() is not None]
        assert shown == delivered[-1:], f"{len(shown)} delivered results alive; only the one shown should be"
    finally:
        gc.enable()
        live.stop()
