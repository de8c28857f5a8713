"""The knit_docs tool without the protocol: workspace resolution, the pack it returns, usage feedback."""

from __future__ import annotations

import os
import shutil
import time

import pytest

from knit_desktop.core.agent.knit_docs import KnitDocs, ToolError, clamp_limit
from knit_desktop.core.dsh.usage import workspace_rel

from .dsh_fixtures import DshLog
from .media_fixtures import two_page_pdf
from .watch_fixtures import inotify_watches

DAY = 86_400_000


@pytest.fixture
def project(make_workspace, now_ms):
    root = make_workspace(
        {
            "docs/retry-policy.md": (
                "# Retry policy\n\nHow uploads retry with backoff.\n\n## Backoff\n\nThe retry backoff doubles up to "
                "a minute; see [the queue](upload-queue.md).\n",
                now_ms - DAY,
            ),
            "docs/upload-queue.md": ("# Upload queue\n\nThe queue hands uploads to workers; retry backoff "
                                     "comes from the retry policy.\n", now_ms - 2 * DAY),
            "docs/backoff-notes.md": ("# Notes\n\nA retry backoff experiment log.\n", now_ms - 3 * DAY),
            "docs/theme.md": ("# Theme\n\nColours and fonts.\n", now_ms - 4 * DAY),
            "build/out.md": ("# Generated\n\nretry backoff\n", now_ms - DAY),
        }
    )
    two_page_pdf(root / "report.pdf")
    return root


def files_of(root) -> dict:
    out = {}
    for base, _dirs, names in os.walk(root):
        for name in names:
            path = os.path.join(base, name)
            out[path] = (os.stat(path).st_mtime_ns, os.stat(path).st_size)
    return out


@pytest.mark.parametrize(
    ("value", "expected"),
    [(None, 5), ("7", 5), (float("nan"), 5), (float("inf"), 5), (True, 5), (3.9, 3), (-5, 1), (0, 1), (99, 20), (12, 12)],
)
def test_limit_is_clamped_never_refused(value, expected):
    assert clamp_limit(value) == expected


def test_query_gives_the_pack_with_cited_passages_and_pages(project, tmp_path, now_ms):
    before = files_of(project)
    tool = KnitDocs(str(project), str(tmp_path / "no-dsh"))
    answer = tool.call("retry backoff", now_ms=now_ms)
    data = answer.structured
    assert data["mode"] == "relevance"
    assert [i["rel"] for i in data["primary"]] == ["docs/retry-policy.md"]
    primary = data["primary"][0]
    assert primary["matches"][0]["start_line"] >= 1 and "backoff" in primary["matches"][0]["snippet"].lower()
    assert data["workspace"] == str(project.resolve()) and "session" not in data
    rest = {k: v for k, v in data.items() if k != "workspace"}
    assert "score" not in str(data) and str(project) not in str(rest)  # one absolute path: the workspace's
    assert "build/out.md" not in str(data)  # ignored directory
    assert answer.text.startswith(f"Workspace: {project.resolve()} — no DSH session in this folder")
    assert "\n\nContext for 「" in answer.text
    assert "Primary (read these first):\n1. docs/retry-policy.md — Retry policy" in answer.text

    pdf = tool.call("capybara habitat", now_ms=now_ms).structured
    item = (pdf["primary"] + pdf["supporting"] + pdf["related"])[0]
    assert item["rel"] == "report.pdf" and item["matches"][0]["page"] == 2
    assert files_of(project) == before  # nothing written into the workspace
    tool.close()


