"""JSON shapes of the command line and the agent tool. No scores, no bodies, no absolute paths.

Only for printing: the window gets typed results (`core/view.py`), never these dicts."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..index.pins import Pins
from ..rank.pinning import pinned_ranked
from ..rank.ranking import Ranking

if TYPE_CHECKING:  # a context pack's modules load with `context`, not with every `rank`
    from ..rank.context_pack import ContextPack, PackItem

TOOL_RELATIONS = 2


def rank_payload(ranking: Ranking, limit: int | None = None, pins: Pins | None = None) -> dict:
    """The rank list; with `pins`, hidden documents left out and pinned ones first (`pinned` names them)."""
    ranked, pinned, hidden = pinned_ranked(ranking, pins, limit)
    extra: dict[str, object] = {"pinned": pinned, "hidden": hidden} if pins and (pins.pinned or pins.hidden) else {}
    return {
        "mode": ranking.mode,
        "topic": ranking.topic,
        "keywords": ranking.matched_terms,
        "total": ranking.total - hidden,
        **extra,
        "results": [
            {
                "rel": r.doc.rel,
                "kind": r.doc.kind,
                "title": r.doc.title,
                "summary": r.doc.summary,
                "mtime_ms": r.doc.mtime_ms,
                "matched": r.matched,
            }
            for r in ranked
        ],
    }


def item_payload(item: PackItem, relations_limit: int = TOOL_RELATIONS, origin: str = "workspace") -> dict:
    """One document of a context pack. `source` is the kind of file it is (design, test, …: the reference's
    word); `origin` is the folder it comes from: "workspace", or a library folder's label."""
    doc = item.record.doc
    out: dict = {
        "rel": doc.rel,
        "title": doc.title,
        "summary": doc.summary,
        "mtime_ms": doc.mtime_ms,
        "kind": doc.kind,
        "source": item.source,
        "reason": item.reason.to_json(),
        "provenance": item.provenance,
        "origin": origin,
    }
    if item.relations:
        out["relations"] = item.relations[:relations_limit]
        if len(item.relations) > relations_limit:
            out["relations_total"] = len(item.relations)
    if item.passages:
        out["snippet"] = item.passages[0].snippet
        out["matches"] = [p.to_json() for p in item.passages]
    return out


def context_payload(pack: ContextPack, relations_limit: int = TOOL_RELATIONS, origin: str = "workspace") -> dict:
    out: dict = {
        "mode": pack.mode,
        "topic": pack.topic,
        "task": pack.task,
        "total": pack.total,
        "primary": [item_payload(i, relations_limit, origin) for i in pack.primary],
        "supporting": [item_payload(i, relations_limit, origin) for i in pack.supporting],
        "related": [item_payload(i, relations_limit, origin) for i in pack.related],
        "totals": {
            "primary": len(pack.primary),
            "supporting": len(pack.supporting),
            "related": len(pack.related),
            "matched": pack.matched,
            "total": pack.total,
        },
    }
    if pack.pinned or pack.hidden:  # only where the user pinned or hid something: the usual answer is unchanged
        out["pinned"] = [item_payload(i, relations_limit, origin) for i in pack.pinned]
        out["totals"]["pinned"] = len(pack.pinned)
        out["totals"]["hidden"] = pack.hidden
    if pack.mode == "time":
        out["docs"] = [
            {"rel": r.doc.rel, "title": r.doc.title, "summary": r.doc.summary, "mtime_ms": r.doc.mtime_ms}
            for r in pack.recent
        ]
    return out
