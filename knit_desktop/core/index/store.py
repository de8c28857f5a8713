"""The persistent index of one workspace: SQLite (stdlib) in Knit's own cache directory.

Each file has a row: metadata (mtime, size, content hash), its status (indexed / skipped / failed and why), the
extracted fields, the body (zlib) and its links; a Markdown or text file's title, summary and body are its file's,
made again from it when the row is read. Those rows are the durable truth, written in transactions, so a
crash or kill leaves a database that opens. For fast starts the in-memory postings are also saved as a snapshot
tagged with the write generation it reflects; every write bumps the generation, so a snapshot that does not
match (say, after a kill mid-index) is ignored and the index is rebuilt from the rows, without reading the
workspace again. Bodies are not in the snapshot: they are read back from the rows when a passage needs them (and
are not kept in memory after indexing). The snapshot's postings are compressed blocks, decompressed per block when
one of its terms is first looked up.
"""

from __future__ import annotations

import contextlib
import errno
import marshal
import os
import shutil
import sqlite3
import threading
import time
import urllib.parse
import weakref
import zlib
from array import array
from collections import OrderedDict
from collections.abc import Callable, Iterator, MutableMapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from glob import escape as glob_escape
from itertools import chain, groupby
from operator import itemgetter
from pathlib import Path
from typing import Any

import numpy as np
import zstandard

from .boundary import OutsideWorkspace, os_path
from .doc_table import DocumentColumns, DocumentTable, RowValues, compressed, decompressed
from .documents import (
    BODY_FROM_FILE_KINDS,
    TRUNCATED_NOTE,
    Document,
    SkipFile,
    decode_text,
    read_indexed_bytes,
    text_title_and_summary,
)
from .links import Ref
from .scan import FileStatus
from .search_index import SearchIndex, peek_posting_list, trigrams_of_tokens
from .watch_lease import lease_is_held

SCHEMA_VERSION = 7  # 7: no title or summary stored for Markdown and text; 6: no page starts or links: NULL; 5: content hashes as their 16 bytes; 4: files keyed by name alone (WITHOUT ROWID); 3: titles and summaries keep the underscores inside names (rebuilt to read them again); 2: the change journal; Markdown and text bodies no longer stored
SNAPSHOT_FORMAT = 10  # 10: trigram lists as gaps (_pack_trigrams); 9: document metadata as columns (doc_table.py); 8: field lengths as one flat uint32 buffer
OLDEST_CONVERTED_FORMAT = 8  # a snapshot this old or newer is loaded and saved again in the current format
# Snapshot lists are marshalled in slices: one marshal call holds the GIL throughout, and a 20,000-document list
# in one call would freeze the window (which shares the GIL with the indexer thread) for 30-80 ms.
SNAPSHOT_SLICE = 2000
# A snapshot with more removed than this share of documents is rebuilt instead, dropping dead postings.
MAX_DEAD_SHARE = 0.3
# A start whose snapshot is older than the rows catches up from the change journal when at most this many
# files changed since (another process, typically the window, wrote rows and saves its snapshot only every
# 15 s); more than that, and the postings are rebuilt from the rows.
MAX_CATCH_UP = 5000
# A process that keeps the index current from a file watcher (the window, an MCP server) renews a lease this long, every
# third of it; while the lease is held by a live process, a command trusts the index instead of walking the
# workspace (the walk was 40% of a one-shot `rank` at 20,000 files and most of it at 100,000).
WATCH_LEASE_S = 30.0
# Such a process saves the fast-start snapshot this long after the first live update since its last save (the
# rows written since a snapshot are read again by every process that loads it).
SNAPSHOT_DELAY_S = 15.0
# Rows arrive in the order the walk finds files, not in name order, so the B-tree of `files` splits its pages
# and leaves them a third empty on average (a 20,000-file build: 1.2 MB of 5.4). A save after which the database
# file has grown to COMPACT_GROWTH times its size at the last compaction (a first build: any size from
# COMPACT_MIN_PAGES pages) compacts it (VACUUM: 45 ms for 8 MB), so the file keeps within about that factor of
# its compact size and the copies made add up to about twice the final one however the rows came in.
COMPACT_GROWTH = 2
COMPACT_MIN_PAGES = 256  # (1 MB of 4 kB pages: below that there is little to win)
COMPACT_BUSY_S = 1.0  # how long a compaction waits for another process's write before leaving it to a later save
CACHED_BODIES = 64  # bodies a store keeps after reading them (about two context packs' worth)
SERVING_PAGE_CACHE_KIB = 512  # SQLite's page cache in the window (`Store.bound_page_cache`)

