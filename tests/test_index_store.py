"""The persistent index: warm starts without re-reading, incremental reconcile, crash repair, schema changes."""

import os
import shutil
import signal
import sqlite3
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from knit_desktop.core.index import documents
from knit_desktop.core.index.store import SCHEMA_VERSION, IndexStore
from knit_desktop.core.index.watch_lease import index_watched_elsewhere
from knit_desktop.core.paths import index_db_path
from knit_desktop.core.workspace import RankInput, Workspace, has_persistent_index

DAY = 86_400_000


def order(ws, query, now_ms):
    return [r.doc.rel for r in ws.rank(RankInput.from_query(query), now_ms=now_ms).ranked]


@pytest.fixture
def files(now_ms):
    return {
        "docs/cache.md": ("# Attachment cache\n\nEviction of the attachment cache.\n\nSee `docs/sync.md`.", now_ms - DAY),
        "docs/sync.md": ("# Sync\n\nVector clocks merge edits.\n", now_ms - 2 * DAY),
        "notes/todo.txt": ("Todo\ncheck the cache size\n", now_ms - 3 * DAY),
        "notes/bad.md": (b"\x00\x01binary" * 30, now_ms - 4 * DAY),
        "shots/cache.png": (b"\x89PNG\r\n\x1a\n", now_ms - 5 * DAY),
    }


def test_index_lives_in_the_app_home_not_the_workspace(make_workspace, files, _isolated_app_home):
    root = make_workspace(files)
    before = sorted(p.relative_to(root).as_posix() for p in root.rglob("*"))
    ws = Workspace.open_persistent(str(root))
    ws.close()
    assert sorted(p.relative_to(root).as_posix() for p in root.rglob("*")) == before
    db = index_db_path(str(root.resolve()))
    assert db.exists() and str(db).startswith(str(_isolated_app_home))
    assert has_persistent_index(str(root))


def test_warm_open_reads_no_document_and_ranks_the_same(make_workspace, files, now_ms, monkeypatch):
    root = make_workspace(files)
    cold = Workspace.open_persistent(str(root))
    expected = order(cold, "attachment cache sync", now_ms)
    expected_pack = cold.context(RankInput.from_query("attachment cache"), now_ms=now_ms)
    statuses = dict(cold.statuses)
    cold.close()

    def no_reads(*args, **kwargs):
        raise AssertionError("a warm open must not read documents")

    with monkeypatch.context() as patch:
        patch.setattr(documents, "read_indexed_bytes", no_reads)
        patch.setattr("knit_desktop.core.index.preparing.read_indexed_bytes", no_reads)
        patch.setattr("knit_desktop.core.index.store.read_indexed_bytes", no_reads)
        warm = Workspace.open_persistent(str(root))
        assert warm.last_refresh.loaded_from == "snapshot" and warm.last_refresh.changes == 0
        assert order(warm, "attachment cache sync", now_ms) == expected
        assert warm.statuses == statuses
    # Passages need bodies: a Markdown or text body is read back from its file (only the top documents' files).
    pack = warm.context(RankInput.from_query("attachment cache"), now_ms=now_ms)
    assert [i.record.doc.rel for i in pack.items()] == [i.record.doc.rel for i in expected_pack.items()]
    assert pack.primary[0].passages == expected_pack.primary[0].passages
    assert pack.primary[0].relations == expected_pack.primary[0].relations


def test_reconcile_follows_edits_additions_deletions_renames_and_touches(make_workspace, files, now_ms):
    root = make_workspace(files)
    Workspace.open_persistent(str(root)).close()
    (root / "docs/sync.md").write_text("# Sync\n\nNow about quantum teleportation.\n", encoding="utf-8")
    (root / "notes/new.md").write_text("# New note\n\nteleportation again\n", encoding="utf-8")
    (root / "notes/todo.txt").unlink()
    os.rename(root / "docs/cache.md", root / "docs/attachment-cache.md")
    os.utime(root / "shots/cache.png", (1, 1))  # media are never read, so they have no hash: a change

    ws = Workspace.open_persistent(str(root))
    report = ws.last_refresh
    assert (report.added, report.changed, report.removed, report.touched) == (2, 2, 2, 0)
    assert order(ws, "teleportation", now_ms)[:2] == ["notes/new.md", "docs/sync.md"]
    assert "notes/todo.txt" not in ws.statuses and "docs/cache.md" not in ws.statuses
    assert ws.index.get("shots/cache.png").mtime_ms == 1000
    ws.close()
    again = Workspace.open_persistent(str(root))
    # Many removed documents make the saved postings mostly dead weight: those are rebuilt from the rows.
    assert again.last_refresh.changes == 0
    assert order(again, "teleportation", now_ms)[:2] == ["notes/new.md", "docs/sync.md"]


def test_a_touch_without_a_content_change_is_not_re_extracted(make_workspace, files, monkeypatch):
    root = make_workspace(files)
    Workspace.open_persistent(str(root)).close()
    os.utime(root / "docs/sync.md", (12345, 12345))
    monkeypatch.setattr(
        "knit_desktop.core.index.preparing.extract_document",
        lambda *a, **k: (_ for _ in ()).throw(AssertionError("re-extracted")),
    )
    ws = Workspace.open_persistent(str(root))
    assert ws.last_refresh.touched == 1 and ws.index.get("docs/sync.md").mtime_ms == 12345000


