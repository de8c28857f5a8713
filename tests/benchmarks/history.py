"""History recall's speed: a cold index build, warm queries against plain FTS5 in the same run, an append made
searchable, and peak RSS.

Run: .venv/bin/python tests/benchmarks/history.py [--sessions 1000] [--messages 100]
Targets (issue 18): indexing 1,000 sessions / 100,000 messages <= 60 s cold; a query over 100,000 messages
<= 100 ms warm; a new message searchable <= 1 s after DSH appends it.

The conversations are generated from the words of the eval corpora (public documents, English and Chinese), so
word frequencies and CJK runs look like real text; each session is written as a real zstd DSH log, one frame per
turn pair.
"""

from __future__ import annotations

import argparse
import random
import re
import resource
import sqlite3
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from knit_desktop.core.dsh.history_index import HistoryIndex  # noqa: E402
from knit_desktop.core.recall.recall import Recall  # noqa: E402
from tests.dsh_fixtures import DshLog  # noqa: E402

EVAL = Path(__file__).resolve().parents[1] / "eval"
QUERIES = [
    "vector clock merge", "content addressed cache", "memory leak after upgrade", "busy timeout",
    "session title", "compaction summary", "数据库迁移", "中文分词", "后缀搜索", "配置文件",
    "attachmnet thumbnial", "sesion persistence", "why does the index lock when two processes write",
    "搜索结果不对", "release notes for the next version", "tool call result",
]


def vocabulary() -> tuple[list[str], list[str]]:
    latin, cjk = [], []
    for path in list(EVAL.glob("memory_corpus/*.md")) + list(EVAL.glob("corpus_public/**/*.md")):
        text = path.read_text(encoding="utf-8", errors="replace")
        latin += re.findall(r"[A-Za-z][A-Za-z_-]{2,20}", text)
        cjk += re.findall(r"[\u4e00-\u9fff]{2,6}", text)
    return latin, cjk


def write_home(home: Path, sessions: int, messages: int, seed: int = 7) -> int:
    rng = random.Random(seed)
    latin, cjk = vocabulary()
    total = 0
    for s in range(sessions):
        log = DshLog(home, f"sess-{s:05d}", f"/work/project-{s % 20}")
        rows = [log.title(" ".join(rng.choices(latin, k=4)))]
        chinese = s % 3 == 0
        for m in range(messages):
            words = rng.randint(15, 70)
            if chinese:
                text = "，".join("".join(rng.choices(cjk, k=4)) for _ in range(words // 8 + 1)) + "。"
                text += " " + " ".join(rng.choices(latin, k=words // 6))
            else:
                text = " ".join(rng.choices(latin, k=words)) + "."
            rows.append(log.user(text) if m % 2 == 0 else log.assistant(text))
            if len(rows) >= 2:
                log.append_rows(rows)
                rows = []
            total += 1
        if rows:
            log.append_rows(rows)
    return total


def timed(fn, repeat: int = 3) -> list[float]:
    out = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        out.append((time.perf_counter() - t0) * 1000)
    return out


def p95(values: list[float]) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(0.95 * (len(ordered) - 1))))]


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--sessions", type=int, default=1000)
    parser.add_argument("--messages", type=int, default=100)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="history-bench-") as tmp:
        home = Path(tmp) / "dsh"
        t0 = time.perf_counter()
        total = write_home(home, args.sessions, args.messages)
        print(f"wrote {args.sessions} sessions / {total} messages as zstd DSH logs in {time.perf_counter() - t0:.1f} s")

        index = HistoryIndex(home, Path(tmp) / "history.sqlite3")
        t0 = time.perf_counter()
        report = index.refresh()
        cold = time.perf_counter() - t0
        size = (Path(tmp) / "history.sqlite3").stat().st_size
        print(f"cold index build: {cold:.1f} s for {report.added} messages ({report.added / cold:,.0f}/s), "
              f"database {size / 1e6:.0f} MB")
        t0 = time.perf_counter()
        index.refresh()
        print(f"refresh with nothing new (stat of {report.logs} logs): {(time.perf_counter() - t0) * 1000:.0f} ms")

        recall = Recall(index)
        plain = sqlite3.connect(":memory:")
        plain.execute("CREATE VIRTUAL TABLE plain USING fts5(text)")
        plain.executemany("INSERT INTO plain(rowid, text) VALUES(?, ?)", ((r.id, r.text) for r in index.all_rows()))
        plain.commit()

        def fts5(query: str) -> None:
            expression = " ".join('"' + t + '"' for t in re.findall(r"\w+", query))
            plain.execute("SELECT rowid FROM plain WHERE plain MATCH ? ORDER BY rank LIMIT 200",
                          (expression,)).fetchall()

        for query in QUERIES:  # warm: the vocabulary for typo neighbours, SQLite's page cache
            recall.recall(query, None)
        ours, theirs, per_query = [], [], []
        for query in QUERIES:
            times = timed(lambda q=query: recall.recall(q, None), 5)
            ours += times
            per_query.append((statistics.median(times), query))
            theirs += timed(lambda q=query: fts5(q), 5)
        print(f"recall query, scope all, warm ({len(QUERIES)} queries x 5): median {statistics.median(ours):.1f} ms, "
              f"p95 {p95(ours):.1f} ms, max {max(ours):.1f} ms")
        print(f"plain FTS5 query, same run:                   median {statistics.median(theirs):.1f} ms, "
              f"p95 {p95(theirs):.1f} ms")
        slowest = sorted(per_query, reverse=True)[:3]
        print("slowest: " + ", ".join(f"{q!r} {t:.0f} ms" for t, q in slowest))
        one = [recall.recall(q, ["sess-00001"]) for q in QUERIES[:1]]
        del one
        session_times = []
        for query in QUERIES:
            session_times += timed(lambda q=query: recall.recall(q, ["sess-00001"]), 3)
        print(f"recall query, scope session: median {statistics.median(session_times):.1f} ms, "
              f"p95 {p95(session_times):.1f} ms")

        appended = []
        target = next(home.glob("sessions/*/sess-00001/*"))
        log = DshLog.__new__(DshLog)
        log.path, log.compress, log.version = target, True, 4
        for i in range(10):
            log.seq = iter([10_000 + i])
            t0 = time.perf_counter()
            log.append_rows([log.user(f"kookaburra-{i} landed just now")])
            index.refresh([target])
            found = recall.recall(f"kookaburra-{i}", ["sess-00001"])
            appended.append((time.perf_counter() - t0) * 1000)
            assert found, i
        print(f"append -> searchable (refresh of that log + query): median {statistics.median(appended):.1f} ms, "
              f"max {max(appended):.1f} ms")
        t0 = time.perf_counter()
        log.seq = iter([20_000])
        log.append_rows([log.user("kookaburra-full look")])
        index.refresh()
        print(f"append -> indexed by a full look over every log: {(time.perf_counter() - t0) * 1000:.0f} ms")
        index.close()
    print(f"peak RSS: {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024:.0f} MB")


if __name__ == "__main__":
    main()