# `files` is keyed by the file's name alone (WITHOUT ROWID): with a rowid, its primary key was a second B-tree
# holding every name again (1.36 MB of a 20,000-file index of 10 MB). A content hash is kept as its 16 bytes, not
# as the 32 characters of its hex text (see _stored_hash). Page starts and links are JSON lists, NULL when empty
# (most rows: a Markdown file has no pages and often no links; the two '[]' took 4 bytes a row). A Markdown or text
# file's title and summary are NULL: they are made again from the file's text, as its body is (BODY_FROM_FILE_KINDS;
# they were 1.8 MB of a 20,000-file index of 8 MB, and the snapshot holds them too).
_SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS files (
    rel TEXT PRIMARY KEY,
    kind TEXT NOT NULL,
    mtime_ms INTEGER NOT NULL,
    size INTEGER NOT NULL,
    content_hash BLOB NOT NULL DEFAULT x'',
    state TEXT NOT NULL,
    reason TEXT NOT NULL DEFAULT '',
    title TEXT,
    summary TEXT,
    body BLOB,
    truncated INTEGER NOT NULL DEFAULT 0,
    page_starts TEXT,
    refs TEXT
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS snapshot (id INTEGER PRIMARY KEY CHECK (id = 1), generation INTEGER NOT NULL, data BLOB NOT NULL);
CREATE TABLE IF NOT EXISTS changes (rel TEXT PRIMARY KEY, generation INTEGER NOT NULL);
"""


_BUMP_GENERATION = "UPDATE meta SET value = CAST(value AS INTEGER) + 1 WHERE key = 'generation'"
_JOURNAL_CHANGE = ("INSERT OR REPLACE INTO changes (rel, generation)"
                   " SELECT ?, CAST(value AS INTEGER) FROM meta WHERE key = 'generation'")


@dataclass(frozen=True)
class FileRow:
    rel: str
    kind: str
    mtime_ms: int
    size: int
    content_hash: str
    state: str
    reason: str


class StoredDocument(Document):
    """A document whose body stays in the store until something reads it."""

    __slots__ = ("_store", "_body")
    _store: IndexStore | None
    _body: str | None

    @classmethod
    def of(cls, store: IndexStore, rel: str, kind: str, title: str, summary: str, mtime_ms: int, size: int,
           truncated: bool, content_hash: str, page_starts: list[int], note: str) -> StoredDocument:
        # Fields set directly, not through the dataclass __init__ (and its body property): a start builds one
        # per document.
        doc = object.__new__(cls)
        doc.rel, doc.kind, doc.title, doc.summary, doc.mtime_ms, doc.size = rel, kind, title, summary, mtime_ms, size
        doc.truncated, doc.content_hash, doc.page_starts, doc.note = truncated, content_hash, page_starts, note
        doc._store, doc._body = store, None
        return doc

    @property
    def body(self) -> str:
        if self._body is not None:
            return self._body
        # Not kept on the document: a long-lived process that showed passages of every document would end up
        # holding every body. The store keeps the last few read (a pack reads each one several times).
        return self._store.cached_body(self.rel) if self._store is not None else ""

    @body.setter
    def body(self, value: str | None) -> None:
        self._body = value


class IndexDamaged(Exception):
    """The database cannot be used as an index (a malformed image, a foreign schema, a directory in its place)."""


# SQLite errors that mean the file itself is broken, as opposed to busy or unwritable.
_DAMAGE_WORDS = ("malformed", "not a database", "file is not a database", "disk image", "corrupt",
                 "no such table", "no such column", "encrypted")
NEW_FILE = "new file"  # _schema_ok: a database without tables yet
BUSY_TIMEOUT_S = 30.0  # several processes share one index: wait for the writer instead of failing


def is_damage(exc: BaseException) -> bool:
    return isinstance(exc, (sqlite3.DatabaseError, IndexDamaged)) and (
        isinstance(exc, IndexDamaged) or any(w in str(exc).lower() for w in _DAMAGE_WORDS))


class IndexStore:
    """One workspace's database. Several processes may open it at once (the window, the command line, any number
    of MCP servers): WAL lets readers run beside the one writer, every write is a short transaction (files are
    extracted before the transaction starts, see `batch`), and a busy database is waited for, never reported.
    A database that cannot be written (another user's, a read-only disk) is opened read-only: the workspace is
    then kept current in memory only. A damaged one is set aside once (`<name>.broken`, for a bug report) and
    rebuilt; `notice` says so in one line."""

    def __init__(self, db_path: Path, root: str) -> None:
        self.path = db_path
        self.root = root
        self.read_only = False
        self.notice = ""
        # Pages of the file when a compaction found the disk full: not tried again by this process until the file
        # has grown as much again (each try writes up to the whole file before it fails).
        self._compaction_refused_at = 0
        self._pending: list[tuple[str, tuple]] | None = None
        self._pending_rels: list[str] = []  # files written in the pending batch (see _bump)
        self._bodies: OrderedDict[str, str] = OrderedDict()
        self._bodies_lock = threading.Lock()
        self.page_cache_kib: int | None = None  # SQLite's page cache per connection (None: SQLite's 2 MB)
        try:
            db_path.parent.mkdir(parents=True, exist_ok=True)
        except OSError:
            if not db_path.is_file():
                raise  # no index and nowhere to put one: the caller says why in one line
            # an existing index in an unwritable cache: opened read-only below
        if db_path.is_dir() or (db_path.exists() and not db_path.is_file()):
            self._set_aside("its path is not a file")
        try:
            self.db = self._connect()
            ok = self._schema_ok()
            if ok == NEW_FILE:
                # A database with no tables: created just now, here or by another process starting at the same
                # moment (the window, MCP servers, a command). Created in place, never deleted: deleting the file
                # another process has open made its next write fail ("attempt to write a readonly database").
                self._create()
                ok = self._schema_ok()
            if ok and not self._writable():
                self.read_only = True  # a file SQLite opened but may not write (another user's, immutable)
                self.notice = f"the index {self.path} cannot be written; changes are kept in memory only"
                return
        except sqlite3.OperationalError as exc:
            if is_damage(exc):
                ok = None
            elif self._open_read_only():
                return
            else:
                raise
        except sqlite3.DatabaseError:  # not a database at all (a damaged or foreign file): start over
            ok = None
        if ok is False:  # an older schema or another root's: nothing worth keeping, but the file may be open
            try:
                self._replace_schema()
            except sqlite3.OperationalError as exc:
                if "readonly" not in str(exc) and "read-only" not in str(exc):
                    raise
                self._open_in_memory()  # (a file SQLite opened but may not write: another user's, immutable)
        elif not ok:
            with contextlib.suppress(AttributeError, sqlite3.Error):
                self.db.close()
            self._set_aside("it is not a readable database")  # unreadable: keep it for a bug report
            self.db = self._connect()
            self._create()

    # --- connection and schema -----------------------------------------------------------------------

    def _connect(self) -> sqlite3.Connection:
        try:
            empty = os.stat(self.path).st_size == 0
        except OSError:
            empty = True
        db = sqlite3.connect(str(self.path), isolation_level=None, check_same_thread=False, timeout=BUSY_TIMEOUT_S)
        if empty:
            # Pages freed by the journal (a first build journals every file, the snapshot then drops them all) go
            # back to the file system after each snapshot instead of staying in the file (1.8 MB at 20,000 files).
            # Only a new, empty database takes this; it must come before the journal mode writes the header. Not
            # asked of a database that has pages: there it is a write transaction of its own, synced to disk, in
            # every process that opens the index (a one-shot `rank` waited on it for 2 to 18 ms).
            db.execute("PRAGMA auto_vacuum = INCREMENTAL")
        mode = db.execute("PRAGMA journal_mode").fetchone()[0]
        if str(mode).lower() != "wal":
            # Several processes opening one new index at once (the window and an MCP server starting together):
            # SQLite answers the switch to WAL with "database is locked" at once, without waiting out the busy
            # timeout, while another connection holds a lock; so it is asked again until that timeout.
            deadline = time.monotonic() + BUSY_TIMEOUT_S
            while True:
                try:
                    db.execute("PRAGMA journal_mode=WAL")
                    break
                except sqlite3.OperationalError as exc:
                    if "locked" not in str(exc) or time.monotonic() >= deadline:
                        raise
                    time.sleep(0.01)
        db.execute("PRAGMA synchronous=NORMAL")
        if self.page_cache_kib is not None:
            db.execute(f"PRAGMA cache_size = -{int(self.page_cache_kib)}")
        return db

    def bound_page_cache(self, kib: int = SERVING_PAGE_CACHE_KIB) -> None:
        """Keep SQLite's page cache of this store's connection (now and after a reconnect) within `kib`, for a
        long-lived process that reads rows one by one after the open: the window. By default SQLite keeps up to
        2 MB of pages per connection, and the window's filled it with the pages of the bodies its passages read
        (1.7 MB of its resident memory at 100,000 documents), which are read once per ranking and otherwise come
        from the system's file cache alike; the rankings took the same time either way (170-190 ms a ranking with its
        pack, with 2 MB or 200 kB). A large first build runs in a builder process, with SQLite's own size."""
        self.page_cache_kib = kib
        self.db.execute(f"PRAGMA cache_size = -{int(kib)}")

    def _writable(self) -> bool:
        """Whether writes would reach the file: a real (rolled back) write, since SQLite opens a file it may not
        write without complaint and only refuses at the first page written."""
        try:
            self.db.execute("BEGIN IMMEDIATE")
            try:
                self.db.execute("UPDATE meta SET value = value WHERE key = 'root'")
            finally:
                self.db.execute("ROLLBACK")
        except sqlite3.OperationalError as exc:
            if "readonly" in str(exc) or "read-only" in str(exc):
                return False
            if "locked" in str(exc) or "busy" in str(exc):
                return True  # another writer: writable, just not now
            raise
        return True

    def _open_read_only(self) -> bool:
        """Open an existing index we may not write (another user's, a read-only disk); False if there is none."""
        if not self.path.is_file():
            return False
        # A WAL database needs its -shm file to be read; in a folder we may not write, SQLite cannot create it
        # (an index whose owner closed it cleanly has none) and refuses even to read ("attempt to write a
        # readonly database"). Opened as immutable then: read as it is on disk, the only way it can be read.
        older = False
        for query in ("mode=ro", "mode=ro&immutable=1"):
            try:
                db = sqlite3.connect(f"file:{urllib.parse.quote(str(self.path))}?{query}", uri=True,
                                     isolation_level=None, check_same_thread=False, timeout=BUSY_TIMEOUT_S)
            except sqlite3.Error:
                continue
            self.db = db
            try:
                ok = self._schema_ok()
            except sqlite3.Error:
                ok = None
            if ok is True:
                self.read_only = True
                self.notice = f"the index {self.path} cannot be written; changes are kept in memory only"
                return True
            older = older or ok is False
            db.close()
        if older:
            self._open_in_memory()
            return True
        return False

    def _open_in_memory(self) -> None:
        """An index of an older version (or another root's) that this process may not replace: its rows are not
        read, the file stays as it is, and the workspace is indexed in memory (a database of no file)."""
        with contextlib.suppress(AttributeError, sqlite3.Error):
            self.db.close()
        self.db = sqlite3.connect(":memory:", isolation_level=None, check_same_thread=False)
        self._create()
        self.read_only = True
        self.notice = (f"the index {self.path} is of an older version and cannot be written; "
                       "the workspace is indexed in memory only")

    def _schema_ok(self) -> bool | None | str:
        """True: ours and current; NEW_FILE: no tables yet; False: an older schema or another root (start over
        quietly); None: unreadable (damaged: set aside)."""
        try:
            if self.db.execute("SELECT count(*) FROM sqlite_master").fetchone()[0] == 0:
                return NEW_FILE
            row = self.db.execute("SELECT value FROM meta WHERE key = 'schema_version'").fetchone()
            root = self.db.execute("SELECT value FROM meta WHERE key = 'root'").fetchone()
        except sqlite3.DatabaseError as exc:
            return None if is_damage(exc) and "no such table" not in str(exc) else False
        try:
            version = int(row[0]) if row is not None else -1
        except ValueError:
            return False
        return version == SCHEMA_VERSION and root is not None and root[0] == self.root

    def _replace_schema(self) -> None:
        """Drop an older schema's tables and create ours in one transaction, in the same file. Processes starting
        together after an upgrade (the window, MCP servers, a command) all find the old schema; deleting the file
        instead made another one's next write fail on the file it had open. Under the write lock the schema is
        looked at again: the first process replaces it, the others find it current."""
        with self.transaction():
            if self._schema_ok() is True:
                return
            tables = [row[0] for row in self.db.execute(
                "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'")]
            for table in tables:
                self.db.execute(f'DROP TABLE IF EXISTS "{table}"')
            self._create_tables()
        # The dropped pages go back to the file system; a file made before incremental vacuum takes it up here.
        # Busy (another process reading): the pages are reused by the rebuild instead.
        with contextlib.suppress(sqlite3.OperationalError):
            self.db.execute("PRAGMA auto_vacuum = INCREMENTAL")  # (only a file that has pages skipped it)
            self.db.execute("VACUUM")

    def _set_aside(self, why: str) -> None:
        """Move a broken database out of the way, keeping the latest one for a bug report."""
        broken = Path(str(self.path) + ".broken")
        with contextlib.suppress(OSError):
            if broken.is_dir() and not broken.is_symlink():
                shutil.rmtree(broken)
            else:
                broken.unlink(missing_ok=True)
        try:
            os.replace(self.path, broken)
        except FileNotFoundError:
            pass
        except OSError as exc:  # an unwritable cache: report it as the database error it is
            raise sqlite3.DatabaseError(f"the index {self.path} is damaged ({why}) and cannot be moved aside: "
                                        f"{exc.strerror or exc}") from None
        for suffix in ("-wal", "-shm"):
            Path(str(self.path) + suffix).unlink(missing_ok=True)
        self._delete_postings_files(keep="")
        self.notice = f"the index was damaged ({why}); it was set aside as {broken.name} and rebuilt"

    def rebuild(self, why: str) -> None:
        """Start over after damage found while reading (a malformed page deep in the file)."""
        with contextlib.suppress(sqlite3.Error):
            self.db.close()
        self._pending, self._pending_rels = None, []
        self._set_aside(why)
        self.db = self._connect()
        self._create()

    def _create(self) -> None:
        """The tables and their first rows in one transaction: another process never sees tables without them."""
        with self.transaction():
            self._create_tables()

    def _create_tables(self) -> None:
        for statement in _SCHEMA.split(";"):
            if statement.strip():
                self.db.execute(statement)
        self.db.executemany(
            "INSERT OR IGNORE INTO meta (key, value) VALUES (?, ?)",
            [("schema_version", str(SCHEMA_VERSION)), ("root", self.root), ("generation", "0")],
        )

    def close(self) -> None:
        self.db.close()

    @contextmanager
    def batch(self) -> Iterator[None]:
        """Collect the writes made inside and commit them in one short transaction at the end, so the write
        lock is held for milliseconds, not while files are extracted."""
        if self._pending is not None:  # nested: the outer batch commits
            yield
            return
        self._pending, self._pending_rels = [], []
        try:
            yield
            pending, self._pending = self._pending, None
            rels, self._pending_rels = self._pending_rels, []
            if (pending or rels) and not self.read_only:
                with self.transaction():
                    # Consecutive writes of one statement go to SQLite together (a build writes thousands of
                    # rows alike: one executemany each run instead of a call per row).
                    for sql, run in groupby(pending, key=itemgetter(0)):
                        self.db.executemany(sql, map(itemgetter(1), run))
                    if rels:  # the batch's files, journaled at the generation its commit makes
                        self.db.execute(_BUMP_GENERATION)
                        self.db.executemany(_JOURNAL_CHANGE, zip(rels))
        finally:
            self._pending = None
            self._pending_rels = []

    def _write(self, sql: str, params: tuple = ()) -> None:
        if self.read_only:
            return
        if self._pending is not None:
            self._pending.append((sql, params))
        else:
            self.db.execute(sql, params)

    @contextmanager
    def transaction(self) -> Iterator[None]:
        self.db.execute("BEGIN IMMEDIATE")
        try:
            yield
        except BaseException:
            self.db.execute("ROLLBACK")
            raise
        self.db.execute("COMMIT")

    # --- the watch lease ------------------------------------------------------------------------------

    def hold_watch_lease(self, seconds: float = WATCH_LEASE_S) -> None:
        """Say that this process keeps the rows current from a watcher for the next `seconds` (renew it)."""
        if self.read_only:
            return
        until = int((time.time() + seconds) * 1000)
        with contextlib.suppress(sqlite3.OperationalError):  # busy for long: the lease lapses, commands walk
            self.db.execute("INSERT OR REPLACE INTO meta (key, value) VALUES ('watch_lease', ?)",
                            (f"{os.getpid()} {until}",))

    def release_watch_lease(self) -> None:
        if self.read_only:
            return
        with contextlib.suppress(sqlite3.Error):
            self.db.execute("DELETE FROM meta WHERE key = 'watch_lease' AND value LIKE ?", (f"{os.getpid()} %",))

    def watched_elsewhere(self) -> bool:
        """True while another live process holds the watch lease (see hold_watch_lease)."""
        row = self.db.execute("SELECT value FROM meta WHERE key = 'watch_lease'").fetchone()
        return row is not None and lease_is_held(row[0])

    # --- rows ----------------------------------------------------------------------------------------

    @property
    def generation(self) -> int:
        row = self.db.execute("SELECT value FROM meta WHERE key = 'generation'").fetchone()
        try:
            return int(row[0])
        except (TypeError, ValueError):
            return -1  # a damaged generation row: no snapshot matches it, the rows are read instead

    def _bump(self, rel: str) -> None:
        """Count a write of `rel`'s row and journal it, so a start from an older snapshot re-reads only the
        rows written since (see load_snapshot). In a batch, once for the whole batch when it commits: every row
        of one transaction becomes visible at once, so one new generation covers them all."""
        if self.read_only:
            return
        if self._pending is not None:
            self._pending_rels.append(rel)
            return
        self.db.execute(_BUMP_GENERATION)
        self.db.execute(_JOURNAL_CHANGE, (rel,))

    def rows(self, only_problems: bool = False) -> dict[str, FileRow]:
        query = "SELECT rel, kind, mtime_ms, size, content_hash, state, reason FROM files"
        cursor = self.db.execute(query + (" WHERE state != 'indexed'" if only_problems else ""))
        return {r[0]: FileRow(r[0], r[1], r[2], r[3], _hash_text(r[4]), r[5], r[6]) for r in cursor}

    def put_document(self, doc: Document, refs: list[Ref]) -> None:
        """Record an indexed document (call inside a transaction)."""
        import json  # (imported where it is used: loading an index needs no JSON)

        self._forget_body(doc.rel)
        self._bump(doc.rel)
        self._write(
            "INSERT OR REPLACE INTO files (rel, kind, mtime_ms, size, content_hash, state, reason, title, summary,"
            " body, truncated, page_starts, refs) VALUES (?, ?, ?, ?, ?, 'indexed', ?, ?, ?, ?, ?, ?, ?)",
            (
                doc.rel, doc.kind, doc.mtime_ms, doc.size, _stored_hash(doc.content_hash),
                doc.status_note,
                *((None, None) if doc.kind in BODY_FROM_FILE_KINDS else (doc.title, doc.summary)),
                None if doc.kind in BODY_FROM_FILE_KINDS else zlib.compress(doc.body.encode("utf-8", "surrogatepass"), 1),
                int(doc.truncated), json.dumps(doc.page_starts) if doc.page_starts else None,
                json.dumps([(r.raw, r.line) for r in refs]) if refs else None,
            ),
        )

    def put_status(self, status: FileStatus, kind: str, mtime_ms: int, size: int) -> None:
        """Record a file that is skipped or failed, with why (call inside a transaction)."""
        self._forget_body(status.rel)
        self._bump(status.rel)
        self._write(
            "INSERT OR REPLACE INTO files (rel, kind, mtime_ms, size, state, reason) VALUES (?, ?, ?, ?, ?, ?)",
            (status.rel, kind, mtime_ms, size, status.state, status.reason),
        )

    def touch(self, rel: str, mtime_ms: int, size: int) -> None:
        self._bump(rel)
        self._write("UPDATE files SET mtime_ms = ?, size = ? WHERE rel = ?", (mtime_ms, size, rel))

    def delete(self, rel: str) -> None:
        self._forget_body(rel)
        self._bump(rel)
        self._write("DELETE FROM files WHERE rel = ?", (rel,))

    def stored_copy(self, doc: Document) -> StoredDocument:
        """`doc` without its text in memory: the body is read back from its (committed) row when needed."""
        return StoredDocument.of(self, doc.rel, doc.kind, doc.title, doc.summary, doc.mtime_ms, doc.size,
                                 doc.truncated, doc.content_hash, doc.page_starts, doc.note)

    def cached_body(self, rel: str) -> str:
        """The stored body of `rel`, from a small cache of the last bodies read."""
        with self._bodies_lock:
            body = self._bodies.get(rel)
            if body is not None:
                self._bodies.move_to_end(rel)
                return body
        body = self.load_body(rel)
        with self._bodies_lock:
            self._bodies[rel] = body
            while len(self._bodies) > CACHED_BODIES:
                self._bodies.popitem(last=False)
        return body

    def _forget_body(self, rel: str) -> None:
        with self._bodies_lock:
            self._bodies.pop(rel, None)

    def load_body(self, rel: str) -> str:
        row = self.db.execute("SELECT body, kind FROM files WHERE rel = ?", (rel,)).fetchone()
        if row is None:
            return ""
        return self._body_of(rel, row[1], row[0])

    def _body_of(self, rel: str, kind: str, stored: bytes | None) -> str:
        """The stored body, or for a text kind the file's text as it is now (decoded as indexing decodes it).
        A file that is gone, unreadable or now leads outside the workspace has no body ("")."""
        if stored is not None:
            return zlib.decompress(stored).decode("utf-8", "surrogatepass")
        if kind not in BODY_FROM_FILE_KINDS:
            return ""
        try:
            data = read_indexed_bytes(os_path(self.root, rel), kind, self.root)
            return decode_text(bytes(data))[0]
        except (OSError, OutsideWorkspace, SkipFile, ValueError):
            return ""  # the watcher or the next refresh records what happened to the file

    _DOCUMENT_COLUMNS = ("SELECT rel, kind, mtime_ms, size, content_hash, title, summary, body, truncated,"
                         " page_starts, refs, reason FROM files WHERE state = 'indexed'")

    def stored_documents(self) -> Iterator[tuple[Document, list[Ref]]]:
        """Every indexed document with its body, for rebuilding the postings without reading the workspace
        (except the Markdown and text files, whose body is their file)."""
        for row in self.db.execute(self._DOCUMENT_COLUMNS + " ORDER BY rel"):
            yield self._document_of(row)

    def stored_document(self, rel: str) -> tuple[Document, list[Ref]] | None:
        """One indexed document with its body and links; None when `rel` has no indexed row."""
        row = self.db.execute(self._DOCUMENT_COLUMNS + " AND rel = ?", (rel,)).fetchone()
        return None if row is None else self._document_of(row)

    def _document_of(self, row: tuple) -> tuple[Document, list[Ref]]:
        import json

        rel, kind, mtime, size, digest, title, summary, body, truncated, pages, refs, reason = row
        text = self._body_of(rel, kind, body)
        if kind in BODY_FROM_FILE_KINDS:
            # Made from the file's text as indexing made them (a file gone since: its name, no summary, until the
            # next look at the workspace removes it).
            title, summary = text_title_and_summary(text, rel, kind)
        else:
            title, summary = title or "", summary or ""
        doc = Document(rel, kind, title, summary, mtime, size, text, bool(truncated), _hash_text(digest),
                       json.loads(pages) if pages else [], reason if reason != TRUNCATED_NOTE else "")
        return doc, [Ref(raw, line) for raw, line in json.loads(refs)] if refs else []

    # --- snapshot ------------------------------------------------------------------------------------

    def save_snapshot(self, index: SearchIndex, refs: dict[str, list[Ref]]) -> None:
        if self.read_only or postings_damaged(index):
            return  # (damaged: its postings file is gone, so the next start rebuilds them from the rows)
        packed_trigrams = index.packed_trigrams  # (not loaded since the open: saved as they were read)
        version = index.version
        postings = _pack_postings(index)
        if postings_damaged(index):
            # A block read for the packing was damaged inside: its lists were packed empty. Not committed (the
            # next start would trust the loss); the damaged file is gone, so the rows rebuild the postings.
            return
        blocks: list[bytes] = postings.pop("blocks")
        state = {
            "format": SNAPSHOT_FORMAT,
            "documents": DocumentColumns.of_table(index.docs).dump(),
            "lengths": compressed(index.lengths.tobytes()),
            "tokens": _dump_slices(index.tokens),
            # Token ids by token: a start looks its few query terms up without building the dictionary.
            "token_order": compressed(
                array("I", sorted(range(len(index.tokens)), key=index.tokens.__getitem__)).tobytes()),
            "postings": postings,
            # (Slices: an older format's, converted now; or lists _pack_trigrams could not write as gaps.)
            "trigrams": packed_trigrams if isinstance(packed_trigrams, dict) else _pack_trigrams(index.trigrams),
            "refs": _dump_slices([(rel, [(r.raw, r.line) for r in items]) for rel, items in refs.items()]),
        }
        try:
            name, fd = self._commit_snapshot(state, postings, blocks,
                                             reopen=isinstance(index.post_docs, LazyPostingLists))
        except (OSError, sqlite3.OperationalError) as exc:
            if not _is_disk_full(exc):
                raise
            # The rows are the durable truth and the previous snapshot is still whole: the next start catches
            # up from the journal. Said once, in one line, instead of failing the command that saved.
            self.notice = (f"the disk holding the index {self.path.parent} is full; "
                           "the index was not saved (it is caught up on the next start)")
            return
        del blocks, state  # (the blocks' 31 MB at 100,000 files go before the file is read again)
        if fd is not None and index.version != version:
            os.close(fd)  # (a document came or went since the packing: the lists written are not the lists held)
        elif fd is not None:
            # The process reads its postings from the file just written, and lets go of the documents added since
            # it loaded (a tail per word of every file edited, 14 MB after 90 edits at 100,000 files) and of the
            # old file. The next save reuses every block untouched since this one instead of packing again every
            # block an edit ever touched.
            written = _opened_blocks(postings, self.path.parent, fd)
            if written is not None and len(index.post_docs) == len(written.lengths):
                index.set_postings(*_lazy_posting_lists(written))
        self._delete_postings_files(keep=name)
        with contextlib.suppress(sqlite3.OperationalError):  # busy: the pages are reused, or freed next time
            self.db.executescript("PRAGMA incremental_vacuum;")  # (execute() would free one page: one step)
        self._compact_if_grown()

    def _compact_if_grown(self) -> None:
        """VACUUM the database when it has grown to COMPACT_GROWTH times its size at the last compaction."""
        pages = 0
        try:
            pages = int(self.db.execute("PRAGMA page_count").fetchone()[0])
            row = self.db.execute("SELECT value FROM meta WHERE key = 'compacted_pages'").fetchone()
            try:
                last = int(row[0]) if row is not None else 0
            except ValueError:
                last = 0
            if pages < COMPACT_MIN_PAGES or pages < COMPACT_GROWTH * max(last, self._compaction_refused_at):
                return
            # A connection of its own, with waits of its own: this connection waits BUSY_TIMEOUT_S for others, and
            # cutting the log back waits for every process still reading an older state of the file (a start
            # rebuilding from the rows, a rank): the save that compacts stood still until they were done.
            db = sqlite3.connect(str(self.path), isolation_level=None, timeout=COMPACT_BUSY_S)
            try:
                db.execute("PRAGMA synchronous=NORMAL")  # (as _connect: the commit does not wait for the disk)
                db.execute("VACUUM")
                pages = int(db.execute("PRAGMA page_count").fetchone()[0])
                db.execute("INSERT OR REPLACE INTO meta (key, value) VALUES ('compacted_pages', ?)", (str(pages),))
                # The whole file went through the write-ahead log: it is cut back now rather than staying that
                # large for as long as this process keeps the database open; with a reader still on the older
                # state it is not waited for (the log is cut back when the last connection closes).
                db.execute("PRAGMA busy_timeout = 0")
                db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
            finally:
                db.close()
        except sqlite3.OperationalError as exc:
            if _is_disk_full(exc):
                self._compaction_refused_at = pages
            # (else busy, another process writing: compacted at a later save)

    def _commit_snapshot(self, state: dict, postings: dict, blocks: list[bytes],
                         reopen: bool = False) -> tuple[str, int | None]:
        """Write the postings file and the snapshot row in one transaction; returns the file's name and, with
        `reopen`, the file opened for reading (None where it could not be), opened before another process's save
        can remove it."""
        fd: int | None = None
        try:
            with self.transaction():
                # The postings blocks go to a file of their own beside the database, which a process maps instead
                # of holding them (31 MB at 100,000 files). A new file per snapshot: a process that mapped the
                # previous one keeps reading it. Written while this transaction holds the write lock, so no other
                # process is writing one when the old ones are removed below.
                generation = self.generation
                name = f"{self.path.name}{POSTINGS_SUFFIX}{generation}-{os.getpid()}-{time.monotonic_ns()}"
                postings["file"] = name
                postings["offsets"] = _write_blocks(self.path.parent / name, blocks)
                # Bytes slices only, each compressed on its own: quick to write, and a start inflates only what
                # it reads.
                data = marshal.dumps(state)
                self.db.execute("INSERT OR REPLACE INTO snapshot (id, generation, data) VALUES (1, ?, ?)",
                                (generation, data))
                self.db.execute("DELETE FROM changes WHERE generation <= ?", (generation,))
                # The file of the snapshot committed here, where another process's save finds it cheaply: a save
                # removes every postings file but that one (see _delete_postings_files).
                self.db.execute("INSERT OR REPLACE INTO meta (key, value) VALUES ('postings_file', ?)", (name,))
                if reopen:  # (still holding the write lock: no other process's save removes the file meanwhile)
                    with contextlib.suppress(OSError):  # (the process reads the blocks it has, as it did)
                        fd = os.open(self.path.parent / name, os.O_RDONLY | getattr(os, "O_BINARY", 0))
        except BaseException:
            if fd is not None:
                os.close(fd)
            raise
        return name, fd

    def _delete_postings_files(self, keep: str) -> None:
        """Remove the postings files of earlier snapshots (a process that mapped one keeps its pages; where the
        system refuses to remove a mapped file, a later save removes it). Done under the write lock, keeping the
        file of the snapshot committed last: between this process's commit and now another process may have
        committed a newer snapshot, and removing its file made every later start rebuild from the rows (or
        removed its half-written file under it)."""
        if keep:
            try:
                with self.transaction():
                    row = self.db.execute("SELECT value FROM meta WHERE key = 'postings_file'").fetchone()
                    self._remove_postings_files(keep=str(row[0]) if row is not None else keep)
            except sqlite3.OperationalError:
                pass  # busy for long: the next save removes them
            return
        self._remove_postings_files(keep)

    def _remove_postings_files(self, keep: str) -> None:
        with contextlib.suppress(OSError):
            for path in self.path.parent.glob(glob_escape(self.path.name) + POSTINGS_SUFFIX + "*"):
                if path.name != keep:
                    with contextlib.suppress(OSError):
                        if path.is_dir() and not path.is_symlink():
                            shutil.rmtree(path)  # (something else made a folder there: it would stay forever)
                        else:
                            path.unlink()

    def load_snapshot(self) -> tuple[SearchIndex, dict[str, list[Ref]], list[str]] | None:
        """The saved postings, their links and the files whose rows were written after the snapshot was saved
        (read them again: `stored_document`); None when there is no usable snapshot or too much changed since."""
        for attempt in (1, 2):
            try:
                return self._load_snapshot()
            except FileNotFoundError:
                # Its postings file was removed between reading the snapshot and opening the file: another
                # process saved a newer snapshot just then. That one is read instead.
                if attempt == 2:
                    return None
        return None

    def _load_snapshot(self) -> tuple[SearchIndex, dict[str, list[Ref]], list[str]] | None:
        row = self.db.execute("SELECT generation, data FROM snapshot WHERE id = 1").fetchone()
        if row is None:
            return None
        current = self.generation
        if row[0] == current:
            since: list[str] = []
        elif 0 <= row[0] < current:
            since = [r[0] for r in self.db.execute(
                "SELECT rel FROM changes WHERE generation > ? ORDER BY rel LIMIT ?", (row[0], MAX_CATCH_UP + 1))]
            if not since or len(since) > MAX_CATCH_UP:
                return None  # (none journaled though the generation moved: the journal cannot be trusted)
        else:
            return None
        try:
            state = marshal.loads(row[1])
        except (ValueError, EOFError, TypeError):
            return None
        if not isinstance(state, dict) or not OLDEST_CONVERTED_FORMAT <= state.get("format", -1) <= SNAPSHOT_FORMAT:
            return None  # an older format (or a newer one, from a later version): rebuilt from the rows
        try:
            if state["format"] >= 9:  # (format 9 differs from 10 only in its trigrams)
                columns = DocumentColumns.load(state["documents"])
            else:  # format 8: one tuple per document
                items: list[RowValues | None] = _load_slices(state["docs"])
                columns = DocumentColumns.of_rows(items)
            lengths = array("I", zstandard.ZstdDecompressor().decompress(state["lengths"]))
            tokens = _load_slices(state["tokens"])
            refs_items = _load_slices(state["refs"])
            postings = _unpack_postings(state["postings"], self.path.parent)
            packed_trigrams = state["trigrams"]
            if not isinstance(packed_trigrams, (list, dict)):
                raise ValueError("trigrams are neither gaps nor slices")
        except (ValueError, EOFError, TypeError, KeyError, zstandard.ZstdError):
            return None
        except OSError as exc:
            if isinstance(exc, FileNotFoundError):
                raise
            return None
        if columns.count and (columns.count - int(columns.alive.sum())) / columns.count > MAX_DEAD_SHARE:
            return None
        if len(lengths) != 3 * columns.count:
            return None

        def build(values: RowValues) -> Document:
            return StoredDocument.of(self, *values)

        index = SearchIndex(DocumentTable(columns, build))
        index.lengths = lengths
        index.tokens = tokens
        if "token_order" in state:
            try:
                order = array("I", zstandard.ZstdDecompressor().decompress(state["token_order"]))
                if len(order) and int(np.frombuffer(order, dtype=np.uint32).max()) >= len(tokens):
                    raise ValueError("a token id out of range")
                index.defer_vocab(order)
            except (ValueError, TypeError, zstandard.ZstdError):
                return None
        else:  # format 8
            index.vocab = {token: tid for tid, token in enumerate(tokens)}
        index.set_postings(*postings)
        known = len(tokens)  # (tokens added later add their own trigrams)
        index.defer_trigrams(lambda: _trigrams_of(packed_trigrams, lambda: tokens[:known]), packed_trigrams)
        index.snapshot_outdated = state["format"] != SNAPSHOT_FORMAT
        index.version = 1
        refs = {rel: [Ref(raw, line) for raw, line in items] for rel, items in refs_items}
        return index, refs, since


