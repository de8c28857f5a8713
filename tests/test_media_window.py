"""The media grid, the All view and the media preview in the running window, with real images and videos."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from PySide6.QtCore import QPoint, Qt
from PySide6.QtMultimedia import QMediaPlayer, QVideoSink

from knit_desktop.core.dsh.conversation import Message
from knit_desktop.core.view import ViewRow
from knit_desktop.ui.app import KnitApp
from knit_desktop.ui.media_model import MediaGridModel
from knit_desktop.ui.media_view import MediaGridView

from .media_fixtures import copy_video, make_png, truncated_video
from .test_window import SCREENSHOTS, distinct_colours, wall_ms


def click_tile(qtbot, window, key: str) -> None:
    """Click the grid's tile of `key` with the mouse, as a user picks a picture or a video."""
    grid = window.grid
    index = grid.model().index(grid.model().row_of(key), 0)
    assert index.isValid(), key
    grid.scrollTo(index)
    qtbot.mouseClick(grid.viewport(), Qt.MouseButton.LeftButton, pos=grid.visualRect(index).center())


@pytest.fixture
def open_app(qtbot, tmp_path, settings):
    opened: list[KnitApp] = []

    def open_one(workspace: Path, kind: str, messages=None, width: int = 632) -> KnitApp:
        settings.kind = kind
        knit = KnitApp(workspace=str(workspace), dsh_home=str(tmp_path / "no-dsh"),
                       messages=messages or [Message("user", "what do the screenshots show?")],
                       settings=settings, persistent=False)
        opened.append(knit)
        knit.window.resize(width, 820)
        knit.window.show()
        qtbot.waitUntil(lambda: knit.window.result is not None and knit.window.result.kind == kind,
                        timeout=15_000)
        return knit

    yield open_one
    for knit in opened:
        knit.close()


@pytest.fixture
def gallery(tmp_path, make_workspace) -> Path:
    root = make_workspace({"README.md": "# Gallery\n\nScreens of the app.\n"}, name="gallery")
    colours = ["#e45756", "#4c78a8", "#54a24b", "#f58518", "#b279a2", "#72b7b2", "#9d755d", "#eeca3b",
               "#ff9da6", "#bab0ac", "#2f4b7c", "#665191"]
    for i, colour in enumerate(colours):
        make_png(root / f"shots/screen-{i:02d}.png", 320, 200, colour)
    copy_video("tiny.mp4", root / "shots/recording.mp4")
    copy_video("tiny.webm", root / "shots/clip.webm")
    truncated_video(root / "shots/broken.mp4")
    (root / "shots/fake.png").write_text("not an image", encoding="utf-8")
    now = wall_ms()
    for i, path in enumerate(sorted((root / "shots").iterdir())):
        stamp = (now - (i + 5) * 60_000) * 1_000_000
        os.utime(path, ns=(stamp, stamp))
    return root


def all_thumbnails_in(qtbot, model, timeout=20_000) -> None:
    qtbot.waitUntil(lambda: all(model.thumbnail(r) is not None for r in range(model.rowCount())), timeout=timeout)


def test_the_grid_shows_thumbnails_posters_durations_and_placeholders(qtbot, open_app, gallery):
    knit = open_app(gallery, "media")
    window, grid, model = knit.window, knit.window.grid, knit.window.grid_model
    assert window.views.currentWidget() is grid
    assert model.rowCount() == 16
    all_thumbnails_in(qtbot, model)
    by_name = {model.items[r].rel.split("/")[-1]: model.thumbnail(r) for r in range(model.rowCount())}
    assert by_name["recording.mp4"].image is not None and 1900 <= by_name["recording.mp4"].duration_ms <= 2100
    assert by_name["clip.webm"].duration_ms >= 2900
    assert by_name["broken.mp4"].image is None and by_name["broken.mp4"].problem
    assert by_name["fake.png"].image is None and by_name["fake.png"].problem.startswith("unreadable_image")
    assert by_name["screen-03.png"].image.width() == 256
    row = model.row_of("shots/fake.png")
    assert "Cannot show it" in model.index(row).data(Qt.ItemDataRole.ToolTipRole)
    assert "video" in model.index(model.row_of("shots/recording.mp4")).data(Qt.ItemDataRole.AccessibleTextRole)
    assert window.count_label.text() == "16 media"


