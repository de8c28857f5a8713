import json
import os
import subprocess
import sys
import textwrap

import pytest

from knit_desktop.core.index import documents
from knit_desktop.core.index.scan import walk_workspace
from knit_desktop.core.workspace import Workspace


def rels(root):
    return sorted(c.rel for c in walk_workspace(str(root)))


def test_skipped_and_dot_directories_are_never_entered(make_workspace):
    root = make_workspace(
        {
            "a.md": "# A",
            "node_modules/x.md": "# x",
            ".obsidian/y.md": "# y",
            "build/z.md": "# z",
            "docs/ok.md": "# ok",
            "src/ignored.rs": "fn main(){}",
        }
    )
    assert rels(root) == ["a.md", "docs/ok.md"]


def test_depth_limit(make_workspace):
    deep = "/".join(f"d{i}" for i in range(1, 8))
    root = make_workspace({f"{'/'.join(f'd{i}' for i in range(1, 7))}/six.md": "#", f"{deep}/seven.md": "#"})
    assert rels(root) == ["d1/d2/d3/d4/d5/d6/six.md"]


def test_symlink_loop_does_not_trap_the_walk(make_workspace):
    root = make_workspace({"docs/a.md": "# A"})
    os.symlink(root, root / "docs" / "loop")
    os.symlink(root / "docs" / "a.md", root / "alias.md")
    assert rels(root) == ["alias.md", "docs/a.md"]


def test_a_directory_named_like_a_document_is_not_a_file(make_workspace):
    root = make_workspace({"a.md": "# A"})
    os.mkfifo(root / "pipe.md")
    statuses = []
    assert [c.rel for c in walk_workspace(str(root), statuses)] == ["a.md"]
    assert [(s.rel, s.state) for s in statuses] == [("pipe.md", "skipped")]


def test_every_file_gets_a_status_and_bad_files_do_not_stop_the_scan(make_workspace, monkeypatch):
    root = make_workspace(
        {
            "good.md": "# Good\n\nfine",
            "binary.md": b"\x00\x01\x02" * 100,
            "locked.md": "# Locked",
            "vanishing.md": "# Gone soon",
            "empty.txt": "",
        }
    )
    real_read = documents.read_indexed_bytes

    def flaky_read(path, kind, root=None):
        if path.endswith("locked.md"):
            raise PermissionError(13, "Permission denied", path)
        if path.endswith("vanishing.md"):
            os.remove(path)  # deleted between the scan and the read
        return real_read(path, kind, root)

    monkeypatch.setattr(documents, "read_indexed_bytes", flaky_read)
    ws = Workspace.open(str(root))
    states = {rel: (s.state, s.reason) for rel, s in ws.statuses.items()}
    assert states["good.md"] == ("indexed", "")
    assert states["empty.txt"] == ("indexed", "")
    assert states["binary.md"] == ("skipped", "binary content in a text file")
    assert states["locked.md"] == ("failed", "permission denied")
    assert states["vanishing.md"][0] == "failed" and "disappeared" in states["vanishing.md"][1]
    assert sorted(d.rel for _, d in ws.index.documents()) == ["empty.txt", "good.md"]
    assert ws.status_counts() == {"indexed": 2, "skipped": 1, "failed": 2}


def test_empty_workspace(make_workspace, now_ms):
    from knit_desktop.core.workspace import RankInput

    ws = Workspace.open(str(make_workspace({})))
    ranking = ws.rank(RankInput.from_query("anything"), now_ms=now_ms)
    assert len(ranking.ranked) == 0 and ranking.total == 0