def test_without_query_ranks_by_the_active_sessions_conversation(project, tmp_path, now_ms):
    home = tmp_path / "dsh"
    log = DshLog(home, "s-active", str(project))
    log.append_rows([log.user("The upload queue keeps stalling — how does the queue hand uploads to workers?")])
    tool = KnitDocs(None, str(home))
    data = tool.call(now_ms=now_ms).structured
    assert data["mode"] == "relevance" and data["task"].startswith("The upload queue keeps stalling")
    assert data["primary"][0]["rel"] == "docs/upload-queue.md"

    # The workspace is refreshed on each call: a file added since the last one is found.
    (project / "docs" / "stall-report.md").write_text("# Upload queue stall report\n\nThe upload queue stalled.\n")
    data = tool.call("stall report", now_ms=now_ms).structured
    assert data["primary"][0]["rel"] == "docs/stall-report.md"
    tool.close()


def test_no_workspace_is_an_error_never_a_guess(tmp_path, now_ms):
    with pytest.raises(ToolError, match="no DSH session .* without --workspace"):
        KnitDocs(None, str(tmp_path / "dsh")).call("anything", now_ms=now_ms)
    home = tmp_path / "dsh2"
    DshLog(home, "s-gone", str(tmp_path / "deleted-project"))
    with pytest.raises(ToolError, match="deleted-project does not exist"):
        KnitDocs(None, str(home)).call("anything", now_ms=now_ms)
    DshLog(tmp_path / "dsh3", "s-nocwd", None)
    with pytest.raises(ToolError, match="has no working directory"):
        KnitDocs(None, str(tmp_path / "dsh3")).call(now_ms=now_ms)


def test_time_mode_lists_the_limit_most_recent(project, tmp_path, now_ms):
    tool = KnitDocs(str(project), str(tmp_path / "no-dsh"))
    answer = tool.call(None, limit=2, now_ms=now_ms)
    assert answer.structured["mode"] == "time"
    assert [d["rel"] for d in answer.structured["docs"]] == ["report.pdf", "docs/retry-policy.md"]
    assert answer.text.split("\n\n", 1)[1].startswith("Not enough conversation to rank by relevance — showing the 2 most")


def test_usage_counts_reads_of_the_previous_pack(project, tmp_path, now_ms):
    home = tmp_path / "dsh"
    log = DshLog(home, "s1", str(project))
    log.append_rows([log.user("How does the retry backoff work for uploads?")])
    tool = KnitDocs(None, str(home))
    first = tool.call(audit=True, now_ms=now_ms)
    assert "usage" not in first.structured  # nothing handed out before
    pack = first.structured
    primary = pack["primary"][0]["rel"]
    supporting = [i["rel"] for i in pack["supporting"]]
    assert supporting and "docs/theme.md" not in str(pack), pack

    log.append_rows(
        [
            log.read_call("c1", str(project / primary)),
            log.result_v4("c1"),
            log.read_call("c2", supporting[0], key="path"),  # relative to the session's cwd
            log.result_v0("c2"),
            log.read_call("c3", "docs/theme.md"),  # indexed, not in the pack
            log.result_v4("c3"),
            log.read_call("c4", "/etc/hostname"),  # outside the workspace
            log.result_v4("c4"),
            log.read_call("c5", "docs/nope.md"),  # failed reads do not count
            log.result_v4("c5", is_error=True),
        ]
    )
    second = tool.call(audit=True, now_ms=now_ms)
    expected = (
        f"Usage since the last pack: primary read ({primary}) · supporting 1/{len(supporting)} · "
        "2 read outside the pack (1 indexed but not in the pack, 1 not indexed)."
    )
    assert second.structured["usage"] == expected
    assert second.text.endswith("\n\n" + expected)

    # The same pack again starts no new epoch: the reads still count for it.
    assert tool.call(audit=True, now_ms=now_ms).structured["usage"] == expected

    # A different conversation changes the pack; the next audit says so.
    log.append_rows([log.user("Now the upload queue: which workers take the uploads?")])
    tool.call(now_ms=now_ms)
    fourth = tool.call(audit=True, now_ms=now_ms).structured
    assert fourth["usage"].endswith("context changed 1×.")
    assert "usage" not in tool.call(now_ms=now_ms).structured  # off unless asked
    tool.close()