@pytest.mark.parametrize(("width", "columns"), [(320, 2), (632, 5), (1200, 10)])
def test_cell_geometry_follows_the_width(qtbot, width, columns):
    model = MediaGridModel()
    model.set_results([ViewRow(f"s/{i}.png", "image", f"{i}", "", 0) for i in range(25)], wall_ms())
    grid = MediaGridView(model)
    qtbot.addWidget(grid)
    grid.resize(width, 600)
    grid.show()
    qtbot.waitUntil(lambda: grid.columns == columns, timeout=3000)
    cell = grid.delegate.geometry.cell
    first, second = grid.visualRect(model.index(0)), grid.visualRect(model.index(1))
    assert first.width() == cell and first.height() == cell
    assert second.top() == first.top() and second.left() - first.left() == cell + 10
    below = grid.visualRect(model.index(columns))
    assert below.left() == first.left() and below.top() - first.top() == cell + 10  # a full row per line
    assert grid.delegate.geometry.labels == (cell >= 96)


def test_grid_keys_move_in_rows_and_columns(qtbot, open_app, gallery):
    knit = open_app(gallery, "media", width=632)
    grid, window = knit.window.grid, knit.window
    qtbot.waitUntil(lambda: grid.columns == 5, timeout=3000)
    grid.setFocus()
    qtbot.keyClick(grid, Qt.Key.Key_Right)  # no cursor yet: the first cell
    assert grid.currentIndex().row() == 0 and window.preview.isVisible()
    qtbot.keyClick(grid, Qt.Key.Key_Right)
    assert grid.currentIndex().row() == 1
    qtbot.keyClick(grid, Qt.Key.Key_Down)
    assert grid.currentIndex().row() == 6  # straight down one row
    qtbot.keyClick(grid, Qt.Key.Key_Left)
    qtbot.keyClick(grid, Qt.Key.Key_Left)
    assert grid.currentIndex().row() == 5  # stops at the row's first cell
    qtbot.keyClick(grid, Qt.Key.Key_Up)
    assert grid.currentIndex().row() == 0
    qtbot.keyClick(grid, Qt.Key.Key_End)
    assert grid.currentIndex().row() == 15
    qtbot.keyClick(grid, Qt.Key.Key_Home)
    assert grid.currentIndex().row() == 0
    qtbot.keyClick(grid, Qt.Key.Key_Return)
    assert not window.preview.isVisible()


def test_the_all_view_keeps_every_image_and_video_under_300_ranked_documents(qtbot, open_app, make_workspace):
    files = {f"notes/meeting-{i:03d}.md": f"# Release screenshot review {i}\n\nscreenshot release review notes {i}\n"
             for i in range(300)}
    root = make_workspace(files, name="busy")
    make_png(root / "assets/a.png", 64, 64)
    make_png(root / "assets/b.png", 64, 64)
    copy_video("tiny.mp4", root / "assets/c.mp4")
    knit = open_app(root, "all", messages=[Message("user", "the release screenshot review notes")])
    view = knit.window.all_view
    assert knit.window.views.currentWidget() is view
    assert view.doc_model.rowCount() == 4 and view.doc_model.matching == 300
    assert view.view_all.isVisible() and view.docs_title.text() == "Docs 4 / 300"
    assert view.media_model.rowCount() == 3 and view.media_title.text() == "Images & video 3"
    all_thumbnails_in(qtbot, view.media_model)
    view.view_all.click()  # "View all →" goes to the documents
    qtbot.waitUntil(lambda: knit.window.views.currentWidget() is knit.window.list, timeout=5000)
    assert knit.window.model.shown == 300


def test_the_all_view_keyboard_runs_from_the_documents_into_the_media(qtbot, open_app, gallery):
    knit = open_app(gallery, "all")
    view = knit.window.all_view
    view.docs.setFocus()
    qtbot.keyClick(view.docs, Qt.Key.Key_Down)
    assert view.current_key() == "README.md"
    qtbot.keyClick(view.docs, Qt.Key.Key_Down)  # past the last document: into the grid
    assert view.grid.hasFocus() or view.grid.currentIndex().row() == 0
    assert view.current_key().startswith("shots/")