@pytest.mark.parametrize("names", ["valid", "not utf-8", "none"])
def test_a_walk_in_another_process_finds_what_a_walk_in_process_finds(make_workspace, tmp_path, names):
    """BackgroundScan (what `rank` starts before it imports the engine) hands over the same files, paths, sizes,
    times and problems as the walk it stands in for: with every name valid text (the paths are then not sent but
    made from the rels), with a name that is not UTF-8, and with no file at all."""
    files = {"a.md": "# A", "docs/b.txt": "b", "deep/er/c.md": "# C", "skip.bin": "x"}
    root = make_workspace(files if names != "none" else {"skip.bin": "x"})
    (tmp_path / "outside.md").write_text("# Out", encoding="utf-8")
    os.symlink(tmp_path / "outside.md", root / "link.md")
    os.mkfifo(root / "pipe.md")
    if names != "none":
        os.symlink(root / "a.md", root / "alias.md")  # a link to a file inside (`links`)
    if names == "not utf-8":
        (root / os.fsdecode(b"caf\xe9.md")).write_text("# Cafe", encoding="utf-8")
    code = textwrap.dedent(f"""
        import json
        from knit_desktop.core.index.scan import BackgroundScan, scan_workspace

        def columns(found, statuses):
            return [[found.path(i) for i in range(len(found))], found.rels, found.kinds, found.sizes,
                    found.mtimes_ns, sorted([s.rel, s.state, s.reason] for s in statuses), found.links,
                    [c.path for c in found]]

        statuses, again = [], []
        background = BackgroundScan.start({str(root.resolve())!r})
        assert background is not None
        found = background.result(statuses)
        assert background.result(again) is found and len(again) == len(statuses)  # taken once, kept
        here = []
        print(json.dumps([columns(found, statuses), columns(scan_workspace({str(root.resolve())!r}, here), here)],
                         ensure_ascii=True))
    """)
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    background, in_process = json.loads(out.stdout)
    assert background == in_process
    expected = {"valid": ["a.md", "alias.md", "deep/er/c.md", "docs/b.txt"], "none": [],
                "not utf-8": ["a.md", "alias.md", "caf\\xE9.md", "deep/er/c.md", "docs/b.txt"]}[names]
    assert len(background[6]) == (names != "none")
    assert sorted(background[1]) == expected
    assert all(os.path.isfile(path) for path in background[0]) and len(background[0]) == len(expected)
    assert sorted(rel for rel, _, _ in background[5]) == ["link.md", "pipe.md"]


def test_a_walk_not_taken_is_stopped(make_workspace):
    root = make_workspace({"a.md": "# A"})
    code = textwrap.dedent(f"""
        import os
        from knit_desktop.core.index.scan import BackgroundScan

        background = BackgroundScan.start({str(root.resolve())!r})
        background.cancel()
        background.cancel()
        try:
            os.waitpid(background._pid, os.WNOHANG)
        except ChildProcessError:
            print("reaped")
        print(background.result([]))
    """)
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == ["reaped", "None"]


def test_a_folder_swapped_for_a_link_leading_out_after_it_was_listed_is_not_walked(make_workspace, tmp_path,
                                                                                      monkeypatch):
    """Between listing a folder's parent and walking the folder, the folder is replaced by a symlink leading out
    of the workspace: the walk does not follow it (its files are neither listed nor stat'ed) and says so."""
    from knit_desktop.core.index.scan import scan_workspace

    root = make_workspace({"a.md": "# A", "sub/b.md": "# B"})
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.md").write_text("# Secret")
    real_scandir = os.scandir
    calls = []

    def scandir(target):
        entries = list(real_scandir(target))
        calls.append(target)
        if len(calls) == 1:  # the root is listed: now swap its folder
            os.rename(root / "sub", tmp_path / "sub-moved")
            os.symlink(outside, root / "sub")

        class Listing(list):
            def __enter__(self):
                return iter(self)

            def __exit__(self, *exc):
                return False

        return Listing(entries)

    monkeypatch.setattr(os, "scandir", scandir)
    statuses: list = []
    found = scan_workspace(os.path.realpath(root), statuses)
    assert found.rels == ["a.md"]
    assert [(s.rel, s.state) for s in statuses] == [("sub", "failed")]


def test_a_root_reached_through_a_link_is_walked(make_workspace, tmp_path):
    from knit_desktop.core.index.scan import scan_workspace

    root = make_workspace({"a.md": "# A", "sub/b.md": "# B"})
    link = tmp_path / "link-to-ws"
    os.symlink(root, link)
    assert sorted(scan_workspace(str(link), []).rels) == ["a.md", "sub/b.md"]
