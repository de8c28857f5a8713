"""Thumbnails and video posters from real files, the disk cache, and what broken files get."""

from __future__ import annotations

import os
import struct
import zlib

import pytest

from knit_desktop.core.media.thumbnail_cache import ThumbnailCache, version_key
from knit_desktop.services.thumbnails import ThumbnailService, decode_image
from knit_desktop.ui.wording import problem_text

from .media_fixtures import (
    copy_video,
    make_exif_jpeg,
    make_gif,
    make_png,
    make_svg,
    truncated_video,
)


@pytest.fixture
def media(tmp_path):
    root = tmp_path / "ws"
    (root / "shots").mkdir(parents=True)
    make_png(root / "shots/wide.png", 800, 400)
    make_exif_jpeg(root / "shots/phone.jpg", 60, 30, orientation=6)
    make_svg(root / "shots/diagram.svg")
    make_gif(root / "shots/pixel.gif")
    (root / "shots/notes.png").write_text("this is not an image\n", encoding="utf-8")
    copy_video("tiny.mp4", root / "shots/demo.mp4")
    copy_video("tiny.webm", root / "shots/demo.webm")
    truncated_video(root / "shots/broken.mp4")
    return root


KINDS = {"wide.png": "image", "phone.jpg": "image", "diagram.svg": "image", "pixel.gif": "image",
         "notes.png": "image", "demo.mp4": "video", "demo.webm": "video", "broken.mp4": "video"}


@pytest.fixture
def service(tmp_path):
    made = []

    def build() -> ThumbnailService:
        svc = ThumbnailService(str(tmp_path / "thumbs"))
        made.append(svc)
        return svc

    yield build
    for svc in made:
        svc.stop()


def collect(qtbot, svc: ThumbnailService, root, names) -> dict:
    got = {}
    svc.thumbnailReady.connect(lambda t: got.__setitem__(t.rel.split("/")[-1], t))
    svc.request(str(root), [(f"shots/{n}", KINDS[n]) for n in names])
    qtbot.waitUntil(lambda: len(got) == len(names), timeout=20_000)
    return got


def test_images_are_decoded_at_thumbnail_size_upright(qtbot, media, service):
    got = collect(qtbot, service(), media, ["wide.png", "phone.jpg", "diagram.svg", "pixel.gif"])
    wide = got["wide.png"].image
    assert (wide.width(), wide.height()) == (256, 128)
    phone = got["phone.jpg"].image
    assert (phone.width(), phone.height()) == (30, 60)  # EXIF orientation 6: the 60x30 picture stands up
    svg = got["diagram.svg"].image
    assert (svg.width(), svg.height()) == (256, 128)
    assert svg.pixelColor(128, 64).name() == "#ffffff" and svg.pixelColor(5, 5).name() == "#2d9d78"
    assert got["pixel.gif"].image is not None and got["pixel.gif"].problem == ""


def test_a_large_image_is_decoded_scaled_not_whole(tmp_path):
    big = make_png(tmp_path / "big.png", 6000, 4000)
    image, problem = decode_image(str(big))
    assert problem == "" and max(image.width(), image.height()) == 256


def huge_png(path, side: int) -> None:
    """A side x side grey PNG written row by row (400 MB of pixels, a few hundred KB on disk)."""
    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))

    packer = zlib.compressobj(6)
    row = b"\x00" + b"\x80" * side
    body = b"".join(packer.compress(row) for _ in range(side)) + packer.flush()
    path.write_bytes(b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", side, side, 8, 0, 0, 0, 0))
                     + chunk(b"IDAT", body) + chunk(b"IEND", b""))


@pytest.mark.qt_log_ignore("Rejecting image as it exceeds the current allocation limit")  # expected: Qt says no
def test_a_20000_pixel_image_that_cannot_be_decoded_scaled_is_refused_with_its_size(tmp_path):
    path = tmp_path / "poster.png"
    huge_png(path, 20_000)
    image, problem = decode_image(str(path))
    assert image is None and problem == "too_large:20000×20000"
    assert problem_text(problem) == "too large to make a thumbnail of (20000×20000 pixels)"  # as the window words it


def test_videos_get_their_first_frame_and_duration(qtbot, media, service):
    got = collect(qtbot, service(), media, ["demo.mp4", "demo.webm"])
    mp4, webm = got["demo.mp4"], got["demo.webm"]
    assert mp4.problem == "" and (mp4.image.width(), mp4.image.height()) == (96, 64)
    assert 1900 <= mp4.duration_ms <= 2100
    assert webm.problem == "" and 2900 <= webm.duration_ms <= 3100


