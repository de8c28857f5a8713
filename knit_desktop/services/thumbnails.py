"""Thumbnails for the media grid: images decoded at thumbnail size on a worker thread, video posters and
durations read with Qt's own media stack, both kept in the disk cache.

Images never load whole: `QImageReader` is told the scaled size before it decodes, honours EXIF orientation, and
renders SVG straight at that size. Videos go through `QMediaPlayer` + `QVideoSink` (FFmpeg backend, decoding on its
own threads) driven from the GUI thread's event loop, at most two players at a time; the first frame and the
duration are taken and the player is dropped. Every answer, broken files included, is cached by path, mtime and
size, so a reopened grid asks the disk for a few small PNGs and nothing else. Where Qt Multimedia cannot load
(`services.multimedia`), a video gets a placeholder at once, not cached: installing the library fixes it.
"""

from __future__ import annotations

import os
from collections import deque
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtCore import (
    QBuffer,
    QByteArray,
    QIODevice,
    QObject,
    QSize,
    Qt,
    QTimer,
    QUrl,
    Signal,
    Slot,
)
from PySide6.QtGui import QImage, QImageReader

from ..core.index.boundary import resolve_inside
from ..core.media.thumbnail_cache import THUMB_EDGE, ThumbnailCache, version_key
from ..core.paths import app_home
from . import multimedia
from .worker import Worker, WorkerThread, guarded

if TYPE_CHECKING:
    from PySide6.QtMultimedia import QMediaPlayer, QVideoFrame

# Why a thumbnail or an image could not be made: a code, or "code:detail" with the system's own words as the
# detail. Codes, not sentences, because the window words them in the user's language (ui/wording.py) and the
# disk cache keeps them across language switches.
GONE = "gone"
OUTSIDE = "outside"
UNREADABLE_IMAGE = "unreadable_image"
TOO_LARGE = "too_large"  # detail: width×height
VIDEO_TIMEOUT = "video_timeout"
UNPLAYABLE_VIDEO = "unplayable_video"
VIDEO_NO_PICTURE = "video_no_picture"
FAILED = "failed"  # detail: the error a worker call ended with


def coded(code: str, detail: str = "") -> str:
    return f"{code}:{detail}" if detail else code


MAX_PLAYERS = 2
PROBE_TIMEOUT_MS = 8000


@dataclass
class Thumbnail:
    rel: str
    image: QImage | None  # None: show a placeholder
    duration_ms: int = 0
    problem: str = ""  # a code (see GONE…), or "code:detail"; '' when the image is there
    needs_multimedia: bool = False  # a video while Qt Multimedia cannot load: the window words it


def fit(size: QSize, edge: int = THUMB_EDGE) -> QSize:
    """`size` scaled to fit a square of `edge`, never enlarged."""
    if size.width() <= edge and size.height() <= edge:
        return size
    return size.scaled(edge, edge, Qt.AspectRatioMode.KeepAspectRatio)


def png_bytes(image: QImage) -> bytes:
    data = QByteArray()
    buffer = QBuffer(data)
    buffer.open(QIODevice.OpenModeFlag.WriteOnly)
    image.save(buffer, "PNG")
    buffer.close()
    return bytes(data.data())


def decode_image(path: str, edge: int = THUMB_EDGE) -> tuple[QImage | None, str]:
    """The image scaled to fit `edge` (never decoded larger), or why it cannot be shown."""
    reader = QImageReader(path)
    reader.setAutoTransform(True)  # EXIF orientation
    if not reader.canRead():
        return None, _reader_problem(reader, path)
    size = reader.size()
    if size.isValid() and size.width() > 0 and size.height() > 0:
        reader.setScaledSize(fit(size, edge))  # of the stored (unrotated) image; the EXIF rotation comes after
    image = reader.read()
    if image.isNull():
        if size.isValid() and size.width() * size.height() * 4 > QImageReader.allocationLimit() * 1024 * 1024:
            # JPEG decodes straight at the scaled size; PNG and others would need the whole image in memory,
            # which Qt refuses beyond its allocation limit (and so do we).
            return None, coded(TOO_LARGE, f"{size.width()}×{size.height()}")
        return None, _reader_problem(reader, path)
    if image.width() > edge or image.height() > edge:  # formats that ignore the scaled size
        image = image.scaled(edge, edge, Qt.AspectRatioMode.KeepAspectRatio, Qt.TransformationMode.SmoothTransformation)
    return image, ""


def _reader_problem(reader: QImageReader, path: str) -> str:
    if not os.path.exists(path):
        return GONE
    return coded(UNREADABLE_IMAGE, reader.errorString())


