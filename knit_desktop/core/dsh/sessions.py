"""DSH sessions on disk: where they are, what each one says, and which one the user is talking in.

Read-only. Reference: dsh-sessions.md §1 (layout, transcript names, header, event shapes, synthetic messages).
"""

from __future__ import annotations

import json
import os
import re
from dataclasses import dataclass, field
from pathlib import Path

from ..config import SharedSettings
from .conversation import Message
from .log import LogReader, file_mtime_ms

KEEP_MESSAGES = 500  # the newest messages a followed session keeps (the ranker reads the last 6)
KEEP_READS = 2000  # the newest successful or failed `read` calls (the usage line audits the recent ones)
KEEP_CALLS = 1000  # `read` calls still waiting for their result
MESSAGE_TEXT_CHARS = 100_000  # one message's text as kept (the ranker reads its first 2,000 characters)

TRANSCRIPT = re.compile(r"^session(?:\.v([1-9][0-9]*))?\.jsonl(\.zstd)?$")
_ROOT_ROW = re.compile(r"session-persistence-jsonl")


def dsh_home(explicit: str | None = None) -> Path:
    """--dsh-home, else the folder chosen in the window's settings, else DSH_HOME (blank counts as unset),
    else ~/.dsh."""
    if explicit:
        return Path(os.path.expanduser(explicit))
    chosen = SharedSettings.load().dsh_home
    if chosen:
        return Path(os.path.expanduser(chosen))
    env = os.environ.get("DSH_HOME", "").strip()
    return Path(os.path.expanduser(env)) if env else Path.home() / ".dsh"


def _root_value(line: str) -> str | None:
    """The value of a YAML `root: <path>` line (optionally quoted, optionally followed by a comment)."""
    stripped = line.strip()
    if not stripped.startswith("root:"):
        return None
    value = stripped[5:].split("#", 1)[0].strip()
    if value[:1] in ("'", '"'):
        value = value[1:]
    if value[-1:] in ("'", '"'):
        value = value[:-1]
    value = value.strip()
    return value if value and "'" not in value and '"' not in value else None


def sessions_root(home: Path) -> Path:
    """The session-persistence-jsonl root: a profile's or the home layer's override where one can be read,
    else `<home>/sessions`. The patch files are YAML; only the row's `root:` key is looked for."""
    patches = sorted(home.glob("profiles/*/cordis.patch.yml")) + [home / "cordis.patch.yml"]
    for patch in patches:
        try:
            lines = patch.read_text(encoding="utf-8", errors="replace").splitlines()
        except OSError:
            continue
        for i, line in enumerate(lines):
            if not _ROOT_ROW.search(line):
                continue
            for follow in lines[i + 1 : i + 15]:
                if follow.lstrip().startswith("- ") and "id:" in follow:
                    break  # the next row began
                value = _root_value(follow)
                if value:
                    root = Path(os.path.expanduser(value))
                    return root if root.is_absolute() else home / root
    return home / "sessions"


def best_transcript(session_dir: Path) -> Path | None:
    """The newest generation in a session directory: highest version, `.zstd` preferred at the same version."""
    best: tuple[int, int, Path] | None = None
    try:
        names = os.listdir(session_dir)
    except OSError:
        return None
    for name in names:
        m = TRANSCRIPT.match(name)
        if m:
            key = (int(m.group(1) or 0), 1 if m.group(2) else 0, session_dir / name)
            if best is None or key[:2] > best[:2]:
                best = key
    return best[2] if best else None


@dataclass(frozen=True)
class ToolCall:
    """A tool call the log holds no result for yet (DSH writes the call before it runs the tool)."""

    call_id: str
    name: str
    seq: int
    time_ms: int
    arguments: object = None  # the raw JSON string DSH records (or an already-decoded object)

    def arguments_equal(self, request: object) -> bool:
        """Whether these are the arguments an MCP request carries (DSH stores them as a JSON string)."""
        value = self.arguments
        if isinstance(value, str):
            try:
                value = json.loads(value) if value.strip() else {}
            except ValueError:
                return False
        return (value or {}) == (request or {})


MAX_OPEN_CALLS = 64  # a session never waits on more; older entries are answered calls whose result was torn


@dataclass(frozen=True)
class Read:
    path: str
    ok: bool
    seq: int