def test_image_preview_fits_and_zooms_and_the_video_player_plays(qtbot, open_app, gallery):
    knit = open_app(gallery, "media")
    window, preview = knit.window, knit.window.preview
    window.grid.select_key("shots/screen-00.png")
    qtbot.waitUntil(lambda: preview.stack.currentWidget() is preview.image_view
                    and not preview.image_view.image.isNull(), timeout=10_000)
    view = preview.image_view
    assert (view.image.width(), view.image.height()) == (320, 200)
    fitted = view.label.pixmap().size()
    assert fitted.width() <= view.viewport().width()
    view.toggle_zoom()
    assert view.actual_size and view.label.pixmap().size().width() == 320

    player = preview.video_player
    # Qt's player and sink (and with them the FFmpeg backend, about 13 MB) come with the first video shown.
    assert player.findChildren(QMediaPlayer) == [] and player.findChildren(QVideoSink) == []
    click_tile(qtbot, window, "shots/recording.mp4")
    assert preview.stack.currentWidget() is player
    assert len(player.findChildren(QMediaPlayer)) == 1
    qtbot.waitUntil(lambda: player.slider.maximum() >= 1900, timeout=10_000)
    assert player.time_label.text().endswith("/ 0:02")
    player.mute_button.click()
    assert player.audio.isMuted()
    player.toggle_play()
    qtbot.waitUntil(lambda: player.player.playbackState() == QMediaPlayer.PlaybackState.PlayingState, timeout=5000)
    assert player.play_button.toolTip() == "Pause"
    player.toggle_play()
    qtbot.keyClick(window, Qt.Key.Key_Escape)
    assert not preview.isVisible()


@pytest.mark.parametrize("language", ["en", "zh_CN"])
def test_screenshots_of_the_grid_and_the_video_player(qtbot, tmp_path, monkeypatch, open_app, gallery, settings,
                                                      language):
    monkeypatch.setenv("HOME", str(tmp_path))
    settings.language = language
    knit = open_app(gallery, "media", width=520)
    window = knit.window
    all_thumbnails_in(qtbot, window.grid_model)
    qtbot.wait(100)
    shots = {"grid": window.grab().toImage()}
    window.grid.select_key("shots/recording.mp4")
    player = window.preview.video_player
    qtbot.waitUntil(lambda: player.slider.maximum() >= 1900, timeout=10_000)
    player.player.setPosition(1000)
    qtbot.wait(400)
    shots["video"] = window.grab().toImage()
    suffix = "zh" if language == "zh_CN" else "en"
    for name, image in shots.items():
        assert distinct_colours(image) > 20
        assert image.save(str(tmp_path / f"{name}-{suffix}.png"))
        if os.environ.get("KNIT_UPDATE_SCREENSHOTS") == "1":
            SCREENSHOTS.mkdir(parents=True, exist_ok=True)
            image.save(str(SCREENSHOTS / f"{name}-{suffix}.png"))


def test_an_edited_image_gets_a_new_thumbnail_in_the_open_grid(qtbot, open_app, gallery):
    knit = open_app(gallery, "media")
    model = knit.window.grid_model
    all_thumbnails_in(qtbot, model)
    path = gallery / "shots" / "screen-00.png"
    old = model.thumbnail(model.row_of("shots/screen-00.png")).image.pixelColor(10, 10).name()
    make_png(path, 320, 200, "#000000")  # saved over: a new version, seen by the watcher
    stamp = (wall_ms() + 1000) * 1_000_000
    os.utime(path, ns=(stamp, stamp))

    def redrawn() -> bool:
        thumb = model.thumbnail(model.row_of("shots/screen-00.png"))
        return thumb is not None and thumb.image is not None and thumb.image.pixelColor(10, 10).name() == "#000000"

    qtbot.waitUntil(redrawn, timeout=15_000)
    assert old != "#000000"