def test_schema_mismatch_and_a_corrupt_database_rebuild(make_workspace, files, now_ms):
    root = make_workspace(files)
    ws = Workspace.open_persistent(str(root))
    expected = order(ws, "cache", now_ms)
    ws.store.db.execute("UPDATE meta SET value = '0' WHERE key = 'schema_version'")
    ws.close()
    rebuilt = Workspace.open_persistent(str(root))
    assert rebuilt.last_refresh.added == 5 and order(rebuilt, "cache", now_ms) == expected
    rebuilt.close()
    db = index_db_path(str(root.resolve()))
    for suffix in ("-wal", "-shm"):
        (db.parent / (db.name + suffix)).unlink(missing_ok=True)
    db.write_bytes(b"this is not a database" * 100)
    assert order(Workspace.open_persistent(str(root)), "cache", now_ms) == expected


def test_statuses_persist_with_their_reasons(make_workspace, files):
    root = make_workspace(files)
    Workspace.open_persistent(str(root)).close()
    ws = Workspace.open_persistent(str(root))
    assert ws.statuses["notes/bad.md"].reason == "binary content in a text file"
    assert ws.status_counts() == {"indexed": 4, "skipped": 1, "failed": 0}


KILLER = textwrap.dedent(
    """
    import os, signal, sys
    from knit_desktop.core.workspace import Workspace

    def progress(done, total, rel):
        if done == int(sys.argv[2]):
            os.kill(os.getpid(), signal.SIGKILL)  # no cleanup, no final commit

    Workspace.open_persistent(sys.argv[1], progress)
    """
)


def test_a_kill_mid_index_leaves_an_index_that_opens_and_is_repaired(make_workspace, now_ms):
    n = 450  # more than two store transactions
    root = make_workspace({f"notes/n{i:03}.md": (f"# Note {i}\n\ntopic{i % 7} words", now_ms - i) for i in range(n)})
    out = subprocess.run([sys.executable, "-c", KILLER, str(root), "300"], capture_output=True, timeout=120)
    assert out.returncode == -signal.SIGKILL
    store = IndexStore(index_db_path(str(root.resolve())), str(root.resolve()))
    partial = len(store.rows())
    store.close()
    assert 0 < partial < n  # some batches were committed, the one in flight was not

    ws = Workspace.open_persistent(str(root))
    assert ws.last_refresh.loaded_from in ("rows", "snapshot")
    assert ws.last_refresh.added == n - partial
    assert len(ws.index) == n and ws.status_counts()["indexed"] == n
    assert len(ws.index.pool("doc").members) == n  # nothing duplicated
    assert order(ws, "topic3", now_ms)[0].startswith("notes/n")


def test_apply_changes_updates_only_the_named_paths(make_workspace, files, now_ms):
    root = make_workspace(files)
    ws = Workspace.open_persistent(str(root))
    (root / "docs/sync.md").write_text("# Sync\n\nteleportation\n", encoding="utf-8")
    (root / "notes/todo.txt").unlink()
    (root / "node_modules").mkdir()
    (root / "node_modules/x.md").write_text("# teleportation", encoding="utf-8")
    report = ws.apply_changes(["docs/sync.md", "notes/todo.txt", "node_modules/x.md", "docs/cache.md"])
    assert (report.changed, report.removed, report.unchanged, report.added) == (1, 1, 1, 0)
    assert order(ws, "teleportation", now_ms)[0] == "docs/sync.md"
    assert "node_modules/x.md" not in ws.index.by_rel


def test_reports_name_exactly_the_files_they_touched(make_workspace, files):
    root = make_workspace(files)
    ws = Workspace.open_persistent(str(root))
    assert sorted(ws.last_refresh.paths) == sorted(files)
    (root / "docs/sync.md").write_text("# Sync\n\nchanged", encoding="utf-8")
    (root / "notes/todo.txt").unlink()
    assert sorted(ws.refresh().paths) == ["docs/sync.md", "notes/todo.txt"]
    assert ws.refresh().paths == []
    (root / "docs/cache.md").write_text("# Cache\n\nchanged", encoding="utf-8")
    assert ws.apply_changes(["docs/cache.md", "docs/sync.md"]).paths == ["docs/cache.md"]


def test_text_bodies_are_read_back_from_their_files_and_never_from_outside(make_workspace, tmp_path, now_ms):
    """Markdown and text bodies are not copied into the index (they were most of its size); the passages read
    the file again, within the workspace: a file swapped for a link to a file outside gives no text at all."""
    outside = tmp_path / "secret.txt"
    outside.write_text("root:x:0:0 attachment cache password\n")
    root = make_workspace({
        "docs/cache.md": ("# Attachment cache\n\nEviction of the attachment cache.\n", now_ms - DAY),
        "notes/cache.txt": ("Cache notes\nthe attachment cache is small\n", now_ms - 2 * DAY),
    })
    ws = Workspace.open_persistent(str(root))
    store = ws.store
    assert store is not None
    rows = dict(store.db.execute("SELECT rel, body FROM files").fetchall())
    assert rows == {"docs/cache.md": None, "notes/cache.txt": None}
    assert store.load_body("docs/cache.md") == "# Attachment cache\n\nEviction of the attachment cache.\n"
    note = root / "notes" / "cache.txt"
    note.unlink()
    note.symlink_to(outside)
    store._forget_body("notes/cache.txt")
    assert store.load_body("notes/cache.txt") == ""
    pack = ws.context(RankInput.from_query("attachment cache password"), now_ms=now_ms)
    assert "root:x" not in repr(pack.items())
    ws.close()


