"""The indexer service: one worker object in a QThread owns the workspace, its index and every PyMuPDF call.

The GUI thread talks to it only through queued signals and never waits for it. Rankings are computed on the
worker's thread too (the index is not shared between threads) and handed back as typed results (`core/view.py`).
"""

from __future__ import annotations

import os
import time
from dataclasses import dataclass
from typing import cast

from PySide6.QtCore import QObject, QTimer, Signal, Slot
from PySide6.QtGui import QImage

from ..core.building import BuildCancelled, open_persistent_built_apart
from ..core.heap import release_heap, settle_heap
from ..core.index.boundary import os_path
from ..core.index.pins import Pins
from ..core.index.preview_content import render_pdf_page
from ..core.index.store import SNAPSHOT_DELAY_S, WATCH_LEASE_S
from ..core.library import Source, labels_for, open_folder
from ..core.workspace import RankInput, RefreshReport, Workspace
from .watcher import MODE_WATCHING, WorkspaceWatcher
from .worker import Worker, WorkerThread, error_text, guarded

FREEZE_EVERY = 1000  # files indexed between two heap freezes while a workspace is first indexed
PROGRESS_EVERY_S = 0.1  # the window hears of indexing progress at most this often (and of the last file)


SNAPSHOT_DELAY_MS = int(SNAPSHOT_DELAY_S * 1000)  # after live updates, save the fast-start snapshot at most this often


FAILED_CANCELLED = "cancelled"  # indexing was cancelled
FAILED_OPEN = "open"  # the workspace could not be opened (detail: why)


class IndexingCancelled(Exception):
    pass


@dataclass(frozen=True)
class LibraryFolder:
    """A library folder as the window hears of it: its label, real path, and why it cannot answer ('' if it can)."""

    label: str
    root: str
    problem: str = ""


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
    scope: str = "workspace"  # workspace | library | all: what the list ranks over
    needle: str = ""  # the window's filter: the documents listed are those it matches (before `limit`)


