"""A process that loaded its index from the snapshot, then took in edits, reads its postings from the blocks its
own save wrote: the documents added since it loaded are no longer held beside the old blocks, the old postings
file is let go, the next save rewrites only the blocks changed since, and every ranking and context pack stays
the one a fresh build of the same files gives."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from knit_desktop.core.index import store
from knit_desktop.core.index.store import POSTINGS_SUFFIX, LazyPostingLists, _reusable_blocks
from knit_desktop.core.output.payloads import context_payload
from knit_desktop.core.paths import index_db_path
from knit_desktop.core.workspace import RankInput, Workspace

DAY = 86_400_000
TOPICS = ["orbit", "budget", "harbor", "lantern", "quartz", "meadow", "signal", "copper", "willow", "ember"]
QUERIES = [*TOPICS, "orbit budget", "harbor lantern quartz", "meadow signal", "copper willow ember",
           "review plan", "plan", "note", "edited", "fresh words", "zephyr", "orbit review", "budget owner",
           "signal copper", "lantern meadow plan", "word7", "word13 orbit", "quartz harbor review", "edit round",
           "willow ember orbit budget", "owner", "added note", "kestrel", "kestrel orbit", "round"]


def note(i: int, extra: str = "") -> str:
    a, b = TOPICS[i % len(TOPICS)], TOPICS[(i * 3 + 1) % len(TOPICS)]
    body = " ".join([a] * (1 + i % 5) + [b] * (1 + i % 3) + [f"word{i}", "review" if i % 4 == 0 else "plan"])
    return f"# Note {i} {a}\n\nThe {b} owner writes.\n\n{body} {extra}\n"


@pytest.fixture
def workspace(make_workspace, now_ms, monkeypatch):
    monkeypatch.setattr(store, "POSTINGS_BLOCK", 64)  # many small blocks: most of them untouched by an edit
    return make_workspace({f"notes/n{i:03}.md": (note(i), now_ms - (i % 9) * DAY) for i in range(150)})


def answers(ws: Workspace, now_ms: int) -> list:
    out = []
    for query in QUERIES:
        ranking = ws.rank(RankInput.from_query(query), now_ms=now_ms)
        out.append((query, ranking.hit_count, [(r.doc.rel, round(r.score, 9)) for r in ranking.ranked[:40]]))
        pack = context_payload(ws.context(RankInput.from_query(query), now_ms=now_ms))
        out.append(pack)
    return out


def fresh_answers(root: Path, tmp_path: Path, round_no: int, now_ms: int) -> list:
    copy = tmp_path / f"fresh{round_no}" / root.name  # (same folder name: the same workspace label)
    shutil.copytree(root, copy)  # (copy2: the same modification times)
    fresh = Workspace.open_persistent(str(copy))
    try:
        assert fresh.last_refresh.loaded_from != "snapshot"
        return answers(fresh, now_ms)
    finally:
        fresh.close()


def postings_files(root: Path) -> list[Path]:
    db = index_db_path(str(root.resolve()))
    return sorted(p for p in db.parent.iterdir() if p.name.startswith(db.name + POSTINGS_SUFFIX))


def test_after_a_save_the_process_reads_the_blocks_it_wrote(workspace, tmp_path, now_ms):
    Workspace.open_persistent(str(workspace)).close()  # built and saved
    ws = Workspace.open_persistent(str(workspace))
    try:
        assert ws.last_refresh.loaded_from == "snapshot"
        assert answers(ws, now_ms) == fresh_answers(workspace, tmp_path, 0, now_ms)
        for round_no in range(1, 5):
            changed = []
            for k in range(6):  # edits (a word of its own, new to the vocabulary, in some)
                i = (round_no * 37 + k * 11) % 150
                rel = f"notes/n{i:03}.md"
                if (workspace / rel).exists():
                    extra = f"edited round{round_no} kestrel" if k % 2 else f"edited zephyr{round_no}"
                    (workspace / rel).write_text(note(i, extra))
                    os.utime(workspace / rel, ns=((now_ms - k * DAY) * 10**6,) * 2)
                    changed.append(rel)
            rel = f"notes/added{round_no}.md"  # an added file
            (workspace / rel).write_text(f"# Added note {round_no}\n\nfresh words orbit budget round{round_no}\n")
            os.utime(workspace / rel, ns=(now_ms * 10**6,) * 2)
            changed.append(rel)
            rel = f"notes/n{(round_no * 53) % 150:03}.md"  # a removed one
            if (workspace / rel).exists():
                (workspace / rel).unlink()
                changed.append(rel)
            assert ws.apply_changes(changed).changes == len(changed)
            ws.rank(RankInput.from_query("orbit budget"), now_ms=now_ms)  # lists read, some kept whole
            docs, tfs = ws.index.post_docs, ws.index.post_tfs
            ws.index.post_docs[ws.index.vocab["orbit"]]  # (kept whole: cut from the blocks with its tail)
            ws.index.post_tfs[ws.index.vocab["orbit"]]
            assert docs._tails and tfs._tails  # (the documents added since the load are held in tails)
            # Reused by the save: exactly the blocks none of whose tokens' lists was kept or added to.
            bounds = docs.source.block_tokens.tolist()
            changed_tokens = {t for t in range(len(docs)) if t in docs._tails or t in tfs._tails
                              or list.__getitem__(docs, t) is not None or list.__getitem__(tfs, t) is not None}
            expected = {t0 for t0, t1 in zip(bounds, bounds[1:]) if t1 > t0 and not changed_tokens & set(range(t0, t1))}
            assert set(_reusable_blocks(ws.index)) == expected and 0 < len(expected) < len(bounds) - 1

            ws.save()
            docs, tfs = ws.index.post_docs, ws.index.post_tfs
            assert isinstance(docs, LazyPostingLists) and isinstance(tfs, LazyPostingLists)
            # Read from the file just written: no tails, no list kept, only that file left.
            assert docs.source is not None and docs.source.path in postings_files(workspace)
            assert postings_files(workspace) == [docs.source.path]
            assert docs._tails == {} and tfs._tails == {}
            assert all(list.__getitem__(docs, t) is None for t in range(len(docs)))
            # Every block is reusable by the next save: none holds a list changed since.
            assert len(_reusable_blocks(ws.index)) == len(docs.source.blocks)
            assert answers(ws, now_ms) == fresh_answers(workspace, tmp_path, round_no, now_ms)
    finally:
        ws.close()
    again = Workspace.open_persistent(str(workspace))
    try:
        assert again.last_refresh.loaded_from == "snapshot"
        assert answers(again, now_ms) == fresh_answers(workspace, tmp_path, 9, now_ms)
    finally:
        again.close()


def test_a_document_added_while_the_snapshot_is_written_is_kept(workspace, now_ms, monkeypatch):
    """Should anything add a document between the packing and the switch, the process goes on reading what it
    held (the blocks written lack that document) rather than losing it."""
    Workspace.open_persistent(str(workspace)).close()
    ws = Workspace.open_persistent(str(workspace))
    real_commit = store.IndexStore._commit_snapshot

    def commit_then_add(self, *args, **kwargs):
        result = real_commit(self, *args, **kwargs)
        # (words all known already: no new token, only the document)
        (workspace / "notes" / "during.md").write_text("# Before\n\nnightjar the save\n")
        ws.apply_changes(["notes/during.md"])
        return result

    try:
        (workspace / "notes" / "before.md").write_text("# Before\n\nnightjar before the save\n")
        ws.apply_changes(["notes/before.md"])
        monkeypatch.setattr(store.IndexStore, "_commit_snapshot", commit_then_add)
        ws.save()
        ranking = ws.rank(RankInput.from_query("nightjar"), now_ms=now_ms)
        hits = sorted(r.doc.rel for r in ranking.ranked[: ranking.hit_count])
        assert hits == ["notes/before.md", "notes/during.md"]
        assert ws.index.post_docs._tails  # (still read from the blocks loaded, with what was added since)
    finally:
        ws.close()


def test_a_block_found_damaged_while_saving_is_not_saved_as_empty(workspace, now_ms):
    """The save inflates the blocks of the words an edit added to; one damaged inside packs as empty lists. That
    snapshot is not committed: the next start rebuilds from the rows instead of losing those words' documents."""
    built = Workspace.open_persistent(str(workspace))
    expected = built.rank(RankInput.from_query("orbit"), now_ms=now_ms).hit_count
    built.close()
    ws = Workspace.open_persistent(str(workspace))  # (no block inflated yet)
    try:
        assert ws.last_refresh.loaded_from == "snapshot"
        [path] = postings_files(workspace)
        data = bytearray(path.read_bytes())
        for at in range(64, len(data) - 8, 97):  # inside the blocks: their frame headers stay whole
            data[at] ^= 0x5A
        path.write_bytes(bytes(data))
        (workspace / "notes" / "late.md").write_text("# Late\n\norbit again\n")
        ws.apply_changes(["notes/late.md"])
        ws.save()
    finally:
        ws.close()
    again = Workspace.open_persistent(str(workspace))
    try:
        assert again.rank(RankInput.from_query("orbit"), now_ms=now_ms).hit_count == expected + 1
    finally:
        again.close()