class _ThumbnailWorker(Worker):
    """Lives on the worker thread: cache lookups, image decoding, PNG encoding and cache writes."""

    ready = Signal(int, int)  # token of the request (0: a stored poster), mailbox key of a Thumbnail
    videoNeeded = Signal(int, str, str, str)  # token, rel, path, cache key
    imageLoaded = Signal(int, int)  # token, mailbox key of (QImage | None, problem)

    def __init__(self, cache: ThumbnailCache) -> None:
        super().__init__()
        self.cache = cache
        self.decoded = 0
        self.from_cache = 0

    @Slot(int, str, str, str)
    @guarded
    def load(self, token: int, root: str, rel: str, kind: str) -> None:
        path = resolve_inside(root, rel)
        if path is None:
            self._send(Thumbnail(rel, None, 0, OUTSIDE), token)
            return
        key = version_key(path)
        if key is None:
            self._send(Thumbnail(rel, None, 0, GONE), token)
            return
        cached = self.cache.get(key)
        if cached is not None:
            self.from_cache += 1
            image = QImage(str(cached.png)) if cached.png is not None else None
            if cached.png is not None and (image is None or image.isNull()):
                cached = None  # a damaged cache entry: make it again
            else:
                self._send(Thumbnail(rel, image, cached.duration_ms, cached.problem), token)
                return
        if kind == "video":
            self.videoNeeded.emit(token, rel, path, key)
            return
        image, problem = decode_image(path)
        self.decoded += 1
        self.cache.put(key, png_bytes(image) if image is not None else None, 0, problem)
        self._send(Thumbnail(rel, image, 0, problem), token)

    @Slot(int, str, int)
    @guarded
    def loadImage(self, token: int, path: str, edge: int) -> None:
        """An image for the preview pane, up to `edge` pixels on its longer side."""
        image, problem = decode_image(path, edge)
        self.imageLoaded.emit(token, self.mailbox.post((image, problem)))

    @Slot(int)
    @guarded
    def store(self, mail: int) -> None:
        """A poster read on the GUI thread: encode and cache it here, then hand it back."""
        item = self.mailbox.take(mail)
        if item is None:
            return
        key, thumb = item
        self.cache.put(key, png_bytes(thumb.image) if thumb.image is not None else None, thumb.duration_ms,
                       thumb.problem)
        self._send(thumb)

    def _send(self, thumb: Thumbnail, token: int = 0) -> None:
        self.ready.emit(token, self.mailbox.post(thumb))


class _VideoProbe(QObject):
    """One player reading one video's duration and first frame."""

    finished = Signal(object)  # (rel, key, Thumbnail)

    def __init__(self, rel: str, path: str, key: str, parent: QObject) -> None:
        from PySide6.QtMultimedia import QMediaPlayer, QVideoSink  # only once multimedia_available() said yes

        super().__init__(parent)
        self.rel, self.key = rel, key
        self.duration = 0
        self.done = False
        self.player = QMediaPlayer(self)
        self.sink = QVideoSink(self)
        self.player.setVideoSink(self.sink)
        self.player.mediaStatusChanged.connect(self._on_status)
        self.player.errorOccurred.connect(self._on_error)
        self.sink.videoFrameChanged.connect(self._on_frame)
        self.timer = QTimer(self, singleShot=True, interval=PROBE_TIMEOUT_MS)
        self.timer.timeout.connect(lambda: self._finish(None, VIDEO_TIMEOUT))
        self.timer.start()
        self.player.setSource(QUrl.fromLocalFile(path))

    def _on_status(self, status: QMediaPlayer.MediaStatus) -> None:
        from PySide6.QtMultimedia import QMediaPlayer

        if status == QMediaPlayer.MediaStatus.LoadedMedia and not self.done:
            self.duration = max(0, self.player.duration())
            self.player.play()  # no audio output is attached: silent
        elif status == QMediaPlayer.MediaStatus.InvalidMedia:
            self._finish(None, coded(UNPLAYABLE_VIDEO, self.player.errorString()))
        elif status == QMediaPlayer.MediaStatus.EndOfMedia and not self.done:
            self._finish(None, VIDEO_NO_PICTURE)

    def _on_error(self, _error: QMediaPlayer.Error, text: str) -> None:
        self._finish(None, coded(UNPLAYABLE_VIDEO, text))

    def _on_frame(self, frame: QVideoFrame) -> None:
        if self.done or not frame.isValid():
            return
        image = frame.toImage()
        if image.isNull():
            return
        self.duration = self.duration or max(0, self.player.duration())
        target = fit(image.size())
        if target != image.size():
            image = image.scaled(target, Qt.AspectRatioMode.IgnoreAspectRatio, Qt.TransformationMode.SmoothTransformation)
        self._finish(image, "")

    def _finish(self, image: QImage | None, problem: str) -> None:
        if self.done:
            return
        self.done = True
        self.timer.stop()
        self.player.stop()
        self.finished.emit((self.rel, self.key, Thumbnail(self.rel, image, self.duration, problem)))

    def dispose(self) -> None:
        self.sink.videoFrameChanged.disconnect(self._on_frame)
        self.player.setVideoSink(None)
        self.player.setSource(QUrl())
        self.deleteLater()


