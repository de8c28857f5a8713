"""The sticky note: one pending memory proposal beside your work, edited and confirmed (or dismissed) in place.

A frameless, always-on-top tool window. It is dragged from anywhere on it (the window system's own move where the
platform offers one, else by following the mouse), kept inside the screen, and remembers where it was left.
"""

from __future__ import annotations

from PySide6.QtCore import QEvent, QPoint, QRect, QRectF, Qt, Signal
from PySide6.QtGui import (
    QColor,
    QGuiApplication,
    QMouseEvent,
    QPainter,
    QPainterPath,
    QPalette,
    QPen,
    QRegion,
)
from PySide6.QtWidgets import (
    QComboBox,
    QFrame,
    QHBoxLayout,
    QLabel,
    QPlainTextEdit,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from ..core import config as options
from .metrics import L, M, S, type_scale
from .settings import NOTE_COLOURS, Settings

SIZES = {"S": (240, 150), "M": (300, 190), "L": (380, 240)}
RADII = {"capsule": 22, "rounded": 10, "square": 0, "circle": 40}


def clamp_to(area: QRect, top_left: QPoint, size) -> QPoint:
    """The nearest position that keeps a window of `size` wholly inside `area`."""
    x = min(max(top_left.x(), area.left()), area.right() - size.width() + 1)
    y = min(max(top_left.y(), area.top()), area.bottom() - size.height() + 1)
    return QPoint(max(x, area.left()), max(y, area.top()))


class StickyNote(QFrame):
    remembered = Signal(str, str, str, str)  # proposal id, text, target file, chapter
    dismissed = Signal(str)

    def __init__(self, settings: Settings, parent: QWidget | None = None) -> None:
        super().__init__(parent, Qt.WindowType.Tool | Qt.WindowType.FramelessWindowHint
                         | Qt.WindowType.WindowStaysOnTopHint)
        self.setObjectName("StickyNote")
        self.setAttribute(Qt.WidgetAttribute.WA_ShowWithoutActivating)
        self.setAttribute(Qt.WidgetAttribute.WA_TranslucentBackground)  # the shape's corners show what is behind
        self.settings = settings
        self.proposal = None
        self._drag_from: QPoint | None = None
        self.moved_by_hand = False  # the fallback drag was used (the platform had no system move)
        self.is_top = True  # the stack's front note: where it is left is where the stack goes

        self.title = QLabel(objectName="NoteTitle")
        self.count = QLabel(objectName="NoteCount")
        self.text = QPlainTextEdit(objectName="NoteText")
        self.text.setTabChangesFocus(True)
        self.kind = QLabel(objectName="NoteKind")
        self.target = QComboBox(objectName="NoteTarget")
        self.message = QLabel(objectName="NoteMessage", wordWrap=True)
        self.message.hide()
        self.remember_button = QPushButton(objectName="Remember")
        self.remember_button.setDefault(True)
        self.dismiss_button = QPushButton(objectName="Dismiss")
        self.remember_button.clicked.connect(self._remember)
        self.dismiss_button.clicked.connect(lambda: self.proposal and self.dismissed.emit(self.proposal.id))

        top = QHBoxLayout()
        top.addWidget(self.title, 1)
        top.addWidget(self.count)
        where = QHBoxLayout()
        where.addWidget(self.kind)
        where.addWidget(self.target, 1)
        buttons = QHBoxLayout()
        buttons.addStretch(1)
        buttons.addWidget(self.remember_button)
        buttons.addWidget(self.dismiss_button)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(L, M, L, M)
        layout.setSpacing(S)  # the rows' own layouts take this too
        layout.addLayout(top)
        layout.addWidget(self.text, 1)
        layout.addLayout(where)
        layout.addWidget(self.message)
        layout.addLayout(buttons)
        for child in (self.title, self.count, self.kind, self.message):
            child.installEventFilter(self)  # labels pass presses on, so the note drags from them too
        self._apply_type_scale()
        settings.changed.connect(self._on_setting)
        self.apply_look()
        self.retranslate()

    # --- content -------------------------------------------------------------------------------------

    def show_proposal(self, proposal, targets: list, position: int, total: int) -> None:
        """`targets`: [(file, library name, [chapters])] found in the memory directory now."""
        self.proposal = proposal
        self.text.setPlainText(proposal.text)
        self.kind.setText(self._kind_text(proposal.kind))
        self.count.setText(f"{position} / {total}" if total > 1 else "")
        self.target.clear()
        for file, name, chapters in targets:
            if chapters:
                for chapter in chapters:
                    self.target.addItem(f"{name} › {chapter}", (file, chapter))
            else:
                self.target.addItem(name, (file, ""))
        wanted = (proposal.target, proposal.chapter)
        index = next((i for i in range(self.target.count()) if self.target.itemData(i) == wanted), -1)
        if index < 0 and proposal.target:
            index = next((i for i in range(self.target.count()) if self.target.itemData(i)[0] == proposal.target), 0)
        self.target.setCurrentIndex(max(index, 0))
        self.remember_button.setEnabled(self.target.count() > 0)
        self.show_message("" if self.target.count() else self.tr("No memory files yet: create one to write into."))

    def show_message(self, text: str) -> None:
        self.message.setText(text)
        self.message.setVisible(bool(text))

    def _remember(self) -> None:
        if self.proposal is None or self.target.currentIndex() < 0:
            return
        file, chapter = self.target.currentData()
        self.remembered.emit(self.proposal.id, self.text.toPlainText().strip(), file, chapter)

    def _kind_text(self, kind: str) -> str:
        return {
            "preference": self.tr("Preference"), "project": self.tr("Project"), "environment": self.tr("Environment"),
            "fact": self.tr("Fact"), "todo": self.tr("To do"),
        }.get(kind, self.tr("Note"))

    # --- placement -----------------------------------------------------------------------------------

    def place(self, offset: QPoint | None = None) -> None:
        """Where the stack was left (or the bottom-right corner), shifted by `offset`; always inside the screen."""
        screen = self.screen() or QGuiApplication.primaryScreen()
        area = screen.availableGeometry()
        saved = self.settings.note_position
        start = QPoint(*saved) if saved else QPoint(area.right() - self.width() - 24, area.bottom() - self.height() - 24)
        self.move(clamp_to(area, start + (offset or QPoint(0, 0)), self.size()))

    def reset_position(self) -> None:
        self.settings.note_position = None
        self.place()

    def mousePressEvent(self, event: QMouseEvent) -> None:
        if event.button() != Qt.MouseButton.LeftButton:
            return super().mousePressEvent(event)
        handle = self.windowHandle()
        if handle is not None and handle.startSystemMove():
            self._drag_from = None  # the window system moves it; we hear where it ended in moveEvent
        else:
            self._drag_from = event.globalPosition().toPoint() - self.frameGeometry().topLeft()
        event.accept()

    def mouseMoveEvent(self, event: QMouseEvent) -> None:
        if self._drag_from is not None and event.buttons() & Qt.MouseButton.LeftButton:
            screen = self.screen() or QGuiApplication.primaryScreen()
            self.move(clamp_to(screen.availableGeometry(), event.globalPosition().toPoint() - self._drag_from,
                               self.size()))
            self.moved_by_hand = True
            event.accept()
            return
        super().mouseMoveEvent(event)

    def mouseReleaseEvent(self, event: QMouseEvent) -> None:
        if self._drag_from is not None:
            self._drag_from = None
            if self.is_top:
                self.settings.note_position = (self.x(), self.y())
        super().mouseReleaseEvent(event)

    def moveEvent(self, event) -> None:
        super().moveEvent(event)
        if (self.is_top and self.isVisible() and self._drag_from is None
                and self.settings.note_position != (self.x(), self.y())):
            self.settings.note_position = (self.x(), self.y())

    def eventFilter(self, watched, event) -> bool:
        if event.type() in (QEvent.Type.MouseButtonPress, QEvent.Type.MouseMove, QEvent.Type.MouseButtonRelease):
            handler = {QEvent.Type.MouseButtonPress: self.mousePressEvent, QEvent.Type.MouseMove: self.mouseMoveEvent,
                       QEvent.Type.MouseButtonRelease: self.mouseReleaseEvent}[event.type()]
            mapped = QMouseEvent(event.type(), self.mapFromGlobal(event.globalPosition().toPoint()).toPointF(),
                                 event.globalPosition(), event.button(), event.buttons(), event.modifiers())
            handler(mapped)
            return True
        return super().eventFilter(watched, event)

    # --- look ----------------------------------------------------------------------------------------

    def _apply_type_scale(self) -> None:
        """The list's type scale: the note's title reads like a row's title, its kind and count like a row's time."""
        title, body, small = type_scale(self.font())
        self.title.setFont(title)
        self.text.setFont(body)
        for label in (self.count, self.kind, self.message):
            label.setFont(small)

    def _on_setting(self, key: str) -> None:
        if key in (options.NOTE_SHAPE.key, options.NOTE_COLOUR.key, options.NOTE_SIZE.key):
            self.apply_look()

    def apply_look(self) -> None:
        width, height = SIZES[self.settings.note_size]
        self.setFixedSize(width, height)
        colour = NOTE_COLOURS[self.settings.note_colour]
        base = QColor(colour) if colour else self.palette().color(QPalette.ColorRole.Window)
        tint = QColor(base)
        if colour:
            tint.setAlpha(235)
        text = "#ffffff" if colour else self.palette().color(QPalette.ColorRole.WindowText).name()
        self._background, self._border = tint, base.darker(130)
        self._radius = min(RADII[self.settings.note_shape], height // 2)
        self.setStyleSheet(f"QFrame#StickyNote QLabel {{ color: {text}; }}")
        self._update_mask()
        self.update()

    def _update_mask(self) -> None:
        """On X11 the window is also cut to its shape: without a compositor a translucent window's corners are
        painted black, and a shape mask is what every X server honours (with a compositor it changes nothing
        but the corners' antialiasing)."""
        if QGuiApplication.platformName() != "xcb" or self._radius <= 0:
            self.clearMask()
            return
        path = QPainterPath()
        path.addRoundedRect(QRectF(self.rect()), self._radius, self._radius)
        self.setMask(QRegion(path.toFillPolygon().toPolygon()))

    def paintEvent(self, event) -> None:
        # Painted here rather than by a style sheet: the window is translucent so the shape's corners show
        # what is behind, and a translucent window's style-sheet background is not drawn.
        painter = QPainter(self)
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        painter.setPen(QPen(self._border, 1))
        painter.setBrush(self._background)
        painter.drawRoundedRect(QRectF(self.rect()).adjusted(0.5, 0.5, -0.5, -0.5), self._radius, self._radius)
        painter.end()

    # --- words ---------------------------------------------------------------------------------------

    def changeEvent(self, event: QEvent) -> None:
        if event.type() == QEvent.Type.LanguageChange:
            self.retranslate()
        super().changeEvent(event)

    def retranslate(self) -> None:
        self.title.setText(self.tr("📌 Worth remembering?"))
        self.remember_button.setText(self.tr("Remember"))
        self.dismiss_button.setText(self.tr("Dismiss"))
        self.target.setToolTip(self.tr("Write it to"))
        self.text.setAccessibleName(self.tr("The memory (you can edit it)"))
        if self.proposal is not None:
            self.kind.setText(self._kind_text(self.proposal.kind))
