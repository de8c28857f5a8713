"""One front for everything memory: the live index, retrieval, the proposal queue and confirmed writes.

The command line, the MCP tools and the window all go through it, so they agree on where the memory directory
is, where proposals wait and how a write happens.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from pathlib import Path

from ..config import SharedSettings
from ..dsh.sessions import dsh_home
from ..paths import config_home, data_home
from .library import Library, MemoryIndex
from .proposals import Proposal, ProposalQueue, clean_proposal
from .search import DEFAULT_BUDGET, DEFAULT_HITS, Hit, render_hits, search
from .write import append_entry, fingerprint


def load_names(path: Path) -> dict[str, str]:
    """The optional tag table of friendly names, {"04b-card-game": "卡牌游戏项目", …} keyed by file stem; like the
    seed's labels.local.json it lives with Knit's settings, not in the memory directory."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return {str(k): str(v) for k, v in data.items() if isinstance(v, str)} if isinstance(data, dict) else {}


def default_memory_dir(dsh_home_dir: str | None = None) -> str:
    """The folder chosen in the window's settings, else `<DSH home>/memory`."""
    chosen = SharedSettings.load().memory_dir
    return os.path.expanduser(chosen) if chosen else str(Path(dsh_home(dsh_home_dir)) / "memory")


@dataclass
class Target:
    file: str  # the library's file name, what proposals name
    name: str
    chapters: list[str]


class MemoryStore:
    def __init__(self, memory_dir: str | None = None, dsh_home_dir: str | None = None,
                 data_dir: Path | None = None) -> None:
        self.memory_dir = memory_dir or default_memory_dir(dsh_home_dir)
        self.data_dir = data_dir or data_home()
        self.index = MemoryIndex(self.memory_dir, load_names(config_home() / "memory-labels.json"))
        self.queue = ProposalQueue(self.data_dir / "memory-proposals.json")
        self.backups = self.data_dir / "memory-backups"

    def libraries(self) -> list[Library]:
        return self.index.libraries()

    @property
    def skipped(self) -> dict[str, str]:
        """Memory files the last look did not read, and why (too large, binary, unreadable)."""
        return dict(self.index.problems)

    def search(self, query: str, max_hits: int = DEFAULT_HITS, budget: int = DEFAULT_BUDGET,
               folder: str = "") -> tuple[list[Hit], str]:
        """The best entries and their rendering; with `folder`, locations are absolute paths under it."""
        hits = search(self.libraries(), query, max_hits)
        return hits, render_hits(hits, budget, folder)

    def targets(self) -> list[Target]:
        """Where a note may write: the libraries found now and their (explicit) chapters."""
        return [Target(os.path.basename(lib.path), lib.name, [c.title for c in lib.chapters if not c.implicit])
                for lib in self.libraries()]

    def propose(self, text: str, target: str = "", chapter: str = "", kind: str = "note",
                source: str = "agent", reason: str = "") -> tuple[Proposal, bool]:
        proposal = clean_proposal(text, target, chapter, kind, source)
        proposal.reason = reason[:500]
        return self.queue.add(proposal)

    def path_of(self, target: str) -> str:
        path = os.path.join(self.memory_dir, os.path.basename(target))
        if not os.path.isfile(path):
            raise FileNotFoundError(f"no memory file {os.path.basename(target)!r} in {self.memory_dir}")
        return path

    def fingerprint(self, target: str) -> str:
        return fingerprint(self.path_of(target))

    def confirm(self, proposal: Proposal, expected: str) -> tuple[int, int]:
        """Write a confirmed proposal (with the user's edits) and take it off the queue."""
        lines = append_entry(self.path_of(proposal.target), proposal.chapter, proposal.text, expected, self.backups)
        self.queue.remove(proposal.id)
        return lines

    def dismiss(self, proposal_id: str) -> bool:
        return self.queue.remove(proposal_id)
