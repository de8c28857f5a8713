"""A damaged index rebuilds itself: set aside once (for a bug report), rebuilt, said in one line. Never forever
"database disk image is malformed"; never deleting an index Knit cannot write."""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys

import pytest

from knit_desktop.core.paths import index_db_path
from knit_desktop.core.workspace import RankInput, Workspace

NOW = 1_780_000_000_000


@pytest.fixture
def indexed(make_workspace):
    files = {f"notes/note-{i:03}.md": f"# Note {i}\n\n" + f"alpha beta gamma {i} " * 200 for i in range(60)}
    files["notes/orbit.md"] = "# Orbit decay\n\nThe satellite orbit decays slowly.\n"
    root = make_workspace(files)
    Workspace.open_persistent(str(root)).close()
    db = index_db_path(str(root.resolve()))
    assert db.is_file()
    return root, db


def top(root) -> str:
    ws = Workspace.open_persistent(str(root))
    try:
        ranking = ws.rank(RankInput.from_query("satellite orbit"), now_ms=NOW)
        return ranking.results[0].doc.rel if hasattr(ranking, "results") else ranking.ranked[0].doc.rel
    finally:
        ws.close()


def run_cli(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "knit_desktop", *args], capture_output=True, text=True, timeout=120,
                          env={**os.environ})


def test_garbage_in_the_middle_of_the_file_is_set_aside_and_rebuilt(indexed):
    root, db = indexed
    size = db.stat().st_size
    with open(db, "r+b") as handle:  # past the header page, where the rows live
        handle.seek(size // 2)
        handle.write(os.urandom(8192))
    for attempt in range(2):  # and the second run is clean: the damage is gone for good
        out = run_cli("rank", "--workspace", str(root), "--query", "satellite orbit", "--json", "--now", str(NOW))
        assert out.returncode == 0, out.stderr
        assert json.loads(out.stdout)["results"][0]["rel"] == "notes/orbit.md"
        if attempt == 0:
            assert out.stderr.count("\n") == 1 and "set aside" in out.stderr and "rebuilt" in out.stderr, out.stderr
            assert (db.parent / (db.name + ".broken")).is_file()
        else:
            assert out.stderr == ""
    with sqlite3.connect(db) as check:
        assert check.execute("PRAGMA integrity_check").fetchone()[0] == "ok"


def test_every_page_after_the_first_overwritten(indexed):
    root, db = indexed
    data = bytearray(db.read_bytes())
    data[4096:] = os.urandom(len(data) - 4096)
    db.write_bytes(bytes(data))
    for suffix in ("-wal", "-shm"):
        (db.parent / (db.name + suffix)).unlink(missing_ok=True)
    ws = Workspace.open_persistent(str(root))
    assert "set aside" in ws.notice and "notes/orbit.md" in ws.index.by_rel
    ws.close()


@pytest.mark.parametrize("damage", ["generation", "snapshot", "schema_version"])
def test_a_bad_snapshot_or_meta_row_is_survived(indexed, damage):
    root, db = indexed
    with sqlite3.connect(db) as con:
        if damage == "snapshot":
            con.execute("UPDATE snapshot SET data = ?", (b"\x00not marshal" * 10,))
        else:
            con.execute("UPDATE meta SET value = 'garbage' WHERE key = ?", (damage,))
    ws = Workspace.open_persistent(str(root))
    assert "notes/orbit.md" in ws.index.by_rel and len(ws.index) == 61
    ws.close()
    ws = Workspace.open_persistent(str(root))  # and the next start is normal again
    assert ws.last_refresh.loaded_from == "snapshot" and len(ws.index) == 61
    ws.close()


def test_a_directory_where_the_database_should_be(make_workspace):
    root = make_workspace({"a.md": "# A\n\nsatellite orbit\n"})
    db = index_db_path(str(root.resolve()))
    (db / "inner").mkdir(parents=True)
    out = run_cli("index", "--workspace", str(root))
    assert out.returncode == 0, out.stderr
    assert "its path is not a file" in out.stderr and "Traceback" not in out.stderr
    assert db.is_file() and (db.parent / (db.name + ".broken") / "inner").is_dir()


def test_an_index_that_cannot_be_written_is_read_not_deleted(indexed, monkeypatch):
    """Another user's index (or a read-only disk): opened read-only, never deleted; changes stay in memory."""
    root, db = indexed
    before = db.read_bytes()
    real_connect = sqlite3.connect

    def read_only_disk(target, *args, **kwargs):
        if str(target) == str(db):
            raise sqlite3.OperationalError("attempt to write a readonly database")
        return real_connect(target, *args, **kwargs)

    monkeypatch.setattr(sqlite3, "connect", read_only_disk)
    (root / "notes" / "new.md").write_text("# New\n\nfresh satellite orbit note\n")
    ws = Workspace.open_persistent(str(root))
    assert ws.store is not None and ws.store.read_only and "cannot be written" in ws.notice
    assert "notes/new.md" in ws.index.by_rel  # current in memory
    ws.close()
    assert db.read_bytes() == before


def test_a_write_that_fails_is_redone_on_the_next_look(make_workspace, monkeypatch):
    """A batch whose commit fails (a full disk) must not leave memory believing the rows were written."""
    from knit_desktop.core.index.store import IndexStore

    root = make_workspace({"a.md": "# A\n\nalpha\n"})
    ws = Workspace.open_persistent(str(root))
    (root / "b.md").write_text("# B\n\nsatellite orbit\n")
    real = IndexStore.transaction
    calls = {"n": 0}

    def full_disk(self):
        calls["n"] += 1
        if calls["n"] == 1:
            raise sqlite3.OperationalError("database or disk is full")
        return real(self)

    monkeypatch.setattr(IndexStore, "transaction", full_disk)
    with pytest.raises(sqlite3.OperationalError):
        ws.refresh()
    assert "b.md" not in ws.index.by_rel
    ws.refresh()
    assert "b.md" in ws.index.by_rel
    ws.close()
    again = Workspace.open_persistent(str(root))
    assert again.index.get("b.md").body.strip().endswith("satellite orbit")
    again.close()


def test_an_immutable_index_file_is_read_not_written(indexed):
    """As root, permission bits do not stop a write; an immutable file does (chattr +i), as a foreign file would."""
    import shutil as _shutil

    root, db = indexed
    if os.geteuid() != 0 or _shutil.which("chattr") is None:
        pytest.skip("needs root and chattr")
    before = db.read_bytes()
    (root / "notes" / "late.md").write_text("# Late\n\nsatellite orbit again\n")
    if subprocess.run(["chattr", "+i", str(db)], capture_output=True).returncode != 0:
        pytest.skip("this file system has no immutable flag")
    try:
        out = run_cli("rank", "--workspace", str(root), "--query", "satellite orbit again", "--json", "--now", str(NOW))
        assert out.returncode == 0, out.stderr
        assert "cannot be written" in out.stderr
        assert json.loads(out.stdout)["results"][0]["rel"] == "notes/late.md"
    finally:
        subprocess.run(["chattr", "-i", str(db)])
    assert db.read_bytes() == before
