"""The indexer thread and the folder watcher, with real files and qtbot (no sleeps)."""

from __future__ import annotations

import os
import shutil
import threading
import time

import pytest

from knit_desktop.core.workspace import RankInput, Workspace
from knit_desktop.services import watcher as watcher_module
from knit_desktop.services.indexer import FAILED_CANCELLED, PROGRESS_EVERY_S, IndexerService
from knit_desktop.services.watcher import WorkspaceWatcher

from .watch_fixtures import inotify_watches


@pytest.fixture
def live(qtbot, make_workspace):
    """A started indexer service and watcher over a small workspace, wired as the app wires them."""
    created = []

    def start(files: dict, persistent: bool = True, watch: bool = True):
        root = make_workspace(files)
        service = IndexerService(str(root), persistent=persistent)
        with qtbot.waitSignal(service.opened, timeout=20_000) as opened:
            service.start()
        watcher = None
        if watch:
            watcher = WorkspaceWatcher(str(root))
            service.follow(watcher)  # as the window wires them
            with qtbot.waitSignal(watcher.modeChanged, timeout=5000):  # the watches are in place
                watcher.start()
        created.append((service, watcher))
        return root, service, watcher, opened.args[0]

    yield start
    for service, watcher in created:
        if watcher is not None:
            watcher.stop()
        assert service.stop()


@pytest.fixture
def planned_watches(monkeypatch):
    """`planned_watches()`: the list of the roots the window's watcher plans watches for from then on."""

    def start() -> list:
        planned: list = []
        real_plan = watcher_module.plan_watches
        monkeypatch.setattr(watcher_module, "plan_watches", lambda root: planned.append(root) or real_plan(root))
        return planned

    return start


def top(qtbot, service, query):
    answers = {}
    service.ranked.connect(lambda token, payload: answers.__setitem__(token, payload))
    token = service.rank(RankInput.from_query(query), limit=3)
    qtbot.waitUntil(lambda: token in answers, timeout=5000)
    rows = answers[token].docs.rows
    return rows[0].rel if rows and rows[0].matched else None


def wait_for_top(qtbot, service, query, expected, timeout=8000):
    qtbot.waitUntil(lambda: top(qtbot, service, query) == expected, timeout=timeout)


def test_service_opens_reports_progress_and_statuses(qtbot, make_workspace):
    root = make_workspace({f"n{i}.md": f"# Note {i}\n\nbody" for i in range(30)} | {"bad.md": b"\x00" * 64})
    service = IndexerService(str(root))
    progress = []
    service.progress.connect(lambda done, total, rel: progress.append((done, total)))
    with qtbot.waitSignal(service.opened, timeout=20_000) as opened:
        service.start()
    assert opened.args[0].added == 31
    assert progress[-1] == (31, 31)
    assert service.stop()
    workspace = Workspace.open_persistent(str(root))  # the statuses were saved with the index
    try:
        status = workspace.statuses["bad.md"]
        assert (status.state, status.reason) == ("skipped", "binary content in a text file")
    finally:
        workspace.close()


def test_ranking_follows_creates_edits_atomic_saves_renames_and_deletes(qtbot, live):
    root, service, watcher, _ = live({"docs/a.md": "# Alpha\n\nnothing yet", "docs/b.md": "# Beta\n\nother"})
    assert watcher.mode == "watching"

    (root / "docs/new.md").write_text("# Zeppelin hangar\n\nairships", encoding="utf-8")  # create
    wait_for_top(qtbot, service, "zeppelin", "docs/new.md")

    (root / "docs/a.md").write_text("# Alpha\n\nmarmalade recipe", encoding="utf-8")  # edit
    wait_for_top(qtbot, service, "marmalade", "docs/a.md")

    tmp = root / "docs/.b.md.swp"  # an editor's atomic save: write a temp file, rename it over the original
    tmp.write_text("# Beta\n\nquokka census", encoding="utf-8")
    os.replace(tmp, root / "docs/b.md")
    wait_for_top(qtbot, service, "quokka", "docs/b.md")

    os.rename(root / "docs/new.md", root / "docs/renamed.md")  # rename
    wait_for_top(qtbot, service, "zeppelin", "docs/renamed.md")

    (root / "docs/renamed.md").unlink()  # delete
    wait_for_top(qtbot, service, "zeppelin", None)


