"""A workspace's first build runs in a builder process while the window's indexer thread waits for it and then
opens what it saved (core/building.py): the window still hears the progress and gets the same index and
rankings, a cancel or a switch stops the builder and every worker it started, a builder that fails or is killed
is reported in one line, and what it left behind opens."""

from __future__ import annotations

import multiprocessing
import os
import signal
import sqlite3
from pathlib import Path

import pytest

from knit_desktop.core import building
from knit_desktop.core import workspace as workspace_module
from knit_desktop.core.building import needs_cold_build
from knit_desktop.core.index.scan import holds_at_least
from knit_desktop.core.workspace import Workspace
from knit_desktop.services.indexer import FAILED_CANCELLED, FAILED_OPEN, IndexerService

from .conftest import NOW_MS, write_file
from .test_parallel_indexing import _index_picture, _mixed_workspace, _rankings


@pytest.fixture(autouse=True)
def _every_first_build_apart(monkeypatch):
    """Small workspaces make quick tests: here they are built apart too (the tests of the threshold undo it)."""
    monkeypatch.setattr(building, "BUILD_APART_MIN_FILES", 0)


def _builders() -> list[multiprocessing.process.BaseProcess]:
    return [p for p in multiprocessing.active_children() if p.name == "knit-build"]


def _group_gone(pgid: int) -> bool:
    try:
        os.killpg(pgid, 0)
    except ProcessLookupError:
        return True
    except PermissionError:
        return False
    return False


def _many_notes(root: Path, count: int) -> Path:
    """Enough files for the builder to prepare them in worker processes of its own (PARALLEL_MIN_FILES)."""
    topics = ["cache eviction", "retry backoff", "budget owner", "export sidecar", "hiring plan"]
    for i in range(count):
        topic = topics[i % len(topics)]
        write_file(root, f"n/{i:05}.md", f"# {topic.title()} {i}\n\n" + f"{topic} words and more words {i}\n" * 40,
                   NOW_MS - i * 60_000)
    return root


def _open_service(qtbot, root: Path) -> tuple[IndexerService, list, object]:
    service = IndexerService(str(root))
    progress: list = []
    service.progress.connect(lambda done, total, rel: progress.append((done, total)))
    with qtbot.waitSignal(service.opened, timeout=60_000) as opened:
        service.start()
    return service, progress, opened.args[0]


def _carries_on_to_the_same_index(qtbot, root: Path, files: int) -> None:
    """The next open of what a stopped builder left carries on from it to the index a whole build makes."""
    service, _, report = _open_service(qtbot, root)
    assert service.stop()
    assert report.added + report.unchanged == files
    reopened = Workspace.open_persistent(str(root))
    try:
        assert _rankings(reopened) == _rankings(Workspace.open(str(root)))
    finally:
        reopened.close()


def test_a_first_build_runs_in_a_builder_process_and_the_window_gets_the_same_index(qtbot, tmp_path, monkeypatch):
    root = _mixed_workspace(tmp_path / "ws")
    expected_rankings = _rankings(Workspace.open(str(root)))
    expected = _index_picture(Workspace.open(str(root)))
    failed = {rel for rel, status in expected["statuses"].items() if status.state == "failed"}
    assert needs_cold_build(str(root))
    # Nothing of the workspace is indexed in the window's process: its indexer only opens the result.
    updated: list[str] = []
    original = Workspace._update
    monkeypatch.setattr(Workspace, "_update", lambda self, cand, *a: updated.append(cand.rel) or original(self, cand, *a))
    # Nor walked again once built: the builder just did, and the watcher reports what changes after.
    walked: list[str] = []
    walk = workspace_module.scan_workspace
    monkeypatch.setattr(workspace_module, "scan_workspace", lambda root, *a: walked.append(root) or walk(root, *a))

    service, progress, report = _open_service(qtbot, root)
    try:
        assert updated == [] and walked == []
        assert report.added == len(expected["statuses"]) and report.unchanged == 0
        assert report.total == len(expected["statuses"])
        assert progress[-1] == (report.added, report.added)  # the window still hears the build's progress
        assert not needs_cold_build(str(root))
        assert _builders() == []
    finally:
        assert service.stop()
    reopened = Workspace.open_persistent(str(root))
    try:
        assert reopened.last_refresh.loaded_from == "snapshot" and set(reopened.last_refresh.paths) <= failed
        assert _rankings(reopened) == expected_rankings
        picture = _index_picture(reopened)
        assert picture["statuses"] == expected["statuses"]
        assert picture["postings"] == expected["postings"]
    finally:
        reopened.close()