def test_read_paths_map_into_the_workspace(tmp_path):
    root = tmp_path / "ws"
    (root / "a").mkdir(parents=True)
    assert workspace_rel(str(root / "a" / "x.md"), str(root), str(root)) == "a/x.md"
    assert workspace_rel("a/../a/x.md", str(root), str(root)) == "a/x.md"
    assert workspace_rel("x.md", str(root), str(root / "a")) == "a/x.md"
    assert workspace_rel("../outside.md", str(root), str(root)) is None
    assert workspace_rel(str(tmp_path / "ws-other" / "x.md"), str(root), str(root)) is None


def _wait_for(condition, timeout_s: float = 5.0) -> bool:
    import time

    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if condition():
            return True
        time.sleep(0.02)
    return condition()


def test_a_long_lived_tool_applies_watched_changes_without_walking(project, tmp_path, now_ms, monkeypatch):
    """After the first look, a call applies the paths the change feed saw; it walks only when directories came or
    went (or the watch is not allowed)."""
    from knit_desktop.core.workspace import Workspace

    tool = KnitDocs(str(project), str(tmp_path / "no-dsh"), watch=True)
    try:
        assert tool.call("retry backoff", now_ms=now_ms).structured["primary"][0]["rel"] == "docs/retry-policy.md"
        feed = tool._feeds[str(project.resolve())]
        assert feed.healthy
        walks: list[str] = []
        real_refresh = Workspace.refresh
        monkeypatch.setattr(Workspace, "refresh", lambda self, *a, **k: walks.append(self.root) or real_refresh(self, *a, **k))

        (project / "docs" / "zebra-migration.md").write_text("# Zebra migration\n\nThe zebra herd moves north.\n")
        assert _wait_for(lambda: "docs/zebra-migration.md" in feed._paths)
        data = tool.call("zebra herd", now_ms=now_ms).structured
        assert data["primary"][0]["rel"] == "docs/zebra-migration.md" and walks == []

        (project / "docs" / "theme.md").unlink()
        # (the path itself: a late event of the file written above must not pass for the deletion)
        assert _wait_for(lambda: "docs/theme.md" in feed._paths)
        data = tool.call("colours fonts", now_ms=now_ms).structured
        assert "docs/theme.md" not in str(data) and walks == []

        (project / "guides").mkdir()  # a directory: the feed asks for a walk, and watches it from then on
        (project / "guides" / "okapi.md").write_text("# Okapi\n\nOkapi sightings.\n")
        assert _wait_for(lambda: feed._rescan)
        data = tool.call("okapi sightings", now_ms=now_ms).structured
        assert data["primary"][0]["rel"] == "guides/okapi.md" and len(walks) == 1
        (project / "guides" / "tapir.md").write_text("# Tapir\n\nTapir tracks.\n")
        assert _wait_for(lambda: feed._paths)
        assert tool.call("tapir tracks", now_ms=now_ms).structured["primary"][0]["rel"] == "guides/tapir.md"
        assert len(walks) == 1
    finally:
        tool.close()
    assert not tool._feeds


def test_without_watches_every_call_walks(project, tmp_path, now_ms):
    tool = KnitDocs(str(project), str(tmp_path / "no-dsh"))  # watch=False: what one-off users get
    try:
        tool.call("retry backoff", now_ms=now_ms)
        (project / "docs" / "zebra-migration.md").write_text("# Zebra migration\n\nThe zebra herd moves north.\n")
        assert tool.call("zebra herd", now_ms=now_ms).structured["primary"][0]["rel"] == "docs/zebra-migration.md"
    finally:
        tool.close()