def test_extracted_bodies_stay_in_the_index(make_workspace, now_ms):
    """A PDF's text is slow to extract again: its body stays in its row."""
    fitz = pytest.importorskip("fitz")
    pdf = fitz.open()
    pdf.new_page().insert_text((72, 72), "Attachment cache eviction")
    root = make_workspace({"manual.pdf": (pdf.tobytes(), now_ms - DAY)})
    ws = Workspace.open_persistent(str(root))
    assert ws.store is not None
    (body,) = ws.store.db.execute("SELECT body FROM files WHERE rel = 'manual.pdf'").fetchone()
    assert body is not None
    (root / "manual.pdf").unlink()
    ws.store._forget_body("manual.pdf")
    assert "Attachment cache eviction" in ws.store.load_body("manual.pdf")
    ws.close()


def test_a_start_catches_up_from_the_journal_instead_of_rebuilding(make_workspace, files, now_ms, monkeypatch):
    """The window writes rows as files change but saves its snapshot only now and then; a command started in
    between reads the few rows written since the snapshot (it used to rebuild every posting: 14 s at 20,000
    documents instead of 0.4 s)."""
    root = make_workspace(files)
    window = Workspace.open_persistent(str(root))
    (root / "docs" / "sync.md").write_text("# Sync\n\nVector clocks merge edits; zebra crossings.\n")
    (root / "notes" / "new.md").write_text("# Zebra notes\n\nStripes.\n")
    (root / "notes" / "todo.txt").unlink()
    assert window.apply_changes(["docs/sync.md", "notes/new.md", "notes/todo.txt"]).changes == 3
    expected = order(window, "zebra vector todo", now_ms)

    def no_rebuild(self):
        raise AssertionError("a start with a journal must not rebuild the postings")

    with monkeypatch.context() as patch:
        patch.setattr(IndexStore, "stored_documents", no_rebuild)
        patch.setattr(Workspace, "refresh", lambda self, *a, **k: self.last_refresh)  # the load alone
        command = Workspace.open_persistent(str(root))
    assert command.last_refresh.loaded_from == "snapshot" and command.last_refresh.caught_up == 3
    assert order(command, "zebra vector todo", now_ms) == expected
    assert "notes/todo.txt" not in command.index.by_rel
    command.save()  # its snapshot now holds everything: the journal is emptied and the next start reads nothing
    assert window.store.db.execute("SELECT COUNT(*) FROM changes").fetchone() == (0,)
    again = Workspace.open_persistent(str(root))
    assert again.last_refresh.caught_up == 0 and order(again, "zebra vector todo", now_ms) == expected
    for ws in (window, command, again):
        ws.close()


def _hold_lease_in_another_process(root) -> subprocess.Popen:
    """A real second process holding the watch lease of `root`'s index, as the window does."""
    code = textwrap.dedent(f"""
        import sys, time
        from knit_desktop.core.index.store import IndexStore
        from knit_desktop.core.paths import index_db_path
        store = IndexStore(index_db_path({str(root)!r}), {str(root)!r})
        store.hold_watch_lease()
        print("held", flush=True)
        sys.stdin.read()
        store.release_watch_lease()
    """)
    holder = subprocess.Popen([sys.executable, "-c", code], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    assert holder.stdout.readline().strip() == "held"
    return holder


def test_a_command_trusts_an_index_a_live_watcher_keeps_and_walks_otherwise(make_workspace, files, now_ms, monkeypatch):
    """While another live process holds the watch lease, a command opens the index without walking the
    workspace; once that process has gone (released, or died holding it) the command walks again."""
    root = (make_workspace(files)).resolve()
    Workspace.open_persistent(str(root)).close()

    def no_walk(*args, **kwargs):
        raise AssertionError("the workspace must not be walked")

    assert not index_watched_elsewhere(index_db_path(str(root)))
    holder = _hold_lease_in_another_process(root)
    try:
        assert index_watched_elsewhere(index_db_path(str(root)))  # what `rank` looks at before walking ahead
        with monkeypatch.context() as patch:
            patch.setattr("knit_desktop.core.workspace.scan_workspace", no_walk)
            trusting = Workspace.open_persistent(str(root), trust_watcher=True)
            assert trusting.last_refresh.trusted_watcher
            assert order(trusting, "attachment cache", now_ms)[0] == "docs/cache.md"
            trusting.close()
            with pytest.raises(AssertionError, match="must not be walked"):
                Workspace.open_persistent(str(root))  # without trust_watcher (`index`, the window): it walks
    finally:
        holder.kill()  # dies holding the lease
        holder.wait()
    assert not index_watched_elsewhere(index_db_path(str(root)))
    walking = Workspace.open_persistent(str(root), trust_watcher=True)
    assert not walking.last_refresh.trusted_watcher
    walking.close()
    store = IndexStore(index_db_path(str(root)), str(root))
    store.hold_watch_lease(seconds=-1)  # an expired lease (and our own) is never trusted
    assert not store.watched_elsewhere()
    store.close()


@pytest.mark.skipif(not os.path.isdir("/proc/self"), reason="a zombie is told apart through /proc")
def test_a_lease_whose_holder_ended_but_is_not_reaped_yet_is_not_trusted(make_workspace, files):
    """A server that crashed under a parent slow to reap it (a zombie) still answers signal 0: a command trusted
    the index it no longer kept until the lease ran out, up to 30 s."""
    root = (make_workspace(files)).resolve()
    Workspace.open_persistent(str(root)).close()
    holder = _hold_lease_in_another_process(root)
    try:
        assert index_watched_elsewhere(index_db_path(str(root)))
        holder.kill()  # ends holding the lease, and is not reaped (no wait) until the end of the test
        deadline = time.monotonic() + 5
        while b") Z " not in Path(f"/proc/{holder.pid}/stat").read_bytes() and time.monotonic() < deadline:
            time.sleep(0.01)
        os.kill(holder.pid, 0)  # a zombie: signal 0 still finds it
        assert not index_watched_elsewhere(index_db_path(str(root)))
    finally:
        holder.wait()


def _open_together(root: Path, go: Path, processes: int = 6) -> None:
    """`processes` processes open the persistent index of `root` at the same moment (once `go` appears), save
    and close; each must succeed and see the four indexable files."""
    code = textwrap.dedent(f"""
        import os, time
        while not os.path.exists({str(go)!r}):
            time.sleep(0.001)
        from knit_desktop.core.workspace import Workspace
        ws = Workspace.open_persistent({str(root)!r})
        ws.save()
        ws.close()
        print(len(ws.index.by_rel), flush=True)
    """)
    go.unlink(missing_ok=True)
    procs = [subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                              text=True) for _ in range(processes)]
    time.sleep(1.0)  # all of them importing and waiting
    go.write_text("")
    results = [p.communicate(timeout=120) for p in procs]
    assert [p.returncode for p in procs] == [0] * processes, [err[-800:] for _, err in results]
    assert {out.strip() for out, _ in results} == {"4"}


