import json
import subprocess
import sys

import pytest

from knit_desktop import __version__

from .dsh_fixtures import DshLog

DAY = 86_400_000


def run(*args, stdin=None):
    return subprocess.run(
        [sys.executable, "-m", "knit_desktop", *args], capture_output=True, text=True, input=stdin, timeout=60
    )


@pytest.fixture
def ws(make_workspace, now_ms):
    return make_workspace(
        {
            "docs/cache.md": ("# Attachment cache\n\nEviction rules for the attachment cache.\n", now_ms - DAY),
            "docs/sync.md": ("# Sync\n\nVector clocks; attachments follow `docs/cache.md`.\n", now_ms - 2 * DAY),
            "notes/todo.txt": ("Todo list\ncheck cache size\n", now_ms - 3 * DAY),
            "shots/cache-graph.png": (b"\x89PNG\r\n\x1a\n", now_ms - 4 * DAY),
        }
    )


def test_version():
    out = run("--version")
    assert out.returncode == 0 and out.stdout.strip() == f"knit-desktop {__version__}"


def test_the_command_line_loads_no_engine_before_a_command_runs():
    """What every command pays before its own work (and before `rank`'s walk ahead starts): not the engine, not
    the tokeniser and its patterns, not NumPy, not Qt."""
    code = ("import sys, knit_desktop.cli; "
            "print(sorted(m for m in sys.modules if m.startswith(('knit_desktop.core.text', 'knit_desktop.core.rank', "
            "'numpy', 'PySide6'))))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert out.stdout.strip() == "[]", out.stderr


def test_a_cold_rank_loads_only_what_ranking_uses(ws, now_ms):
    """A `rank` of an English query on a built index, in a fresh process: the context pack's modules (`context`
    loads them), the file-preparing module (no file is re-read), the typo layer (every word matched), the
    conversation reader (a query is no conversation), the JSON module (text output, no pins) and the tokeniser's
    CJK patterns are not loaded."""
    assert run("index", "--workspace", str(ws)).returncode == 0
    deferred = ("knit_desktop.core.rank.context_pack", "knit_desktop.core.rank.passages",
                "knit_desktop.core.rank.roles", "knit_desktop.core.index.preparing", "knit_desktop.core.rank.fuzzy",
                "knit_desktop.core.dsh.conversation", "json")
    code = ("import sys; from knit_desktop.cli import main; "
            f"status = main(['rank', '--workspace', {str(ws)!r}, '--query', 'attachment cache', '--now', '{now_ms}']); "
            "from knit_desktop.core.text import tokens; "
            f"print(status, [m for m in {deferred!r} if m in sys.modules], "
            "[f.cache_info().currsize for f in (tokens.cjk_run, tokens.cjk_pair, tokens.cjk_triple)])")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    assert "docs/cache.md" in out.stdout  # it ranked
    assert out.stdout.strip().splitlines()[-1] == "0 [] [0, 0, 0]"


def test_rank_json_shape_and_order(ws, now_ms):
    out = run("rank", "--workspace", str(ws), "--query", "attachment cache", "--now", str(now_ms), "--json")
    assert out.returncode == 0, out.stderr
    data = json.loads(out.stdout)
    assert set(data) == {"mode", "topic", "keywords", "total", "results"}
    assert data["mode"] == "relevance" and data["total"] == 3
    assert [r["rel"] for r in data["results"]] == ["docs/cache.md", "docs/sync.md", "notes/todo.txt"]
    first = data["results"][0]
    assert set(first) == {"rel", "kind", "title", "summary", "mtime_ms", "matched"}
    assert first["kind"] == "md" and first["title"] == "Attachment cache" and first["mtime_ms"] == now_ms - DAY
    assert first["matched"] == ["attachment", "cache"]
    assert "score" not in out.stdout


def test_rank_kinds_sort_and_limit(ws, now_ms):
    base = ["rank", "--workspace", str(ws), "--now", str(now_ms), "--json", "--query", "cache"]
    media = json.loads(run(*base, "--kind", "media").stdout)
    assert [r["rel"] for r in media["results"]] == ["shots/cache-graph.png"]
    assert media["results"][0]["kind"] == "image"
    everything = json.loads(run(*base, "--kind", "all").stdout)
    assert everything["total"] == 4
    by_time = json.loads(run(*base, "--sort", "time", "--limit", "2").stdout)
    assert by_time["mode"] == "time" and [r["rel"] for r in by_time["results"]] == ["docs/cache.md", "docs/sync.md"]
    assert by_time["total"] == 3


def test_rank_from_messages_file_and_stdin(ws, tmp_path, now_ms):
    messages = [
        {"role": "user", "text": "Tell me about vector clocks"},
        {"role": "user", "text": "AGENTS.md: cache cache cache", "synthetic": True},
        {"role": "assistant", "text": "Vector clocks order concurrent edits."},
    ]
    path = tmp_path / "m.json"
    path.write_text(json.dumps(messages), encoding="utf-8")
    args = ["rank", "--workspace", str(ws), "--now", str(now_ms), "--json"]
    from_file = json.loads(run(*args, "--messages", str(path)).stdout)
    from_stdin = json.loads(run(*args, "--messages", "-", stdin=json.dumps(messages)).stdout)
    assert from_file == from_stdin
    assert from_file["results"][0]["rel"] == "docs/sync.md"
    assert "cache" not in from_file["keywords"]


def test_rank_human_output(ws, now_ms):
    out = run("rank", "--workspace", str(ws), "--query", "cache", "--now", str(now_ms))
    assert out.returncode == 0
    lines = out.stdout.splitlines()
    assert lines[0].startswith("Sorted by relevance")
    assert "1. docs/cache.md — Attachment cache" in out.stdout


def test_context_json_shape(ws, now_ms):
    out = run("context", "--workspace", str(ws), "--query", "attachment cache eviction", "--now", str(now_ms), "--json")
    assert out.returncode == 0, out.stderr
    data = json.loads(out.stdout)
    assert {"mode", "topic", "total", "primary", "supporting", "related", "totals"} <= set(data)
    primary = data["primary"][0]
    assert primary["rel"] == "docs/cache.md"
    assert {"rel", "title", "summary", "mtime_ms", "kind", "source", "reason", "provenance"} <= set(primary)
    assert set(primary["reason"]) == {"code", "terms", "fields", "term"}
    match = primary["matches"][0]
    assert match["start_line"] == 1 and match["end_line"] >= 3
    assert "/" + str(ws).strip("/") not in out.stdout  # no absolute paths


def test_context_human_output(ws, now_ms):
    out = run("context", "--workspace", str(ws), "--query", "attachment cache", "--now", str(now_ms))
    assert "Primary (read these first):" in out.stdout
    assert "Why: direct topic match in the title (attachment, cache)" in out.stdout
    assert "match: lines 1–3" in out.stdout


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ("not json", "not valid JSON"),
        ('{"role": "user"}', "expected a JSON array"),
        ('[{"role": "bot", "text": "x"}]', "\"role\" must be"),
        ('[{"role": "user", "text": 3}]', "\"text\" must be a string"),
    ],
)
def test_bad_messages_exit_2_with_one_line(ws, tmp_path, content, message):
    path = tmp_path / "bad.json"
    path.write_text(content, encoding="utf-8")
    out = run("rank", "--workspace", str(ws), "--messages", str(path))
    assert out.returncode == 2 and out.stdout == ""
    assert len(out.stderr.strip().splitlines()) == 1 and message in out.stderr


