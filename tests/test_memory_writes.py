"""Confirmed memory writes under concurrent writers: real second processes append to the memory file (one without
a lock, as an editor or `echo >>` does, one with `flock`) while notes are confirmed here. No line of theirs may be
lost: each confirm either writes around their lines or reports a conflict. Plus unique, pruned backups, symlinked
memory files written through, and the size cap on memory files."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from knit_desktop.core.memory.library import MAX_MEMORY_BYTES, MemoryIndex
from knit_desktop.core.memory.store import MemoryStore
from knit_desktop.core.memory.write import (
    KEEP_BACKUPS,
    MemoryConflict,
    MemoryWriteError,
    append_entry,
    backups_of,
    fingerprint,
)

HEAD = "# Journal\n\n## Notes\n- first note\n"

APPENDER = textwrap.dedent(
    """
    import fcntl, os, random, sys, time
    path, count, lock, ready = sys.argv[1], int(sys.argv[2]), sys.argv[3] == "lock", sys.argv[4]
    pace, burst = float(sys.argv[5]), int(sys.argv[6])
    open(ready, "w").close()
    for i in range(count):
        line = f"- editor line {i}\\n"
        while True:
            with open(path, "a", encoding="utf-8") as fh:
                if lock:
                    fcntl.flock(fh, fcntl.LOCK_EX)
                    if os.fstat(fh.fileno()).st_ino != os.stat(path).st_ino:
                        continue  # replaced while we waited: append to the file that is there now
                fh.write(line)
                fh.flush()
            break
        if pace and i % burst == burst - 1:
            time.sleep(random.uniform(0, pace))  # an editor's pace: a burst of lines, then a pause
    """
)


def _start_appender(tmp_path: Path, path: Path, count: int, lock: bool, pace: float = 0.0,
                    burst: int = 1) -> subprocess.Popen:
    ready = tmp_path / f"ready-{lock}"
    proc = subprocess.Popen([sys.executable, "-c", APPENDER, str(path), str(count), "lock" if lock else "no",
                             str(ready), str(pace), str(burst)])
    deadline = time.monotonic() + 30
    while not ready.exists() and time.monotonic() < deadline:
        time.sleep(0.005)
    return proc


def _confirm_while(proc: subprocess.Popen, path: Path, backups: Path) -> tuple[list[str], int]:
    """Confirm notes (fingerprint when shown, then write) until the other process is done."""
    written: list[str] = []
    conflicts = 0
    n = 0
    while proc.poll() is None or n < 5:
        text = f"confirmed note {n}"
        n += 1
        expected = fingerprint(str(path))
        try:
            append_entry(str(path), "Notes", text, expected, backups)
        except MemoryConflict:
            conflicts += 1
            continue
        written.append(text)
    assert proc.wait(60) == 0
    return written, conflicts


def _lines(path: Path) -> list[str]:
    return path.read_text(encoding="utf-8").splitlines()


# (appender locks?, lines, longest pause, lines per burst). A confirm takes ~70 ms (three fsyncs, 50 ms settling).
WRITERS = {
    # An editor appending two lines every ~20 ms: most confirms overlap an append and are refused.
    "editor-steady": (False, 400, 0.04, 2),
    # An editor appending bursts of ten lines with pauses of 0-200 ms: most confirms fit in a pause.
    "editor-bursts": (False, 600, 0.2, 10),
    # A writer that takes the lock, as fast as the lock allows.
    "writer-with-flock": (True, 1000, 0.0, 1),
}


@pytest.mark.parametrize("writer", list(WRITERS))
def test_a_concurrent_appender_never_loses_a_line(tmp_path, writer):
    lock, count, pace, burst = WRITERS[writer]
    path = tmp_path / "memory" / "journal.md"
    path.parent.mkdir()
    path.write_text(HEAD, encoding="utf-8")
    proc = _start_appender(tmp_path, path, count, lock, pace, burst)
    written, conflicts = _confirm_while(proc, path, tmp_path / "backups")
    lines = _lines(path)
    theirs = [line for line in lines if line.startswith("- editor line ")]
    assert theirs == [f"- editor line {i}" for i in range(count)]  # every line, once, in order
    ours = [line[2:] for line in lines if line.startswith("- confirmed note ")]
    assert ours == written  # every confirm that did not report a conflict is in the file, once
    assert len(lines) == 4 + count + len(written)
    assert written or writer == "editor-steady"
    print(f"{writer}: {count} lines kept, {len(written)} confirms written, {conflicts} refused as conflicts")


def test_confirms_in_the_same_second_keep_separate_backups_and_old_ones_are_pruned(tmp_path):
    path = tmp_path / "journal.md"
    path.write_text(HEAD, encoding="utf-8")
    backups = tmp_path / "backups"
    versions = []
    for i in range(2):
        versions.append(path.read_bytes())
        append_entry(str(path), "Notes", f"quick {i}", fingerprint(str(path)), backups)
    kept = backups_of(backups, "journal")
    assert len(kept) == 2 and [p.read_bytes() for p in kept] == versions  # oldest first, both versions
    for i in range(KEEP_BACKUPS + 5):
        append_entry(str(path), "Notes", f"more {i}", fingerprint(str(path)), backups)
    kept = backups_of(backups, "journal")
    assert len(kept) == KEEP_BACKUPS and len(set(p.name for p in kept)) == KEEP_BACKUPS
    assert b"more 23" in kept[-1].read_bytes() and b"more 24" not in kept[-1].read_bytes()  # the newest kept


def test_a_symlinked_memory_file_is_written_through_and_stays_a_link(tmp_path):
    elsewhere = tmp_path / "dotfiles" / "memory-journal.md"
    elsewhere.parent.mkdir()
    elsewhere.write_text(HEAD, encoding="utf-8")
    os.chmod(elsewhere, 0o640)
    memory = tmp_path / "memory"
    memory.mkdir()
    link = memory / "journal.md"
    link.symlink_to(os.path.relpath(elsewhere, memory))
    store = MemoryStore(str(memory), data_dir=tmp_path / "data")
    proposal, _ = store.propose("kept through the link", "journal.md", "Notes")
    store.confirm(proposal, store.fingerprint("journal.md"))
    assert link.is_symlink() and os.readlink(link) == os.path.relpath(elsewhere, memory)
    assert elsewhere.read_text(encoding="utf-8") == HEAD + "- kept through the link\n"
    assert os.stat(elsewhere).st_mode & 0o777 == 0o640
    assert not [p for p in memory.iterdir() if p.name.startswith(".knit-")]  # no temp file left behind
    assert not [p for p in elsewhere.parent.iterdir() if p.name.startswith(".knit-")]


def test_a_file_changed_between_the_note_and_the_confirm_is_a_conflict_and_untouched(tmp_path):
    path = tmp_path / "journal.md"
    path.write_text(HEAD, encoding="utf-8")
    expected = fingerprint(str(path))
    with open(path, "a", encoding="utf-8") as fh:
        fh.write("- typed in an editor\n")
    before = path.read_bytes()
    with pytest.raises(MemoryConflict):
        append_entry(str(path), "Notes", "late", expected, tmp_path / "backups")
    assert path.read_bytes() == before and not (tmp_path / "backups").exists()


def test_memory_files_over_the_size_cap_are_skipped_with_a_reason_not_read(tmp_path):
    memory = tmp_path / "memory"
    memory.mkdir()
    (memory / "small.md").write_text("## Editor\n- vim keys everywhere\n", encoding="utf-8")
    huge = memory / "huge.md"
    with open(huge, "wb") as fh:
        fh.truncate(1 << 30)  # 1 GB, sparse: reading it whole would take a gigabyte of memory
    index = MemoryIndex(str(memory))
    assert [lib.stem for lib in index.libraries()] == ["small"]
    assert "larger than 4 MB" in index.problems["huge.md"]
    with pytest.raises(MemoryWriteError, match="larger than"):
        append_entry(str(huge), "", "no", "whatever", tmp_path / "backups")
    probe = textwrap.dedent(
        """
        import json, resource, subprocess, sys
        out = subprocess.run([sys.executable, "-m", "knit_desktop", "memory", "vim keys", "--json",
                              "--memory-dir", sys.argv[1]], capture_output=True, text=True)
        rss = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss // 1024
        print(json.dumps({"code": out.returncode, "out": out.stdout, "rss_mb": rss}))
        """
    )
    got = json.loads(subprocess.run([sys.executable, "-c", probe, str(memory)], capture_output=True, text=True,
                                    timeout=120).stdout)
    payload = json.loads(got["out"])
    assert got["code"] == 0 and payload["hits"][0]["location"] == "small.md:2-2"
    assert payload["skipped"] == [{"file": "huge.md", "reason": index.problems["huge.md"]}]
    assert got["rss_mb"] < 256, got  # the gigabyte was never read
    assert MAX_MEMORY_BYTES == 4_000_000


def test_a_queue_file_holding_an_object_or_garbage_is_kept_and_the_user_told(tmp_path):
    data = tmp_path / "data"
    data.mkdir()
    for content in ("{}", "\x00garbage\xff"):
        queue_file = data / "memory-proposals.json"
        queue_file.write_text(content, encoding="utf-8")
        store = MemoryStore(str(tmp_path / "memory"), data_dir=data)
        proposal, new = store.propose("a fresh proposal")
        assert new and [p.text for p in store.queue.pending()] == ["a fresh proposal"]
        assert "kept as" in store.queue.warning and "broken-" in store.queue.warning
        queue_file.unlink()
    kept = sorted(p.read_text(encoding="utf-8") for p in data.glob("memory-proposals.json.broken-*"))
    assert kept == sorted(["{}", "\x00garbage\xff"])
    cli = subprocess.run([sys.executable, "-m", "knit_desktop", "propose", "from the command line",
                          "--memory-dir", str(tmp_path / "memory")], capture_output=True, text=True, timeout=60,
                         env={**os.environ, "KNIT_DESKTOP_HOME": str(data.parent / "home")})
    assert cli.returncode == 0
    home_queue = next((data.parent / "home").rglob("memory-proposals.json"))
    home_queue.write_text("{}", encoding="utf-8")
    cli = subprocess.run([sys.executable, "-m", "knit_desktop", "propose", "after the damage",
                          "--memory-dir", str(tmp_path / "memory")], capture_output=True, text=True, timeout=60,
                         env={**os.environ, "KNIT_DESKTOP_HOME": str(data.parent / "home")})
    assert cli.returncode == 0 and "kept as" in cli.stderr and cli.stdout.startswith("Queued")
    assert list(home_queue.parent.glob("memory-proposals.json.broken-*"))


def test_the_window_is_told_when_the_queue_file_was_damaged(qtbot, tmp_path, settings):
    from knit_desktop.ui.memory_notes import MemoryNotes

    data = tmp_path / "data"
    data.mkdir()
    (data / "memory-proposals.json").write_text("{}", encoding="utf-8")
    notes = MemoryNotes(MemoryStore(str(tmp_path / "memory"), data_dir=data), settings)
    told: list[str] = []
    notes.warned.connect(told.append)
    notes.start()
    notes.refresh()  # told once, not on every look
    notes.stop()
    assert len(told) == 1 and "kept as" in told[0] and "memory-proposals.json.broken-" in told[0]
    assert [p.read_text() for p in data.glob("memory-proposals.json.broken-*")] == ["{}"]


def test_a_write_keeps_every_other_character_of_the_file(tmp_path):
    """Mixed line endings, U+2028, form feeds: the confirmed entry is added, nothing else is rewritten."""
    from knit_desktop.core.memory.write import append_entry, fingerprint

    path = tmp_path / "prefs.md"
    original = "# Prefs\n\n## Editor\n- first\u2028still first\r\n- second\x0cpage\n\n## Other\n- x\n"
    path.write_bytes(original.encode("utf-8"))
    append_entry(str(path), "Editor", "new entry", fingerprint(str(path)), tmp_path / "backups")
    written = path.read_bytes().decode("utf-8")
    assert written.replace("- new entry\r\n", "", 1) == original
    assert "- second\x0cpage\n- new entry\r\n" in written
