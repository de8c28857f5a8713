"""The indexer service: one worker object in a QThread owns the workspace, its index and every PyMuPDF call.

The GUI thread talks to it only through queued signals and never waits for it. Rankings are computed on the
worker's thread too (the index is not shared between threads) and handed back as typed results (`core/view.py`).
"""

from __future__ import annotations

import time
from dataclasses import dataclass

from PySide6.QtCore import QObject, QTimer, Signal, Slot
from PySide6.QtGui import QImage

from ..core.heap import release_heap, settle_heap
from ..core.index.boundary import os_path
from ..core.index.pins import Pins
from ..core.index.preview_content import render_pdf_page
from ..core.index.store import WATCH_LEASE_S
from ..core.workspace import RankInput, RefreshReport, Workspace
from .worker import Worker, WorkerThread, error_text, guarded

FREEZE_EVERY = 1000  # files indexed between two heap freezes while a workspace is first indexed


SNAPSHOT_DELAY_MS = 15_000  # after live updates, save the fast-start snapshot at most this often


FAILED_CANCELLED = "cancelled"  # indexing was cancelled
FAILED_OPEN = "open"  # the workspace could not be opened (detail: why)


class IndexingCancelled(Exception):
    pass


@dataclass(frozen=True)
class RankJob:
    """One ranking request; `token` comes back with the answer so callers can drop stale ones."""

    token: int
    request: RankInput
    now_ms: int | None = None
    kind: str = "doc"
    sort: str = "relevance"
    limit: int | None = None
    with_context: bool = False


class IndexWorker(Worker):
    progress = Signal(int, int, str)  # done, total, current file
    # Objects travel through the mailbox; signals carry its keys (see mailbox.py).
    opened = Signal(int)  # RefreshReport of the open (load + reconcile)
    documentsChanged = Signal(int)  # RefreshReport of a live update
    ranked = Signal(int, int)  # token, ViewResult
    previewReady = Signal(int, int)  # token, PreviewData
    pageRendered = Signal(int, int)  # token, (rel, page, pages, QImage) or (rel, page, 0, error text)
    failed = Signal(str, str)  # a code (FAILED_*), its detail

    def __init__(self, root: str, persistent: bool = True) -> None:
        super().__init__()
        self.root = root
        self.persistent = persistent
        self.workspace: Workspace | None = None
        self._save_timer: QTimer | None = None
        self._watched = False  # a watcher feeds this worker every change: commands may trust the index
        self._lease_timer: QTimer | None = None

    def _progress(self, done: int, total: int, rel: str) -> None:
        if self.cancel.is_set():
            raise IndexingCancelled
        if done and done % FREEZE_EVERY == 0:
            settle_heap()
        self.progress.emit(done, total, rel)

    @Slot()
    def open(self) -> None:
        settle_heap()  # modules, widgets and settings: alive for good, never worth another full walk
        try:
            opener = Workspace.open_persistent if self.persistent else Workspace.open
            self.workspace = opener(self.root, self._progress)
        except IndexingCancelled:
            self.failed.emit(FAILED_CANCELLED, "")
            return
        except Exception as exc:  # reported, never raised into Qt's event loop
            self.failed.emit(FAILED_OPEN, error_text(exc))
            return
        settle_heap()
        self._update_lease()
        self.opened.emit(self.mailbox.post(self.workspace.last_refresh))

    @Slot(int)
    @guarded
    def setWatched(self, watched: int) -> None:
        self._watched = bool(watched)
        self._update_lease()

    def _update_lease(self) -> None:
        """Hold the index's watch lease while the index is open and a watcher feeds it (see IndexStore)."""
        store = self.workspace.store if self.workspace is not None else None
        if store is None:
            return
        if not self._watched:
            if self._lease_timer is not None:
                self._lease_timer.stop()
            store.release_watch_lease()
            return
        if self._lease_timer is None:  # created here so it lives on this thread
            self._lease_timer = QTimer(self)
            self._lease_timer.setInterval(int(WATCH_LEASE_S * 1000 / 3))
            self._lease_timer.timeout.connect(self._renew_lease)
        self._renew_lease()
        self._lease_timer.start()

    @Slot()
    @guarded
    def _renew_lease(self) -> None:
        if self.workspace is not None and self.workspace.store is not None:
            self.workspace.store.hold_watch_lease()

    @Slot(list)
    @guarded
    def applyPaths(self, rels: list[str]) -> None:
        if self.workspace is None:
            return
        self._after_change(self.workspace.apply_changes(rels))

    @Slot()
    @guarded
    def refresh(self) -> None:
        if self.workspace is None:
            return
        try:
            report = self.workspace.refresh(self._progress)
        except IndexingCancelled:
            self.failed.emit(FAILED_CANCELLED, "")
            return
        self._after_change(report)

    def _after_change(self, report: RefreshReport) -> None:
        if not report.changes:
            return
        self.documentsChanged.emit(self.mailbox.post(report))
        if self._save_timer is None:  # created here so it lives on this thread
            self._save_timer = QTimer(self)
            self._save_timer.setSingleShot(True)
            self._save_timer.timeout.connect(self._save)
        if not self._save_timer.isActive():
            self._save_timer.start(SNAPSHOT_DELAY_MS)

    @Slot()
    @guarded
    def _save(self) -> None:
        if self.workspace is not None:
            self.workspace.save()

    @Slot(object)
    @guarded
    def rank(self, job: RankJob) -> None:
        if self.workspace is None:
            return
        now = job.now_ms if job.now_ms is not None else int(time.time() * 1000)
        pins = Pins.load(self.workspace.root)  # read per ranking: a pin or hide made a moment ago counts now
        result = self.workspace.view(job.request, now_ms=now, kind=job.kind, sort=job.sort,
                                     with_context=job.with_context, limit=job.limit, pins=pins)
        self.ranked.emit(job.token, self.mailbox.post(result))

    @Slot(int, str)
    @guarded
    def preview(self, token: int, rel: str) -> None:
        if self.workspace is None:
            raise RuntimeError("the workspace is not open")  # the pane must not wait for an answer
        self.previewReady.emit(token, self.mailbox.post(self.workspace.preview(rel)))

    @Slot(int, str, int, int, list)
    @guarded
    def renderPage(self, token: int, rel: str, page: int, width: int, terms: list) -> None:
        if self.workspace is None:
            raise RuntimeError("the workspace is not open")
        try:
            root = self.workspace.root
            rendered = render_pdf_page(os_path(root, rel), rel, page, width, root=root, terms=tuple(terms))
        except Exception as exc:  # damaged or encrypted PDFs are reported in the pane, never raised
            self.pageRendered.emit(token, self.mailbox.post((rel, page, 0, str(exc))))
            return
        image = QImage(rendered.samples, rendered.width, rendered.height, rendered.stride, QImage.Format.Format_RGB888)
        self.pageRendered.emit(token, self.mailbox.post((rel, rendered.page, rendered.pages, image.copy())))

    def on_shutdown(self) -> None:
        if self._lease_timer is not None:
            self._lease_timer.stop()
        if self.workspace is not None and self.workspace.store is not None:
            self.workspace.store.release_watch_lease()
        if self._save_timer is not None and self._save_timer.isActive():
            self._save_timer.stop()
            self._save()
        if self.workspace is not None:
            self.workspace.close()
            self.workspace = None
            release_heap()


