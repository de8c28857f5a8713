"""Previewing images and videos in the pane: an image fit to the pane (click for 100 %), a video player."""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtCore import QCoreApplication, QEvent, QPoint, QRect, QSize, Qt, QUrl, Signal
from PySide6.QtGui import QImage, QPainter, QPixmap
from PySide6.QtWidgets import (
    QHBoxLayout,
    QLabel,
    QScrollArea,
    QSizePolicy,
    QSlider,
    QStyle,
    QStyleOptionSlider,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from ..core.media.layout import duration_text
from ..services import multimedia
from ..services.thumbnails import UNPLAYABLE_VIDEO, coded
from .metrics import XS, S

if TYPE_CHECKING:  # QtMultimedia itself loads only once services.multimedia said it can
    from PySide6.QtMultimedia import QAudioOutput, QMediaPlayer, QVideoFrame, QVideoSink


def video_unavailable_text() -> str:
    """Why videos cannot be shown here, for the grid's placeholder, the preview and the status line."""
    packages = multimedia.missing_packages()
    if packages == ["libpulse0"]:
        return QCoreApplication.translate(
            "Video", "Video needs the system's sound library libpulse0 (on Debian/Ubuntu: sudo apt install "
            "libpulse0); install it and restart Knit Desktop.")
    if packages:
        return QCoreApplication.translate(
            "Video", "Video needs system libraries that are missing (on Debian/Ubuntu: sudo apt install %1); "
            "install them and restart Knit Desktop.").replace("%1", " ".join(packages))
    return QCoreApplication.translate("Video", "Video cannot play: Qt Multimedia did not load (%1).").replace(
        "%1", multimedia.multimedia_available()[1])


class ImageView(QScrollArea):
    """Fit to the pane; a click toggles between fitting and 100 %."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("ImagePreview")
        self.label = QLabel(alignment=Qt.AlignmentFlag.AlignCenter)
        self.label.installEventFilter(self)
        self.viewport().installEventFilter(self)
        self.setWidget(self.label)
        self.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.image = QImage()
        self.actual_size = False

    def set_image(self, image: QImage) -> None:
        self.image = image
        self.actual_size = False
        self._show()

    def clear(self) -> None:
        self.image = QImage()
        self.label.clear()

    def toggle_zoom(self) -> None:
        self.actual_size = not self.actual_size
        self._show()

    def _show(self) -> None:
        if self.image.isNull():
            self.label.clear()
            return
        if self.actual_size:
            self.setWidgetResizable(False)
            pixmap = QPixmap.fromImage(self.image)
            self.label.setPixmap(pixmap)
            self.label.resize(pixmap.size())
            self.setCursor(Qt.CursorShape.ArrowCursor)
            return
        self.setWidgetResizable(True)
        room = self.viewport().size() - QSize(4, 4)
        size = self.image.size()
        if size.width() > room.width() or size.height() > room.height():
            size = size.scaled(room, Qt.AspectRatioMode.KeepAspectRatio)
        self.label.setPixmap(QPixmap.fromImage(self.image.scaled(
            size, Qt.AspectRatioMode.IgnoreAspectRatio, Qt.TransformationMode.SmoothTransformation)))
        self.setCursor(Qt.CursorShape.PointingHandCursor)

    def resizeEvent(self, event) -> None:
        super().resizeEvent(event)
        if not self.actual_size:
            self._show()

    def eventFilter(self, watched, event) -> bool:
        if event.type() == QEvent.Type.MouseButtonRelease and event.button() == Qt.MouseButton.LeftButton:
            self.toggle_zoom()
            return True
        return super().eventFilter(watched, event)


class VideoSurface(QWidget):
    """Draws the player's frames itself (through a QVideoSink) instead of a native video window: it shows in
    window grabs and offscreen, and needs no GPU."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._sink: QVideoSink | None = None
        self.frame = QImage()
        self.setMinimumHeight(80)
        self.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Expanding)

    @property
    def sink(self) -> QVideoSink:
        """Made with the player (see VideoPlayer.player): the first sink loads Qt's FFmpeg backend."""
        if self._sink is None:
            from PySide6.QtMultimedia import QVideoSink

            self._sink = QVideoSink(self)
            self._sink.videoFrameChanged.connect(self._on_frame)
        return self._sink

    def _on_frame(self, frame: QVideoFrame) -> None:
        if frame.isValid():
            self.frame = frame.toImage()
            self.update()

    def clear(self) -> None:
        self.frame = QImage()
        self.update()

    def paintEvent(self, event) -> None:
        painter = QPainter(self)
        painter.fillRect(self.rect(), Qt.GlobalColor.black)
        if not self.frame.isNull():
            size = self.frame.size().scaled(self.size(), Qt.AspectRatioMode.KeepAspectRatio)
            target = QRect(QPoint(0, 0), size)
            target.moveCenter(self.rect().center())
            painter.setRenderHint(QPainter.RenderHint.SmoothPixmapTransform)
            painter.drawImage(target, self.frame)
        painter.end()


