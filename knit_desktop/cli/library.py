"""`library add|remove|list`, `ask`, `stats`, and `rank`/`context` over the library folders (`--scope`)."""

from __future__ import annotations

import argparse
import os
import sys

from ..core.index.pins import Pins
from ..core.library import (
    MAX_TOP_K,
    Library,
    LibraryError,
    add_folder,
    labels_for,
    library_folders,
    remove_folder,
    render_ask,
)
from ..core.output.payloads import context_payload
from ..core.text.timefmt import relative_time_en
from ..core.view import SourceRanking, merged_ranked
from ..core.workspace import RankInput, Workspace
from .common import ProgressBar, now_ms, open_workspace, print_json, rank_input, say, workspace_root
from .parser import EXIT_OK, UsageError


def _scope(args: argparse.Namespace) -> str:
    return args.scope or ("all" if getattr(args, "workspace", None) else "library")


def open_library(args: argparse.Namespace, scope: str, workspace: Workspace | None = None) -> Library:
    """The library folders (when the scope has them) and the workspace (when it has it and one is given)."""
    if scope in ("workspace", "all") and workspace is None and getattr(args, "workspace", None):
        workspace = open_workspace(args)
    if scope == "workspace" and workspace is None:
        raise UsageError("--scope workspace needs --workspace DIR")
    folders = library_folders() if scope in ("library", "all") else []
    library = Library.open(folders, workspace if scope != "library" else None,
                           allow_large=getattr(args, "allow_large_workspace", False))
    for source in library.sources:
        if source.problem:
            print(f"knit-desktop: library folder {source.label} ({source.root}): {source.problem}", file=sys.stderr)
    return library


def cmd_library(args: argparse.Namespace) -> int:
    if args.action == "list":
        folders = library_folders()
        if args.json:
            print_json([{"source": label, "root": folder, "exists": os.path.isdir(folder)}
                        for label, folder in zip(labels_for(folders), folders)])
            return EXIT_OK
        if not folders:
            say("No library folders yet: `knit-desktop library add DIR` adds one.")
        for label, folder in zip(labels_for(folders), folders):
            say(f"{label}\t{folder}" + ("" if os.path.isdir(folder) else "\t(missing)"))
        return EXIT_OK
    if not args.folder:
        raise UsageError(f"library {args.action} needs a folder")
    try:
        if args.action == "add":
            folder, folders = add_folder(args.folder, args.allow_large_workspace)
        else:
            folder, folders = remove_folder(args.folder)
    except LibraryError as exc:
        raise UsageError(str(exc)) from None
    counts = None
    if args.action == "add" and not args.no_index:
        bar = ProgressBar()
        workspace = Workspace.open_persistent(folder, bar)
        bar.finish()
        counts = workspace.status_counts()
        workspace.close()
    if args.json:
        print_json({"action": args.action, "folder": folder, "folders": folders, **({"counts": counts} if counts else {})})
    elif counts is not None:
        say(f"added {folder}: {counts['indexed']} indexed, {counts['skipped']} skipped, {counts['failed']} failed")
    else:
        say(f"{'added' if args.action == 'add' else 'removed'} {folder}")
    return EXIT_OK


def cmd_ask(args: argparse.Namespace) -> int:
    if not args.text.strip():
        raise UsageError("the query is empty")
    scope = _scope(args)
    library = open_library(args, scope)
    answer = library.ask(args.text, max_chars=max(200, args.max_chars), top_k=min(MAX_TOP_K, args.top_k),
                         scope=scope, now_ms=now_ms(args))
    if args.json:
        print_json(answer)
    else:
        say(render_ask(answer))
    return EXIT_OK


def cmd_stats(args: argparse.Namespace) -> int:
    scope = _scope(args)
    library = open_library(args, scope)
    rows = library.stats(scope)
    if args.json:
        print_json({"scope": scope, "folders": rows})
        return EXIT_OK
    if not rows:
        say("No library folders yet: `knit-desktop library add DIR` adds one.")
    now = now_ms(args)
    for row in rows:
        if "documents" not in row:
            say(f"{row['source']} ({row['root']}): {row.get('problem', '')}")
            continue
        updated = relative_time_en(row["updated_ms"], now) if "updated_ms" in row else "never saved"
        size = f"{row.get('index_bytes', 0) / 1e6:.1f} MB"
        say(f"{row['source']} ({row['root']}): {row['documents']} documents, {row['passages']} passages; "
            f"{row['skipped']} skipped, {row['failed']} failed; index {size}, updated {updated}")
        for problem in row["problems"][:10]:
            say(f"    {problem['state']:8} {problem['rel']}: {problem['reason']}")
    return EXIT_OK