class IndexerService(WorkerThread):
    """Owns the worker thread; every method returns at once."""

    progress = Signal(int, int, str)
    opened = Signal(object)
    documentsChanged = Signal(object)
    ranked = Signal(int, object)
    previewReady = Signal(int, object)
    pageRendered = Signal(int, object)
    failed = Signal(str, str)  # code (FAILED_*), detail

    _applyPaths = Signal(list)
    _setWatched = Signal(int)  # int, not bool: a bool crossing threads trips a PySide refcount bug
    _preview = Signal(int, str)
    _renderPage = Signal(int, str, int, int, list)
    _refresh = Signal()
    _rank = Signal(object)

    def __init__(self, root: str, persistent: bool = True, parent: QObject | None = None) -> None:
        worker = IndexWorker(root, persistent)
        super().__init__(worker, "knit-indexer", parent)
        self._thread.started.connect(worker.open)
        worker.progress.connect(self.progress)
        worker.failed.connect(self.failed)
        self.relay(worker.opened, self.opened)
        self.relay(worker.documentsChanged, self.documentsChanged)
        self.relay(worker.ranked, self.ranked)
        self.relay(worker.previewReady, self.previewReady)
        self.relay(worker.pageRendered, self.pageRendered)
        self._applyPaths.connect(worker.applyPaths)
        self._setWatched.connect(worker.setWatched)
        self._refresh.connect(worker.refresh)
        self._rank.connect(worker.rank)
        self._preview.connect(worker.preview)
        self._renderPage.connect(worker.renderPage)

    def set_watched(self, watched: bool) -> None:
        """Whether a watcher feeds this index every change (the index then vouches for itself to commands)."""
        self._setWatched.emit(int(watched))

    def apply_paths(self, rels: list[str]) -> None:
        self._applyPaths.emit(list(rels))

    def refresh(self) -> None:
        self._refresh.emit()

    def rank(self, request: RankInput, **options) -> int:
        """Queue a ranking; the answer arrives on `ranked` with the returned token."""
        token = self.new_token()
        self._rank.emit(RankJob(token, request, **options))
        return token

    def preview(self, rel: str) -> int:
        """Queue reading a document for the preview pane; the answer arrives on `previewReady`."""
        token = self.new_token()
        self._preview.emit(token, rel)
        return token

    def render_page(self, rel: str, page: int, width: int, terms: tuple[str, ...] = ()) -> int:
        """Queue rendering a PDF page (PyMuPDF stays on this thread), `terms` highlighted; the image arrives on
        `pageRendered`."""
        token = self.new_token()
        self._renderPage.emit(token, rel, page, width, list(terms))
        return token