def test_unreadable_messages_file_and_bad_arguments_exit_2(ws, tmp_path):
    for args in (
        ["rank", "--workspace", str(ws), "--messages", str(tmp_path / "missing.json")],
        ["rank", "--workspace", str(ws), "--limit", "0"],
        ["rank", "--workspace", str(ws), "--kind", "code"],
        ["rank", "--workspace", str(ws), "--now", "yesterday"],
        ["rank", "--query", "x"],
        ["context", "--workspace", str(ws), "--query", "a", "--messages", "b"],
    ):
        out = run(*args)
        assert out.returncode == 2, args
        assert out.stdout == "" and len(out.stderr.strip().splitlines()) == 1, args


def test_missing_workspace_exits_3(tmp_path):
    out = run("rank", "--workspace", str(tmp_path / "nope"), "--query", "x")
    assert out.returncode == 3 and out.stdout == "" and "workspace not found" in out.stderr


def test_index_reports_per_file_status(make_workspace):
    root = make_workspace({"a.md": "# A", "b.md": b"\x00binary\x00" * 50})
    out = run("index", "--workspace", str(root), "--json")
    data = json.loads(out.stdout)
    assert data["counts"] == {"indexed": 1, "skipped": 1, "failed": 0}
    assert {"rel": "b.md", "state": "skipped", "reason": "binary content in a text file"} in data["files"]
    human = run("index", "--workspace", str(root))
    assert "1 indexed, 1 skipped, 0 failed" in human.stdout and "b.md: binary" in human.stdout


def test_demo_window_renders_a_screenshot_once_the_first_list_is_shown(tmp_path):
    shot = tmp_path / "shots" / "window.png"
    out = run("--demo", "--screenshot", str(shot))  # QT_QPA_PLATFORM=offscreen comes from conftest
    assert out.returncode == 0, out.stderr
    from PySide6.QtGui import QImage

    image = QImage(str(shot))
    assert not image.isNull() and image.width() >= 400 and image.height() >= 600


