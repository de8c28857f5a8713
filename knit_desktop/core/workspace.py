"""A workspace: its documents extracted and indexed, with a status for every file met.

In memory only (`Workspace.open`) or backed by the persistent index store (`Workspace.open_persistent`), in
which case opening loads the saved index and reconciles it with the disk, re-reading only what changed.
"""

from __future__ import annotations

import contextlib
import os
import sqlite3
import time
import weakref
from collections.abc import Callable, Generator, ItemsView, Iterator, Mapping, Sequence, ValuesView
from dataclasses import dataclass, field
from operator import methodcaller
from typing import TYPE_CHECKING

import numpy as np

from .index.boundary import OUTSIDE_REASON, WorkspaceNotFound, display_rel, links_outside
from .index.documents import BODY_FROM_FILE_KINDS, MEDIA_KINDS, Document, kind_for_name
from .index.links import LinkGraph, LinkResolver, Ref, build_graph
from .index.pins import Pins
from .index.scan import (
    BackgroundScan,
    Candidate,
    FileStatus,
    WorkspaceScan,
    candidate_for,
    holds_at_least,
    scan_workspace,
    top_folders,
)
from .index.search_index import SearchIndex
from .index.store import FileRow, IndexStore, is_damage, postings_damaged
from .paths import index_db_path
from .rank.keywords import Keyword, extract_keywords, query_keywords
from .rank.pinning import pin_pack
from .rank.ranking import Ranking, rank
from .text.tokens import WINDOW_CHARS

if TYPE_CHECKING:
    from .dsh.conversation import Message
    from .index.preparing import (  # (reading files: loaded when a file is (re)indexed)
        FileTask,
        Outcome,
        WorkerPool,
    )
    from .index.preview_content import PreviewData
    from .rank.context_pack import ContextPack
    from .view import SourceRanking, ViewResult

BATCH = 200  # files per store transaction
# From this many files to (re)index, they are prepared in worker processes, one per core (starting them costs
# about half a second; a 20,000-file build on two cores took half the time).
PARALLEL_MIN_FILES = 2000
# Under a time budget the cheap kinds are indexed first: a PDF costs as much as dozens of notes.
_COST = {"md": 0, "txt": 0, "image": 0, "video": 0, "pdf": 1}
Progress = Callable[[int, int, str], None]  # done, total, current file


@dataclass(frozen=True)
class RankInput:
    """What a ranking is asked for: keywords plus the task line (empty for an explicit query)."""

    keywords: list[Keyword]
    task: str = ""

    @classmethod
    def from_query(cls, query: str) -> RankInput:
        # A query is read like the conversation window: only its first WINDOW_CHARS characters count.
        return cls(query_keywords(query[:WINDOW_CHARS]))

    @classmethod
    def from_messages(cls, messages: list[Message]) -> RankInput:
        from .dsh.conversation import conversation_window  # (a query needs no conversation reader)

        window = conversation_window(messages)
        return cls(extract_keywords(window.texts), window.task)


@dataclass
class RefreshReport:
    added: int = 0
    changed: int = 0
    touched: int = 0  # modification time changed, content did not
    removed: int = 0
    unchanged: int = 0
    loaded_from: str = "scan"  # "snapshot" | "rows" | "scan"
    caught_up: int = 0  # files read again at open because their rows were written after the snapshot
    trusted_watcher: bool = False  # the open did not walk: another process keeps the index current
    pending: int = 0  # files still to (re)index when a time budget ran out
    total: int = 0  # files found by the walk
    paths: list[str] = field(default_factory=list)  # the files whose record this pass added, changed or removed

    @property
    def changes(self) -> int:
        return self.added + self.changed + self.touched + self.removed

    def followed_by(self, later: RefreshReport) -> RefreshReport:
        """This pass and a `later` one as one (a build in another process, then the open that loaded it): what
        either changed, and what the later one found and left."""
        changed = self.added + self.changed + self.touched
        return RefreshReport(
            added=self.added + later.added, changed=self.changed + later.changed,
            touched=self.touched + later.touched, removed=self.removed + later.removed,
            unchanged=max(0, later.unchanged - changed), loaded_from=self.loaded_from,
            caught_up=self.caught_up + later.caught_up, pending=later.pending, total=later.total,
            paths=self.paths + later.paths)


def resolve_root(root: str) -> str:
    real = os.path.realpath(os.path.expanduser(root))
    if not os.path.isdir(real):
        raise WorkspaceNotFound(root)
    return real


def has_persistent_index(root: str) -> bool:
    return index_db_path(resolve_root(root)).exists()