def test_processes_creating_one_new_index_at_the_same_moment_all_succeed(make_workspace, files, tmp_path):
    """The window, MCP servers and a command that start together on a workspace without an index: each either
    creates the tables or finds them; none deletes the file another has open (whose next write then failed with
    "attempt to write a readonly database")."""
    root = make_workspace(files).resolve()
    for _round in range(3):  # a race: three tries at it
        db = index_db_path(str(root))
        for suffix in ("", "-wal", "-shm"):
            (db.parent / (db.name + suffix)).unlink(missing_ok=True)
        _open_together(root, tmp_path / "go")


def test_processes_opening_an_index_of_an_older_schema_at_the_same_moment_all_succeed(make_workspace, files,
                                                                                      tmp_path):
    """After an upgrade, the window, MCP servers and a command meet the old schema together: one replaces the tables
    in place, the others find them current; nobody deletes the file another has open."""
    root = make_workspace(files).resolve()
    db = index_db_path(str(root))
    for _round in range(3):  # a race: three tries at it
        Workspace.open_persistent(str(root)).close()
        old = sqlite3.connect(db)
        old.execute("UPDATE meta SET value = '1' WHERE key = 'schema_version'")
        old.commit()
        old.close()
        _open_together(root, tmp_path / "go")
    store = sqlite3.connect(db)
    assert store.execute("SELECT value FROM meta WHERE key = 'schema_version'").fetchone()[0] == str(SCHEMA_VERSION)
    assert store.execute("PRAGMA auto_vacuum").fetchone()[0] == 2  # incremental, taken up by the replacement
    store.close()


def test_a_text_body_is_read_back_under_a_name_that_is_not_utf8(tmp_path, now_ms):
    """A stored name escapes bytes that are not UTF-8 (`caf\\xE9.md`); reading the body back opens the real file."""
    root = (tmp_path / "ws").resolve()
    root.mkdir()
    with open(os.path.join(os.fsencode(root), b"caf\xe9.md"), "wb") as handle:
        handle.write(b"# Caf\xc3\xa9 notes\n\nThe espresso grinder setting.\n")
    ws = Workspace.open_persistent(str(root))
    (rel,) = ws.index.by_rel
    assert rel == "caf\\xE9.md"
    assert ws.store is not None and "espresso grinder" in ws.store.load_body(rel)
    ws.close()


def test_opening_an_index_writes_nothing_to_it(make_workspace, files):
    """A new index takes incremental vacuum; opening an existing one (what every `rank` does) asks nothing of it
    that writes: its change counter stays as it was."""
    root = make_workspace(files).resolve()
    Workspace.open_persistent(str(root)).close()
    db = index_db_path(str(root))
    check = sqlite3.connect(db)
    assert check.execute("PRAGMA auto_vacuum").fetchone()[0] == 2
    check.close()
    counter = db.read_bytes()[24:28]
    IndexStore(db, str(root)).close()
    Workspace.open_persistent(str(root), trust_watcher=True).close()
    assert db.read_bytes()[24:28] == counter