def test_when_the_system_refuses_watches_the_server_walks(project, tmp_path, now_ms, monkeypatch):
    """inotify limits reached (watchdog refuses in its constructor already): every call walks, nothing fails, and
    nothing vouches for the index between calls, so the server holds no watch lease and commands go on walking."""
    import errno

    from knit_desktop.core.index import watching

    def refused():
        raise OSError(errno.EMFILE, "inotify instance limit reached")

    monkeypatch.setattr(watching, "Observer", refused)
    tool = KnitDocs(str(project), str(tmp_path / "no-dsh"), watch=True)
    try:
        tool.call("retry backoff", now_ms=now_ms)
        assert not tool._feeds[str(project.resolve())].healthy
        assert tool.keep_current() == 0 and _lease_holder(project) is None
        (project / "docs" / "zebra-migration.md").write_text("# Zebra migration\n\nThe zebra herd moves north.\n")
        assert tool.call("zebra herd", now_ms=now_ms).structured["primary"][0]["rel"] == "docs/zebra-migration.md"
    finally:
        tool.close()


def _lease_holder(root) -> str | None:
    """The pid holding the watch lease of `root`'s persistent index (None: no lease), read as another process would."""
    import sqlite3

    from knit_desktop.core.paths import index_db_path

    db = sqlite3.connect(f"file:{index_db_path(str(root.resolve()))}?mode=ro", uri=True)
    try:
        row = db.execute("SELECT value FROM meta WHERE key = 'watch_lease'").fetchone()
    finally:
        db.close()
    return row[0].split()[0] if row else None


def _opened_elsewhere(root, rel: str = "docs/zebra-migration.md") -> dict:
    """How a one-shot command in another process opens `root`'s index: trusted or walked, rows read since the
    snapshot, and whether a document is there."""
    import json
    import subprocess
    import sys
    import textwrap

    code = textwrap.dedent(f"""
        import json
        from knit_desktop.core.workspace import Workspace
        ws = Workspace.open_persistent({str(root.resolve())!r}, trust_watcher=True)
        print(json.dumps({{"trusted": ws.last_refresh.trusted_watcher, "caught_up": ws.last_refresh.caught_up,
                          "zebra": {rel!r} in ws.index.by_rel}}))
    """)
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout)


def test_between_calls_a_long_lived_tool_keeps_the_index_current_and_holds_its_watch_lease(project, tmp_path,
                                                                                              now_ms):
    """What the MCP server does between calls: the changes its watch sees go into the index at once, the snapshot
    is saved once they rest, and while it keeps the index current it holds the watch lease, so a one-shot command
    in another process trusts the index instead of walking. Closing gives the lease up."""
    import time

    from knit_desktop.core.index.store import SNAPSHOT_DELAY_S

    tool = KnitDocs(str(project), str(tmp_path / "no-dsh"), watch=True)
    try:
        tool.call("retry backoff", now_ms=now_ms)
        assert _lease_holder(project) is None  # a call alone holds none
        assert tool.keep_current() == 0
        assert _lease_holder(project) == str(os.getpid())
        assert _opened_elsewhere(project) == {"trusted": True, "caught_up": 0, "zebra": False}

        feed = tool._feeds[str(project.resolve())]
        (project / "docs" / "zebra-migration.md").write_text("# Zebra migration\n\nThe zebra herd moves north.\n")
        assert _wait_for(lambda: feed._paths)
        assert tool.keep_current() == 1  # no call: applied between calls
        assert _opened_elsewhere(project) == {"trusted": True, "caught_up": 1, "zebra": True}
        assert tool.keep_current(now=time.monotonic() + SNAPSHOT_DELAY_S) == 0  # changes rested: the snapshot saved
        assert _opened_elsewhere(project) == {"trusted": True, "caught_up": 0, "zebra": True}
        assert tool.call("zebra herd", now_ms=now_ms).structured["primary"][0]["rel"] == "docs/zebra-migration.md"
    finally:
        tool.close()
    assert _lease_holder(project) is None
    assert _opened_elsewhere(project)["trusted"] is False