def test_a_new_directory_full_of_files_is_picked_up(qtbot, live):
    root, service, _, _ = live({"a.md": "# A"})
    staging = root.parent / "staging"
    staging.mkdir()
    (staging / "deep.md").write_text("# Narwhal migration\n\nnotes", encoding="utf-8")
    os.rename(staging, root / "moved-in")
    wait_for_top(qtbot, service, "narwhal", "moved-in/deep.md")


def test_a_workspace_folder_replaced_by_a_new_one_is_watched_and_walked_again(qtbot, live):
    """The workspace folder moved aside and a new one made in its place (a fresh checkout, a restore): the watches
    followed the old folder and saw nothing of the new one. The window walks the new folder and watches it."""
    root, service, _watcher, _ = live({"a.md": "# Alpha\n\nalpha notes"})
    os.rename(root, root.with_name(root.name + ".old"))
    root.mkdir()
    (root / "zebra.md").write_text("# Zebra\n\nThe zebra herd moves north.", encoding="utf-8")
    wait_for_top(qtbot, service, "zebra herd", "zebra.md")
    (root / "okapi.md").write_text("# Okapi\n\nOkapi sightings.", encoding="utf-8")  # watched from then on
    wait_for_top(qtbot, service, "okapi sightings", "okapi.md")


def test_a_workspace_folder_deleted_and_made_again_is_watched_again(qtbot, live):
    """The workspace folder deleted while the window watches it: nothing fails (there is nothing to watch), and
    once a folder is made there again it is walked and watched."""
    root, service, watcher, _ = live({"a.md": "# Alpha\n\nalpha notes"})
    shutil.rmtree(root)
    qtbot.wait(1500)  # the deletion's events, then the identity check
    assert watcher.mode == "watching"
    root.mkdir()
    (root / "zebra.md").write_text("# Zebra\n\nThe zebra herd moves north.", encoding="utf-8")
    wait_for_top(qtbot, service, "zebra herd", "zebra.md")
    (root / "okapi.md").write_text("# Okapi\n\nOkapi sightings.", encoding="utf-8")
    wait_for_top(qtbot, service, "okapi sightings", "okapi.md")


def test_the_watches_are_set_up_off_the_gui_thread_at_start_and_when_folders_come(qtbot, live, monkeypatch):
    """watchdog adds an inotify watch per folder in the thread that schedules it: on the GUI thread that froze the
    window for 0.3-0.5 s at 3,200 folders, at open and again each time a folder came or went."""
    planned_on = []
    real_plan = watcher_module.plan_watches

    def recording_plan(root):
        planned_on.append(threading.current_thread())
        return real_plan(root)

    monkeypatch.setattr(watcher_module, "plan_watches", recording_plan)
    # node_modules beside it: the root is watched on its own, so a folder made there needs watches of its own
    root, service, watcher, _ = live({"a.md": "# Alpha\n\nalpha notes", "node_modules/x/y.md": "#"})
    (root / "new-folder").mkdir()
    (root / "new-folder" / "kiwi.md").write_text("# Kiwi\n\nKiwi orchard.", encoding="utf-8")
    wait_for_top(qtbot, service, "kiwi orchard", "new-folder/kiwi.md")
    # At start, and again for the new folder (its file may be reported, and ranked, before that re-plan has run).
    qtbot.waitUntil(lambda: len(planned_on) >= 2, timeout=5000)
    assert threading.main_thread() not in planned_on


