"""The snapshot's document columns and the postings file beside it: documents built only when read, touches and removals
that stick, an older snapshot format that still opens, postings files that come and go with their snapshot."""

import marshal
import os
import sqlite3
from array import array

import numpy as np
import pytest
import zstandard

from knit_desktop.core.index import store as store_module
from knit_desktop.core.index.doc_table import (
    MADE_LIMIT,
    TEXT_CHUNK,
    DocumentColumns,
    DocumentTable,
    TextColumn,
    compressed,
    decompressed,
)
from knit_desktop.core.index.documents import Document
from knit_desktop.core.index.search_index import VOCAB_SEARCHES, SearchIndex
from knit_desktop.core.index.store import POSTINGS_SUFFIX, IndexStore, StoredDocument
from knit_desktop.core.paths import index_db_path
from knit_desktop.core.workspace import RankInput, Workspace

DAY = 86_400_000


@pytest.fixture
def files(now_ms):
    out = {
        f"notes/n{i:02d}.md": (f"# Note {i}\n\nOrbit telemetry batch {i % 3}.\n", now_ms - i * DAY) for i in range(30)
    }
    out["docs/cache.md"] = ("# Attachment cache\n\nEviction of the attachment cache.\n\nSee [sync](sync.md).", now_ms)
    out["docs/sync.md"] = ("# Sync\n\nVector clocks merge edits of the cache.\n", now_ms - DAY)
    out["shots/orbit.png"] = (b"\x89PNG\r\n\x1a\n", now_ms - 2 * DAY)
    return out


def ranked(ws, query, now_ms, kind="doc", sort="relevance"):
    return [(r.doc.rel, round(r.raw, 9)) for r in ws.rank(RankInput.from_query(query), now_ms=now_ms, kind=kind,
                                                          sort=sort).ranked]


def postings_files(root):
    db = index_db_path(str(root.resolve()))
    return sorted(p.name for p in db.parent.iterdir() if POSTINGS_SUFFIX in p.name)


def snapshot_state(root):
    with sqlite3.connect(index_db_path(str(root.resolve()))) as con:
        return marshal.loads(con.execute("SELECT data FROM snapshot").fetchone()[0])


def test_a_warm_open_builds_documents_only_for_the_rows_read(make_workspace, files, now_ms):
    root = make_workspace(files)
    cold = Workspace.open_persistent(str(root))
    expected = ranked(cold, "orbit telemetry", now_ms)
    expected_time = ranked(cold, "", now_ms, kind="all", sort="time")
    cold.close()
    warm = Workspace.open_persistent(str(root), trust_watcher=True)
    table = warm.index.docs
    assert isinstance(table, DocumentTable) and table.columns is not None and not table._made
    top = warm.rank(RankInput.from_query("orbit telemetry"), now_ms=now_ms).ranked[:3]
    assert [(r.doc.rel, round(r.raw, 9)) for r in top] == expected[:3]
    assert len(table._made) == 3  # the rows read, no other
    assert ranked(warm, "orbit telemetry", now_ms) == expected
    assert ranked(warm, "", now_ms, kind="all", sort="time") == expected_time
    doc = warm.index.get("docs/cache.md")
    assert isinstance(doc, StoredDocument) and doc.title == "Attachment cache" and doc.kind == "md"
    assert "Eviction" in doc.body  # read back from its file
    assert list(warm.graph().outgoing_of("docs/cache.md")) == ["docs/sync.md"]


def test_a_touch_sticks_when_the_built_document_is_let_go(make_workspace, files, now_ms):
    root = make_workspace(files)
    Workspace.open_persistent(str(root)).close()
    newest = now_ms + DAY
    os.utime(root / "notes/n29.md", (newest / 1000, newest / 1000))
    ws = Workspace.open_persistent(str(root))
    assert ws.last_refresh.touched == 1 and ws.last_refresh.loaded_from == "snapshot"
    assert ws.index.get("notes/n29.md").mtime_ms == newest
    ws.index.docs._made.clear()  # what reading MADE_LIMIT other rows does
    for i in range(MADE_LIMIT + 1):
        ws.index.docs[i % len(ws.index.docs)]
    assert ws.index.get("notes/n29.md").mtime_ms == newest
    assert ws.index.stat("notes/n29.md")[0] == newest
    assert ranked(ws, "", now_ms, sort="time")[0][0] == "notes/n29.md"  # the pools' time order has it too
    ws.close()
    again = Workspace.open_persistent(str(root), trust_watcher=True)
    assert again.index.get("notes/n29.md").mtime_ms == newest


def test_a_removed_document_never_comes_back_from_the_columns(make_workspace, files, now_ms):
    root = make_workspace(files)
    Workspace.open_persistent(str(root)).close()
    (root / "docs/sync.md").unlink()
    ws = Workspace.open_persistent(str(root))
    assert ws.last_refresh.removed == 1 and ws.last_refresh.loaded_from == "snapshot"
    doc_id = ws.index.docs.columns.texts["rel"].all().index("docs/sync.md")
    assert ws.index.docs.columns.alive[doc_id]  # still a live row of the columns themselves
    for _ in range(2):
        assert ws.index.get("docs/sync.md") is None and ws.index.docs[doc_id] is None
        assert "docs/sync.md" not in ws.index.by_rel and "docs/sync.md" not in ws.statuses
        assert "docs/sync.md" not in [d.rel for _, d in ws.index.documents()]
        assert "docs/sync.md" not in ws.index.live_rels()
        assert ws.index.stat("docs/sync.md") is None
        assert "docs/sync.md" not in [rel for rel, _ in ranked(ws, "vector clocks cache", now_ms)]
        assert "docs/sync.md" not in [rel for rel, _ in ranked(ws, "", now_ms, kind="all", sort="time")]
        assert len(ws.index) == len(files) - 1
        ws.index.docs._made.clear()
    ws.close()
    again = Workspace.open_persistent(str(root), trust_watcher=True)
    assert again.index.get("docs/sync.md") is None and len(again.index) == len(files) - 1


