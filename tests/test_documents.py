import os
import random

import pytest

from knit_desktop.core.index import documents
from knit_desktop.core.index.documents import (
    BODY_CAP_BYTES,
    SkipFile,
    extract_document,
    kind_for_name,
    parse_markdown,
    parse_text,
)

from .media_fixtures import make_pdf


def test_kinds_by_extension_case_insensitive():
    assert kind_for_name("A.MD") == "md"
    assert kind_for_name("notes.txt") == "txt"
    assert kind_for_name("paper.PDF") == "pdf"
    assert kind_for_name("shot.jpeg") == "image"
    assert kind_for_name("clip.webm") == "video"
    assert kind_for_name("main.rs") is None
    assert kind_for_name("Makefile") is None


def test_h1_title_and_first_paragraph_summary():
    title, summary = parse_markdown("# The **Title**\n\nFirst *line* of [text](x.md).\nSecond line.\n", "f.md")
    assert (title, summary) == ("The Title", "First line of text.")


def test_names_keep_their_underscores_and_code_spans_their_text_while_emphasis_markup_goes():
    title, summary = parse_markdown(
        "# asyncio.get_event_loop, pip._internal and MAX_SIZE\n\n"
        "Call `__init__` or `a*b`, __not__ _this_ *or* ***that***, 2 * 3, ~~old~~ ~/x.\n", "f.md")
    assert title == "asyncio.get_event_loop, pip._internal and MAX_SIZE"  # (an unpaired `_` is text)
    assert summary == "Call __init__ or a*b, not this or that, 2 * 3, old ~/x."


def test_a_heading_s_snake_case_name_is_found_by_its_words(make_workspace, now_ms):
    from knit_desktop.core.workspace import RankInput, Workspace

    root = make_workspace({"loop.md": "# get_event_loop\n\nReturns the running one.\n",
                           "other.md": "# Other\n\nAn event, then a loop.\n" + "filler words here\n" * 30})
    ws = Workspace.open(str(root))
    ranked = ws.rank(RankInput.from_query("event loop"), now_ms=now_ms).ranked
    assert ranked[0].doc.rel == "loop.md" and ranked[0].doc.title == "get_event_loop"


def test_front_matter_is_skipped_and_unclosed_front_matter_swallows_everything():
    assert parse_markdown("---\ntitle: x\n---\n# Real\n\nBody\n", "f.md") == ("Real", "Body")
    assert parse_markdown("---\ntitle: x\n# Not a title\n", "notes.md") == ("notes", "")


def test_fenced_lines_never_become_title_or_summary():
    text = "```\n# not title\nnot summary\n```\n~~~\nx\n~~~\nReal summary\n"
    assert parse_markdown(text, "Guide.MD") == ("Guide", "Real summary")


def test_only_h1_counts_and_title_can_follow_summary():
    assert parse_markdown("## Sub\n\nIntro text\n\n# Late Title\n", "f.md") == ("Late Title", "Intro text")


def test_summary_skips_lists_quotes_tables_rules_html_and_images():
    text = "# T\n- item\n1. item\n> quote\n| a | b |\n---\n<div>\n![img](a.png)\nThe `real` summary\n"
    assert parse_markdown(text, "f.md")[1] == "The real summary"


def test_summary_is_cut_at_60_characters():
    summary = parse_markdown("# T\n\n" + "x" * 70 + "\n", "f.md")[1]
    assert summary == "x" * 60 + "…"


def test_text_file_title_is_file_name_and_summary_first_line():
    assert parse_text("\n\n  First   line \nsecond", "todo.txt") == ("todo", "First line")


def test_binary_file_named_md_is_skipped_with_a_reason(tmp_path):
    path = tmp_path / "image.md"
    path.write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR" + bytes(range(256)) * 4)
    with pytest.raises(SkipFile, match="binary"):
        extract_document(str(path), "image.md", "md", 0, path.stat().st_size)


def test_text_that_is_not_utf8_is_decoded_as_latin1_and_says_so(tmp_path):
    path = tmp_path / "latin1.md"
    path.write_bytes("# Caf\xe9 notes\n\nna\xefve text\n".encode("latin-1"))
    doc = extract_document(str(path), "latin1.md", "md", 0, path.stat().st_size)
    assert doc.title == "Café notes"
    assert "naïve" in doc.body
    assert doc.status_note == "decoded as Latin-1"