def _stored_hash(digest: str) -> bytes | str:
    """A content hash as its row keeps it: the bytes of a hex digest (16 for ours; half the size of the text), or
    anything else as the text it is (read back unchanged by _hash_text)."""
    try:
        raw = bytes.fromhex(digest)
    except ValueError:
        return digest
    return raw if raw.hex() == digest else digest


def _hash_text(stored: bytes | str | None) -> str:
    """The content hash a row keeps, as the hex text documents and the change check compare."""
    if isinstance(stored, bytes):
        return stored.hex()
    return stored if isinstance(stored, str) else ""  # (NULL or a number in a damaged row: no hash, read again)


def _is_disk_full(exc: BaseException) -> bool:
    if isinstance(exc, OSError):
        return exc.errno in (errno.ENOSPC, errno.EDQUOT)
    return "disk is full" in str(exc)


def postings_damaged(index: SearchIndex) -> bool:
    """Whether a block of the snapshot `index` was loaded from was found damaged as it was inflated."""
    docs = index.post_docs
    return isinstance(docs, LazyPostingLists) and docs.source is not None and docs.source.damaged


def _pack_trigrams(trigrams: MutableMapping[str, list[int]]) -> dict | list[bytes]:
    """Token ids by trigram as the snapshot keeps them: the trigrams end to end (three characters each), how many
    ids each has, and the ids as gaps from the one before in their list (the first as it is), as uint32 split into
    their four byte planes and compressed (the upper planes are nearly all zeros): 0.37 MB where the lists as
    marshalled slices took 0.81 MB, for 295,000 ids of a 36,000-token vocabulary. A list is ascending (ids are
    appended as tokens are made); one that is not, or a key that is not three characters, is saved as slices."""
    keys = list(trigrams)
    lengths = np.fromiter(map(len, trigrams.values()), dtype=np.int64, count=len(keys))
    ids = np.fromiter(chain.from_iterable(trigrams.values()), dtype=np.int64, count=int(lengths.sum()))
    gaps = np.diff(ids, prepend=0)
    firsts = (np.cumsum(lengths) - lengths)[lengths > 0]
    gaps[firsts] = ids[firsts]
    if (gaps < 0).any() or (len(gaps) and int(gaps.max()) >= 2**32) or any(len(k) != 3 for k in keys):
        return _dump_slices(list(trigrams.items()))
    planes = gaps.astype(np.uint32).view(np.uint8).reshape(-1, 4).T
    return {"keys": compressed("".join(keys).encode("utf-8", "surrogatepass")),
            "lengths": compressed(lengths.astype(np.uint32).tobytes()),
            "gaps": compressed(np.ascontiguousarray(planes).tobytes())}


