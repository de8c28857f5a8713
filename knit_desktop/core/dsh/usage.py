"""Usage feedback: what the session did with the context pack it was handed last.

Facts only, counted from the session's successful `read` calls: whether the primary document was read, how many of
the supporting ones, which reads fell outside the pack (indexed but not in it, or not indexed at all), and how often
the pack handed out changed. Kept in memory, per session, with the reference plugin's limits.
"""

from __future__ import annotations

import os
from collections import OrderedDict
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

from ..index.boundary import within
from .sessions import Read

MAX_SESSIONS = 24
MAX_SNAPSHOTS = 20
TIERS = ("pinned", "primary", "supporting", "related")


@dataclass(frozen=True)
class PackSnapshot:
    """A pack as handed out: where in the session (the newest event's seq), and each document's tier and rank."""

    seq: int
    task: str
    tiers: tuple[tuple[str, int, str], ...]  # (tier, rank within the tier, rel)

    @classmethod
    def of(cls, pack: dict, seq: int) -> PackSnapshot:
        """From a context pack payload (what the agent or the window was given)."""
        tiers = tuple(
            (tier, rank, item["rel"]) for tier in TIERS for rank, item in enumerate(pack.get(tier, []))
        )
        return cls(seq, pack.get("task", ""), tiers)

    @property
    def signature(self) -> tuple:
        return (self.task, self.tiers)

    def rels(self, tier: str) -> list[str]:
        return [rel for t, _, rel in self.tiers if t == tier]


@dataclass(frozen=True)
class Usage:
    primary: str | None
    primary_read: bool
    supporting_read: int
    supporting_total: int
    outside_indexed: int
    outside_not_indexed: int
    changes: int

    @property
    def outside(self) -> int:
        return self.outside_indexed + self.outside_not_indexed

    def line(self) -> str:
        """The one line the agent (and the window) shows; empty when there is nothing to say."""
        parts = []
        if self.primary:
            parts.append(f"primary {'read' if self.primary_read else 'not read yet'} ({self.primary})")
        if self.supporting_total:
            parts.append(f"supporting {self.supporting_read}/{self.supporting_total}")
        if self.outside:
            parts.append(
                f"{self.outside} read outside the pack ({self.outside_indexed} indexed but not in the pack, "
                f"{self.outside_not_indexed} not indexed)"
            )
        if self.changes:
            parts.append(f"context changed {self.changes}×")
        return "Usage since the last pack: " + " · ".join(parts) + "." if parts else ""


@dataclass
class _SessionHistory:
    snapshots: list[PackSnapshot] = field(default_factory=list)
    changes: int = 0


def workspace_rel(path: str, root: str, cwd: str) -> str | None:
    """A read call's path as a workspace-relative path, or None when it lies outside the workspace."""
    full = path if os.path.isabs(path) else os.path.join(cwd or root, path)
    full = os.path.realpath(full)
    real_root = os.path.realpath(root)
    if not within(real_root, full):
        return None
    return os.path.relpath(full, real_root).replace(os.sep, "/")


class UsageAudit:
    """Pack snapshots per session; `usage` audits the latest one against the reads made after it was handed out."""

    def __init__(self) -> None:
        self._sessions: OrderedDict[str, _SessionHistory] = OrderedDict()

    def _history(self, session_id: str) -> _SessionHistory:
        history = self._sessions.pop(session_id, None) or _SessionHistory()
        self._sessions[session_id] = history  # most recently used last
        while len(self._sessions) > MAX_SESSIONS:
            self._sessions.popitem(last=False)
        return history

    def record(self, session_id: str, pack: dict, seq: int) -> None:
        """Note a pack handed out at `seq` (a context pack payload, as the agent gets it)."""
        self.record_snapshot(session_id, PackSnapshot.of(pack, seq))

    def record_snapshot(self, session_id: str, snapshot: PackSnapshot) -> None:
        """Note a pack handed out; an identical pack (same task, tiers and ranks) starts no new epoch."""
        history = self._history(session_id)
        if history.snapshots and history.snapshots[-1].signature == snapshot.signature:
            return
        if history.snapshots:
            history.changes += 1
        history.snapshots.append(snapshot)
        del history.snapshots[:-MAX_SNAPSHOTS]

    def usage(
        self,
        session_id: str,
        reads: Iterable[Read],
        *,
        root: str,
        cwd: str,
        is_indexed: Callable[[str], bool],
    ) -> Usage | None:
        """What happened to the latest pack of this session since it was handed out; None before the first pack."""
        history = self._sessions.get(session_id)
        if history is None or not history.snapshots:
            return None
        last = history.snapshots[-1]
        primary = last.rels("primary")
        supporting = set(last.rels("supporting"))
        in_pack = {rel for _, _, rel in last.tiers}
        read_rels: set[str] = set()
        outside_indexed: set[str] = set()
        outside_not_indexed: set[str] = set()
        for read in reads:
            if not read.ok or read.seq <= last.seq:
                continue
            rel = workspace_rel(read.path, root, cwd)
            if rel is not None and rel in in_pack:
                read_rels.add(rel)
            elif rel is not None and is_indexed(rel):
                outside_indexed.add(rel)
            else:
                outside_not_indexed.add(rel or read.path)
        return Usage(
            primary=primary[0] if primary else None,
            primary_read=bool(primary) and primary[0] in read_rels,
            supporting_read=len(supporting & read_rels),
            supporting_total=len(supporting),
            outside_indexed=len(outside_indexed),
            outside_not_indexed=len(outside_not_indexed),
            changes=history.changes,
        )
