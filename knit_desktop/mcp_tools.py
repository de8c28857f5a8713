"""The agent tools' definitions: names, descriptions, input and output schemas, annotations.

Kept apart from the server so the schemas can be checked on their own and printed without starting a server.

DSH accepts a subset of JSON Schema (`assertSupportedJsonSchema` in `@deepseek-ai/dsh-tools`): one `type` string
per node (no type arrays), `properties`/`required`/boolean `additionalProperties`, `items`, `enum`/`const` only
beside a scalar `type`, `oneOf` with at least two schemas and no siblings but annotations (a nullable value is
`{"oneOf": [{...}, {"type": "null"}]}`), and `description`/`title`/`default`/`examples`. Its MCP client drops an
output schema outside the subset; one it keeps is enforced on every answer (`validateJsonSchemaValue`), so a closed
object's new field must be declared here first. `tests/test_dsh_config.py` checks all of this with DSH's own code.
"""

from __future__ import annotations

import mcp_types as types

from .core.agent.specs import (
    ASK_DEFAULT_CHARS,
    ASK_DEFAULT_TOP_K,
    ASK_MAX_CHARS,
    ASK_MIN_CHARS,
    DEFAULT_LIMIT,
    DOC_KINDS,
    KNIT_ASK,
    KNIT_ASK_DESCRIPTION,
    KNIT_SEARCH,
    KNIT_SEARCH_DESCRIPTION,
    KNIT_STATS,
    KNIT_STATS_DESCRIPTION,
    LIBRARY_MAX_TOP_K,
    LIBRARY_SCOPES,
    MAX_LIMIT,
    MEMORY_KINDS,
    MEMORY_SEARCH_DESCRIPTION,
    RECALL_DESCRIPTION,
    SEARCH_DEFAULT_TOP_K,
)
from .core.agent.specs import KNIT_DOCS_DESCRIPTION as DESCRIPTION


def _closed(properties: dict, required: list[str]) -> dict:
    return {"type": "object", "properties": properties, "required": required, "additionalProperties": False}


_STR = {"type": "string"}
_INT = {"type": "integer"}
_STRS = {"type": "array", "items": _STR}
# Which conversation an answer used; absent when no DSH session was used.
SESSION_SCHEMA = _closed(
    {"id": _STR, "title": _STR, "cwd": _STR,
     "resolved_by": {"type": "string", "enum": ["caller", "workspace", "newest"]}},
    ["id", "title", "cwd", "resolved_by"],
)

MATCH_SCHEMA = _closed(
    {
        "start_line": _INT,
        "end_line": _INT,
        "page": _INT,
        "start_offset": _INT,
        "end_offset": _INT,
        "terms": _STRS,
        "snippet": _STR,
    },
    ["start_line", "end_line", "start_offset", "end_offset", "terms", "snippet"],
)
RELATION_SCHEMA = _closed(
    {"type": _STR, "dir": {"type": "string", "enum": ["in", "out"]}, "other": _STR, "line": _INT}, ["type", "dir", "other"]
)
ITEM_SCHEMA = _closed(
    {
        "rel": _STR,
        "title": _STR,
        "summary": _STR,
        "mtime_ms": _INT,
        "kind": {"type": "string", "enum": list(DOC_KINDS)},
        "source": {"type": "string", "enum": ["impl", "test", "config", "design", "doc"]},
        "reason": _closed({"code": _STR, "terms": _STRS, "fields": _INT, "term": _STR}, ["code", "terms", "fields", "term"]),
        "provenance": {"type": "string", "enum": ["retrieval", "relation", "manual"]},
        "origin": _STR,  # "workspace", or the library folder's label
        "relations": {"type": "array", "items": RELATION_SCHEMA},
        "relations_total": _INT,
        "snippet": _STR,
        "matches": {"type": "array", "items": MATCH_SCHEMA},
    },
    ["rel", "title", "summary", "mtime_ms", "kind", "source", "reason", "provenance"],
)
RECENT_SCHEMA = _closed({"rel": _STR, "title": _STR, "summary": _STR, "mtime_ms": _INT}, ["rel", "title", "summary", "mtime_ms"])
KNIT_DOCS_OUTPUT = _closed(
    {
        "mode": {"type": "string", "enum": ["relevance", "time"]},
        "topic": _STR,
        "task": _STR,
        "total": _INT,
        "primary": {"type": "array", "items": ITEM_SCHEMA},
        "supporting": {"type": "array", "items": ITEM_SCHEMA},
        "related": {"type": "array", "items": ITEM_SCHEMA},
        "pinned": {"type": "array", "items": ITEM_SCHEMA},  # only when the user pinned or hid documents
        "totals": _closed(
            {"primary": _INT, "supporting": _INT, "related": _INT, "matched": _INT, "total": _INT,
             "pinned": _INT, "hidden": _INT},
            ["primary", "supporting", "related", "matched", "total"],
        ),
        "usage": _STR,
        "docs": {"type": "array", "items": RECENT_SCHEMA},
        "workspace": _STR,
        "session": SESSION_SCHEMA,
        "indexing": _closed({"done": _INT, "total": _INT}, ["done", "total"]),
    },
    ["mode", "topic", "total", "primary", "supporting", "related", "workspace"],
)
KNIT_DOCS_INPUT = {
    "type": "object",
    "properties": {
        "query": {"type": "string", "description": "Optional search text. Omit to rank by the current conversation."},
        "limit": {
            "type": "integer",
            "description": f"How many recent files to list when there is not enough conversation (1–{MAX_LIMIT}, "
            f"default {DEFAULT_LIMIT}).",
        },
        "audit": {
            "type": "boolean",
            "description": "Also report what the session did with the previous pack (reads since it was handed "
            "out). Default false.",
        },
    },
}