class TrigramLists(MutableMapping[str, list[int]]):
    """Token ids by trigram from a snapshot, each list made when its trigram is first asked for: the fuzzy layer
    looks up a few trigrams of a word, of 11,000 (making every list up front took 10 ms), and the ids not asked for
    stay one array instead of Python lists."""

    __slots__ = ("_lists", "_ids", "_bounds")

    def __init__(self, keys: list[str], ids: np.ndarray, bounds: list[int]) -> None:
        self._lists: dict[str, list[int] | int] = dict(zip(keys, range(len(keys))))  # a list, or where it is
        self._ids = ids
        self._bounds = bounds  # list k: ids[bounds[k] : bounds[k + 1]]

    def __getitem__(self, key: str) -> list[int]:
        value = self._lists[key]
        if isinstance(value, int):
            value = self._ids[self._bounds[value] : self._bounds[value + 1]].tolist()
            self._lists[key] = value
        return value

    def __setitem__(self, key: str, value: list[int]) -> None:
        self._lists[key] = value

    def __delitem__(self, key: str) -> None:
        del self._lists[key]

    def __iter__(self) -> Iterator[str]:
        return iter(self._lists)

    def __len__(self) -> int:
        return len(self._lists)


def _unpack_trigrams(packed: dict) -> TrigramLists:
    joined = decompressed(packed["keys"]).decode("utf-8", "surrogatepass")
    keys = [joined[i : i + 3] for i in range(0, len(joined), 3)]
    lengths = np.frombuffer(decompressed(packed["lengths"]), dtype=np.uint32).astype(np.int64)
    planes = np.frombuffer(decompressed(packed["gaps"]), dtype=np.uint8)
    n = int(lengths.sum())
    if len(keys) != len(lengths) or len(planes) != 4 * n or len(joined) != 3 * len(keys):
        raise ValueError("trigram lists do not match their keys")
    gaps = np.empty((n, 4), dtype=np.uint8)
    for plane in range(4):
        gaps[:, plane] = planes[plane * n : (plane + 1) * n]
    running = np.cumsum(gaps.view(np.uint32).ravel(), dtype=np.int64)
    bounds = np.zeros(len(lengths) + 1, dtype=np.int64)
    np.cumsum(lengths, out=bounds[1:])
    # Each list's ids: the running sum less the sum before the list starts.
    before = np.zeros(len(lengths), dtype=np.int64)
    starts = bounds[:-1]
    before[starts > 0] = running[starts[starts > 0] - 1]
    return TrigramLists(keys, running - np.repeat(before, lengths), bounds.tolist())