def test_a_format_8_snapshot_opens_and_is_saved_again_in_the_current_format(make_workspace, files, now_ms):
    root = make_workspace(files)
    ws = Workspace.open_persistent(str(root))
    expected = ranked(ws, "orbit telemetry", now_ms)
    expected_fuzzy = ranked(ws, "telemetri orbt", now_ms)
    # The snapshot as format 8 wrote it: one tuple per document, the postings blocks inside it.
    docs = [None if d is None else (d.rel, d.kind, d.title, d.summary, d.mtime_ms, d.size, d.truncated,
                                    d.content_hash, d.page_starts, d.note) for d in ws.index.docs]
    old = {
        "format": 8,
        "docs": store_module._dump_slices(docs),
        "lengths": compressed(ws.index.lengths.tobytes()),
        "tokens": store_module._dump_slices(ws.index.tokens),
        "postings": store_module._pack_postings(ws.index),
        "trigrams": store_module._dump_slices(list(ws.index.trigrams.items())),
        "refs": store_module._dump_slices([(rel, [(r.raw, r.line) for r in refs]) for rel, refs in ws.refs.items()]),
    }
    ws.store.db.execute("UPDATE snapshot SET data = ?", (marshal.dumps(old),))
    ws.close()
    for path in postings_files(root):
        os.unlink(index_db_path(str(root.resolve())).parent / path)

    loaded = IndexStore(index_db_path(str(root.resolve())), str(root.resolve())).load_snapshot()
    assert loaded is not None and loaded[0].snapshot_outdated and len(loaded[0]) == len(files)

    window = Workspace.open_persistent(str(root))  # the open's refresh saves the current format
    assert ranked(window, "orbit telemetry", now_ms) == expected
    assert ranked(window, "telemetri orbt", now_ms) == expected_fuzzy
    assert window.last_refresh.loaded_from == "snapshot" and window.last_refresh.changes == 0
    state = snapshot_state(root)
    assert state["format"] == store_module.SNAPSHOT_FORMAT and "blocks" not in state["postings"]
    assert isinstance(state["trigrams"], dict)  # the slices converted to gaps
    assert postings_files(root) == [state["postings"]["file"]]
    window.close()
    again = Workspace.open_persistent(str(root), trust_watcher=True)
    assert not again.index.snapshot_outdated and ranked(again, "orbit telemetry", now_ms) == expected


def _trigram_words(index):
    return {key: [index.tokens[tid] for tid in ids] for key, ids in index.trigrams.items()}


def test_trigram_lists_are_saved_as_gaps_and_read_back_the_same(make_workspace, files, now_ms):
    """The fuzzy layer's trigram lists go into the snapshot as gaps between ascending token ids; a start reads back
    the same lists (each made when first asked for), near-misses rank the same, and lists that grew after the
    start (new words) are saved and read back too."""
    root = make_workspace(files)
    memory = Workspace.open(str(root))  # in memory, nothing saved
    expected = dict(memory.index.trigrams)
    expected_fuzzy = ranked(memory, "telemetri orbt", now_ms)
    Workspace.open_persistent(str(root)).close()
    state = snapshot_state(root)
    assert isinstance(state["trigrams"], dict) and sorted(state["trigrams"]) == ["gaps", "keys", "lengths"]
    ws = Workspace.open_persistent(str(root), trust_watcher=True)
    assert ws.last_refresh.loaded_from == "snapshot"
    assert ranked(ws, "telemetri orbt", now_ms) == expected_fuzzy and expected_fuzzy
    assert dict(ws.index.trigrams.items()) == expected and list(ws.index.trigrams) == list(expected)

    (root / "notes/zebra.md").write_text("# Zebrafish\n\nZebrafish telemetry from the quokka pens.\n", encoding="utf-8")
    ws.apply_changes(["notes/zebra.md"])
    ws.save()
    grown = _trigram_words(ws.index)
    ws.close()
    again = Workspace.open_persistent(str(root), trust_watcher=True)
    assert again.last_refresh.loaded_from == "snapshot"
    assert _trigram_words(again.index) == grown and "zebrafish" in grown["ebr"]
    assert ranked(again, "zebrafsh", now_ms) == ranked(Workspace.open(str(root)), "zebrafsh", now_ms)
    assert ranked(again, "zebrafsh", now_ms)[0][0] == "notes/zebra.md"