def test_utf8_with_a_stray_byte_is_decoded_with_replacement(tmp_path):
    path = tmp_path / "mostly.md"
    path.write_bytes("# Café notes\n\nnaïve text, déjà vu, voilà\n".encode() + b"one bad byte \xff here\n")
    doc = extract_document(str(path), "mostly.md", "md", 0, path.stat().st_size)
    assert doc.title == "Café notes"
    assert "\ufffd" in doc.body and doc.status_note == ""


def test_huge_file_is_indexed_up_to_the_cap(tmp_path):
    path = tmp_path / "big.txt"
    path.write_text("first line\n" + "y" * (BODY_CAP_BYTES + 1000), encoding="utf-8")
    doc = extract_document(str(path), "big.txt", "txt", 0, path.stat().st_size)
    assert doc.truncated and len(doc.body) == BODY_CAP_BYTES


def test_content_hash_follows_the_content_not_the_metadata(tmp_path):
    path = tmp_path / "a.md"
    path.write_text("# A\n\nsame", encoding="utf-8")
    first = extract_document(str(path), "a.md", "md", 0, 1).content_hash
    os.utime(path, (1, 1))
    assert extract_document(str(path), "a.md", "md", 5, 1).content_hash == first
    path.write_text("# A\n\nchanged", encoding="utf-8")
    assert extract_document(str(path), "a.md", "md", 0, 1).content_hash != first


def test_media_are_titled_by_file_name_and_searched_by_full_name():
    doc = extract_document("/nonexistent", "shots/Login Flow.png", "image", 0, 10)
    assert doc.title == "Login Flow" and doc.field_texts() == ("login flow.png", "", "")


def test_pdf_title_from_metadata_and_pages_recorded(tmp_path):
    path = tmp_path / "paper.pdf"
    make_pdf(path, ["Introduction\nVector clocks order events.", "Results\nMerges never lose edits."], "Clock Paper")
    doc = extract_document(str(path), "paper.pdf", "pdf", 0, path.stat().st_size)
    assert doc.title == "Clock Paper"
    assert doc.summary == "Introduction"
    assert len(doc.page_starts) == 2 and doc.body[doc.page_starts[1] :].startswith("Results")


def test_pdf_title_falls_back_to_first_meaningful_line(tmp_path):
    path = tmp_path / "untitled.pdf"
    make_pdf(path, ["12\nSync Design Notes\nbody text here"])
    assert extract_document(str(path), "untitled.pdf", "pdf", 0, 1).title == "Sync Design Notes"


def test_scanned_pdf_without_text_is_skipped(tmp_path):
    path = tmp_path / "scan.pdf"
    make_pdf(path, [""])
    with pytest.raises(SkipFile, match="no text layer"):
        extract_document(str(path), "scan.pdf", "pdf", 0, 1)


def test_encrypted_pdf_is_skipped(tmp_path):
    path = tmp_path / "locked.pdf"
    make_pdf(path, ["secret text"], encrypt=True)
    with pytest.raises(SkipFile, match="encrypted"):
        extract_document(str(path), "locked.pdf", "pdf", 0, 1)


def test_corrupt_pdf_fails_with_a_message(tmp_path):
    path = tmp_path / "broken.pdf"
    path.write_bytes(b"%PDF-1.7\n" + b"garbage" * 100)
    with pytest.raises(ValueError, match="not a readable PDF"):
        extract_document(str(path), "broken.pdf", "pdf", 0, 1)


def test_pymupdf_loads_with_the_first_pdf_not_with_the_window():
    """documents.py and preview_content.py both promise it: the window's modules import without PyMuPDF."""
    import subprocess
    import sys

    code = ("import sys, knit_desktop.core.index.documents, knit_desktop.core.index.preview_content, "
            "knit_desktop.core.workspace; print('pymupdf' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert out.stdout.strip() == "False", out.stderr


@pytest.mark.parametrize("seed", range(3))
def test_a_line_without_markup_characters_is_stripped_to_the_same_text(seed):
    """A line with none of the characters inline markup needs skips the markup passes: it must come out as the
    passes make it."""
    rng = random.Random(seed)
    pieces = ["word", " ", "  ", "\t", "!", "(", ")", "]", "#", "Café", "缓存", "2026", "-", ".", "<b>", "\u00a0",
              "[", "`", "_", "*", "~~", "~", "![", "](x.md)"]
    for _ in range(2000):
        line = "".join(rng.choice(pieces) for _ in range(rng.randint(0, 14)))
        assert documents.strip_inline(line) == documents._strip_markup(line)
