"""Plain-text renderings: the numbered list of `rank` and the context text an agent reads (English)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..index.pins import Pins
from ..rank.pinning import pinned_ranked
from ..rank.ranking import Ranking
from ..text.timefmt import relative_time_en
from ..text.tokens import truncate

if TYPE_CHECKING:  # a context pack's modules load with `context`, not with every `rank`
    from ..rank.context_pack import ContextPack, PackItem

ITEM_SUMMARY_CHARS = 90
TIER_HEADINGS = {
    "pinned": "Pinned by the user (read these first, whatever the topic):",
    "primary": "Primary (read these first):",
    "supporting": "Supporting (evidence, implementation, next step):",
    "related": "Related (background — do not start here):",
}


def topic_line(ranking: Ranking) -> str:
    if ranking.mode == "relevance":
        terms = ", ".join(ranking.matched_terms)
        return "Sorted by relevance" + (f" · matched keywords: {terms}" if terms else " · no document matched the keywords")
    if ranking.requested_sort == "relevance":
        return "Not enough conversation yet — sorted by time"
    return "Sorted by modified time"


def render_rank(ranking: Ranking, now_ms: int, limit: int | None = None, pins: Pins | None = None) -> str:
    """The rank list as text; with `pins`, hidden documents left out and the pinned ones first (marked 📌)."""
    lines = [topic_line(ranking)]
    if ranking.topic:
        lines.append(f"Topic: {ranking.topic}")
    ranked, pinned_rels, hidden = pinned_ranked(ranking, pins, limit)
    pinned = set(pinned_rels)
    if not ranked:
        lines.append("No documents in this workspace yet." if ranking.kind != "media" else "No images or videos yet.")
        return "\n".join(lines)
    width = len(str(len(ranked)))
    for i, r in enumerate(ranked, start=1):
        when = relative_time_en(r.doc.mtime_ms, now_ms)
        mark = "📌 " if r.doc.rel in pinned else ""
        lines.append(f"{i:>{width}}. {mark}{r.doc.rel} — {r.doc.title}  ({when})")
        if r.matched:
            lines.append(f"{'':>{width}}  matched: {', '.join(r.matched[:4])}")
    shown = len(ranked)
    lines.append(f"{shown} of {ranking.total - hidden} shown" + (f" ({hidden} hidden by you)" if hidden else ""))
    return "\n".join(lines)


def reason_text(item: PackItem) -> str:
    terms = ", ".join(item.reason.terms[:3])
    code = item.reason.code
    if code == "direct":
        return f"direct topic match in the title ({terms})"
    if code == "titleMatch":
        return f"matched in the title ({terms})"
    if code == "filenameMatch":
        return f"matched in the filename ({terms})"
    if code == "summaryMatch":
        return f"matched in the summary ({terms})"
    if code == "bodyMatch":
        return f"matched in the body ({terms})"
    if code == "linkTarget":
        return "referenced by a primary document"
    if code == "linkSource":
        return "references a primary document"
    if code == "pinned":
        return "pinned by the user"
    return "related in the current workspace"


def _relations_text(item: PackItem, limit: int = 2) -> str:
    parts = []
    for fact in item.relations[:limit]:
        arrow = "←" if fact["dir"] == "in" else "→"
        parts.append(f"{fact['type']} {arrow} {fact['other']}:{fact['line']}")
    return "; ".join(parts)


def render_context(pack: ContextPack) -> str:
    text = _render_context(pack)
    if pack.hidden:
        text += f"\n\n({pack.hidden} document(s) hidden by the user are left out.)"
    return text


def _render_context(pack: ContextPack) -> str:
    if pack.mode == "time":
        if not pack.recent and not pack.pinned:
            return "No documents found in the workspace."
        lines = []
        if pack.pinned:
            lines += [TIER_HEADINGS["pinned"]]
            lines += [f"- {item.record.doc.rel} — {item.record.doc.title}" for item in pack.pinned]
            lines.append("")
        lines.append(
            f"Not enough conversation to rank by relevance — showing the {len(pack.recent)} most recently "
            f"modified of {pack.total} documents:"
        )
        lines += [f"{i}. {r.doc.rel} — {r.doc.title}" for i, r in enumerate(pack.recent, start=1)]
        return "\n".join(lines)
    if not pack.items():
        if pack.total == 0:
            return "No documents found in the workspace."
        return (
            f"No document matched the current topic — 0 of {pack.total} documents contain the query terms.\n"
            "Every document was searched in full (files over 2 MB are indexed only up to that size); "
            "images and videos have no searchable text."
        )
    topic = f"「{pack.topic}」" if pack.topic else "the current conversation"
    lines = [
        f"Context for {topic}: {pack.matched} matching of {pack.total} documents, split into primary / supporting / "
        "related by deterministic local rules (first-read order — not a flat relevance list; each tier is still "
        "ranked by IDF-weighted relevance):"
    ]
    number = 0
    for tier, items in pack.tiers():
        if not items:
            continue
        lines.append("")
        lines.append(TIER_HEADINGS[tier])
        for item in items:
            number += 1
            doc = item.record.doc
            lines.append(f"{number}. {doc.rel} — {doc.title}")
            if doc.summary:
                lines.append(f"   {truncate(doc.summary, ITEM_SUMMARY_CHARS)}")
            lines.append(f"   Why: {reason_text(item)}")
            if item.relations:
                lines.append(f"   relations: {_relations_text(item)}")
            if item.passages:
                p = item.passages[0]
                where = f"page {p.page}, lines" if p.page is not None else "lines"
                lines.append(f"   match: {where} {p.start_line}–{p.end_line} — {p.snippet}")
    return "\n".join(lines)