def test_a_folder_made_below_a_recursively_watched_one_is_walked_without_planning_every_watch_again(
        qtbot, live, planned_watches):
    """watchdog watches a folder made below a recursively watched one itself: planning every watch again (0.3-0.4 s
    of listing and watching at 3,200 folders, each time a folder came or went) is left for the folders that need
    it. The walk is still asked for, and what the new folder holds is found."""
    planned = planned_watches()
    root, service, watcher, _ = live({"docs/a.md": "# Alpha\n\nalpha notes", "node_modules/x/y.md": "#"})
    assert len(planned) == 1
    with qtbot.waitSignal(watcher.rescanNeeded, timeout=5000):
        (root / "docs" / "new" / "deeper").mkdir(parents=True)
        (root / "docs" / "new" / "deeper" / "kiwi.md").write_text("# Kiwi\n\nKiwi orchard.", encoding="utf-8")
    wait_for_top(qtbot, service, "kiwi orchard", "docs/new/deeper/kiwi.md")
    (root / "docs" / "new" / "deeper" / "later.md").write_text("# Later\n\nPomelo grove.", encoding="utf-8")
    wait_for_top(qtbot, service, "pomelo grove", "docs/new/deeper/later.md")  # watched, with no plan made again
    assert len(planned) == 1
    with qtbot.waitSignal(watcher.rescanNeeded, timeout=5000):
        (root / "top").mkdir()  # beside node_modules: the root's own watch does not reach into it
    (root / "top" / "fig.md").write_text("# Fig\n\nFig harvest.", encoding="utf-8")
    wait_for_top(qtbot, service, "fig harvest", "top/fig.md")
    assert len(planned) == 2


def test_a_folder_copied_in_with_its_node_modules_has_the_watches_planned_again(qtbot, live, planned_watches,
                                                                               tmp_path):
    """A project copied below a recursively watched folder with its node_modules was left to watchdog, which then
    watched every folder of node_modules as well (2,046 watches instead of 5 for 2,000 folders there): the watches
    are planned again, around it."""
    planned = planned_watches()
    root, service, watcher, _ = live({"docs/a.md": "# Alpha\n\nalpha notes", "node_modules/x/y.md": "#"})
    project = tmp_path / "elsewhere" / "proj"
    (project / "node_modules" / "dep" / "lib").mkdir(parents=True)
    (project / "guide.md").write_text("# Guide\n\nKiwi orchard.", encoding="utf-8")
    assert len(planned) == 1
    with qtbot.waitSignal(watcher.rescanNeeded, timeout=5000):
        shutil.copytree(project, root / "docs" / "proj")
    wait_for_top(qtbot, service, "kiwi orchard", "docs/proj/guide.md")
    assert len(planned) == 2


def test_once_the_system_refuses_a_watch_for_a_new_folder_the_window_polls(qtbot, live, refuse_watches):
    """At the system's limit on inotify watches, watchdog logs the watch it could not add for a new folder below a
    recursive watch and goes on: the window went on watching, blind to that folder (with a 300-watch limit and 400
    folders made in docs/, a file written in the last one never reached the index). Planned again, the watches
    fail and the window polls, as it did when every new folder planned them anew."""
    root, service, watcher, _ = live({"docs/a.md": "# Alpha\n\nalpha notes", "node_modules/x/y.md": "#"})
    assert watcher.mode == watcher_module.MODE_WATCHING
    refuse_watches("refused")
    (root / "docs" / "refused").mkdir()
    qtbot.waitUntil(lambda: watcher.mode == watcher_module.MODE_POLLING, timeout=5000)
    (root / "docs" / "refused" / "kiwi.md").write_text("# Kiwi\n\nKiwi orchard.", encoding="utf-8")
    wait_for_top(qtbot, service, "kiwi orchard", "docs/refused/kiwi.md")


def test_a_file_written_before_the_watches_are_in_place_is_found_by_one_more_walk(qtbot, make_workspace,
                                                                                  monkeypatch):
    """The first walk and the setting up of the watches run side by side: a file written into a folder the walk
    had passed, before that folder was watched, was in neither, and the index vouched for itself without it."""
    root = make_workspace({"a.md": "# Alpha\n\nalpha notes"})
    service = IndexerService(str(root))
    with qtbot.waitSignal(service.opened, timeout=20_000):
        service.start()

    class LateObserver(watcher_module.Observer):
        def start(self):
            (root / "gap.md").write_text("# Walrus\n\nThe walrus colony.", encoding="utf-8")
            super().start()  # the write above predates every watch: no event for it

    monkeypatch.setattr(watcher_module, "Observer", LateObserver)
    watcher = WorkspaceWatcher(str(root))
    service.follow(watcher)
    try:
        with qtbot.waitSignal(watcher.modeChanged, timeout=5000):
            watcher.start()
        wait_for_top(qtbot, service, "walrus colony", "gap.md")
    finally:
        watcher.stop()
        assert service.stop()