def _trigrams_of(packed: dict | list[bytes],
                 tokens: Callable[[], Sequence[str]] = tuple) -> MutableMapping[str, list[int]]:
    try:
        return _unpack_trigrams(packed) if isinstance(packed, dict) else dict(_load_slices(packed))
    except (ValueError, EOFError, TypeError, KeyError, zstandard.ZstdError):
        # Unreadable: made again from the snapshot's tokens, of which they are a function. (Left empty, the next
        # save kept them empty and near-misses were never found again.)
        return trigrams_of_tokens(tokens())


def _dump_slices(items: list) -> list[bytes]:
    return [compressed(marshal.dumps(items[i : i + SNAPSHOT_SLICE]))
            for i in range(0, len(items), SNAPSHOT_SLICE)]


def _load_slices(slices: list[bytes]) -> list:
    items: list = []
    for piece in slices:
        items.extend(marshal.loads(zstandard.ZstdDecompressor().decompress(piece)))
    return items


# Postings are saved in blocks of about this many entries, each compressed on its own (zstd, fast level: the
# counts are mostly 0 and 1 and the ids ascend, so a block shrinks about ninefold), and a block is only
# decompressed when a term inside it is first looked up: a one-query process touches a few blocks of hundreds.
# A quarter of the 65,536 entries they once held: a term's first lookup inflated 650 kB for a list of a few
# hundred (0.2 ms of a rare term's first query at 100,000 documents, 0.05 ms now), for 3% more on disk.
POSTINGS_BLOCK = 16384
# With a checksum (4 bytes a block, checked as it is inflated): a block damaged inside could otherwise inflate to
# the right size holding wrong document ids.
_BLOCK_ZSTD = zstandard.ZstdCompressor(level=1, write_checksum=True)
POSTINGS_SUFFIX = ".postings-"  # <database name>.postings-<snapshot>: the blocks of one snapshot, end to end


