from knit_desktop.core.index.documents import Document
from knit_desktop.core.rank.keywords import query_keywords
from knit_desktop.core.rank.passages import best_passages, chunk_document, snippet_for, window_tf
from knit_desktop.core.text.tokens import match_key


def md(body):
    return Document("a.md", "md", "A", "", 0, len(body), body)


def test_markdown_is_cut_at_headings_and_offsets_slice_the_body():
    body = "# Title\nintro\n\n## One\n" + "alpha text\n" * 40 + "## Two\nbeta text\n"
    chunks = chunk_document(md(body))
    assert len(chunks) >= 2
    for s, e in chunks:
        assert body[s:e].strip() == body[s:e].strip("\n").strip()
    assert any(body[s:e].startswith("## Two") for s, e in chunks)


def test_passages_stay_under_1200_characters_and_prefer_blank_lines():
    paragraph = ("word " * 70).strip() + "\n"
    body = "\n".join([paragraph] * 12)
    for s, e in chunk_document(md(body)):
        assert e - s <= 1200
        assert body[s:e].endswith(paragraph.strip())


def test_one_long_line_is_hard_split_with_overlap():
    body = "x" * 3000
    chunks = chunk_document(md(body))
    assert chunks[0] == (0, 1200) and chunks[1][0] == 1200 - 120


def test_a_long_line_is_cut_at_sentence_ends_with_an_overlap_that_starts_on_a_word():
    sentence = "The capybara grazes near the river bank every single morning. "
    body = sentence * 60
    chunks = chunk_document(md(body))
    assert len(chunks) >= 3
    for (s, e), (s2, _) in zip(chunks, chunks[1:]):
        assert e - s <= 1200 and body[s:e].rstrip().endswith(".")
        assert s2 < e and e - s2 <= 120 + len("morning. ") and body[s2 - 1] == " "
    assert "".join(body[s:e] for s, e in chunks).replace(" ", "").startswith(body[:1000].replace(" ", ""))


def test_small_adjacent_passages_merge():
    body = "# A\nshort\n## B\nshort too\n## C\nstill short\n"
    assert chunk_document(md(body)) == [(0, len(body) - 1)]


def test_best_two_passages_by_score_reported_in_line_order():
    filler = "\n".join(f"unrelated line {i} " + "padding " * 20 for i in range(12))
    body = (
        "# Doc\n\n## Cache\n" + "the cache cache eviction policy\n" + filler + "\n## Sync\nsync uses cache\n"
        + filler + "\n## Eviction\ncache eviction eviction details\n"
    )
    passages = best_passages(md(body), query_keywords("cache eviction"))
    assert len(passages) == 2
    assert passages[0].start_line < passages[1].start_line
    lines = body.split("\n")
    for p in passages:
        text = body[p.start_offset : p.end_offset]
        assert text == "\n".join(lines[p.start_line - 1 : p.end_line])
        assert "eviction" in text


def test_pdf_passages_cite_page_and_line_within_page():
    pages = ["Intro\nnothing here\n", "Methods\nvector clocks merge\nmore text\n"]
    body = "".join(pages)
    doc = Document("p.pdf", "pdf", "P", "", 0, 1, body, page_starts=[0, len(pages[0])])
    (passage,) = best_passages(doc, query_keywords("vector clocks"))
    assert passage.page == 2 and (passage.start_line, passage.end_line) == (1, 3)


def test_snippet_centres_on_the_first_term():
    text = "a " * 200 + "needle here " + "b " * 200
    snippet = snippet_for(text, [match_key("needle")])
    assert snippet.startswith("…") and snippet.endswith("…") and "needle" in snippet[:60]
    assert len(snippet) <= 202


def test_window_tf_counts_the_densest_stretch():
    body = "cache " + "x" * 2000 + " cache cache cache"
    assert window_tf(body, match_key("cache")) == 3