def test_a_watcher_started_again_while_its_first_start_is_under_way_watches_once_and_stops_for_good(
        qtbot, make_workspace, monkeypatch):
    """stop(wait=False) hands the first start's thread its last step and a new start gets a thread of its own:
    the two ran side by side, the first start's observer took the second one's place and was stopped, and the
    second one ran on unseen (its threads and inotify instance alive after stop(), its folders never planned
    again, the identity check blind)."""
    root = make_workspace({"a.md": "# A", "sub/b.md": "# B"})
    first_may_go_on = threading.Event()
    calls = []
    real_plan = watcher_module.plan_watches

    def plan(folder):
        calls.append(folder)
        if len(calls) == 1:
            first_may_go_on.wait(10)  # the first start is setting its watches up all along
        return real_plan(folder)

    monkeypatch.setattr(watcher_module, "plan_watches", plan)
    before = set(threading.enumerate())
    watcher = WorkspaceWatcher(str(root))
    watcher.start()
    qtbot.waitUntil(lambda: len(calls) == 1, timeout=5000)
    watcher.stop(wait=False)
    watcher.start()
    try:
        qtbot.wait(500)  # (the second start, left to itself, is in place by now)
        first_may_go_on.set()
        qtbot.waitUntil(lambda: watcher.mode == "watching", timeout=5000)
        qtbot.wait(300)  # what the first start still had to do is done
        seen = []
        watcher.pathsChanged.connect(seen.extend)
        (root / "c.md").write_text("# C", encoding="utf-8")
        qtbot.waitUntil(lambda: "c.md" in seen, timeout=5000)
    finally:
        first_may_go_on.set()
        watcher.stop()
    left = [t for t in threading.enumerate() if t not in before and t.is_alive()]
    assert not left


def test_a_watcher_stopped_while_its_watches_are_set_up_sets_up_no_more_of_them(qtbot, make_workspace,
                                                                               monkeypatch):
    """The window stops a watcher when it switches to another workspace, its setup perhaps under way. That setup
    went on to the end and started a thread per watch: switching through four copies of a 3,200-folder tree
    twelve times in 0.9 s, the stopped watchers' setups ran side by side (2,800 threads) and the last
    workspace's watches were in place 23 s later (6.6 s now)."""
    root = make_workspace({f"d{i}/n.md": f"# Note {i}" for i in range(40)})
    halfway, stopped = threading.Event(), threading.Event()
    scheduled = []

    class CountingObserver(watcher_module.Observer):
        def schedule(self, handler, path, recursive=False, **kwargs):
            scheduled.append(path)
            if len(scheduled) == 5:
                halfway.set()
                stopped.wait(10)
            return super().schedule(handler, path, recursive=recursive, **kwargs)

    monkeypatch.setattr(watcher_module, "Observer", CountingObserver)
    monkeypatch.setattr(watcher_module, "plan_watches",
                        lambda folder: [(folder, False)] + [(str(root / f"d{i}"), False) for i in range(40)])
    modes = []
    watcher = WorkspaceWatcher(str(root))
    watcher.modeChanged.connect(lambda mode, _detail: modes.append(mode))
    watcher.start()
    try:
        qtbot.waitUntil(halfway.is_set, timeout=5000)
        watcher.stop(wait=False)
    finally:
        stopped.set()
    qtbot.waitUntil(lambda: not any(t.name.startswith("knit-watch-setup") for t in threading.enumerate()),
                    timeout=5000)
    qtbot.wait(100)
    assert len(scheduled) <= 6
    assert modes == ["stopped"]


