"""Walking only the folders that came, went or moved (`scan_workspace(under=…)`, `Workspace.refresh(folders=…)`),
by the rules of the whole walk, and comparing only what the index holds below them."""

from __future__ import annotations

import os
import shutil
import time

import pytest

from knit_desktop.core.index.scan import MAX_DEPTH, scan_workspace
from knit_desktop.core.workspace import Workspace

from .test_knit_docs import _wait_for


def _touch_later(path, text: str) -> None:
    """Rewrite `path` with a size and modification time the index cannot mistake for the old ones."""
    stat = path.stat()
    path.write_text(text, encoding="utf-8")
    os.utime(path, ns=(stat.st_atime_ns, stat.st_mtime_ns + 5_000_000_000))


def _state(ws: Workspace) -> dict[str, tuple]:
    """What the index holds: each file's state, modification time and size, and every walk problem."""
    state: dict[str, tuple] = {}
    for rel in ws.statuses:
        row = ws._row(rel)
        assert row is not None
        state[rel] = (row.kind == "dir", row.state, row.reason, row.mtime_ms, row.size)
    return state


def test_top_folders_keeps_the_folders_no_other_holds():
    from knit_desktop.core.index.scan import top_folders

    assert top_folders(["docs/a", "docs", "docs2/x", "docs-x", "docs/a/b"]) == ["docs", "docs-x", "docs2/x"]
    assert top_folders(["a", "", "b"]) == [""]
    assert top_folders([]) == []


def test_a_folder_walk_follows_the_rules_of_the_whole_walk(make_workspace, tmp_path):
    deep = "/".join(f"d{i}" for i in range(1, MAX_DEPTH + 1))  # d1/…/d6: listed, its folders not entered
    root = make_workspace({
        "new/a.md": "# A", "new/sub/b.md": "# B", "new/node_modules/m.md": "#", "new/.git/g.md": "#",
        "new/build/o.md": "#", f"{deep}/six.md": "#", f"{deep}/d7/seven.md": "#", "other/c.md": "# C",
        "docs/x.md": "#", "docs2/y.md": "#",
    })
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.md").write_text("# Secret")
    os.symlink(outside, root / "new" / "linked")  # a folder link inside the new folder: not followed
    os.symlink(outside / "secret.md", root / "new" / "secret.md")  # a file link leading out: listed, not read
    os.symlink(outside, root / "linked")  # a new folder that is a link to outside
    os.symlink(root / "other", root / "alias")  # a link to a folder inside: not walked either
    real = str(root.resolve())

    problems: list = []
    assert sorted(scan_workspace(real, problems, under="new").rels) == ["new/a.md", "new/sub/b.md"]
    assert [(p.rel, p.state) for p in problems] == [("new/secret.md", "skipped")]
    whole_problems: list = []
    whole = scan_workspace(real, whole_problems)
    assert sorted(r for r in whole.rels if r.startswith("new/")) == ["new/a.md", "new/sub/b.md"]
    assert sorted(whole_problems) == sorted(problems)

    assert scan_workspace(real, [], under="d1").rels == [f"{deep}/six.md"]
    assert scan_workspace(real, [], under=f"{deep}/d7").rels == []  # below the depth the whole walk enters
    assert scan_workspace(real, [], under="docs").rels == ["docs/x.md"]  # not docs2
    for nothing in ("new/node_modules", "new/.git", "linked", "alias", "alias/deeper", "gone", "new/a.md", "../x"):
        problems = []
        assert scan_workspace(real, problems, under=nothing).rels == [], nothing
        assert problems == [], nothing
    assert sorted(scan_workspace(real, [], under=["new/sub", "other", "new"]).rels) == [
        "new/a.md", "new/sub/b.md", "other/c.md"]  # each file once