def test_a_first_build_leaves_the_database_compact_and_a_small_change_does_not_compact_it_again(make_workspace,
                                                                                              monkeypatch, tmp_path):
    """Rows arrive in walk order, not name order, and leave the pages of the files table partly empty: the save
    after a first build compacts the file; a later save compacts again only once the file has doubled."""
    from knit_desktop.core.index import store as store_module

    monkeypatch.setattr(store_module, "COMPACT_MIN_PAGES", 8, raising=False)
    names = [f"topic-{(i * 7919) % 600:04d}/note-{(i * 104729) % 600:04d}-about-something.md" for i in range(600)]
    root = make_workspace({rel: f"# Note {rel}\n\nA line about {rel} and more.\n" for rel in names})
    Workspace.open_persistent(str(root)).close()
    db = index_db_path(str(root.resolve()))

    def pages(path: Path) -> int:
        check = sqlite3.connect(path)
        try:
            return check.execute("PRAGMA page_count").fetchone()[0]
        finally:
            check.close()

    check = sqlite3.connect(db)
    check.execute(f"VACUUM INTO '{tmp_path / 'compact.sqlite3'}'")
    compacted = check.execute("SELECT value FROM meta WHERE key = 'compacted_pages'").fetchone()
    check.close()
    assert pages(db) <= pages(tmp_path / "compact.sqlite3") and pages(db) > 8
    assert compacted is not None and int(compacted[0]) == pages(db)

    (root / names[0]).write_text("# Changed\n\nNew words here.\n", encoding="utf-8")
    ws = Workspace.open_persistent(str(root))
    assert ws.last_refresh.changed == 1
    ws.close()
    check = sqlite3.connect(db)
    assert check.execute("SELECT value FROM meta WHERE key = 'compacted_pages'").fetchone() == compacted
    check.close()