def test_a_library_folder_s_first_build_runs_in_a_builder_process_too(qtbot, tmp_path, make_workspace, monkeypatch):
    root = make_workspace({"notes.md": "# Notes\n\nthe workspace's own note\n"})
    Workspace.open_persistent(str(root)).close()  # (the workspace is built: only the folder is new)
    folder = _many_notes(tmp_path / "library", 30)
    assert needs_cold_build(str(folder))
    service, _, _ = _open_service(qtbot, root)
    updated: list[str] = []
    original = Workspace._update
    monkeypatch.setattr(Workspace, "_update", lambda self, cand, *a: updated.append(cand.rel) or original(self, cand, *a))
    try:
        with qtbot.waitSignal(service.libraryChanged, timeout=60_000) as changed:
            service.set_library([str(folder)])
        folders = changed.args[0]
        assert [f.problem for f in folders] == [""] and updated == []  # built apart, none of it in this process
        assert not needs_cold_build(str(folder)) and _builders() == []
    finally:
        assert service.stop()
    built = Workspace.open_persistent(str(folder))
    try:
        assert built.last_refresh.loaded_from == "snapshot" and built.last_refresh.unchanged == 30
    finally:
        built.close()


def test_an_index_already_built_is_opened_in_process_without_a_builder(qtbot, make_workspace, monkeypatch):
    root = make_workspace({f"n{i}.md": f"# Note {i}\n\nbody {i}" for i in range(20)})
    Workspace.open_persistent(str(root)).close()
    monkeypatch.setattr(building, "build_apart", lambda *a, **k: pytest.fail("a builder for a built index"))
    service, _, report = _open_service(qtbot, root)
    try:
        assert report.loaded_from == "snapshot" and report.unchanged == 20
    finally:
        assert service.stop()


def test_an_index_of_an_older_schema_is_built_again_in_a_builder_process(qtbot, make_workspace, monkeypatch):
    """A new version that reads every file again (a schema change) does it as a first build is done: apart."""
    from knit_desktop.core.paths import index_db_path

    root = make_workspace({f"n{i}.md": f"# Note {i}\n\nbody {i}" for i in range(20)})
    Workspace.open_persistent(str(root)).close()
    db = sqlite3.connect(index_db_path(os.path.realpath(root)))
    db.execute("UPDATE meta SET value = '2' WHERE key = 'schema_version'")
    db.commit()
    db.close()
    assert needs_cold_build(os.path.realpath(root))
    updated: list[str] = []
    original = Workspace._update
    monkeypatch.setattr(Workspace, "_update", lambda self, cand, *a: updated.append(cand.rel) or original(self, cand, *a))
    service, _, report = _open_service(qtbot, root)
    try:
        assert report.added == 20 and updated == []  # every file read again, none of them in this process
    finally:
        assert service.stop()
    assert not needs_cold_build(os.path.realpath(root))


