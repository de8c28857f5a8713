"""A long conversation must not make the window grow: resident memory while 400 messages arrive.

Run: QT_QPA_PLATFORM=offscreen .venv/bin/python tests/benchmarks/soak.py [--size 3000] [--messages 400]
Opens the real window offscreen on a generated workspace that a DSH session (a real zstd log) points at, waits for
the first index, then appends one user message at a time to the session and waits for the re-ranked list to reach
the window before appending the next. Prints the resident memory after 50 and after all messages.
Target: growth from message 50 to message 400 <= 60 MB.
"""

from __future__ import annotations

import argparse
import gc
import os
import shutil
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

from tests.benchmarks.workspace_generator import CN_TOPICS, TOPICS, generate  # noqa: E402
from tests.dsh_fixtures import DshLog  # noqa: E402

TARGET_GROWTH_MB = 60
CHECKPOINT = 50


def rss_mb() -> float:
    """Resident memory now (not the peak): VmRSS from /proc."""
    with open("/proc/self/status") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return 0.0


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--size", type=int, default=3000)
    parser.add_argument("--messages", type=int, default=400)
    args = parser.parse_args()

    tmp = Path(tempfile.mkdtemp(prefix="knit-soak-"))
    os.environ["KNIT_DESKTOP_HOME"] = str(tmp / "home")
    root = generate(tmp / "ws", args.size)
    log = DshLog(tmp / "dsh", "soak", str(root))
    log.append_rows([log.user(f"let us look at {TOPICS[0]}")])

    from PySide6.QtCore import QEventLoop, QTimer
    from PySide6.QtWidgets import QApplication

    from knit_desktop.ui.app import KnitApp
    from knit_desktop.ui.settings import Settings

    _app = QApplication.instance() or QApplication([])  # kept alive for the whole run
    knit = KnitApp(workspace=None, dsh_home=str(tmp / "dsh"), messages=None,
                   settings=Settings(str(tmp / "settings.ini")), persistent=True)
    knit.window.show()

    loop = QEventLoop()
    seen = {"rankings": 0, "opened": False}

    def ranked(_result) -> None:
        seen["rankings"] += 1
        loop.quit()

    def opened(_report) -> None:
        seen["opened"] = True

    knit.ranking.rankingChanged.connect(ranked)
    knit.ranking.indexOpened.connect(opened)

    def wait_for_ranking(before: int, timeout_s: float) -> bool:
        deadline = time.monotonic() + timeout_s
        while seen["rankings"] <= before and time.monotonic() < deadline:
            QTimer.singleShot(200, loop.quit)
            loop.exec()
        return seen["rankings"] > before

    started = time.perf_counter()
    while not (seen["opened"] and seen["rankings"]) and time.perf_counter() - started < 300:
        wait_for_ranking(seen["rankings"], 1.0)
    if not seen["opened"]:
        print("the workspace never opened", file=sys.stderr)
        return 1
    indexed_s = time.perf_counter() - started

    topics = TOPICS + CN_TOPICS
    at_checkpoint = 0.0
    missed = 0
    started = time.perf_counter()
    for i in range(1, args.messages + 1):
        before = seen["rankings"]
        # Alternate the asker so the conversation window keeps changing, as a real one does.
        text = f"message {i}: now what about {topics[i % len(topics)]} and {topics[(i * 7) % len(topics)]}?"
        log.append_rows([log.user(text) if i % 2 else log.assistant(text)])
        if not wait_for_ranking(before, 10.0):
            missed += 1
        if i == CHECKPOINT:
            gc.collect()
            at_checkpoint = rss_mb()
    elapsed = time.perf_counter() - started
    gc.collect()
    at_end = rss_mb()
    knit.close()
    shutil.rmtree(tmp, ignore_errors=True)

    growth = at_end - at_checkpoint
    print(f"documents: {args.size}, first index {indexed_s:.1f} s, messages appended: {args.messages} "
          f"in {elapsed:.0f} s, rankings shown: {seen['rankings']}, appends without a ranking: {missed}")
    print(f"RSS after {CHECKPOINT} messages: {at_checkpoint:.0f} MB; after {args.messages}: {at_end:.0f} MB; "
          f"growth {growth:+.0f} MB  [target <= {TARGET_GROWTH_MB} MB]")
    return 0 if growth <= TARGET_GROWTH_MB else 1


if __name__ == "__main__":
    sys.exit(main())
