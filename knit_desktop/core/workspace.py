"""A workspace: its documents extracted and indexed in memory, with a status for every file met."""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass, field

from .context_pack import ContextPack, build_context_pack
from .conversation import Message, conversation_window
from .documents import SkipFile, extract_document
from .keywords import Keyword, extract_keywords, query_keywords
from .links import LinkGraph, Ref, build_graph, extract_refs
from .ranking import Ranking, rank
from .scan import FileStatus, walk_workspace
from .search_index import SearchIndex


class WorkspaceNotFound(Exception):
    pass


@dataclass(frozen=True)
class RankInput:
    """What a ranking is asked for: keywords plus the task line (empty for an explicit query)."""

    keywords: list[Keyword]
    task: str = ""

    @classmethod
    def from_query(cls, query: str) -> RankInput:
        return cls(query_keywords(query))

    @classmethod
    def from_messages(cls, messages: list[Message]) -> RankInput:
        window = conversation_window(messages)
        return cls(extract_keywords(window.texts), window.task)


@dataclass
class Workspace:
    root: str
    index: SearchIndex = field(default_factory=SearchIndex)
    statuses: dict[str, FileStatus] = field(default_factory=dict)
    refs: dict[str, list[Ref]] = field(default_factory=dict)
    _graph: LinkGraph | None = None
    _graph_version: int = -1

    @classmethod
    def open(cls, root: str, progress: Callable[[int, str], None] | None = None) -> Workspace:
        real = os.path.realpath(os.path.expanduser(root))
        if not os.path.isdir(real):
            raise WorkspaceNotFound(root)
        ws = cls(real)
        ws.scan(progress)
        return ws

    def scan(self, progress: Callable[[int, str], None] | None = None) -> None:
        problems: list[FileStatus] = []
        for done, cand in enumerate(walk_workspace(self.root, problems), start=1):
            self.update_file(cand.path, cand.rel, cand.kind, cand.mtime_ms, cand.size)
            if progress is not None:
                progress(done, cand.rel)
        for status in problems:
            self.statuses[status.rel] = status

    def update_file(self, path: str, rel: str, kind: str, mtime_ms: int, size: int) -> FileStatus:
        """(Re)extract one file into the index; a failure removes any stale copy and records why."""
        try:
            doc = extract_document(path, rel, kind, mtime_ms, size)
        except SkipFile as exc:
            status = FileStatus(rel, "skipped", str(exc))
        except FileNotFoundError:
            status = FileStatus(rel, "failed", "the file disappeared while it was being read")
        except PermissionError:
            status = FileStatus(rel, "failed", "permission denied")
        except (OSError, ValueError, RuntimeError) as exc:
            status = FileStatus(rel, "failed", str(exc) or exc.__class__.__name__)
        else:
            self.index.add(doc)
            if doc.kind == "md":
                self.refs[rel] = extract_refs(doc.body)
            note = "indexed the first 2 MB (file is larger)" if doc.truncated else ""
            status = FileStatus(rel, "indexed", note)
            self.statuses[rel] = status
            return status
        self.remove_file(rel)
        self.statuses[rel] = status
        return status

    def remove_file(self, rel: str) -> None:
        self.index.remove(rel)
        self.refs.pop(rel, None)
        self.statuses.pop(rel, None)

    def status_counts(self) -> dict[str, int]:
        counts = {"indexed": 0, "skipped": 0, "failed": 0}
        for status in self.statuses.values():
            counts[status.state] = counts.get(status.state, 0) + 1
        return counts

    def problems(self) -> list[FileStatus]:
        return sorted((s for s in self.statuses.values() if s.state != "indexed"), key=lambda s: s.rel)

    def graph(self) -> LinkGraph:
        if self._graph is None or self._graph_version != self.index.version:
            rels = [d.rel for _, d in self.index.documents() if not d.is_media]
            self._graph = build_graph(self.refs, rels)
            self._graph_version = self.index.version
        return self._graph

    def rank(self, request: RankInput, *, now_ms: int, kind: str = "doc", sort: str = "relevance") -> Ranking:
        return rank(self.index, request.keywords, now_ms=now_ms, kind=kind, sort=sort)

    def context(self, request: RankInput, *, now_ms: int, recent_limit: int = 5) -> ContextPack:
        ranking = self.rank(request, now_ms=now_ms, kind="doc", sort="relevance")
        return build_context_pack(ranking, self.graph(), task=request.task, recent_limit=recent_limit)
