"""`propose` and `memory`: queue a memory for confirmation, search the memory files or show their structure."""

from __future__ import annotations

import argparse
import os
import sys

from ..core.text.tokens import escape_controls
from .common import (
    print_json,
    say,
)
from .parser import EXIT_OK, UsageError


def _memory_store(args: argparse.Namespace):
    from ..core.memory.store import MemoryStore

    return MemoryStore(args.memory_dir, args.dsh_home)


def cmd_propose(args: argparse.Namespace) -> int:
    store = _memory_store(args)
    try:
        proposal, new = store.propose(args.text, args.target, args.chapter, args.kind, source="user",
                                      reason=args.reason)
    except ValueError as exc:
        raise UsageError(str(exc)) from None
    if store.queue.warning:
        print(store.queue.warning, file=sys.stderr)
    where = f" → {proposal.target}" + (f" › {proposal.chapter}" if proposal.chapter else "") if proposal.target else ""
    say(("Queued for confirmation" if new else "Already waiting for confirmation") + f"{where}: {proposal.text}")
    return EXIT_OK


def cmd_memory(args: argparse.Namespace) -> int:
    store = _memory_store(args)
    libraries = store.libraries()
    if args.query:
        hits, text = store.search(args.query, args.hits, args.budget)
        if args.json:
            from ..core.memory.search import hits_payload

            print_json(hits_payload(hits, text, os.path.realpath(store.memory_dir), store.skipped))
        else:
            say(text or f"No memory matches “{args.query}”.")
            for name, reason in sorted(store.skipped.items()):
                print(escape_controls(f"{name}: {reason}"), file=sys.stderr)
        return EXIT_OK
    rows = sorted(libraries, key=lambda lib: -lib.tokens)
    if args.json:
        print_json([{"file": os.path.basename(lib.path), "name": lib.name, "tags": lib.tags, "tokens": lib.tokens,
                      "lines": [lib.start, lib.end], "chapters": [
                          {"title": c.title, "lines": [c.start, c.end], "tokens": c.tokens,
                           "entries": len(c.entries), "tags": c.tags} for c in lib.chapters if not c.implicit]}
                     for lib in rows])
        return EXIT_OK
    for name, reason in sorted(store.skipped.items()):
        print(escape_controls(f"{name}: {reason}"), file=sys.stderr)
    if not rows:
        say(f"No memory files in {store.memory_dir} yet.")
    for lib in rows:
        tags = f"  [{', '.join(lib.tags)}]" if lib.tags else ""
        say(f"{lib.name} — {os.path.basename(lib.path)}  ~{lib.tokens} tok{tags}")
        for c in lib.chapters:
            if not c.implicit:
                ctags = f"  [{', '.join(c.tags)}]" if c.tags else ""
                say(f"  {c.start}-{c.end}  {c.title}  ~{c.tokens} tok, {len(c.entries)} entries{ctags}")
    return EXIT_OK