def test_a_file_written_into_a_new_folder_while_the_server_walks_it_still_reaches_the_index(project, tmp_path,
                                                                                           now_ms, monkeypatch):
    """A new folder makes the server walk the workspace and watch it anew. A file written into that folder after
    the walk went past it is seen by the new watch (the watch is renewed before the walk), so the index a
    one-shot command trusts while the server holds the lease is not missing it."""
    from knit_desktop.core.workspace import Workspace

    tool = KnitDocs(str(project), str(tmp_path / "no-dsh"), watch=True)
    try:
        tool.call("retry backoff", now_ms=now_ms)
        tool.keep_current()
        notes = project / "notes"  # at the top, next to build/: watched by no recursive watch until replanned
        walk = Workspace.refresh

        def walk_then_write(self, *args, **kwargs):
            report = walk(self, *args, **kwargs)
            if not (notes / "zebra-migration.md").exists():  # written just after the walk went past notes/
                (notes / "zebra-migration.md").write_text("# Zebra migration\n\nThe zebra herd moves north.\n")
            return report

        monkeypatch.setattr(Workspace, "refresh", walk_then_write)
        feed = tool._feeds[str(project.resolve())]
        notes.mkdir()
        assert _wait_for(lambda: feed._rescan)
        tool.keep_current()  # the walk (and the file written right after it)
        monkeypatch.setattr(Workspace, "refresh", walk)
        _wait_for(lambda: feed._paths, timeout_s=2.0)
        tool.keep_current()
        assert _lease_holder(project) == str(os.getpid())
        seen = _opened_elsewhere(project, "notes/zebra-migration.md")
        assert seen["trusted"] and seen["zebra"]  # trusted, so it must not miss the file
    finally:
        tool.close()


def test_a_workspace_folder_moved_away_and_made_again_is_walked_not_trusted_stale(project, tmp_path, now_ms):
    """The watches follow the folder they were put on: moved away (or deleted) and made again at the same path,
    the workspace's new files are seen by no watch. The server notices the folder is another one, walks it and
    watches it anew, so the index a one-shot command trusts while the lease is held has the new files."""
    tool = KnitDocs(str(project), str(tmp_path / "no-dsh"), watch=True)
    try:
        tool.call("retry backoff", now_ms=now_ms)
        tool.keep_current()
        assert _lease_holder(project) == str(os.getpid())
        project.rename(tmp_path / "project-before")
        (project / "docs").mkdir(parents=True)
        (project / "docs" / "zebra-migration.md").write_text("# Zebra migration\n\nThe zebra herd moves north.\n")
        assert _wait_for(lambda: tool.keep_current() > 0 or _lease_holder(project) is None, timeout_s=3.0)
        seen = _opened_elsewhere(project)
        assert not seen["trusted"] or seen["zebra"]
        (project / "docs" / "okapi.md").write_text("# Okapi\n\nOkapi sightings.\n")  # and watched again after
        assert _wait_for(lambda: tool.keep_current() > 0, timeout_s=3.0)
        seen = _opened_elsewhere(project, "docs/okapi.md")
        assert seen["trusted"] and seen["zebra"]
    finally:
        tool.close()


def test_lost_events_and_a_deleted_workspace_folder_ask_for_a_walk(tmp_path):
    """The system's event queue overflowed (thousands of files changed at once), or the watched folder itself
    was deleted: the paths that changed are unknown, so the feed asks for a walk instead of trusting its watch."""
    from watchdog.events import DirDeletedEvent, EventsLostEvent, FileModifiedEvent

    from knit_desktop.core.index.watching import ChangeFeed

    root = tmp_path / "ws"
    root.mkdir()
    feed = ChangeFeed(str(root))
    real = os.path.realpath(root)
    feed.on_any_event(FileModifiedEvent(os.path.join(real, "a.md")))
    assert feed.drain() == (["a.md"], False, [])
    feed.dispatch(EventsLostEvent(real, is_directory=True))  # as watchdog hands it over
    assert feed.drain() == ([], True, [""])
    feed.dispatch(DirDeletedEvent(real))
    assert feed.drain() == ([], True, [""])