def test_a_compacting_save_does_not_wait_for_another_process_reading_the_index(make_workspace, monkeypatch):
    """A save that compacts the database while another process is in the middle of reading it (a start rebuilding
    from the rows, a rank) neither waits for that reader to finish nor disturbs what it reads: the write-ahead log
    is cut back later. It waited up to the busy timeout (30 s) for the reader to go."""
    from knit_desktop.core.index import store as store_module

    monkeypatch.setattr(store_module, "COMPACT_MIN_PAGES", 8)
    monkeypatch.setattr(store_module, "BUSY_TIMEOUT_S", 6.0)
    names = [f"topic-{(i * 7919) % 400:04d}/note-{(i * 104729) % 400:04d}-about-something.md" for i in range(400)]
    root = make_workspace({rel: f"# Note {rel}\n\nA line about {rel} and more.\n" for rel in names}).resolve()
    Workspace.open_persistent(str(root)).close()
    db = index_db_path(str(root))
    check = sqlite3.connect(db, isolation_level=None)
    check.execute("UPDATE meta SET value = '1' WHERE key = 'compacted_pages'")  # due for a compaction
    check.close()
    code = textwrap.dedent(f"""
        import sqlite3, sys
        db = sqlite3.connect({str(db)!r}, isolation_level=None)
        db.execute("BEGIN")
        print(db.execute("SELECT count(*) FROM files").fetchone()[0], flush=True)
        sys.stdin.readline()
        print(db.execute("SELECT count(*) FROM files").fetchone()[0], flush=True)
        db.execute("COMMIT")
    """)
    reader = subprocess.Popen([sys.executable, "-c", code], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    try:
        assert reader.stdout.readline().strip() == "400"
        (root / names[0]).write_text("# Changed\n\nNew words here.\n", encoding="utf-8")
        started = time.monotonic()
        ws = Workspace.open_persistent(str(root))
        elapsed = time.monotonic() - started
        assert ws.last_refresh.changed == 1
        ws.close()
        reader.stdin.write("\n")
        reader.stdin.flush()
        assert reader.stdout.readline().strip() == "400"  # its snapshot of the rows, whole
    finally:
        reader.kill()
        reader.wait()
    assert elapsed < 3.0
    check = sqlite3.connect(db)
    assert int(check.execute("SELECT value FROM meta WHERE key = 'compacted_pages'").fetchone()[0]) > 1
    check.close()
    again = Workspace.open_persistent(str(root))
    assert again.last_refresh.changed == 0 and len(again.statuses) == 400
    again.close()


def test_content_hashes_are_stored_as_bytes_and_still_tell_a_touch_from_an_edit(make_workspace, files, now_ms):
    """A row keeps its content hash as 16 bytes. A start that rebuilds from the rows (no snapshot) compares a
    file's bytes with that hash: the same bytes under a new modification time are a touch (not read again), other
    bytes of the same size are an edit (read again and searchable)."""
    root = make_workspace(files)
    Workspace.open_persistent(str(root)).close()
    db = index_db_path(str(root.resolve()))
    check = sqlite3.connect(db)
    stored = check.execute("SELECT typeof(content_hash), length(content_hash) FROM files WHERE kind = 'md'"
                           " AND state = 'indexed'").fetchall()
    assert stored and set(stored) == {("blob", 16)}
    check.execute("DELETE FROM snapshot")  # the next start reads the hashes from the rows
    check.commit()
    check.close()
    os.utime(root / "docs/cache.md", (12345, 12345))
    sync = root / "docs/sync.md"
    text = sync.read_text(encoding="utf-8")
    edited = text.replace("Vector clocks merge", "Quantum pixies mend")
    assert len(edited) == len(text)
    sync.write_text(edited, encoding="utf-8")
    os.utime(sync, (23456, 23456))

    ws = Workspace.open_persistent(str(root))
    assert ws.last_refresh.loaded_from == "rows"
    assert (ws.last_refresh.touched, ws.last_refresh.changed) == (1, 1)
    assert order(ws, "quantum pixies", now_ms)[:1] == ["docs/sync.md"]
    assert ws.index.get("docs/sync.md").content_hash == documents.content_hash(sync.read_bytes())
    assert ws.index.get("docs/cache.md").content_hash == documents.content_hash((root / "docs/cache.md").read_bytes())
    ws.close()


# The tables of schema 3, the one before names keyed the files table alone and hashes were stored as bytes.
_SCHEMA_3_FILES = """CREATE TABLE files (rel TEXT PRIMARY KEY, kind TEXT NOT NULL, mtime_ms INTEGER NOT NULL,
    size INTEGER NOT NULL, content_hash TEXT NOT NULL DEFAULT '', state TEXT NOT NULL, reason TEXT NOT NULL DEFAULT '',
    title TEXT NOT NULL DEFAULT '', summary TEXT NOT NULL DEFAULT '', body BLOB, truncated INTEGER NOT NULL DEFAULT 0,
    page_starts TEXT NOT NULL DEFAULT '[]', refs TEXT NOT NULL DEFAULT '[]')"""


def test_an_index_of_the_previous_schema_is_rebuilt_once_and_ranks_the_same(make_workspace, files, now_ms):
    from knit_desktop.core.building import needs_cold_build

    root = make_workspace(files)
    ws = Workspace.open_persistent(str(root))
    expected = order(ws, "attachment cache sync", now_ms)
    ws.close()
    # The same index as schema 3 kept it: a files table with a rowid, hashes as hex text.
    db = index_db_path(str(root.resolve()))
    old = sqlite3.connect(db)
    rows = old.execute("SELECT * FROM files").fetchall()
    old.execute("DROP TABLE files")
    old.execute(_SCHEMA_3_FILES)
    old.executemany("INSERT INTO files VALUES (" + ", ".join("?" * 13) + ")",
                    [(*r[:4], r[4].hex() if isinstance(r[4], bytes) else r[4], *r[5:7], r[7] or "", r[8] or "",
                      *r[9:11], r[11] or "[]", r[12] or "[]") for r in rows])
    old.execute("UPDATE meta SET value = '3' WHERE key = 'schema_version'")
    old.commit()
    old.close()
    assert SCHEMA_VERSION > 3 and needs_cold_build(str(root.resolve()))

    rebuilt = Workspace.open_persistent(str(root))
    assert rebuilt.last_refresh.loaded_from == "rows" and rebuilt.last_refresh.added == len(files)
    assert order(rebuilt, "attachment cache sync", now_ms) == expected
    rebuilt.close()
    assert not needs_cold_build(str(root.resolve()))
    check = sqlite3.connect(db)
    assert "WITHOUT ROWID" in check.execute("SELECT sql FROM sqlite_master WHERE name = 'files'").fetchone()[0]
    assert {r[0] for r in check.execute("SELECT typeof(content_hash) FROM files WHERE state = 'indexed'")} == {"blob"}
    check.close()
    again = Workspace.open_persistent(str(root))  # once: the next start loads what the rebuild saved
    assert again.last_refresh.loaded_from == "snapshot" and again.last_refresh.changes == 0
    assert order(again, "attachment cache sync", now_ms) == expected
    again.close()


def test_a_row_without_links_or_pages_stores_none_and_a_rebuild_from_the_rows_keeps_the_links(make_workspace, files):
    root = make_workspace(files)
    ws = Workspace.open_persistent(str(root))
    links = {rel: list(refs) for rel, refs in ws.refs.items()}
    ws.close()
    assert list(links) == ["docs/cache.md"]
    db = index_db_path(str(root.resolve()))
    check = sqlite3.connect(db)
    stored = dict(check.execute("SELECT rel, refs FROM files WHERE state = 'indexed'"))
    assert stored["docs/sync.md"] is None and stored["docs/cache.md"] is not None
    assert check.execute("SELECT count(*) FROM files WHERE page_starts IS NOT NULL").fetchone()[0] == 0
    check.execute("DELETE FROM snapshot")
    check.commit()
    check.close()
    again = Workspace.open_persistent(str(root))
    assert again.last_refresh.loaded_from == "rows" and again.last_refresh.changes == 0
    assert {rel: list(refs) for rel, refs in again.refs.items()} == links
    assert all(doc.page_starts == [] for _, doc in again.index.documents())
    again.close()


def test_text_titles_and_summaries_are_made_again_from_their_files_when_the_rows_are_read(make_workspace, files,
                                                                                         now_ms):
    """A Markdown or text file's row keeps no title or summary (the file's text gives them, as it gives the body);
    a start that rebuilds from the rows has the same titles, summaries and ranking as the build."""
    root = make_workspace(files)
    ws = Workspace.open_persistent(str(root))
    built = {d.rel: (d.title, d.summary) for _, d in ws.index.documents()}
    expected = order(ws, "attachment cache sync todo", now_ms)
    ws.close()
    assert built["docs/cache.md"] == ("Attachment cache", "Eviction of the attachment cache.")
    assert built["notes/todo.txt"] == ("todo", "Todo")
    db = index_db_path(str(root.resolve()))
    check = sqlite3.connect(db)
    stored = check.execute("SELECT kind, title, summary FROM files WHERE state = 'indexed'").fetchall()
    assert {(kind, title, summary) for kind, title, summary in stored if kind in ("md", "txt")} == {("md", None, None),
                                                                                               ("txt", None, None)}
    assert ("image", "cache", "") in stored  # other kinds keep theirs
    check.execute("DELETE FROM snapshot")
    check.commit()
    check.close()
    again = Workspace.open_persistent(str(root))
    assert again.last_refresh.loaded_from == "rows" and again.last_refresh.changes == 0
    assert {d.rel: (d.title, d.summary) for _, d in again.index.documents()} == built
    assert order(again, "attachment cache sync todo", now_ms) == expected
    again.close()


def test_a_compaction_refused_for_lack_of_space_is_not_tried_again_at_every_save(make_workspace, monkeypatch):
    """Each try of a compaction on a full disk writes up to the whole database before it fails: a process tries
    again only once the file has grown as much again, not at every save (a window saving after each change)."""
    from knit_desktop.core.index import store as store_module

    monkeypatch.setattr(store_module, "COMPACT_MIN_PAGES", 8)
    tries: list[str] = []
    real_connect = sqlite3.connect

    class FullDisk:
        """A real connection whose VACUUM finds the disk full."""

        def __init__(self, real: sqlite3.Connection) -> None:
            self.real = real

        def execute(self, sql: str, *args):
            if sql.strip().upper() == "VACUUM":
                tries.append(sql)
                raise sqlite3.OperationalError("database or disk is full")
            return self.real.execute(sql, *args)

        def __getattr__(self, name: str):
            return getattr(self.real, name)

    monkeypatch.setattr(store_module.sqlite3, "connect", lambda *a, **k: FullDisk(real_connect(*a, **k)))
    names = [f"topic-{(i * 7919) % 300:04d}/note-{i:04d}-about-something.md" for i in range(300)]
    root = make_workspace({rel: f"# Note {rel}\n\nA line about {rel} and more.\n" for rel in names}).resolve()
    ws = Workspace.open_persistent(str(root))
    assert len(tries) == 1
    for round_ in range(3):
        (root / names[round_]).write_text(f"# Changed {round_}\n\nNew words here.\n", encoding="utf-8")
        ws.refresh()
        assert ws.last_refresh.changed == 1
    ws.close()
    assert len(tries) == 1
    again = Workspace.open_persistent(str(root), trust_watcher=True)
    assert len(again.statuses) == 300 and again.rank(RankInput.from_query("changed"), now_ms=0).ranked[0].doc.rel in names[:3]
    again.close()


def test_a_change_reported_for_a_file_whose_time_and_size_stayed_the_same_is_read_again(make_workspace, now_ms):
    """Two writes of the same length within one millisecond (a tool saving twice), or a copy that keeps the
    modification time, leave a file's time and size as they were: the watcher reported the path, and the index
    kept the first text for good."""
    root = make_workspace({"docs/plan.md": "# Plan\n\nalpha\n", "docs/other.md": "# Other\n\nbeta\n"})
    ws = Workspace.open_persistent(str(root))
    plan = root / "docs/plan.md"
    before = plan.stat()
    plan.write_text("# Plan\n\ngamma\n", encoding="utf-8")  # the same length
    os.utime(plan, ns=(before.st_atime_ns, before.st_mtime_ns))
    report = ws.apply_changes(["docs/plan.md", "docs/other.md"])
    assert (report.changed, report.unchanged) == (1, 1)
    assert order(ws, "gamma", now_ms)[0] == "docs/plan.md"
    assert ws.apply_changes(["docs/plan.md"]).changes == 0  # read again, the same bytes: nothing to do


def matching(ws, query, now_ms):
    """The files a query matches (not merely listed after them), sorted."""
    return sorted(r.doc.rel for r in ws.rank(RankInput.from_query(query), now_ms=now_ms).ranked if r.raw > 0)


def test_a_change_to_a_file_reaches_the_links_that_lead_to_it(make_workspace, now_ms):
    """CLAUDE.md -> AGENTS.md: a watcher reports a write to AGENTS.md, never to the link, and the window and the MCP
    server kept the link's old text (ranked on it) until the next walk; a link pointed elsewhere follows its new
    file."""
    root = make_workspace({"AGENTS.md": "# Agents\n\nalpha rules\n", "docs/OTHER.md": "# Other\n\nbeta notes\n"})
    (root / "CLAUDE.md").symlink_to("AGENTS.md")
    ws = Workspace.open_persistent(str(root))
    assert matching(ws, "alpha", now_ms) == ["AGENTS.md", "CLAUDE.md"]
    (root / "AGENTS.md").write_text("# Agents\n\nkestrel rules, longer now\n", encoding="utf-8")
    report = ws.apply_changes(["AGENTS.md"])
    assert sorted(report.paths) == ["AGENTS.md", "CLAUDE.md"]
    assert matching(ws, "kestrel", now_ms) == ["AGENTS.md", "CLAUDE.md"]
    (root / "CLAUDE.md").unlink()
    (root / "CLAUDE.md").symlink_to("docs/OTHER.md")
    ws.apply_changes(["CLAUDE.md"])
    (root / "docs/OTHER.md").write_text("# Other\n\nosprey notes, longer now\n", encoding="utf-8")
    ws.apply_changes(["docs/OTHER.md"])
    assert matching(ws, "osprey", now_ms) == ["CLAUDE.md", "docs/OTHER.md"]
    ws.close()
    again = Workspace.open_persistent(str(root), trust_watcher=False)  # a walk finds the same
    assert matching(again, "osprey", now_ms) == ["CLAUDE.md", "docs/OTHER.md"]
    again.close()


def test_the_link_graph_follows_edits_and_new_names_without_resolving_every_name_again(make_workspace, monkeypatch):
    """The first call after any edit built the link graph again from every document's name (110 ms at 100,000
    documents). What resolves a link is now kept while no name comes or goes; the graph is still right after an
    edit (a new link), and after a new file that makes a bare file name ambiguous (the link is then no guess)."""
    from knit_desktop.core.index import links

    root = make_workspace({"docs/guide.md": "# Guide\n", "notes/plan.md": "# Plan\n\nSee `guide.md`.\n",
                           "notes/other.md": "# Other\n"})
    made = []
    real_init = links.LinkResolver.__init__
    monkeypatch.setattr(links.LinkResolver, "__init__", lambda self, rels: made.append(1) or real_init(self, rels))
    ws = Workspace.open_persistent(str(root))
    assert ws.graph().outgoing_of("notes/plan.md") == {"docs/guide.md": 3}
    assert len(made) == 1
    (root / "notes/plan.md").write_text("# Plan\n\nSee `guide.md` and `other.md`.\n", encoding="utf-8")
    ws.apply_changes(["notes/plan.md"])
    assert ws.graph().outgoing_of("notes/plan.md") == {"docs/guide.md": 3, "notes/other.md": 3}
    assert len(made) == 1  # an edit: the same names
    (root / "archive").mkdir()
    (root / "archive/guide.md").write_text("# Old guide\n", encoding="utf-8")
    ws.apply_changes(["archive/guide.md"])
    assert ws.graph().outgoing_of("notes/plan.md") == {"notes/other.md": 3}  # `guide.md` is two files now
    assert len(made) == 2
    ws.close()


def test_a_link_pointed_elsewhere_reaches_the_links_that_lead_through_it(make_workspace, now_ms):
    """README.md -> CLAUDE.md -> AGENTS.md: a watcher reports CLAUDE.md when it is pointed at another file, never
    README.md, whose text changed with it; README.md was ranked on the old file's text until the next walk, and a
    later write to the new file did not reach it either."""
    root = make_workspace({"AGENTS.md": "# Agents\n\nalpha rules\n", "docs/OTHER.md": "# Other\n\nbeta notes\n"})
    (root / "CLAUDE.md").symlink_to("AGENTS.md")
    (root / "README.md").symlink_to("CLAUDE.md")
    ws = Workspace.open_persistent(str(root))
    assert matching(ws, "alpha", now_ms) == ["AGENTS.md", "CLAUDE.md", "README.md"]
    (root / "CLAUDE.md").unlink()
    (root / "CLAUDE.md").symlink_to("docs/OTHER.md")
    assert sorted(ws.apply_changes(["CLAUDE.md"]).paths) == ["CLAUDE.md", "README.md"]
    assert matching(ws, "beta", now_ms) == ["CLAUDE.md", "README.md", "docs/OTHER.md"]
    assert matching(ws, "alpha", now_ms) == ["AGENTS.md"]
    (root / "docs/OTHER.md").write_text("# Other\n\nosprey notes, longer now\n", encoding="utf-8")
    ws.apply_changes(["docs/OTHER.md"])
    assert matching(ws, "osprey", now_ms) == ["CLAUDE.md", "README.md", "docs/OTHER.md"]
    ws.close()
    again = Workspace.open_persistent(str(root), trust_watcher=False)  # a walk finds the same
    assert matching(again, "osprey", now_ms) == ["CLAUDE.md", "README.md", "docs/OTHER.md"]
    again.close()


def test_a_folder_walk_reaches_the_links_elsewhere_that_lead_into_it(make_workspace, now_ms):
    """CLAUDE.md -> docs/AGENTS.md: when docs/ is moved away, deleted or made again, only docs/ is walked, and the
    link at the top kept the old file's text (ranked on it, a dangling link among the results) until the next whole
    walk."""
    root = make_workspace({"docs/AGENTS.md": "# Agents\n\nalpha rules\n", "other.md": "# Other\n\nbeta\n"})
    (root / "CLAUDE.md").symlink_to("docs/AGENTS.md")
    ws = Workspace.open_persistent(str(root))
    assert matching(ws, "alpha", now_ms) == ["CLAUDE.md", "docs/AGENTS.md"]
    shutil.move(root / "docs", root / "old")
    report = ws.refresh(folders=["docs", "old"])
    assert "CLAUDE.md" in report.paths and "CLAUDE.md" not in ws.index.by_rel
    assert matching(ws, "alpha", now_ms) == ["old/AGENTS.md"]
    (root / "docs").mkdir()
    (root / "docs/AGENTS.md").write_text("# Agents\n\nkestrel rules, longer now\n", encoding="utf-8")
    ws.refresh(folders=["docs"])
    assert matching(ws, "kestrel", now_ms) == ["CLAUDE.md", "docs/AGENTS.md"]
    ws.close()
    again = Workspace.open_persistent(str(root), trust_watcher=False)  # a walk finds the same
    assert matching(again, "kestrel", now_ms) == ["CLAUDE.md", "docs/AGENTS.md"]
    assert matching(again, "alpha", now_ms) == ["old/AGENTS.md"]
    again.close()
