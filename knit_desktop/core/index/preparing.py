"""The part of indexing one file that needs nothing but the file: read it (within the workspace), extract its
document, find its links and count its words. Done here in this process, or spread over worker processes for a
large batch (`prepare_in_processes`); what is prepared either way is applied to the index and the store by the
workspace, in order.

Worker processes are started with `spawn`, never `fork`: the window indexes from a thread of a Qt process, and a
forked copy of that would inherit its locks mid-air. They are processes, not threads, because PyMuPDF is not
thread-safe and tokenising is Python work the GIL would serialise. A worker that dies (PyMuPDF can crash on a
hostile PDF) costs the file it was reading, never the build: its chunk is read again one file at a time in a
fresh worker, and the file that brings that worker down too is marked failed with that reason.
"""

from __future__ import annotations

import os
import threading
import time
from array import array
from collections import deque
from collections.abc import Callable, Generator, Iterator, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, cast

import numpy as np

from ..text.tokens import RUN_KEY_NAMES_LIMIT, run_keys
from .boundary import OutsideWorkspace
from .documents import (
    BODY_FROM_FILE_KINDS,
    Document,
    SkipFile,
    content_hash,
    extract_document,
    read_indexed_bytes,
)
from .links import Ref, extract_refs
from .scan import FileStatus
from .search_index import SearchIndex, TokenStats, counted_fields, document_stats, field_sources

if TYPE_CHECKING:  # the process pool is imported when a build uses it, not by every command that opens an index
    from concurrent.futures import Future, ProcessPoolExecutor

TOUCHED = "touched"  # the file's bytes hash as before: only its modification time and size are new
CRASHED_REASON = "reading it stopped the process that read it (the file may be damaged or hostile)"
CHUNK_FILES = 128  # files per task sent to a worker: enough to make the round trip cheap, few enough to balance
CHUNKS_IN_FLIGHT_PER_WORKER = 3  # queued ahead per worker, so none waits; bounded, so memory stays flat
UNNUMBERED = 0xFFFFFFFF  # a worker's word not in the index's vocabulary yet


@dataclass(frozen=True, slots=True)
class FileTask:
    """One file to prepare. `known_hash` is the content hash of its indexed copy ('' for none): a file whose
    bytes still hash to it is only touched."""

    path: str
    rel: str
    kind: str
    mtime_ms: int
    size: int
    known_hash: str = ""

    def __reduce__(self) -> tuple:  # (see Document.__reduce__: one is sent per file)
        return (FileTask, (self.path, self.rel, self.kind, self.mtime_ms, self.size, self.known_hash))


@dataclass(frozen=True, slots=True)
class Prepared:
    """A file ready to index: its document, its links and its counted words. From a worker, the words come as
    that worker's numbers (`local_ids`, with `stats.tokens` empty), turned into vocabulary ids by `token_ids`."""

    doc: Document
    refs: list[Ref]
    stats: TokenStats
    local_ids: array | None = None
    vocabulary: WorkerVocabulary | None = None
    # The vocabulary ids of all its words, when each had one already as its chunk arrived (looked up for the
    # whole chunk at once): a word's id never changes once given.
    known_ids: array | None = None

    def __reduce__(self) -> tuple:  # (see Document.__reduce__: one comes back per file)
        return (Prepared, (self.doc, self.refs, self.stats, self.local_ids, self.vocabulary))

    def token_ids(self, index: SearchIndex) -> array | None:
        """The vocabulary ids of the document's words in `index` (typecode "I"), or None when `stats.tokens` has
        the words."""
        if self.known_ids is not None:
            return self.known_ids
        if self.local_ids is None or self.vocabulary is None:
            return None
        return self.vocabulary.token_ids(self.local_ids, index)


