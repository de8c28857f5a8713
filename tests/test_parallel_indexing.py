"""A large (re)index prepares its files in worker processes: the index, the statuses and the rankings come out
exactly as when one process does everything, and a file that kills its worker costs only that file."""

from __future__ import annotations

import concurrent.futures
import contextlib
import ctypes
import functools
import os
import signal
import subprocess
import sys
import time
import uuid
from collections.abc import Sequence
from pathlib import Path

import pytest

from knit_desktop.core import workspace as workspace_module
from knit_desktop.core.index import preparing
from knit_desktop.core.index.preparing import CRASHED_REASON, FileTask, Outcome, prepare_file, prepare_files
from knit_desktop.core.workspace import RankInput, Workspace

from .conftest import NOW_MS, write_file
from .library_fixtures import make_docx, make_html
from .media_fixtures import make_pdf

QUERIES = ["cache eviction", "retry backoff", "缩略图缓存", "budget owner", "quarterly report", "hiring plan",
           "mtimeMs", "export sidecar"]


def _mixed_workspace(root: Path, notes: int = 80) -> Path:
    """Markdown with links, headings and Chinese, plain text in two encodings, PDFs, HTML, DOCX, an image, and
    files that cannot be indexed (a damaged PDF, binary content in a .txt)."""
    topics = ["cache eviction", "retry backoff", "budget owner", "export sidecar", "缩略图缓存", "mtimeMs field"]
    for i in range(notes):
        topic = topics[i % len(topics)]
        body = f"# {topic.title()} {i}\n\nAbout {topic}: see [the plan](plans/plan-{i % 7}.md) and `notes/n{i + 1}.md`.\n"
        body += f"\n{topic} " * (1 + i % 5) + "\n\nsnake_case_words and camelCaseWords 2026 Q3.\n"
        write_file(root, f"notes/n{i}.md", body, NOW_MS - i * 3_600_000)
    for i in range(7):
        write_file(root, f"plans/plan-{i}.md", f"# Plan {i}\n\nQuarterly report and hiring plan {i}.\n")
    write_file(root, "notes/plain.txt", "Quarterly report\n\nretry backoff in plain text\n")
    write_file(root, "notes/gb.txt", "缩略图缓存的问题和计划。".encode("gb18030"))
    write_file(root, "notes/binary.txt", b"\x00\x01\x02 not text" * 50)
    for folder in ("docs", "web"):
        (root / folder).mkdir(exist_ok=True)
    make_pdf(root / "docs/report.pdf", ["Quarterly report page one", "", "hiring plan on page three"], title="Report")
    make_pdf(root / "docs/cache.pdf", ["cache eviction in a PDF"])
    write_file(root, "docs/damaged.pdf", b"%PDF-1.7\nthis is not a PDF at all" * 20)
    make_html(root / "web/page.html", "Export guide", [("Export sidecar", "How the export sidecar works.")])
    make_docx(root / "docs/budget.docx", [("h1", "Budget owner"), ("p", "The budget owner signs off."),
                                          ("table", [["item", "cost"], ["cache", "12"]])], title="Budget")
    write_file(root, "media/cache-eviction.png", b"\x89PNG\r\n\x1a\n" + b"\x00" * 64)
    return root


def _index_picture(ws: Workspace) -> dict:
    """Everything the index holds, independent of document ids and token ids."""
    index = ws.index
    rels = {i: d.rel for i, d in index.documents()}
    postings = {}
    for token, tid in index.vocab.items():
        columns = index.post_tfs[tid]
        postings[token] = sorted(
            (rels[d], columns[0][k], columns[1][k], columns[2][k])
            for k, d in enumerate(index.post_docs[tid]) if d in rels
        )
    docs = {}
    for i, d in index.documents():
        docs[d.rel] = (d.kind, d.title, d.summary, d.mtime_ms, d.size, d.body, d.truncated, d.content_hash,
                       d.page_starts, d.note, tuple(index.lengths[3 * i : 3 * i + 3]))
    return {"docs": docs, "postings": {t: p for t, p in postings.items() if p}, "refs": ws.refs,
            "statuses": dict(ws.statuses)}