def test_a_folder_refresh_indexes_what_came_forgets_what_went_and_leaves_the_rest(make_workspace):
    root = make_workspace({"docs/x.md": "# X\n\nxenon", "docs2/y.md": "# Y\n\nyttrium", "top.md": "# Top\n\ntopaz",
                           "keep/k.md": "# K\n\nkrypton"})
    ws = Workspace.open(str(root))
    try:
        (root / "new" / "sub").mkdir(parents=True)
        (root / "new" / "n.md").write_text("# N\n\nneon")
        (root / "new" / "sub" / "s.md").write_text("# S\n\nsulfur")
        before = ws.index.stat("top.md")
        _touch_later(root / "top.md", "# Top\n\ntopaz changed meanwhile")  # its own event would say so
        (root / "docs2" / "y.md").unlink()  # and so would this one's
        report = ws.refresh(folders=["new", "new/sub"])
        assert (report.added, report.changed, report.removed) == (2, 0, 0)
        assert report.total == 6  # the whole workspace's files as the index knows them
        assert set(ws.index.by_rel) == {"docs/x.md", "docs2/y.md", "top.md", "keep/k.md", "new/n.md", "new/sub/s.md"}
        assert ws.index.stat("top.md") == before  # not walked

        shutil.rmtree(root / "docs")  # "docs" must not take "docs2" with it
        report = ws.refresh(folders=["docs"])
        assert report.removed == 1 and report.paths == ["docs/x.md"]
        assert "docs2/y.md" in ws.index.by_rel

        (root / "new").rename(root / "keep" / "moved")
        report = ws.refresh(folders=["new", "keep/moved"])
        assert (report.added, report.removed) == (2, 2)
        assert {r for r in ws.index.by_rel if "n.md" in r or "s.md" in r} == {"keep/moved/n.md", "keep/moved/sub/s.md"}

        report = ws.refresh()  # the whole walk picks up what the folder walks left alone
        assert report.changed == 1 and report.removed == 1
        assert "docs2/y.md" not in ws.index.by_rel
    finally:
        ws.close()


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="a FIFO is the entry that is not a regular file")
def test_walk_problems_are_replaced_only_below_the_folders_walked(make_workspace):
    root = make_workspace({"a/x.md": "# X", "b/y.md": "# Y"})
    os.mkfifo(root / "a" / "pipe.md")
    ws = Workspace.open(str(root))
    try:
        assert [p.rel for p in ws.problems()] == ["a/pipe.md"]
        (root / "b" / "new").mkdir()
        os.mkfifo(root / "b" / "new" / "pipe.md")
        ws.refresh(folders=["b/new"])
        assert [p.rel for p in ws.problems()] == ["a/pipe.md", "b/new/pipe.md"]
        shutil.rmtree(root / "a")
        ws.refresh(folders=["a"])
        assert [p.rel for p in ws.problems()] == ["b/new/pipe.md"]
        ws.refresh(folders=["b/new"])  # unchanged below it
        assert [p.rel for p in ws.problems()] == ["b/new/pipe.md"]
    finally:
        ws.close()


def test_a_folder_refresh_out_of_time_is_finished_by_the_next_whole_refresh(make_workspace):
    root = make_workspace({"a.md": "# A"})
    ws = Workspace.open(str(root))
    try:
        for i in range(450):
            (root / "big" / f"d{i % 3}").mkdir(parents=True, exist_ok=True)
            (root / "big" / f"d{i % 3}" / f"n{i}.md").write_text(f"# Note {i}\n\nbody {i}")
        report = ws.refresh(budget_s=0.0, folders=["big"])
        assert report.pending == 250 and report.added == 200
        assert report.total == 451
        ws.refresh(budget_s=60.0)  # what the callers do while `pending` is set
        assert ws.last_refresh.pending == 0 and len(ws.index) == 451
    finally:
        ws.close()