def test_broken_files_get_a_placeholder_and_a_reason(qtbot, media, service):
    got = collect(qtbot, service(), media, ["notes.png", "broken.mp4"])
    assert got["notes.png"].image is None and got["notes.png"].problem.startswith("unreadable_image")
    assert got["broken.mp4"].image is None and got["broken.mp4"].problem
    gone = {}
    svc = service()
    svc.thumbnailReady.connect(lambda t: gone.__setitem__(t.rel, t))
    svc.request(str(media), [("shots/missing.png", "image")])
    qtbot.waitUntil(lambda: "shots/missing.png" in gone, timeout=5000)
    assert gone["shots/missing.png"].problem == "gone"


def test_the_cache_answers_a_reopened_grid_without_decoding(qtbot, media, service, tmp_path):
    names = list(KINDS)
    first = service()
    before = collect(qtbot, first, media, names)
    assert first.decoded == 5 and first.probed == 3 and first.from_cache == 0
    first.stop()

    second = service()
    after = collect(qtbot, second, media, names)
    assert second.decoded == 0 and second.probed == 0 and second.from_cache == len(names)
    for name in names:
        assert after[name].problem == before[name].problem
        assert after[name].duration_ms == before[name].duration_ms
        if before[name].image is not None:
            assert after[name].image.size() == before[name].image.size()

    (media / "shots/wide.png").unlink()  # an edited file is a new version: decoded again
    make_png(media / "shots/wide.png", 300, 300, "#000000")
    third = service()
    redone = collect(qtbot, third, media, ["wide.png"])
    assert third.decoded == 1 and redone["wide.png"].image.width() == 256


def test_cache_entries_are_complete_or_absent(tmp_path):
    cache = ThumbnailCache(tmp_path / "c")
    f = tmp_path / "a.png"
    make_png(f, 10, 10)
    key = version_key(str(f))
    assert cache.get(key) is None
    cache.put(key, b"\x89PNG fake", duration_ms=5)
    assert cache.get(key).duration_ms == 5
    cache.put(key, None, problem="not a readable image")
    assert cache.get(key).png is None and cache.get(key).problem == "not a readable image"
    assert not list((tmp_path / "c").glob("*/.*.tmp"))
    assert cache.prune(keep=0) == 1 and cache.get(key) is None


def test_the_cache_is_capped_and_evicts_the_least_recently_used(tmp_path, monkeypatch):
    from knit_desktop.core.media import thumbnail_cache

    monkeypatch.setattr(thumbnail_cache, "PRUNE_EVERY", 5)
    cache = ThumbnailCache(tmp_path / "c", max_bytes=10 * 1100, max_entries=1000)
    keys = [f"{n:02x}" + "0" * 38 for n in range(10)]
    for age, key in enumerate(keys):  # ten entries of about 1 kB, written long ago, oldest first
        cache.put(key, b"\x89PNG" + bytes(1000))
        for path in cache._paths(key):
            os.utime(path, (1_000_000 + age, 1_000_000 + age))
    notes_before = {key: cache._paths(key)[1].stat().st_mtime for key in keys}
    assert cache.get(keys[0]) is not None and cache.get(keys[1]) is not None  # the two oldest, used again
    assert {key: cache._paths(key)[1].stat().st_mtime for key in keys} == notes_before  # a hit writes nothing
    cache.max_bytes = 6 * 1100
    removed = cache.prune()
    assert removed == 4
    left = {key for key in keys if cache.get(key) is not None}
    assert left == {keys[0], keys[1], keys[6], keys[7], keys[8], keys[9]}  # recently used or recently written


def test_pruning_runs_on_the_first_write_and_then_every_few_writes(tmp_path, monkeypatch):
    from knit_desktop.core.media import thumbnail_cache

    monkeypatch.setattr(thumbnail_cache, "PRUNE_EVERY", 3)
    cache = ThumbnailCache(tmp_path / "c", max_entries=2)
    for n in range(3):
        cache.put(f"{n:02x}" + "0" * 38, b"\x89PNG")
    assert len(list((tmp_path / "c").glob("*/*.json"))) == 3  # pruned at the 1st write, next due at the 4th
    cache.put("ff" + "0" * 38, b"\x89PNG")
    assert len(list((tmp_path / "c").glob("*/*.json"))) == 2
    again = ThumbnailCache(tmp_path / "c", max_entries=1)  # reopened within a day of that prune
    again.put("ee" + "0" * 38, b"\x89PNG")
    assert len(list((tmp_path / "c").glob("*/*.json"))) == 3  # no scan at this first write
    os.utime(tmp_path / "c" / thumbnail_cache.PRUNE_MARKER, (1_000_000, 1_000_000))  # a day or more ago
    ThumbnailCache(tmp_path / "c", max_entries=1).put("dd" + "0" * 38, b"\x89PNG")
    assert len(list((tmp_path / "c").glob("*/*.json"))) == 1
    broken = cache._paths("dd" + "0" * 38)[0]
    broken.write_bytes(b"")  # what a power cut can leave of a write that skipped the fsync
    assert cache.get("dd" + "0" * 38) is None