def _rankings(ws: Workspace) -> dict:
    out = {}
    for q in QUERIES:
        ranking = ws.rank(RankInput.from_query(q), now_ms=NOW_MS)
        out[q] = [(r.doc.rel, r.raw) for r in ranking.ranked]
    return out


def _in_process_only(*args, **kwargs):
    raise AssertionError("a file was prepared in the indexing process, not in a worker")


@pytest.fixture
def through_workers(monkeypatch):
    """Every (re)index goes through two worker processes, and preparing a file in this process fails the test."""
    monkeypatch.setattr(workspace_module, "PARALLEL_MIN_FILES", 1)
    monkeypatch.setattr(preparing, "worker_count", lambda: 2)
    monkeypatch.setattr(preparing, "CHUNK_FILES", 8)  # several chunks in flight per worker even here
    monkeypatch.setattr(preparing, "prepare_file", _in_process_only)


def test_workers_index_a_mixed_workspace_exactly_as_one_process_does(make_workspace, tmp_path, monkeypatch):
    root = _mixed_workspace(make_workspace({}))
    monkeypatch.setattr(workspace_module, "PARALLEL_MIN_FILES", 10**9)
    alone = Workspace.open(str(root))
    expected, expected_ranks = _index_picture(alone), _rankings(alone)
    assert expected["statuses"]["docs/damaged.pdf"].state == "failed"
    assert expected["statuses"]["notes/binary.txt"].state == "skipped"
    assert expected["statuses"]["docs/report.pdf"].state == "indexed"
    assert expected["statuses"]["docs/budget.docx"].state == "indexed"
    assert "缩略" in expected["postings"] and "notes/gb.txt" in expected["docs"]

    with monkeypatch.context() as patch:
        patch.setattr(workspace_module, "PARALLEL_MIN_FILES", 1)
        patch.setattr(preparing, "worker_count", lambda: 2)
        patch.setattr(preparing, "CHUNK_FILES", 8)
        patch.setattr(preparing, "prepare_file", _in_process_only)
        parallel = Workspace.open(str(root))
        assert _index_picture(parallel) == expected
        assert parallel.index.tokens == alone.index.tokens  # even the vocabulary's ids, given as words first come
        assert _rankings(parallel) == expected_ranks

        # The persistent index too: the rows and the snapshot written from the workers' results load the same.
        persistent = Workspace.open_persistent(str(root))
        assert persistent.last_refresh.added == len(expected["statuses"])
        assert _rankings(persistent) == expected_ranks
        persistent.close()
    reopened = Workspace.open_persistent(str(root))
    assert reopened.last_refresh.loaded_from == "snapshot"
    assert reopened.last_refresh.paths == ["docs/damaged.pdf"]  # a failed file is tried again at every look
    assert _rankings(reopened) == expected_ranks
    assert dict(reopened.statuses) == expected["statuses"]
    reopened.close()


def test_changed_and_touched_files_go_through_the_workers_too(make_workspace, through_workers, monkeypatch):
    root = _mixed_workspace(make_workspace({}), notes=30)
    Workspace.open_persistent(str(root)).close()
    write_file(root, "notes/n3.md", "# Rewritten\n\nNow about quarterly report.\n", NOW_MS)
    os.utime(root / "notes/n4.md", (12345, 12345))  # touched: same bytes
    (root / "notes/n5.md").unlink()
    ws = Workspace.open_persistent(str(root))
    report = ws.last_refresh
    assert (report.changed, report.touched, report.removed) == (2, 1, 1)  # (and the damaged PDF, tried again)
    assert ws.index.get("notes/n4.md").mtime_ms == 12345000
    assert ws.rank(RankInput.from_query("rewritten"), now_ms=NOW_MS).ranked[0].doc.rel == "notes/n3.md"
    ws.close()