def test_folder_refreshes_leave_the_index_a_fresh_whole_walk_would_make(make_workspace, tmp_path):
    root = make_workspace({"docs/a.md": "# A", "docs/sub/b.md": "# B", "notes/c.md": "# C", "d.md": "# D"})
    os.mkfifo(root / "docs" / "sub" / "pipe.md")
    ws = Workspace.open_persistent(str(root))
    try:
        steps = [
            (lambda: (root / "new" / "deep").mkdir(parents=True), ["new"]),
            (lambda: (root / "new" / "deep" / "e.md").write_text("# E"), ["new/deep"]),
            (lambda: (root / "docs" / "sub").rename(root / "new" / "sub"), ["docs/sub", "new/sub"]),
            (lambda: shutil.rmtree(root / "notes"), ["notes"]),
            (lambda: (root / "new").rename(root / "notes"), ["new", "notes"]),
            (lambda: (root / "notes" / "node_modules").mkdir(), ["notes/node_modules"]),
            (lambda: (root / "notes" / "node_modules" / "m.md").write_text("# M"), ["notes/node_modules"]),
            (lambda: shutil.copytree(root / "notes", root / "copy", ignore=shutil.ignore_patterns("pipe.md")),
             ["copy"]),
        ]
        for change, folders in steps:
            change()
            ws.refresh(folders=folders)
        ws.save()
        fresh = Workspace.open(str(root))
        assert _state(ws) == _state(fresh)
        assert sorted(ws.index.by_rel) == ["copy/deep/e.md", "copy/sub/b.md", "d.md", "docs/a.md",
                                           "notes/deep/e.md", "notes/sub/b.md"]
        reopened = Workspace.open_persistent(str(root))  # and the store holds the same
        try:
            assert reopened.last_refresh.changes == 0
            assert _state(reopened) == _state(fresh)
        finally:
            reopened.close()
    finally:
        ws.close()


def test_the_server_walks_only_a_folder_that_came_or_went(make_workspace, tmp_path, now_ms, monkeypatch):
    """A folder made or deleted under a watched workspace is walked alone: every call waited for a walk of the
    whole workspace before (90-160 ms at 20,000 files for each folder made)."""
    from knit_desktop.core import workspace as workspace_module
    from knit_desktop.core.agent.knit_docs import KnitDocs

    root = make_workspace({"docs/retry.md": "# Retry\n\nretry backoff", "notes/n.md": "# Notes\n\nplain notes"})
    walked: list[object] = []
    real_scan = workspace_module.scan_workspace

    def recording_scan(root, statuses=None, under=""):
        walked.append(under if isinstance(under, str) else list(under))
        return real_scan(root, statuses, under=under) if under != "" else real_scan(root, statuses)

    monkeypatch.setattr(workspace_module, "scan_workspace", recording_scan)
    tool = KnitDocs(str(root), str(tmp_path / "no-dsh"), watch=True)
    try:
        tool.call("retry backoff", now_ms=now_ms)
        tool.keep_current()
        feed = tool._feeds[str(root.resolve())]
        walked.clear()
        (root / "docs" / "kiwi").mkdir()
        (root / "docs" / "kiwi" / "orchard.md").write_text("# Kiwi\n\nKiwi orchard.\n")
        (root / "docs" / "kiwi" / "grove.md").write_text("# Grove\n\nPomelo grove.\n")
        assert _wait_for(lambda: feed._rescan)
        time.sleep(0.2)
        tool.keep_current()
        assert walked == [["docs/kiwi"]]
        assert tool.call("kiwi orchard", now_ms=now_ms).structured["primary"][0]["rel"] == "docs/kiwi/orchard.md"
        assert tool._open[str(root.resolve())].is_indexed("docs/kiwi/grove.md")

        walked.clear()
        shutil.rmtree(root / "docs" / "kiwi")
        assert _wait_for(lambda: feed._rescan)
        time.sleep(0.2)
        tool.keep_current()
        assert walked == [["docs/kiwi"]]
        ws = tool._open[str(root.resolve())]
        assert not any(rel.startswith("docs/kiwi/") for rel in ws.index.by_rel)
        primary = tool.call("kiwi orchard", now_ms=now_ms).structured["primary"]
        assert all(not item["rel"].startswith("docs/kiwi/") for item in primary)
        assert sorted(ws.index.by_rel) == ["docs/retry.md", "notes/n.md"]
    finally:
        tool.close()