class WorkerVocabulary:
    """One worker's numbering of the words it has sent, and the vocabulary id each has in the index once a
    document with it was added. A worker sends each word once, then its number: looking up millions of freshly
    unpickled strings in the vocabulary was a sixth of the indexing process's time, and sending them a tenth."""

    def __init__(self) -> None:
        self.words: list[str | None] = []  # by worker number; None once in the index's vocabulary
        # Vocabulary id by worker number (UNNUMBERED until then), in a NumPy buffer grown by doubling: looked up
        # for every document, with no conversion on the way.
        self.tids = np.full(1024, UNNUMBERED, dtype=np.uint32)

    def extend(self, first: int, words: list[str]) -> None:
        if first != len(self.words):
            raise ValueError("a worker's word numbers are out of step")
        self.words.extend(words)
        if len(self.words) > len(self.tids):
            grown = np.full(max(len(self.words), 2 * len(self.tids)), UNNUMBERED, dtype=np.uint32)
            grown[: len(self.tids)] = self.tids
            self.tids = grown

    def known_ids(self, local_ids: Sequence[array]) -> list[array | None]:
        """For each document's numbers, their vocabulary ids when every one has an id already, else None (that
        document adds words to the vocabulary as it is added: `token_ids` then). In a few NumPy passes for the
        whole chunk: the passes for each document were a fifth of the indexing process's time."""
        sizes = np.fromiter(map(len, local_ids), dtype=np.int64, count=len(local_ids))
        ends = np.cumsum(sizes)
        starts = ends - sizes
        found = self.tids[np.frombuffer(b"".join(local_ids), dtype=np.uint32)]
        unnumbered = np.concatenate(([0], np.cumsum(found == UNNUMBERED)))
        complete = (unnumbered[ends] == unnumbered[starts]).tolist()
        values = memoryview(found.tobytes())
        out: list[array | None] = []
        for whole, start, end in zip(complete, (4 * starts).tolist(), (4 * ends).tolist()):
            if whole:
                ids = array("I")
                ids.frombytes(values[start:end])
                out.append(ids)
            else:
                out.append(None)
        return out

    def token_ids(self, local_ids: array, index: SearchIndex) -> array:
        numbers = np.frombuffer(local_ids, dtype=np.uint32)
        found = self.tids[numbers]
        if len(found) and found.max() == UNNUMBERED:
            # Added to the vocabulary now, as the document is, in the document's order: the ids come out as
            # they would in one process, and a word of a document never added never enters the vocabulary.
            missing = np.flatnonzero(found == UNNUMBERED)
            numbered = numbers[missing]
            words = [self.words[n] for n in numbered.tolist()]
            new = index.token_ids(cast(list[str], words))
            self.tids[numbered] = new
            found[missing] = new
            for n in numbered.tolist():
                self.words[n] = None
        return array("I", found.tobytes())


Outcome = Prepared | FileStatus | str  # str: TOUCHED
ChunkWork = Callable[[Sequence[FileTask], str], list[Outcome]]
NumberedChunk = tuple[str, int, list[str], list[Outcome]]  # see numbered_chunk


def failure_reason(exc: BaseException) -> str:
    """One line saying why a file failed."""
    text = getattr(exc, "strerror", None) or str(exc) or exc.__class__.__name__
    return " ".join(text.split())[:300]


def failure_status(rel: str, exc: Exception) -> FileStatus:
    """What an exception met while indexing one file makes of that file's status (the per-file error boundary:
    whatever goes wrong becomes its status, and the rest of the workspace indexes)."""
    if isinstance(exc, (SkipFile, OutsideWorkspace)):
        return FileStatus(rel, "skipped", str(exc))
    if isinstance(exc, FileNotFoundError):
        return FileStatus(rel, "failed", "the file disappeared while it was being read")
    if isinstance(exc, PermissionError):
        return FileStatus(rel, "failed", "permission denied")
    if isinstance(exc, MemoryError):
        return FileStatus(rel, "failed", "not enough memory to read it")
    return FileStatus(rel, "failed", failure_reason(exc))


def prepare_file(task: FileTask, root: str, data: bytes | None = None) -> Outcome:
    """Read (unless `data` is given), extract, link and count one file of the workspace at `root` (its real
    path). Never raises for the file's own problems: those come back as its FileStatus."""
    if data is None and task.known_hash:
        try:
            data = read_indexed_bytes(task.path, task.kind, root)
        except (OSError, OutsideWorkspace):
            data = None  # extraction below reports the error
        if data is not None and content_hash(data) == task.known_hash:
            return TOUCHED
    try:
        doc = extract_document(task.path, task.rel, task.kind, task.mtime_ms, task.size, data, root)
        refs = extract_refs(doc.body) if doc.kind == "md" else []
        if _NUMBERING[0]:  # in a worker, preparing a chunk: the words are numbered as they are counted
            lengths, numbers, columns = counted_fields(field_sources(doc), _RUN_NUMBERS, _WORKER_WORDS)
            return Prepared(doc, refs, TokenStats(lengths, [], *columns), array("I", numbers))
        return Prepared(doc, refs, document_stats(doc))
    except Exception as exc:  # noqa: BLE001 - this file's failure, never the workspace's
        return failure_status(task.rel, exc)


def prepare_files(tasks: Sequence[FileTask], root: str) -> list[Outcome]:
    """What a worker process runs: `prepare_file` for each of a chunk of files."""
    return [prepare_file(task, root) for task in tasks]


class _WordNumbers(dict[str, int]):
    """In a worker: every word it has numbered, with its number (the next one, given on a miss)."""

    def __missing__(self, word: str) -> int:
        number = self[word] = len(_WORKER_WORD_LIST)
        _WORKER_WORD_LIST.append(word)
        return number


