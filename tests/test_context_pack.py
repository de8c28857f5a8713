import pytest

from knit_desktop.core.rank.roles import source_type
from knit_desktop.core.workspace import RankInput, Workspace

DAY = 86_400_000


@pytest.mark.parametrize(
    ("rel", "role"),
    [
        ("test/context/fixture.mjs", "test"),
        ("docs/eval-benchmark.md", "test"),
        ("src/host/index.js", "impl"),
        ("docs/sdd-context-assembly.md", "design"),
        ("docs/context-assembly.md", "impl"),
        ("docs/relevance-algorithm.md", "impl"),
        ("CHANGELOG.md", "doc"),
        ("config/app.md", "config"),
        ("notes/设计方案.md", "design"),
    ],
)
def test_roles(rel, role):
    assert source_type(rel) == role


def pack_for(make_workspace, files, query, now_ms):
    ws = Workspace.open(str(make_workspace(files)))
    return ws.context(RankInput.from_query(query), now_ms=now_ms)


def tiers(pack):
    return {name: [i.record.doc.rel for i in items] for name, items in pack.tiers() if name != "pinned"}  # no pins here


def test_primary_is_grounded_supporting_is_a_deep_body_hit_related_the_rest(make_workspace, now_ms):
    files = {
        "design/eviction.md": "# Cache eviction\n\nWhen the attachment cache is full we evict.\n",
        "notes/deep.md": "# Meeting\n\nWe talked.\n\n" + "eviction eviction eviction policy.\n",
        "notes/mention.md": "# Misc\n\nOne eviction mention.\n",
        "notes/unrelated.md": "# Holiday\n\nNothing here.\n",
    }
    pack = pack_for(make_workspace, files, "cache eviction", now_ms)
    assert tiers(pack) == {
        "primary": ["design/eviction.md"],
        "supporting": ["notes/deep.md"],
        "related": ["notes/mention.md"],
    }
    assert pack.primary[0].reason.code == "direct"
    assert pack.supporting[0].reason.code == "bodyMatch"


def test_zero_hit_documents_enter_only_as_link_neighbours_of_primary(make_workspace, now_ms):
    files = {
        "docs/sync.md": "# Sync protocol\n\nVector clocks. See `docs/clock-math.md` and `docs/other.md`.\n",
        "docs/clock-math.md": "# Lamport\n\nNo shared words.\n",
        "docs/other.md": "# Unlinked\n\nNothing.\n",
        "notes/cites.md": "# Notes\n\nRead docs/sync.md before changing anything.\n",
        "notes/lonely.md": "# Lonely\n\nNothing at all.\n",
    }
    pack = pack_for(make_workspace, files, "sync protocol", now_ms)
    found = tiers(pack)
    assert found["primary"] == ["docs/sync.md"]
    linked = {i.record.doc.rel: i.reason.code for i in pack.supporting + pack.related}
    assert linked["docs/clock-math.md"] == "linkTarget"
    assert linked["docs/other.md"] == "linkTarget"
    assert "notes/lonely.md" not in linked
    item = next(i for i in pack.supporting + pack.related if i.record.doc.rel == "docs/clock-math.md")
    assert item.provenance == "relation"
    assert {"type": "references", "dir": "in", "other": "docs/sync.md", "line": 3} in item.relations


def test_no_primary_when_the_top_hit_is_only_in_the_body(make_workspace, now_ms):
    files = {
        "a.md": "# A\n\nbody words\n\nkeyword keyword\n",
        "b.md": "# B\n\nSomething else.\n\nkeyword once\n",
    }
    pack = pack_for(make_workspace, files, "keyword", now_ms)
    assert pack.primary == []
    assert tiers(pack) == {"primary": [], "supporting": ["a.md"], "related": ["b.md"]}


def test_caps_and_no_item_in_two_tiers(make_workspace, now_ms):
    files = {f"n{i:02}.md": (f"# Sync note {i}\n\nsync " * (1 + i % 3), now_ms - i * DAY) for i in range(15)}
    pack = pack_for(make_workspace, files, "sync", now_ms)
    assert len(pack.primary) <= 1 and len(pack.supporting) <= 3 and len(pack.related) <= 5
    rels = [i.record.doc.rel for i in pack.items()]
    assert len(rels) == len(set(rels))


def test_time_mode_pack_lists_recent_documents(make_workspace, now_ms):
    files = {"a.md": ("# A", now_ms - 2 * DAY), "b.md": ("# B", now_ms - DAY)}
    pack = pack_for(make_workspace, files, "", now_ms)
    assert pack.mode == "time" and [r.doc.rel for r in pack.recent] == ["b.md", "a.md"]


def test_items_carry_passages_with_line_ranges(make_workspace, now_ms):
    body = "# Eviction\n\nIntro.\n\n## Policy\n\nLeast recently used eviction of attachments.\n"
    pack = pack_for(make_workspace, {"e.md": body}, "eviction attachments", now_ms)
    passage = pack.primary[0].passages[0]
    assert body.split("\n")[passage.start_line - 1 : passage.end_line]
    assert "eviction" in body[passage.start_offset : passage.end_offset].lower()