def test_an_unknown_or_older_snapshot_format_is_rebuilt_never_an_error(make_workspace, files, now_ms):
    root = make_workspace(files)
    ws = Workspace.open_persistent(str(root))
    expected = ranked(ws, "orbit telemetry", now_ms)
    for fmt in (7, store_module.SNAPSHOT_FORMAT + 1):
        ws.store.db.execute("UPDATE snapshot SET data = ?", (marshal.dumps({"format": fmt, "docs": []}),))
        again = Workspace.open_persistent(str(root))
        assert again.last_refresh.loaded_from == "rows" and ranked(again, "orbit telemetry", now_ms) == expected
        again.close()
    ws.close()


def test_one_postings_file_per_snapshot_and_an_open_one_outlives_its_removal(make_workspace, files, now_ms):
    root = make_workspace(files)
    expected = ranked(Workspace.open(str(root)), "orbit telemetry", now_ms)  # in memory, nothing saved
    Workspace.open_persistent(str(root)).close()
    reader = Workspace.open_persistent(str(root))  # opens the current file
    [first] = postings_files(root)
    (root / "notes/added.md").write_text("# Added\n\nOrbit telemetry added later.\n", encoding="utf-8")
    writer = Workspace.open_persistent(str(root))  # saves a new snapshot: the first file is removed
    [second] = postings_files(root)
    assert second != first and ranked(writer, "added later", now_ms)[0][0] == "notes/added.md"
    assert ranked(reader, "orbit telemetry", now_ms) == expected  # read from the removed file it holds open
    writer.close()
    reader.close()


def test_a_snapshot_whose_postings_file_is_gone_is_rebuilt_from_the_rows(make_workspace, files, now_ms):
    root = make_workspace(files)
    ws = Workspace.open_persistent(str(root))
    expected = ranked(ws, "orbit telemetry", now_ms)
    ws.close()
    folder = index_db_path(str(root.resolve())).parent
    for name in postings_files(root):
        (folder / name).unlink()
    again = Workspace.open_persistent(str(root))
    assert again.last_refresh.loaded_from == "rows" and ranked(again, "orbit telemetry", now_ms) == expected
    assert len(postings_files(root)) == 1  # and saved again
    again.close()
    for name in postings_files(root):
        (folder / name).write_bytes(b"short")  # cut short: not a match for its snapshot
    third = Workspace.open_persistent(str(root))
    assert third.last_refresh.loaded_from == "rows" and ranked(third, "orbit telemetry", now_ms) == expected


def test_columns_keep_every_field_as_it_was():
    rows = [
        ("caf\udce9.md", "md", "Café", "A summary", 1_700_000_000_123, 42, False, "ab" * 32, [], ""),
        None,
        ("doc.pdf", "pdf", "Paper", "", 5, 9, True, "cd" * 32, [0, 120, 4000], "indexed the first 2 MB"),
        ("shot.png", "image", "", "", -1, 0, False, "", [], ""),
    ]
    columns = DocumentColumns.load(DocumentColumns.of_rows(rows).dump())
    assert columns.count == 4 and columns.alive.tolist() == [True, False, True, True]
    assert [columns.values(i) for i in (0, 2, 3)] == [rows[0], rows[2], rows[3]]
    not_hex = [("a.md", "md", "", "", 0, 0, False, "not-a-hex-digest", [], "")]
    assert DocumentColumns.load(DocumentColumns.of_rows(not_hex).dump()).values(0) == not_hex[0]
    # The tie-break order is the one a list of rels gives (a removed row's rel is "")
    table = DocumentTable(columns, lambda values: Document(*values[:6], body="", truncated=values[6],
                                                           content_hash=values[7], page_starts=values[8],
                                                           note=values[9]))
    rels = ["caf\udce9.md", "", "doc.pdf", "shot.png"]
    expected = np.empty(4, dtype=np.int64)
    expected[sorted(range(4), key=rels.__getitem__)] = np.arange(4)
    assert table.rel_rank().tolist() == expected.tolist() and table.rels() == rels
    assert table[1] is None and table[2].page_starts == [0, 120, 4000] and table.live_count() == 3
    table.append(Document("b.md", "md", "B", "", 7, 1))
    assert table.rels()[-1] == "b.md" and table.mtimes().tolist() == [1_700_000_000_123, 0, 5, -1, 7]
    assert table.of_kinds(frozenset({"md"})).tolist() == [True, False, False, False, True]


def test_damaged_columns_are_refused():
    state = DocumentColumns.of_rows([("a.md", "md", "A", "", 0, 0, False, "", [], "")]).dump()
    state["mtime"] = compressed(array("q", [1, 2]).tobytes())
    with pytest.raises(ValueError):
        DocumentColumns.load(state)


def test_a_loaded_vocabulary_is_searched_until_the_dictionary_pays(make_workspace, files):
    root = make_workspace(files)
    Workspace.open_persistent(str(root)).close()
    index = Workspace.open_persistent(str(root)).index
    assert index._vocab is None  # (a walk that finds nothing changed looks no token up)
    tokens = list(index.tokens)
    assert [index.token_id(token) for token in tokens] == list(range(len(tokens)))
    assert index.token_id("zzz") is None and index.token_id("") is None and index.token_id("\uffff") is None
    assert index._vocab is None
    for _ in range(VOCAB_SEARCHES):
        index.token_id("orbit")
    assert index._vocab is not None and [index.token_id(token) for token in tokens] == list(range(len(tokens)))


