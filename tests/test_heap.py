"""A long conversation must not keep its old rankings: each one is freed as soon as the next is shown."""

from __future__ import annotations

import gc
import os
import platform
import sys
import weakref

import pytest

from knit_desktop.core.dsh.conversation import Message
from knit_desktop.core.heap import (
    HELD_FULL_THRESHOLD,
    full_collections_held,
    hold_full_collections,
    release_full_collections,
    release_heap,
    settle_heap,
)
from knit_desktop.core.workspace import Workspace
from knit_desktop.services.heap_keeper import HeapKeeper
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


class _Cycle:
    def __init__(self) -> None:
        self.me = self


def _old_garbage() -> weakref.ref:
    """A reference cycle in the oldest generation, unreachable: only a full collection frees it."""
    cycle = _Cycle()
    ref = weakref.ref(cycle)
    gc.collect(1)  # survivors of a collection of generation 1 move to the oldest generation
    del cycle
    return ref


def test_holding_full_collections_nests_and_gives_back_the_thresholds():
    before = gc.get_threshold()
    hold_full_collections()
    hold_full_collections()
    try:
        assert gc.get_threshold() == (before[0], before[1], HELD_FULL_THRESHOLD)
        release_full_collections()
        assert full_collections_held()
        assert gc.get_threshold() == (before[0], before[1], HELD_FULL_THRESHOLD)
    finally:
        release_full_collections()
    assert not full_collections_held()
    assert gc.get_threshold() == before


def test_the_window_runs_full_collections_when_quiet_and_not_while_rankings_arrive(qtbot):
    keeper = HeapKeeper(check_ms=60_000, quiet_ms=300, longest_ms=60_000)
    collected: list[tuple[int, float]] = []
    keeper.collected.connect(lambda freed, ms: collected.append((freed, ms)))
    keeper.start()
    try:
        assert full_collections_held()
        garbage = _old_garbage()
        keeper.note_activity()
        keeper.check()  # a ranking was just shown: not now
        assert garbage() is not None and not collected
        qtbot.wait(400)
        keeper.check()  # quiet for longer than quiet_ms: now
        assert garbage() is None
        assert collected and collected[0][0] >= 1
    finally:
        keeper.stop()
    assert not full_collections_held()


def test_the_window_lets_go_of_the_source_lines_pyside_read_on_import(qtbot, tmp_path, settings):
    """PySide6 reads the whole source of each module imported after it, and Python's linecache keeps it (11 MB
    in the window at its start): the window lets go of it before its index opens and at each quiet collection."""
    import linecache

    from knit_desktop.ui.app import KnitApp

    def source_held() -> bool:
        return any(name.endswith(("/json/decoder.py", "\\json\\decoder.py")) for name in linecache.cache)

    import json.decoder

    linecache.getlines(json.decoder.__file__)  # what PySide6's import hook does for every module
    assert source_held()
    knit = KnitApp(workspace=None, dsh_home=str(tmp_path / "no-dsh"), messages=None, settings=settings,
                   persistent=False)
    try:
        assert not source_held()
        linecache.getlines(json.decoder.__file__)
        knit.heap.quiet_ms = 0
        _old_garbage()  # (something for the full collection to do)
        knit.heap.check()
        assert not source_held()
    finally:
        knit.close()


def test_a_window_that_never_goes_quiet_still_gets_its_full_collection(qtbot):
    keeper = HeapKeeper(check_ms=60_000, quiet_ms=60_000, longest_ms=200)
    keeper.start()
    try:
        garbage = _old_garbage()
        keeper.note_activity()
        qtbot.wait(300)
        keeper.note_activity()
        keeper.check()
        assert garbage() is None
    finally:
        keeper.stop()


def test_an_open_window_holds_full_collections_and_its_close_gives_them_back(qtbot, tmp_path, settings):
    from knit_desktop.ui.app import KnitApp

    before = gc.get_threshold()
    knit = KnitApp(workspace=None, dsh_home=str(tmp_path / "no-dsh"), messages=None, settings=settings,
                   persistent=False)
    try:
        assert gc.get_threshold()[2] == HELD_FULL_THRESHOLD
    finally:
        knit.close()
    assert gc.get_threshold() == before


def _recording_open(monkeypatch) -> list[bool]:
    """Workspace.open_persistent, noting whether automatic full collections were held while it ran."""
    held: list[bool] = []
    real = Workspace.open_persistent.__func__

    def recording(cls, *args, **kwargs):
        held.append(full_collections_held())
        return real(cls, *args, **kwargs)

    monkeypatch.setattr(Workspace, "open_persistent", classmethod(recording))
    return held


def test_knit_desktop_index_builds_without_automatic_full_collections(make_workspace, monkeypatch, tmp_path):
    from knit_desktop.cli import main

    monkeypatch.setenv("KNIT_DESKTOP_HOME", str(tmp_path / "home"))
    root = make_workspace({"notes/a.md": "# A\n\ncache eviction", "notes/b.md": "# B\n\nvector clocks"})
    held = _recording_open(monkeypatch)
    assert main(["index", "--workspace", str(root)]) == 0
    assert held == [True] and not full_collections_held()


def test_the_builder_process_builds_without_automatic_full_collections(make_workspace, monkeypatch, tmp_path):
    from knit_desktop.core.building import built

    monkeypatch.setenv("KNIT_DESKTOP_HOME", str(tmp_path / "home"))
    root = make_workspace({"notes/a.md": "# A\n\ncache eviction"})
    held = _recording_open(monkeypatch)
    workspace = built(str(root))
    workspace.close()
    assert held == [True] and not full_collections_held() and len(workspace.index.docs) == 1


@pytest.mark.skipif(not sys.platform.startswith("linux") or platform.libc_ver()[0] != "glibc",
                    reason="malloc_trim is glibc's")
def test_settling_the_heap_gives_freed_memory_back_to_the_system():
    """What a burst of short-lived allocations freed (opening a 100,000-file index walks the workspace) goes back to
    the system: glibc kept it in its heap, and the process stayed 14 MB larger for good."""

    def resident_mb() -> float:
        with open("/proc/self/statm") as statm:
            return int(statm.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 2**20

    # 60 MB in blocks too large for Python's own allocator and too small for glibc to map each on its own; one in
    # sixteen is kept, so the heap cannot shrink from its top and only pages inside it can go back.
    blocks = [bytearray(2000) for _ in range(30_000)]
    kept = blocks[::16]
    del blocks
    before = resident_mb()
    settle_heap()
    after = resident_mb()
    release_heap()
    assert len(kept) == 1875
    assert before - after > 20, (before, after)
