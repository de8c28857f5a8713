"""Library folders: the formats beyond Markdown/text/PDF, passages that can be cited, the folders remembered in the
shared settings, `library` / `ask` / `stats` / `rank --scope` on the command line."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
import zipfile
from pathlib import Path

import pytest

from knit_desktop.core.agent import specs
from knit_desktop.core.config import (
    SharedSettings,
    encode_ini_value,
    settings_path,
    unescape_ini_value,
    write_library_folders,
)
from knit_desktop.core.index.documents import DOC_KINDS, SkipFile, extract_document, kind_for_name
from knit_desktop.core.library import Library, LibraryError, add_folder, labels_for, remove_folder, render_ask
from knit_desktop.core.rank.cited import cite_document
from knit_desktop.core.workspace import Workspace

from .library_fixtures import make_cbz, make_docx, make_epub, make_fb2, make_html, make_mobi, make_xps
from .media_fixtures import make_pdf


def extract(path: Path):
    return extract_document(str(path), path.name, kind_for_name(path.name), 0, path.stat().st_size)


# --- formats ------------------------------------------------------------------------------------------


def test_kinds_by_extension_and_the_tools_name_the_same_kinds():
    assert [kind_for_name(n) for n in ("a.HTML", "b.htm", "c.xhtml", "d.docx", "e.epub", "f.oxps", "g.fb2",
                                       "h.mobi", "i.cbz")] == ["html", "html", "html", "docx", "epub", "xps", "fb2",
                                                               "mobi", "cbz"]
    assert specs.DOC_KINDS == DOC_KINDS


def test_html_keeps_title_headings_and_text_and_drops_scripts_and_styles(tmp_path):
    path = make_html(tmp_path / "guide.html", "Garden guide", [("Soil", "Capybara soil is loamy."),
                                                               ("Water", "Water twice a week.")])
    doc = extract(path)
    assert doc.kind == "html" and doc.title == "Garden guide" and doc.summary == "Capybara soil is loamy."
    assert "## Soil\n\nCapybara soil is loamy." in doc.body
    assert "secretscript" not in doc.body and "secretstyle" not in doc.body


def test_html_lists_tables_pre_and_a_declared_legacy_charset(tmp_path):
    html = ("<html><head><meta charset='gb2312'><title>表格</title></head><body><ul><li>一</li><li>二</li></ul>"
            "<table><tr><th>名称</th><th>值</th></tr><tr><td>水豚</td><td>3</td></tr></table>"
            "<pre>line one\n  line two</pre></body></html>")
    (tmp_path / "t.html").write_bytes(html.encode("gb2312"))
    doc = extract(tmp_path / "t.html")
    assert "- 一\n- 二" in doc.body and "名称 | 值\n水豚 | 3" in doc.body and "line one\n  line two" in doc.body
    assert "GB2312" in doc.note


def test_html_without_text_is_skipped_and_a_flood_of_brackets_is_bounded(tmp_path):
    (tmp_path / "empty.html").write_text("<html><script>x()</script></html>")
    with pytest.raises(SkipFile, match="no text"):
        extract(tmp_path / "empty.html")
    (tmp_path / "flood.html").write_text("<p>capybara</p>" + "<" * 2_000_000 + "</a" * 200_000)
    started = time.monotonic()
    doc = extract(tmp_path / "flood.html")
    assert "capybara" in doc.body and time.monotonic() - started < 10


def test_docx_paragraphs_headings_by_style_and_tables(tmp_path):
    path = make_docx(tmp_path / "report.docx", [("h1", "Annual report"), ("p", "Revenue grew."),
                                                ("h2", "Numbers"), ("table", [["Year", "Revenue"], ["2025", "12"]])],
                     title="Report 2025")
    doc = extract(path)
    assert doc.kind == "docx" and doc.title == "Report 2025" and doc.summary == "Revenue grew."
    assert doc.body == "# Annual report\n\nRevenue grew.\n\n## Numbers\n\nYear | Revenue\n2025 | 12\n"


def test_docx_zip_bomb_entities_and_damage_are_refused_with_a_reason(tmp_path):
    bomb = tmp_path / "bomb.docx"
    with zipfile.ZipFile(bomb, "w", zipfile.ZIP_DEFLATED) as z:
        z.writestr("word/document.xml", "<w:document xmlns:w='x'>" + " " * 40_000_000 + "</w:document>")
    with pytest.raises(SkipFile, match="MB inflated|zip bomb"):
        extract(bomb)
    laughs = tmp_path / "laughs.docx"
    with zipfile.ZipFile(laughs, "w") as z:
        z.writestr("word/document.xml", "<?xml version='1.0'?><!DOCTYPE d [<!ENTITY a 'aaaa'>]><d>&a;</d>")
    with pytest.raises(SkipFile, match="entities"):
        extract(laughs)
    (tmp_path / "broken.docx").write_bytes(b"PK\x03\x04 not really a zip")
    with pytest.raises(ValueError, match="not a readable DOCX"):
        extract(tmp_path / "broken.docx")
    with zipfile.ZipFile(tmp_path / "other.docx", "w") as z:
        z.writestr("hello.txt", "hi")
    with pytest.raises(ValueError, match="no word/document.xml"):
        extract(tmp_path / "other.docx")


def test_epub_chapters_are_pages_with_the_books_title(tmp_path):
    path = make_epub(tmp_path / "rivers.epub", "Book of rivers", [("Chapter one", "The river capybara swims."),
                                                                 ("Chapter two", "Otters fish at dawn.")])
    doc = extract(path)
    assert doc.kind == "epub" and doc.title == "Book of rivers" and len(doc.page_starts) == 2
    assert doc.body[doc.page_starts[1]:].startswith("Chapter two")


def test_fb2_sections_become_headings_and_damaged_books_fail_without_crashing(tmp_path):
    fb2 = extract(make_fb2(tmp_path / "tale.fb2", "A tale", [("Part one", "Fiction capybara text.")]))
    assert fb2.kind == "fb2" and fb2.title == "A tale" and fb2.body == "# Part one\n\nFiction capybara text.\n"
    assert cite_document("lib", fb2)[0].heading == ("Part one",)
    # PyMuPDF's FB2 reader crashes the process on some random bytes; Knit reads FB2 itself and says why.
    (tmp_path / "noise.fb2").write_bytes(bytes(range(256)) * 12)
    with pytest.raises(ValueError, match="not a readable FB2"):
        extract(tmp_path / "noise.fb2")
    (tmp_path / "other.fb2").write_text("<html><p>x</p></html>")
    with pytest.raises(ValueError, match="not an FB2 book"):
        extract(tmp_path / "other.fb2")


def test_xps_and_mobi_are_read_through_pymupdf(tmp_path):
    xps = extract(make_xps(tmp_path / "form.xps", ["XPS page one capybara", "Second XPS page"]))
    assert xps.kind == "xps" and len(xps.page_starts) == 2 and "Second XPS page" in xps.body
    mobi = extract(make_mobi(tmp_path / "m.mobi", "Mobi book", "<html><body><h1>Mobi heading</h1><p>Mobi capybara "
                                                               "paragraph.</p></body></html>"))
    assert mobi.kind == "mobi" and "Mobi capybara paragraph." in mobi.body


def test_cbz_of_images_and_damaged_paged_files_say_why(tmp_path):
    with pytest.raises(SkipFile, match="only images"):
        extract(make_cbz(tmp_path / "comic.cbz"))
    for name in ("bad.epub", "bad.xps", "bad.fb2", "bad.mobi"):
        (tmp_path / name).write_bytes(os.urandom(3000))
        with pytest.raises((ValueError, SkipFile)):
            extract(tmp_path / name)


def test_a_folder_of_every_format_indexes_and_bad_files_fail_alone(tmp_path):
    root = tmp_path / "lib"
    root.mkdir()
    make_html(root / "a.html", "Page", [("S", "capybara html")])
    make_docx(root / "b.docx", [("p", "capybara docx")])
    make_epub(root / "c.epub", "Book", [("C", "capybara epub")])
    make_fb2(root / "d.fb2", "Tale", [("P", "capybara fb2")])
    make_xps(root / "e.xps", ["capybara xps"])
    make_cbz(root / "f.cbz")
    (root / "g.docx").write_bytes(b"garbage")
    (root / "h.epub").write_bytes(b"garbage")
    ws = Workspace.open(str(root))
    statuses = {rel: (s.state, s.reason) for rel, s in ws.statuses.items()}
    assert {rel for rel, (state, _) in statuses.items() if state == "indexed"} == {"a.html", "b.docx", "c.epub",
                                                                                  "d.fb2", "e.xps"}
    assert statuses["f.cbz"][0] == "skipped" and statuses["g.docx"][0] == "failed"
    assert statuses["h.epub"][0] == "failed" and "EPUB" in statuses["h.epub"][1]


# --- citations ----------------------------------------------------------------------------------------


def test_markdown_citations_quote_exactly_the_files_lines_with_their_heading_path(tmp_path):
    text = "# Guide\n\nIntro line.\n\n## Care\n\n" + "\n\n".join(
        f"Paragraph {i}: the capybara needs water, shade and company. " * 4 for i in range(12)) + "\n\n### Food\n\nGrass.\n"
    (tmp_path / "guide.md").write_text(text, encoding="utf-8")
    doc = extract(tmp_path / "guide.md")
    lines = text.split("\n")
    cited = cite_document("lib", doc)
    assert len(cited) > 3
    for passage in cited:
        assert passage.text == "\n".join(lines[passage.start_line - 1 : passage.end_line])
        assert len(passage.text) <= 1200
    assert cited[-1].heading == ("Guide", "Care", "Food")
    assert any(p.heading == ("Guide", "Care") for p in cited)


def test_pdf_citations_name_the_page_and_the_lines_on_it(tmp_path):
    path = make_pdf(tmp_path / "r.pdf", ["Overview\nnothing here", "Appendix\nThe capybara survey results."])
    doc = extract(path)
    cited = cite_document("lib", doc)
    page2 = [p for p in cited if p.page == 2]
    assert page2 and page2[0].start_line == 1
    page_text = doc.body[doc.page_starts[1]:].split("\n")
    assert page2[0].text == "\n".join(page_text[page2[0].start_line - 1 : page2[0].end_line])


def test_html_and_docx_passages_carry_their_heading_path(tmp_path):
    doc = extract(make_docx(tmp_path / "r.docx", [("h1", "Report"), ("p", "x"), ("h2", "Numbers"), ("p", "capybara")]))
    assert [p.heading for p in cite_document("lib", doc)][-1] in (("Report",), ("Report", "Numbers"))
    doc = extract(make_html(tmp_path / "g.html", "Guide", [("Soil", "s " * 700), ("Water", "w " * 700)]))
    assert ("Guide", "Water") in [p.heading for p in cite_document("lib", doc)]


# --- the folders --------------------------------------------------------------------------------------


def test_the_folders_round_trip_through_qsettings(tmp_path):
    from PySide6.QtCore import QSettings

    ini = tmp_path / "settings.ini"
    ini.write_text("[ui]\nlanguage=zh_CN\n\n[library]\nfolders\\1\\path=/old\nfolders\\size=1\n\n[memory]\ndir=/m\n")
    odd = ["/data/a, b; c=\"d\"", "/données/论文", " /lead space", "@at"]
    write_library_folders(odd, ini)
    settings = QSettings(str(ini), QSettings.Format.IniFormat)
    size = settings.beginReadArray("library/folders")
    read = []
    for i in range(size):
        settings.setArrayIndex(i)
        read.append(settings.value("path"))
    settings.endArray()
    # (surrounding spaces are trimmed, as every path setting is)
    assert read == [s.strip() for s in odd] and settings.value("ui/language") == "zh_CN"
    assert settings.value("memory/dir") == "/m"
    assert SharedSettings.load(ini).library == tuple(s.strip() for s in odd)
    settings.beginWriteArray("library/folders", 2)
    for i, folder in enumerate(["/q1", "/q,2"]):
        settings.setArrayIndex(i)
        settings.setValue("path", folder)
    settings.endArray()
    settings.sync()
    assert SharedSettings.load(ini).library == ("/q1", "/q,2")
    for value in odd:
        assert unescape_ini_value(encode_ini_value(value)) == value


def test_add_refuses_what_a_workspace_refuses_and_remove_takes_a_name(tmp_path):
    papers = tmp_path / "papers"
    papers.mkdir()
    real, folders = add_folder(str(papers))
    assert folders == [real] and SharedSettings.load().library == (real,)
    with pytest.raises(LibraryError, match="already"):
        add_folder(str(papers))
    with pytest.raises(LibraryError, match="not a folder"):
        add_folder(str(tmp_path / "missing"))
    with pytest.raises(LibraryError):
        add_folder("/etc")
    assert remove_folder("papers")[1] == [] and SharedSettings.load().library == ()
    assert labels_for(["/a/x", "/b/x", "/c/y"]) == ["x (a)", "x (b)", "y"]
    assert settings_path().exists()


def test_a_link_out_of_a_library_folder_is_not_followed(tmp_path):
    outside = tmp_path / "secret.md"
    outside.write_text("# Secret\n\ncapybara password\n")
    lib = tmp_path / "lib"
    lib.mkdir()
    (lib / "in.md").write_text("# In\n\ncapybara notes\n")
    os.symlink(outside, lib / "link.md")
    library = Library.open([str(lib)])
    answer = library.ask("capybara")
    assert [p["rel"] for p in answer["passages"]] == ["in.md"]
    assert library.stats()[0]["skipped"] == 1
    library.close()


def _library(tmp_path: Path) -> tuple[Library, Path]:
    lib = tmp_path / "manuals"
    lib.mkdir()
    for i in range(8):
        (lib / f"m{i}.md").write_text(f"# Manual {i}\n\n## Pumps\n\n" + "The pump pressure valve needs care. " * 30
                                      + f"\n\n## Other\n\nUnrelated text {i}.\n", encoding="utf-8")
    return Library.open([str(lib)]), lib


def test_ask_keeps_the_budget_quotes_verbatim_and_says_how_many_more(tmp_path):
    library, lib = _library(tmp_path)
    answer = library.ask("pump pressure valve", max_chars=3000, top_k=5)
    assert answer["passages"] and answer["used_chars"] <= 3000 and answer["more"] > 0
    text = render_ask(answer)
    assert f"{answer['more']} more passages matched" in text
    for entry in answer["passages"]:
        lines = Path(entry["path"]).read_text(encoding="utf-8").split("\n")
        assert entry["text"] == "\n".join(lines[entry["start_line"] - 1 : entry["end_line"]])
        assert entry["heading"] == [entry["title"], "Pumps"] and entry["source"] == "manuals"
        assert entry["lines_in"] == "file"
    tiny = library.ask("pump pressure valve", max_chars=200)
    assert len(tiny["passages"]) == 1 and tiny["passages"][0]["cut"] and tiny["used_chars"] <= 200
    assert library.ask("zebra")["passages"] == []
    library.close()


def test_search_gives_each_document_once_with_its_best_passage(tmp_path):
    library, _ = _library(tmp_path)
    answer = library.search("pump valve", top_k=3)
    assert len(answer["results"]) == 3 and answer["total"] == 8
    assert len({r["rel"] for r in answer["results"]}) == 3
    library.close()


# --- the command line ---------------------------------------------------------------------------------


def run(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "knit_desktop", *args], capture_output=True, text=True, timeout=120)


def test_library_add_list_ask_stats_rank_scope_remove(tmp_path, make_workspace):
    _, lib = _library(tmp_path)
    ws = make_workspace({"notes.md": "# Notes\n\nThe pump pressure was fine today.\n"})
    out = run("library", "add", str(lib))
    assert out.returncode == 0 and "8 indexed" in out.stdout, out.stderr
    assert run("library", "add", str(lib)).returncode == 2
    assert run("library", "add", "/").returncode == 2
    listed = json.loads(run("library", "list", "--json").stdout)
    assert listed == [{"source": "manuals", "root": str(lib.resolve()), "exists": True}]
    ask = json.loads(run("ask", "pump pressure", "--json", "--max-chars", "2500", "--workspace", str(ws)).stdout)
    assert ask["scope"] == "all" and ask["used_chars"] <= 2500
    assert {p["source"] for p in ask["passages"]} <= {"manuals", "ws"}
    stats = json.loads(run("stats", "--json").stdout)
    assert stats["folders"][0]["documents"] == 8 and stats["folders"][0]["passages"] >= 16
    plain = json.loads(run("rank", "--workspace", str(ws), "--query", "pump", "--json").stdout)
    assert set(plain["results"][0]) == {"rel", "kind", "title", "summary", "mtime_ms", "matched"}
    scoped = json.loads(run("rank", "--workspace", str(ws), "--query", "pump", "--json", "--scope", "all").stdout)
    assert {r["source"] for r in scoped["results"]} == {"manuals", "ws"} and scoped["total"] == 9
    library_only = json.loads(run("rank", "--query", "pump", "--json", "--scope", "library").stdout)
    assert {r["source"] for r in library_only["results"]} == {"manuals"}
    context = json.loads(run("context", "--query", "pump", "--json", "--scope", "library").stdout)
    assert context["sources"][0]["source"] == "manuals" and context["sources"][0]["primary"]
    assert run("library", "remove", "manuals").returncode == 0
    assert "No library folders" in run("library", "list").stdout
    assert run("library", "remove", "manuals").returncode == 2


def test_the_preview_of_a_library_format_shows_the_text_its_passages_cite(tmp_path):
    make_docx(tmp_path / "r.docx", [("h1", "Report"), ("p", "capybara numbers")])
    make_epub(tmp_path / "b.epub", "Book", [("One", "capybara chapter")])
    (tmp_path / "bad.docx").write_bytes(b"garbage")
    ws = Workspace.open(str(tmp_path))
    docx = ws.preview("r.docx")
    assert docx.kind == "md" and docx.text == "# Report\n\ncapybara numbers\n" and not docx.problem
    epub = ws.preview("b.epub")
    assert epub.kind == "txt" and "capybara chapter" in epub.text and epub.page_line_starts == [0]
    assert "not a readable DOCX" in ws.preview("bad.docx").problem


def test_the_latin_probe_is_in_every_text_whose_words_have_that_key():
    """score_texts skips the tokenizer for passages without the probe: that must never drop a real match."""
    from knit_desktop.core.rank.passages import latin_probe
    from knit_desktop.core.text.tokens import LATIN_DOC_RUN, run_keys

    root = Path(__file__).resolve().parents[1]
    files = [*root.glob("tests/eval/corpus_public/**/*.*"), *root.glob("knit_desktop/**/*.py"), root / "README.md"]
    checked = 0
    for path in files:
        for run in set(LATIN_DOC_RUN.findall(path.read_text(encoding="utf-8", errors="ignore"))):
            for key, _ in run_keys(run):
                checked += 1
                assert latin_probe(key) in run.lower().replace("_", ""), (run, key)
    extra = ["possibility", "using", "try", "Why", "agreed", "relational", "generalization", "happily", "mtimeMs"]
    for word in extra:
        for key, _ in run_keys(word):
            assert latin_probe(key) in word.lower(), (word, key)
    assert checked > 20_000


def test_a_citation_names_the_path_heading_and_lines_or_page():
    from knit_desktop.core.rank.cited import citation_text

    assert citation_text("/p/a.md") == "/p/a.md"
    assert citation_text("/p/a.md", {"start_line": 3, "end_line": 9}, ["Guide", "Care"]) == \
        "/p/a.md — Guide › Care — lines 3–9"
    assert citation_text("/p/r.pdf", {"start_line": 1, "end_line": 4, "page": 2}) == "/p/r.pdf — page 2, lines 1–4"


def test_html_passages_say_their_lines_count_the_extracted_text(tmp_path):
    lib = tmp_path / "web"
    lib.mkdir()
    make_html(lib / "g.html", "Guide", [("Soil", "Capybara soil is loamy.")])
    library = Library.open([str(lib)])
    entry = library.ask("capybara soil")["passages"][0]
    assert entry["lines_in"] == "extracted text" and "of the extracted text" in render_ask(library.ask("capybara"))
    library.close()


def test_the_agent_tools_read_the_library_and_say_what_they_could_not_use(tmp_path):
    from knit_desktop.core.agent.knit_docs import ToolError
    from knit_desktop.core.agent.tools import AgentTools

    _, lib = _library(tmp_path)
    add_folder(str(lib))
    tools = AgentTools(dsh_home_dir=str(tmp_path / "no-dsh"), memory_dir=str(tmp_path / "memory"))
    try:
        answer = tools.call("knit_ask", {"query": "pump pressure", "max_chars": 1500})
        assert answer.structured["passages"] and answer.structured["used_chars"] <= 1500
        assert "answering from the library only" in answer.text and "[1] manuals:" in answer.text
        search = tools.call("knit_search", {"query": "pump", "top_k": 2, "scope": "library"})
        assert len(search.structured["results"]) == 2 and search.structured["total"] == 8
        stats = tools.call("knit_stats", {"scope": "library"}).structured
        assert stats["folders"][0]["documents"] == 8
        for bad, why in (({"query": "pump", "scope": "web"}, "scope must be one of"), ({}, "non-empty string"),
                         ({"query": "pump", "scope": "workspace"}, "no workspace")):
            with pytest.raises(ToolError, match=why):
                tools.call("knit_ask", bad)
        assert tools.call("knit_ask", {"query": "pump", "top_k": "many", "max_chars": 10}).structured["max_chars"] == 200
    finally:
        tools.close()