@pytest.mark.slow
def test_cancelling_a_first_build_stops_the_builder_and_its_workers_and_leaves_a_usable_index(qtbot, tmp_path):
    root = _many_notes(tmp_path / "ws", 2600)
    service = IndexerService(str(root))
    seen: dict = {}

    def on_progress(done: int, total: int, rel: str) -> None:
        if 0 < done < total and "builder" not in seen:
            builders = _builders()
            if builders:
                seen["builder"] = builders[0].pid
                seen["niceness"] = os.getpriority(os.PRIO_PROCESS, builders[0].pid)
                seen["done"] = done
                service.cancel()

    service.progress.connect(on_progress)
    with qtbot.waitSignal(service.failed, timeout=60_000) as failed:
        service.start()
    assert failed.args[0] == FAILED_CANCELLED
    assert service.stop()
    assert "builder" in seen  # the build was under way in a builder process when it was cancelled
    assert seen["niceness"] == min(19, os.getpriority(os.PRIO_PROCESS, 0) + building.BUILDER_NICENESS)
    assert _builders() == []
    # The builder led a process group holding the workers it started: all of it is gone, nothing orphaned.
    qtbot.waitUntil(lambda: _group_gone(seen["builder"]), timeout=5000)

    # What the cancelled build committed opens, and the next open carries on from it to the same index.
    assert needs_cold_build(str(root))
    _carries_on_to_the_same_index(qtbot, root, 2600)


def test_a_build_error_in_the_builder_reaches_the_window_as_one_line(qtbot, make_workspace, monkeypatch, tmp_path):
    root = make_workspace({"a.md": "# A\n\nalpha"})
    home = tmp_path / "not-a-folder"
    home.write_text("a file where the index folder goes")
    monkeypatch.setenv("KNIT_DESKTOP_HOME", str(home))  # (the builder inherits it: its store cannot be made)
    service = IndexerService(str(root))
    with qtbot.waitSignal(service.failed, timeout=30_000) as failed:
        service.start()
    assert service.stop()
    code, detail = failed.args
    assert code == FAILED_OPEN
    assert detail.startswith(("FileExistsError", "NotADirectoryError")) and "\n" not in detail
    assert _builders() == []


def test_a_killed_builder_is_reported_and_the_next_open_builds_from_what_it_left(qtbot, tmp_path):
    root = _many_notes(tmp_path / "ws", 600)
    service = IndexerService(str(root))
    killed: list[int] = []

    def on_progress(done: int, total: int, rel: str) -> None:
        if 0 < done < total and not killed:
            for builder in _builders():
                killed.append(builder.pid)
                os.kill(builder.pid, signal.SIGKILL)  # (out of memory, or the user killed it)

    service.progress.connect(on_progress)
    with qtbot.waitSignal(service.failed, timeout=60_000) as failed:
        service.start()
    assert service.stop()
    assert killed
    assert tuple(failed.args) == (FAILED_OPEN, "BuilderFailed: the indexing process ended before it was done "
                                        "(stopped by SIGKILL)")
    assert _builders() == []

    _carries_on_to_the_same_index(qtbot, root, 600)


def test_a_small_workspace_is_first_built_in_process(qtbot, make_workspace, monkeypatch):
    # (A builder costs about 0.2 s to start, and a small build holds the GIL only briefly.)
    monkeypatch.setattr(building, "BUILD_APART_MIN_FILES", 40)
    small = make_workspace({f"n{i}.md": f"# Note {i}" for i in range(38)} | {"skip/a.bin": "", "b.png": b"x"},
                           name="small")
    assert not holds_at_least(str(small), 40)
    large = make_workspace({f"d{i % 7}/n{i}.md": f"# Note {i}" for i in range(40)} | {".git/x.md": "x"}, name="large")
    assert holds_at_least(str(large), 40) and not holds_at_least(str(large), 41)
    monkeypatch.setattr(building, "build_apart", lambda *a, **k: pytest.fail("a builder for a small workspace"))
    service, _, report = _open_service(qtbot, small)
    try:
        assert report.added == 39
    finally:
        assert service.stop()


def test_without_a_builder_process_the_first_build_runs_in_process(qtbot, make_workspace, monkeypatch):
    root = make_workspace({f"n{i}.md": f"# Note {i}\n\nbody {i}" for i in range(20)})

    def cannot_start(self):
        raise OSError("no processes left")

    monkeypatch.setattr(multiprocessing.get_context("spawn").Process, "start", cannot_start)
    service, progress, report = _open_service(qtbot, root)
    try:
        assert report.added == 20 and progress[-1] == (20, 20)
    finally:
        assert service.stop()