def test_postings_saved_in_many_blocks_read_back_the_same(make_workspace, files, now_ms, monkeypatch):
    root = make_workspace(files)
    expected = ranked(Workspace.open(str(root)), "orbit telemetry cache", now_ms)
    monkeypatch.setattr(store_module, "POSTINGS_BLOCK", 7)  # a block every few tokens
    Workspace.open_persistent(str(root)).close()
    assert len(snapshot_state(root)["postings"]["block_tokens"]) > 5
    warm = Workspace.open_persistent(str(root))
    assert warm.last_refresh.loaded_from == "snapshot"
    assert ranked(warm, "orbit telemetry cache", now_ms) == expected
    built = Workspace.open(str(root)).index  # in memory: every list as it was added

    def lists(index, token):
        p = index.postings(token)
        return sorted((index.docs[int(d)].rel, *map(int, p.tfs[:, i])) for i, d in enumerate(p.ids)
                      if index.docs[int(d)] is not None)

    assert sorted(warm.index.tokens) == sorted(built.tokens)
    for token in warm.index.tokens:  # every list cut from its block is the one the index was built with
        assert lists(warm.index, token) == lists(built, token)


@pytest.mark.parametrize("hashes", ["hex", "text"])
def test_a_table_saved_as_columns_keeps_its_rows_whatever_changed(hashes):
    digest = (lambda i: f"{i:064x}") if hashes == "hex" else (lambda i: f"hash-{i}")
    rows = [(f"d/{i:03d}.md", "md" if i % 3 else "pdf", f"Title {i}", f"Summary {i}", 1000 + i, i, i % 5 == 0,
             digest(i), [0, i] if i % 3 == 0 else [], "" if i % 7 else "a note") for i in range(60)]
    rows[10] = None
    built = []

    def build(values):
        doc = Document(*values[:6], body="", truncated=values[6], content_hash=values[7],
                       page_starts=values[8], note=values[9])
        built.append(doc)
        return doc

    table = DocumentTable(DocumentColumns.of_rows(rows), build)
    unchanged = DocumentColumns.of_table(table)
    assert [unchanged.values(i) for i in range(60) if rows[i]] == [r for r in rows if r]
    touched = table[4]
    touched.mtime_ms, touched.size = 99_999, 7
    table[4] = touched  # what SearchIndex.touch does
    table[20] = None  # removed
    table[30] = Document("d/030.md", "image", "Now an image", "", 5, 6, content_hash=digest(999), page_starts=[3])
    table.append(Document("a/first.md", "html", "Added", "", 8, 9, content_hash=digest(1000)))
    table.append(None)
    table.append(Document("z/last.md", "md", "Added too", "s", 10, 11, truncated=True, note="n"))
    merged = DocumentColumns.load(DocumentColumns.of_table(table).dump())
    expected = DocumentColumns.of_rows(table.row_values())
    assert merged.count == expected.count == 63
    assert merged.alive.tolist() == expected.alive.tolist()
    assert [merged.values(i) for i in range(63) if merged.alive[i]] == \
        [expected.values(i) for i in range(63) if expected.alive[i]]
    reopened = DocumentTable(merged, build)
    live = np.flatnonzero(table.live())  # (the tie-break order of the live rows: a removed row's place is moot)
    assert live.tolist() == np.flatnonzero(reopened.live()).tolist()
    assert np.argsort(reopened.rel_rank()[live]).tolist() == np.argsort(table.rel_rank()[live]).tolist()
    assert reopened.rels() == table.rels() and reopened.mtimes().tolist() == table.mtimes().tolist()
    assert reopened.of_kinds(frozenset({"image", "html"})).tolist() == table.of_kinds(frozenset({"image", "html"})).tolist()