def test_reading_a_watched_workspace_sends_the_watch_no_events(make_workspace):
    """The watches ask for changes only: a walk, indexing, or any program reading the workspace (an editor, grep,
    the agent) opens its folders and files, and each open and close used to come through watchdog's threads and
    ours in Python, to be dropped, taking the GIL from the walk (270 ms against 90 at 3,200 folders)."""
    import time

    from watchdog.events import EventsLostEvent

    from knit_desktop.core.index.scan import scan_workspace
    from knit_desktop.core.index.watching import CHANGE_EVENTS, ChangeFeed

    root = make_workspace({f"d{i}/n{j}.md": f"# Note {i} {j}" for i in range(5) for j in range(5)} | {".git/HEAD": ""})
    seen = []

    class CountingFeed(ChangeFeed):
        def on_any_event(self, event):
            seen.append(event.event_type)
            super().on_any_event(event)

    assert EventsLostEvent in CHANGE_EVENTS  # a watch with a filter hears of a loss only when it asks for it
    feed = CountingFeed(str(root))
    assert feed.start()
    try:
        time.sleep(0.2)
        real = str(root.resolve())
        scan_workspace(real, [])
        for path in sorted(root.rglob("*.md")):
            path.read_bytes()
        time.sleep(0.5)
        assert seen == []
        (root / "d1" / "n1.md").write_text("# Changed", encoding="utf-8")
        assert _wait_for(lambda: feed._paths)
        assert "d1/n1.md" in feed.drain()[0]
    finally:
        feed.stop()


def test_the_watch_plan_says_which_new_folders_the_watches_already_cover(make_workspace):
    from knit_desktop.core.index.watching import WatchPlan, plan_watches

    root = make_workspace({"docs/a/x.md": "#", "notes/n.md": "#", ".git/HEAD": "", "packages/p/node_modules/m/i.md": "#",
                           "packages/p/src/s.md": "#"})
    real = str(root.resolve())
    plan = WatchPlan(real, plan_watches(real))
    assert plan.covers(["docs/new", "docs/a/b/c", "notes/x", "packages/p/src/deep"])  # below a recursive watch
    assert not plan.covers(["newtop"])  # beside .git: the root is watched on its own
    assert not plan.covers(["packages/p/other"])  # beside node_modules
    assert not plan.covers(["docs"])  # the top of a watch
    assert not plan.covers([""])  # the workspace folder itself, or events lost
    assert plan.covers([])
    clean = make_workspace({"a/b.md": "#"}, name="clean")
    assert WatchPlan(str(clean.resolve()), plan_watches(str(clean.resolve()))).covers(["a/new", "new"])


def test_once_the_system_refuses_a_watch_for_a_new_folder_the_feed_says_it_cannot_follow(make_workspace,
                                                                                         refuse_watches):
    """At the system's limit on inotify watches, watchdog logs the watch it could not add for a new folder below a
    recursive watch and goes on: the folder was left unwatched while the feed stayed healthy (what changed there
    was missed, the lease held and a one-shot command trusted the index). Planned again, the watches fail: the
    feed is not healthy and the server walks instead, as it did when every new folder planned them anew."""
    from knit_desktop.core.index.watching import ChangeFeed

    root = make_workspace({"docs/a/x.md": "#", ".git/HEAD": ""})
    feed = ChangeFeed(str(root))
    try:
        assert feed.start()
        refuse_watches("refused")
        (root / "docs" / "a" / "refused").mkdir()
        assert _wait_for(lambda: feed._rescan)
        time.sleep(0.2)
        feed.drain()
        assert feed.restart() is False
        assert not feed.healthy
    finally:
        feed.stop()