def _reusable_blocks(index: SearchIndex) -> dict[int, tuple[int, Any]]:
    """The loaded snapshot's blocks no posting list of which has changed since: first token -> (end, block)."""
    docs, tfs = index.post_docs, index.post_tfs
    if not isinstance(docs, LazyPostingLists) or not isinstance(tfs, LazyPostingLists) or docs.source is None:
        return {}
    source = docs.source
    touched = docs.touched_blocks(source.block_tokens) | tfs.touched_blocks(source.block_tokens)
    bounds = source.block_tokens.tolist()
    return {t0: (t1, source.blocks[b]) for b, (t0, t1) in enumerate(zip(bounds, bounds[1:]))
            if t1 > t0 and not touched[b]}


def _pack_postings(index: SearchIndex) -> dict:
    """All posting lists as blocks of consecutive tokens, each block four columns (document ids as uint32,
    title / summary / body counts as uint16) compressed together, plus where each token's list starts. A block
    ends at the first token boundary past POSTINGS_BLOCK entries, and is compressed as soon as it is complete:
    a save holds one block uncompressed, not every posting (126 MB at 100,000 files). A block of the loaded
    snapshot whose lists did not change is written again as it is, without being decompressed."""
    post_docs, post_tfs = index.post_docs, index.post_tfs
    if type(post_docs) is list and type(post_tfs) is list:
        return _pack_listed_postings(post_docs, post_tfs)
    lengths = array("I")
    bounds = [0]
    blocks: list[bytes] = []
    reusable = _reusable_blocks(index)

    def columns() -> list[array]:
        return [array("I"), array("H"), array("H"), array("H")]

    def close(block: list[array], end: int) -> None:
        blocks.append(bytes(memoryview(_BLOCK_ZSTD.compress(b"".join(c.tobytes() for c in block)))))
        bounds.append(end)

    block = columns()
    tid, count = 0, len(index.post_docs)
    while tid < count:
        if tid in reusable:
            if len(block[0]) or bounds[-1] != tid:
                close(block, tid)
                block = columns()
            end, packed = reusable[tid]
            source = index.post_docs.source  # type: ignore[attr-defined]
            lengths.extend(source.lengths[tid:end].tolist())
            blocks.append(bytes(packed))
            bounds.append(end)
            tid = end
            continue
        if len(block[0]) >= POSTINGS_BLOCK:
            close(block, tid)
            block = columns()
        # (peek: a list cut from the loaded snapshot for this is not kept, or a save would hold them all)
        docs, tfs = peek_posting_list(index.post_docs, tid), peek_posting_list(index.post_tfs, tid)
        lengths.append(len(docs))
        block[0].extend(docs)
        for column, values in zip(block[1:], tfs):
            column.extend(values)
        tid += 1
    if len(block[0]) or bounds[-1] != count or not blocks:
        close(block, count)
    return {"lengths": compressed(lengths.tobytes()), "block_tokens": bounds, "blocks": blocks}