class StatusView(Mapping):
    """Every file's status: indexed documents from the index itself, the rest from their rows. A view, so a
    20,000-file workspace does not keep 20,000 status objects that only repeat "indexed"."""

    def __init__(self, workspace: Workspace) -> None:
        self._ws = workspace

    def __getitem__(self, rel: str) -> FileStatus:
        row = self._ws._row(rel)
        if row is None:
            raise KeyError(rel)
        return FileStatus(rel, row.state, row.reason)

    def __iter__(self) -> Iterator[str]:
        yield from self._ws.index.by_rel
        yield from (rel for rel in self._ws._rows if rel not in self._ws.index.by_rel)

    def __len__(self) -> int:
        return len(self._ws.index.by_rel) + sum(1 for rel in self._ws._rows if rel not in self._ws.index.by_rel)

    def items(self) -> ItemsView[str, FileStatus]:
        return _StatusItems(self)

    def values(self) -> ValuesView[FileStatus]:
        return _StatusValues(self)

    def _pairs(self) -> Iterator[tuple[str, FileStatus]]:
        """(rel, status) of every file, in the order of `__iter__`. The documents are read by id, not each looked
        up again by its rel: a lookup by rel checks the rel the index holds (`RelIds`), and listing 100,000 files
        that way (`index --json`) took 0.3 s more."""
        index = self._ws.index
        docs = index.docs
        for i in np.flatnonzero(docs.live()).tolist():
            doc = docs[i]
            assert doc is not None
            yield doc.rel, FileStatus(doc.rel, "indexed", doc.status_note)
        by_rel = index.by_rel
        yield from ((rel, FileStatus(rel, row.state, row.reason)) for rel, row in list(self._ws._rows.items())
                    if rel not in by_rel)


class _StatusItems(ItemsView):
    _mapping: StatusView

    def __iter__(self) -> Iterator[tuple[str, FileStatus]]:
        return self._mapping._pairs()


class _StatusValues(ValuesView):
    _mapping: StatusView

    def __iter__(self) -> Iterator[FileStatus]:
        return (status for _, status in self._mapping._pairs())