def test_workers_send_no_text_a_persistent_index_reads_from_the_file(make_workspace, through_workers, monkeypatch):
    """A store holds no copy of a Markdown or text file's body (it reads the file again): the workers of a build
    for it send those documents back without their text, and the index still answers with the text."""
    root = _mixed_workspace(make_workspace({}), notes=20)
    received: list[Outcome] = []

    def recording(result, vocabularies):
        received.extend(result[3])
        return decoded(result, vocabularies)

    decoded = preparing._decoded
    monkeypatch.setattr(preparing, "_decoded", recording)
    ws = Workspace.open_persistent(str(root))
    sent = {o.doc.rel: o.doc for o in received if isinstance(o, preparing.Prepared)}
    assert {sent[rel].body for rel in ("notes/n1.md", "notes/plain.txt", "notes/gb.txt")} == {""}
    assert "hiring plan on page three" in sent["docs/report.pdf"].body  # (a PDF's text is stored: it comes back)
    assert ws.index.get("notes/n1.md").body == (root / "notes/n1.md").read_text()
    assert ws.index.get("notes/gb.txt").body == "缩略图缓存的问题和计划。"
    pack = ws.context(RankInput.from_query("retry backoff"), now_ms=NOW_MS)
    assert any("retry backoff" in p.snippet.lower() for item in pack.primary for p in item.passages)
    ws.close()

    received.clear()
    alone = Workspace.open(str(root))  # without a store, the documents keep their text in memory: it comes back
    assert "retry backoff" in alone.index.get("notes/n1.md").body
    assert {o.doc.rel for o in received if isinstance(o, preparing.Prepared) and o.doc.body} >= {"notes/n1.md"}


def crashing_work(tasks: Sequence[FileTask], root: str) -> list[Outcome]:
    """What a worker runs, except that a file named `crash…` brings the process down with a segmentation fault,
    as PyMuPDF can on a hostile PDF."""
    for task in tasks:
        if Path(task.rel).name.startswith("crash"):
            ctypes.string_at(0)  # reads address 0: SIGSEGV
    return prepare_files(tasks, root)


def test_a_file_that_kills_its_worker_costs_only_that_file(make_workspace, through_workers, monkeypatch):
    root = _mixed_workspace(make_workspace({}), notes=40)
    write_file(root, "notes/crash-me.md", "# Crash me\n\nThe worker dies reading this.\n")
    write_file(root, "notes/zz-crash-too.md", "# Also fine\n\nThis one does not crash (its name does not start so).\n")
    monkeypatch.setattr(preparing, "prepare_in_processes",
                        functools.partial(preparing.prepare_in_processes, work=crashing_work))
    ws = Workspace.open_persistent(str(root))
    statuses = dict(ws.statuses)
    assert statuses["notes/crash-me.md"].state == "failed"
    assert statuses["notes/crash-me.md"].reason == CRASHED_REASON
    others = {rel: s for rel, s in statuses.items() if rel != "notes/crash-me.md"}
    assert all(s.state == "indexed" for rel, s in others.items() if rel not in ("docs/damaged.pdf", "notes/binary.txt"))
    assert ws.index.get("notes/zz-crash-too.md") is not None
    assert ws.last_refresh.added == len(statuses)
    ws.close()
    # The failure is a status like any other: the next look tries the file again (and it fails again).
    again = Workspace.open_persistent(str(root))
    assert again.statuses["notes/crash-me.md"].reason == CRASHED_REASON
    assert again.last_refresh.changed == 2 and again.last_refresh.unchanged == len(statuses) - 2  # (and the damaged PDF)
    again.close()


class _Cancelled(Exception):
    pass


def test_a_cancelled_or_budgeted_parallel_index_stops_like_one_in_process(make_workspace, through_workers,
                                                                          monkeypatch):
    root = make_workspace({f"notes/n{i:03}.md": f"# Note {i}\n\ncache eviction {i}\n" for i in range(450)})

    def cancel_at_250(done: int, total: int, rel: str) -> None:
        if done == 250:
            raise _Cancelled

    with pytest.raises(_Cancelled):
        Workspace.open_persistent(str(root), progress=cancel_at_250)
    # The committed batch (the first 200 files) stays; the cancelled one was never written.
    ws = Workspace.open_persistent(str(root), budget_s=0)
    assert ws.last_refresh.added == 200 and ws.last_refresh.pending == 50  # the first batch always runs
    assert len(ws.index) == 400
    ws.refresh()
    assert len(ws.index) == 450 and ws.last_refresh.pending == 0
    ws.close()