def _pack_listed_postings(post_docs: list[array], post_tfs: list[tuple[array, array, array]]) -> dict:
    """`_pack_postings` for lists all held in memory (an index built here, not loaded from a snapshot): the same
    blocks, each joined from its tokens' lists in C instead of a token at a time (at 20,000 documents, 41,000
    tokens were looped over in Python)."""
    count = len(post_docs)
    lengths = array("I", map(len, post_docs))
    bounds = [0]
    blocks: list[bytes] = []
    filled = 0
    for tid, size in enumerate(lengths):  # a block ends at the first token boundary past POSTINGS_BLOCK entries
        if filled >= POSTINGS_BLOCK:
            bounds.append(tid)
            filled = 0
        filled += size
    if bounds[-1] != count or count == 0:
        bounds.append(count)
    for start, end in zip(bounds, bounds[1:]):
        tfs = post_tfs[start:end]
        block = b"".join((b"".join(post_docs[start:end]), *(b"".join([t[f] for t in tfs]) for f in range(3))))
        blocks.append(bytes(memoryview(_BLOCK_ZSTD.compress(block))))
    return {"lengths": compressed(lengths.tobytes()), "block_tokens": bounds, "blocks": blocks}


def _write_blocks(path: Path, blocks: list[bytes]) -> bytes:
    """Write the blocks end to end (complete before the name appears); returns where each starts and the end."""
    offsets = np.zeros(len(blocks) + 1, dtype=np.int64)
    np.cumsum([len(b) for b in blocks], out=offsets[1:])
    partial = path.with_name(path.name + ".partial")
    try:
        with open(partial, "wb") as out:
            for block in blocks:
                out.write(block)
        os.replace(partial, path)
    except OSError:
        with contextlib.suppress(OSError):
            partial.unlink()  # (a full disk: the space it took goes back at once)
        raise
    return compressed(offsets.tobytes())


FRAME_HEADER_MAX = 18  # bytes: the longest zstd frame header


class _FileBlocks:
    """The blocks of a postings file, each read from the file when it is asked for (`blocks[b]`: its bytes).

    Read, not mapped: the pages of a mapped file a process has read count in its resident memory for as long as
    the kernel leaves them there, and a server's queries touched 20 MB of a 100,000-file workspace's postings
    (all of it in time), where a read block is held only while it is inflated. The file stays open, so a
    process goes on reading the file it opened after a newer snapshot removed it."""

    def __init__(self, fd: int, bounds: list[int]) -> None:
        self._fd = fd
        self._bounds = bounds
        weakref.finalize(self, os.close, fd)

    def __len__(self) -> int:
        return len(self._bounds) - 1

    def __getitem__(self, b: int) -> bytes:
        if not 0 <= b < len(self):
            raise IndexError(b)
        start, end = self._bounds[b], self._bounds[b + 1]
        return os.pread(self._fd, end - start, start)  # (short when the file was cut since: found as damage)


def _file_blocks(path: Path, packed_offsets: bytes, fd: int | None = None) -> tuple[_FileBlocks, list[bytes]]:
    """The blocks of a postings file (`fd`: already open, closed here on failure) and the first bytes of each
    (its frame header)."""
    if fd is None:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_BINARY", 0))
    try:
        offsets = np.frombuffer(zstandard.ZstdDecompressor().decompress(packed_offsets), dtype=np.int64)
        size = os.fstat(fd).st_size
        if len(offsets) == 0 or offsets[-1] != size or (np.diff(offsets) < 0).any():
            raise ValueError("the postings file does not match its snapshot")
        bounds = offsets.tolist()
        heads = [os.pread(fd, min(FRAME_HEADER_MAX, b - a), a) for a, b in zip(bounds, bounds[1:])]
    except BaseException:
        os.close(fd)
        raise
    return _FileBlocks(fd, bounds), heads


def _check_block_headers(heads: list[bytes], sizes: list[int]) -> None:
    """Each block must open with a zstd frame header announcing the size its lists take: a postings file
    overwritten (zero-filled, another file copied over it) is found at the open, where the rows rebuild it,
    rather than at the first query. Only the first bytes of each block are read (`heads`)."""
    for head, size in zip(heads, sizes):
        try:
            announced = zstandard.frame_content_size(head)
        except zstandard.ZstdError:
            raise ValueError("a postings block is not a zstd frame") from None
        if announced != size:
            raise ValueError("a postings block does not hold its lists")


