"""The one way Knit replaces a file: all or nothing, durable, keeping the file's mode."""

from __future__ import annotations

import os

import pytest

from knit_desktop.core import atomic_write
from knit_desktop.core.atomic_write import replace_file, replace_text, write_beside


def test_replaces_keeps_the_mode_and_leaves_no_temp_file(tmp_path):
    target = tmp_path / "notes.json"
    replace_text(target, "première")
    assert target.read_text(encoding="utf-8") == "première"
    assert target.stat().st_mode & 0o777 == 0o666 & ~atomic_write._umask()  # as open() would create it
    os.chmod(target, 0o640)
    replace_file(target, b"second")
    assert target.read_bytes() == b"second" and target.stat().st_mode & 0o777 == 0o640
    replace_file(tmp_path / "private", b"x", new_file_mode=0o600)
    assert (tmp_path / "private").stat().st_mode & 0o777 == 0o600
    replace_file(target, b"third", mode=0o600)
    assert target.stat().st_mode & 0o777 == 0o600
    assert sorted(p.name for p in tmp_path.iterdir()) == ["notes.json", "private"]


def test_a_failed_write_leaves_the_old_file_whole(tmp_path, monkeypatch):
    target = tmp_path / "settings.ini"
    target.write_bytes(b"old")

    def full_disk(fd, data):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(atomic_write.os, "write", full_disk)
    with pytest.raises(OSError):
        replace_file(target, b"new" * 1000)
    monkeypatch.undo()
    assert target.read_bytes() == b"old" and [p.name for p in tmp_path.iterdir()] == ["settings.ini"]


def test_a_failed_check_renames_nothing_and_the_fsyncs_happen(tmp_path, monkeypatch):
    target = tmp_path / "memory.md"
    target.write_bytes(b"mine")
    assert write_beside(target, b"theirs", check=lambda: False) is None
    assert target.read_bytes() == b"mine" and len(list(tmp_path.iterdir())) == 1
    synced: list[int] = []
    real_fsync = os.fsync
    monkeypatch.setattr(atomic_write.os, "fsync", lambda fd: (synced.append(fd), real_fsync(fd))[1])
    replace_file(target, b"ours")
    assert target.read_bytes() == b"ours" and len(synced) == 2  # the data, then the directory
