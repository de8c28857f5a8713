"""Shared fixtures. Qt runs offscreen and the app's own data goes to a temp dir in every test."""

from __future__ import annotations

import os
import weakref
from pathlib import Path

import pytest

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

from PySide6.QtCore import QThread  # noqa: E402  (after QT_QPA_PLATFORM is set)

NOW_MS = 1_780_000_000_000  # a fixed clock: 2026-05-28


@pytest.fixture(autouse=True)
def _isolated_app_home(tmp_path_factory, monkeypatch):
    home = tmp_path_factory.mktemp("knit-home")
    monkeypatch.setenv("KNIT_DESKTOP_HOME", str(home))
    return home


@pytest.fixture(autouse=True)
def _fail_on_leaked_qthreads():
    """A test that leaves a QThread running fails: a thread outliving its owner crashes later tests."""
    started: weakref.WeakSet = weakref.WeakSet()
    original = QThread.start

    def tracking_start(self, *args, **kwargs):
        started.add(self)
        return original(self, *args, **kwargs)

    QThread.start = tracking_start
    try:
        yield
    finally:
        QThread.start = original
    running = [thread for thread in list(started) if thread.isRunning()]
    for thread in running:
        thread.quit()
        thread.wait(2000)
    if running:
        pytest.fail(f"{len(running)} QThread(s) still running after the test")


@pytest.fixture
def now_ms() -> int:
    return NOW_MS


def write_file(root: Path, rel: str, content: str | bytes, mtime_ms: int | None = None) -> Path:
    """Write a workspace file, optionally with a pinned modification time."""
    path = root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    if isinstance(content, bytes):
        path.write_bytes(content)
    else:
        path.write_text(content, encoding="utf-8")
    if mtime_ms is not None:
        os.utime(path, ns=(mtime_ms * 1_000_000, mtime_ms * 1_000_000))
    return path


@pytest.fixture
def make_workspace(tmp_path):
    """Build a workspace from {rel: content} or {rel: (content, mtime_ms)}; returns its root."""

    def build(files: dict, name: str = "ws") -> Path:
        root = tmp_path / name
        root.mkdir(parents=True, exist_ok=True)
        for rel, spec in files.items():
            content, mtime = spec if isinstance(spec, tuple) else (spec, NOW_MS - 30 * 86_400_000)
            write_file(root, rel, content, mtime)
        return root

    return build


@pytest.fixture
def settings(tmp_path):
    """The window's settings in a temp file, in English (tests that want Chinese switch it)."""
    from knit_desktop.ui.settings import Settings

    value = Settings(str(tmp_path / "settings.ini"))
    value.language = "en"
    return value


@pytest.fixture
def refuse_watches(monkeypatch):
    """`refuse_watches(name)`: from then on the system refuses an inotify watch on any path holding `name`, as at
    its limit on watches (ENOSPC), while the others are added as usual."""
    import errno

    from watchdog.observers.inotify_c import InotifyFD

    real_add = InotifyFD.add_callback

    def refuse(name: str) -> None:
        def limited(self, path, *args, **kwargs):
            if name.encode() in path:
                raise OSError(errno.ENOSPC, "inotify watch limit reached")
            return real_add(self, path, *args, **kwargs)

        monkeypatch.setattr(InotifyFD, "add_callback", limited)

    return refuse