def test_gui_with_a_missing_workspace_says_so():
    out = run("gui", "--workspace", "/nonexistent/folder")
    assert out.returncode == 3 and "/nonexistent/folder" in out.stderr


def test_peek_prints_the_top_five_for_the_active_session(tmp_path, make_workspace, now_ms):
    files = {f"docs/note-{i}.md": (f"# Note {i}\n\nsomething about topic {i}\n", now_ms - i * DAY) for i in range(7)}
    files["docs/cache.md"] = ("# Attachment cache\n\nEviction rules for the attachment cache.\n", now_ms - 30 * DAY)
    ws = make_workspace(files)
    home = tmp_path / "dsh"
    log = DshLog(home, "s1", str(ws))
    log.append_rows([log.user("how does the attachment cache evict?")])

    out = run("peek", "--dsh-home", str(home), "--now", str(now_ms))
    assert out.returncode == 0, out.stderr
    lines = out.stdout.splitlines()
    assert len(lines) == 5
    assert lines[0] == "1. Attachment cache — docs/cache.md  (4/28)"  # older than a week: the date, as the reference
    rows = json.loads(run("peek", "--dsh-home", str(home), "--now", str(now_ms), "--json").stdout)
    assert [r["rel"] for r in rows][:2] == ["docs/cache.md", "docs/note-0.md"] and len(rows) == 5

    nobody = run("peek", "--dsh-home", str(tmp_path / "empty"))
    assert nobody.returncode == 2 and "no active DSH session" in nobody.stderr


def test_index_builds_a_persistent_index_that_rank_then_uses(ws, now_ms):
    first = run("index", "--workspace", str(ws))
    assert first.returncode == 0 and "3 new" not in first.stdout and "4 new" in first.stdout
    assert first.stderr == ""  # no progress bar when stderr is not a terminal
    second = run("index", "--workspace", str(ws))
    assert "0 new, 0 changed, 0 touched, 0 removed, 4 unchanged" in second.stdout
    (ws / "docs" / "cache.md").write_text("# Renamed topic\n\nnothing about it now\n", encoding="utf-8")
    ranked = json.loads(run("rank", "--workspace", str(ws), "--query", "attachment cache", "--now", str(now_ms), "--json").stdout)
    assert ranked["results"][0]["rel"] == "docs/sync.md"  # the edit was picked up through the saved index
    third = run("index", "--workspace", str(ws))
    assert "0 changed" in third.stdout  # rank already recorded the edit


def test_rank_without_a_window_sees_files_added_changed_and_removed_since_the_index(ws, now_ms):
    """`rank` walks the workspace in a second process while it loads the engine; what that walk found is what the
    answer reflects, and the index records it (the next `index` finds nothing to do)."""
    assert run("index", "--workspace", str(ws)).returncode == 0
    (ws / "docs" / "sync.md").unlink()
    (ws / "docs" / "eviction.md").write_text("# Eviction\n\nThe attachment cache evicts by size.\n", encoding="utf-8")
    (ws / "notes" / "todo.txt").write_text("Todo list\nnothing left\n", encoding="utf-8")
    (ws / "notes" / "raw.md").write_bytes(b"\x00\x01" * 40)  # skipped: binary content
    out = run("rank", "--workspace", str(ws), "--query", "attachment cache size", "--now", str(now_ms), "--json")
    assert out.returncode == 0, out.stderr
    results = json.loads(out.stdout)["results"]
    assert sorted(r["rel"] for r in results if r["matched"]) == ["docs/cache.md", "docs/eviction.md"]
    assert "docs/sync.md" not in [r["rel"] for r in results]
    again = run("index", "--workspace", str(ws))
    assert "0 new, 0 changed, 0 touched, 0 removed" in again.stdout and "skipped" in again.stdout


def test_selftest_reads_the_demo_video_renders_a_pdf_and_loads_both_languages():
    out = run("selftest")
    assert out.returncode == 0, out.stdout + out.stderr[-2000:]
    report = json.loads(out.stdout)
    assert report["ok"] and report["video"]["duration_ms"] == 4000 and report["video"]["first_frame"]
    assert report["pdf"]["pages"] == 2 and report["languages"]["zh_CN"]["sample"] == "相关"


