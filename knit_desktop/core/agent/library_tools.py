"""`knit_search`, `knit_ask`, `knit_stats`: the library folders (and the calling session's workspace) as passages
that can be cited. The folders are the user's choice (Settings, `knit-desktop library`); the agent reads them only.

The folders stay open between calls (their persistent indexes, refreshed by a stat walk per call); the list is
re-read from the settings file on every call, so a folder added in the window answers at the next call.
"""

from __future__ import annotations

import math
import os
from collections.abc import Callable

from ..config import SharedSettings
from ..index.boundary import UnsafeWorkspace, WorkspaceNotFound, check_workspace
from ..library import Library, Source, render_ask
from .knit_docs import KnitDocs, ToolAnswer, ToolError, where_line
from .specs import (
    ASK_DEFAULT_CHARS,
    ASK_DEFAULT_TOP_K,
    ASK_MAX_CHARS,
    ASK_MIN_CHARS,
    KNIT_ASK,
    KNIT_SEARCH,
    KNIT_STATS,
    LIBRARY_MAX_TOP_K,
    LIBRARY_SCOPES,
    SEARCH_DEFAULT_TOP_K,
)

MAX_QUERY = 2000
FIRST_OPEN_BUDGET_S = 7.0  # a folder met for the first time is indexed this long before the first answer


def _number(value: object, default: int, low: int, high: int) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        return default
    return max(low, min(high, int(value)))


class LibraryTools:
    def __init__(self, docs: KnitDocs, settings_loader: Callable[[], SharedSettings] = SharedSettings.load) -> None:
        self.docs = docs
        self._load_settings = settings_loader
        self._library: Library | None = None
        self._folders: tuple[str, ...] = ()

    def close(self) -> None:
        if self._library is not None:
            self._library.close()

    def _library_sources(self) -> list[Source]:
        folders = tuple(self._load_settings().library)
        if self._library is None or folders != self._folders:
            if self._library is not None:
                self._library.close()
            self._library = Library.open(folders, budget_s=FIRST_OPEN_BUDGET_S)
            self._folders = folders
        else:
            self._library.refresh(budget_s=FIRST_OPEN_BUDGET_S)
        return self._library.sources

    def _sources(self, tool: str, args: dict) -> tuple[Library, str, list[str]]:
        scope = args.get("scope", "all")
        if scope not in LIBRARY_SCOPES:
            raise ToolError(f"{tool}: scope must be one of {', '.join(LIBRARY_SCOPES)}, not {scope!r}")
        notes: list[str] = []
        sources: list[Source] = []
        resolved = self.docs.resolve_session(tool, args)
        if scope in ("workspace", "all"):
            root = self.docs.pinned or (resolved.log.cwd if resolved.log is not None else "")
            problem = ""
            if not root:
                problem = "no workspace: no DSH session with a folder, and the server was started without --workspace"
            else:
                try:
                    check_workspace(root, self.docs.allow_large)
                    ws = self.docs.workspace(root)
                    sources.append(Source(os.path.basename(ws.root) or ws.root, ws.root, ws, is_workspace=True))
                    notes.append(where_line(ws.root, resolved))
                except UnsafeWorkspace as exc:
                    problem = f"the workspace {root} is not read: {exc}"
                except WorkspaceNotFound:
                    problem = f"the workspace {root} does not exist"
            if problem:
                if scope == "workspace":
                    raise ToolError(f"{tool}: {problem}")
                notes.append(f"Note: {problem}; answering from the library only.")
        if scope in ("library", "all"):
            library_sources = self._library_sources()
            sources.extend(library_sources)
            if not library_sources:
                notes.append("The library has no folders yet (the user adds them in Knit's Settings → Library or "
                              "with `knit-desktop library add DIR`).")
            for source in library_sources:
                if source.problem:
                    notes.append(f"Note: library folder {source.label} ({source.root}): {source.problem}.")
        self._resolved = resolved
        return Library(sources), scope, notes

    def _finish(self, structured: dict, notes: list[str], text: str) -> ToolAnswer:
        if self._resolved.log is not None:
            structured["session"] = self._resolved.describe()
        return ToolAnswer(structured, "\n".join([*notes, text]) if notes else text)

    def _query(self, tool: str, args: dict) -> str:
        query = args.get("query")
        if not isinstance(query, str) or not query.strip():
            raise ToolError(f"{tool}: query must be a non-empty string")
        return query[:MAX_QUERY]

    def call(self, name: str, args: dict) -> ToolAnswer:
        if name == KNIT_ASK:
            query = self._query(name, args)
            library, scope, notes = self._sources(name, args)
            max_chars = _number(args.get("max_chars"), ASK_DEFAULT_CHARS, ASK_MIN_CHARS, ASK_MAX_CHARS)
            top_k = _number(args.get("top_k"), ASK_DEFAULT_TOP_K, 1, LIBRARY_MAX_TOP_K)
            answer = library.ask(query, max_chars=max_chars, top_k=top_k, scope=scope)
            return self._finish(answer, notes, render_ask(answer))
        if name == KNIT_SEARCH:
            query = self._query(name, args)
            library, scope, notes = self._sources(name, args)
            top_k = _number(args.get("top_k"), SEARCH_DEFAULT_TOP_K, 1, LIBRARY_MAX_TOP_K)
            answer = library.search(query, top_k=top_k, scope=scope)
            lines = []
            for i, entry in enumerate(answer["results"], 1):
                where = f"page {entry['page']}, " if "page" in entry else ""
                heading = " › ".join(entry["heading"])
                lines.append(f"{i}. {entry['title']} — {entry['source']}: {entry['path']}"
                             f"{' — ' + heading if heading else ''} — {where}lines {entry['start_line']}–"
                             f"{entry['end_line']}\n{entry['text']}")
            text = "\n\n".join(lines) or "No document matches."
            return self._finish(answer, notes, text + f"\n\n{answer['total']} document(s) matched.")
        if name == KNIT_STATS:
            library, scope, notes = self._sources(name, args)
            rows = library.stats(scope)
            lines = []
            for row in rows:
                if "documents" not in row:
                    lines.append(f"{row['source']} ({row['root']}): {row.get('problem', '')}")
                    continue
                lines.append(f"{row['source']} ({row['scope']}, {row['root']}): {row['documents']} documents, "
                             f"{row['passages']} passages; {row['skipped']} skipped, {row['failed']} failed")
                lines.extend(f"  {p['state']} {p['rel']}: {p['reason']}" for p in row["problems"][:10])
            return self._finish({"scope": scope, "folders": rows}, notes, "\n".join(lines) or "Nothing to report.")
        raise ToolError(f"unknown tool {name!r}")