KNIT_DOCS_TOOL = types.Tool(
    name="knit_docs",
    title="Project documents for the current task",
    description=DESCRIPTION,
    input_schema=KNIT_DOCS_INPUT,
    output_schema=KNIT_DOCS_OUTPUT,
    annotations=types.ToolAnnotations(read_only_hint=True, open_world_hint=False, idempotent_hint=True),
)


HIT_SCHEMA = _closed({"location": _STR, "path": _STR, "library": _STR, "chapter": _STR, "start_line": _INT,
                      "end_line": _INT}, ["location", "path", "library", "chapter", "start_line", "end_line"])
# A memory file the search did not read, and why (over the size cap, binary, unreadable).
SKIPPED_SCHEMA = _closed({"file": _STR, "reason": _STR}, ["file", "reason"])
MEMORY_SEARCH_TOOL = types.Tool(
    name="memory_search",
    title="Find what the user asked you to remember",
    description=MEMORY_SEARCH_DESCRIPTION,
    input_schema={"type": "object", "properties": {
        "query": {"type": "string", "description": "What you want to recall, in the user's words."},
        "limit": {"type": "integer", "description": "At most this many entries (1–10, default 3)."}},
        "required": ["query"]},
    output_schema=_closed({"text": _STR, "memory_dir": _STR, "hits": {"type": "array", "items": HIT_SCHEMA},
                           "skipped": {"type": "array", "items": SKIPPED_SCHEMA},
                           "session": SESSION_SCHEMA}, ["text", "memory_dir", "hits"]),
    annotations=types.ToolAnnotations(read_only_hint=True, open_world_hint=False, idempotent_hint=True),
)
MEMORY_PROPOSE_TOOL = types.Tool(
    name="memory_propose",
    title="Propose a memory for the user to confirm",
    description="Propose one thing worth remembering across sessions (a preference, a project fact, an environment "
    "detail). Nothing is written until the user confirms it on a sticky note. Do not propose anything when there is "
    "nothing worth keeping; never pad.",
    input_schema={"type": "object", "properties": {
        "content": {"type": "string", "description": "The memory, one short self-contained statement."},
        "target": {"type": "string", "description": "The memory file it belongs in: an existing library (e.g. "
                   "preferences.md, see memory_search) or a new .md file name in the memory folder. Omit to let the "
                   "user pick."},
        "chapter": {"type": "string", "description": "The ## chapter of that file, if known."},
        "reason": {"type": "string", "description": "Why it is worth keeping, in one line (shown to the user)."},
        "kind": {"type": "string", "enum": list(MEMORY_KINDS), "description": "What sort of memory it is (default note)."}},
        "required": ["content"]},
    output_schema=_closed({"queued": {"type": "boolean"}, "duplicate": {"type": "boolean"}, "id": _STR,
                           "target": _STR, "memory_dir": _STR, "warning": _STR, "session": SESSION_SCHEMA},
                          ["queued", "duplicate", "id", "target", "memory_dir"]),
    annotations=types.ToolAnnotations(read_only_hint=False, destructive_hint=False, open_world_hint=False),
)

