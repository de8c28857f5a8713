"""Document id by rel for an index loaded from its snapshot: the same answers as a dictionary of every rel, through
removals, additions, renames and hash collisions, without holding a string per document."""

import random
import tracemalloc
from pathlib import Path

import numpy as np
import pytest

from knit_desktop.core.index import rel_ids as rel_ids_module
from knit_desktop.core.index.rel_ids import RelIds
from knit_desktop.core.workspace import Workspace
from tests.conftest import write_file

FOLDERS = ("docs/", "docs2/", "notes/deep/", "笔记/", "")


def _build(make_workspace, count: int) -> Workspace:
    files = {f"{FOLDERS[i % len(FOLDERS)]}n{i:04d}.md": f"# Note {i}\n\nOrbit telemetry {i % 7}.\n" for i in range(count)}
    root = make_workspace(files)
    Workspace.open_persistent(str(root)).close()  # built and saved
    ws = Workspace.open_persistent(str(root))  # loaded from the snapshot
    assert ws.last_refresh.loaded_from == "snapshot"
    return ws


def _expected(ws: Workspace) -> dict[str, int]:
    live = ws.index.docs.live()
    return {ws.index.docs.rel(i): i for i in range(len(ws.index.docs)) if live[i]}


def _check(by_rel: RelIds, expected: dict[str, int], probes: list[str]) -> None:
    assert len(by_rel) == len(expected)
    assert list(by_rel) == list(expected)  # (the order a dictionary built and changed the same way has)
    for rel in probes:
        assert by_rel.get(rel) == expected.get(rel), rel
        assert (rel in by_rel) == (rel in expected)
    assert by_rel.ids_of(probes).tolist() == [expected.get(rel, -1) for rel in probes]
    for prefixes in (("docs/",), ("docs2/", "笔记/"), ("notes/",), ("nope/",), ("n0",), ("docs/n000", "笔记/n001")):
        assert sorted(by_rel.under(prefixes)) == sorted((r, i) for r, i in expected.items() if r.startswith(prefixes))


@pytest.mark.parametrize("colliding", [False, True])
def test_the_ids_of_a_loaded_index_follow_every_change_as_a_dictionary_would(make_workspace, monkeypatch, colliding):
    if colliding:  # every rel of a length in one hash bucket: each hit is told apart by its name
        monkeypatch.setattr(rel_ids_module, "hash", len, raising=False)
    monkeypatch.setattr(rel_ids_module, "BULK_LOOKUP", 8)  # the whole-walk path, on a small walk
    ws = _build(make_workspace, 120)
    root = Path(ws.root)
    by_rel = ws.index.by_rel
    assert isinstance(by_rel, RelIds)
    expected = _expected(ws)
    rng = random.Random(7)
    rels = list(expected)
    probes = rels + ["missing.md", "docs/", "docs", "docs2/n0001.md", ""]
    _check(by_rel, expected, probes)
    for round_ in range(6):
        picked = rng.sample(sorted(expected), 10)
        for rel in picked[:4]:  # removed
            (root / rel).unlink()
        for rel in picked[4:7]:  # edited: a new row at the same name
            write_file(root, rel, f"# Edited {round_}\n\nkestrel\n")
        new = [f"{FOLDERS[(round_ + k) % len(FOLDERS)]}added{round_}-{k}.md" for k in range(3)]
        for rel in new:
            write_file(root, rel, "# Added\n\nkestrel\n")
        if round_ == 3:  # a removed name comes back
            write_file(root, picked[0], "# Back\n")
        ws.refresh()
        expected = _expected(ws)
        probes += new
        _check(by_rel, expected, probes)
    ws.close()


def test_a_loaded_index_holds_no_string_per_document_to_find_its_ids(make_workspace):
    """A dictionary of every rel took 15 MB at 100,000 documents (about 150 bytes a document)."""
    ws = _build(make_workspace, 3000)
    index = ws.index
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        by_rel = index.by_rel
        assert by_rel.get("docs/n0000.md") == _expected(ws)["docs/n0000.md"]
        held = tracemalloc.get_traced_memory()[0] - before
    finally:
        tracemalloc.stop()
    assert held < 3000 * 40, held  # 16 bytes a document (hash and row), and some slack
    assert np.array_equal(by_rel.ids_of(list(_expected(ws))), np.array(list(_expected(ws).values())))
    ws.close()


def test_a_folder_walk_after_a_save_that_only_removed_files_finds_the_folders_documents(make_workspace):
    """A save that removes files and adds none keeps the saved order by rel as it was, each removed row in its old
    place: the documents below a folder are still all found, and a file deleted there is forgotten by a walk of it."""
    names = ["docs/a.md", "docs/b.md", "m.md", "n.md", "z.md", "docs2/c.md", "笔记/d.md", "a.md", "a.md.bak"]
    others = [f"p/{k:02d}.md" for k in range(30)]  # (a snapshot with too many removed rows is not loaded)
    root = make_workspace({rel: f"# {rel}\n\nkestrel\n" for rel in names + others})
    Workspace.open_persistent(str(root)).close()
    for rel in ("m.md", "n.md", "a.md"):  # removed, nothing added: saved in the order as it was
        (root / rel).unlink()
    ws = Workspace.open_persistent(str(root))
    ws.save()  # (what the window does a little after its watcher's changes)
    ws.close()
    ws = Workspace.open_persistent(str(root))
    assert ws.last_refresh.loaded_from == "snapshot"
    assert not ws.index.docs.columns.alive.all()
    expected = _expected(ws)
    for prefixes in (("docs/",), ("docs2/",), ("笔记/",), ("docs/", "z"), ("p/0", "p/2")):
        assert sorted(ws.index.by_rel.under(prefixes)) == sorted((r, i) for r, i in expected.items()
                                                                 if r.startswith(prefixes)), prefixes
    (root / "docs/b.md").unlink()
    ws.refresh(folders=["docs"])
    assert "docs/b.md" not in ws.index.by_rel
    assert sorted(ws.index.by_rel) == sorted(["docs/a.md", "docs2/c.md", "z.md", "笔记/d.md", *others])  # (no .bak)
    ws.close()


def test_listing_every_files_status_reads_the_documents_by_id(make_workspace, monkeypatch):
    """`index --json` lists every file's status. Looking each document up again by its rel checks the rel the
    index holds, at 100,000 files 0.3 s more than the listing itself: the documents are read by id."""
    ws = _build(make_workspace, 300)
    root = Path(ws.root)
    write_file(root, "docs/bad.pdf", b"not a pdf")  # a file that is not indexed: its row's status
    (root / "docs/n0000.md").unlink()
    write_file(root, "added.md", "# Added\n")
    ws.refresh()
    expected = {rel: ws.statuses[rel] for rel in ws.statuses}
    assert expected["docs/bad.pdf"].state == "failed" and expected["added.md"].state == "indexed"
    lookups = []
    get = RelIds.get
    monkeypatch.setattr(RelIds, "get", lambda self, rel, default=None: lookups.append(rel) or get(self, rel, default))
    assert list(ws.statuses.items()) == list(expected.items())
    assert list(ws.statuses.values()) == list(expected.values())
    assert not [rel for rel in lookups if expected[rel].state == "indexed"]  # (only the others are checked)
    ws.close()