def test_a_pass_followed_by_another_reads_as_one():
    built = workspace_module.RefreshReport(added=5, removed=1, loaded_from="rows", total=6, paths=["a", "b"])
    opened = workspace_module.RefreshReport(changed=1, unchanged=5, loaded_from="snapshot", total=6, paths=["c"])
    both = built.followed_by(opened)
    assert (both.added, both.changed, both.removed, both.unchanged, both.total) == (5, 1, 1, 0, 6)
    assert both.loaded_from == "rows" and both.paths == ["a", "b", "c"]


def test_a_builder_that_cannot_run_at_all_leaves_the_first_build_to_this_process(qtbot, make_workspace, monkeypatch):
    # A broken install (the spawned interpreter cannot load the engine: a bundle without `freeze_support`, a
    # damaged package) starts a process that ends at once, before it has said a word. That is not a build that
    # failed midway: the window must still open the workspace, building it in process as the file-preparing
    # workers fall back (core/index/preparing.py), not report every large workspace as impossible to open.
    from multiprocessing import resource_tracker, spawn

    root = make_workspace({f"n{i}.md": f"# Note {i}\n\nbody {i}" for i in range(20)})
    resource_tracker.ensure_running()  # (started as usual: only the builder is broken)
    monkeypatch.setattr(spawn, "get_command_line",
                        lambda **_: [spawn.get_executable(), "-c", "raise SystemExit('cannot import the engine')"])
    service = IndexerService(str(root))
    opened: list = []
    failed: list = []
    service.opened.connect(opened.append)
    service.failed.connect(lambda code, detail: failed.append((code, detail)))
    service.start()
    try:
        qtbot.waitUntil(lambda: bool(opened or failed), timeout=60_000)
        assert failed == [] and opened[0].added == 20
    finally:
        assert service.stop()
    assert _builders() == []


def test_cancelling_a_builder_where_there_are_no_process_groups_stops_it(tmp_path, monkeypatch):
    # Windows has no os.killpg: the builder (which then leads no group of its own) is stopped alone, as the
    # builder's own setpgrp expects, rather than the cancel ending in an AttributeError with the builder running.
    root = _many_notes(tmp_path / "ws", 300)
    monkeypatch.delattr(os, "killpg")
    asked: list[int] = []

    def progress(done: int, total: int, rel: str) -> None:
        asked.append(done)

    with pytest.raises(building.BuildCancelled):
        building.build_apart(str(root), progress, cancelled=lambda: bool(asked))
    assert asked and _builders() == []


@pytest.mark.parametrize("error, problem", [
    (building.BuilderFailed("the indexing process ended before it was done (stopped by SIGKILL)"),
     "cannot index it: the indexing process ended before it was done (stopped by SIGKILL)"),
    (sqlite3.DatabaseError("database disk image is malformed"),
     "cannot index it: DatabaseError: database disk image is malformed"),
], ids=["builder-killed", "any-error"])
def test_a_library_folder_whose_build_fails_says_so_and_the_other_folders_still_open(
        qtbot, tmp_path, make_workspace, monkeypatch, error, problem):
    root = make_workspace({"notes.md": "# Notes\n\nthe workspace's own note\n"})
    Workspace.open_persistent(str(root)).close()
    broken = _many_notes(tmp_path / "broken", 30)
    fine = _many_notes(tmp_path / "fine", 30)
    original = building.build_apart

    def build_apart(real: str, *args):
        if real == os.path.realpath(broken):
            raise error
        return original(real, *args)

    monkeypatch.setattr(building, "build_apart", build_apart)
    service, _, _ = _open_service(qtbot, root)
    errors: list = []
    service.failed.connect(lambda *args: errors.append(args))
    try:
        with qtbot.waitSignal(service.libraryChanged, timeout=60_000) as changed:
            service.set_library([str(broken), str(fine)])
        problems = {Path(f.root).name: f.problem for f in changed.args[0]}
        assert problems == {"broken": problem, "fine": ""}
        assert errors == []
    finally:
        assert service.stop()