@dataclass
class Workspace:
    root: str
    store: IndexStore | None = None
    index: SearchIndex = field(default_factory=SearchIndex)
    refs: dict[str, list[Ref]] = field(default_factory=dict)
    last_refresh: RefreshReport = field(default_factory=RefreshReport)
    _rows: dict[str, FileRow] = field(default_factory=dict)  # files that are not indexed documents
    _snapshot_current: bool = False  # the saved snapshot matches memory: a refresh without changes saves nothing
    _batch_rels: set[str] = field(default_factory=set)  # files written in the open store batch
    _graph: LinkGraph | None = None
    # The files reached through a link, by the file inside the workspace each leads to: a watcher reports a change
    # to that file, never to the links to it (CLAUDE.md -> AGENTS.md kept AGENTS.md's old text until a walk).
    _links_to: dict[str, set[str]] = field(default_factory=dict)
    _graph_version: int = -1
    _resolver: LinkResolver | None = None  # (see graph)
    _resolver_names: tuple[SearchIndex | None, int] = (None, -1)

    @classmethod
    def open(cls, root: str, progress: Progress | None = None, budget_s: float | None = None,
             scan: BackgroundScan | None = None) -> Workspace:
        """Scan and index in memory; nothing is written anywhere. `scan`: the walk, already under way."""
        ws = cls(resolve_root(root))
        ws.refresh(progress, budget_s=budget_s, scan=scan)
        return ws

    @classmethod
    def open_persistent(
        cls, root: str, progress: Progress | None = None, budget_s: float | None = None,
        trust_watcher: bool = False, scan: BackgroundScan | None = None, just_built: bool = False,
    ) -> Workspace:
        """Load the workspace's saved index (creating it on first use) and bring it up to date with the disk.

        With `trust_watcher`, a process that keeps the index current from a file watcher (the window, see
        IndexStore.hold_watch_lease) is trusted and the workspace is not walked (`trusted_watcher` in the report).

        With `budget_s`, indexing stops when the budget is spent (`last_refresh.pending` says how much is left;
        call `refresh` again to go on). A database found damaged while reading is set aside and rebuilt once;
        `notice` says so. `scan`: the walk of the workspace, already under way in another process.

        With `just_built`, the snapshot was saved a moment ago by a builder process that walked and indexed the
        workspace (core/building.py): it is loaded without walking again (what changed since is the watcher's
        to report), unless there is none to load."""
        real = resolve_root(root)
        store = IndexStore(index_db_path(real), real)
        for attempt in (1, 2):
            ws = cls(real, store)
            try:
                ws._load_from_store()
                if trust_watcher and ws.last_refresh.loaded_from == "snapshot" and store.watched_elsewhere():
                    ws.last_refresh.trusted_watcher = True
                    ws.last_refresh.total = len(ws.index) + len(ws._rows)
                    if scan is not None:
                        scan.cancel()
                    return ws
                if just_built and ws.last_refresh.loaded_from == "snapshot":
                    # (Walking 100,000 files again and comparing them held the GIL in stretches of 30 ms.)
                    ws.last_refresh.total = ws.last_refresh.unchanged = len(ws.index) + len(ws._rows)
                    return ws
                ws.refresh(progress, budget_s=budget_s, scan=scan)
                return ws
            except sqlite3.DatabaseError as exc:
                if attempt == 2 or not is_damage(exc):
                    raise
                store.rebuild(str(exc))
        raise AssertionError("unreachable")

    @property
    def notice(self) -> str:
        """One line about the index itself (set aside and rebuilt, read-only), or ''."""
        return self.store.notice if self.store is not None else ""

    def close(self) -> None:
        if self.store is not None:
            self.store.close()

    @property
    def statuses(self) -> StatusView:
        return StatusView(self)

    def _row(self, rel: str) -> FileRow | None:
        doc = self.index.get(rel)
        if doc is not None:
            return FileRow(rel, doc.kind, doc.mtime_ms, doc.size, doc.content_hash, "indexed", doc.status_note)
        return self._rows.get(rel)

    # --- loading and reconciling ---------------------------------------------------------------------

    def _load_from_store(self) -> None:
        assert self.store is not None
        loaded = self.store.load_snapshot()
        if loaded is not None:
            # The snapshot and the rows written since it (by this or another process) make the index.
            self.index, self.refs, since = loaded
            self._rows = self.store.rows(only_problems=True)
            for rel in since:
                self.index.remove(rel)
                self.refs.pop(rel, None)
                stored = self.store.stored_document(rel)
                if stored is not None:
                    self._add_stored(*stored)
            self.last_refresh.loaded_from = "snapshot"
            self.last_refresh.caught_up = len(since)
            self._snapshot_current = not since and not self.index.snapshot_outdated
            return
        self._load_rows()  # no snapshot, or too much written since: rebuild

    def _load_rows(self) -> None:
        assert self.store is not None
        self._rows = self.store.rows(only_problems=True)
        for doc, refs in self.store.stored_documents():
            self._add_stored(doc, refs)
        self.last_refresh.loaded_from = "rows"

    def _add_stored(self, doc: Document, refs: list[Ref]) -> None:
        assert self.store is not None
        self.index.add(doc)
        self.index.swap_document(self.store.stored_copy(doc))  # the text stays in its row (or file) until needed
        if refs:
            self.refs[doc.rel] = refs

    def refresh(self, progress: Progress | None = None, budget_s: float | None = None,
                scan: BackgroundScan | None = None, folders: Sequence[str] | None = None) -> RefreshReport:
        """Walk the workspace and index what is new or changed since the last look; forget what is gone.

        With `budget_s`, stop indexing once that many seconds have passed (cheap, recent files first, so a
        partial index already answers well); `pending` in the report counts what is left for the next call.
        With `scan`, the walk started earlier in another process is taken (if it finished) instead of walking.

        With `folders` (workspace-relative, as a watcher names the folders that came, went or moved), only their
        subtrees are walked and compared: what the index holds below them and the walk did not find is forgotten,
        files elsewhere are left as they are (a watcher reports those one by one). None, or '' among them: the
        whole workspace. The snapshot is then not saved at once, as after `apply_changes` (the caller saves it a
        little later): 20,000 documents took longer to save than the walk of a new folder."""
        deadline = time.monotonic() + budget_s if budget_s is not None else None
        report = RefreshReport(loaded_from=self.last_refresh.loaded_from, caught_up=self.last_refresh.caught_up)
        problems: list[FileStatus] = []
        tops = top_folders(folders) if folders is not None else [""]
        prefixes = tuple(folder + "/" for folder in tops) if tops != [""] else None
        pool = self._early_workers(prefixes is None)
        prepared = None
        try:
            found, known = None, None
            if scan is not None and scan.root == self.root and prefixes is None:
                # The documents' rels are looked up while the walk is still on its way: the lookup's table took
                # 60 ms of a 100,000-file `rank` once the walk was in, and the command had nothing else to do.
                known = self.index.by_rel.bulk_table()
                found = scan.result(problems)
            if found is None:
                # The index's map of rels (which the comparison reads) is built before the walk, not after it:
                # its 100,000 strings then filled the holes the walk's short-lived objects left in Python's memory
                # arenas, and kept every one of those arenas from being given back once the walk was done (28 MB
                # of a 100,000-file workspace held for as long as it stays open).
                self.index.by_rel  # noqa: B018 (built here, see above)
                found = scan_workspace(self.root, problems) if prefixes is None else \
                    scan_workspace(self.root, problems, under=tops)
            self._note_links(found, prefixes is None)
            todo, gone, elsewhere = self._compare(found, prefixes, known)
            del known
            report.total = len(found) + elsewhere
            if deadline is not None:
                todo.sort(key=lambda c: (_COST.get(c.kind, 1), -c.mtime_ms, c.rel))
            report.unchanged = len(found) - len(todo)
            done = 0
            prepared = self._prepared_in_processes(todo, pool)
            for start in range(0, max(len(todo), 1), BATCH):
                if deadline is not None and done and time.monotonic() >= deadline:
                    break  # (the first batch always runs: a slow walk must not stop indexing for good)
                with self._transaction():
                    for i, cand in enumerate(todo[start : start + BATCH], start=start + 1):
                        outcome = self._update(cand, next(prepared) if prepared is not None else None)
                        setattr(report, outcome, getattr(report, outcome) + 1)
                        report.paths.append(cand.rel)
                        done = i
                        if progress is not None:
                            progress(i, len(todo), cand.rel)
                        if deadline is not None and i >= min(len(todo), BATCH) and time.monotonic() >= deadline:
                            break
        finally:
            if prepared is not None:
                prepared.close()  # stops the workers, also when the budget ran out or indexing was cancelled
            if pool is not None:
                pool.discard()  # (a generator closed before it started never took the pool)
        report.pending = len(todo) - done
        with self._transaction():
            for rel in gone:
                self.remove_file(rel)
                report.removed += 1
                report.paths.append(rel)
            self._record_walk_problems(problems, prefixes)
        if prefixes is not None:
            self._follow_links_into(prefixes, report)
            if report.changes:
                self._snapshot_current = False
        elif report.changes or not self._snapshot_current:
            self.save()
        self.last_refresh = report
        return report

    def apply_changes(self, rels: list[str]) -> RefreshReport:
        """Bring specific paths up to date (what a file watcher reports), without walking the workspace."""
        report = RefreshReport(loaded_from=self.last_refresh.loaded_from)
        wanted = set(rels)
        for rel in rels:
            wanted.update(self._links_to.get(rel, ()))
        with self._transaction():
            for rel in sorted(wanted):
                cand = candidate_for(self.root, rel)
                if cand is not None and os.path.islink(cand.path):
                    self._note_link(cand.path, cand.rel)  # made, or pointed elsewhere, since the last walk
                if cand is None and links_outside(self.root, rel):
                    known = self._rows.get(rel)
                    if known is None or known.reason != OUTSIDE_REASON:
                        self.remove_file(rel)  # an indexed copy, if the file was replaced by such a link
                        self._record_link_outside(rel)
                        report.removed += 1
                        report.paths.append(rel)
                    continue
                if cand is None:
                    if rel in self._rows or rel in self.index.by_rel:
                        self.remove_file(rel)
                        report.removed += 1
                        report.paths.append(rel)
                    continue
                prepared = None
                if not self._needs_update(cand):
                    # Its time and size as indexed: a watcher still reported a write. Two writes of the same length
                    # within one millisecond (a tool saving twice), or a copy keeping the time (`cp -p`), leave both
                    # as they were, and the first text stayed for good. The file is read again and hashed against
                    # the indexed copy (media have no hash: never read).
                    from .index.preparing import TOUCHED, prepare_file

                    task = self._task(cand)
                    prepared = prepare_file(task, self.root) if task.known_hash else TOUCHED
                    if prepared == TOUCHED:
                        report.unchanged += 1
                        continue
                outcome = self._update(cand, prepared)
                setattr(report, outcome, getattr(report, outcome) + 1)
                report.paths.append(rel)
        if report.changes:
            self._snapshot_current = False
        return report

    def _follow_links_into(self, prefixes: tuple[str, ...], report: RefreshReport) -> None:
        """After a walk of some folders: the links elsewhere that lead into them, brought up to date as if their
        files were reported (a folder moved away, deleted or made again left a link at the top on its old text
        until the next whole walk)."""
        links = sorted({link for target, found in self._links_to.items() if target.startswith(prefixes)
                        for link in found if not link.startswith(prefixes)})
        if not links:
            return
        applied = self.apply_changes(links)
        for name in ("added", "changed", "touched", "removed"):
            setattr(report, name, getattr(report, name) + getattr(applied, name))
        report.paths.extend(applied.paths)

    def _note_links(self, found: WorkspaceScan, whole: bool) -> None:
        """The links a walk met (a whole walk: all of them; one of some folders adds what it found there)."""
        if whole:
            self._links_to = {}
        for i in found.links:
            self._note_link(found.path(i), found.rels[i])

    def _note_link(self, path: str, rel: str) -> None:
        """Note `rel` under the file its link leads to, and under each link on the way (README.md -> CLAUDE.md ->
        AGENTS.md: a watcher reports CLAUDE.md pointed elsewhere, never README.md, whose text changed with it)."""
        hops = [os.path.realpath(path)]
        hop = path
        for _ in range(40):  # (the system's own limit on links followed is 40)
            try:
                hop = os.path.join(os.path.dirname(hop), os.readlink(hop))
            except OSError:
                break
            if not os.path.islink(hop):
                break
            hops.append(os.path.join(os.path.realpath(os.path.dirname(hop)), os.path.basename(hop)))
        for reached in hops:
            try:
                target = os.path.relpath(reached, self.root)
            except ValueError:  # (Windows: on another drive, outside the workspace)
                continue
            if target != os.curdir and target != os.pardir and not target.startswith(os.pardir + os.sep) \
                    and target != rel.replace("/", os.sep):
                self._links_to.setdefault(display_rel(target.replace(os.sep, "/")), set()).add(rel)

    def save(self) -> None:
        """Write the in-memory postings as the snapshot the next start loads (no-op without a store)."""
        if self.store is not None:
            self.store.save_snapshot(self.index, self.refs)
            self._snapshot_current = True

    def _early_workers(self, whole_walk: bool) -> WorkerPool | None:
        """The worker processes of a first build, started before the walk when the workspace looks large enough
        to need them (listed, not walked: see holds_at_least): they start in about 0.35 s, which a build of
        20,000 files spent waiting after its walk. A first build is one that knows no file yet: an index of no
        documents whose files were all looked at (skipped: scans with no text, binary content) has nothing to read
        again, and started workers for nothing on every look."""
        if not whole_walk or len(self.index) or self._rows or not holds_at_least(self.root, PARALLEL_MIN_FILES):
            return None
        from .index.preparing import WorkerPool, worker_count

        return WorkerPool(worker_count()).start()

    def _prepared_in_processes(self, todo: list[Candidate], pool: WorkerPool | None = None
                               ) -> Generator[Outcome, None, None] | None:
        """The files of `todo` prepared in worker processes, in order, when there are enough of them to pay for
        starting the workers (None: prepare each in process). `pool`: the workers, if started already."""
        if len(todo) < PARALLEL_MIN_FILES:
            return None
        from .index.preparing import prepare_in_processes, worker_count

        workers = pool.count if pool is not None else worker_count()
        if workers < 1:
            return None
        # A store that keeps what is indexed holds no copy of a Markdown or text file's body, and reads the file
        # again when its text is needed: the workers need not send it back (without a store, or with one open read
        # only, the documents keep their bodies in memory).
        bodies = self.store is None or self.store.read_only
        return prepare_in_processes([self._task(c) for c in todo], self.root, workers, bodies=bodies, pool=pool)

    def _task(self, cand: Candidate) -> FileTask:
        from .index.preparing import FileTask

        row = self._row(cand.rel)
        known = ""
        if row is not None and row.state == "indexed" and cand.rel in self.index.by_rel:
            known = row.content_hash  # (media have none: never read, they are re-listed)
        return FileTask(cand.path, cand.rel, cand.kind, cand.mtime_ms, cand.size, known)

    def _compare(self, scan: WorkspaceScan, prefixes: tuple[str, ...] | None = None,
                 known_rels: dict[str, int] | None = None) -> tuple[list[Candidate], list[str], int]:
        """What a walk found against what the index holds: the files to (re)index, in walk order, the rels of the
        known files it did not find, sorted, and how many known files lie outside the walk. The documents'
        modification times and sizes are compared as columns at once; a file the index does not hold as a
        document (new, or a row of a file that was not indexed) is looked at on its own.

        With `prefixes` ("docs/", …: the walk covered only those folders), only the files below them can be
        gone; the others count as outside the walk. `known_rels`: the index's `bulk_table()`, made before (a whole
        walk's)."""
        index, rows = self.index, self._rows
        by_rel = index.by_rel
        n = len(scan)
        if prefixes is None:
            ids = by_rel.ids_of(scan.rels, known_rels)
            docs_below: list[tuple[str, int]] = []
        else:
            # The files a walk of some folders finds are below them (links into them aside): the documents there
            # are looked up once, not the whole index.
            docs_below = by_rel.under(prefixes)
            below = dict(docs_below)
            ids = np.fromiter((below.get(rel, -1) if rel.startswith(prefixes) else by_rel.get(rel, -1)
                               for rel in scan.rels), dtype=np.int64, count=n)
        known = ids >= 0
        known_ids = ids[known]
        mtimes_ms = np.array(scan.mtimes_ns, dtype=np.int64) // 1_000_000
        sizes = np.array(scan.sizes, dtype=np.int64)
        needed = np.ones(n, dtype=bool)
        needed[known] = (index.docs.mtimes()[known_ids] != mtimes_ms[known]) | (index.docs.sizes()[known_ids] != sizes[known])
        walked_rows: set[str] = set()
        for i in np.flatnonzero(~known).tolist():
            cand = scan.candidate(i)
            walked_rows.add(cand.rel)
            needed[i] = self._needs_update(cand)
        todo = [scan.candidate(i) for i in np.flatnonzero(needed).tolist()]
        seen = np.zeros(len(index.docs), dtype=bool)
        seen[known_ids] = True
        files = [rel for rel, row in rows.items() if row.kind != "dir" and rel not in by_rel]  # known, not documents
        if prefixes is None:
            gone = {index.docs.rel(i) for i in np.flatnonzero(index.docs.live() & ~seen).tolist()}
            gone.update(rel for rel in files if rel not in walked_rows)
            return todo, sorted(gone), 0  # (a whole walk finds or misses every known file)
        files_below = list(filter(methodcaller("startswith", prefixes), files))
        gone = {rel for rel, doc_id in docs_below if not seen[doc_id]}
        gone.update(rel for rel in files_below if rel not in walked_rows)
        return todo, sorted(gone), len(by_rel) - len(docs_below) + len(files) - len(files_below)

    def _needs_update(self, cand: Candidate) -> bool:
        stat = self.index.stat(cand.rel)  # (not the document: a walk would build one per file)
        if stat is not None:
            return stat != (cand.mtime_ms, cand.size)
        row = self._rows.get(cand.rel)
        if row is None or row.state == "failed":
            return True
        return row.mtime_ms != cand.mtime_ms or row.size != cand.size

    @contextlib.contextmanager
    def _transaction(self) -> Iterator[None]:
        """Writes made inside reach the store in one short transaction at the end (see IndexStore.batch). If
        that commit fails (a full disk), the files of the batch are forgotten in memory too, so the next look
        indexes them again instead of trusting rows that were never written."""
        if self.store is None:
            yield
            return
        self._batch_rels: set[str] = set()
        try:
            with self.store.batch():
                yield
            if not self.store.read_only:
                # Committed: the text of what was indexed lives in its rows now; memory keeps the postings and
                # the metadata (a 100,000-document build held every body, half a gigabyte, until it ended).
                for rel in self._batch_rels:
                    doc = self.index.get(rel)
                    if doc is not None and type(doc) is Document and (doc.body or doc.kind in BODY_FROM_FILE_KINDS):
                        self.index.swap_document(self.store.stored_copy(doc))
        except BaseException:
            for rel in self._batch_rels:
                self.index.remove(rel)
                self.refs.pop(rel, None)
                self._rows.pop(rel, None)
            self._snapshot_current = False
            raise
        finally:
            self._batch_rels = set()

    def _update(self, cand: Candidate, prepared: Outcome | None = None) -> str:
        """Bring one file's record up to date: from `prepared` when a worker process already read it."""
        if self.store is not None:
            self._batch_rels.add(cand.rel)
        from .index.preparing import TOUCHED, prepare_file

        existed = self._row(cand.rel) is not None
        outcome = prepared if prepared is not None else prepare_file(self._task(cand), self.root)
        if outcome == TOUCHED:
            self._touch(cand)
            return "touched"
        self._apply(cand.rel, cand.kind, cand.mtime_ms, cand.size, outcome)
        return "changed" if existed else "added"

    def _touch(self, cand: Candidate) -> None:
        self.index.touch(cand.rel, cand.mtime_ms, cand.size)
        if self.store is not None:
            self.store.touch(cand.rel, cand.mtime_ms, cand.size)

    def update_file(
        self, path: str, rel: str, kind: str, mtime_ms: int, size: int, data: bytes | None = None
    ) -> FileStatus:
        """(Re)extract one file into the index; a failure removes any stale copy and records why.

        Every step for one file (reading within the workspace, decoding, extraction, link parsing, storing) is inside
        this file's error boundary: whatever goes wrong becomes its status and the rest of the workspace indexes.
        Only a failing index store (SQLite) is not one file's problem and is raised."""
        from .index.preparing import FileTask, prepare_file

        return self._apply(rel, kind, mtime_ms, size, prepare_file(FileTask(path, rel, kind, mtime_ms, size), self.root, data))

    def _apply(self, rel: str, kind: str, mtime_ms: int, size: int, outcome: Outcome) -> FileStatus:
        """Put a prepared file into the index and the store, or record why it is not indexed."""
        from .index.preparing import Prepared, failure_status

        if isinstance(outcome, Prepared):
            doc, refs = outcome.doc, outcome.refs
            try:
                if self.store is not None:
                    self.store.put_document(doc, refs)
            except sqlite3.Error:
                raise
            except Exception as exc:  # noqa: BLE001 - this file's failure, never the workspace's
                outcome = failure_status(rel, exc)
            else:
                self.index.add_counted(doc, outcome.stats, outcome.token_ids(self.index))
                if refs:
                    self.refs[rel] = refs
                else:
                    self.refs.pop(rel, None)
                self._rows.pop(rel, None)
                return FileStatus(rel, "indexed", doc.status_note)
        assert isinstance(outcome, FileStatus)
        status = outcome
        self.index.remove(rel)
        self.refs.pop(rel, None)
        if self.store is not None:
            self.store.put_status(status, kind, mtime_ms, size)
        self._rows[rel] = FileRow(rel, kind, mtime_ms, size, "", status.state, status.reason)
        return status

    def remove_file(self, rel: str) -> None:
        known = self.index.remove(rel)
        self.refs.pop(rel, None)
        known = self._rows.pop(rel, None) is not None or known
        if known and self.store is not None:
            self.store.delete(rel)

    def _record_link_outside(self, rel: str) -> None:
        """A symlink leading out, met between walks: listed as the walk lists it (a walk row), never read."""
        status = FileStatus(rel, "skipped", OUTSIDE_REASON)
        self._rows[rel] = FileRow(rel, "dir", 0, 0, "", status.state, status.reason)
        if self.store is not None:
            self.store.put_status(status, "dir", 0, 0)

    def _record_walk_problems(self, problems: list[FileStatus], prefixes: tuple[str, ...] | None = None) -> None:
        """Directories that could not be listed, and entries that are not regular files, as of this walk (of
        the folders of `prefixes` only: "docs/" for docs, its subtree and itself)."""
        before = {r: (row.state, row.reason) for r, row in self._rows.items() if row.kind == "dir"
                  and (prefixes is None or (r + "/").startswith(prefixes))}
        if before == {s.rel: (s.state, s.reason) for s in problems if s.rel not in self._rows or s.rel in before}:
            return  # unchanged: writing them again would only make the saved snapshot look stale
        for rel in before:
            self.remove_file(rel)
        for status in problems:
            if status.rel in self.index.by_rel or (status.rel in self._rows and self._rows[status.rel].kind != "dir"):
                continue
            self._rows[status.rel] = FileRow(status.rel, "dir", 0, 0, "", status.state, status.reason)
            if self.store is not None:
                self.store.put_status(status, "dir", 0, 0)

    # --- reporting and ranking -----------------------------------------------------------------------

    def status_counts(self) -> dict[str, int]:
        counts = {"indexed": len(self.index), "skipped": 0, "failed": 0}
        for status in self.problems():
            counts[status.state] = counts.get(status.state, 0) + 1
        return counts

    def problems(self) -> list[FileStatus]:
        """Files that are not indexed, with why."""
        rows = (r for r in self._rows.values() if r.rel not in self.index.by_rel)
        return sorted((FileStatus(r.rel, r.state, r.reason) for r in rows), key=lambda s: s.rel)

    def graph(self) -> LinkGraph:
        """The links between documents, built again after any change (a document's links changed with it). What
        resolves a link to a document is kept while no document came or went: making it again took 110 ms at
        100,000 documents, for each first call after a file was edited."""
        if self._graph is None or self._graph_version != self.index.version:
            names = (self.index, self.index.names_version)
            if self._resolver is None or self._resolver_names[0] is not names[0] or self._resolver_names[1] != names[1]:
                self._resolver = None
                if self.refs:  # (none: no resolver needed, and none made)
                    self._resolver = LinkResolver(self.index.live_rels(without_kinds=frozenset(MEDIA_KINDS)))
                    self._resolver_names = names
            self._graph = build_graph(self.refs, self._resolver) if self._resolver is not None else LinkGraph()
            self._graph_version = self.index.version
        return self._graph

    def rank(self, request: RankInput, *, now_ms: int, kind: str = "doc", sort: str = "relevance") -> Ranking:
        ranking = rank(self.index, request.keywords, now_ms=now_ms, kind=kind, sort=sort)
        if self.store is not None and postings_damaged(self.index):
            # A block of the snapshot's postings file was damaged inside (found as it was inflated, so its terms
            # answered nothing): the postings are rebuilt from the rows and the question asked again.
            self._rebuild_from_rows()
            ranking = rank(self.index, request.keywords, now_ms=now_ms, kind=kind, sort=sort)
        return ranking

    def _rebuild_from_rows(self) -> None:
        assert self.store is not None
        self.index, self.refs, self._graph = SearchIndex(), {}, None
        self._load_rows()
        if self.store.read_only:
            self.refresh()  # (its changes were kept in memory only: read again from the files)
        else:
            self.save()

    def preview(self, rel: str) -> PreviewData:
        from .index.preview_content import (
            load_preview,  # PyMuPDF is imported by what renders, not by every command
        )

        doc = self.index.get(rel)
        kind = doc.kind if doc is not None else (kind_for_name(rel) or "txt")
        return load_preview(self.root, rel, kind, self.graph())

    def context(self, request: RankInput, *, now_ms: int, recent_limit: int = 5, pins: Pins | None = None) -> ContextPack:
        """The context pack; `pins` (the user's pins and hides) are applied when given."""
        ranking = self.rank(request, now_ms=now_ms, kind="doc", sort="relevance")
        return self.pack(ranking, request, recent_limit=recent_limit, pins=pins)

    def pack(self, ranking: Ranking, request: RankInput, recent_limit: int = 5, pins: Pins | None = None
             ) -> ContextPack:
        """The context pack of a relevance ranking of documents (no second ranking), with the user's pins and
        hides applied when `pins` is given."""
        from .rank.context_pack import build_context_pack  # (loaded by `context`, not by every `rank`)

        pack = build_context_pack(ranking, self.graph(), task=request.task, recent_limit=recent_limit)
        return pin_pack(pack, pins, self.index.get) if pins is not None else pack

    def view(self, request: RankInput, *, now_ms: int, kind: str = "doc", sort: str = "relevance",
             with_context: bool = False, limit: int | None = None, pins: Pins | None = None,
             library: Sequence[LibraryPart] = (), own: bool = True, needle: str = "") -> ViewResult:
        """What the window shows for one view, from one ranking (two for "all": documents and media apart, so
        however many documents a workspace has its images and videos are all there). The context pack, asked
        for the relevance list of documents only, is built on that same ranking. With `pins`, hidden documents
        leave every list and pinned ones lead it. `library` folders (label, open folder, its pins) rank beside
        this workspace, each row labelled; without `own` only they are listed (the window's "Library" scope).
        With `needle` (the window's filter) the documents listed are those it matches, before `limit` cuts them."""
        from .view import (  # what the window and the tray show: not a one-shot `rank`
            SourceRanking,
            build_view,
        )

        def beside(k: str) -> list[SourceRanking]:
            return [SourceRanking(ws.rank(request, now_ms=now_ms, kind=k, sort=sort), folder_pins, label, ws.root)
                    for label, ws, folder_pins in library]

        if kind == "all":
            docs = self.rank(request, now_ms=now_ms, kind="doc", sort=sort) if own else None
            media = self.rank(request, now_ms=now_ms, kind="media", sort=sort) if own else None
            return build_view("all", docs, media=media, limit=limit, pins=pins, others=beside("doc"),
                              media_others=beside("media"), needle=needle, is_indexed=self.indexed_check())
        ranking = self.rank(request, now_ms=now_ms, kind=kind, sort=sort) if own else None
        with_context = with_context and kind == "doc" and sort == "relevance"
        pack = self.pack(ranking, request, pins=pins) if with_context and ranking is not None else None
        return build_view(kind, ranking, pack, limit=limit, pins=pins, others=beside(kind), needle=needle,
                          is_indexed=self.indexed_check())

    def is_indexed(self, rel: str) -> bool:
        """Whether the index holds a document at `rel` (read as the index is now)."""
        return rel in self.index.by_rel

    def indexed_check(self) -> Callable[[str], bool]:
        """`is_indexed` for a result that may outlive this workspace (the window's last ranking): it holds the
        workspace weakly, so a workspace switched away from is freed (and then holds nothing). Asked on another
        thread than the one indexing: a dict lookup, whole under the GIL, on the map the indexing thread built
        at the open (`refresh` reads `by_rel` first)."""
        method = weakref.WeakMethod(self.is_indexed)

        def check(rel: str) -> bool:
            alive = method()
            return alive is not None and alive(rel)

        return check


LibraryPart = tuple[str, "Workspace", "Pins | None"]  # a library folder ranked beside a workspace