def test_a_first_build_starts_its_workers_before_it_walks(make_workspace, through_workers, monkeypatch):
    """The workers of a first build start importing while the workspace is walked (they took ~0.35 s to start,
    which a 20,000-file build spent waiting after its walk), and the build takes over those very workers; a later
    look, or a workspace too small for workers, starts none before it walks."""
    root = _mixed_workspace(make_workspace({}), notes=20)
    events: list[str] = []
    real_start, real_scan = preparing.WorkerPool.start, workspace_module.scan_workspace
    started: list[preparing.WorkerPool] = []

    def start(pool):
        events.append("workers started")
        started.append(pool)
        return real_start(pool)

    def scan(*args, **kwargs):
        events.append("walk")
        return real_scan(*args, **kwargs)

    def taken(tasks, root, workers, work=prepare_files, bodies=True, pool=None):
        events.append("build took the started workers" if pool is not None and pool in started else "build")
        return real_prepare(tasks, root, workers, work, bodies, pool)

    real_prepare = preparing.prepare_in_processes
    monkeypatch.setattr(preparing.WorkerPool, "start", start)
    monkeypatch.setattr(workspace_module, "scan_workspace", scan)
    monkeypatch.setattr(preparing, "prepare_in_processes", taken)
    ws = Workspace.open_persistent(str(root))
    assert events == ["workers started", "walk", "build took the started workers"]
    assert len(ws.index) > 20
    events.clear()
    (root / "notes" / "later.md").write_text("# Later\n\nwritten after the first build", encoding="utf-8")
    ws.refresh()
    assert events == ["walk", "build"]  # (the index holds documents: no early start)
    ws.close()
    events.clear()
    monkeypatch.setattr(workspace_module, "PARALLEL_MIN_FILES", 10**6)
    monkeypatch.setattr(preparing, "prepare_file", prepare_file)  # (in this process, as a small workspace is)
    small = make_workspace({"a.md": "# A", "b.md": "# B"})
    Workspace.open_persistent(str(small)).close()
    assert events == ["walk"]


def test_an_index_that_knows_its_files_starts_no_workers_before_its_walk(make_workspace, through_workers,
                                                                        monkeypatch):
    """A workspace whose files were all looked at and none became a document (scanned PDFs with no text, binary
    content in text files) holds no document, yet is no first build: its walk finds nothing to read, and workers
    started before it would start (a process each, importing the engine) on every look, for nothing."""
    root = make_workspace({})
    for i in range(6):
        write_file(root, f"scans/s{i}.txt", b"\x00\x01\x02 not text" * 50)
    started: list[preparing.WorkerPool] = []
    real_start = preparing.WorkerPool.start

    def start(pool):
        started.append(pool)
        return real_start(pool)

    monkeypatch.setattr(preparing.WorkerPool, "start", start)
    ws = Workspace.open_persistent(str(root))
    assert len(ws.index) == 0 and len(started) == 1  # (a first build: every file is read)
    assert {s.state for s in ws.statuses.values()} == {"skipped"}
    assert ws.refresh().unchanged == 6
    ws.close()
    Workspace.open_persistent(str(root)).close()
    assert len(started) == 1


def test_workers_that_cannot_start_leave_the_files_to_this_process(make_workspace, monkeypatch):
    root = _mixed_workspace(make_workspace({}), notes=20)
    expected = _rankings(Workspace.open(str(root)))

    class NoProcesses:
        def __init__(self, *args, **kwargs):
            raise OSError("no more processes")

    monkeypatch.setattr(workspace_module, "PARALLEL_MIN_FILES", 1)
    monkeypatch.setattr(preparing, "worker_count", lambda: 2)
    monkeypatch.setattr(concurrent.futures, "ProcessPoolExecutor", NoProcesses)  # imported when a build needs it
    assert _rankings(Workspace.open(str(root))) == expected


# --- no worker outlives the process that started it --------------------------------------------------------------

