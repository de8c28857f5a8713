"""What the agent tools promise, shared by the tools themselves and their MCP definitions: names, limits and
descriptions. Constants only, so the MCP server can list its tools without importing the ranking engine."""

from __future__ import annotations

KNIT_DOCS = "knit_docs"
MEMORY_SEARCH = "memory_search"
MEMORY_PROPOSE = "memory_propose"

DEFAULT_LIMIT = 5
MAX_LIMIT = 20
MEMORY_DEFAULT_HITS = 3
MEMORY_MAX_HITS = 10

KNIT_DOCS_DESCRIPTION = (
    "Project context for the current task, from the workspace documents: primary (read first) / supporting "
    "(evidence, implementation) / related, each with its matched passages (line range, and page for PDFs, plus a "
    "snippet). Ranked by IDF-weighted relevance to the active conversation (or an explicit query), then split by "
    "deterministic rules — prefer it to globbing or counting keyword hits. Reads the workspace; stores nothing in "
    "it, calls no model. The answer names the workspace (absolute path) and the DSH session it used."
)

# What sort of memory a proposal is (memory_propose's `kind`; the sticky note shows it).
MEMORY_KINDS = ("preference", "project", "environment", "fact", "todo", "note")
