"""The indexer service: one worker object in a QThread owns the workspace, its index and every PyMuPDF call.

The GUI thread talks to it only through queued signals and never waits for it. Rankings are computed on the
worker's thread too (the index is not shared between threads) and handed back as plain payloads.
"""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass

from PySide6.QtCore import QObject, QThread, QTimer, Signal, Slot
from PySide6.QtGui import QImage

from ..core.heap import release_heap, settle_heap
from ..core.index.boundary import os_path
from ..core.index.preview_content import render_pdf_page
from ..core.output.payloads import view_payload
from ..core.workspace import RankInput, RefreshReport, Workspace
from .mailbox import Mailbox

FREEZE_EVERY = 1000  # files indexed between two heap freezes while a workspace is first indexed


SNAPSHOT_DELAY_MS = 15_000  # after live updates, save the fast-start snapshot at most this often


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


class IndexWorker(QObject):
    progress = Signal(int, int, str)  # done, total, current file
    # Objects travel through the mailbox; signals carry its keys (see mailbox.py).
    opened = Signal(int)  # RefreshReport of the open (load + reconcile)
    documentsChanged = Signal(int)  # RefreshReport of a live update
    fileStatuses = Signal(int)  # [(rel, state, reason)] for the files just (re)examined
    ranked = Signal(int, int)  # token, {"rank": rank payload, "context": context payload or None}
    previewReady = Signal(int, int)  # token, PreviewData
    pageRendered = Signal(int, int)  # token, (rel, page, pages, QImage) or (rel, page, 0, error text)
    failed = Signal(str)
    stopped = Signal()

    def __init__(self, root: str, cancel: threading.Event, mailbox: Mailbox, persistent: bool = True) -> None:
        super().__init__()
        self.mailbox = mailbox
        self.root = root
        self.cancel = cancel
        self.persistent = persistent
        self.workspace: Workspace | None = None
        self._save_timer: QTimer | None = None

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
            self.failed.emit("indexing was cancelled")
            return
        except Exception as exc:  # reported, never raised into Qt's event loop
            self.failed.emit(f"could not open the workspace: {exc}")
            return
        settle_heap()
        self._emit_statuses(list(self.workspace.statuses))
        self.opened.emit(self.mailbox.post(self.workspace.last_refresh))

    @Slot(list)
    def applyPaths(self, rels: list[str]) -> None:
        if self.workspace is None:
            return
        self._after_change(self.workspace.apply_changes(rels))

    @Slot()
    def refresh(self) -> None:
        if self.workspace is None:
            return
        try:
            report = self.workspace.refresh(self._progress)
        except IndexingCancelled:
            self.failed.emit("indexing was cancelled")
            return
        self._after_change(report)

    def _after_change(self, report: RefreshReport) -> None:
        if not report.changes:
            return
        settle_heap()
        self._emit_statuses(report.paths)  # only the files this pass actually re-examined
        self.documentsChanged.emit(self.mailbox.post(report))
        if self._save_timer is None:  # created here so it lives on this thread
            self._save_timer = QTimer(self)
            self._save_timer.setSingleShot(True)
            self._save_timer.timeout.connect(self._save)
        if not self._save_timer.isActive():
            self._save_timer.start(SNAPSHOT_DELAY_MS)

    def _emit_statuses(self, rels: list[str]) -> None:
        assert self.workspace is not None
        statuses = self.workspace.statuses
        self.fileStatuses.emit(self.mailbox.post(
            [(rel, statuses[rel].state, statuses[rel].reason) if rel in statuses else (rel, "removed", "") for rel in rels]
        ))

    @Slot()
    def _save(self) -> None:
        if self.workspace is not None:
            self.workspace.save()

    @Slot(object)
    def rank(self, job: RankJob) -> None:
        if self.workspace is None:
            return
        now = job.now_ms if job.now_ms is not None else int(time.time() * 1000)
        payload = view_payload(self.workspace, job.request, now_ms=now, kind=job.kind, sort=job.sort,
                               with_context=job.with_context, limit=job.limit)
        self.ranked.emit(job.token, self.mailbox.post(payload))

    @Slot(int, str)
    def preview(self, token: int, rel: str) -> None:
        if self.workspace is not None:
            self.previewReady.emit(token, self.mailbox.post(self.workspace.preview(rel)))

    @Slot(int, str, int, int)
    def renderPage(self, token: int, rel: str, page: int, width: int, terms: list) -> None:
        if self.workspace is None:
            return
        try:
            root = self.workspace.root
            rendered = render_pdf_page(os_path(root, rel), rel, page, width, root=root, terms=tuple(terms))
        except Exception as exc:  # damaged or encrypted PDFs are reported in the pane, never raised
            self.pageRendered.emit(token, self.mailbox.post((rel, page, 0, str(exc))))
            return
        image = QImage(rendered.samples, rendered.width, rendered.height, rendered.stride, QImage.Format.Format_RGB888)
        self.pageRendered.emit(token, self.mailbox.post((rel, rendered.page, rendered.pages, image.copy())))

    @Slot()
    def shutdown(self) -> None:
        if self._save_timer is not None and self._save_timer.isActive():
            self._save_timer.stop()
            self._save()
        if self.workspace is not None:
            self.workspace.close()
            self.workspace = None
            release_heap()
        self.stopped.emit()
        QThread.currentThread().quit()


