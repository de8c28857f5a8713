"""What the agent tools promise, shared by the tools themselves and their MCP definitions: names, limits and
descriptions. Constants only, so the MCP server can list its tools without importing the ranking engine."""

from __future__ import annotations

from ..memory.kinds import KINDS

KNIT_DOCS = "knit_docs"
MEMORY_SEARCH = "memory_search"
MEMORY_PROPOSE = "memory_propose"
RECALL = "recall"

DEFAULT_LIMIT = 5
MAX_LIMIT = 20
MEMORY_DEFAULT_HITS = 3
MEMORY_MAX_HITS = 10

KNIT_DOCS_DESCRIPTION = (
    "Project context for the current task, from the workspace documents: primary (read first) / supporting "
    "(evidence, implementation) / related, each with its matched passages (line range, and page for PDFs, plus a "
    "snippet). Ranked by IDF-weighted relevance to the active conversation (or an explicit query), then split by "
    "deterministic rules — prefer it to globbing or counting keyword hits. Reads the workspace; stores nothing in "
    "it, calls no model. The answer names the workspace (absolute path) and the DSH session it used; each item's "
    "`origin` is \"workspace\". Documents in the user's library folders (outside the workspace) are ranked beside "
    "the workspace's by knit_search and quoted by knit_ask, each labelled with its folder."
)

MEMORY_KINDS = KINDS  # memory_propose's `kind`

# almost-for-ever's three cost tiers, as memory_search names them: L1 the structure (libraries, chapters, line
# ranges, token counts: `knit-desktop memory` or the memory panel, ≈ 750 tokens), L2 the hits (entries as
# `path:start-end` with their text, 110–220 tokens), L3 the entry itself (the agent reads those lines).
MEMORY_TIER_LINE = (
    "Tier L2 (hits): {count} as path:start-end with their text, ≈{tokens} tokens. Next, L3: read exactly those "
    "lines with your read tool for the whole entry. L1, the structure (libraries, chapters, line ranges, token "
    "counts), is `knit-desktop memory` or the memory panel."
)
MEMORY_TIER_LINE_EMPTY = (
    "Tier L2 (hits) found no entry. L1, the structure (libraries, chapters, line ranges, token counts), is "
    "`knit-desktop memory` or the memory panel."
)
# Proposed description of the memory_search MCP tool (mcp_tools.MEMORY_SEARCH_TOOL), kept here with the other
# promises the tools make.
MEMORY_SEARCH_DESCRIPTION = (
    "Search the user's Markdown memory files — tier L2 of three: returns the best entries (list items, table rows, "
    "paragraphs, `###` blocks with their body) as absolute `path:start-end` line ranges with their text, at most "
    "`limit` (default 3) within a 700-character budget (≈ 110–220 tokens), and names the memory folder. Next tier, "
    "L3: read exactly those lines with your read tool. Tier L1, the structure (libraries, chapters, line ranges, "
    "token counts, ≈ 750 tokens), is `knit-desktop memory` or the memory panel. Status questions (\"how far did X "
    "get\", \"做到哪一步了\") favour entries that say done or open, and the latest entry of a log; a why question "
    "the entry that gives a cause, a what-to-do question the fix, a how-many question an entry with a count: ask "
    "the question itself."
)

RECALL_BROWSE_TOKENS = 800  # a browse answer: titles, events and snippets
RECALL_DETAIL_TOKENS = 300  # a detail answer, per ±3 turns
RECALL_DESCRIPTION = (
    "Recall what was said in earlier DSH conversations, compacted history included (a compaction only "
    "summarises; the original turns stay searchable). Use it when the user refers to an earlier discussion "
    "(\"as we discussed\", \"last time\", \"之前说\", \"上次\", \"记得吗\") or when details you need were "
    "compacted away — before asking the user to repeat themselves. Two steps: first a browse (`query`): sessions "
    "with events [start_seq..end_seq], up to 3 short snippets each and which layer matched (literal or fuzzy: "
    "typos, fragments, some words changed), within about 800 tokens; then, if a snippet is not enough, `detail` "
    "{session, seq, window} for the turns around one event (about 300 tokens for ±3). Scope: `session` (default, "
    "this conversation), `workspace` (every session in this project folder), `all` only when the user explicitly "
    "asks to search every project. Reads DSH's logs; writes nothing, calls no model."
)
# The document kinds an answer can name (index.documents.DOC_KINDS, repeated so listing the tools imports no
# engine; tests/test_library.py checks they agree).
DOC_KINDS = ("md", "txt", "pdf", "html", "docx", "epub", "xps", "fb2", "mobi", "cbz")
KNIT_SEARCH = "knit_search"
KNIT_ASK = "knit_ask"
KNIT_STATS = "knit_stats"
LIBRARY_SCOPES = ("workspace", "library", "all")
ASK_DEFAULT_CHARS = 6000
ASK_MIN_CHARS = 200
ASK_MAX_CHARS = 100_000
ASK_DEFAULT_TOP_K = 5
SEARCH_DEFAULT_TOP_K = 8
LIBRARY_MAX_TOP_K = 50
_LIBRARY_NOTE = (
    " Library folders are chosen by the user (Knit's Settings → Library, or `knit-desktop library add DIR`); this "
    "tool cannot add, remove or re-index them. scope: \"workspace\" (this session's project folder), \"library\" "
    "(the library folders) or \"all\" (default)."
)
KNIT_SEARCH_DESCRIPTION = (
    "Search the user's library folders (papers, manuals, specs in formats Markdown, text, PDF, HTML, DOCX, EPUB, "
    "XPS, FB2, MOBI) and the workspace: documents in the order of their best passage, each with that passage "
    "verbatim and its citation (source folder, absolute path, heading path, start_line/end_line, page for paged "
    "formats). top_k: documents (1–50, default 8). Keyword search (BM25 with CJK n-grams), no model, no network."
    + _LIBRARY_NOTE
)
KNIT_ASK_DESCRIPTION = (
    "Answer from the user's library folders and the workspace with the best passages verbatim — never rewritten "
    "or summarised — within max_chars characters (default 6000, 200–100000), each under a citation line (source "
    "folder, path, heading path, lines or page), at most top_k passages (1–50, default 5), and a line saying how "
    "many more matched. Quote the passages and cite them; read the cited lines with your read tool for more."
    + _LIBRARY_NOTE
)
KNIT_STATS_DESCRIPTION = (
    "What the library holds, per folder: documents, passages, files indexed / skipped / failed (with the reasons of "
    "those not indexed), index size and last update. Read-only." + _LIBRARY_NOTE
)