def test_thumbnails_load_in_the_grid_after_the_all_view_was_shown_first(qtbot, open_app, gallery):
    """The All view asks for every thumbnail first; the grid, shown after it, must not wait for them for good."""
    knit = open_app(gallery, "all")
    window = knit.window
    all_thumbnails_in(qtbot, window.all_view.media_model)
    qtbot.mouseClick(window.kind_tabs, Qt.MouseButton.LeftButton, pos=window.kind_tabs.tabRect(1).center())
    qtbot.waitUntil(lambda: window.views.currentWidget() is window.grid and window.grid_model.rowCount() == 16,
                    timeout=10_000)
    all_thumbnails_in(qtbot, window.grid_model, timeout=10_000)
    recording = window.grid_model.row_of("shots/recording.mp4")
    assert window.grid_model.thumbnail(recording).duration_ms > 0  # the video's length shows too


def test_a_click_on_the_seek_bar_jumps_there(qtbot, open_app, gallery):
    knit = open_app(gallery, "media")
    window, preview = knit.window, knit.window.preview
    window.grid.select_key("shots/recording.mp4")
    player = preview.video_player
    if player is None:
        pytest.skip("Qt Multimedia cannot load here")
    qtbot.waitUntil(lambda: player.slider.maximum() >= 1900, timeout=10_000)
    slider = player.slider
    at = QPoint(int(slider.width() * 0.75), slider.height() // 2)
    qtbot.mouseClick(slider, Qt.MouseButton.LeftButton, pos=at)
    assert slider.value() > slider.maximum() * 0.6  # jumped near three quarters, not one page step
    qtbot.waitUntil(lambda: player.player.position() > slider.maximum() * 0.5, timeout=5000)


def test_a_broken_video_says_so_in_the_preview_and_keeps_nothing_of_the_last_one(qtbot, open_app, gallery):
    knit = open_app(gallery, "media")
    window, preview = knit.window, knit.window.preview
    player = preview.video_player
    if player is None:
        pytest.skip("Qt Multimedia cannot load here")
    click_tile(qtbot, window, "shots/clip.webm")
    qtbot.waitUntil(lambda: player.slider.maximum() >= 2900, timeout=10_000)
    click_tile(qtbot, window, "shots/broken.mp4")
    assert (player.slider.maximum(), player.time_label.text()) == (0, "0:00 / 0:00")  # not the WebM's 0:03
    qtbot.waitUntil(lambda: preview.stack.currentWidget() is preview.message, timeout=10_000)
    assert preview.message.text().startswith("Cannot show this document: not a playable video")
    click_tile(qtbot, window, "shots/recording.mp4")  # the next video plays as before
    assert preview.stack.currentWidget() is player
    qtbot.waitUntil(lambda: player.slider.maximum() >= 1900, timeout=10_000)
    assert preview.stack.currentWidget() is player and player.time_label.text().endswith("/ 0:02")


def test_a_video_playing_in_the_preview_plays_on_when_the_next_ranking_comes(qtbot, open_app, gallery):
    """The conversation moves on while a video plays: the new ranking keeps the video's tile current without
    showing it again, which stopped the video and put it back at 0:00 with every message."""
    from PySide6.QtMultimedia import QMediaPlayer

    knit = open_app(gallery, "media")
    window, preview, ranking = knit.window, knit.window.preview, knit.ranking
    click_tile(qtbot, window, "shots/recording.mp4")
    player = preview.video_player
    if player is None:
        pytest.skip("Qt Multimedia does not load here")
    qtbot.waitUntil(lambda: preview.stack.currentWidget() is player and player.slider.maximum() > 0, timeout=10_000)
    playing = QMediaPlayer.PlaybackState.PlayingState
    qtbot.mouseClick(player.play_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: player.player.playbackState() == playing and player.player.position() > 0,
                    timeout=5000)
    with qtbot.waitSignal(ranking.rankingChanged, timeout=10_000):
        qtbot.keyClicks(window.topic_box, "screen recording")  # a new topic: a new ranking, as a new message makes
    qtbot.wait(100)
    assert window.grid.current_key() == "shots/recording.mp4"
    assert player.player.playbackState() == playing and player.player.position() > 0