class SeekSlider(QSlider):
    """A seek bar where a click jumps to the clicked time (a plain slider only steps a page towards it)."""

    def mousePressEvent(self, event) -> None:  # noqa: N802 - Qt's name
        if event.button() == Qt.MouseButton.LeftButton and self.maximum() > self.minimum():
            option = QStyleOptionSlider()
            self.initStyleOption(option)
            handle = self.style().subControlRect(QStyle.ComplexControl.CC_Slider, option,
                                                 QStyle.SubControl.SC_SliderHandle, self)
            if not handle.contains(event.position().toPoint()):  # the handle itself is dragged as usual
                groove = self.style().subControlRect(QStyle.ComplexControl.CC_Slider, option,
                                                     QStyle.SubControl.SC_SliderGroove, self)
                x = int(event.position().x()) - groove.left() - handle.width() // 2
                span = max(1, groove.width() - handle.width())
                value = QStyle.sliderValueFromPosition(self.minimum(), self.maximum(), x, span, option.upsideDown)
                self.setValue(value)
                self.sliderMoved.emit(value)
                event.accept()
                return
        super().mousePressEvent(event)


class VideoPlayer(QWidget):
    """Play/pause, a seek slider, the time and mute, over Qt's own player (FFmpeg backend). Made only where
    `multimedia.multimedia_available()` says Qt Multimedia loads."""

    failed = Signal(str)  # the opened video cannot be played: a problem code (see wording.problem_text)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("VideoPlayer")
        self.video = VideoSurface()
        self._player: QMediaPlayer | None = None  # made with the first video (see `player`)
        self.audio: QAudioOutput | None = None  # made with the first video: it connects to the sound server
        self.play_button = QToolButton(objectName="PlayPause")
        self.play_button.clicked.connect(self.toggle_play)
        self.slider = SeekSlider(Qt.Orientation.Horizontal, objectName="Seek")
        self.slider.setRange(0, 0)
        self.slider.sliderMoved.connect(self._seek)
        self.slider.sliderReleased.connect(lambda: self._seek(self.slider.value()))
        self.time_label = QLabel("0:00 / 0:00", objectName="VideoTime")
        self.mute_button = QToolButton(objectName="Mute", checkable=True)
        self.mute_button.toggled.connect(lambda on: self.audio.setMuted(on) if self.audio is not None else None)
        self.mute_button.toggled.connect(lambda _on: self.retranslate())
        controls = QHBoxLayout()
        controls.setContentsMargins(S, 0, S, XS)  # under the picture: no gap above
        controls.setSpacing(S)
        controls.addWidget(self.play_button)
        controls.addWidget(self.slider, 1)
        controls.addWidget(self.time_label)
        controls.addWidget(self.mute_button)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(0)
        layout.addWidget(self.video, 1)
        layout.addLayout(controls)
        self.retranslate()

    @property
    def player(self) -> QMediaPlayer:
        """Qt's player, made when a video is first opened: it and its sink load the FFmpeg backend and its codecs
        (about 13 MB resident), which a window that never shows a video does not need."""
        if self._player is None:
            from PySide6.QtMultimedia import QMediaPlayer

            player = self._player = QMediaPlayer(self)
            player.setVideoSink(self.video.sink)
            player.durationChanged.connect(self._on_duration)
            player.positionChanged.connect(self._on_position)
            player.playbackStateChanged.connect(lambda _s: self.retranslate())
            player.errorOccurred.connect(self._on_error)
        return self._player

    def _seek(self, ms: int) -> None:
        if self._player is not None:
            self._player.setPosition(ms)

    def pause(self) -> None:
        if self._player is not None:
            self._player.pause()

    def open(self, path: str) -> None:
        if self.audio is None:
            from PySide6.QtMultimedia import QAudioOutput

            self.audio = QAudioOutput(self)
            self.audio.setMuted(self.mute_button.isChecked())
            self.player.setAudioOutput(self.audio)
        self.slider.setRange(0, 0)  # nothing of the last video while this one loads (or fails to)
        self.time_label.setText("0:00 / 0:00")
        self.player.setSource(QUrl.fromLocalFile(path))
        self.player.pause()  # shows the first frame without playing

    def stop(self) -> None:
        if self._player is None or self._player.source().isEmpty():
            return
        self.player.stop()
        self.player.setSource(QUrl())
        self.video.clear()

    def _playing(self) -> bool:
        from PySide6.QtMultimedia import QMediaPlayer

        return self._player is not None and self._player.playbackState() == QMediaPlayer.PlaybackState.PlayingState

    def toggle_play(self) -> None:
        if self._playing():
            self.player.pause()
        else:
            self.player.play()

    def _on_error(self, _error: QMediaPlayer.Error, text: str) -> None:
        if self._player is not None and not self._player.source().isEmpty():
            self.failed.emit(coded(UNPLAYABLE_VIDEO, text))

    def _on_duration(self, ms: int) -> None:
        self.slider.setRange(0, max(0, ms))
        self._on_position(self.player.position())

    def _on_position(self, ms: int) -> None:
        if not self.slider.isSliderDown():
            self.slider.setValue(ms)
        self.time_label.setText(f"{duration_text(ms)} / {duration_text(self.player.duration())}")

    def changeEvent(self, event: QEvent) -> None:
        if event.type() == QEvent.Type.LanguageChange:
            self.retranslate()
        super().changeEvent(event)

    def retranslate(self) -> None:
        playing = self._playing()
        self.play_button.setText("⏸" if playing else "▶")
        self.play_button.setToolTip(self.tr("Pause") if playing else self.tr("Play"))
        self.play_button.setAccessibleName(self.play_button.toolTip())
        self.mute_button.setText("🔇" if self.mute_button.isChecked() else "🔊")
        self.mute_button.setToolTip(self.tr("Unmute") if self.mute_button.isChecked() else self.tr("Mute"))
        self.mute_button.setAccessibleName(self.mute_button.toolTip())
        self.slider.setAccessibleName(self.tr("Position"))