class IndexWorker(Worker):
    progress = Signal(int, int, str)  # done, total, current file
    # Objects travel through the mailbox; signals carry its keys (see mailbox.py).
    opened = Signal(int)  # RefreshReport of the open (load + reconcile)
    documentsChanged = Signal(int)  # RefreshReport of a live update
    ranked = Signal(int, int)  # token, ViewResult
    previewReady = Signal(int, int)  # token, PreviewData
    pageRendered = Signal(int, int)  # token, (rel, page, pages, QImage) or (rel, page, 0, error text)
    failed = Signal(str, str)  # a code (FAILED_*), its detail
    libraryChanged = Signal(int)  # the library folders (list of LibraryFolder) after an open or a change

    def __init__(self, root: str, persistent: bool = True) -> None:
        super().__init__()
        self.root = root
        self.persistent = persistent
        self.workspace: Workspace | None = None
        self.library: dict[str, Source] = {}  # the library folders, by real path, in the settings' order
        self._save_timer: QTimer | None = None
        self._watched = False  # a watcher feeds this worker every change: commands may trust the index
        self._walk_began = 0.0  # when the last walk of the workspace began (time.monotonic())
        self._library_walk_began: dict[str, float] = {}  # the same for each library folder, by real path
        # Directories came or went (the watcher's rescanPending, counted by the service): the index is behind until
        # the walk asked for after them is done, and does not vouch for itself meanwhile.
        self._rescans_due = 0
        self._rescans_walked = 0
        self._lease_timer: QTimer | None = None
        self._progress_told = 0.0  # when the window last heard of the progress (time.monotonic)
        self.newest_rank = 0  # the token of the newest ranking asked for (set by the service's thread)

    def _progress(self, done: int, total: int, rel: str) -> None:
        if self.cancel.is_set():
            raise IndexingCancelled
        if done and done % FREEZE_EVERY == 0:
            settle_heap()
        # Each progress signal runs a slot on the GUI thread, which must take the GIL from this thread for it:
        # one per file (100,000 in a first index) kept the window waiting on the GIL the whole build.
        now = time.monotonic()
        if done >= total or now - self._progress_told >= PROGRESS_EVERY_S:
            self._progress_told = now
            self.progress.emit(done, total, rel)

    @Slot()
    def open(self) -> None:
        self._walk_began = time.monotonic()
        settle_heap()  # modules, widgets and settings: alive for good, never worth another full walk
        try:
            if self.persistent:
                # A first build runs in a builder process (core/building.py): on this thread, its GIL-bound
                # stretches (the postings, the vocabulary, the SQLite batches) stalled the window by up to 90 ms
                # at 100,000 documents. Live updates stay here: they are short.
                self.workspace = open_persistent_built_apart(self.root, self._progress, self.cancel.is_set)
            else:
                self.workspace = Workspace.open(self.root, self._progress)
        except (IndexingCancelled, BuildCancelled):
            self.failed.emit(FAILED_CANCELLED, "")
            return
        except Exception as exc:  # reported, never raised into Qt's event loop
            self.failed.emit(FAILED_OPEN, error_text(exc))
            return
        # Made here, not at the first lookup by rel, which can come from the GUI thread (the preview asks whether a
        # document is indexed).
        self.workspace.index.by_rel.prepare()
        if self.workspace.store is not None:
            self.workspace.store.bound_page_cache()  # (the window reads rows one by one from here on)
        settle_heap()
        self._update_lease()
        self.opened.emit(self.mailbox.post(self.workspace.last_refresh))

    @Slot(int, float)
    @guarded
    def setWatched(self, watched: int, since: float) -> None:
        """A watcher feeds this index every change from `since` on (time.monotonic()), or none (0)."""
        self._watched = bool(watched)
        if self._watched and self.workspace is not None and self._walk_began < since:
            # The watches came into place after the last walk began (at open the two run side by side): a file
            # written into a folder the walk had passed before its watch was there is in neither. One more walk,
            # before the index vouches for itself.
            self.refresh()
        self._update_lease()

    def _update_lease(self) -> None:
        """Hold the index's watch lease while the index is open and a watcher feeds it (see IndexStore)."""
        store = self.workspace.store if self.workspace is not None else None
        if store is None:
            return
        if not self._watched or self._rescans_walked < self._rescans_due:
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
        self._walk()

    def _walk(self, folders: list[str] | None = None) -> bool:
        """Walk the workspace (only `folders`, workspace-relative, when given without '') and apply what changed;
        False when it did not (no workspace, cancelled)."""
        if self.workspace is None:
            return False
        if not folders or "" in folders:
            folders = None
            self._walk_began = time.monotonic()  # (the walk `setWatched` asks about: of every folder)
        try:
            report = self.workspace.refresh(self._progress, folders=folders)
        except IndexingCancelled:
            self.failed.emit(FAILED_CANCELLED, "")
            return False
        self._after_change(report)
        return True

    @Slot(int)
    @guarded
    def fallBehind(self, due: int) -> None:
        """Directories came or went (the `due`th time): until the walk asked for after them is done, a command
        trusting the index would miss what they hold (a folder of 20,000 files moved in: a trusting `rank` 1.5 s
        later found 2,200), so the lease goes first (as the MCP server's does)."""
        self._rescans_due = max(self._rescans_due, due)
        self._update_lease()

    @Slot(int, list)
    @guarded
    def catchUp(self, due: int, folders: list[str]) -> None:
        """The watches follow the folders again: walk those that came, went or moved (the whole workspace for ''),
        then vouch for the index again up to the `due`th change."""
        if self._walk(folders):
            self._rescans_walked = max(self._rescans_walked, due)
            self._update_lease()

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
        for source in self.library.values():
            if source.workspace is not None:
                source.workspace.save()

    # --- library folders: opened on this thread like the workspace (a first build in a builder process) ---

    @Slot(list)
    @guarded
    def setLibrary(self, folders: list[str]) -> None:
        """Open the folders not open yet (each on its persistent index, brought up to date), close the ones
        gone from the list, and say what the library is now."""
        wanted = {os.path.realpath(folder): label for label, folder in zip(labels_for(folders), folders)}
        for real in [r for r in self.library if r not in wanted]:
            gone = self.library.pop(real)
            if gone.workspace is not None:
                gone.workspace.save()
                gone.workspace.close()
        opened: dict[str, Source] = {}
        for real, label in wanted.items():
            source = self.library.get(real)
            if source is None or source.workspace is None:
                self._library_walk_began[real] = time.monotonic()
                try:
                    # A large folder's first build runs in a builder process, as the workspace's does.
                    source = open_folder(label, real, progress=self._progress, opener=self._open_built_apart)
                except (IndexingCancelled, BuildCancelled):
                    return
                except Exception as exc:  # noqa: BLE001 - one folder's failure, shown beside it: the others open
                    source = Source(label, real)
                    source.problem = f"cannot index it: {error_text(exc)}"
            source.label = label
            opened[real] = source
        self.library = opened
        self._library_changed()

    def _open_built_apart(self, folder: str, progress) -> Workspace:
        return open_persistent_built_apart(folder, progress, self.cancel.is_set)

    @Slot(str, list)
    @guarded
    def applyLibraryPaths(self, real: str, rels: list[str]) -> None:
        source = self.library.get(real)
        if source is None or source.workspace is None:
            return
        if source.workspace.apply_changes(rels).changes:
            self._library_changed()

    @Slot(str, float)
    @guarded
    def libraryWatched(self, real: str, since: float) -> None:
        """The library folder at `real` is watched from `since` on (time.monotonic()): when its last walk began
        before, a file written into a folder the walk had passed before its watch was there is in neither; walk
        it once more (as `setWatched` does for the workspace)."""
        if self._library_walk_began.get(real, since) < since:
            self.refreshLibrary(real, [""])

    @Slot(str, list)
    @guarded
    def refreshLibrary(self, real: str, folders: list[str]) -> None:
        """Walk the library folder at `real`: only its `folders` that came, went or moved, all of it for ''."""
        source = self.library.get(real)
        if source is None or source.workspace is None:
            return
        walked: list[str] | None = folders if folders and "" not in folders else None
        if walked is None:
            self._library_walk_began[real] = time.monotonic()
        try:
            report = source.workspace.refresh(self._progress, folders=walked)
        except IndexingCancelled:
            return
        if report.changes:
            self._library_changed()

    def _library_changed(self) -> None:
        folders = [LibraryFolder(s.label, real, s.problem) for real, s in self.library.items()]
        self.libraryChanged.emit(self.mailbox.post(folders))
        if self._save_timer is None:
            self._save_timer = QTimer(self)
            self._save_timer.setSingleShot(True)
            self._save_timer.timeout.connect(self._save)
        if not self._save_timer.isActive():
            self._save_timer.start(SNAPSHOT_DELAY_MS)

    def _opened_folder(self, root: str) -> Workspace | None:
        """The workspace, or the library folder at `root` ('' or the workspace's root: the workspace)."""
        if not root or (self.workspace is not None and root == self.workspace.root):
            return self.workspace
        source = self.library.get(root)
        return source.workspace if source is not None else None

    @Slot(object)
    @guarded
    def rank(self, job: RankJob) -> None:
        if self.workspace is None:
            return
        if job.token < self.newest_rank:
            # A newer request waits behind this one, and only the newest answer is shown: ranking every request
            # in turn fell further behind a conversation that moves faster than one ranking (at 100,000
            # documents), and the window never showed any of them.
            return
        now = job.now_ms if job.now_ms is not None else int(time.time() * 1000)
        pins = Pins.load(self.workspace.root)  # read per ranking: a pin or hide made a moment ago counts now
        library = [(s.label, s.workspace, Pins.load(s.workspace.root)) for s in self.library.values()
                   if s.workspace is not None] if job.scope != "workspace" else []
        # The context pack's tiers are the workspace's own: with the library beside it the list is one ranking,
        # so a library document can lead it.
        result = self.workspace.view(job.request, now_ms=now, kind=job.kind, sort=job.sort,
                                     with_context=job.with_context and not library, limit=job.limit, pins=pins,
                                     library=library, own=job.scope != "library", needle=job.needle)
        self.ranked.emit(job.token, self.mailbox.post(result))

    @Slot(int, str, str)
    @guarded
    def preview(self, token: int, rel: str, root: str) -> None:
        folder = self._opened_folder(root)
        if folder is None:
            raise RuntimeError("the folder is not open")  # the pane must not wait for an answer
        self.previewReady.emit(token, self.mailbox.post(folder.preview(rel)))

    @Slot(int, str, int, int, list, str)
    @guarded
    def renderPage(self, token: int, rel: str, page: int, width: int, terms: list, root: str) -> None:
        folder = self._opened_folder(root)
        if folder is None:
            raise RuntimeError("the folder is not open")
        try:
            root = folder.root
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
        for source in self.library.values():
            if source.workspace is not None:
                source.workspace.close()
        self.library = {}
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
    libraryChanged = Signal(object)  # list of LibraryFolder

    _applyPaths = Signal(list)
    _setWatched = Signal(int, float)  # int, not bool: a bool crossing threads trips a PySide refcount bug
    _preview = Signal(int, str, str)
    _renderPage = Signal(int, str, int, int, list, str)
    _refresh = Signal()
    _rank = Signal(object)
    _setLibrary = Signal(list)
    _applyLibraryPaths = Signal(str, list)
    _refreshLibrary = Signal(str, list)
    _fallBehind = Signal(int)
    _catchUp = Signal(int, list)
    _libraryWatched = Signal(str, float)

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
        self.relay(worker.libraryChanged, self.libraryChanged)
        self._setLibrary.connect(worker.setLibrary)
        self._applyLibraryPaths.connect(worker.applyLibraryPaths)
        self._refreshLibrary.connect(worker.refreshLibrary)
        self._libraryWatched.connect(worker.libraryWatched)
        self._applyPaths.connect(worker.applyPaths)
        self._setWatched.connect(worker.setWatched)
        self._refresh.connect(worker.refresh)
        self._fallBehind.connect(worker.fallBehind)
        self._catchUp.connect(worker.catchUp)
        self._rescans = 0  # the directory changes heard of (see IndexWorker.fallBehind)
        self._rank.connect(worker.rank)
        self._preview.connect(worker.preview)
        self._renderPage.connect(worker.renderPage)

    def set_watched(self, watched: bool, since: float = 0.0) -> None:
        """Whether a watcher feeds this index every change, from `since` on (time.monotonic()): the index then
        vouches for itself to commands."""
        self._setWatched.emit(int(watched), since)

    def follow(self, watcher: WorkspaceWatcher) -> None:
        """Apply the changes `watcher` reports, walk when it asks, and vouch for the index while the system's
        notifications feed it and no directory change waits for its walk. (Polled, a change is seen up to
        POLL_INTERVAL_S later: a command trusting the index 1.5 s after a write missed it. As the MCP server.)"""
        watcher.pathsChanged.connect(self.apply_paths)
        watcher.rescanPending.connect(self._fall_behind)
        # (The walk asked for covers the folders of the directory changes heard of until it was asked for, not
        # those heard of since: a folder walked alone vouched for one that came a moment later, not walked yet.)
        watcher.rescanNeeded.connect(lambda folders: self._catch_up(folders, watcher.rescans_after))
        watcher.modeChanged.connect(
            lambda mode, _detail: self.set_watched(mode == MODE_WATCHING, watcher.watching_since))

    def _fall_behind(self) -> None:
        self._rescans += 1
        self._fallBehind.emit(self._rescans)

    def _catch_up(self, folders: list[str], later: int = 0) -> None:
        self._catchUp.emit(self._rescans - later, list(folders))

    def apply_paths(self, rels: list[str]) -> None:
        self._applyPaths.emit(list(rels))

    def refresh(self) -> None:
        self._refresh.emit()

    def rank(self, request: RankInput, **options) -> int:
        """Queue a ranking; the answer arrives on `ranked` with the returned token. It supersedes every ranking
        asked for before: one of them that has not started yet is never computed (and has no answer)."""
        token = self.new_token()
        cast(IndexWorker, self._worker).newest_rank = token  # an int assignment: read by the worker as it is
        self._rank.emit(RankJob(token, request, **options))
        return token

    def preview(self, rel: str, root: str = "") -> int:
        """Queue reading a document (of the library folder at `root`; '': the workspace's) for the preview pane;
        the answer arrives on `previewReady`."""
        token = self.new_token()
        self._preview.emit(token, rel, root)
        return token

    def render_page(self, rel: str, page: int, width: int, terms: tuple[str, ...] = (), root: str = "") -> int:
        """Queue rendering a PDF page (PyMuPDF stays on this thread), `terms` highlighted; the image arrives on
        `pageRendered`."""
        token = self.new_token()
        self._renderPage.emit(token, rel, page, width, list(terms), root)
        return token

    def set_library(self, folders: list[str]) -> None:
        """Open (index) the library folders on the worker; `libraryChanged` says when they are ready."""
        self._setLibrary.emit(list(folders))

    def apply_library_paths(self, real: str, rels: list[str]) -> None:
        self._applyLibraryPaths.emit(real, list(rels))

    def refresh_library(self, real: str, folders: list[str] | None = None) -> None:
        """Walk the library folder at `real` (only `folders` of it, workspace-relative, when given)."""
        self._refreshLibrary.emit(real, list(folders) if folders else [""])

    def library_watched(self, real: str, since: float) -> None:
        """The library folder at `real` is watched from `since` on (time.monotonic()): walked once more if its
        last walk began before."""
        self._libraryWatched.emit(real, since)
