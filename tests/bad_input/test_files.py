"""One bad file never breaks a workspace, and no file costs more than its budget: names that are not UTF-8, a PDF
whose page tree contains itself, bracket floods, legacy encodings, control characters, gigabyte files."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from knit_desktop.core.agent.knit_docs import KnitDocs
from knit_desktop.core.index import documents
from knit_desktop.core.index.boundary import display_rel, fs_rel, name_bytes
from knit_desktop.core.index.links import extract_refs
from knit_desktop.core.memory.library import parse_library
from knit_desktop.core.workspace import RankInput, Workspace

from ..media_fixtures import make_pdf

ROOT = Path(__file__).resolve().parents[2]

# A catalog whose page tree lists itself as its own kid: PyMuPDF raises FzErrorFormat ("cycle in page tree").
LOOPING_PDF = b"""%PDF-1.4
1 0 obj << /Type /Catalog /Pages 2 0 R >> endobj
2 0 obj << /Type /Pages /Kids [2 0 R] /Count 1 >> endobj
trailer << /Root 1 0 R >>
%%EOF
"""


def knit(*args: str, env: dict | None = None, stdin: str | None = None):
    full_env = dict(os.environ, PYTHONPATH=str(ROOT), **(env or {}))
    return subprocess.run([sys.executable, "-m", "knit_desktop", *args], capture_output=True, text=True,
                          timeout=120, env=full_env, cwd=str(ROOT), input=stdin)


def write_bytes_name(root: Path, name: bytes, content: bytes) -> None:
    fd = os.open(os.fsencode(str(root)) + b"/" + name, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
    try:
        os.write(fd, content)
    finally:
        os.close(fd)


@pytest.fixture
def mixed(make_workspace) -> Path:
    root = make_workspace({"good.md": "# Good\n\nThe capybara grazes by the river.\n"})
    write_bytes_name(root, b"caf\xe9.md", "# Café notes\n\ncapybara coffee tasting\n".encode())
    (root / "loop.pdf").write_bytes(LOOPING_PDF)
    return root


def test_a_name_that_is_not_utf8_is_stored_escaped_and_opened_by_its_bytes(mixed, now_ms):
    ws = Workspace.open_persistent(str(mixed))
    rel = "caf\\xE9.md"
    assert ws.statuses[rel].state == "indexed"
    assert name_bytes(rel) == b"caf\xe9.md" and fs_rel(str(mixed), rel) == "caf\udce9.md"
    assert display_rel("caf\udce9.md") == rel
    preview = ws.preview(rel)  # read again from disk by its bytes
    assert preview.problem == "" and "coffee tasting" in preview.text
    ranked = [r.doc.rel for r in ws.rank(RankInput.from_query("coffee"), now_ms=now_ms).ranked]
    assert ranked[0] == rel
    # An edit reported by the watcher (as the OS names the file) updates the same entry.
    write_bytes_name(mixed, b"caf\xe9.md", "# Café notes\n\nespresso only now\n".encode())
    os.utime(os.fsencode(str(mixed)) + b"/caf\xe9.md", ns=(1, 1))
    report = ws.apply_changes([display_rel("caf\udce9.md")])
    assert report.changed == 1
    assert ws.rank(RankInput.from_query("espresso"), now_ms=now_ms).ranked[0].doc.rel == rel
    ws.close()
    reopened = Workspace.open_persistent(str(mixed))  # stored and loaded back
    assert reopened.statuses[rel].state == "indexed"
    reopened.close()


def test_a_pdf_whose_page_tree_contains_itself_fails_alone(mixed, now_ms):
    out = knit("index", "--workspace", str(mixed), "--json")
    assert out.returncode == 0, out.stderr
    files = {f["rel"]: f for f in json.loads(out.stdout)["files"]}
    assert files["loop.pdf"]["state"] == "failed" and "cycle" in files["loop.pdf"]["reason"]
    assert files["good.md"]["state"] == "indexed" and files["caf\\xE9.md"]["state"] == "indexed"
    for command in ("rank", "context"):
        out = knit(command, "--workspace", str(mixed), "--query", "capybara", "--json", "--now", str(now_ms))
        assert out.returncode == 0, out.stderr
        assert "good.md" in out.stdout and "caf\\\\xE9.md" in out.stdout
    out = knit("rank", "--workspace", str(mixed), "--query", "capybara", "--now", str(now_ms))
    assert out.returncode == 0 and "caf\\xE9.md" in out.stdout
    answer = KnitDocs(str(mixed), None).call("capybara", now_ms=now_ms).structured
    rels = [item["rel"] for group in ("primary", "supporting", "related") for item in answer[group]]
    assert "good.md" in rels and "loop.pdf" not in rels
    # The preview reports the damage instead of raising.
    ws = Workspace.open(str(mixed))
    assert ws.preview("loop.pdf").problem


def test_a_megabyte_of_brackets_is_indexed_and_links_after_it_still_count(make_workspace, now_ms):
    flood = "[" * (1 << 20) + "\n" + "](" * (1 << 19) + "\n" + "![" * (1 << 19) + "\nsee [the plan](plan.md)\n"
    root = make_workspace({"flood.md": "# Flood\n\n" + flood, "plan.md": "# Plan\n\nmarmot\n"})
    refs = extract_refs(flood)
    assert [r.raw for r in refs] == ["plan.md"]
    out = knit("context", "--workspace", str(root), "--query", "marmot", "--json", "--now", str(now_ms))
    assert out.returncode == 0, out.stderr
    pack = json.loads(out.stdout)
    assert pack["primary"][0]["rel"] == "plan.md"


def test_a_memory_tag_comment_followed_by_spaces_parses(tmp_path):
    text = "# Prefs\n<!-- tags:" + " " * 200_000 + "\n\n## Tools\n<!-- tags: lint, ci -->" + " " * 200_000 + "\n- use ruff\n"
    library = parse_library(str(tmp_path / "prefs.md"), text)
    assert library.tags == []  # an unclosed comment is not a tag line
    tools = next(c for c in library.chapters if c.title == "Tools")  # the preamble is a chapter of its own
    assert tools.tags == ["lint", "ci"] and tools.entries[0].text == "- use ruff"
    table = "## T\n|" + " " * 200_000 + "x\n| a | b |\n| --- | :-: |\n| 1 | 2 |\n"
    chapter = parse_library(str(tmp_path / "t.md"), table).chapters[0]
    assert [e.text for e in chapter.entries if e.style == "table"][-1] == "| 1 | 2 |"


@pytest.mark.parametrize(
    ("name", "data", "note", "query"),
    [
        ("bom16.txt", b"\xff\xfe" + "capybara in UTF-16\n".encode("utf-16-le"), "decoded as UTF-16", "capybara"),
        ("bom16be.md", b"\xfe\xff" + "# Big end\n\ncapybara\n".encode("utf-16-be"), "decoded as UTF-16", "capybara"),
        ("bom32.txt", b"\xff\xfe\x00\x00" + "capybara in UTF-32\n".encode("utf-32-le"), "decoded as UTF-32",
         "capybara"),
        ("gb.md", "# 水豚笔记\n\n水豚是世界上最大的啮齿动物，喜欢在河边吃草。\n".encode("gb18030"), "decoded as GB18030",
         "水豚"),
        ("latin.txt", "Müller's café: résumé of the capybara façade\n".encode("latin-1"), "decoded as Latin-1",
         "façade"),
        ("utf8bom.md", b"\xef\xbb\xbf# Plain\n\ncapybara\n", "", "capybara"),
    ],
)
def test_legacy_encodings_are_decoded_and_say_so(make_workspace, name, data, note, query, now_ms):
    root = make_workspace({name: data})
    ws = Workspace.open(str(root))
    status = ws.statuses[name]
    assert (status.state, status.reason) == ("indexed", note)
    ranked = ws.rank(RankInput.from_query(query), now_ms=now_ms).ranked
    assert [r.doc.rel for r in ranked] == [name]
    assert "\x00" not in ws.index.get(name).body and "\ufffd" not in ws.index.get(name).body
    if name == "gb.md":
        assert ws.index.get(name).title == "水豚笔记"


def test_random_bytes_are_still_binary(make_workspace):
    noise = bytes((i * 7919 + 13) % 251 + 1 for i in range(20000))  # no NUL, every byte value
    controls = b"\xff\xfe" + ("\x01\x02\x03\x04\x05\x06" * 200).encode("utf-16-le")
    root = make_workspace({"noise.txt": noise, "utf16-no-text.txt": controls})
    ws = Workspace.open(str(root))
    assert ws.statuses["noise.txt"].state == "skipped"
    assert ws.statuses["utf16-no-text.txt"].state == "skipped"


def test_control_characters_are_escaped_in_human_output_only(make_workspace, now_ms):
    root = make_workspace({"evil\x1b[2J.md": "# Evil \x1b]0;pwned\x07 title\x9b\n\ncapybara \x1b[31mred\n"})
    out = knit("rank", "--workspace", str(root), "--query", "capybara", "--now", str(now_ms))
    assert out.returncode == 0, out.stderr
    assert "\x1b" not in out.stdout and "\x07" not in out.stdout and "\x9b" not in out.stdout
    assert "Evil \\x1b]0;pwned\\x07 title\\x9b" in out.stdout and "evil\\x1b[2J.md" in out.stdout
    out = knit("context", "--workspace", str(root), "--query", "capybara", "--now", str(now_ms))
    assert out.returncode == 0 and "\x1b" not in out.stdout and "\\x1b" in out.stdout
    out = knit("rank", "--workspace", str(root), "--query", "capybara", "--json", "--now", str(now_ms))
    assert json.loads(out.stdout)["results"][0]["title"] == "Evil \x1b]0;pwned\x07 title\x9b"  # JSON: exact


def test_malformed_input_is_one_line_and_exit_2(make_workspace, tmp_path):
    root = make_workspace({"a.md": "# A\n\ntext"})
    deep = tmp_path / "deep.json"
    deep.write_text("[" * 200_000 + "]" * 200_000)
    digits = tmp_path / "digits.json"
    digits.write_text('[{"role": "user", "text": "x", "n": ' + "9" * 100_000 + "}]")
    not_a_dir = tmp_path / "a-file"
    not_a_dir.write_text("")
    cases = [
        (["rank", "--workspace", str(root), "--messages", str(deep)], None, None),
        (["rank", "--workspace", str(root), "--messages", "-"], None, "[" * 200_000),
        (["context", "--workspace", str(root), "--messages", str(digits)], None, None),
        (["rank", "--workspace", str(root), "--query", "x", "--now", "9" * 100_000], None, None),
        (["rank", "--workspace", str(root), "--query", "x", "--limit", "9" * 100_000], None, None),
        # A data directory that cannot be created (its parent is a file): root cannot be stopped by permissions.
        (["index", "--workspace", str(root)], {"KNIT_DESKTOP_HOME": str(not_a_dir / "home")}, None),
    ]
    for args, env, stdin in cases:
        out = knit(*args, env=env, stdin=stdin)
        assert out.returncode == 2, (args[:3], out.stderr[-500:])
        assert out.stdout == "" and "Traceback" not in out.stderr, (args[:3], out.stderr[-500:])
        lines = out.stderr.strip().splitlines()
        assert len(lines) == 1 and lines[0].startswith("knit-desktop: error: ") and len(lines[0]) < 1100


def _peak_rss_mb(args: list[str], env: dict) -> tuple[subprocess.CompletedProcess, float]:
    """Run the command in a fresh child and return its peak RSS (ru_maxrss of that child alone)."""
    code = (
        "import resource, subprocess, sys, json\n"
        "p = subprocess.run(sys.argv[1:], capture_output=True, text=True)\n"
        "peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss\n"
        "print(json.dumps({'rc': p.returncode, 'out': p.stdout, 'err': p.stderr, 'kb': peak}))\n"
    )
    full_env = dict(os.environ, PYTHONPATH=str(ROOT), **env)
    run = subprocess.run([sys.executable, "-c", code, sys.executable, "-m", "knit_desktop", *args],
                         capture_output=True, text=True, timeout=300, env=full_env, cwd=str(ROOT))
    result = json.loads(run.stdout)
    done = subprocess.CompletedProcess(args, result["rc"], result["out"], result["err"])
    return done, result["kb"] / 1024


@pytest.mark.skipif(sys.platform != "linux", reason="sparse files and ru_maxrss in KB")
def test_gigabyte_files_cost_no_more_than_their_cap(make_workspace, tmp_path):
    root = make_workspace({"ok.md": "# Ok\n\ncapybara\n"})
    for name in ("sparse.txt", "sparse.md", "sparse.pdf"):
        with open(root / name, "wb") as handle:
            handle.truncate(1 << 30)
    with open(root / "head.txt", "wb") as handle:  # text first, then a gigabyte of nothing
        handle.write(b"capybara herd notes\n" * 1000)
        handle.truncate(1 << 30)
    out, peak = _peak_rss_mb(["index", "--workspace", str(root), "--json"], {"KNIT_DESKTOP_HOME": str(tmp_path / "h")})
    assert out.returncode == 0, out.stderr
    files = {f["rel"]: (f["state"], f["reason"]) for f in json.loads(out.stdout)["files"]}
    assert files["ok.md"] == ("indexed", "")
    assert files["head.txt"] == ("indexed", "indexed the first 2 MB (file is larger)")
    assert files["sparse.txt"][0] == "skipped" and files["sparse.md"][0] == "skipped"
    assert files["sparse.pdf"][0] == "failed"
    assert peak < 512, peak


def test_a_pdf_over_the_page_budget_is_indexed_up_to_it(tmp_path, monkeypatch):
    monkeypatch.setattr("knit_desktop.core.index.pdf.MAX_PDF_PAGES", 3)
    path = make_pdf(tmp_path / "long.pdf", [f"page {i} capybara" for i in range(1, 6)])
    doc = documents.extract_document(str(path), "long.pdf", "pdf", 0, path.stat().st_size)
    assert doc.page_starts and len(doc.page_starts) == 3 and "page 3" in doc.body and "page 4" not in doc.body
    assert doc.status_note == "indexed the first 3 of 5 pages"


def test_a_pdf_over_the_read_cap_is_read_up_to_it(tmp_path, monkeypatch):
    path = make_pdf(tmp_path / "big.pdf", ["first page capybara", "second page"])
    data = path.read_bytes()
    monkeypatch.setattr(documents, "PDF_READ_CAP", len(data))
    with open(path, "ab") as handle:
        handle.write(b"\n%" + b"x" * 5000 + b"\n")  # junk after the end: beyond the cap
    doc = documents.extract_document(str(path), "big.pdf", "pdf", 0, path.stat().st_size, root=str(tmp_path))
    assert "capybara" in doc.body and "read the first" in doc.status_note


@pytest.mark.skipif(sys.platform != "linux", reason="setpriv drops root's permission override")
def test_a_read_only_data_directory_is_one_line_and_rank_still_answers(make_workspace, tmp_path, now_ms):
    import shutil

    root = make_workspace({"a.md": "# A\n\ncapybara"})
    home = tmp_path / "ro-home"
    home.mkdir()
    home.chmod(0o555)
    for path in (tmp_path, root.parent, root):
        path.chmod(0o755)
    (root / "a.md").chmod(0o644)
    # Root ignores permission bits; without these two capabilities the bits apply to it as to anyone.
    drop = ["setpriv", "--bounding-set=-dac_override,-dac_read_search"] if os.geteuid() == 0 else []
    if drop and not shutil.which("setpriv"):
        pytest.skip("setpriv is not installed")
    env = dict(os.environ, PYTHONPATH=str(ROOT), KNIT_DESKTOP_HOME=str(home))
    base = [*drop, sys.executable, "-m", "knit_desktop"]
    out = subprocess.run([*base, "index", "--workspace", str(root)], capture_output=True, text=True, env=env,
                         timeout=120, cwd=str(tmp_path))
    assert out.returncode == 2 and out.stdout == "" and "Traceback" not in out.stderr, out.stderr
    assert len(out.stderr.strip().splitlines()) == 1 and "Permission denied" in out.stderr
    out = subprocess.run([*base, "rank", "--workspace", str(root), "--query", "capybara", "--json", "--now",
                          str(now_ms)], capture_output=True, text=True, env=env, timeout=120, cwd=str(tmp_path))
    assert out.returncode == 0, out.stderr
    assert json.loads(out.stdout)["results"][0]["rel"] == "a.md"


def test_damaged_files_of_every_library_format_fail_alone_with_a_reason(make_workspace, now_ms, tmp_path):
    """Truncated, empty, random and bomb files named .html/.docx/.epub/.xps/.fb2/.mobi/.cbz: each gets its own
    status, the process survives (PyMuPDF runs in it), and the good file still ranks; `ask` answers from it."""
    import zipfile

    from ..library_fixtures import make_epub

    root = make_workspace({"good.md": "# Good\n\nThe capybara grazes by the river.\n"})
    book = make_epub(tmp_path / "book.epub", "Book", [("One", "capybara chapter")]).read_bytes()
    (root / "half.epub").write_bytes(book[: len(book) // 2])
    (root / "empty.docx").write_bytes(b"")
    (root / "noise.xps").write_bytes(os.urandom(4096))
    (root / "noise.fb2").write_bytes(bytes(range(256)) * 16)
    (root / "noise.mobi").write_bytes(b"BOOKMOBI" + os.urandom(4096))
    (root / "noise.cbz").write_bytes(b"PK\x05\x06" + bytes(18))
    (root / "tags.html").write_text("<" * 100_000 + "<!--" * 10_000)
    with zipfile.ZipFile(root / "bomb.docx", "w", zipfile.ZIP_DEFLATED) as z:
        z.writestr("word/document.xml", "<a>" + "x" * 60_000_000 + "</a>")
    out = knit("index", "--workspace", str(root), "--json")
    assert out.returncode == 0, out.stderr
    files = {f["rel"]: f for f in json.loads(out.stdout)["files"]}
    assert files["good.md"]["state"] == "indexed"
    for rel in ("half.epub", "empty.docx", "noise.xps", "noise.fb2", "noise.mobi", "noise.cbz", "bomb.docx"):
        assert files[rel]["state"] in ("failed", "skipped") and files[rel]["reason"], files[rel]
    assert "MB" in files["bomb.docx"]["reason"]
    out = knit("ask", "capybara", "--workspace", str(root), "--scope", "workspace", "--json")
    assert out.returncode == 0, out.stderr
    assert [p["rel"] for p in json.loads(out.stdout)["passages"]] == ["good.md"]