_INDEX_THROUGH_WORKERS = """
import os, sys, time
from knit_desktop.core import workspace
from knit_desktop.core.index import preparing
workspace.PARALLEL_MIN_FILES = 1
workspace.worker_count = lambda: 2
preparing.CHUNK_FILES = 8
mode = sys.argv[2]

def progress(done, total, rel):
    if mode == "stall" and done == 40:
        print("indexing", flush=True)
        time.sleep(60)  # killed here, with its workers alive

ws = workspace.Workspace.open(sys.argv[1], progress)
print(len(ws.index.by_rel), flush=True)
os._exit(0)  # as the one-shot commands end: no interpreter shutdown that would stop the pool
"""


def _processes_marked(marker: str) -> list[int]:
    """Live processes whose environment carries `marker` (the indexing process's workers inherit it)."""
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/environ", "rb") as handle:
                if marker.encode() in handle.read():
                    found.append(int(entry))
        except OSError:
            continue
    return found


def _wait_gone(marker: str, seconds: float) -> list[int]:
    deadline = time.monotonic() + seconds
    while (left := _processes_marked(marker)) and time.monotonic() < deadline:
        time.sleep(0.1)
    return left


@pytest.mark.skipif(not os.path.isdir("/proc/self"), reason="reads /proc")
@pytest.mark.parametrize("mode", ["exit", "stall"])
def test_no_worker_outlives_the_process_that_started_it(make_workspace, mode):
    """`exit`: a command that indexed through workers and ends with os._exit leaves none behind (they were left
    blocked on their task pipe for good when the exit came before the pool's stop signals). `stall`: a process
    killed (SIGKILL) in the middle of indexing takes its workers with it."""
    root = _mixed_workspace(make_workspace({}), notes=120)
    marker = f"KNIT_TEST_POOL_{uuid.uuid4().hex}"
    env = {**os.environ, marker: "1", "PYTHONPATH": str(Path(__file__).resolve().parents[1])}
    proc = subprocess.Popen([sys.executable, "-c", _INDEX_THROUGH_WORKERS, str(root), mode], env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        if mode == "stall":
            assert proc.stdout is not None and proc.stdout.readline().strip() == "indexing"
            assert len(_processes_marked(marker)) >= 3  # itself and two workers
            proc.kill()
        out, err = proc.communicate(timeout=120)
        if mode == "exit":
            assert proc.returncode == 0 and int(out.strip()) > 120, err
        left = _wait_gone(marker, 5.0)
        assert not left, [Path(f"/proc/{pid}/cmdline").read_bytes() for pid in left]
    finally:
        proc.kill()
        for pid in _processes_marked(marker):
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)


def test_a_worker_numbers_the_words_as_it_counts_them(monkeypatch):
    """In a worker, a document's words come out as the worker's numbers, in the order and with the counts the
    words have, also once the cache of runs was emptied (the numbers stay)."""
    import random

    from knit_desktop.core.index.search_index import document_stats

    monkeypatch.setattr(preparing, "RUN_KEY_NAMES_LIMIT", 5)  # emptied again and again
    monkeypatch.setattr(preparing, "_WORKER_WORD_LIST", [])
    monkeypatch.setattr(preparing, "_WORKER_WORDS", preparing._WordNumbers())
    monkeypatch.setattr(preparing, "_RUN_NUMBERS", preparing._RunNumbers())
    monkeypatch.setattr(preparing, "_NUMBERING", [True])
    rng = random.Random(4)
    words = "cache Cache caches mtimeMs mtime_ms w123 123 the 缩略图缓存 排序算法 snake_case_words a".split()
    for i in range(60):
        def text(n):
            return " ".join(rng.choice(words) for _ in range(n))

        markdown = f"# {text(rng.randint(0, 3))}\n\n{text(rng.randint(0, 8))}\n\n{text(rng.randint(0, 40))}\n"
        prepared = preparing.prepare_file(FileTask("", f"n{i}.md", "md", 0, 0), "/", data=markdown.encode())
        expected = document_stats(prepared.doc)
        assert prepared.stats.tokens == []
        assert [preparing._WORKER_WORD_LIST[n] for n in prepared.local_ids] == expected.tokens
        assert (prepared.stats.title, prepared.stats.summary, prepared.stats.body) == \
            (expected.title, expected.summary, expected.body)
        assert prepared.stats.lengths == expected.lengths
