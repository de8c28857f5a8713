"""Where Qt Multimedia cannot load (no libpulse.so.0), the window still starts: images get thumbnails, videos a
placeholder saying why, and the status line and `selftest` say so. The failure is simulated in the one place that
imports QtMultimedia, `services.multimedia`."""

from __future__ import annotations

import pytest
from PySide6.QtCore import Qt

from knit_desktop.core.dsh.conversation import Message
from knit_desktop.core.media.thumbnail_cache import version_key
from knit_desktop.services import multimedia
from knit_desktop.ui.app import KnitApp

from .media_fixtures import copy_video, make_png

WHY = "libpulse.so.0: cannot open shared object file: No such file or directory"


@pytest.fixture
def no_multimedia(monkeypatch):
    def unavailable() -> tuple[bool, str]:  # noting what it found, as the real one does (the status line reads it)
        multimedia._state = (False, WHY)
        return multimedia._state

    monkeypatch.setattr(multimedia, "_state", None)  # nothing has asked yet (restored after the test)
    monkeypatch.setattr(multimedia, "multimedia_available", unavailable)
    monkeypatch.setattr(multimedia, "missing_packages", lambda: ["libpulse0"])


def test_without_qt_multimedia_videos_get_a_placeholder_that_says_why(qtbot, tmp_path, settings, make_workspace,
                                                                      no_multimedia):
    root = make_workspace({"README.md": "# Clips\n\nScreens and a recording.\n"}, name="clips")
    make_png(root / "shots/screen.png", 320, 200)
    copy_video("tiny.mp4", root / "shots/recording.mp4")
    settings.kind = "media"
    knit = KnitApp(workspace=str(root), dsh_home=str(tmp_path / "no-dsh"),
                   messages=[Message("user", "the screen recording")], settings=settings, persistent=False)
    try:
        window, model = knit.window, knit.window.grid_model
        window.resize(632, 820)
        window.show()
        qtbot.waitUntil(lambda: window.result is not None and window.result.kind == "media", timeout=15_000)
        qtbot.waitUntil(lambda: all(model.thumbnail(r) is not None for r in range(model.rowCount())), timeout=15_000)
        video, image = model.row_of("shots/recording.mp4"), model.row_of("shots/screen.png")
        assert model.thumbnail(image).image is not None  # images do not need Qt Multimedia
        poster = model.thumbnail(video)
        assert poster.image is None and poster.needs_multimedia and "libpulse0" in poster.problem
        tip = model.index(video).data(Qt.ItemDataRole.ToolTipRole)
        assert "Video needs the system's sound library libpulse0" in tip
        assert "sudo apt install libpulse0" in tip
        assert "libpulse0" in window.status_label.text() and window.status_label.isVisible()
        assert window.preview.video_player is None
        window.preview.show_document(str(root), "shots/recording.mp4", "video")
        assert window.preview.stack.currentWidget() is window.preview.message
        assert "libpulse0" in window.preview.message.text()
        assert knit.thumbnails.cache.get(version_key(str(root / "shots/recording.mp4"))) is None  # not cached
    finally:
        knit.close()


def test_selftest_says_videos_cannot_play(qtbot, no_multimedia):
    from knit_desktop.selftest import run_selftest

    report = run_selftest(timeout_s=10)
    assert report["ok"] is False
    assert report["video"]["first_frame"] is None
    assert "Qt Multimedia" in report["video"]["problem"] and "libpulse" in report["video"]["problem"]
    assert report["pdf"]["problem"] == "" and report["languages"]["zh_CN"]["ok"]