_SCOPE = {"type": "string", "enum": ["session", "workspace", "all"]}
_ROLE = {"type": "string", "enum": ["user", "assistant"]}
RECALL_SNIPPET_SCHEMA = _closed({"seq": _INT, "role": _ROLE, "text": _STR}, ["seq", "role", "text"])
RECALL_EVENT_SCHEMA = _closed(
    {"start_seq": _INT, "end_seq": _INT, "matched_by": {"type": "string", "enum": ["literal", "fuzzy"]},
     "snippets": {"type": "array", "items": RECALL_SNIPPET_SCHEMA}},
    ["start_seq", "end_seq", "matched_by", "snippets"],
)
RECALL_SESSION_SCHEMA = _closed({"id": _STR, "title": _STR, "cwd": _STR,
                                 "events": {"type": "array", "items": RECALL_EVENT_SCHEMA}},
                                ["id", "title", "cwd", "events"])
RECALL_MESSAGE_SCHEMA = _closed({"seq": _INT, "role": _ROLE, "text": _STR, "compacted": {"type": "boolean"}},
                                ["seq", "role", "text"])
RECALL_DETAIL_SCHEMA = _closed(
    {"session": _closed({"id": _STR, "title": _STR, "cwd": _STR}, ["id", "title", "cwd"]),
     "messages": {"type": "array", "items": RECALL_MESSAGE_SCHEMA}},
    ["session", "messages"],
)
RECALL_TOOL = types.Tool(
    name="recall",
    title="Recall earlier conversations",
    description=RECALL_DESCRIPTION,
    input_schema={"type": "object", "properties": {
        "query": {"type": "string", "description": "What to find: the user's words, a fragment, a name."},
        "scope": {"type": "string", "enum": ["session", "workspace", "all"],
                  "description": "session (default): this conversation; workspace: every session in this folder; "
                  "all: every project, only when the user asks for it."},
        "session": {"type": "string", "description": "Search (or scope to the folder of) this session id instead "
                    "of the calling one."},
        "detail": {"type": "object", "description": "Open the turns around one event instead of searching.",
                   "properties": {"session": {"type": "string", "description": "The session id of the event."},
                                  "seq": {"type": "integer", "description": "An event's start_seq or a snippet's seq."},
                                  "window": {"type": "integer", "description": "Turns each side (default 3)."}},
                   "required": ["seq"]}}},
    output_schema=_closed({"query": _STR, "scope": _SCOPE, "sessions": {"type": "array", "items": RECALL_SESSION_SCHEMA},
                           "truncated": {"type": "boolean"}, "detail": RECALL_DETAIL_SCHEMA,
                           "indexing": _closed({"done": _INT, "total": _INT}, ["done", "total"]),
                           "caller": SESSION_SCHEMA}, ["scope"]),
    annotations=types.ToolAnnotations(read_only_hint=True, open_world_hint=False, idempotent_hint=True),
)


