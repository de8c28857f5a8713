"""Bad input never stops indexing: each file gets the right status and the rest of the workspace is indexed."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

from knit_desktop.core.workspace import RankInput, Workspace

from .media_fixtures import two_page_pdf


def test_pdf_passage_cites_its_page_through_the_context_command(make_workspace, now_ms):
    root = make_workspace({"notes.md": "# Notes\n\nunrelated"})
    two_page_pdf(root / "report.pdf")
    out = subprocess.run(
        [sys.executable, "-m", "knit_desktop", "context", "--workspace", str(root), "--query", "capybara habitat",
         "--now", str(now_ms), "--json"],
        capture_output=True, text=True, timeout=60,
    )
    pack = json.loads(out.stdout)
    item = (pack["primary"] + pack["supporting"] + pack["related"])[0]
    assert item["rel"] == "report.pdf" and item["kind"] == "pdf"
    match = item["matches"][0]
    assert match["page"] == 2 and match["start_line"] == 1 and "capybara" in match["snippet"]


def test_damaged_files_get_statuses_and_the_rest_is_indexed(make_workspace):
    root = make_workspace({"good.md": "# Good\n\nfine", "fake.md": b"\x7fELF\x02\x01\x01" + bytes(range(256)) * 8})
    two_page_pdf(root / "whole.pdf")
    data = (root / "whole.pdf").read_bytes()
    (root / "truncated.pdf").write_bytes(data[: len(data) // 3])
    with open(root / "huge.txt", "wb") as handle:
        handle.write(b"first line of a huge log\n")
        handle.write(b"0123456789abcdef\n" * (50 * 1024 * 1024 // 17))
    os.symlink(root, root / "loop")
    ws = Workspace.open_persistent(str(root))
    states = {rel: (s.state, s.reason) for rel, s in ws.statuses.items()}
    assert states["good.md"] == ("indexed", "")
    assert states["whole.pdf"] == ("indexed", "")
    assert states["fake.md"] == ("skipped", "binary content in a text file")
    assert states["huge.txt"] == ("indexed", "indexed the first 2 MB (file is larger)")
    assert states["truncated.pdf"][0] in ("failed", "skipped"), states["truncated.pdf"]
    assert states["truncated.pdf"][1]
    assert ws.rank(RankInput.from_query("capybara"), now_ms=0).ranked[0].doc.rel == "whole.pdf"


def test_a_directory_without_read_permission_is_reported_and_skipped():
    base = Path(tempfile.mkdtemp(prefix="knit-perm-"))
    try:
        base.chmod(0o755)
        root = base / "ws"
        (root / "secret").mkdir(parents=True)
        (root / "open.md").write_text("# Open\n\nreadable", encoding="utf-8")
        (root / "secret" / "hidden.md").write_text("# Hidden", encoding="utf-8")
        home = base / "home"
        home.mkdir()
        for path in (root, root / "open.md", home):
            path.chmod(0o777 if path == home else 0o755 if path.is_dir() else 0o644)
        (root / "secret").chmod(0o000)
        code = (
            "import json, sys\n"
            "from knit_desktop.core.workspace import Workspace\n"
            "ws = Workspace.open_persistent(sys.argv[1])\n"
            "print(json.dumps({r: [s.state, s.reason] for r, s in ws.statuses.items()}))\n"
        )
        env = dict(os.environ, KNIT_DESKTOP_HOME=str(home), PYTHONPATH=str(Path(__file__).resolve().parents[1]))
        # Root ignores permission bits; without these two capabilities the bits apply to it as to anyone.
        drop = ["setpriv", "--bounding-set=-dac_override,-dac_read_search"] if os.geteuid() == 0 else []
        out = subprocess.run(
            [*drop, sys.executable, "-c", code, str(root)], capture_output=True, text=True, env=env, timeout=60,
            cwd=str(base),
        )
        assert out.returncode == 0, out.stderr
        statuses = json.loads(out.stdout)
        assert statuses["open.md"] == ["indexed", ""]
        assert statuses["secret"][0] == "failed" and "Permission denied" in statuses["secret"][1]
        assert "secret/hidden.md" not in statuses
    finally:
        (base / "ws" / "secret").chmod(0o755)
        subprocess.run(["rm", "-rf", str(base)], check=False)