@pytest.mark.parametrize("count", [0, 1, TEXT_CHUNK, 2 * TEXT_CHUNK + 5])
def test_text_columns_in_pieces_read_back_every_value(count):
    rows = [(f"dir/{i}-é.md", "md", f"标题 {i}" * (i % 4), "", i, i, False, "", [], "") for i in range(count)]
    columns = DocumentColumns.load(DocumentColumns.of_rows(rows).dump())
    assert len(columns.texts["rel"]._chunks) == max(1, -(-count // TEXT_CHUNK))
    for i in (list(range(count))[::97] + [count - 1] if count else []):
        assert columns.values(i) == rows[i]
    assert columns.texts["title"].all() == [r[2] for r in rows]


def test_a_save_writes_the_unchanged_blocks_again_as_they_were(make_workspace, files, now_ms, monkeypatch):
    monkeypatch.setattr(store_module, "POSTINGS_BLOCK", 7)
    root = make_workspace(files)
    Workspace.open_persistent(str(root)).close()
    folder = index_db_path(str(root.resolve())).parent

    def blocks():
        state = snapshot_state(root)["postings"]
        data = (folder / state["file"]).read_bytes()
        offsets = np.frombuffer(zstandard.ZstdDecompressor().decompress(state["offsets"]), dtype=np.int64).tolist()
        return {data[a:b] for a, b in zip(offsets, offsets[1:])}

    first = blocks()
    (root / "notes/zeta.md").write_text("# Zeta\n\nA new word: zeppelin, and orbit again.\n", encoding="utf-8")
    (root / "docs/sync.md").unlink()
    Workspace.open_persistent(str(root)).close()  # loads the snapshot, adds and removes, saves
    second = blocks()
    assert first & second and second - first  # some blocks carried over untouched, some written anew
    again = Workspace.open_persistent(str(root), trust_watcher=True)
    built = Workspace.open(str(root))
    for query in ("orbit telemetry", "zeppelin", "vector clocks cache", "attachment"):
        assert ranked(again, query, now_ms) == ranked(built, query, now_ms)


def test_a_walk_finds_every_kind_of_change_against_the_columns_and_the_objects(make_workspace, files, now_ms):
    """A walk compares the modification time and size of every file with the index at once: with the snapshot's
    columns, with the documents held as objects since (changed while the process runs) and with the rows of files
    that are not documents. Each kind of change is found, and only the changed files are read."""
    root = make_workspace(files)
    (root / "docs/binary.md").write_bytes(b"\x00\x01" * 50)  # skipped: a row, not a document
    Workspace.open_persistent(str(root)).close()
    ws = Workspace.open_persistent(str(root))
    assert not ws.last_refresh.changes and ws.last_refresh.unchanged == len(files) + 1

    def write(rel, text, when):
        (root / rel).write_text(text, encoding="utf-8")
        os.utime(root / rel, (when / 1000, when / 1000))

    write("notes/n01.md", "# Note 1\n\nA comet instead.\n", now_ms + DAY)
    first = ws.refresh()
    assert (first.changed, first.paths) == (1, ["notes/n01.md"])  # its row is an object from now on
    write("notes/n01.md", "# Note 1\n\nA comet, twice.\n", now_ms + 2 * DAY)  # the object row changes again
    write("notes/n03.md", "# Note 3\n\nOrbit telemetry batch 9.\n", now_ms + DAY)  # same size, new content
    os.utime(root / "notes/n02.md", (now_ms / 1000 + 5, now_ms / 1000 + 5))  # touched only
    write("notes/new.md", "# New\n\nA comet report.\n", now_ms)
    (root / "docs/sync.md").unlink()
    (root / "docs/binary.md").unlink()
    report = ws.refresh()
    assert (report.added, report.changed, report.touched, report.removed) == (1, 2, 1, 2)
    assert sorted(report.paths) == ["docs/binary.md", "docs/sync.md", "notes/n01.md", "notes/n02.md",
                                    "notes/n03.md", "notes/new.md"]
    assert report.unchanged == len(files) - 1 - 3 and report.total == len(files)
    assert sorted(rel for rel, raw in ranked(ws, "comet", now_ms) if raw > 0) == ["notes/n01.md", "notes/new.md"]
    assert "docs/binary.md" not in ws.statuses and "docs/sync.md" not in ws.statuses
    assert not ws.refresh().changes


def test_a_text_column_keeps_a_bounded_share_of_its_pieces_inflated_in_a_process_that_bounds_them(monkeypatch):
    # Every piece read used to be kept inflated: a server reading rows query after query held more and more of
    # its columns (10 MB after forty calls at 100,000 files). The MCP server bounds them (bound_open_pieces).
    from knit_desktop.core.index import doc_table

    monkeypatch.setattr(doc_table, "_open_pieces_limit", [16 * 1024])
    rows = [(f"dir/{i:05d}-{'x' * 60}.md", "md", f"Title {i}", "", i, i, False, "", [], "") for i in range(40 * TEXT_CHUNK)]
    column = DocumentColumns.load(DocumentColumns.of_rows(rows).dump()).texts["rel"]
    for i in range(0, len(rows), 7):
        assert column[i] == rows[i][0]
        assert sum(map(len, column._open.values())) <= 16 * 1024
    assert column[0] == rows[0][0] and column[len(rows) - 1] == rows[-1][0]  # let go and inflated again


def test_a_text_column_kept_inflated_lets_its_frames_go_and_saves_the_same_pieces():
    # The window keeps every piece it inflated; it kept each compressed frame besides (6 MB at 100,000 documents),
    # read again only to save. Threads reading the same pieces at once all get the rows.
    import threading

    rows = [(f"dir/{i:05d}-é.md", "md", f"标题 {i}", "", i, i, False, "", [], "") for i in range(9 * TEXT_CHUNK + 3)]
    dumped = DocumentColumns.of_rows(rows).dump()
    column = DocumentColumns.load(dumped).texts["rel"]
    frames_before = column.packed()
    results: list[bool] = []

    def read_all() -> None:
        results.append(all(column[i] == rows[i][0] for i in range(len(rows))))

    threads = [threading.Thread(target=read_all) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert results == [True] * 4
    assert sum(map(len, column._chunks)) == 0  # every frame let go, the pieces kept
    frames = column.packed()
    assert [decompressed(f) for f in frames] == [decompressed(f) for f in frames_before]
    again = DocumentColumns.load(DocumentColumns.load(dumped).dump())  # (pieces saved from frames still held)
    assert again.texts["rel"].all() == column.all() == [r[0] for r in rows]
    reloaded = TextColumn.of_pieces(frames, column.starts.astype(np.int64), column.rows)
    assert reloaded.all() == column.all()


def test_threads_inflating_text_pieces_at_once_each_use_their_own_decompressor():
    # One decompressor is reused per thread (making one per piece cost more than inflating it), and an instance
    # must not serve two threads at once: the window reads documents from its indexer thread and the GUI thread.
    import threading

    from knit_desktop.core.index import doc_table

    pieces = [compressed(bytes([i]) * 200_000) for i in range(16)]
    seen: dict[int, object] = {}  # (each kept alive here, so no two can share an id)
    failures: list[int] = []

    def inflate(n: int) -> None:
        for _ in range(20):
            for i, piece in enumerate(pieces):
                if decompressed(piece) != bytes([i]) * 200_000:
                    failures.append(i)
        seen[n] = doc_table._local.unz

    threads = [threading.Thread(target=inflate, args=(n,)) for n in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not failures and len({id(unz) for unz in seen.values()}) == 4


def test_an_open_builds_the_map_of_rels_before_it_walks_the_workspace(make_workspace, files, monkeypatch):
    # Built after the walk, the map's strings (one per document) filled the holes the walk's short-lived objects
    # left in Python's memory arenas, and those arenas were never given back: 28 MB held by a 100,000-file open.
    from knit_desktop.core import workspace as workspace_module

    root = make_workspace(files)
    Workspace.open_persistent(str(root)).close()
    walk = workspace_module.scan_workspace
    built_before: list[bool] = []

    def watched_walk(*args, **kwargs):
        built_before.append(opened[-1].index._by_rel is not None)
        return walk(*args, **kwargs)

    opened: list[Workspace] = []
    load = Workspace._load_from_store

    def remember(self):
        opened.append(self)
        return load(self)

    monkeypatch.setattr(workspace_module, "scan_workspace", watched_walk)
    monkeypatch.setattr(Workspace, "_load_from_store", remember)
    ws = Workspace.open_persistent(str(root))
    assert ws.last_refresh.loaded_from == "snapshot" and built_before == [True]
    assert len(ws.index.by_rel) == len(files)


@pytest.mark.skipif(not os.path.exists("/proc/self/smaps"), reason="reads Linux's account of the mappings")
def test_the_postings_file_is_read_never_mapped_so_none_of_it_stays_resident(make_workspace, files, now_ms):
    # Mapped, every page a query read stayed in the process's resident memory for as long as the kernel left it
    # there (20 MB of a server's at 100,000 files after forty calls); read, a block is held while it is inflated.
    root = make_workspace(files)
    Workspace.open_persistent(str(root)).close()
    ws = Workspace.open_persistent(str(root))
    name = postings_files(root)[0]

    def mapped() -> bool:
        with open("/proc/self/maps") as maps:
            return any(line.rstrip().endswith(name) for line in maps)

    assert not mapped()
    assert ranked(ws, "orbit telemetry", now_ms)[0][0].startswith("notes/")  # the query read its blocks
    assert not mapped()
    ws.close()


def test_text_pieces_of_a_snapshot_saved_before_pieces_said_their_rows_still_read(make_workspace, files, now_ms):
    # Pieces held 512 rows before a snapshot recorded how many: such a snapshot opens without a rebuild, reads
    # the same values, and a column written again is cut into pieces of the current size.
    from knit_desktop.core.index.doc_table import LEGACY_TEXT_CHUNK, TextColumn

    rows = [(f"dir/{i}.md", "md", f"Title {i}", f"summary {i}", i, i, False, "", [], "") for i in range(700)]
    state = DocumentColumns.of_rows(rows).dump()
    for name, (_, starts) in state["texts"].items():
        values = TextColumn(DocumentColumns.of_rows(rows).texts[name].buffer(), np.zeros(0), rows=LEGACY_TEXT_CHUNK)
        values.starts = np.frombuffer(zstandard.ZstdDecompressor().decompress(starts), dtype=np.int64)
        state["texts"][name] = (values.packed(), starts)
    del state["text_rows"]
    old = DocumentColumns.load(state)
    assert len(old.texts["rel"]._chunks) == 2 and old.texts["rel"].rows == LEGACY_TEXT_CHUNK
    assert [old.values(i) for i in (0, 511, 512, 699)] == [rows[i] for i in (0, 511, 512, 699)]
    again = DocumentColumns.load(old.dump())  # kept as they are, and said to be 512 rows each
    assert [again.values(i) for i in (0, 511, 512, 699)] == [rows[i] for i in (0, 511, 512, 699)]
    fresh = DocumentColumns.load(DocumentColumns.of_rows(rows).dump())
    assert len(fresh.texts["rel"]._chunks) == -(-700 // TEXT_CHUNK) and fresh.texts["rel"].rows == TEXT_CHUNK


def test_a_ranking_of_a_loaded_workspace_inflates_each_text_piece_once(make_workspace, now_ms, monkeypatch):
    # The window lists up to 2,000 documents a ranking, and its filter reads the title and summary of every ranked
    # one; rows come in ranking order, scattered over a column's pieces. Under the MCP server's bound, once a
    # column's inflated pieces passed OPEN_PIECES_BYTES they were all let go, so each further row read inflated its
    # piece again; the window keeps them (the bound is the serving process's alone). At 20,000
    # documents (snapshot loaded): 17,770 piece inflations over ten Docs rankings (790 when kept), 250,718 with
    # a filter (0), and the ranking median 26 -> 47 ms, the filtered one 165-190 -> 390-650 ms.
    from knit_desktop.core.index import doc_table

    topics = ["orbit", "cache", "telemetry", "batch", "sync"]
    root = make_workspace({f"n/{i:04d}.md": (f"# Note {i} {topics[i % 5]}\n\n{topics[(i * 7) % 5]} words about "
                                             f"{topics[(i * 3) % 5]} and row {i} " * 3, now_ms - i * 60_000)
                           for i in range(6 * TEXT_CHUNK)})
    Workspace.open_persistent(str(root)).close()
    # (A small serving bound stands in for a large workspace: a few pieces of each column would fit, not all of
    # them. It is not this process's: a window and a one-shot command keep every piece they inflated.)
    monkeypatch.setattr(doc_table, "OPEN_PIECES_BYTES", 3 * 8 * 1024)
    inflated: dict[tuple[int, int], int] = {}  # (column, piece): times inflated
    piece = doc_table.TextColumn._piece

    def counting(column: doc_table.TextColumn, c: int) -> bytes:
        if c not in column._open:
            inflated[id(column), c] = inflated.get((id(column), c), 0) + 1
        return piece(column, c)

    monkeypatch.setattr(doc_table.TextColumn, "_piece", counting)
    ws = Workspace.open_persistent(str(root))
    try:
        assert ws.last_refresh.loaded_from == "snapshot"
        for needle in ("", "o"):
            for topic in topics:
                ws.view(RankInput.from_query(topic), now_ms=now_ms, kind="doc", limit=2000, needle=needle)
        assert inflated and max(inflated.values()) == 1, sum(inflated.values())
    finally:
        ws.close()


def test_the_mcp_server_bounds_the_inflated_pieces_and_other_processes_do_not(monkeypatch, tmp_path):
    from knit_desktop import mcp_server
    from knit_desktop.core.index import doc_table

    monkeypatch.setattr(doc_table, "_open_pieces_limit", [None])
    assert doc_table._open_pieces_limit[0] is None  # the window's, a one-shot command's: every piece kept

    def no_session(_main):
        raise KeyboardInterrupt  # the client went away at once: the server closes

    monkeypatch.setattr(mcp_server.anyio, "run", no_session)
    assert mcp_server.serve(str(tmp_path), str(tmp_path / "no-dsh")) == 0
    assert doc_table._open_pieces_limit[0] == doc_table.OPEN_PIECES_BYTES


def test_damaged_trigram_gaps_leave_the_fuzzy_layer_empty_never_an_error():
    packed = store_module._pack_trigrams({"abc": [1, 4, 4, 9], "bcd": [2], "cde": [0, 70000]})
    assert dict(store_module._trigrams_of(packed).items()) == {"abc": [1, 4, 4, 9], "bcd": [2], "cde": [0, 70000]}
    for damaged in ({**packed, "gaps": packed["gaps"][:-3]}, {**packed, "gaps": compressed(b"\x01" * 12)},
                    {**packed, "keys": compressed(b"abcbc")}, {**packed, "lengths": b"not zstd"},
                    {k: v for k, v in packed.items() if k != "keys"}, {**packed, "gaps": 7}):
        assert dict(store_module._trigrams_of(damaged)) == {}


def test_a_format_9_snapshot_opens_and_is_saved_again_in_the_current_format(make_workspace, files, now_ms):
    """Format 9 (document columns, trigram lists as marshalled slices) is read and converted, as format 8 is; it
    was read as format 8's one tuple per document, found none, and the start rebuilt everything from the rows."""
    root = make_workspace(files)
    ws = Workspace.open_persistent(str(root))
    expected = ranked(ws, "orbit telemetry", now_ms)
    expected_fuzzy = ranked(ws, "telemetri orbt", now_ms)
    ws.close()
    state = snapshot_state(root)
    state["format"] = 9
    state["trigrams"] = store_module._dump_slices(list(store_module._unpack_trigrams(state["trigrams"]).items()))
    db = sqlite3.connect(index_db_path(str(root.resolve())))
    db.execute("UPDATE snapshot SET data = ?", (marshal.dumps(state),))
    db.commit()
    db.close()

    loaded = IndexStore(index_db_path(str(root.resolve())), str(root.resolve())).load_snapshot()
    assert loaded is not None and loaded[0].snapshot_outdated and len(loaded[0]) == len(files)
    window = Workspace.open_persistent(str(root))
    assert window.last_refresh.loaded_from == "snapshot"
    assert ranked(window, "orbit telemetry", now_ms) == expected
    assert ranked(window, "telemetri orbt", now_ms) == expected_fuzzy
    window.close()
    saved = snapshot_state(root)
    assert saved["format"] == store_module.SNAPSHOT_FORMAT and isinstance(saved["trigrams"], dict)


def test_damaged_trigram_lists_are_made_again_from_the_vocabulary_and_saved_whole(make_workspace, files, now_ms):
    """The trigram lists are a function of the vocabulary alone: a snapshot whose lists cannot be read has them made
    again from its tokens. Left empty, the next save wrote the empty lists into a snapshot that was otherwise
    whole, and misspelled words found nothing from then on (no rebuild ever came)."""
    root = make_workspace(files)
    ws = Workspace.open_persistent(str(root))
    expected_fuzzy = ranked(ws, "telemetri orbt", now_ms)
    expected = {key: list(ids) for key, ids in ws.index.trigrams.items()}
    ws.close()
    assert expected_fuzzy
    state = snapshot_state(root)
    state["trigrams"] = {**state["trigrams"], "gaps": compressed(b"\x01" * 12)}
    db = sqlite3.connect(index_db_path(str(root.resolve())))
    db.execute("UPDATE snapshot SET data = ?", (marshal.dumps(state),))
    db.commit()
    db.close()

    window = Workspace.open_persistent(str(root), trust_watcher=True)
    assert window.last_refresh.loaded_from == "snapshot"
    assert ranked(window, "telemetri orbt", now_ms) == expected_fuzzy
    assert {key: list(ids) for key, ids in window.index.trigrams.items()} == expected
    (root / "notes/zebra.md").write_text("# Zebrafish\n\nZebrafish telemetry from the quokka pens.\n", encoding="utf-8")
    window.apply_changes(["notes/zebra.md"])
    window.save()
    window.close()
    again = Workspace.open_persistent(str(root), trust_watcher=True)
    assert again.last_refresh.loaded_from == "snapshot"
    fresh = Workspace.open(str(root))  # in memory, every file read
    assert ({key: sorted(words) for key, words in _trigram_words(again.index).items()}
            == {key: sorted(words) for key, words in _trigram_words(fresh.index).items()})
    assert ranked(again, "telemetri orbt", now_ms) == ranked(fresh, "telemetri orbt", now_ms)
    assert ranked(again, "zebrafsh", now_ms)[0][0] == "notes/zebra.md"


def _doc_of(values):
    return Document(*values[:6], body="", truncated=values[6], content_hash=values[7], page_starts=values[8],
                    note=values[9])


def test_rows_added_after_the_open_take_their_place_in_the_tie_break_order(monkeypatch):
    """After any edit (the file's document is a row added after the columns) the tie-break order was found by
    sorting every rel again, 65 ms at 100,000 documents; the added rows are now put in place by bisection. The
    order of the live rows must be the one sorting their rels gives."""
    rows = [(f"d/{i:03}.md", "md", f"T{i}", "", i, i, False, f"{i:064x}", [], "") for i in range(0, 100, 2)]
    rows[3] = None  # removed before the open
    table = DocumentTable(DocumentColumns.load(DocumentColumns.of_rows(rows).dump()), _doc_of)
    table[10] = None  # removed since the open
    table[12] = None  # replaced: removed, and added again below
    for rel in ("d/024.md", "d/001.md", "d/099.md", "a.md", "d/051.md", "zz.md", "d/006.md"):
        table.append(Document(rel, "md", rel, "", 1, 1, content_hash=f"{len(rel):064x}"))
    table.append(None)  # added, then removed

    def every_rel():
        raise AssertionError("every rel decoded again to place a few added rows")

    monkeypatch.setattr(type(table.columns.texts["rel"]), "all", lambda self: every_rel())
    live = np.flatnonzero(table.live())
    by_rank = live[np.argsort(table.rel_rank()[live])].tolist()
    assert by_rank == sorted(live.tolist(), key=lambda i: table[i].rel)


def test_rows_added_after_a_save_that_only_removed_files_tie_in_order_of_their_names(make_workspace):
    """The last tie-break of a ranking is the order by name. A save that removes documents and adds none keeps the
    saved order as it was, each removed row in its old place; the documents added after such a snapshot was
    loaded are still put among the others in order of their names, as a fresh build orders them."""
    from tests.conftest import NOW_MS, write_file

    mtime = NOW_MS - 86_400_000
    names = [f"k/n{k:02d}.md" for k in range(30)]
    root = make_workspace({rel: ("# Note\n\nkestrel\n", mtime) for rel in names})
    Workspace.open_persistent(str(root)).close()
    (root / "k/n15.md").unlink()  # the middle of the order by name; nothing added: saved in the order as it was
    ws = Workspace.open_persistent(str(root))
    ws.save()
    ws.close()
    ws = Workspace.open_persistent(str(root))
    assert ws.last_refresh.loaded_from == "snapshot"
    assert not ws.index.docs.columns.alive.all()
    for rel in ("k/a.md", "k/n07b.md", "k/n20b.md"):
        write_file(root, rel, "# Note\n\nkestrel\n", mtime)
    ws.refresh()
    ranked = [r.doc.rel for r in ws.rank(RankInput.from_query("kestrel"), now_ms=NOW_MS).hits]
    assert len(ranked) == len(names) - 1 + 3
    assert ranked == sorted(ranked)  # (every document alike: tied all through)
    ws.close()


class _HeldLists(list):
    """Posting lists of another list type: packed a token at a time, as lists loaded from a snapshot are."""


@pytest.mark.parametrize("block", [1, 7, 64, store_module.POSTINGS_BLOCK])
def test_lists_held_in_memory_pack_into_the_blocks_packed_a_token_at_a_time(block, monkeypatch):
    """An index built from scratch joins each block of its lists in one go: the blocks, their bounds and the
    lengths come out as packing the lists one token at a time makes them."""
    monkeypatch.setattr(store_module, "POSTINGS_BLOCK", block)
    rng = np.random.default_rng(3)
    for tokens in (0, 1, 2, 50, 300):
        sizes = rng.integers(1, 40, tokens)
        docs = [array("I", rng.integers(0, 10**6, n).tolist()) for n in sizes]
        tfs = [tuple(array("H", rng.integers(0, 4, n).tolist()) for _ in range(3)) for n in sizes]
        index = SearchIndex()
        index.tokens = [f"t{i}" for i in range(tokens)]
        index.set_postings(docs, tfs)
        joined = store_module._pack_postings(index)
        index.set_postings(_HeldLists(docs), _HeldLists(tfs))
        assert joined == store_module._pack_postings(index)
