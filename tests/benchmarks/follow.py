"""Following a DSH conversation: time from an append to the emitted messages, and one incremental read.

Run: .venv/bin/python tests/benchmarks/follow.py
Targets (issue: follow the live conversation): <= 300 ms from append to emission (debounce included) and
<= 50 ms per incremental read of a 50 MB log.
"""

from __future__ import annotations

import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from knit_desktop.core.dsh.sessions import SessionLog  # noqa: E402
from tests.dsh_fixtures import DshLog  # noqa: E402

LOG_BYTES = 50 * 1024 * 1024


def big_log(home: Path) -> DshLog:
    """A log of ~50 MB on disk: many append batches of long assistant turns (as DSH writes them)."""
    import random

    rng = random.Random(5)
    words = [
        "".join(rng.choice("abcdefghijklmnopqrstuvwxyz") for _ in range(rng.randint(2, 10))) for _ in range(20000)
    ]
    log = DshLog(home, "big", "/w")
    while log.path.stat().st_size < LOG_BYTES:
        rows = [log.assistant(" ".join(rng.choices(words, k=600))) for _ in range(40)]  # text compresses ~3x
        log.append_rows(rows)
    return log


def incremental_reads(home: Path) -> tuple[float, float, int, int]:
    log = big_log(home)
    session = SessionLog(str(log.path))
    t0 = time.perf_counter()
    session.update()
    first = time.perf_counter() - t0
    times = []
    for i in range(20):
        log.append_rows([log.user(f"new question {i} about the cache")])
        t0 = time.perf_counter()
        new = session.update()
        times.append(time.perf_counter() - t0)
        assert len(new) == 1
    raw = sum(len(m.text) for m in session.messages)
    return first, statistics.median(times), log.path.stat().st_size, raw


def append_to_emission(home: Path, rounds: int = 15) -> tuple[float, float]:
    from PySide6.QtCore import QCoreApplication, QEventLoop, QTimer

    from knit_desktop.services.conversation import ConversationFollower

    app = QCoreApplication.instance() or QCoreApplication([])
    log = DshLog(home, "live", "/w")
    log.append_rows([log.user("start")])
    follower = ConversationFollower(str(home))
    loop = QEventLoop()
    follower.sessionChanged.connect(lambda _s: loop.quit())
    follower.start()
    loop.exec()
    arrived: list[float] = []
    follower.messagesChanged.connect(lambda _s: (arrived.append(time.perf_counter()), loop.quit()))
    latencies = []
    for i in range(rounds):
        QTimer.singleShot(3000, loop.quit)
        t0 = time.perf_counter()
        log.append_rows([log.user(f"message {i}")])
        loop.exec()
        latencies.append(arrived[-1] - t0 if arrived and arrived[-1] >= t0 else float("inf"))
    follower.stop()
    del app
    return statistics.median(latencies), max(latencies)


def main() -> int:
    with tempfile.TemporaryDirectory() as tmp:
        median_latency, worst = append_to_emission(Path(tmp) / "live")
        first, incremental, size, raw = incremental_reads(Path(tmp) / "big")
    print(f"append -> messages emitted: median {median_latency * 1000:.0f} ms, worst {worst * 1000:.0f} ms "
          "(50 ms quiet period included)  [target <= 300 ms]")
    print(f"{size / 1e6:.0f} MB log ({raw / 1e6:.0f} MB of message text): first full read {first * 1000:.0f} ms, incremental read after one append "
          f"median {incremental * 1000:.2f} ms  [target <= 50 ms]")
    ok = median_latency <= 0.3 and incremental <= 0.05
    print("targets: " + ("met" if ok else "NOT met"))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