class IndexerService(QObject):
    """Owns the worker thread; every method returns at once."""

    progress = Signal(int, int, str)
    opened = Signal(object)
    documentsChanged = Signal(object)
    fileStatuses = Signal(object)
    ranked = Signal(int, object)
    previewReady = Signal(int, object)
    pageRendered = Signal(int, object)
    failed = Signal(str)

    _applyPaths = Signal(list)
    _preview = Signal(int, str)
    _renderPage = Signal(int, str, int, int, list)
    _refresh = Signal()
    _rank = Signal(object)
    _shutdown = Signal()

    def __init__(self, root: str, persistent: bool = True, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._cancel = threading.Event()
        self._thread = QThread()
        self._thread.setObjectName("knit-indexer")
        self._mailbox = Mailbox()
        self._worker = IndexWorker(root, self._cancel, self._mailbox, persistent)
        self._worker.moveToThread(self._thread)
        self._thread.started.connect(self._worker.open)
        take = self._mailbox.take
        self._worker.progress.connect(self.progress)
        self._worker.failed.connect(self.failed)
        self._worker.opened.connect(lambda key: self.opened.emit(take(key)))
        self._worker.documentsChanged.connect(lambda key: self.documentsChanged.emit(take(key)))
        self._worker.fileStatuses.connect(lambda key: self.fileStatuses.emit(take(key)))
        self._worker.ranked.connect(lambda token, key: self.ranked.emit(token, take(key)))
        self._applyPaths.connect(self._worker.applyPaths)
        self._refresh.connect(self._worker.refresh)
        self._rank.connect(self._worker.rank)
        self._worker.previewReady.connect(lambda token, key: self.previewReady.emit(token, take(key)))
        self._worker.pageRendered.connect(lambda token, key: self.pageRendered.emit(token, take(key)))
        self._preview.connect(self._worker.preview)
        self._renderPage.connect(self._worker.renderPage)
        self._shutdown.connect(self._worker.shutdown)
        self._next_token = 0

    def start(self) -> None:
        self._thread.start()

    def apply_paths(self, rels: list[str]) -> None:
        self._applyPaths.emit(list(rels))

    def refresh(self) -> None:
        self._refresh.emit()

    def rank(self, request: RankInput, **options) -> int:
        """Queue a ranking; the answer arrives on `ranked` with the returned token."""
        self._next_token += 1
        self._rank.emit(RankJob(self._next_token, request, **options))
        return self._next_token

    def preview(self, rel: str) -> int:
        """Queue reading a document for the preview pane; the answer arrives on `previewReady`."""
        self._next_token += 1
        self._preview.emit(self._next_token, rel)
        return self._next_token

    def render_page(self, rel: str, page: int, width: int, terms: tuple[str, ...] = ()) -> int:
        """Queue rendering a PDF page (PyMuPDF stays on this thread), `terms` highlighted; the image arrives on
        `pageRendered`."""
        self._next_token += 1
        self._renderPage.emit(self._next_token, rel, page, width, list(terms))
        return self._next_token

    def cancel(self) -> None:
        self._cancel.set()

    def retire(self) -> None:
        """Cancel, save and end the thread without waiting; the service deletes itself when the thread ends."""
        if not self._thread.isRunning():
            self.deleteLater()
            return
        self._cancel.set()
        self._thread.finished.connect(self.deleteLater)
        self._shutdown.emit()

    def is_running(self) -> bool:
        return self._thread.isRunning()

    def wait(self, timeout_ms: int = 10_000) -> bool:
        """Block until the thread has ended (application exit only)."""
        return self._thread.wait(timeout_ms)

    def stop(self, timeout_ms: int = 10_000) -> bool:
        """Cancel any indexing, save, and end the thread (waits: for application exit only)."""
        if not self._thread.isRunning():
            return True
        self._cancel.set()
        self._shutdown.emit()
        return self._thread.wait(timeout_ms)
