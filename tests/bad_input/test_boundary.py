"""Nothing outside the workspace is read: symlinks leading out are listed and never followed, and what they point at
never shows in any answer; folders too large or too sensitive to be a workspace are refused."""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from knit_desktop.core.agent.knit_docs import KnitDocs, ToolError
from knit_desktop.core.index.boundary import (
    OUTSIDE_REASON,
    UnsafeWorkspace,
    check_workspace,
    inside,
    read_inside,
    resolve_inside,
    unsafe_workspace_reason,
)
from knit_desktop.core.index.preview_content import PREVIEW_OUTSIDE
from knit_desktop.core.paths import index_db_path
from knit_desktop.core.workspace import RankInput, Workspace

from ..dsh_fixtures import DshLog

ROOT = Path(__file__).resolve().parents[2]
SECRET = "ZEBRA-SECRET-7731 password=hunter2"


def knit(*args: str, env: dict | None = None, cwd: str | None = None, stdin: str | None = None):
    full_env = dict(os.environ, PYTHONPATH=str(ROOT), **(env or {}))
    return subprocess.run([sys.executable, "-m", "knit_desktop", *args], capture_output=True, text=True,
                          timeout=120, env=full_env, cwd=cwd or str(ROOT), input=stdin)


@pytest.fixture
def leaky(tmp_path) -> Path:
    """A workspace whose symlinks point at a secret outside it (absolute, relative, /proc) and at a file inside."""
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.md").write_text(f"# Secret\n\n{SECRET} zebra\n", encoding="utf-8")
    root = tmp_path / "ws"
    (root / "docs").mkdir(parents=True)
    (root / "notes.md").write_text("# Notes\n\nzebra crossing plans\n", encoding="utf-8")
    os.symlink(outside / "secret.md", root / "absolute.md")
    os.symlink("../../outside/secret.md", root / "docs" / "relative.md")
    os.symlink("/proc/self/environ", root / "environ.txt")
    os.symlink("notes.md", root / "alias.md")  # inside: indexed
    return root


def test_links_leading_out_are_listed_as_skipped_and_never_read(leaky):
    ws = Workspace.open_persistent(str(leaky))
    states = {rel: (s.state, s.reason) for rel, s in ws.statuses.items()}
    assert states["absolute.md"] == ("skipped", OUTSIDE_REASON)
    assert states["docs/relative.md"] == ("skipped", OUTSIDE_REASON)
    assert states["environ.txt"] == ("skipped", OUTSIDE_REASON)
    assert states["notes.md"] == ("indexed", "")
    assert states["alias.md"] == ("indexed", "")
    ranked = [r.doc.rel for r in ws.rank(RankInput.from_query("zebra"), now_ms=0).ranked]
    assert sorted(ranked) == ["alias.md", "notes.md"]
    assert ws.preview("absolute.md").problem == PREVIEW_OUTSIDE and not ws.preview(
        "absolute.md").text
    assert ws.preview("../outside/secret.md").problem
    assert not any("Secret" in doc.title + doc.summary for _, doc in ws.index.documents())
    ws.close()
    # Nothing of the secret reached the index (a Markdown or text row keeps no title or summary: NULL).
    db = sqlite3.connect(str(index_db_path(str(leaky.resolve()))))
    rels = {row[0] for row in db.execute("SELECT rel FROM files WHERE state = 'indexed'")}
    titles = " ".join((row[0] or "") + (row[1] or "") for row in db.execute("SELECT title, summary FROM files"))
    db.close()
    assert rels == {"alias.md", "notes.md"} and "Secret" not in titles


def test_the_secret_never_appears_in_rank_context_or_knit_docs(leaky, now_ms):
    for command in ("rank", "context"):
        out = knit(command, "--workspace", str(leaky), "--query", "zebra secret password hunter2", "--json",
                   "--now", str(now_ms))
        assert out.returncode == 0, out.stderr
        assert "ZEBRA-SECRET" not in out.stdout and "hunter2" not in out.stdout
        assert "notes.md" in out.stdout
    answer = KnitDocs(str(leaky), None).call("zebra secret hunter2", now_ms=now_ms)
    text = json.dumps(answer.structured) + answer.text
    assert "hunter2" not in text and "absolute.md" not in text and "notes.md" in text


def test_a_link_swapped_in_after_the_walk_is_not_read(tmp_path, monkeypatch):
    """The read re-checks the boundary: a file replaced by a link leading out between walk and read is refused."""
    root = tmp_path / "ws"
    root.mkdir()
    (root / "a.md").write_text("# A\n\nplain", encoding="utf-8")
    secret = tmp_path / "secret.md"
    secret.write_text(SECRET, encoding="utf-8")
    from knit_desktop.core.index import scan

    real_walk = scan.scan_workspace

    def walk_then_swap(*args, **kwargs):
        found = real_walk(*args, **kwargs)
        (root / "a.md").unlink()
        os.symlink(secret, root / "a.md")
        return found

    monkeypatch.setattr("knit_desktop.core.workspace.scan_workspace", walk_then_swap)
    ws = Workspace.open(str(root))
    assert ws.statuses["a.md"].state == "skipped" and ws.statuses["a.md"].reason == OUTSIDE_REASON
    assert "a.md" not in ws.index.by_rel