@dataclass
class SessionLog:
    """One transcript, followed incrementally: header, title, human and assistant messages, `read` calls.

    Only the newest KEEP_MESSAGES messages and KEEP_READS reads are kept (`message_count` counts them all), so
    following a session for days, or opening a 200 MB log, holds a bounded amount however long it grows."""

    path: str
    header: dict | None = None
    title: str = ""
    messages: list[Message] = field(default_factory=list)
    reads: list[Read] = field(default_factory=list)
    problem: str = ""  # why the log could not be read (the session is then shown as unreadable)
    last_seq: int = -1  # the newest event's seq: where a pack handed out now sits in the session
    message_count: int = 0  # every message read so far, including those no longer kept in `messages`
    read_count: int = 0  # every read call recorded so far, including those no longer kept in `reads`
    open_calls: dict[str, ToolCall] = field(default_factory=dict)  # by call id, oldest first
    skipped_events: int = 0  # events whose shape could not be read
    _calls: dict[str, tuple[str, int]] = field(default_factory=dict)
    _reader: LogReader | None = None

    def __post_init__(self) -> None:
        self._reader = LogReader(self.path)

    @property
    def session_id(self) -> str:
        return str((self.header or {}).get("id", ""))

    @property
    def cwd(self) -> str:
        return str((self.header or {}).get("cwd") or "")

    @property
    def seed_length(self) -> int:
        value = (self.header or {}).get("seedLength", 0)
        return value if isinstance(value, int) else 0

    @property
    def top_level(self) -> bool:
        header = self.header or {}
        return header.get("origin") != "subagent" and not header.get("delegationDepth")

    @property
    def updated_ms(self) -> int:
        try:
            return file_mtime_ms(self.path)
        except OSError:
            return 0

    def load_header(self) -> None:
        """Just the header, for listings."""
        if self.header is None:
            try:
                self.header = self._reader.read_header()  # type: ignore[union-attr]
            except OSError as exc:
                self.problem = f"cannot read the log: {exc.strerror or exc}"
                return
            if self.header is None:
                self.problem = "the log does not start with a session header"

    def update(self) -> list[Message]:
        """Read what was appended; returns the new messages (human and assistant text only)."""
        assert self._reader is not None
        new: list[Message] = []

        def take(event: dict) -> None:
            kind = event.get("type")
            if kind == "session":
                self.header = event
                return
            if not isinstance(kind, str) or "/" not in kind:
                return  # packed chunk rows (text-chunks, …) and anything unknown
            seq = event.get("seq")
            if isinstance(seq, int):
                self.last_seq = max(self.last_seq, seq)
            if isinstance(seq, int) and seq < self.seed_length:
                return  # inherited from the parent session
            try:
                message = self._apply(kind, event, seq if isinstance(seq, int) else -1)
            except (TypeError, ValueError, AttributeError, KeyError):
                self.skipped_events += 1  # one malformed event costs that event, never the session
                return
            if message is not None:
                self.message_count += 1
                new.append(message)
                self.messages.append(message)
                if len(new) > 2 * KEEP_MESSAGES:
                    del new[:-KEEP_MESSAGES]
                if len(self.messages) > 2 * KEEP_MESSAGES:
                    del self.messages[:-KEEP_MESSAGES]

        try:
            self._reader.read_new(take)
        except OSError as exc:
            self.problem = f"cannot read the log: {exc.strerror or exc}"
            return []
        finally:
            del new[:-KEEP_MESSAGES]
            del self.messages[:-KEEP_MESSAGES]
            del self.reads[:-KEEP_READS]
        if self._reader.problems:
            self.problem = "; ".join(self._reader.problems)
        return new

    def _apply(self, kind: str, event: dict, seq: int) -> Message | None:
        data = event.get("data")
        if kind == "session/title":
            title = data.get("title") if isinstance(data, dict) else data  # {title: …} or a bare string
            if isinstance(title, str) and title.strip():
                self.title = title.strip()
            return None
        if not isinstance(data, dict):
            return None
        surface = event.get("surfaceOp")
        if isinstance(surface, dict) and surface.get("op") == "replace":
            return None  # a compaction checkpoint replacing earlier turns: not something anyone said
        if kind == "user/message":
            source = data.get("source")
            if not (isinstance(source, dict) and source.get("kind") == "user"):
                return None  # injected context: AGENTS.md, skills, notices, subagent reports, …
            text = _text_of(data.get("content"))[:MESSAGE_TEXT_CHARS]
            return Message("user", text, seq=seq) if text.strip() else None
        if kind == "assistant/message":
            message = data.get("message")
            text = _text_of(message.get("content"))[:MESSAGE_TEXT_CHARS] if isinstance(message, dict) else ""
            return Message("assistant", text, seq=seq) if text.strip() else None
        if kind == "tool/call":
            self._note_open_call(data, seq, event.get("time"))
            self._note_call(data, seq)
        elif kind == "tool/result":
            self._note_result(data)
        return None

    def _note_open_call(self, data: dict, seq: int, time_ms: object) -> None:
        call_id, name = data.get("callId"), data.get("name")
        if isinstance(call_id, str) and isinstance(name, str):
            stamp = time_ms if isinstance(time_ms, int) and not isinstance(time_ms, bool) else 0
            self.open_calls[call_id] = ToolCall(call_id, name, seq, stamp, data.get("arguments"))
            while len(self.open_calls) > MAX_OPEN_CALLS:
                self.open_calls.pop(next(iter(self.open_calls)))

    def _note_call(self, data: dict, seq: int) -> None:
        if data.get("name") != "read":
            return
        args = data.get("arguments")
        if isinstance(args, str):
            try:
                args = json.loads(args)
            except ValueError:
                return
        if not isinstance(args, dict):
            return
        path = args.get("file_path") or args.get("path") or args.get("filePath")
        call_id = data.get("callId")
        if isinstance(path, str) and isinstance(call_id, str):
            self._calls[call_id] = (path, seq)
            if len(self._calls) > KEEP_CALLS:  # results that never came: forget the oldest calls
                del self._calls[next(iter(self._calls))]

    def _note_result(self, data: dict) -> None:
        message = data.get("message")
        if not isinstance(message, dict):
            return
        content = message.get("content")
        blocks = [b for b in content if isinstance(b, dict) and b.get("type") == "tool-result"] \
            if isinstance(content, list) else []
        source = message.get("source")
        source = source if isinstance(source, dict) else {}
        call_id = message.get("toolCallId") or source.get("callId") or next(
            (b.get("toolCallId") for b in blocks if b.get("toolCallId")), None
        )
        if not isinstance(call_id, str):
            return
        self.open_calls.pop(call_id, None)
        if call_id not in self._calls:
            return
        failed = message.get("isError") is True or any(b.get("isError") is True for b in blocks) or bool(data.get("error"))
        path, seq = self._calls.pop(call_id)
        self.reads.append(Read(path, not failed, seq))
        self.read_count += 1
        if len(self.reads) > 2 * KEEP_READS:
            del self.reads[:-KEEP_READS]


