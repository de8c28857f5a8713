"""The preview pane: Markdown (relative images, clickable links), text, PDF pages, the matched passage, citations.

It never reads files itself: it asks the live ranking (the indexer's thread) for a document's text and links and for
rendered PDF pages, and keeps only the newest answer to its own requests.
"""

from __future__ import annotations

import os
import re

from PySide6.QtCore import QBuffer, QByteArray, QEvent, QRect, QSize, Qt, QTimer, QUrl, Signal
from PySide6.QtGui import (
    QColor,
    QGuiApplication,
    QImage,
    QImageReader,
    QKeySequence,
    QPainter,
    QPixmap,
    QShortcut,
    QTextBlock,
    QTextCursor,
    QTextDocument,
)
from PySide6.QtWidgets import (
    QFrame,
    QHBoxLayout,
    QLabel,
    QListWidget,
    QListWidgetItem,
    QScrollArea,
    QSizePolicy,
    QStackedWidget,
    QTextBrowser,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from ..core.index.boundary import OutsideWorkspace, inside, read_inside, resolve_inside
from ..core.index.preview_content import PreviewData
from ..core.rank.cited import citation_text
from ..core.rank.passages import Passage
from ..services import multimedia
from .colours import passage_background, passage_bar
from .compact import ElidedButton, tinted_icon
from .item_actions import no_app_text, open_url, open_with_system_app
from .media_preview import ImageView, VideoPlayer, video_unavailable_text
from .metrics import DOCUMENT_MARGIN, PASSAGE_BAR_GAP, PASSAGE_BAR_WIDTH, PASSAGE_PAD, XS, S
from .wording import problem_text

_MD_SYNTAX = re.compile(r"^\s{0,3}(#{1,6}\s+|[-*+]\s+|\d+[.)]\s+|>\s*)|[*_`~]|!?\[([^\[\]]*)\]\([^()]*\)")


def plain_line(line: str) -> str:
    """A Markdown source line as it reads once rendered (enough to find it in the rendered document)."""
    return " ".join(_MD_SYNTAX.sub(lambda m: m.group(2) or "", line).split())


MAX_IMAGE_BYTES = 64 * 1024 * 1024  # an image file larger than this is not loaded into a preview


class WorkspaceTextBrowser(QTextBrowser):
    """A text browser that loads a document's images only from inside the workspace: a remote URL (http, https,
    ftp, …) or a path leading out of the workspace (absolute, `../..`, `file://`, a symlink) is never opened; a
    placeholder saying why is shown in its place. Other resources (style sheets, …) are never loaded."""

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.root = ""  # the workspace's real path; empty: nothing is loaded
        self.folder = ""  # the shown document's folder, for relative image paths
        self.refused: list[tuple[str, str]] = []  # (url, why) for each image refused since the last document
        self._sizes: dict[str, QSize] = {}  # image name -> natural size, for the shown document
        self._passage: tuple[int, int] | None = None  # the marked passage's first and last positions
        # room in the margin for the passage bar, left of the text
        self.document().setDocumentMargin(DOCUMENT_MARGIN)

    def set_location(self, root: str, folder: str) -> None:
        self.root = os.path.realpath(root) if root else ""
        self.folder = folder
        self.refused = []
        self._sizes = {}

    def local_image_path(self, url: QUrl) -> tuple[str | None, str]:
        """The workspace file an image URL names, or None and why it is refused."""
        scheme = url.scheme().lower()
        if scheme not in ("", "file") or (url.host() and scheme == "file"):
            return None, self.tr("remote images are not loaded")
        target = url.toLocalFile() if url.isLocalFile() else url.path()
        if not target or not self.root:
            return None, self.tr("the image is outside the workspace")
        if not os.path.isabs(target):
            target = os.path.join(self.folder or self.root, target)
        if not inside(self.root, target):
            return None, self.tr("the image is outside the workspace")
        return os.path.realpath(target), ""

    def loadResource(self, kind: int, url: QUrl) -> object:  # type: ignore[override]  # noqa: N802 - Qt passes a QUrl
        if kind != QTextDocument.ResourceType.ImageResource.value:
            return None
        path, why = self.local_image_path(url)
        if path is None:
            self.refused.append((url.toString(), why))
            return placeholder_image(self.tr("Image not shown: %1").replace("%1", why))
        try:  # the encoded bytes, as Qt's own loader gives them (it decodes them, SVG included)
            return QByteArray(bytes(read_inside(self.root, path, MAX_IMAGE_BYTES)))
        except (OSError, OutsideWorkspace) as exc:
            return placeholder_image(self.tr("Image not shown: %1").replace("%1", str(exc)))

    def _natural_size(self, name: str) -> QSize:
        resource = self.loadResource(QTextDocument.ResourceType.ImageResource.value, QUrl(name))
        if isinstance(resource, QImage):
            return resource.size()
        if resource is None:
            return QSize()
        buffer = QBuffer(resource)
        return QImageReader(buffer).size()  # the header only: no second decode

    def fit_images(self) -> None:
        """Images no wider than the pane (a banner wider than the pane is scaled down, never cropped or scrolled
        sideways); smaller ones keep their size. Called after a document is set and when the pane is resized."""
        available = int(self.viewport().width() - 2 * self.document().documentMargin() - 4)
        if available <= 0:
            return
        cursor = QTextCursor(self.document())
        block = self.document().begin()
        while block.isValid():
            it = block.begin()
            while not it.atEnd():
                fragment = it.fragment()
                fmt = fragment.charFormat()
                if fmt.isImageFormat():
                    image = fmt.toImageFormat()
                    natural = self._sizes.get(image.name())
                    if natural is None:
                        natural = self._sizes[image.name()] = self._natural_size(image.name())
                    if natural.isValid() and natural.width() > 0:
                        width = min(natural.width(), available)
                        if abs(image.width() - width) > 0.5:
                            image.setWidth(width)
                            image.setHeight(natural.height() * width / natural.width())
                            cursor.setPosition(fragment.position())
                            cursor.setPosition(fragment.position() + fragment.length(), QTextCursor.MoveMode.KeepAnchor)
                            cursor.setCharFormat(image)
                it += 1
            block = block.next()

    def resizeEvent(self, event) -> None:
        super().resizeEvent(event)
        self.fit_images()

    # --- the matched passage: a bar in the margin and a faint background, drawn under the text -----------

    def mark_passage(self, span: tuple[int, int] | None) -> None:
        """Mark the text between two document positions (None: nothing). Nothing in the document changes: no
        block or heading is repainted, the marker is drawn under the text on each paint."""
        self._passage = span
        self.viewport().update()

    def marked_blocks(self) -> list[QTextBlock]:
        """The blocks the marker runs beside: those of the passage, without its headings and its empty edges."""
        return [block for run in self._passage_runs() for block in run]

    def _passage_runs(self) -> list[list[QTextBlock]]:
        """The passage's blocks in runs broken by headings (a heading keeps its own look, unmarked)."""
        if self._passage is None:
            return []
        start, end = self._passage
        document = self.document()
        runs: list[list[QTextBlock]] = [[]]
        block = document.findBlock(start)
        while block.isValid() and block.position() <= end:
            if block.blockFormat().headingLevel() > 0:
                runs.append([])
            else:
                runs[-1].append(block)
            block = block.next()
        trimmed = []
        for run in runs:
            while run and not run[0].text().strip():
                run.pop(0)
            while run and not run[-1].text().strip():
                run.pop()
            if run:
                trimmed.append(run)
        return trimmed

    def passage_spans(self) -> list[QRect]:
        """The marker's rectangles in viewport coordinates, one per run of the passage's blocks."""
        if self._passage is None:
            return []
        start, end = self._passage
        spans = []
        for run in self._passage_runs():
            first = max(start, run[0].position())
            last = min(end, run[-1].position() + max(0, run[-1].length() - 1))
            cursor = QTextCursor(self.document())
            cursor.setPosition(first)
            top = self.cursorRect(cursor).top()
            cursor.setPosition(last)
            bottom = self.cursorRect(cursor).bottom()
            spans.append(QRect(0, top - PASSAGE_PAD, self.viewport().width(), bottom - top + 1 + 2 * PASSAGE_PAD))
        return spans

    def paintEvent(self, event) -> None:
        spans = self.passage_spans()
        if spans:  # under the text: painted first, the document on top
            painter = QPainter(self.viewport())
            palette = self.palette()
            for rect in spans:
                painter.fillRect(rect, passage_background(palette))
                painter.fillRect(QRect(rect.left() + PASSAGE_BAR_GAP, rect.top(), PASSAGE_BAR_WIDTH, rect.height()),
                                 passage_bar(palette))
            painter.end()
        super().paintEvent(event)


def passage_positions(document: QTextDocument, data: PreviewData, passage: Passage) -> tuple[int, int] | None:
    """Where a passage (source lines `start_line`..`end_line`) lies in the shown document, as the first and last
    character positions of its lines; None when none of its lines is found. Plain text has a block per source
    line; rendered Markdown has none, so each line's rendered text is looked for in order."""
    start, end = passage.start_line, passage.end_line
    page_lines = data.page_line_starts
    if passage.page and 0 < passage.page <= len(page_lines):  # an EPUB's lines count within its page
        start, end = start + page_lines[passage.page - 1], end + page_lines[passage.page - 1]
    source = data.text.splitlines()
    lines = [n for n in range(start, end + 1) if 0 < n <= len(source)]
    if data.kind == "txt":
        blocks = [document.findBlockByNumber(n - 1) for n in lines if source[n - 1].strip()]
        blocks = [b for b in blocks if b.isValid()]
        if not blocks:
            return None
        return blocks[0].position(), blocks[-1].position() + max(0, blocks[-1].length() - 1)
    found_spans: list[tuple[int, int]] = []
    cursor = QTextCursor(document)
    # rendered text is shorter than its source: a "match" further on than the whole passage's source is another line
    reach = sum(len(source[n - 1]) + 1 for n in lines) + 200
    for n in lines:
        wanted = plain_line(source[n - 1])
        if len(wanted) < 2:
            continue
        found = document.find(wanted[:60], cursor)
        if found.isNull() or (found_spans and found.selectionStart() - found_spans[0][0] > reach):
            continue
        block = found.block()
        block_end = block.position() + max(0, block.length() - 1)
        found_spans.append((found.selectionStart(), min(block_end, found.selectionStart() + len(wanted))))
        cursor = found
    if not found_spans:
        return None
    return found_spans[0][0], found_spans[-1][1]


def best_passage(passages: tuple[Passage, ...]) -> Passage | None:
    """The passage to open on: the one holding the most of the matched words (passages come in document order,
    so the first is not the best: a PDF would open on page 1 with 2 of 6 words instead of page 2 with all 6)."""
    return max(passages, key=lambda p: len(p.terms), default=None)


def placeholder_image(text: str) -> QImage:
    """A small framed picture holding `text`, shown where an image is not loaded."""
    image = QImage(360, 36, QImage.Format.Format_ARGB32)
    image.fill(QColor(240, 240, 240))
    painter = QPainter(image)
    painter.setPen(QColor(100, 100, 100))  # 5.2:1 on the fill
    painter.drawRect(0, 0, image.width() - 1, image.height() - 1)
    painter.drawText(image.rect().adjusted(8, 0, -8, 0), int(Qt.AlignmentFlag.AlignVCenter), text)
    painter.end()
    return image


class PreviewPane(QFrame):
    closed = Signal()
    fullscreenToggled = Signal(bool)
    documentRequested = Signal(str)  # a link was followed (or Back / Forward): the document's absolute path
    notice = Signal(str)  # something the user should read in the status line

    def __init__(self, ranking, parent: QWidget | None = None, images=None) -> None:
        """`images` decodes pictures off the GUI thread (the ThumbnailService); without it images are not shown."""
        super().__init__(parent)
        self.images = images
        self.setObjectName("PreviewPane")
        self.setFrameShape(QFrame.Shape.StyledPanel)
        self.ranking = ranking
        self.rel = ""
        self.kind = ""
        self.root = ""
        self.passages: tuple[Passage, ...] = ()
        self.data: PreviewData | None = None
        self.page = 1
        self.pages = 0
        self._token = 0
        self._page_token = 0
        self._page_width = 0  # the width the shown page was rendered at
        self._fullscreen = False
        # a resized pane (fullscreen, the splitter, the window) renders the page again at its new width, once the
        # resizing pauses: fullscreen gets a large page, not the small one stretched or left small
        self._rerender = QTimer(self, singleShot=True, interval=150)
        self._rerender.timeout.connect(self._fit_page)
        ranking.previewReady.connect(self._on_preview)
        ranking.pageRendered.connect(self._on_page)
        ranking.errored.connect(self._on_errored)

        # Back / Forward through followed links (a document opened from the list starts a new trail)
        self._back: list[str] = []
        self._forward: list[str] = []
        self._expected = ""
        self.back_button = QToolButton(objectName="PreviewBack", autoRaise=True)
        self.back_button.clicked.connect(self.go_back)
        self.forward_button = QToolButton(objectName="PreviewForward", autoRaise=True)
        self.forward_button.clicked.connect(self.go_forward)
        self.path_button = ElidedButton(objectName="PathButton")  # middle-elided: the folder start and the name
        self.path_button.clicked.connect(self.reveal)
        # icon buttons with tooltips (resources/icons, tinted for the palette): a header that fits 320 px
        self.open_button = QToolButton(objectName="OpenLocally", autoRaise=True)
        self.open_button.clicked.connect(self.open_locally)
        self.copy_button = QToolButton(objectName="CopyCitation", autoRaise=True)
        self.copy_button.clicked.connect(self.copy_citation)
        self.full_button = QToolButton(objectName="Fullscreen", autoRaise=True)
        self.full_button.clicked.connect(lambda: self.set_fullscreen(not self._fullscreen))
        self.close_button = QToolButton(objectName="ClosePreview", autoRaise=True)
        self.close_button.clicked.connect(self.closed)
        bar = QHBoxLayout()
        bar.setContentsMargins(S, XS, S, XS)
        bar.addWidget(self.back_button)
        bar.addWidget(self.forward_button)
        bar.addWidget(self.path_button, 1)
        bar.addWidget(self.open_button)
        bar.addWidget(self.copy_button)
        bar.addWidget(self.full_button)
        bar.addWidget(self.close_button)

        self.browser = WorkspaceTextBrowser(objectName="PreviewText")
        self.browser.setOpenLinks(False)
        self.browser.anchorClicked.connect(self._on_link)
        self.page_label = QLabel(alignment=Qt.AlignmentFlag.AlignCenter)
        self.page_scroll = QScrollArea()
        self.page_scroll.setWidget(self.page_label)
        self.page_scroll.setWidgetResizable(True)
        self.prev_page = QToolButton(text="◀")
        self.prev_page.clicked.connect(lambda: self.show_page(self.page - 1))
        self.next_page = QToolButton(text="▶")
        self.next_page.clicked.connect(lambda: self.show_page(self.page + 1))
        self.page_number = QLabel()
        pdf_bar = QHBoxLayout()
        pdf_bar.setSpacing(S)
        pdf_bar.addStretch(1)
        pdf_bar.addWidget(self.prev_page)
        pdf_bar.addWidget(self.page_number)
        pdf_bar.addWidget(self.next_page)
        pdf_bar.addStretch(1)
        pdf_box = QWidget()
        pdf_layout = QVBoxLayout(pdf_box)
        pdf_layout.setContentsMargins(0, 0, 0, 0)
        pdf_layout.setSpacing(XS)
        pdf_layout.addWidget(self.page_scroll, 1)
        pdf_layout.addLayout(pdf_bar)
        self.message = QLabel(alignment=Qt.AlignmentFlag.AlignCenter, wordWrap=True)
        self.image_view = ImageView()
        self._video_player: VideoPlayer | None = None  # made with the first video (see `video_player`)
        self._image_token = 0
        if images is not None:
            images.imageLoaded.connect(self._on_image)
        self.stack = QStackedWidget()
        for widget in (self.browser, pdf_box, self.message, self.image_view):
            self.stack.addWidget(widget)
        self.pdf_box = pdf_box

        self.links_button = QToolButton(objectName="CitationBar")
        self.links_button.setCheckable(True)
        self.links_button.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonTextOnly)
        self.links_button.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Preferred)
        self.links_button.toggled.connect(self._show_links)
        self.links_list = QListWidget(objectName="CitationList")
        self.links_list.setMaximumHeight(110)
        self.links_list.setVisible(False)
        self.links_list.itemActivated.connect(self._on_link_item)
        self.links_list.itemClicked.connect(self._on_link_item)

        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(0)
        layout.addLayout(bar)
        layout.addWidget(self.stack, 1)
        layout.addWidget(self.links_button)
        layout.addWidget(self.links_list)
        QShortcut(QKeySequence(Qt.Key.Key_Escape), self, self._escape, context=Qt.ShortcutContext.WidgetWithChildrenShortcut)
        QShortcut(QKeySequence(Qt.Modifier.ALT | Qt.Key.Key_Left), self, self.go_back,
                  context=Qt.ShortcutContext.WidgetWithChildrenShortcut)
        QShortcut(QKeySequence(Qt.Modifier.ALT | Qt.Key.Key_Right), self, self.go_forward,
                  context=Qt.ShortcutContext.WidgetWithChildrenShortcut)
        self._update_history_buttons()
        self.retranslate()

    # --- showing a document --------------------------------------------------------------------------

    def show_document(self, root: str, rel: str, kind: str, passages: tuple[Passage, ...] = ()) -> None:
        """Show a document, scrolled to its best matched passage (a PDF at that passage's page)."""
        if os.path.join(root, rel) != self._expected:  # opened from the list, the tray, …: a new trail
            self._back.clear()
            self._forward.clear()
        self._expected = ""
        self._update_history_buttons()
        self.root, self.rel, self.kind = root, rel, kind
        self.passages = tuple(passages)
        self.data = None
        best = best_passage(self.passages)
        self.page = (best.page if best is not None else 0) or 1
        self._set_path(rel)
        self.message.setText(self.tr("Loading…"))
        self.stack.setCurrentWidget(self.message)
        if self._video_player is not None:
            self._video_player.stop()
        media = kind in ("image", "video")
        self.copy_button.setVisible(not media)
        self.links_button.setVisible(not media)
        self.links_list.setVisible(not media and self.links_button.isChecked())
        if media:
            self._show_media(root, rel, kind)
            return
        self._token = self.ranking.preview(rel, root)
        if not self._token:  # no workspace is open: no answer would ever come
            self._show_problem(self.tr("no workspace is open"))

    def _show_media(self, root: str, rel: str, kind: str) -> None:
        self._token = 0
        path = resolve_inside(root, rel)
        if path is None:
            self.message.setText(self.tr("Cannot show this document: %1").replace(
                "%1", self.tr("it links outside the workspace")))
            self.stack.setCurrentWidget(self.message)
            return
        player = self.video_player if kind == "video" else None
        if kind == "video" and player is None:
            self.message.setText(video_unavailable_text())
        elif player is not None:
            player.open(path)
            self.stack.setCurrentWidget(player)
        elif self.images is not None:
            self.image_view.clear()
            self._image_token = self.images.load_image(path)
        else:
            self.message.setText(self.tr("No preview for this kind of file yet."))

    @property
    def video_player(self) -> VideoPlayer | None:
        """The video player, made when first asked for (the first video shown); None where Qt Multimedia cannot
        load, and a video then shows why instead. Asking whether it loads loads it, and QtNetwork with it: 5.8 MB
        of the window's resident memory, which a window that never shows a video does not need."""
        if self._video_player is None and multimedia.multimedia_available()[0]:
            player = self._video_player = VideoPlayer()
            player.failed.connect(self._on_video_failed)
            self.stack.addWidget(player)
        return self._video_player

    def _on_video_failed(self, problem: str) -> None:
        if self.kind == "video":
            self._show_problem(problem_text(problem))

    def _on_image(self, token: int, image, problem: str) -> None:
        if token != self._image_token or self.kind != "image":
            return
        if image is None:
            self._show_problem(problem_text(problem))
            return
        self.stack.setCurrentWidget(self.image_view)
        self.image_view.set_image(image)

    def _show_problem(self, problem: str) -> None:
        self.message.setText(self.tr("Cannot show this document: %1").replace("%1", problem))
        self.stack.setCurrentWidget(self.message)

    def _on_errored(self, token: int, message: str) -> None:
        """The worker failed on this pane's request: say so instead of "Loading…" for ever."""
        if token and token in (self._token, self._page_token):
            self._show_problem(message)

    def _set_path(self, rel: str) -> None:
        folder, _, name = rel.rpartition("/")
        self.path_button.setText(f"{folder}/{name}" if folder else name)
        self.path_button.setToolTip(rel)

    def _on_preview(self, token: int, data: PreviewData) -> None:
        if token != self._token:
            return
        self.data = data
        self._update_links()
        if data.problem:
            self._show_problem(problem_text(data.problem))
            return
        if data.kind == "pdf":
            self.pages = data.pages
            self.stack.setCurrentWidget(self.pdf_box)
            self.show_page(self.page)
            return
        if data.kind not in ("md", "txt"):
            self.message.setText(self.tr("No preview for this kind of file yet."))
            self.stack.setCurrentWidget(self.message)
            return
        document = self.browser.document()
        folder = os.path.dirname(data.path)
        document.setBaseUrl(QUrl.fromLocalFile(folder + os.sep))
        self.browser.set_location(self.root, folder)
        text = data.text
        if data.truncated:
            text += "\n\n" + self.tr("(large file — showing the first 512 KB)")
        if data.kind == "md":
            self.browser.setMarkdown(text)
            self.browser.fit_images()
        else:
            # setPlainText keeps the cursor's formats: after a Markdown heading was highlighted, the whole text
            # would show as that heading. An emptied document and a fresh cursor carry the default formats.
            self.browser.document().clear()
            self.browser.setTextCursor(QTextCursor(self.browser.document()))
            self.browser.setPlainText(text)
        self.stack.setCurrentWidget(self.browser)
        self._highlight_passage()

    def _highlight_passage(self) -> None:
        """Scroll to the matched passage and mark it: a bar in the margin and a faint background beside its lines
        (the lines a citation names), its headings left as they are."""
        passage = best_passage(self.passages)
        span = passage_positions(self.browser.document(), self.data, passage) if passage and self.data else None
        self.browser.mark_passage(span)
        if span is not None:  # bring the passage's end into view, then its start, so the whole passage shows
            for position in (span[1], span[0]):
                cursor = QTextCursor(self.browser.document())
                cursor.setPosition(position)
                self.browser.setTextCursor(cursor)
                self.browser.ensureCursorVisible()

    # --- PDF pages -----------------------------------------------------------------------------------

    def show_page(self, page: int) -> None:
        if self.kind != "pdf" or not self.pages:
            return
        self.page = min(max(1, page), self.pages)
        self._update_page_bar()
        # leave room for the vertical scroll bar a page taller than the pane brings, so no sideways scrolling
        self._page_width = self._wanted_page_width()
        terms = tuple(dict.fromkeys(t for p in self.passages for t in p.terms))  # marked on every page
        self._page_token = self.ranking.render_page(self.rel, self.page, self._page_width, terms, self.root)

    def _wanted_page_width(self) -> int:
        bar = self.page_scroll.verticalScrollBar().sizeHint().width()
        return max(200, self.page_scroll.width() - 2 * self.page_scroll.frameWidth() - bar - 8)

    def _fit_page(self) -> None:
        if self.kind == "pdf" and self.pages and abs(self._wanted_page_width() - self._page_width) > 16:
            self.show_page(self.page)

    def resizeEvent(self, event) -> None:
        super().resizeEvent(event)
        if self.kind == "pdf":
            self._rerender.start()

    def _on_page(self, token: int, result) -> None:
        if token != self._page_token:
            return
        rel, page, pages, image = result
        if not pages:
            self.message.setText(self.tr("Cannot show this document: %1").replace("%1", str(image)))
            self.stack.setCurrentWidget(self.message)
            return
        self.page, self.pages = page, pages
        self.page_label.setPixmap(QPixmap.fromImage(image))
        self._update_page_bar()

    def _update_page_bar(self) -> None:
        self.page_number.setText(self.tr("Page %1 of %2").replace("%1", str(self.page)).replace("%2", str(self.pages)))
        self.prev_page.setEnabled(self.page > 1)
        self.next_page.setEnabled(self.page < self.pages)

    # --- links and citations -------------------------------------------------------------------------

    def _on_link(self, url: QUrl) -> None:
        if url.scheme() in ("http", "https", "mailto"):
            open_url(url)
            return
        if url.hasFragment() and not url.path():
            self.browser.scrollToAnchor(url.fragment())
            return
        target = url.toLocalFile() if url.isLocalFile() else url.path()
        if self.data is None or not target:
            return
        if not os.path.isabs(target):
            target = os.path.join(os.path.dirname(self.data.path), target)
        target = os.path.normpath(target)
        root = os.path.normpath(self.root)
        if target.startswith(root + os.sep) and inside(os.path.realpath(root), target):
            self.follow(os.path.relpath(target, root).replace(os.sep, "/"))

    def _update_links(self) -> None:
        data = self.data
        n_in, n_out = (len(data.links_in), len(data.links_out)) if data else (0, 0)
        self.links_button.setText(
            self.tr("Referenced by %1 · links to %2").replace("%1", str(n_in)).replace("%2", str(n_out))
        )
        self.links_list.clear()
        if data is None:
            return
        for rel, line in data.links_in:
            item = QListWidgetItem(f"← {rel}:{line}")
            item.setData(Qt.ItemDataRole.UserRole, rel)
            item.setToolTip(self.tr("Referenced by"))
            self.links_list.addItem(item)
        for rel, line in data.links_out:
            item = QListWidgetItem(f"→ {rel}  ({self.tr('line %1').replace('%1', str(line))})")
            item.setData(Qt.ItemDataRole.UserRole, rel)
            item.setToolTip(self.tr("Links to"))
            self.links_list.addItem(item)
        if not (data.links_in or data.links_out):
            self.links_list.addItem(self.tr("Not referenced by anything · links to no other document"))

    def _show_links(self, shown: bool) -> None:
        self.links_list.setVisible(shown)

    def _on_link_item(self, item: QListWidgetItem) -> None:
        rel = item.data(Qt.ItemDataRole.UserRole)
        if rel:
            self.follow(rel)

    # --- back and forward through followed links -----------------------------------------------------

    # The trail holds absolute paths: the workspace's documents and a library folder's can follow each other.

    def _here(self) -> str:
        return os.path.join(self.root, self.rel) if self.rel else ""

    def follow(self, rel: str) -> None:
        """Go to a linked document of the folder shown (a path relative to it); Back (Alt+←) returns here."""
        target = os.path.join(self.root, rel)
        if self.rel and target != self._here():
            self._back.append(self._here())
            self._forward.clear()
        self._go(target)

    def go_back(self) -> None:
        if self._back:
            self._forward.append(self._here())
            self._go(self._back.pop())

    def go_forward(self) -> None:
        if self._forward:
            self._back.append(self._here())
            self._go(self._forward.pop())

    def _go(self, path: str) -> None:
        self._expected = path
        self.documentRequested.emit(path)
        self._update_history_buttons()

    def _update_history_buttons(self) -> None:
        self.back_button.setEnabled(bool(self._back))
        self.forward_button.setEnabled(bool(self._forward))
        self.back_button.setVisible(bool(self._back or self._forward))
        self.forward_button.setVisible(bool(self._back or self._forward))

    # --- actions -------------------------------------------------------------------------------------

    def open_locally(self) -> None:
        path = resolve_inside(self.root, self.rel) if self.root and self.rel else None
        if path is not None and not open_with_system_app(path):
            self.notice.emit(no_app_text(path))  # no app registered for it: said, not silently nothing

    def reveal(self) -> None:
        path = resolve_inside(self.root, self.rel) if self.root and self.rel else None
        if path is not None:
            open_url(QUrl.fromLocalFile(os.path.dirname(path)))

    def set_fullscreen(self, on: bool) -> None:
        if on != self._fullscreen:
            self._fullscreen = on
            self.retranslate()
            self.fullscreenToggled.emit(on)

    @property
    def fullscreen(self) -> bool:
        return self._fullscreen

    def _escape(self) -> None:
        if self._fullscreen:
            self.set_fullscreen(False)
        else:
            self.closed.emit()

    def sizeHint(self) -> QSize:
        return QSize(360, 320)

    # --- language ------------------------------------------------------------------------------------

    def hideEvent(self, event) -> None:
        if self._video_player is not None:
            self._video_player.pause()  # a closed preview stops talking
        super().hideEvent(event)

    def changeEvent(self, event: QEvent) -> None:
        if event.type() == QEvent.Type.LanguageChange:
            self.retranslate()
        elif event.type() == QEvent.Type.PaletteChange:  # light ↔ dark: the icons follow
            self._update_icons()
        super().changeEvent(event)

    def _update_icons(self) -> None:
        palette = self.palette()
        self.open_button.setIcon(tinted_icon("open-external", palette))
        self.copy_button.setIcon(tinted_icon("copy-citation", palette))
        self.full_button.setIcon(tinted_icon("exit-fullscreen" if self._fullscreen else "fullscreen", palette))
        self.close_button.setIcon(tinted_icon("close", palette))
        self.back_button.setIcon(tinted_icon("back", palette))
        self.forward_button.setIcon(tinted_icon("forward", palette))

    def copy_citation(self) -> None:
        """The document's path and its matched passage's lines (and page) on the clipboard, for pasting into a
        conversation or a note: the passage the pane opened on and marked."""
        best = best_passage(self.passages)
        match = None if best is None else {"start_line": best.start_line, "end_line": best.end_line, "page": best.page}
        QGuiApplication.clipboard().setText(citation_text(os.path.join(self.root, self.rel), match))

    def retranslate(self) -> None:
        self._update_icons()
        self.copy_button.setText(self.tr("Copy citation"))  # the accessible name; the button shows its icon
        self.copy_button.setToolTip(self.tr("Copy the path and the matched lines (or page) to the clipboard"))
        self.open_button.setText(self.tr("Open locally"))  # the accessible name; the button shows its icon
        self.open_button.setToolTip(self.tr("Open this document in your default app"))
        self.full_button.setText(self.tr("Exit fullscreen") if self._fullscreen else self.tr("Fullscreen"))
        self.full_button.setToolTip(self.tr("Exit fullscreen (Esc)") if self._fullscreen else self.tr("Read fullscreen"))
        self.close_button.setText(self.tr("Close preview"))
        self.back_button.setText(self.tr("Back"))
        self.back_button.setToolTip(self.tr("Back to the document you followed a link from (Alt+←)"))
        self.forward_button.setText(self.tr("Forward"))
        self.forward_button.setToolTip(self.tr("Forward again (Alt+→)"))
        self.close_button.setToolTip(self.tr("Close preview"))
        self.path_button.setAccessibleName(self.tr("Open in file manager"))
        self.prev_page.setToolTip(self.tr("Previous page"))
        self.next_page.setToolTip(self.tr("Next page"))
        self._update_links()
        if self.pages:
            self._update_page_bar()