@pytest.mark.skipif(not os.path.isdir("/proc/self/fdinfo"), reason="counts inotify watches through /proc")
def test_a_folder_copied_in_with_its_node_modules_has_the_watches_planned_again(make_workspace, tmp_path):
    """A project copied into a recursively watched folder with its node_modules (or .git) was left to watchdog,
    which watched every folder of node_modules too: 2,046 watches instead of 5 for 2,000 folders there, and every
    write an install or a build makes there went through Python only to be dropped."""
    from knit_desktop.core.index.watching import ChangeFeed

    root = make_workspace({"docs/a/x.md": "#", ".git/HEAD": ""})
    project = tmp_path / "elsewhere" / "proj"
    for i in range(300):
        (project / "node_modules" / f"p{i // 30}" / f"m{i % 30}").mkdir(parents=True)
    (project / "lib").mkdir()
    (project / "lib" / "guide.md").write_text("# Guide")
    feed = ChangeFeed(str(root))
    try:
        assert feed.start()
        before = inotify_watches()
        shutil.copytree(project, root / "docs" / "proj")
        assert _wait_for(lambda: feed._rescan)
        time.sleep(0.5)  # the copy's last events
        feed.drain()
        feed.restart()
        assert inotify_watches() - before < 20  # docs/ split around node_modules: a few folders, not 300
        (root / "docs" / "proj" / "lib" / "later.md").write_text("# Later")
        assert _wait_for(lambda: "docs/proj/lib/later.md" in feed._paths)
    finally:
        feed.stop()


def test_a_new_folder_below_a_recursive_watch_is_walked_without_watching_everything_again(project, tmp_path, now_ms,
                                                                                         monkeypatch):
    """Between calls, a folder made below a recursively watched one is walked (the lease given up meanwhile) but
    not watched anew from the top: watchdog already watches it. Planning every watch again took 0.35 s at 3,200
    folders and held every call waiting, each time a folder came."""
    from knit_desktop.core.index import watching

    planned = []
    real_plan = watching.plan_watches
    monkeypatch.setattr(watching, "plan_watches", lambda root: planned.append(root) or real_plan(root))
    tool = KnitDocs(str(project), str(tmp_path / "no-dsh"), watch=True)
    try:
        tool.call("retry backoff", now_ms=now_ms)
        tool.keep_current()
        assert len(planned) == 1
        feed = tool._feeds[str(project.resolve())]
        deep = project / "docs" / "new" / "deeper"
        deep.mkdir(parents=True)
        (deep / "kiwi.md").write_text("# Kiwi\n\nKiwi orchard.\n")
        assert _wait_for(lambda: feed._rescan)
        tool.keep_current()
        assert len(planned) == 1
        assert tool.call("kiwi orchard", now_ms=now_ms).structured["primary"][0]["rel"] == "docs/new/deeper/kiwi.md"
        (deep / "later.md").write_text("# Later\n\nPomelo grove.\n")  # watched with no new plan
        assert _wait_for(lambda: "docs/new/deeper/later.md" in feed._paths)
        tool.keep_current()
        assert tool.call("pomelo grove", now_ms=now_ms).structured["primary"][0]["rel"] == "docs/new/deeper/later.md"
        (project / "top").mkdir()  # beside build/: the root is watched on its own
        (project / "top" / "fig.md").write_text("# Fig\n\nFig harvest.\n")
        assert _wait_for(lambda: feed._rescan)
        tool.keep_current()
        assert len(planned) == 2
        assert tool.call("fig harvest", now_ms=now_ms).structured["primary"][0]["rel"] == "top/fig.md"
        (project / "top" / "plum.md").write_text("# Plum\n\nPlum orchard notes.\n")
        assert _wait_for(lambda: "top/plum.md" in feed._paths)
        tool.keep_current()
        assert tool.call("plum orchard notes", now_ms=now_ms).structured["primary"][0]["rel"] == "top/plum.md"
    finally:
        tool.close()


