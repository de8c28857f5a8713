"""The agent's tools, independent of the protocol that carries them: `knit_docs`, `memory_search`,
`memory_propose`. Each call is resolved to the DSH session that made it (see dsh_caller) and its answer names the
folder and the session it used, so an agent never mistakes another project's answer for its own.

Arguments are read leniently where the reference does (a bad `limit` falls back) and strictly where a wrong
value would do harm (`kind`, `target`): the error says what is accepted.
"""

from __future__ import annotations

import os

from ..config import SharedSettings
from ..dsh.caller import Resolved
from ..dsh.sessions import dsh_home
from ..memory.kinds import KINDS
from ..memory.library import estimate_tokens
from ..memory.search import hits_payload
from ..memory.store import MemoryStore
from .knit_docs import KnitDocs, ToolAnswer, ToolError
from .library_tools import LibraryTools
from .recall_tool import RecallTool
from .specs import (
    DEFAULT_LIMIT,
    KNIT_ASK,
    KNIT_DOCS,
    KNIT_SEARCH,
    KNIT_STATS,
    MEMORY_DEFAULT_HITS,
    MEMORY_MAX_HITS,
    MEMORY_PROPOSE,
    MEMORY_SEARCH,
    MEMORY_TIER_LINE,
    MEMORY_TIER_LINE_EMPTY,
    RECALL,
)

TOOLS = (KNIT_DOCS, MEMORY_SEARCH, MEMORY_PROPOSE, RECALL, KNIT_SEARCH, KNIT_ASK, KNIT_STATS)
MAX_QUERY = 2000


def session_line(resolved: Resolved) -> str:
    log = resolved.log
    if log is None:
        return "no DSH session"
    title = f" “{log.title}”" if log.title else ""
    return f"DSH session {log.session_id}{title} in {log.cwd or '(no folder)'}"


class AgentTools:
    """One per server process. `memory_dir` and `dsh_home_dir` are the command line's; unset, they come from the
    settings the window writes, then from the defaults."""

    def __init__(self, workspace: str | None = None, dsh_home_dir: str | None = None,
                 memory_dir: str | None = None, settings: SharedSettings | None = None,
                 allow_large_workspace: bool = False, watch: bool = False) -> None:
        settings = settings if settings is not None else SharedSettings.load()
        home = dsh_home_dir or settings.dsh_home or None
        self.docs = KnitDocs(workspace, home, allow_large_workspace=allow_large_workspace, watch=watch)
        self.memory = MemoryStore(memory_dir or settings.memory_dir or None, home)
        self.recall = RecallTool(dsh_home(home))
        self.library = LibraryTools(self.docs)

    def close(self) -> None:
        self.library.close()
        self.docs.close()
        self.recall.close()

    def call(self, name: str, raw: object) -> ToolAnswer:
        args = raw if isinstance(raw, dict) else {}
        if name == KNIT_DOCS:
            query = args.get("query")
            if query is not None and not isinstance(query, str):
                raise ToolError(f"knit_docs: query must be a string, not {type(query).__name__}")
            return self.docs.call(query, args.get("limit", DEFAULT_LIMIT), args.get("audit") is True, arguments=args)
        if name == MEMORY_SEARCH:
            return self.memory_search(args)
        if name == MEMORY_PROPOSE:
            return self.memory_propose(args)
        if name == RECALL:
            return self.recall.call(args, self.docs.resolve_session(RECALL, args))
        if name in (KNIT_SEARCH, KNIT_ASK, KNIT_STATS):
            return self.library.call(name, args)
        raise ToolError(f"unknown tool {name!r}; this server has {', '.join(TOOLS)}")

    def memory_search(self, args: dict) -> ToolAnswer:
        query = args.get("query")
        if not isinstance(query, str) or not query.strip():
            raise ToolError("memory_search: query must be a non-empty string")
        limit = args.get("limit", MEMORY_DEFAULT_HITS)
        if isinstance(limit, bool) or not isinstance(limit, (int, float)) or limit != limit or abs(limit) == float("inf"):
            limit = MEMORY_DEFAULT_HITS
        limit = min(MEMORY_MAX_HITS, max(1, int(limit)))
        resolved = self.docs.resolve_session(MEMORY_SEARCH, args)
        folder = os.path.realpath(self.memory.memory_dir)
        hits, text = self.memory.search(query[:MAX_QUERY], limit, folder=folder)
        structured = hits_payload(hits, text, folder, self.memory.skipped)
        if resolved.log is not None:
            structured["session"] = resolved.describe()
        head = f"Memory folder: {folder} ({session_line(resolved)}). Read the lines below with your read tool."
        tier = (MEMORY_TIER_LINE.format(count=f"{len(hits)} entr{'y' if len(hits) == 1 else 'ies'}",
                                        tokens=estimate_tokens(text)) if hits else MEMORY_TIER_LINE_EMPTY)
        head += "\n" + tier
        body = text or "No memory entry matches."
        if not os.path.isdir(folder):
            body = "The memory folder does not exist yet: nothing has been remembered."
        return ToolAnswer(structured, head + "\n" + body)

    def memory_propose(self, args: dict) -> ToolAnswer:
        content = args.get("content")
        if not isinstance(content, str) or not content.strip():
            raise ToolError("memory_propose: content must be a non-empty string (the memory, one statement)")
        fields = {k: args.get(k, "") for k in ("target", "chapter", "reason", "kind")}
        wrong = [k for k, v in fields.items() if not isinstance(v, str)]
        if wrong:
            raise ToolError(f"memory_propose: {', '.join(wrong)} must be strings")
        kind = fields["kind"].strip() or "note"
        if kind not in KINDS:
            raise ToolError(f"memory_propose: kind must be one of {', '.join(KINDS)}, not {kind!r}")
        target = self._target(fields["target"].strip())
        resolved = self.docs.resolve_session(MEMORY_PROPOSE, args)
        try:
            proposal, new = self.memory.propose(content, target, fields["chapter"], kind,
                                                reason=fields["reason"].strip())
        except ValueError as exc:
            raise ToolError(f"memory_propose: {exc}") from None
        folder = os.path.realpath(self.memory.memory_dir)
        where = os.path.join(folder, proposal.target) if proposal.target else f"a file in {folder} the user picks"
        text = ("Queued for the user to confirm on a sticky note" if new
                else "The same proposal is already waiting for the user") + f"; it would go to {where}."
        structured = {"queued": new, "duplicate": not new, "id": proposal.id, "target": proposal.target,
                      "memory_dir": folder}
        if self.memory.queue.warning:  # a damaged queue file was set aside: say where it is kept
            structured["warning"] = self.memory.queue.warning
            text += " " + self.memory.queue.warning
        if resolved.log is not None:
            structured["session"] = resolved.describe()
        return ToolAnswer(structured, text + f" ({session_line(resolved)}.) Nothing is written until then.")

    def _target(self, target: str) -> str:
        """An existing library, or a new `.md` name inside the memory folder; anything else is refused."""
        if not target:
            return ""
        known = {t.file for t in self.memory.targets()}
        if target in known:
            return target
        name = os.path.basename(target)
        if name != target or name in (".", "..") or "\\" in target:
            raise ToolError(f"memory_propose: target must be a file name in the memory folder, not a path: {target!r}"
                            f"; existing libraries: {', '.join(sorted(known)) or 'none yet'}")
        if not name.lower().endswith(".md"):
            raise ToolError(f"memory_propose: target must be an existing library ({', '.join(sorted(known)) or 'none yet'})"
                            f" or a new .md file name, not {target!r}")
        return name
