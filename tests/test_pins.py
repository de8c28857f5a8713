"""Pinned and hidden documents: remembered per workspace across restarts, honoured by rank, context and knit_docs,
ignored with --ignore-pins."""

from __future__ import annotations

import json
import os
import subprocess
import sys

from knit_desktop.core.index.pins import Pins, pins_path
from knit_desktop.core.output.payloads import context_payload, rank_payload
from knit_desktop.core.workspace import RankInput, Workspace

DAY = 86_400_000
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def run(*args):
    env = {**os.environ, "PYTHONPATH": ROOT}
    return subprocess.run([sys.executable, "-m", "knit_desktop", *args], capture_output=True, text=True, timeout=60,
                          env=env)


def workspace(make_workspace, now_ms):
    return make_workspace({
        "docs/cache.md": ("# Attachment cache\n\nEviction rules for the attachment cache.\n", now_ms - DAY),
        "docs/sync.md": ("# Sync\n\nVector clocks; attachments follow the cache.\n", now_ms - 2 * DAY),
        "notes/todo.txt": ("Todo list\ncheck cache size\n", now_ms - 3 * DAY),
        "notes/unrelated.md": ("# Garden\n\nTomatoes and basil.\n", now_ms - 4 * DAY),
    })


def test_pins_are_remembered_per_workspace_and_survive_a_damaged_file(make_workspace, now_ms, tmp_path):
    root = workspace(make_workspace, now_ms)
    other = make_workspace({"a.md": "# A\n"}, name="other")
    pins = Pins.load(str(root))
    pins.set_pinned("notes/unrelated.md", True)
    pins.set_hidden("docs/sync.md", True)
    again = Pins.load(str(root))
    assert again.pinned == ["notes/unrelated.md"] and again.hidden == ["docs/sync.md"]
    assert Pins.load(str(other)).pinned == []
    again.set_pinned("docs/sync.md", True)  # pinning un-hides
    assert Pins.load(str(root)).hidden == [] and Pins.load(str(root)).pinned == ["notes/unrelated.md", "docs/sync.md"]
    assert not any(p.name.startswith(".pins-") for p in pins_path(pins.root).parent.iterdir())  # no temp left
    assert not (root / ".knit").exists() and sorted(p.name for p in root.rglob("*.json")) == []  # nothing in the workspace
    pins_path(pins.root).write_text("{not json", encoding="utf-8")
    assert Pins.load(str(root)).pinned == []  # damaged: nothing pinned, no crash
    pins_path(pins.root).write_text(json.dumps({"pinned": ["../etc/passwd", "/abs", "ok.md", 3]}), encoding="utf-8")
    assert Pins.load(str(root)).pinned == ["ok.md"]


def test_the_pack_gets_a_pinned_tier_and_loses_hidden_documents(make_workspace, now_ms):
    root = workspace(make_workspace, now_ms)
    pins = Pins.load(str(root))
    pins.set_pinned("notes/unrelated.md", True)  # matches nothing: pinned all the same
    pins.set_hidden("docs/cache.md", True)  # the best match: hidden all the same
    ws = Workspace.open(str(root))
    request = RankInput.from_query("attachment cache")
    pack = context_payload(ws.context(request, now_ms=now_ms, pins=Pins.load(str(root))))
    assert [i["rel"] for i in pack["pinned"]] == ["notes/unrelated.md"]
    assert pack["pinned"][0]["reason"]["code"] == "pinned" and pack["pinned"][0]["provenance"] == "manual"
    every = [i["rel"] for tier in ("primary", "supporting", "related") for i in pack[tier]]
    assert "docs/cache.md" not in every and "notes/unrelated.md" not in every
    assert pack["totals"]["hidden"] == 1 and pack["totals"]["pinned"] == 1
    plain = context_payload(ws.context(request, now_ms=now_ms))
    assert "pinned" not in plain and plain["primary"][0]["rel"] == "docs/cache.md"

    ranking = ws.rank(request, now_ms=now_ms)
    ranked = rank_payload(ranking, None, Pins.load(str(root)))
    assert [r["rel"] for r in ranked["results"]][0] == "notes/unrelated.md"
    assert "docs/cache.md" not in [r["rel"] for r in ranked["results"]] and ranked["total"] == 3
    view = ws.view(request, now_ms=now_ms, with_context=True, pins=Pins.load(str(root)))
    assert view.peek()[0].rel == "notes/unrelated.md"  # the tray leads with the pinned document
    assert view.docs.rows[0].tier == "pinned" and view.pack_tiers()[0] == ("pinned", 0, "notes/unrelated.md")
    assert "docs/cache.md" not in [r.rel for r in view.docs.rows] and view.docs.total == 3
    by_time = ws.view(request, now_ms=now_ms, sort="time", pins=Pins.load(str(root)))  # no pack: pinned lead all the same
    assert by_time.docs.rows[0].rel == "notes/unrelated.md" and "docs/cache.md" not in [r.rel for r in by_time.docs.rows]
    ws.close()


def test_rank_and_context_honour_pins_unless_told_to_ignore_them(make_workspace, now_ms):
    root = workspace(make_workspace, now_ms)
    pins = Pins.load(str(root))
    pins.set_pinned("notes/unrelated.md", True)
    pins.set_hidden("docs/cache.md", True)
    base = ("--workspace", str(root), "--query", "attachment cache", "--now", str(now_ms))
    honoured = json.loads(run("rank", *base, "--json").stdout)
    assert [r["rel"] for r in honoured["results"]] == ["notes/unrelated.md", "docs/sync.md", "notes/todo.txt"]
    assert honoured["pinned"] == ["notes/unrelated.md"] and honoured["hidden"] == 1
    ignored = json.loads(run("rank", *base, "--json", "--ignore-pins").stdout)
    assert set(ignored) == {"mode", "topic", "keywords", "total", "results"}
    assert ignored["results"][0]["rel"] == "docs/cache.md" and ignored["total"] == 4
    text = run("rank", *base).stdout
    assert "📌 notes/unrelated.md" in text and "docs/cache.md" not in text and "(1 hidden by you)" in text
    context = run("context", *base).stdout
    assert "Pinned by the user" in context and "1 document(s) hidden by the user" in context
    assert "docs/cache.md" not in context
    assert "Pinned" not in run("context", *base, "--ignore-pins").stdout


