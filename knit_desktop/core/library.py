"""Library folders: folders beyond the workspace (papers, manuals, specs) whose documents answer as passages that can
be cited, ranked beside the workspace's.

Each folder is indexed like a workspace, persistently (its own database in Knit's cache, shared by the window, the
command line and the MCP server), with the workspace's boundary rules: symlinks leading out of the folder are not
followed, and `/`, the home folder or a system folder is refused unless asked for. The folders are remembered in
the shared settings file (`[library]`, a QSettings array the window reads too). A folder's label is its name.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from .config import SharedSettings, write_library_folders
from .index.boundary import UnsafeWorkspace, WorkspaceNotFound, check_workspace, os_path
from .index.documents import Document
from .paths import index_db_path
from .rank.cited import CitedPassage, passage_count, rank_cited
from .rank.ranking import rank
from .workspace import Progress, RankInput, Workspace

SCOPES = ("workspace", "library", "all")
DOCS_PER_SOURCE = 30  # documents of each folder cut into passages per query: the best of the document ranking
DEFAULT_ASK_CHARS = 6000
MIN_ASK_CHARS = 200
MAX_ASK_CHARS = 100_000
DEFAULT_ASK_TOP_K = 5
DEFAULT_SEARCH_TOP_K = 8
MAX_TOP_K = 50


class LibraryError(Exception):
    """A folder that cannot be added or removed; the message says why, `code` which rule refused it (the window words
    it in the user's language): "not_a_folder", "unsafe", "already", "unknown"."""

    def __init__(self, message: str, code: str = "", path: str = "") -> None:
        super().__init__(message)
        self.code = code
        self.path = path


def labels_for(roots: Sequence[str]) -> list[str]:
    """Each folder's name; two folders with one name are told apart by their parent's."""
    names = [os.path.basename(r.rstrip(os.sep)) or r for r in roots]
    out = []
    for root, name in zip(roots, names):
        if names.count(name) > 1:
            parent = os.path.basename(os.path.dirname(root.rstrip(os.sep)))
            name = f"{name} ({parent})" if parent else root
        out.append(name)
    return out


@dataclass
class Source:
    """One folder answering a query: a library folder or the workspace."""

    label: str
    root: str
    workspace: Workspace | None = None
    problem: str = ""  # why it cannot answer (missing, refused, its index unusable)
    is_workspace: bool = False

    @property
    def scope(self) -> str:
        return "workspace" if self.is_workspace else "library"


def library_folders(settings: SharedSettings | None = None) -> list[str]:
    settings = settings if settings is not None else SharedSettings.load()
    return list(settings.library)


def check_new_folder(folder: str, known: Sequence[str], allow_large: bool = False) -> str:
    """The real path of a folder that may join the library, else LibraryError saying why: it does not exist, it is
    a file, a system folder (check_workspace's rule), or it is in the list already."""
    path = os.path.abspath(os.path.expanduser(folder))
    if not os.path.isdir(path):
        raise LibraryError(f"not a folder: {folder}", "not_a_folder", path)
    try:
        check_workspace(path, allow_large)
    except UnsafeWorkspace as exc:
        raise LibraryError(str(exc), "unsafe", path) from None
    real = os.path.realpath(path)
    if real in (os.path.realpath(f) for f in known):
        raise LibraryError(f"already in the library: {real}", "already", real)
    return real


def folder_problem(folder: str) -> str:
    """Why a remembered folder cannot answer now ('' when it can be read)."""
    return "" if os.path.isdir(folder) else "the folder does not exist (unplugged drive?)"


def add_folder(folder: str, allow_large: bool = False, settings_file: Path | None = None) -> tuple[str, list[str]]:
    """Remember one more library folder (its real path); returns it and the new list (see check_new_folder)."""
    folders = list(SharedSettings.load(settings_file).library) if settings_file else library_folders()
    real = check_new_folder(folder, folders, allow_large)
    folders.append(real)
    write_library_folders(folders, settings_file)
    return real, folders


def remove_folder(folder: str, settings_file: Path | None = None) -> tuple[str, list[str]]:
    """Forget a library folder (by path, or by its label); its files are not touched."""
    folders = list(SharedSettings.load(settings_file).library) if settings_file else library_folders()
    wanted = os.path.realpath(os.path.abspath(os.path.expanduser(folder)))
    labels = labels_for(folders)
    for i, known in enumerate(folders):
        if known == folder or os.path.realpath(known) == wanted or labels[i] == folder:
            del folders[i]
            write_library_folders(folders, settings_file)
            return known, folders
    raise LibraryError(f"not in the library: {folder}", "unknown", folder)


def open_folder(label: str, folder: str, budget_s: float | None = None, allow_large: bool = False,
                progress: Progress | None = None,
                opener: Callable[[str, Progress | None], Workspace] | None = None) -> Source:
    """One library folder on its persistent index, brought up to date (within `budget_s`, if given); a folder that
    is missing or refused comes back with its problem instead. `opener` opens the index instead of
    `Workspace.open_persistent` (the window's: a first build in a builder process, core/building.py)."""
    source = Source(label, folder)
    try:
        check_workspace(folder, allow_large)
        if opener is not None:
            source.workspace = opener(folder, progress)
        else:
            source.workspace = Workspace.open_persistent(folder, progress, budget_s=budget_s)
        source.root = source.workspace.root
    except WorkspaceNotFound:
        source.problem = "the folder does not exist (unplugged drive?)"
    except UnsafeWorkspace as exc:
        source.problem = str(exc)
    except OSError as exc:
        source.problem = f"cannot index it: {exc.strerror or exc}"
    return source


@dataclass
class Library:
    """The open library folders (and, when asked, the workspace) a query runs over."""

    sources: list[Source] = field(default_factory=list)

    @classmethod
    def open(cls, folders: Sequence[str], workspace: Workspace | None = None, budget_s: float | None = None,
             allow_large: bool = False) -> Library:
        """Open each folder on its persistent index, brought up to date (within `budget_s` each, if given); a
        folder that is missing or refused is kept as a source with its problem, so stats can say so."""
        sources = []
        if workspace is not None:
            sources.append(Source(os.path.basename(workspace.root) or workspace.root, workspace.root, workspace,
                                  is_workspace=True))
        for label, folder in zip(labels_for(list(folders)), folders):
            sources.append(open_folder(label, folder, budget_s, allow_large))
        return cls(sources)

    def close(self) -> None:
        for source in self.sources:
            if source.workspace is not None and not source.is_workspace:
                source.workspace.close()

    def refresh(self, budget_s: float | None = None) -> None:
        for source in self.sources:
            if source.workspace is not None and not source.is_workspace:
                source.workspace.refresh(budget_s=budget_s)

    def in_scope(self, scope: str) -> list[Source]:
        if scope == "all":
            return self.sources
        return [s for s in self.sources if s.scope == scope]

    # --- answering -----------------------------------------------------------------------------------

    def cited(self, query: str, scope: str = "all", now_ms: int | None = None) -> tuple[list[CitedPassage], list[str]]:
        """Every passage of the best documents of each folder in scope that holds a query keyword, best first, and
        the keywords searched for."""
        request = RankInput.from_query(query)
        now = now_ms if now_ms is not None else int(time.time() * 1000)
        candidates = []
        for source in self.in_scope(scope):
            if source.workspace is None:
                continue
            ranking = rank(source.workspace.index, request.keywords, now_ms=now, kind="doc")
            if ranking.mode != "relevance":
                continue
            for row in ranking.ranked[: min(DOCS_PER_SOURCE, ranking.hit_count)]:
                if row.raw > 0:
                    candidates.append((source, row.doc, row.score / 100))
        return rank_cited(candidates, request.keywords), [k.term for k in request.keywords]

    def ask(self, query: str, max_chars: int = DEFAULT_ASK_CHARS, top_k: int = DEFAULT_ASK_TOP_K,
            scope: str = "all", now_ms: int | None = None) -> dict:
        """The best passages verbatim within `max_chars` characters of answer text (citation lines included), at
        most `top_k`; never rewritten: a passage that does not fit is left out, except the first, which is cut at
        a line end (its citation then ends there). Says how many more passages matched."""
        passages, keywords = self.cited(query, scope, now_ms)
        entries: list[dict] = []
        used = 0
        for passage in passages[:top_k]:
            entry = self.passage_json(passage)
            header = citation_line(len(entries) + 1, entry)
            cost = len(header) + 1 + len(entry["text"]) + 2
            if used + cost > max_chars:
                if entries:
                    break
                room = max(0, max_chars - len(header) - 3)
                cut = entry["text"].rfind("\n", 0, room)
                entry["text"] = entry["text"][: cut if cut > 0 else room]
                entry["end_line"] = entry["start_line"] + entry["text"].count("\n")
                entry["cut"] = True
                header = citation_line(1, entry)
                cost = len(header) + 1 + len(entry["text"]) + 2
            entries.append(entry)
            used += cost
        return {"query": query, "scope": scope, "keywords": keywords, "max_chars": max_chars, "used_chars": used,
                "passages": entries, "more": len(passages) - len(entries), "sources": self.source_names(scope)}

    def search(self, query: str, top_k: int = DEFAULT_SEARCH_TOP_K, scope: str = "all",
               now_ms: int | None = None) -> dict:
        """Documents in the order of their best passage, each with that passage verbatim and cited."""
        passages, keywords = self.cited(query, scope, now_ms)
        seen: dict[tuple[str, str], dict] = {}
        for passage in passages:
            key = (_source(passage).root, passage.doc.rel)
            if key in seen:
                seen[key]["passages_matched"] += 1
                continue
            if len(seen) < top_k:
                entry = self.passage_json(passage)
                entry["passages_matched"] = 1
                seen[key] = entry
        documents_matched = len({(_source(p).root, p.doc.rel) for p in passages})
        return {"query": query, "scope": scope, "keywords": keywords, "results": list(seen.values()),
                "total": documents_matched, "sources": self.source_names(scope)}

    @staticmethod
    def passage_json(passage: CitedPassage) -> dict:
        source = _source(passage)
        entry: dict = {
            "source": source.label,
            "scope": source.scope,
            "path": os_path(source.root, passage.doc.rel),
            "rel": passage.doc.rel,
            "title": passage.doc.title,
            "kind": passage.doc.kind,
            "heading": list(passage.heading),
            "start_line": passage.start_line,
            "end_line": passage.end_line,
        }
        if passage.page is not None:
            entry["page"] = passage.page
        # What the line numbers count: the file's lines (Markdown, text), the page's (paged formats), or the lines
        # of the text Knit extracted (HTML, DOCX, FB2: the file itself is markup; the preview shows that text).
        entry["lines_in"] = ("page" if passage.page is not None else
                             "file" if passage.doc.kind in ("md", "txt") else "extracted text")
        entry["text"] = passage.text
        return entry

    def source_names(self, scope: str) -> list[dict]:
        return [{"source": s.label, "root": s.root, "scope": s.scope, **({"problem": s.problem} if s.problem else {})}
                for s in self.in_scope(scope)]

    def stats(self, scope: str = "all", count_passages: bool = True) -> list[dict]:
        """Per folder: documents, passages, files by status (with the reasons of those not indexed), index size,
        last update."""
        out = []
        for source in self.in_scope(scope):
            row: dict = {"source": source.label, "root": source.root, "scope": source.scope}
            ws = source.workspace
            if ws is None:
                row["problem"] = source.problem
                out.append(row)
                continue
            counts = ws.status_counts()
            row["documents"] = counts["indexed"]
            docs = [d for _, d in ws.index.documents() if not d.is_media]
            # Exact: every document cut as a query cuts it (about 0.5 ms a document the first time, then from
            # the span cache that queries share).
            row["passages"] = sum(_count_and_forget(d) for d in docs) if count_passages else None
            row["indexed"], row["skipped"], row["failed"] = counts["indexed"], counts["skipped"], counts["failed"]
            row["problems"] = [{"rel": s.rel, "state": s.state, "reason": s.reason} for s in ws.problems()[:50]]
            db = index_db_path(ws.root)
            if ws.store is not None and db.exists():
                row["index_bytes"] = sum(Path(str(db) + suffix).stat().st_size for suffix in ("", "-wal")
                                         if Path(str(db) + suffix).exists())
                row["updated_ms"] = int(max(Path(str(db) + s).stat().st_mtime for s in ("", "-wal")
                                            if Path(str(db) + s).exists()) * 1000)
            if source.problem:
                row["problem"] = source.problem
            out.append(row)
        return out


def _source(passage: CitedPassage) -> Source:
    assert isinstance(passage.owner, Source)
    return passage.owner


def _count_and_forget(doc: Document) -> int:
    """A document's passages. (A stored document does not keep the body it reads, see StoredDocument: counting a
    200 MB library keeps none of it.)"""
    return passage_count(doc)


def citation_line(number: int, entry: dict) -> str:
    """`[1] papers: survey/rivers.md — Habitat › Water — lines 12–30` (page first for paged documents)."""
    where = (f"page {entry['page']}, lines {entry['start_line']}–{entry['end_line']}" if "page" in entry
             else f"lines {entry['start_line']}–{entry['end_line']}")
    if entry.get("lines_in") == "extracted text":
        where += " of the extracted text"
    heading = " › ".join(entry["heading"])
    parts = [f"[{number}] {entry['source']}: {entry['rel']}", heading, where]
    return " — ".join(p for p in parts if p)


def render_ask(answer: dict) -> str:
    """The answer as the model (and a person) reads it: each passage under its citation line, then what was left."""
    blocks = [citation_line(i, e) + "\n" + e["text"] for i, e in enumerate(answer["passages"], 1)]
    text = "\n\n".join(blocks) if blocks else "No passage matches."
    if answer["more"]:
        text += (f"\n\n{answer['more']} more passage{'s' if answer['more'] != 1 else ''} matched (raise max_chars or "
                 "top_k, or narrow the query).")
    return text