class _RunNumbers(dict[str, tuple[int, ...]]):
    """In a worker: the numbers of a Latin run's keys (`text.run_keys`), by run, so counting a document yields
    its words' numbers directly: looking each counted word up again to number it was a tenth of a worker's time
    (a large dictionary, read at random). Emptied past RUN_KEY_NAMES_LIMIT runs, as the keys' own cache is; the
    numbers stay."""

    def __missing__(self, run: str) -> tuple[int, ...]:
        if len(self) >= RUN_KEY_NAMES_LIMIT:
            self.clear()
        numbers = self[run] = tuple(_WORKER_WORDS[key] for key, _ in run_keys(run))
        return numbers


_WORKER_KEY: list[str] = []  # in a worker: a name for its numbering, unique even when a pid is reused
_WORKER_WORD_LIST: list[str] = []  # in a worker: every word it has numbered, by number
_WORKER_WORDS = _WordNumbers()
_RUN_NUMBERS = _RunNumbers()
_NUMBERING = [False]  # True while a worker prepares a chunk (numbered_chunk)


def numbered_chunk(work: ChunkWork, tasks: Sequence[FileTask], root: str, bodies: bool = True) -> NumberedChunk:
    """What a worker runs on a chunk: `work`, with each prepared document's words replaced by this worker's
    numbers. Returns the worker's key, the first new number, the words numbered in this chunk, the outcomes.
    Without `bodies`, a document whose body is its file's text (BODY_FROM_FILE_KINDS) comes back without it: a
    persistent index stores no copy of it and reads the file again when the text is needed (sending the text
    back was most of the data a build's workers sent, pickled and unpickled for nothing)."""
    if not _WORKER_KEY:
        _WORKER_KEY.append(f"{os.getpid()}-{os.urandom(8).hex()}")
    first = len(_WORKER_WORD_LIST)
    _NUMBERING[0] = True
    try:
        outcomes = work(tasks, root)
    finally:
        _NUMBERING[0] = False
    for i, outcome in enumerate(outcomes):
        if isinstance(outcome, Prepared):
            if not bodies and outcome.doc.kind in BODY_FROM_FILE_KINDS:
                outcome.doc.body = ""
            if outcome.local_ids is None:  # (prepared without numbering: its words are numbered now)
                counted = outcome.stats  # (rebuilt directly: dataclasses.replace walks the fields in Python)
                stats = TokenStats(counted.lengths, [], counted.title, counted.summary, counted.body)
                ids = array("I", map(_WORKER_WORDS.__getitem__, counted.tokens))
                outcomes[i] = Prepared(outcome.doc, outcome.refs, stats, ids)
    return _WORKER_KEY[0], first, _WORKER_WORD_LIST[first:], outcomes


def _decoded(result: NumberedChunk, vocabularies: dict[str, WorkerVocabulary]) -> list[Outcome]:
    key, first, words, outcomes = result
    vocabulary = vocabularies.get(key)
    if vocabulary is None:  # (not setdefault: that made a vocabulary, a NumPy buffer, for every chunk)
        vocabulary = vocabularies[key] = WorkerVocabulary()
    vocabulary.extend(first, words)
    prepared = [o for o in outcomes if isinstance(o, Prepared)]
    if not prepared:
        return outcomes
    known = iter(vocabulary.known_ids([cast(array, o.local_ids) for o in prepared]))
    return [Prepared(o.doc, o.refs, o.stats, o.local_ids, vocabulary, next(known)) if isinstance(o, Prepared) else o
            for o in outcomes]


def _ready() -> bool:
    return True


PARENT_CHECK_S = 0.5


def end_with_parent(parent: int) -> None:
    """A worker's initializer: the worker ends once the process that started it is gone. A spawned worker holds both
    ends of its task pipe and never sees it close, so a parent that ends before sending the stop signals (`os._exit`
    in a one-shot command, a crash, SIGKILL) would otherwise leave its workers blocked for good."""

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(PARENT_CHECK_S)
        os._exit(0)

    threading.Thread(target=watch, name="knit-parent-watch", daemon=True).start()