def _text_of(content: object) -> str:
    if isinstance(content, str):
        return content
    if not isinstance(content, list):
        return ""
    return "".join(
        block["text"] + "\n"
        for block in content
        if isinstance(block, dict) and block.get("type") == "text" and isinstance(block.get("text"), str)
    )


class SessionCatalog:
    """Every session directory's newest transcript, kept across looks so each log is read incrementally.

    A new look lists the directories again but loads the header only of transcripts it has not seen (a session
    directory whose newer transcript version appears gets a fresh log)."""

    def __init__(self, home: Path) -> None:
        self.home = home
        self._by_dir: dict[Path, SessionLog] = {}

    @property
    def logs(self) -> list[SessionLog]:
        return list(self._by_dir.values())

    def refresh(self) -> list[SessionLog]:
        root = sessions_root(self.home)
        seen: set[Path] = set()
        try:
            projects = sorted(p for p in root.iterdir() if p.is_dir())
        except OSError:
            projects = []
        for project in projects:
            try:
                session_dirs = sorted(p for p in project.iterdir() if p.is_dir())
            except OSError:
                continue
            for session_dir in session_dirs:
                transcript = best_transcript(session_dir)
                if transcript is None:
                    continue
                seen.add(session_dir)
                known = self._by_dir.get(session_dir)
                if known is None or known.path != str(transcript):
                    log = SessionLog(str(transcript))
                    log.load_header()
                    self._by_dir[session_dir] = log
        for gone in set(self._by_dir) - seen:
            del self._by_dir[gone]
        return self.logs

    def by_path(self, path: str) -> SessionLog | None:
        return next((log for log in self._by_dir.values() if log.path == path), None)

    def active(self) -> SessionLog | None:
        return active_session(self.logs)

    def find(self, session: str | None) -> SessionLog | None:
        return find_session(self.logs, session)


def discover(home: Path) -> list[SessionLog]:
    """Every session directory's newest transcript, headers loaded (bodies are read on demand)."""
    return SessionCatalog(home).refresh()


def active_session(logs: list[SessionLog]) -> SessionLog | None:
    """The top-level session whose log was appended most recently (ties: the later id)."""
    candidates = [log for log in logs if log.header is not None and log.top_level]
    return max(candidates, key=lambda log: (log.updated_ms, log.session_id), default=None)


def find_session(logs: list[SessionLog], session: str | None) -> SessionLog | None:
    """`auto` (or nothing) means the active one; otherwise an exact id, or a unique id prefix."""
    if not session or session == "auto":
        return active_session(logs)
    exact = [log for log in logs if log.session_id == session]
    if exact:
        return exact[0]
    prefixed = [log for log in logs if log.session_id.startswith(session)]
    return prefixed[0] if len(prefixed) == 1 else None