# The library tools: cited passages (verbatim text with source folder, path, heading path, lines or page).
_LIBRARY_SCOPE = {"type": "string", "enum": list(LIBRARY_SCOPES)}
SOURCE_SCHEMA = _closed({"source": _STR, "root": _STR, "scope": _LIBRARY_SCOPE, "problem": _STR}, ["source", "root", "scope"])
_CITED = {
    "source": _STR, "scope": _LIBRARY_SCOPE, "path": _STR, "rel": _STR, "title": _STR,
    "kind": {"type": "string", "enum": list(DOC_KINDS)}, "heading": _STRS, "start_line": _INT, "end_line": _INT,
    "page": _INT, "text": _STR,
    "lines_in": {"type": "string", "enum": ["file", "page", "extracted text"],
                 "description": "What start_line/end_line count: the file's lines, the page's, or the lines of the "
                 "text extracted from HTML, DOCX or FB2."},
}
_CITED_REQUIRED = ["source", "scope", "path", "rel", "title", "kind", "heading", "start_line", "end_line", "text"]
CITED_SCHEMA = _closed({**_CITED, "cut": {"type": "boolean"}}, _CITED_REQUIRED)
SEARCH_RESULT_SCHEMA = _closed({**_CITED, "passages_matched": _INT}, [*_CITED_REQUIRED, "passages_matched"])
_QUERY = {"type": "string", "description": "What to look for, in the user's words (keywords work best)."}
_LIBRARY_SCOPE_INPUT = {**_LIBRARY_SCOPE, "description": "workspace, library or all (default all)."}
KNIT_ASK_TOOL = types.Tool(
    name=KNIT_ASK,
    title="Cited passages from the library, within a budget",
    description=KNIT_ASK_DESCRIPTION,
    input_schema={"type": "object", "properties": {
        "query": _QUERY,
        "top_k": {"type": "integer", "description": f"At most this many passages (1–{LIBRARY_MAX_TOP_K}, default "
                  f"{ASK_DEFAULT_TOP_K})."},
        "max_chars": {"type": "integer", "description": f"Characters of answer ({ASK_MIN_CHARS}–{ASK_MAX_CHARS}, "
                      f"default {ASK_DEFAULT_CHARS})."},
        "scope": _LIBRARY_SCOPE_INPUT}, "required": ["query"]},
    output_schema=_closed({"query": _STR, "scope": _LIBRARY_SCOPE, "keywords": _STRS, "max_chars": _INT, "used_chars": _INT,
                           "passages": {"type": "array", "items": CITED_SCHEMA}, "more": _INT,
                           "sources": {"type": "array", "items": SOURCE_SCHEMA}, "session": SESSION_SCHEMA},
                          ["query", "scope", "keywords", "max_chars", "used_chars", "passages", "more", "sources"]),
    annotations=types.ToolAnnotations(read_only_hint=True, open_world_hint=False, idempotent_hint=True),
)
KNIT_SEARCH_TOOL = types.Tool(
    name=KNIT_SEARCH,
    title="Search the library: documents with their best passage",
    description=KNIT_SEARCH_DESCRIPTION,
    input_schema={"type": "object", "properties": {
        "query": _QUERY,
        "top_k": {"type": "integer", "description": f"At most this many documents (1–{LIBRARY_MAX_TOP_K}, default "
                  f"{SEARCH_DEFAULT_TOP_K})."},
        "scope": _LIBRARY_SCOPE_INPUT}, "required": ["query"]},
    output_schema=_closed({"query": _STR, "scope": _LIBRARY_SCOPE, "keywords": _STRS, "total": _INT,
                           "results": {"type": "array", "items": SEARCH_RESULT_SCHEMA},
                           "sources": {"type": "array", "items": SOURCE_SCHEMA}, "session": SESSION_SCHEMA},
                          ["query", "scope", "keywords", "total", "results", "sources"]),
    annotations=types.ToolAnnotations(read_only_hint=True, open_world_hint=False, idempotent_hint=True),
)
_PROBLEM_FILE = _closed({"rel": _STR, "state": _STR, "reason": _STR}, ["rel", "state", "reason"])
FOLDER_STATS_SCHEMA = _closed(
    {"source": _STR, "root": _STR, "scope": _LIBRARY_SCOPE, "problem": _STR, "documents": _INT, "passages": _INT,
     "indexed": _INT, "skipped": _INT, "failed": _INT, "problems": {"type": "array", "items": _PROBLEM_FILE},
     "index_bytes": _INT, "updated_ms": _INT},
    ["source", "root", "scope"],
)
KNIT_STATS_TOOL = types.Tool(
    name=KNIT_STATS,
    title="What the library holds, per folder",
    description=KNIT_STATS_DESCRIPTION,
    input_schema={"type": "object", "properties": {"scope": _LIBRARY_SCOPE_INPUT}},
    output_schema=_closed({"scope": _LIBRARY_SCOPE, "folders": {"type": "array", "items": FOLDER_STATS_SCHEMA},
                           "session": SESSION_SCHEMA}, ["scope", "folders"]),
    annotations=types.ToolAnnotations(read_only_hint=True, open_world_hint=False, idempotent_hint=True),
)

ALL_TOOLS = [KNIT_DOCS_TOOL, MEMORY_SEARCH_TOOL, MEMORY_PROPOSE_TOOL, RECALL_TOOL, KNIT_SEARCH_TOOL,
             KNIT_ASK_TOOL, KNIT_STATS_TOOL]
