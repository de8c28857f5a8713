from knit_desktop.core.index.links import LinkResolver, build_graph, extract_refs


def raws(text):
    return [(r.raw, r.line) for r in extract_refs(text)]


def test_three_syntaxes_with_lines():
    text = "See `docs/a.md` first.\n\nThen [the spec](spec/b.md#part) and\nalso notes/c.md, (d.md).\n"
    assert raws(text) == [("docs/a.md", 1), ("spec/b.md", 3), ("notes/c.md", 4), ("d.md", 4)]


def test_backtick_spans_and_link_targets_are_blanked_for_bare_paths():
    assert raws("`00_ Knit PRD/x.md` and [t](y/z.md)") == [("00_ Knit PRD/x.md", 1), ("y/z.md", 1)]


def test_urls_other_extensions_and_duplicates_are_dropped():
    text = "[w](https://x.org/a.md) `b.md` `b.md` image.png a.md.bak [t](c.md)\n"
    assert raws(text) == [("b.md", 1), ("c.md", 1)]


def test_percent_encoded_link_targets_are_decoded():
    assert raws("[t](my%20notes.md)") == [("my notes.md", 1)]


def test_wikilinks_are_not_supported():
    assert raws("[[Other Page]]") == []


RELS = ["README.md", "docs/a.md", "docs/guide/b.md", "notes/b.md", "x/2026-SDD-v0.6.md", "y/unique.md"]


def test_resolution_order_and_never_guessing():
    r = LinkResolver(RELS)
    assert r.resolve("docs/index.md", "./a.md") == "docs/a.md"  # referrer's directory
    assert r.resolve("notes/n.md", "docs/a.md") == "docs/a.md"  # root-relative
    assert r.resolve("notes/n.md", "-SDD-v0.6.md") == "x/2026-SDD-v0.6.md"  # unique suffix
    assert r.resolve("z/n.md", "unique.md") == "y/unique.md"  # unique basename
    assert r.resolve("z/n.md", "b.md") is None  # two documents named b.md: no guess
    assert r.resolve("docs/guide/b.md", "../a.md") == "docs/a.md"  # exact relative path
    assert r.resolve("docs/guide/x.md", "../../notes/b.md") == "notes/b.md"
    assert r.resolve("docs/x.md", "../../../notes/c.md") is None  # outside the workspace
    assert r.resolve("docs/guide/x.md", "../nope/b.md") is None  # b.md is ambiguous by basename
    assert r.resolve("z/n.md", "missing.md") is None


def test_graph_drops_self_links_and_keeps_first_line():
    refs = {
        "README.md": extract_refs("`docs/a.md`\n`docs/a.md`\n[me](README.md)"),
        "docs/a.md": extract_refs("back to README.md"),
    }
    graph = build_graph(refs, RELS)
    assert graph.outgoing_of("README.md") == {"docs/a.md": 1}
    assert graph.incoming_of("README.md") == {"docs/a.md": 1}
    assert graph.incoming_of("docs/a.md") == {"README.md": 1}
