"""The postings file beside the index (`<index>.postings-<snapshot>`, mapped by every process) meets hostile reality:
truncated, zero-filled, damaged inside, a folder in its place, unreadable, deleted under a process that mapped
it, gone while the snapshot row still names it, written by two processes at once, written onto a full disk.
Every time: the command answers correctly, says at most one line, and the next start is clean; no postings file
stays behind for good."""

from __future__ import annotations

import contextlib
import json
import os
import random
import shutil
import sqlite3
import subprocess
import sys
import textwrap
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from knit_desktop.core.index.store import POSTINGS_SUFFIX
from knit_desktop.core.paths import index_db_path
from knit_desktop.core.workspace import RankInput, Workspace

NOW = 1_780_000_000_000
WORKTREE = str(Path(__file__).resolve().parent.parent)


def words(seed: int, n: int, vocabulary: int = 50021) -> str:
    # Words that differ from file to file, so the postings span several blocks' worth of terms.
    def spelled(number: int) -> str:  # letters only: a word the tokenizer keeps whole
        return "".join("bcdfghjklmnpqrstvwxz"[number // 20**k % 20] for k in range(5))

    return " ".join("q" + spelled((seed * 7919 + i * 104729) % vocabulary) for i in range(n))


@pytest.fixture
def indexed(make_workspace):
    files = {f"notes/note-{i:03}.md": f"# Note {i}\n\n{words(i, 400)}\n" for i in range(120)}
    files["notes/orbit.md"] = "# Orbit decay\n\nThe satellite orbit decays slowly.\n"
    root = make_workspace(files)
    out = run_cli("index", "--workspace", str(root))
    assert out.returncode == 0, out.stderr
    db = index_db_path(str(root.resolve()))
    assert len(postings_files(db)) == 1
    return root, db


def postings_files(db: Path) -> list[Path]:
    return sorted(p for p in db.parent.iterdir() if p.name.startswith(db.name + POSTINGS_SUFFIX))


def run_cli(*args: str, prefix: tuple[str, ...] = (), env: dict | None = None) -> subprocess.CompletedProcess:
    environment = {**os.environ, "PYTHONPATH": WORKTREE, **(env or {})}
    return subprocess.run([*prefix, sys.executable, "-m", "knit_desktop", *args], capture_output=True, text=True,
                          timeout=180, env=environment)


def rank_top(root: Path, query: str = "satellite orbit", **kwargs) -> tuple[str, str]:
    out = run_cli("rank", "--workspace", str(root), "--query", query, "--json", "--now", str(NOW), **kwargs)
    assert out.returncode == 0, out.stderr
    assert "Traceback" not in out.stderr and "error" not in out.stderr, out.stderr
    return json.loads(out.stdout)["results"][0]["rel"], out.stderr


def damage(path: Path, how: str) -> None:
    size = path.stat().st_size
    if how == "truncated":
        os.truncate(path, size // 2)
    elif how == "zero_filled":
        path.write_bytes(bytes(size))
    elif how == "damaged_inside":  # the frame headers stay whole: found only when a block is inflated
        data = bytearray(path.read_bytes())
        for at in range(64, size - 8, 97):
            data[at] ^= 0x5A
        path.write_bytes(bytes(data))
    elif how == "directory":
        path.unlink()
        (path / "inner").mkdir(parents=True)
    elif how == "missing":
        path.unlink()


@pytest.mark.parametrize("how", ["truncated", "zero_filled", "damaged_inside", "directory", "missing"])
def test_a_damaged_postings_file_is_rebuilt_from_the_rows(indexed, how):
    root, db = indexed
    damage(postings_files(db)[0], how)
    for query, expected in (("satellite orbit", "notes/orbit.md"), (words(7, 3), "notes/note-007.md")):
        for _ in range(2):  # and again: the damage does not come back
            assert rank_top(root, query)[0] == expected
    assert len(postings_files(db)) == 1 and postings_files(db)[0].is_file()
    ws = Workspace.open_persistent(str(root))
    try:
        assert ws.last_refresh.loaded_from == "snapshot"
    finally:
        ws.close()


def test_a_block_damaged_inside_under_a_running_process(indexed):
    """The damage is found as a block is inflated, in the middle of a query: the process rebuilds its postings
    from the rows and answers that same query correctly (never an exception, never another file's ids)."""
    root, db = indexed
    ws = Workspace.open_persistent(str(root))
    try:
        damage(postings_files(db)[0], "damaged_inside")  # the same pages the process has mapped
        for query, expected in ((words(7, 3), "notes/note-007.md"), ("satellite orbit", "notes/orbit.md")):
            assert ws.rank(RankInput.from_query(query), now_ms=NOW).ranked[0].doc.rel == expected
    finally:
        ws.close()
    assert len(postings_files(db)) == 1
    assert rank_top(root, words(7, 3)) == ("notes/note-007.md", "")


def test_the_snapshot_row_naming_a_file_that_is_gone(indexed):
    root, db = indexed
    for path in postings_files(db):
        path.unlink()
    with sqlite3.connect(db) as con:  # the row still names it
        assert con.execute("SELECT count(*) FROM snapshot").fetchone()[0] == 1
    assert rank_top(root) == ("notes/orbit.md", "")
    assert len(postings_files(db)) == 1


def test_an_unreadable_postings_file(indexed):
    """chmod 000 (root passes permission bits: the command runs without the capabilities that let it)."""
    root, db = indexed
    if os.geteuid() != 0 or shutil.which("setpriv") is None:
        pytest.skip("needs root and setpriv to drop the permission-override capabilities")
    path = postings_files(db)[0]
    path.chmod(0)
    drop = ("setpriv", "--bounding-set", "-dac_override,-dac_read_search")
    probe = subprocess.run([*drop, sys.executable, "-c", f"open({str(path)!r}, 'rb')"], capture_output=True)
    assert probe.returncode != 0, "the probe could read a chmod 000 file"
    for _ in range(2):
        top, err = rank_top(root, prefix=drop)
        assert top == "notes/orbit.md" and "Traceback" not in err
    files = postings_files(db)
    assert path not in files and len(files) == 1  # the unreadable one was replaced, not kept beside it


DROP_OVERRIDES = ("setpriv", "--bounding-set", "-dac_override,-dac_read_search")


@contextlib.contextmanager
def read_only_cache(root: Path, db: Path) -> Iterator[None]:
    """Another user's cache, as a process without root's permission overrides (DROP_OVERRIDES) meets it: the index's
    folder and files may not be written, and the owner closed the index cleanly (no -wal or -shm beside it). A note
    written meanwhile is new to the index. On leaving, nothing in the folder may have changed."""
    if os.geteuid() != 0 or shutil.which("setpriv") is None:
        pytest.skip("needs root and setpriv to drop the permission-override capabilities")
    (root / "notes" / "late.md").write_text("# Late\n\na late satellite orbit note\n")
    folders = [db.parent, db.parent.parent]
    before = {p.name: p.read_bytes() for p in db.parent.iterdir()}
    assert not any(name.endswith(("-wal", "-shm")) for name in before)
    for path in [*db.parent.iterdir(), *folders]:
        path.chmod(0o555 if path.is_dir() else 0o444)
    try:
        yield
    finally:
        for path in folders:
            path.chmod(0o755)
    assert {p.name: p.read_bytes() for p in db.parent.iterdir()} == before


def ranks_saying_it_cannot_be_written(root: Path) -> None:
    for query, expected in (("satellite orbit", "notes/orbit.md"), ("late satellite orbit note", "notes/late.md")):
        top, err = rank_top(root, query, prefix=DROP_OVERRIDES)
        assert top == expected and err.count("\n") == 1 and "cannot be written" in err, err


def test_a_read_only_cache_holding_a_format_9_index(indexed):
    """The command reads the snapshot read-only and ranks; nothing there changes."""
    root, db = indexed
    with read_only_cache(root, db):
        ranks_saying_it_cannot_be_written(root)
        probe = subprocess.run(
            [*DROP_OVERRIDES, sys.executable, "-c", "import sys; from knit_desktop.core.workspace import Workspace; "
             "ws = Workspace.open_persistent(sys.argv[1]); print(ws.last_refresh.loaded_from, ws.store.read_only)",
             str(root)], capture_output=True, text=True, env={**os.environ, "PYTHONPATH": WORKTREE})
        assert probe.stdout.split() == ["snapshot", "True"], probe.stderr


def test_a_read_only_cache_holding_an_index_of_an_older_version(indexed):
    """An index an earlier version wrote (an older schema: its rows are not read) in a cache that may not be written:
    nothing there may be replaced, so the command indexes the workspace in memory and ranks, saying so in one line;
    it failed with "the index database cannot be used" after every schema change."""
    root, db = indexed
    check = sqlite3.connect(db)
    check.execute("UPDATE meta SET value = '3' WHERE key = 'schema_version'")  # as an earlier version wrote it
    check.commit()
    check.close()
    with read_only_cache(root, db):
        ranks_saying_it_cannot_be_written(root)


def test_deleted_while_mapped_and_then_the_process_saves(indexed):
    root, db = indexed
    ws = Workspace.open_persistent(str(root))
    try:
        assert ws.rank(RankInput.from_query(words(3, 3)), now_ms=NOW).ranked[0].doc.rel == "notes/note-003.md"
        for path in postings_files(db):
            path.unlink()
        (root / "notes" / "late.md").write_text("# Late\n\nsatellite orbit again, a late note\n")
        ws.refresh()  # saves: unchanged blocks are copied from the mapping of the deleted file
        assert ws.rank(RankInput.from_query(words(3, 3)), now_ms=NOW).ranked[0].doc.rel == "notes/note-003.md"
    finally:
        ws.close()
    assert len(postings_files(db)) == 1
    assert rank_top(root, words(3, 3))[0] == "notes/note-003.md"
    assert rank_top(root, "late note satellite orbit again")[0] == "notes/late.md"
    ws = Workspace.open_persistent(str(root))
    try:
        assert ws.last_refresh.loaded_from == "snapshot"
    finally:
        ws.close()


# A window-like process: apply the watcher's changes and save the snapshot, as fast as it can, until told to stop.
WINDOW = textwrap.dedent("""
    import pathlib, sys, time
    from knit_desktop.core.workspace import Workspace
    root, stop = pathlib.Path(sys.argv[1]), pathlib.Path(sys.argv[2])
    ws = Workspace.open_persistent(str(root))
    ws.store.hold_watch_lease()
    n = 0
    while not stop.exists():
        n += 1
        path = root / "notes" / f"note-{n % 120:03}.md"
        path.write_text(path.read_text() + f" edit{n}\\n")
        ws.apply_changes([f"notes/note-{n % 120:03}.md"])
        ws.save()
    ws.close()
    print(n, flush=True)
""")


def test_two_processes_saving_at_the_same_moment(indexed, tmp_path):
    root, db = indexed
    stop = tmp_path / "stop"
    env = {**os.environ, "PYTHONPATH": WORKTREE}
    window = subprocess.Popen([sys.executable, "-c", WINDOW, str(root), str(stop)], env=env, text=True,
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    problems: list[str] = []
    ranks = 0
    try:
        deadline = time.monotonic() + 6
        while time.monotonic() < deadline:
            # `index` walks and saves a snapshot of its own; `rank` opens beside the window's saves.
            for command in (["index"], ["rank", "--query", "satellite orbit", "--json", "--now", str(NOW)]):
                out = run_cli(*command, "--workspace", str(root))
                if out.returncode != 0 or out.stderr or "locked" in out.stdout:
                    problems.append(f"{command[0]}: rc={out.returncode} {out.stderr[-400:]}")
                elif command[0] == "rank":
                    ranks += 1
                    if json.loads(out.stdout)["results"][0]["rel"] != "notes/orbit.md":
                        problems.append(f"rank: {out.stdout[:300]}")
    finally:
        stop.write_text("stop")
        out, err = window.communicate(timeout=120)
    assert window.returncode == 0 and err == "", err[-2000:]
    assert problems == [], problems
    assert ranks >= 2 and int(out) >= 3
    for query, expected in (("satellite orbit", "notes/orbit.md"), (words(9, 3), "notes/note-009.md")):
        assert rank_top(root, query) == (expected, "")
    ws = Workspace.open_persistent(str(root))
    try:
        assert ws.last_refresh.loaded_from == "snapshot"
    finally:
        ws.close()
    assert len(postings_files(db)) == 1, postings_files(db)
    assert not list(db.parent.glob("*.partial"))


def test_a_save_committed_between_another_save_and_its_cleanup_keeps_its_file(indexed, monkeypatch):
    """Process A commits its snapshot; before A removes the earlier postings files, B commits a newer one. A must
    not remove B's file: every start after that would rebuild from the rows until the next save."""
    from knit_desktop.core.index.store import IndexStore

    root, db = indexed
    first, second = Workspace.open_persistent(str(root)), Workspace.open_persistent(str(root))
    real_cleanup = IndexStore._delete_postings_files
    interleaved = []

    def cleanup_after_another_save(store, keep):
        if store is first.store and not interleaved:
            interleaved.append(True)
            (root / "notes" / "between.md").write_text("# Between\n\nsaved between the two\n")
            second.refresh()  # commits (and cleans up) here, between the first's commit and its cleanup
        real_cleanup(store, keep)

    monkeypatch.setattr(IndexStore, "_delete_postings_files", cleanup_after_another_save)
    try:
        (root / "notes" / "first.md").write_text("# First\n\nthe first save\n")
        first.refresh()
    finally:
        first.close()
        second.close()
    assert interleaved
    ws = Workspace.open_persistent(str(root))
    try:
        assert ws.last_refresh.loaded_from == "snapshot" and "notes/between.md" in ws.index.by_rel
    finally:
        ws.close()
    assert len(postings_files(db)) == 1


@pytest.fixture
def small_disk(tmp_path):
    """A 64 MB tmpfs as Knit's cache (KNIT_DESKTOP_HOME), unmounted afterwards."""
    if os.geteuid() != 0 or shutil.which("mount") is None:
        pytest.skip("needs root to mount a small tmpfs")
    mount = tmp_path / "cache"
    mount.mkdir()
    if subprocess.run(["mount", "-t", "tmpfs", "-o", "size=64m", "tmpfs", str(mount)],
                      capture_output=True).returncode != 0:
        pytest.skip("cannot mount a tmpfs here")
    try:
        yield mount
    finally:
        subprocess.run(["umount", "-l", str(mount)], capture_output=True)


def test_a_disk_that_fills_while_the_postings_file_is_written(make_workspace, small_disk):
    # Words drawn at random from a vocabulary of 20,000: every list holds scattered documents, so the postings
    # file does not shrink to nothing the way lists of neighbouring documents do.
    vocabulary = words(1, 20000, 3_200_000).split()
    files = {f"notes/note-{i:03}.md": f"# Note {i}\n\n{' '.join(random.Random(i).choices(vocabulary, k=1500))}\n"
             for i in range(400)}
    files["notes/orbit.md"] = "# Orbit decay\n\nThe satellite orbit decays slowly.\n"
    root = make_workspace(files)
    env = {"KNIT_DESKTOP_HOME": str(small_disk)}
    assert run_cli("index", "--workspace", str(root), env=env).returncode == 0
    db = small_disk / "indexes" / index_db_path(str(root.resolve())).name
    size = postings_files(db)[0].stat().st_size
    assert size > 500_000  # room for the rows' few pages once it is half full
    # A change whose rows fit but whose postings file does not: the disk is filled to half the file's size.
    (root / "notes" / "note-001.md").write_text("# Note 1\n\nrewritten satellite note\n")
    filler = small_disk / "filler"
    with open(filler, "wb") as out:
        free = shutil.disk_usage(small_disk).free
        out.write(bytes(max(free - size // 2, 0)))
    top, err = rank_top(root, env=env)
    assert top == "notes/orbit.md"
    assert err.count("\n") == 1 and "full" in err and "not saved" in err, err
    assert not list(db.parent.glob("*.partial")) and len(postings_files(db)) == 1
    filler.unlink()
    assert rank_top(root, "rewritten satellite note", env=env) == ("notes/note-001.md", "")
    assert len(postings_files(db)) == 1
    with sqlite3.connect(db) as con:
        assert con.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