def rank_scoped(args: argparse.Namespace) -> dict:
    """`rank --scope library|all --json`: every source's ranking merged as the window merges them
    (`merged_ranked`: each folder's pins and hides applied, the pinned first, then hits by score, then the rest
    by time), each result with the folder it came from in `source` (the key `rank --json` adds; `pinned` names
    the pinned as {source, rel} when something is pinned or hidden)."""
    request = rank_input(args)
    workspace = open_workspace(args) if args.scope == "all" else None
    library = open_library(args, args.scope, workspace)
    now = now_ms(args)
    parts = [SourceRanking(source.workspace.rank(request, now_ms=now, kind=args.kind, sort=args.sort),
                           None if args.ignore_pins else Pins.load(source.workspace.root), source.label,
                           source.workspace.root)
             for source in library.in_scope(args.scope) if source.workspace is not None]
    merged, hidden = merged_ranked(parts, args.limit or None)
    keywords: list[str] = []
    for part in parts:
        keywords += [k for k in part.ranking.matched_terms if k not in keywords]
    topics = [p.ranking.topic for p in parts if p.ranking.mode == "relevance"]
    pinned = [{"source": part.label, "rel": row.doc.rel} for part, row in merged
              if part.pins is not None and part.pins.is_pinned(row.doc.rel)]
    anything_pinned = any(p.pins is not None and (p.pins.pinned or p.pins.hidden) for p in parts)
    return {"mode": "relevance" if topics else "time", "topic": topics[0] if topics else "", "keywords": keywords,
            "total": sum(p.ranking.total for p in parts) - hidden,
            **({"pinned": pinned, "hidden": hidden} if anything_pinned else {}),
            "results": [{"rel": row.doc.rel, "kind": row.doc.kind, "title": row.doc.title,
                         "summary": row.doc.summary, "mtime_ms": row.doc.mtime_ms, "matched": row.matched,
                         "source": part.label} for part, row in merged]}


def cmd_rank_scoped(args: argparse.Namespace) -> int:
    payload = rank_scoped(args)
    if args.json:
        print_json(payload)
        return EXIT_OK
    pinned = {(p["source"], p["rel"]) for p in payload.get("pinned", [])}
    for i, r in enumerate(payload["results"], start=1):
        matched = f"  [{', '.join(r['matched'])}]" if r["matched"] else ""
        mark = "📌 " if (r["source"], r["rel"]) in pinned else ""
        say(f"{i:>3}. {r['title']} — {mark}{r['source']}: {r['rel']}{matched}")
    if payload.get("hidden"):
        say(f"({payload['hidden']} hidden by you)")
    return EXIT_OK


def cmd_context_scoped(args: argparse.Namespace) -> int:
    """`context --scope library|all`: one context pack per source, labelled."""
    request = rank_input(args) if (args.query is not None or args.messages or args.session) else None
    if request is None:
        request = RankInput([])
    if args.scope == "all":
        workspace_root(args)
    library = open_library(args, args.scope)
    packs = []
    for source in library.in_scope(args.scope):
        if source.workspace is not None:
            pins = None if args.ignore_pins else Pins.load(source.workspace.root)  # a folder's own pins, if any
            pack = source.workspace.context(request, now_ms=now_ms(args), recent_limit=args.limit, pins=pins)
            origin = "workspace" if source.is_workspace else source.label
            packs.append({"source": source.label, "scope": source.scope, **context_payload(pack, origin=origin)})
    if args.json:
        print_json({"scope": args.scope, "sources": packs})
        return EXIT_OK
    for entry in packs:
        say(f"== {entry['source']} ({entry['scope']}): {entry['topic']}")
        for tier in ("pinned", "primary", "supporting", "related"):
            for item in entry.get(tier, []):
                say(f"  {tier:10} {item['title']} — {item['rel']}")
    return EXIT_OK