def test_every_scope_honours_each_folders_pins_and_hides(make_workspace, now_ms, tmp_path):
    """`rank`/`context --scope library|all` apply each folder's own pins as `--scope workspace` does (one code
    path: `merged_ranked` over `pinned_ranked`), and `--ignore-pins` skips them in every scope."""
    root = workspace(make_workspace, now_ms)
    lib = tmp_path / "manuals"
    (lib / "pumps").mkdir(parents=True)
    (lib / "pumps" / "cache.md").write_text("# Pump cache\n\nThe attachment cache of the pump controller.\n")
    (lib / "pumps" / "valves.md").write_text("# Valves\n\nValves and seals, nothing else.\n")
    (lib / "old.md").write_text("# Old attachment notes\n\nAttachment cache history.\n")
    assert run("library", "add", str(lib), "--no-index").returncode == 0
    Pins.load(str(root)).set_hidden("docs/cache.md", True)
    folder_pins = Pins.load(str(lib))
    folder_pins.set_pinned("pumps/valves.md", True)
    folder_pins.set_hidden("old.md", True)
    base = ("--workspace", str(root), "--query", "attachment cache", "--now", str(now_ms), "--json")
    both = json.loads(run("rank", *base, "--scope", "all").stdout)
    listed = [(r["source"], r["rel"]) for r in both["results"]]
    assert listed[0] == ("manuals", "pumps/valves.md")
    assert ("ws", "docs/cache.md") not in listed and ("manuals", "old.md") not in listed
    assert ("manuals", "pumps/cache.md") in listed and ("ws", "docs/sync.md") in listed
    assert both["pinned"] == [{"source": "manuals", "rel": "pumps/valves.md"}] and both["hidden"] == 2
    assert both["total"] == 4 + 3 - 2
    library_only = json.loads(run("rank", *base, "--scope", "library").stdout)
    assert [r["rel"] for r in library_only["results"]] == ["pumps/valves.md", "pumps/cache.md"]
    ignored = json.loads(run("rank", *base, "--scope", "library", "--ignore-pins").stdout)
    assert ignored["results"][0]["rel"] in ("pumps/cache.md", "old.md") and "pinned" not in ignored
    assert {r["rel"] for r in ignored["results"]} == {"pumps/cache.md", "pumps/valves.md", "old.md"}
    text = run("rank", *base[:-1], "--scope", "all").stdout
    assert "📌 manuals: pumps/valves.md" in text and "(2 hidden by you)" in text
    context = json.loads(run("context", *base, "--scope", "all").stdout)
    by_source = {entry["source"]: entry for entry in context["sources"]}
    assert [i["rel"] for i in by_source["manuals"]["pinned"]] == ["pumps/valves.md"]
    assert by_source["manuals"]["pinned"][0]["origin"] == "manuals"
    shown = {i["rel"] for e in context["sources"] for t in ("primary", "supporting", "related") for i in e[t]}
    assert "old.md" not in shown and "docs/cache.md" not in shown
    assert all(i["origin"] == "workspace" for t in ("primary", "supporting") for i in by_source["ws"][t])


def test_the_windows_view_lists_library_folders_beside_the_workspace_with_their_pins(make_workspace, now_ms,
                                                                                      tmp_path):
    """What the window's worker builds for the Both and Library scopes: one ranking over the folders, each row
    labelled with its folder, each folder's own pins applied by the same step as the workspace's."""
    root = workspace(make_workspace, now_ms)
    lib = tmp_path / "papers"
    lib.mkdir()
    (lib / "cache-paper.md").write_text("# Attachment cache paper\n\nAttachment cache attachment cache.\n")
    (lib / "garden.md").write_text("# Herbs\n\nBasil.\n")
    (lib / "hidden.md").write_text("# Attachment notes\n\nAttachment cache.\n")
    folder_pins = Pins.load(str(lib))
    folder_pins.set_pinned("garden.md", True)
    folder_pins.set_hidden("hidden.md", True)
    ws, shelf = Workspace.open(str(root)), Workspace.open(str(lib))
    request = RankInput.from_query("attachment cache")
    library = [("papers", shelf, Pins.load(str(lib)))]
    both = ws.view(request, now_ms=now_ms, pins=Pins.load(str(root)), library=library)
    listed = [(r.source, r.rel) for r in both.docs.rows]
    assert listed[0] == ("papers", "garden.md") and ("papers", "hidden.md") not in listed
    assert {("", "docs/cache.md"), ("papers", "cache-paper.md")} <= set(listed)
    assert all(r.root == shelf.root for r in both.docs.rows if r.source) and both.docs.total == 4 + 3 - 1
    only = ws.view(request, now_ms=now_ms, library=library, own=False, kind="all")
    assert [r.rel for r in only.docs.rows] == ["garden.md", "cache-paper.md"] and only.media is not None
    alone = ws.view(request, now_ms=now_ms, with_context=True)
    assert alone == ws.view(request, now_ms=now_ms, with_context=True, library=())  # the workspace alone: as before