def _lease(root) -> tuple[int, int] | None:
    """The index's watch lease as stored: (holder's pid, until in epoch ms), or None."""
    import sqlite3

    from knit_desktop.core.paths import index_db_path

    db = sqlite3.connect(str(index_db_path(os.path.realpath(root))))
    try:
        row = db.execute("SELECT value FROM meta WHERE key = 'watch_lease'").fetchone()
    finally:
        db.close()
    return None if row is None else (int(row[0].split()[0]), int(row[0].split()[1]))


def test_the_index_gives_its_lease_back_while_directories_that_came_are_not_walked_yet(qtbot, live,
                                                                                       monkeypatch):
    """A folder moved in is seen at once, but its files are indexed only by the walk that follows the re-plan
    (0.3-0.5 s at 3,200 folders, then the walk): meanwhile a command trusting the lease missed them (20,000
    files moved into the 20,713-file tree: a trusting `rank` 1.5 s later found 2,200). The lease goes first,
    as the MCP server's does, and comes back once the walk is done."""
    root, service, watcher, _ = live({"a.md": "# Alpha\n\nalpha notes"})
    qtbot.waitUntil(lambda: _lease(root) is not None, timeout=5000)
    replan_may_go_on = threading.Event()
    real_plan = watcher_module.plan_watches

    def slow_plan(folder):
        replan_may_go_on.wait(10)  # a large tree's re-plan
        return real_plan(folder)

    monkeypatch.setattr(watcher_module, "plan_watches", slow_plan)
    try:
        moved = root.parent / "incoming"
        (moved / "deep").mkdir(parents=True)
        (moved / "deep" / "okapi.md").write_text("# Okapi\n\nOkapi sightings.", encoding="utf-8")
        os.rename(moved, root / "incoming")
        qtbot.waitUntil(lambda: _lease(root) is None, timeout=5000)
    finally:
        replan_may_go_on.set()
    wait_for_top(qtbot, service, "okapi sightings", "incoming/deep/okapi.md")
    qtbot.waitUntil(lambda: _lease(root) is not None, timeout=5000)


def test_a_folder_walked_alone_does_not_vouch_for_one_that_came_after_it(qtbot, live, monkeypatch):
    """The walk asked for after one folder came covers that folder only: a folder that came while the watcher was
    still looking at the first (whether the watches follow lists the new folder's subtree: a copied tree of 3,000
    folders takes a while) waits for a walk of its own, and the lease stays away until that one is done too (taken
    back after the first walk, a command trusting the index missed the second folder's files)."""
    from knit_desktop.core.index.watching import WatchPlan

    root, service, watcher, _ = live({"a.md": "# Alpha\n\nalpha notes", "docs/b.md": "# Bravo\n\nbravo notes"})
    qtbot.waitUntil(lambda: _lease(root) is not None, timeout=5000)
    looking = [threading.Event(), threading.Event()]
    may_go_on = [threading.Event(), threading.Event()]
    real_covers = WatchPlan.covers

    def slow_covers(plan, folders):  # listing a large new subtree, the watches in place
        step = sum(event.is_set() for event in looking)
        if step < 2:
            looking[step].set()
            may_go_on[step].wait(10)
        return real_covers(plan, folders)

    monkeypatch.setattr(WatchPlan, "covers", slow_covers)
    try:
        (root / "docs" / "first").mkdir()
        (root / "docs" / "first" / "fig.md").write_text("# Fig\n\nFig harvest.", encoding="utf-8")
        qtbot.waitUntil(looking[0].is_set, timeout=5000)
        with qtbot.waitSignal(watcher.rescanPending, timeout=5000):
            (root / "docs" / "second").mkdir()
            (root / "docs" / "second" / "okapi.md").write_text("# Okapi\n\nOkapi sightings.", encoding="utf-8")
        may_go_on[0].set()
        wait_for_top(qtbot, service, "fig harvest", "docs/first/fig.md")  # the first folder's walk is done
        assert _lease(root) is None  # the second folder's is not
    finally:
        for event in may_go_on:
            event.set()
    wait_for_top(qtbot, service, "okapi sightings", "docs/second/okapi.md")
    qtbot.waitUntil(lambda: _lease(root) is not None, timeout=5000)