def test_propose_queues_once_and_memory_searches_and_shows_the_structure(tmp_path):
    memory = tmp_path / "memory"
    memory.mkdir()
    (memory / "work.md").write_text("# 工作日志\n\n## 周报模板\n<!-- 标签: 周报 -->\n- 本周完成 / 下周计划\n",
                                    encoding="utf-8")
    first = run("propose", "周报周五下午发", "--target", "work.md", "--chapter", "周报模板", "--memory-dir", str(memory))
    assert first.returncode == 0 and first.stdout.startswith("Queued for confirmation → work.md › 周报模板")
    second = run("propose", "周报周五下午发", "--target", "work.md", "--chapter", "周报模板", "--memory-dir", str(memory))
    assert second.stdout.startswith("Already waiting")
    assert run("propose", "   ", "--memory-dir", str(memory)).returncode == 2
    found = run("memory", "周报怎么写", "--memory-dir", str(memory))
    assert found.stdout.startswith("work.md:5-5  工作日志 › 周报模板 — - 本周完成")
    structure = json.loads(run("memory", "--json", "--memory-dir", str(memory)).stdout)
    assert structure[0]["chapters"][0] == {"title": "周报模板", "lines": [3, 5], "tokens": structure[0]["chapters"][0]["tokens"],
                                           "entries": 1, "tags": ["周报"]}


def test_the_window_opens_a_folder_or_a_files_folder_given_as_its_argument(ws, monkeypatch):
    """What the desktop entry (`Exec=knit-desktop %f`) and a file manager's "Open with" pass."""
    from knit_desktop.cli import main
    from knit_desktop.ui import app

    opened: list[str] = []
    monkeypatch.setattr(app, "run", lambda **kw: opened.append(kw["workspace"]) or 0)
    assert main([str(ws)]) == 0
    assert main([str(ws / "docs" / "cache.md")]) == 0
    assert main(["gui", str(ws / "notes")]) == 0
    assert opened == [str(ws), str(ws / "docs"), str(ws / "notes")]
    assert main([str(ws / "missing")]) == 3
    assert main([str(ws), "--workspace", str(ws)]) == 2
    assert main(["/"]) == 2  # the same refusal as --workspace /
    assert len(opened) == 3


def test_the_window_given_a_folder_renders_it(ws, tmp_path):
    shot = tmp_path / "folder.png"
    out = run(str(ws / "docs" / "cache.md"), "--screenshot", str(shot))
    assert out.returncode == 0, out.stderr
    assert shot.stat().st_size > 0


def test_a_reader_that_goes_away_early_gets_no_error_line(make_workspace, now_ms):
    """`knit-desktop rank … | head`: the reader has what it wanted; no error line, the status of a SIGPIPE."""
    ws = make_workspace({f"notes/cache-{i}.md": (f"# Cache note {i}\n\ncache eviction detail {i} " + "word " * 40,
                                                 now_ms - i * DAY) for i in range(1500)})
    command = [sys.executable, "-m", "knit_desktop", "rank", "--workspace", str(ws), "--query", "cache eviction",
               "--limit", "1500"]
    with subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE) as process:
        assert process.stdout is not None and process.stderr is not None
        assert process.stdout.read(100)  # the first lines, then the reader goes away
        process.stdout.close()
        errors = process.stderr.read()
        status = process.wait(timeout=60)
    assert errors == b"" and status == 141


def test_a_broken_pipe_of_the_command_itself_is_reported_while_its_reader_is_there(tmp_path):
    """Only a reader of the output that went away ends quietly: a pipe of the command's own that breaks is a
    failure, said in one line."""
    code = ("import sys\nfrom knit_desktop import cli\n"
            "def rank(args):\n    raise BrokenPipeError(32, 'Broken pipe')\n"
            "cli.COMMANDS['rank'] = rank\n"
            f"sys.exit(cli.main(['rank', '--workspace', {str(tmp_path)!r}, '--query', 'x']))\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert out.returncode == 2 and "Broken pipe" in out.stderr


def _grammar(parser) -> dict:
    """Every command's options as (flags or name, destination, default, choices, nargs, required)."""
    import argparse

    [commands] = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
    return {name: sorted((tuple(a.option_strings) or (a.dest,), a.dest, repr(a.default), repr(a.choices), repr(a.nargs),
                          a.required) for a in sub._actions)
            for name, sub in commands.choices.items()}


def test_a_command_run_alone_gets_the_same_grammar_as_in_the_whole_command_line():
    from knit_desktop.cli import SUBCOMMANDS
    from knit_desktop.cli.parser import build_parser

    whole = _grammar(build_parser())
    assert set(whole) == set(SUBCOMMANDS)
    for command in SUBCOMMANDS:
        alone = _grammar(build_parser(command))
        assert alone == {command: whole[command]}, command
        # (more than -h, but for selftest which takes nothing: the grammar compared is not empty)
        assert len(whole[command]) > 1 or command == "selftest", command
