"""Whether two Knit checkouts build the same index of a workspace: for a change meant to make indexing faster
without changing what the index holds or answers.

Run:  .venv/bin/python tests/benchmarks/index_identity.py --workspace DIR --trees /path/to/before .
Each tree builds the workspace cold in a child process (its own empty KNIT_DESKTOP_HOME), then reports digests of
what the index holds (vocabulary in id order, postings, field lengths, documents with their text, links, statuses,
trigrams), the top 40 of peers.py's QUERIES with their scores and the context pack of each, once as built and once
reopened from the saved snapshot. The reports must be equal; the first differences are printed otherwise.
A workspace can be made with tests/benchmarks/build.py --keep DIR (DIR/ws20000).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]


def _digest(items) -> str:
    h = hashlib.sha256()
    for item in items:
        h.update(item if isinstance(item, bytes) else repr(item).encode("utf-8", "surrogatepass"))
    return h.hexdigest()


def report(root: str) -> dict:
    """What the tree on the path builds of `root` (run in the child, KNIT_DESKTOP_HOME set by the caller)."""
    from knit_desktop.core.output.payloads import context_payload
    from knit_desktop.core.workspace import RankInput, Workspace
    from tests.benchmarks.peers import NOW_MS, QUERIES

    out = {}
    for phase in ("built", "reopened"):
        ws = Workspace.open_persistent(root)
        index = ws.index
        entry = {
            "tokens": len(index.tokens),
            "vocabulary": _digest(index.tokens),
            "postings": _digest(b"".join([bytes(index.post_docs[tid]), *map(bytes, index.post_tfs[tid])])
                                for tid in range(len(index.tokens))),
            "lengths": _digest([bytes(index.lengths)]),
            "documents": _digest((i, d.rel, d.kind, d.title, d.summary, d.mtime_ms, d.size, d.truncated,
                                  d.content_hash, d.page_starts, d.note, d.body)
                                 for i, d in enumerate(index.docs) if d is not None),
            "links": _digest(sorted((rel, [(r.raw, r.line) for r in refs]) for rel, refs in ws.refs.items())),
            "statuses": _digest((s.rel, s.state, s.reason) for s in ws.problems()),
            "trigrams": _digest(sorted((gram, list(ids)) for gram, ids in index.trigrams.items())),
            "rank": {},
            "context": {},
        }
        for query in QUERIES:
            ranking = ws.rank(RankInput.from_query(query), now_ms=NOW_MS)
            entry["rank"][query] = [(r.doc.rel, repr(r.raw), r.score, r.matched) for r in ranking.ranked[:40]]
            entry["context"][query] = context_payload(ws.context(RankInput.from_query(query), now_ms=NOW_MS))
        ws.close()
        out[phase] = entry
    return out


def differences(a: object, b: object, path: str = "") -> list[str]:
    if isinstance(a, dict) and isinstance(b, dict):
        found = []
        for key in sorted(set(a) | set(b), key=str):
            found += differences(a.get(key), b.get(key), f"{path}/{key}")
        return found
    return [] if a == b else [f"{path}: {str(a)[:200]} != {str(b)[:200]}"]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--workspace", required=True)
    parser.add_argument("--trees", nargs=2, type=Path, default=[REPO, REPO])
    parser.add_argument("--child", metavar="OUT", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        sys.path.append(str(REPO))  # (after the tree under test: tests.benchmarks.peers for the queries)
        Path(args.child).write_text(json.dumps(report(args.workspace), ensure_ascii=False, sort_keys=True))
        return 0
    reports = []
    with tempfile.TemporaryDirectory(prefix="knit-identity-") as scratch:
        for n, tree in enumerate(args.trees):
            out = Path(scratch) / f"report-{n}.json"
            env = dict(os.environ, KNIT_DESKTOP_HOME=str(Path(scratch) / f"home-{n}"), PYTHONPATH=str(tree.resolve()))
            subprocess.run([sys.executable, str(Path(__file__).resolve()), "--workspace", args.workspace,
                            "--child", str(out)], env=env, cwd=tree, check=True)
            reports.append(json.loads(out.read_text()))
    found = differences(*reports)
    for line in found[:20]:
        print(line)
    print(f"{'identical' if not found else f'{len(found)} differences'}: {args.trees[0]} and {args.trees[1]} on "
          f"{args.workspace} ({reports[0]['built']['tokens']} words)")
    return 0 if not found else 1


if __name__ == "__main__":
    sys.exit(main())