def test_a_file_written_while_the_watches_are_planned_again_is_indexed(qtbot, live, monkeypatch):
    """A folder made beside node_modules (the root watched on its own) has every watch planned again: the watches
    are taken down and set up anew, 0.3-0.5 s at 3,200 folders in which nothing is heard. A file written elsewhere
    meanwhile is found by the walk that follows, which is then of the whole workspace (walking only the new folder,
    it was never indexed)."""
    root, service, watcher, _ = live({"a.md": "# Alpha\n\nalpha notes", "docs/b.md": "# Bravo\n\nbravo notes",
                                      "node_modules/x/y.md": "#"})
    real_plan = watcher_module.plan_watches
    okapi = root / "docs" / "okapi.md"

    def plan_while_written(folder):
        okapi.write_text("# Okapi\n\nOkapi sightings.", encoding="utf-8")  # while no watch is in place
        return real_plan(folder)

    monkeypatch.setattr(watcher_module, "plan_watches", plan_while_written)
    with qtbot.waitSignal(watcher.rescanNeeded, timeout=5000):
        (root / "top").mkdir()
        (root / "top" / "fig.md").write_text("# Fig\n\nFig harvest.", encoding="utf-8")
    monkeypatch.setattr(watcher_module, "plan_watches", real_plan)
    assert okapi.exists()
    wait_for_top(qtbot, service, "fig harvest", "top/fig.md")
    wait_for_top(qtbot, service, "okapi sightings", "docs/okapi.md")


def test_a_file_replaced_by_a_folder_of_its_name_is_forgotten_and_back_again(qtbot, live):
    """A file deleted and a folder made in its place (or the other way round) within the quiet period: the walk of
    the folder covers what is below it, not the file of the same name, which is applied as reported (left out, the
    deleted file stayed in the index, or the new one never came in)."""
    root, service, watcher, _ = live({"a.md": "# Alpha\n\nalpha notes", "plan.md": "# Plan\n\nquince harvest"})
    wait_for_top(qtbot, service, "quince harvest", "plan.md")
    with qtbot.waitSignal(watcher.rescanNeeded, timeout=5000):
        (root / "plan.md").unlink()
        (root / "plan.md").mkdir()
        (root / "plan.md" / "inner.md").write_text("# Inner\n\nkiwi orchard", encoding="utf-8")
    wait_for_top(qtbot, service, "kiwi orchard", "plan.md/inner.md")
    wait_for_top(qtbot, service, "quince harvest", None)
    with qtbot.waitSignal(watcher.rescanNeeded, timeout=5000):
        shutil.rmtree(root / "plan.md")
        (root / "plan.md").write_text("# Plan\n\nfig harvest", encoding="utf-8")
    wait_for_top(qtbot, service, "kiwi orchard", None)
    wait_for_top(qtbot, service, "fig harvest", "plan.md")


def test_the_index_holds_no_lease_while_its_folder_is_polled(qtbot, live, monkeypatch):
    """Polled, a change is seen up to POLL_INTERVAL_S (2 s) later: a command trusting the lease 1.5 s after a
    file was written did not find it. As the MCP server, the window vouches for its index only while the
    system's notifications feed it."""
    def refuse(self, *args, **kwargs):
        raise OSError(28, "inotify watch limit reached")

    monkeypatch.setattr(watcher_module.Observer, "schedule", refuse)
    root, service, watcher, _ = live({"a.md": "# Alpha\n\nalpha notes"})
    assert watcher.mode == "polling"
    (root / "b.md").write_text("# Bravo\n\nbravo notes", encoding="utf-8")
    wait_for_top(qtbot, service, "bravo notes", "b.md")  # (the worker has heard of the mode meanwhile)
    assert _lease(root) is None


def test_events_the_system_lost_make_the_window_walk(qtbot, live):
    """A loss of events (the system's queue overflowed: a large checkout, an unzip): only a walk can say what
    changed."""
    from watchdog.events import EventsLostEvent

    root, service, watcher, _ = live({"a.md": "# Alpha\n\nalpha notes"})
    forwarder = watcher_module._Forwarder(watcher)
    with qtbot.waitSignal(watcher.rescanNeeded, timeout=5000):
        forwarder.dispatch(EventsLostEvent(str(root.resolve()), is_directory=True))