def test_a_file_written_while_the_watches_are_planned_again_reaches_the_index(project, tmp_path, now_ms,
                                                                            monkeypatch):
    """A folder made beside build/ (the root watched on its own) has every watch planned again: the watches stop and
    are set up anew, 0.3-0.5 s at 3,200 folders in which nothing is heard. A file written elsewhere meanwhile is
    found by the walk that follows, which is then of the whole workspace, not only of the new folder (walking only
    that one, the file was never indexed while the server trusted its index and held the lease)."""
    from knit_desktop.core.index import watching

    real_plan = watching.plan_watches
    tool = KnitDocs(str(project), str(tmp_path / "no-dsh"), watch=True)
    try:
        tool.call("retry backoff", now_ms=now_ms)
        tool.keep_current()
        feed = tool._feeds[str(project.resolve())]
        okapi = project / "docs" / "okapi.md"

        def plan_while_written(root):
            okapi.write_text("# Okapi\n\nOkapi sightings.\n")  # while no watch is in place
            return real_plan(root)

        monkeypatch.setattr(watching, "plan_watches", plan_while_written)
        (project / "top").mkdir()
        (project / "top" / "fig.md").write_text("# Fig\n\nFig harvest.\n")
        assert _wait_for(lambda: feed._rescan)
        tool.keep_current()  # the watches planned again, then the walk
        monkeypatch.setattr(watching, "plan_watches", real_plan)
        assert okapi.exists()
        tool.keep_current()
        assert tool.call("fig harvest", now_ms=now_ms).structured["primary"][0]["rel"] == "top/fig.md"
        assert tool.call("okapi sightings", now_ms=now_ms).structured["primary"][0]["rel"] == "docs/okapi.md"
    finally:
        tool.close()


def test_the_lease_is_given_up_while_new_folders_are_walked(project, tmp_path, now_ms, monkeypatch):
    """A folder moved into the workspace may hold thousands of files: until the walk has indexed them the index
    is behind, so the server gives up its lease before walking (a one-shot command walks meanwhile instead of
    trusting an index without them) and takes it again once the walk is done."""
    from knit_desktop.core.workspace import Workspace

    tool = KnitDocs(str(project), str(tmp_path / "no-dsh"), watch=True)
    try:
        tool.call("retry backoff", now_ms=now_ms)
        tool.keep_current()
        assert _lease_holder(project) == str(os.getpid())
        walk = Workspace.refresh
        holders: list[str | None] = []

        def watched_walk(self, *args, **kwargs):
            holders.append(_lease_holder(project))
            return walk(self, *args, **kwargs)

        monkeypatch.setattr(Workspace, "refresh", watched_walk)
        feed = tool._feeds[str(project.resolve())]
        staging = tmp_path / "imported"
        staging.mkdir()
        (staging / "zebra-migration.md").write_text("# Zebra migration\n\nThe zebra herd moves north.\n")
        staging.rename(project / "imported")
        assert _wait_for(lambda: feed._rescan)
        tool.keep_current()
        assert holders == [None]  # no lease while the walk went on
        assert _lease_holder(project) == str(os.getpid())  # and taken again after it
        assert _opened_elsewhere(project, "imported/zebra-migration.md")["zebra"]
    finally:
        tool.close()


def test_a_workspace_folder_deleted_and_made_again_is_watched_again(project, tmp_path, now_ms):
    """Deleted, the workspace cannot be watched and its lease is given up; made again (a fresh clone), the next
    call watches it anew, and the server keeps it current and holds its lease again instead of walking it on
    every call for as long as it runs."""
    import shutil

    tool = KnitDocs(str(project), str(tmp_path / "no-dsh"), watch=True)
    try:
        tool.call("retry backoff", now_ms=now_ms)
        tool.keep_current()
        feed = tool._feeds[str(project.resolve())]
        shutil.rmtree(project)
        assert _wait_for(lambda: tool.keep_current() >= 0 and not feed.healthy)
        assert _lease_holder(project) is None
        (project / "docs").mkdir(parents=True)
        (project / "docs" / "zebra-migration.md").write_text("# Zebra migration\n\nThe zebra herd moves north.\n")
        assert tool.call("zebra herd", now_ms=now_ms).structured["primary"][0]["rel"] == "docs/zebra-migration.md"
        tool.keep_current()
        assert feed.healthy
        assert _lease_holder(project) == str(os.getpid())
    finally:
        tool.close()
