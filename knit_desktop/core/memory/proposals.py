"""The proposal queue: memories the agent (or the user) proposed, waiting for a sticky note's answer.

It lives in Knit's data directory, never in the memory directory (nothing unconfirmed is a memory). Several
processes write to it (the MCP server, `knit-desktop propose`, the window), so every change is a read-modify-write
under an exclusive lock on a side file, and the JSON is replaced atomically. The same text for the same target
is folded into one proposal.
"""

from __future__ import annotations

import contextlib
import json
import os
import tempfile
import time
import uuid
from collections.abc import Iterator
from dataclasses import asdict, dataclass, field
from pathlib import Path

from ..agent_tools import MEMORY_KINDS

if os.name == "nt":  # pragma: no cover - exercised on Windows only
    import msvcrt

    def _lock(fd: int) -> None:
        msvcrt.locking(fd, msvcrt.LK_LOCK, 1)

    def _unlock(fd: int) -> None:
        msvcrt.locking(fd, msvcrt.LK_UNLCK, 1)
else:
    import fcntl

    def _lock(fd: int) -> None:
        fcntl.flock(fd, fcntl.LOCK_EX)

    def _unlock(fd: int) -> None:
        fcntl.flock(fd, fcntl.LOCK_UN)

KINDS = MEMORY_KINDS
MAX_TEXT = 4000


@dataclass
class Proposal:
    text: str
    target: str = ""  # library file name ("" = let the user choose)
    chapter: str = ""
    kind: str = "note"
    source: str = "agent"  # "agent" | "user" | "conversation"
    reason: str = ""  # why the agent thinks it is worth keeping, shown on the note
    id: str = field(default_factory=lambda: uuid.uuid4().hex[:12])
    created_ms: int = field(default_factory=lambda: int(time.time() * 1000))

    def key(self) -> tuple[str, str, str]:
        return (" ".join(self.text.split()).casefold(), self.target, self.chapter)


def clean_proposal(text: str, target: str = "", chapter: str = "", kind: str = "note",
                   source: str = "agent") -> Proposal:
    text = text.strip()
    if not text:
        raise ValueError("a proposal needs some text")
    if len(text) > MAX_TEXT:
        raise ValueError(f"a memory is at most {MAX_TEXT} characters; this one has {len(text)}")
    return Proposal(text, os.path.basename(target.strip()), chapter.strip(), kind if kind in KINDS else "note", source)


class ProposalQueue:
    def __init__(self, path: Path) -> None:
        self.path = path

    @contextlib.contextmanager
    def _locked(self) -> Iterator[None]:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        fd = os.open(str(self.path) + ".lock", os.O_RDWR | os.O_CREAT, 0o600)
        try:
            _lock(fd)
            yield
        finally:
            with contextlib.suppress(OSError):
                _unlock(fd)
            os.close(fd)

    def _read(self) -> list[Proposal]:
        try:
            data = json.loads(self.path.read_text(encoding="utf-8"))
        except FileNotFoundError:
            return []
        except (OSError, ValueError):
            # A damaged queue is set aside, never silently emptied: the user can still read it.
            with contextlib.suppress(OSError):
                os.replace(self.path, self.path.with_suffix(f".damaged-{int(time.time())}.json"))
            return []
        items = []
        for raw in data if isinstance(data, list) else []:
            if isinstance(raw, dict) and isinstance(raw.get("text"), str):
                known = {k: raw[k] for k in Proposal.__dataclass_fields__ if k in raw}
                items.append(Proposal(**known))
        return items

    def _write(self, items: list[Proposal]) -> None:
        fd, tmp = tempfile.mkstemp(prefix=".queue-", suffix=".tmp", dir=self.path.parent)
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            json.dump([asdict(p) for p in items], fh, ensure_ascii=False, indent=1)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, self.path)

    def add(self, proposal: Proposal) -> tuple[Proposal, bool]:
        """Queue a proposal; returns the queued one and whether it was new (False: folded into an equal one)."""
        with self._locked():
            items = self._read()
            for item in items:
                if item.key() == proposal.key():
                    return item, False
            items.append(proposal)
            self._write(items)
            return proposal, True

    def pending(self) -> list[Proposal]:
        with self._locked():
            return self._read()

    def remove(self, proposal_id: str) -> bool:
        with self._locked():
            items = self._read()
            kept = [p for p in items if p.id != proposal_id]
            if len(kept) == len(items):
                return False
            self._write(kept)
            return True

    def update(self, proposal: Proposal) -> None:
        """Keep the user's edits (text, target, chapter) to a pending proposal."""
        with self._locked():
            items = [proposal if p.id == proposal.id else p for p in self._read()]
            self._write(items)