def test_changes_in_ignored_directories_are_not_reported(qtbot, make_workspace):
    root = make_workspace({"a.md": "# A"})
    (root / "node_modules").mkdir()
    watcher = WorkspaceWatcher(str(root))
    seen = []
    watcher.pathsChanged.connect(seen.extend)
    with qtbot.waitSignal(watcher.modeChanged, timeout=5000):  # the watches are in place
        watcher.start()
    try:
        (root / "node_modules" / "x.md").write_text("ignored", encoding="utf-8")
        (root / "b.md").write_text("# B", encoding="utf-8")
        qtbot.waitUntil(lambda: "b.md" in seen, timeout=5000)
        assert not any(rel.startswith("node_modules") for rel in seen)
    finally:
        watcher.stop()


def test_falls_back_to_polling_when_the_os_refuses_watches(qtbot, make_workspace, monkeypatch):
    class RefusingObserver(watcher_module.Observer):
        def schedule(self, *args, **kwargs):
            raise OSError(28, "inotify watch limit reached")

    monkeypatch.setattr(watcher_module, "Observer", RefusingObserver)
    monkeypatch.setattr(watcher_module, "POLL_INTERVAL_S", 0.2)
    root = make_workspace({"a.md": "# A"})
    watcher = WorkspaceWatcher(str(root))
    seen = []
    watcher.pathsChanged.connect(seen.extend)
    with qtbot.waitSignal(watcher.modeChanged, timeout=5000):  # the watches are in place
        watcher.start()
    try:
        assert watcher.mode == "polling" and watcher.mode_detail
        (root / "c.md").write_text("# C", encoding="utf-8")
        qtbot.waitUntil(lambda: "c.md" in seen, timeout=8000)
    finally:
        watcher.stop()


def test_the_window_hears_of_indexing_progress_a_few_times_a_second_not_once_a_file(qtbot, make_workspace):
    # Each signal runs a slot on the GUI thread, which takes the GIL from the indexer for it: once a file, a first
    # index of 100,000 files kept the window waiting on the GIL the whole build.
    root = make_workspace({f"n{i:04}.md": f"# Note {i}\n\n" + "words " * 50 for i in range(1500)})
    service = IndexerService(str(root))
    progress = []
    service.progress.connect(lambda done, total, rel: progress.append((time.monotonic(), done, total)))
    with qtbot.waitSignal(service.opened, timeout=30_000):
        service.start()
    assert service.stop()
    assert progress[-1][1:] == (1500, 1500)
    took = progress[-1][0] - progress[0][0]
    assert len(progress) <= took / PROGRESS_EVERY_S + 3
    assert len(progress) < 300


def test_indexing_can_be_cancelled(qtbot, make_workspace):
    root = make_workspace({f"n{i:04}.md": f"# Note {i}\n\n" + "words " * 200 for i in range(1500)})
    service = IndexerService(str(root))
    service.progress.connect(lambda done, total, rel: service.cancel() if 0 < done < total else None)
    with qtbot.waitSignal(service.failed, timeout=20_000) as failed:
        service.start()
    assert failed.args[0] == FAILED_CANCELLED
    assert service.stop()


def test_watch_plan_covers_every_kept_directory_and_no_ignored_one(make_workspace):
    from knit_desktop.services.watcher import plan_watches

    root = make_workspace(
        {
            "docs/a/x.md": "#",
            "packages/x/src/y.md": "#",
            "packages/x/node_modules/dep/z.md": "#",
            "node_modules/big/w.md": "#",
            ".git/objects/o": "",
        }
    )
    plan = {(os.path.relpath(d, root), recursive) for d, recursive in plan_watches(str(root))}
    assert plan == {(".", False), ("docs", True), ("packages", False), ("packages/x", False), ("packages/x/src", True)}
    clean = make_workspace({"a/b/c.md": "#"}, name="clean")
    assert plan_watches(str(clean)) == [(str(clean), True)]