class LazyPostingLists(list):
    """Per-token posting arrays cut from the snapshot's blocks on first use; most tokens are never queried
    in a session, so a warm start neither decompresses nor builds the ~100k small arrays up front.

    Documents added since the snapshot go to a tail of each of their tokens (`appendable`) that reads append to
    what is cut from the blocks: keeping each token's whole list to append to held on to every list of every word
    of every edited file (160 MB more after 80 edits at 100,000 documents, for good)."""

    def __init__(self, count: int, build: Callable[[int], object], source: _PostingBlocks | None = None,
                 empty: Callable[[], object] | None = None) -> None:
        super().__init__([None] * count)
        self._build = build
        self._empty = empty  # a new, empty tail (None: append to the whole list, kept)
        self._tails: dict[int, Any] = {}
        self.source = source  # the blocks the lists are cut from
        self.partner: LazyPostingLists | None = None  # the counts' lists beside these ids' lists

    def peek_arrays(self, i: int) -> tuple[np.ndarray, np.ndarray] | None:
        """Token `i`'s ids and counts as arrays straight from the blocks (see _PostingBlocks.arrays), with the
        documents added since after them, or None when a list of it was kept (ask `peek`)."""
        partner = self.partner
        if self.source is None or partner is None or super().__getitem__(i) is not None \
                or list.__getitem__(partner, i) is not None:
            return None
        ids, counts = self.source.arrays(i)
        tail = self._tails.get(i)
        if tail is None:
            return ids, counts
        counts_tail = partner._tails[i]
        added = np.frombuffer(tail, dtype=np.uint32).view(np.int32)
        rows = np.array([np.frombuffer(column, dtype=np.uint16) for column in counts_tail], dtype=np.uint16)
        return np.concatenate((ids, added)), np.concatenate((counts, rows.reshape(3, len(added))), axis=1)

    def touched_blocks(self, block_tokens: np.ndarray) -> np.ndarray:
        """Per block (tokens block_tokens[b] .. block_tokens[b + 1] - 1): whether a list of its tokens was kept or
        added to (only those can have changed). Found from the tokens touched, not by asking each block about
        every tail (77 ms per save after 90 edits at 100,000 files, 340 ms with 39,000 tails)."""
        touched = np.zeros(max(len(block_tokens) - 1, 0), dtype=bool)
        end = int(block_tokens[-1]) if len(block_tokens) else 0
        held = super().__getitem__(slice(0, end))
        ids: list[int] = [] if held.count(None) == len(held) else [i for i, v in enumerate(held) if v is not None]
        ids.extend(i for i in self._tails if i < end)
        if ids:
            touched[np.searchsorted(block_tokens, ids, side="right") - 1] = True
        return touched

    def appendable(self, i: int) -> Any:
        """What documents added to token `i` are appended to: its list once kept, else a tail of its own."""
        if self._empty is None or super().__getitem__(i) is not None:
            return self[i]
        tail = self._tails.get(i)
        if tail is None:
            tail = self._tails[i] = self._empty()
        return tail

    def __getitem__(self, i: Any) -> Any:
        value = super().__getitem__(i)
        if value is None:
            value = self._with_tail(i, self._build(i), keep=True)
            super().__setitem__(i, value)
        return value

    def peek(self, i: int) -> Any:
        """Entry `i`, cut again on every call unless something kept it."""
        value = super().__getitem__(i)
        return self._with_tail(i, self._build(i), keep=False) if value is None else value

    def _with_tail(self, i: int, cut: Any, keep: bool) -> Any:
        tail = self._tails.pop(i, None) if keep else self._tails.get(i)
        if tail is None:
            return cut
        if isinstance(cut, tuple):  # (the counts: title, summary, body)
            return tuple(whole + added for whole, added in zip(cut, tail))
        return cut + tail

    def __iter__(self) -> Iterator[Any]:
        return (self[i] for i in range(len(self)))


class _PostingBlocks:
    """The saved blocks with a small cache of decompressed ones (a query's terms often share blocks)."""

    CACHED = 4

    def __init__(self, packed: dict, folder: Path, fd: int | None = None) -> None:
        # Format 9: in a file beside the database (read, not mapped); format 8: inside the snapshot. The file
        # first: from here on its descriptor (`fd`, when already open) is closed with `blocks`, whatever fails.
        self.path = folder / str(packed["file"]) if "file" in packed else None
        self.blocks: _FileBlocks | list[bytes]
        if self.path is not None:
            self.blocks, heads = _file_blocks(self.path, packed["offsets"], fd)
        else:
            blocks: list[bytes] = packed["blocks"]
            self.blocks = blocks
            heads = [bytes(block[:FRAME_HEADER_MAX]) for block in blocks]
        self.lengths = np.frombuffer(zstandard.ZstdDecompressor().decompress(packed["lengths"]), dtype=np.uint32)
        self.starts = np.zeros(len(self.lengths) + 1, dtype=np.int64)
        np.cumsum(self.lengths, out=self.starts[1:])
        self.block_tokens = np.asarray(packed["block_tokens"], dtype=np.int64)
        if len(self.block_tokens) != len(self.blocks) + 1 or self.block_tokens[-1] != len(self.lengths):
            raise ValueError("postings blocks do not cover the vocabulary")
        _check_block_headers(heads, (np.diff(self.starts[self.block_tokens]) * 10).tolist())
        self._decoded: dict[int, tuple[np.ndarray, ...]] = {}
        self.damaged = False  # a block failed to decompress: see _block

    def _block(self, b: int) -> tuple[np.ndarray, ...]:
        decoded = self._decoded.get(b)
        if decoded is None:
            n = int(self.starts[self.block_tokens[b + 1]] - self.starts[self.block_tokens[b]])
            try:
                raw = decompressed(self.blocks[b])
            except zstandard.ZstdError:
                raw = b""
            if len(raw) != n * 10:
                # Damaged inside (its header was whole at the open): its terms answer nothing rather than failing
                # every query, and the snapshot is not trusted again (see `damaged`).
                self.damaged = True
                if self.path is not None:  # the next start (here or in any process) rebuilds from the rows
                    with contextlib.suppress(OSError):
                        self.path.unlink()
                raw = bytes(n * 10)
                n = 0
            decoded = (np.frombuffer(raw, dtype=np.uint32, count=n),
                       *(np.frombuffer(raw, dtype=np.uint16, count=n, offset=n * (4 + 2 * f)) for f in range(3)))
            if len(self._decoded) >= self.CACHED:
                self._decoded.clear()
            self._decoded[b] = decoded
        return decoded

    def _span(self, i: int) -> tuple[tuple[np.ndarray, ...], int, int]:
        b = int(np.searchsorted(self.block_tokens, i, side="right")) - 1
        base = int(self.starts[self.block_tokens[b]])
        return self._block(b), int(self.starts[i]) - base, int(self.starts[i + 1]) - base

    def arrays(self, i: int) -> tuple[np.ndarray, np.ndarray]:
        """Token `i`'s list as a query reads it: int32 ids and a (3, n) uint16 table of counts, each copied once
        out of the inflated block (through `cut` a list was copied three times: 0.5 ms of the first query of a
        word in most of 100,000 documents)."""
        (ids, *tfs), lo, hi = self._span(i)
        if len(ids) and 2 * (hi - lo) >= len(ids):
            # Most of its block (a word in many documents has a block of its own): read-only views of the inflated
            # block, which the list then keeps, instead of copies (850 kB a copy, and its page faults, for a word
            # in 85,000 documents).
            counts = np.lib.stride_tricks.as_strided(tfs[0][lo:], shape=(3, hi - lo),
                                                     strides=(tfs[1].ctypes.data - tfs[0].ctypes.data, 2),
                                                     writeable=False)
            return ids[lo:hi].view(np.int32), counts
        out = ids[lo:hi].astype(np.int32)  # (empty from a damaged block, as its counts)
        rows = np.empty((3, len(out)), dtype=np.uint16)
        for f, column in enumerate(tfs):
            rows[f] = column[lo:hi]
        return out, rows

    def cut(self, i: int) -> tuple[array, tuple[array, array, array]]:
        (ids, *tfs), lo, hi = self._span(i)
        docs = array("I")
        docs.frombytes(ids[lo:hi].tobytes())
        columns = []
        for column in tfs:
            values = array("H")
            values.frombytes(column[lo:hi].tobytes())
            columns.append(values)
        return docs, tuple(columns)  # type: ignore[return-value]


def _opened_blocks(packed: dict, folder: Path, fd: int) -> _PostingBlocks | None:
    """The blocks of a postings file just written, read through `fd` (closed when they cannot be read)."""
    try:
        return _PostingBlocks(packed, folder, fd)
    except (OSError, ValueError, zstandard.ZstdError):
        return None


def _unpack_postings(packed: dict, folder: Path) -> tuple[list, list]:
    if "file" in packed and (not isinstance(packed["file"], str) or "/" in packed["file"] or "\\" in packed["file"]):
        raise ValueError("a postings file name that is not a plain name")
    return _lazy_posting_lists(_PostingBlocks(packed, folder))


def _lazy_posting_lists(blocks: _PostingBlocks) -> tuple[LazyPostingLists, LazyPostingLists]:
    """The ids' and the counts' lists of every token, cut from `blocks` as they are first asked for."""
    cut: dict[int, tuple] = {}

    def both(i: int) -> tuple:
        # The two lists are asked for one after the other; the pair is cut once.
        pair = cut.pop(i, None)
        if pair is None:
            pair = cut[i] = blocks.cut(i)
        return pair

    docs = LazyPostingLists(len(blocks.lengths), lambda i: both(i)[0], blocks, empty=lambda: array("I"))
    tfs = LazyPostingLists(len(blocks.lengths), lambda i: both(i)[1], blocks,
                           empty=lambda: (array("H"), array("H"), array("H")))
    docs.partner = tfs
    return docs, tfs