def worker_count() -> int:
    """Processes to prepare files in: one per core this process may run on."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):
        return max(1, os.cpu_count() or 1)


class WorkerPool:
    """A pool of spawned worker processes, replaced by a fresh one when a worker dies."""

    def __init__(self, count: int) -> None:
        self.count = count
        self.executor: ProcessPoolExecutor | None = None
        self._starting: list[Future[bool]] = []

    def start(self) -> WorkerPool:
        """Start every worker now and return at once: each imports what it needs (about 0.15 s of processor
        time) while this process goes on, say walking the workspace whose files they will read. Workers that
        cannot start are left to `get`, which says so to the build."""
        try:
            self._start()
        except (OSError, RuntimeError, ValueError):  # (RuntimeError: BrokenProcessPool and its kin)
            self.discard()
        return self

    def _start(self) -> ProcessPoolExecutor:
        if self.executor is None:
            import multiprocessing
            from concurrent.futures import ProcessPoolExecutor

            self.executor = ProcessPoolExecutor(self.count, mp_context=multiprocessing.get_context("spawn"),
                                                initializer=end_with_parent, initargs=(os.getpid(),))
            # (One task each: the executor starts a worker for a task when none is idle.)
            self._starting = [self.executor.submit(_ready) for _ in range(self.count)]
        return self.executor

    def get(self) -> ProcessPoolExecutor:
        executor = self._start()
        if self._starting:
            # Wait for one worker to answer: a pool that cannot start at all (a broken install) is not a crash
            # of any file, and must not mark files failed (the caller prepares them in process instead).
            starting, self._starting = self._starting, []
            starting[0].result()
        return executor

    def discard(self, wait: bool = False) -> None:
        self._starting = []
        if self.executor is not None:
            # Queued chunks are dropped; a worker in the middle of one finishes it and ends (nothing waits unless
            # `wait`: then the workers have ended when this returns).
            self.executor.shutdown(wait=wait, cancel_futures=True)
            self.executor = None


def prepare_in_processes(
    tasks: Sequence[FileTask], root: str, workers: int, work: ChunkWork = prepare_files, bodies: bool = True,
    pool: WorkerPool | None = None,
) -> Generator[Outcome, None, None]:
    """The outcomes of `prepare_file` for `tasks`, in their order, prepared by `workers` spawned processes a chunk
    at a time (in this process if they cannot start). Closing the iterator early (a time budget spent, indexing
    cancelled) stops the workers. `work` is what a worker runs on a chunk (a module-level function: the workers
    import it by name). Without `bodies`, the documents of BODY_FROM_FILE_KINDS prepared by a worker come without
    their body (see numbered_chunk). `pool`: workers of that count started earlier (WorkerPool.start), taken over
    and ended with the rest."""
    from concurrent.futures.process import BrokenProcessPool

    chunks = deque(tasks[i : i + CHUNK_FILES] for i in range(0, len(tasks), CHUNK_FILES))
    pool = pool if pool is not None else WorkerPool(workers)
    vocabularies: dict[str, WorkerVocabulary] = {}
    in_flight: deque[tuple[Sequence[FileTask], Future[NumberedChunk]]] = deque()
    try:
        try:
            pool.get()
        except (BrokenProcessPool, OSError):
            # The workers cannot start at all (a broken install, no processes left): not any file's fault, and
            # nothing of the workspace was read in them yet, so the files are prepared here as without a pool.
            yield from (prepare_file(task, root) for task in tasks)
            return
        while chunks or in_flight:
            while chunks and len(in_flight) < workers * CHUNKS_IN_FLIGHT_PER_WORKER:
                chunk = chunks.popleft()
                in_flight.append((chunk, pool.get().submit(numbered_chunk, work, chunk, root, bodies)))
            chunk, future = in_flight.popleft()
            try:
                outcomes = _decoded(future.result(), vocabularies)
            except Exception as exc:  # noqa: BLE001 - handled for this chunk below, never the build's end
                # Every chunk in flight is lost with the pool (a dead worker takes them all down; a result that
                # did not come back leaves its worker's numbering out of step) and goes back to the queue.
                chunks.extendleft(reversed([c for c, _ in in_flight]))
                in_flight.clear()
                pool.discard()
                if isinstance(exc, BrokenProcessPool):  # read this one again a file at a time: find the culprit
                    outcomes = list(_one_at_a_time(chunk, root, pool, work, vocabularies, bodies))
                else:  # (say, a result too big to send back)
                    outcomes = [prepare_file(task, root) for task in chunk]
            yield from outcomes
    finally:
        # Nothing queued or in flight (every outcome taken, even when the caller then closes the iterator rather
        # than asking for its end): the workers are idle, so wait for them to end; a caller that ends its process
        # at once (`os._exit` in the one-shot commands) then leaves none behind. Stopping early does not wait.
        pool.discard(wait=not chunks and not in_flight)


def _one_at_a_time(chunk: Sequence[FileTask], root: str, pool: WorkerPool, work: ChunkWork,
                   vocabularies: dict[str, WorkerVocabulary], bodies: bool) -> Iterator[Outcome]:
    from concurrent.futures.process import BrokenProcessPool

    for task in chunk:
        try:
            yield from _decoded(pool.get().submit(numbered_chunk, work, [task], root, bodies).result(), vocabularies)
        except BrokenProcessPool:
            pool.discard()
            yield FileStatus(task.rel, "failed", CRASHED_REASON)