@pytest.mark.skipif(not os.path.isdir("/proc/self/fdinfo"), reason="needs Linux /proc")
def test_ignored_directories_get_no_inotify_watch(qtbot, make_workspace):
    files = {f"node_modules/pkg{i}/index.md": "#" for i in range(60)}
    files |= {f".git/objects/{i:02x}/o": "" for i in range(30)}
    files |= {"docs/a/x.md": "#", "docs/b/y.md": "#", "notes/z.md": "#"}
    root = make_workspace(files)
    before = inotify_watches()
    watcher = WorkspaceWatcher(str(root))
    with qtbot.waitSignal(watcher.modeChanged, timeout=5000):  # the watches are in place
        watcher.start()
    try:
        assert watcher.mode == "watching"
        # root, docs, docs/a, docs/b, notes: nothing under node_modules or .git
        assert inotify_watches() - before == 5
        seen = []
        watcher.pathsChanged.connect(seen.extend)
        (root / "docs" / "a" / "new.md").write_text("# New", encoding="utf-8")
        qtbot.waitUntil(lambda: "docs/a/new.md" in seen, timeout=5000)
        # A directory created later under the (non-recursively watched) root is re-planned and watched.
        with qtbot.waitSignal(watcher.rescanNeeded, timeout=5000):
            (root / "later").mkdir()
        (root / "later" / "f.md").write_text("# F", encoding="utf-8")
        qtbot.waitUntil(lambda: "later/f.md" in seen, timeout=5000)
        assert inotify_watches() - before == 6
    finally:
        watcher.stop()


def test_the_window_walks_only_the_folders_that_came_or_went(qtbot, live, monkeypatch):
    """A folder made, moved or deleted is walked alone (the whole walk took 90-160 ms at 20,000 files each time);
    a file changed elsewhere in the same moment is applied as reported, and lost events still walk everything."""
    from watchdog.events import EventsLostEvent

    from knit_desktop.core import workspace as workspace_module

    root, service, watcher, _ = live({"docs/a.md": "# Alpha\n\nalpha notes", "b.md": "# Bravo\n\nbravo notes"})
    wait_for_top(qtbot, service, "alpha notes", "docs/a.md")  # (the worker is past what the open queued)
    walked: list = []
    real_scan = workspace_module.scan_workspace

    def recording_scan(root, statuses=None, under=""):
        walked.append(under if isinstance(under, str) else list(under))
        return real_scan(root, statuses, under=under) if under != "" else real_scan(root, statuses)

    monkeypatch.setattr(workspace_module, "scan_workspace", recording_scan)
    with qtbot.waitSignal(watcher.rescanNeeded, timeout=5000) as needed:
        (root / "docs" / "kiwi").mkdir()
        (root / "docs" / "kiwi" / "orchard.md").write_text("# Kiwi\n\nKiwi orchard.", encoding="utf-8")
        (root / "b.md").write_text("# Bravo\n\nbravo quince", encoding="utf-8")  # elsewhere, the same moment
    assert needed.args == [["docs/kiwi"]]
    wait_for_top(qtbot, service, "kiwi orchard", "docs/kiwi/orchard.md")
    wait_for_top(qtbot, service, "bravo quince", "b.md")
    qtbot.waitUntil(lambda: walked == [["docs/kiwi"]], timeout=5000)

    with qtbot.waitSignal(watcher.rescanNeeded, timeout=5000) as needed:
        os.rename(root / "docs" / "kiwi", root / "fruit")
    assert needed.args == [["docs/kiwi", "fruit"]]
    wait_for_top(qtbot, service, "kiwi orchard", "fruit/orchard.md")
    qtbot.waitUntil(lambda: walked[1:] == [["docs/kiwi", "fruit"]], timeout=5000)

    with qtbot.waitSignal(watcher.rescanNeeded, timeout=5000):
        shutil.rmtree(root / "fruit")
    wait_for_top(qtbot, service, "kiwi orchard", None)
    assert walked[2:] == [["fruit"]]

    with qtbot.waitSignal(watcher.rescanNeeded, timeout=5000) as needed:
        watcher_module._Forwarder(watcher).dispatch(EventsLostEvent(str(root.resolve()), is_directory=True))
    assert needed.args == [[""]]
    qtbot.waitUntil(lambda: walked[3:] == [""], timeout=5000)