def test_boundary_helpers(tmp_path):
    root = tmp_path / "ws"
    (root / "sub").mkdir(parents=True)
    (root / "sub" / "x.md").write_text("x", encoding="utf-8")
    (tmp_path / "out.md").write_text("out", encoding="utf-8")
    real = str(root.resolve())
    assert inside(real, str(root / "sub" / "x.md")) and inside(real, real)
    assert not inside(real, str(root / ".." / "out.md")) and not inside(real, "/etc/passwd")
    assert not inside(real, real + "-sibling")
    assert resolve_inside(real, "sub/x.md") == os.path.join(real, "sub", "x.md")
    assert resolve_inside(real, "../out.md") is None and resolve_inside(real, "sub/../../out.md") is None
    assert resolve_inside(real, "/etc/passwd") in (None, os.path.join(real, "etc", "passwd"))  # never /etc/passwd
    big = root / "big.txt"
    with open(big, "wb") as handle:
        handle.truncate(1 << 30)  # 1 GB, sparse: only the asked-for bytes are read
    assert len(read_inside(real, str(big), 1000)) == 1000


@pytest.mark.parametrize("path", ["/", "/etc", "/usr", "/usr/lib", "/proc", "/proc/1", "/sys", "/dev", "/var",
                                  "/boot", "/bin", "/lib", "/opt", "/snap"])
def test_system_folders_are_not_workspaces(path):
    assert unsafe_workspace_reason(path) is not None
    with pytest.raises(UnsafeWorkspace, match="--allow-large-workspace"):
        check_workspace(path)
    check_workspace(path, allow_large=True)


def test_home_is_refused_but_a_project_in_it_is_not(tmp_path):
    home = tmp_path / "home"
    (home / "project").mkdir(parents=True)
    assert unsafe_workspace_reason(str(home), home=str(home)) == "your home folder"
    assert unsafe_workspace_reason(str(home / "project"), home=str(home)) is None
    assert unsafe_workspace_reason(str(tmp_path)) is None
    with pytest.raises(UnsafeWorkspace, match="not an absolute path"):
        check_workspace("../..", allow_large=True)


def test_root_is_refused_on_the_command_line_with_one_line(tmp_path):
    for args in (["index", "--workspace", "/"], ["rank", "--workspace", "/", "--query", "x"],
                 ["context", "--workspace", "/etc", "--query", "x"], ["mcp", "--workspace", "/usr", "--print-config",
                                                                      "json"]):
        out = knit(*args)
        assert out.returncode == 2, (args, out.stderr)
        assert out.stdout == ""
        lines = out.stderr.strip().splitlines()
        assert len(lines) == 1 and "--allow-large-workspace" in lines[0] and "Traceback" not in out.stderr
    home = tmp_path / "home"
    home.mkdir()
    out = knit("index", "--workspace", str(home), env={"HOME": str(home)})
    assert out.returncode == 2 and "home folder" in out.stderr
    # The flag is accepted by every command that takes --workspace (checked without indexing the machine).
    out = knit("mcp", "--workspace", "/usr", "--allow-large-workspace", "--print-config", "json")
    assert out.returncode == 0, out.stderr


def test_a_session_whose_cwd_is_root_is_refused(tmp_path, now_ms):
    home = tmp_path / "dsh"
    log = DshLog(home, "s-root", "/")
    log.append_rows([log.user("what is in the system?")])
    out = knit("rank", "--session", "auto", "--dsh-home", str(home), "--json")
    assert out.returncode == 2 and out.stdout == ""
    assert "refusing it as a workspace" in out.stderr and len(out.stderr.strip().splitlines()) == 1
    with pytest.raises(ToolError, match="refusing it as a workspace"):
        KnitDocs(None, str(home)).call("anything", now_ms=now_ms)
    home2 = tmp_path / "dsh2"
    DshLog(home2, "s-rel", "../..").append_rows([])
    out = knit("rank", "--session", "auto", "--dsh-home", str(home2), "--json")
    assert out.returncode == 2 and out.stdout == ""


def test_a_file_replaced_by_a_link_leading_out_is_dropped_and_listed_between_walks(tmp_path):
    root = tmp_path / "ws"
    root.mkdir()
    (root / "a.md").write_text("# A\n\nokapi notes", encoding="utf-8")
    secret = tmp_path / "secret.md"
    secret.write_text(f"# Secret\n\n{SECRET} okapi", encoding="utf-8")
    ws = Workspace.open_persistent(str(root))
    assert "a.md" in ws.index.by_rel
    (root / "a.md").unlink()
    os.symlink(secret, root / "a.md")
    ws.apply_changes(["a.md"])  # what the watcher reports
    assert "a.md" not in ws.index.by_rel
    assert (ws.statuses["a.md"].state, ws.statuses["a.md"].reason) == ("skipped", OUTSIDE_REASON)
    assert ws.apply_changes(["a.md"]).changes == 0  # reported again: nothing to do
    ws.refresh()  # and the next walk agrees
    assert (ws.statuses["a.md"].state, ws.statuses["a.md"].reason) == ("skipped", OUTSIDE_REASON)
    ws.close()