class ThumbnailService(WorkerThread):
    """GUI-side handle: `request` returns at once; answers arrive on `thumbnailReady`. A thumbnail whose loading
    failed comes back as a placeholder with the error (and is asked for again next time it is wanted); a failed
    `load_image` comes back on `imageLoaded` with the error as its problem. Nobody waits for ever."""

    thumbnailReady = Signal(object)  # Thumbnail
    imageLoaded = Signal(int, object, str)  # token, QImage or None, problem
    _load = Signal(int, str, str, str)
    _store = Signal(int)
    _loadImage = Signal(int, str, int)

    def __init__(self, cache_dir: str | None = None, parent: QObject | None = None) -> None:
        self.cache = ThumbnailCache(Path(cache_dir) if cache_dir else app_home() / "thumbnails")
        worker = _ThumbnailWorker(self.cache)
        super().__init__(worker, "knit-thumbnails", parent)
        self._thumbnailer = worker  # typed: its counters are read by tests and benchmarks
        self._load.connect(worker.load)
        self._store.connect(worker.store)
        self._loadImage.connect(worker.loadImage)
        worker.imageLoaded.connect(self._on_image)
        worker.ready.connect(self._on_ready)
        worker.videoNeeded.connect(self._queue_video)
        self.errored.connect(self._on_errored)
        self._pending: dict[int, tuple[str, str, int]] = {}  # token -> what a thumbnail request asked for
        self._pending_images: set[int] = set()
        self._asked: set[tuple[str, str, int]] = set()
        self._videos: deque[tuple[str, str, str]] = deque()
        self._probes: list[_VideoProbe] = []
        self.probed = 0
        self._root = ""
        self.start()

    # --- requests ------------------------------------------------------------------------------------

    def request(self, root: str, items: list[tuple]) -> None:
        """Ask for thumbnails of (rel, kind) or (rel, kind, mtime_ms) items. Each file version is asked for once:
        an edited file (a new mtime) is asked for again, and the cache decides whether it needs decoding."""
        if root != self._root:
            self._root = root
            self._videos.clear()
        for rel, kind, *version in items:
            key = (root, rel, version[0] if version else 0)
            if key in self._asked:
                continue
            self._asked.add(key)
            token = self.new_token()
            self._pending[token] = key
            self._load.emit(token, root, rel, kind)

    def load_image(self, path: str, edge: int = 4096) -> int:
        """Decode an image for viewing off the GUI thread; the answer comes on `imageLoaded` with this token."""
        token = self.new_token()
        self._pending_images.add(token)
        self._loadImage.emit(token, path, edge)
        return token

    def _on_image(self, token: int, key: int) -> None:
        self._pending_images.discard(token)
        item = self._mailbox.take(key)
        if item is not None:
            image, problem = item
            self.imageLoaded.emit(token, image, problem)

    def _on_errored(self, token: int, message: str) -> None:
        """A worker call failed: answer it with the error, and forget a thumbnail request so it is asked again."""
        if token in self._pending_images:
            self._pending_images.discard(token)
            self.imageLoaded.emit(token, None, coded(FAILED, message))
        key = self._pending.pop(token, None)
        if key is not None:
            self._asked.discard(key)
            self.thumbnailReady.emit(Thumbnail(key[1], None, 0, coded(FAILED, message)))

    @property
    def decoded(self) -> int:
        return self._thumbnailer.decoded

    @property
    def from_cache(self) -> int:
        return self._thumbnailer.from_cache

    # --- answers -------------------------------------------------------------------------------------

    def _on_ready(self, token: int, key: int) -> None:
        self._pending.pop(token, None)
        thumb = self._mailbox.take(key)
        if thumb is not None:
            self.thumbnailReady.emit(thumb)

    def _queue_video(self, token: int, rel: str, path: str, key: str) -> None:
        self._pending.pop(token, None)  # the probe below always answers (a timeout at worst)
        if not multimedia.multimedia_available()[0]:
            self.thumbnailReady.emit(Thumbnail(rel, None, 0, multimedia.unavailable_problem(), needs_multimedia=True))
            return
        self._videos.append((rel, path, key))
        self._next_video()

    def _next_video(self) -> None:
        while self._videos and len(self._probes) < MAX_PLAYERS:
            rel, path, key = self._videos.popleft()
            probe = _VideoProbe(rel, path, key, self)
            probe.finished.connect(self._on_probed)
            self._probes.append(probe)
            self.probed += 1

    def _on_probed(self, result: tuple) -> None:
        probe = self.sender()
        if probe in self._probes:
            self._probes.remove(probe)
            QTimer.singleShot(0, probe.dispose)  # not from inside the player's own signal
        _rel, key, thumb = result
        self._store.emit(self._mailbox.post((key, thumb)))
        self._next_video()

    def stop(self, timeout_ms: int = 10_000) -> bool:
        for probe in self._probes:
            probe.dispose()
        self._probes.clear()
        self._videos.clear()
        return super().stop(timeout_ms)
