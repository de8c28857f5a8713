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
import time
import uuid
from collections.abc import Iterator
from dataclasses import asdict, dataclass, field
from datetime import datetime
from pathlib import Path

from ..atomic_write import replace_text
from .kinds import KINDS  # memory_propose's `kind` (the sticky note shows it)
from .locking import exclusive_lock

MAX_TEXT = 4000
MAX_QUEUE_BYTES = 16_000_000  # ~1,000 proposals of the longest kind, many times over


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


def _proposal_from(raw: object) -> Proposal | None:
    if not isinstance(raw, dict) or not isinstance(raw.get("text"), str):
        return None
    known = {k: raw[k] for k in Proposal.__dataclass_fields__ if k in raw}
    if not all(isinstance(v, int if k == "created_ms" else str) for k, v in known.items()):
        return None
    return Proposal(**known)


class ProposalQueue:
    def __init__(self, path: Path) -> None:
        self.path = path
        self.warning = ""  # set when a damaged queue file was set aside: tell the user where it went
        self._stuck = False

    @contextlib.contextmanager
    def _locked(self) -> Iterator[None]:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        with exclusive_lock(str(self.path) + ".lock"):
            yield

    def _read(self) -> list[Proposal]:
        self._stuck = False
        try:
            with open(self.path, "rb") as fh:
                raw_bytes = fh.read(MAX_QUEUE_BYTES + 1)
        except FileNotFoundError:
            return []
        except OSError as exc:
            self.warning = f"The proposal queue {self.path} cannot be read: {exc.strerror or exc}"
            return []
        if len(raw_bytes) > MAX_QUEUE_BYTES:
            return self._set_aside(f"larger than {MAX_QUEUE_BYTES // 1_000_000} MB")
        try:
            data = json.loads(raw_bytes.decode("utf-8"))
        except (ValueError, RecursionError):
            return self._set_aside("not JSON")
        if not isinstance(data, list):
            return self._set_aside(f"a JSON {type(data).__name__}, not a list of proposals")
        items = []
        for raw in data:
            proposal = _proposal_from(raw)
            if proposal is None:
                return self._set_aside("an entry that is not a proposal")
            items.append(proposal)
        return items

    def _set_aside(self, why: str) -> list[Proposal]:
        """A damaged queue is kept (renamed next to it), never silently emptied or overwritten: the user can
        still read what it held. The next write starts a fresh queue."""
        stamp = datetime.now().strftime("%Y%m%d-%H%M%S-%f")
        kept = self.path.with_name(f"{self.path.name}.broken-{stamp}")
        try:
            os.replace(self.path, kept)
        except OSError as exc:
            self.warning = (f"The proposal queue {self.path} is damaged ({why}) and could not be set aside: "
                            f"{exc.strerror or exc}")
            self._stuck = True  # never write over it
            return []
        self._stuck = False
        self.warning = f"The proposal queue was damaged ({why}); it was kept as {kept} and a new queue started."
        return []

    def _write(self, items: list[Proposal]) -> None:
        if self._stuck:
            raise OSError(self.warning)
        replace_text(self.path, json.dumps([asdict(p) for p in items], ensure_ascii=False, indent=1),
                     new_file_mode=0o600)

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
