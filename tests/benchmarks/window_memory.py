"""The resident memory of the window holding a workspace while its conversation moves on.

Run:  QT_QPA_PLATFORM=offscreen .venv/bin/python tests/benchmarks/window_memory.py WORKSPACE [--seconds 30]
      [--trace]
(`tests/benchmarks/peers.py --keep DIR` leaves generated 20,000- and 100,000-file workspaces in DIR; set
KNIT_DESKTOP_HOME to where their index is, or the window builds one first, which is then what is measured.)
Opens the real window (KnitApp) on WORKSPACE with a DSH session pointing at it, appends one of the peers
benchmark's queries as a user message every second, and samples the process's resident set every 100 ms. Prints
the RSS after the imports, at its peak, and at the end (with its anonymous part: what the app allocated, not the
shared libraries' pages), and how many rankings reached the window. `--trace` also prints where the Python
allocations still held at the end were made (tracemalloc; slower, and its own bookkeeping inflates the RSS).
Target (speed issue): the window or the MCP server holding 100,000 documents within 200 MB.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

from tests.benchmarks.peers import QUERIES  # noqa: E402
from tests.dsh_fixtures import DshLog  # noqa: E402

TARGET_MB = 200


def memory_mb() -> dict[str, float]:
    """VmRSS, VmHWM (the peak) and RssAnon of this process, in MB."""
    out = {}
    with open("/proc/self/status") as status:
        for line in status:
            key, _, value = line.partition(":")
            if key in ("VmRSS", "VmHWM", "RssAnon"):
                out[key] = int(value.split()[0]) / 1024
    return out


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("workspace")
    parser.add_argument("--seconds", type=float, default=30.0)
    parser.add_argument("--timeline", action="store_true", help="the RSS each second")
    parser.add_argument("--trace", action="store_true", help="where the Python memory held at the end was allocated")
    args = parser.parse_args()
    if args.trace:
        import tracemalloc

        tracemalloc.start(4)
    tmp = Path(tempfile.mkdtemp(prefix="knit-window-memory-"))
    log = DshLog(tmp / "dsh", "bench", str(Path(args.workspace).resolve()))
    log.append_rows([log.user(QUERIES[0])])

    from PySide6.QtCore import QTimer
    from PySide6.QtWidgets import QApplication

    from knit_desktop.ui.app import KnitApp
    from knit_desktop.ui.settings import Settings

    app = QApplication.instance() or QApplication([])
    after_imports = memory_mb()["VmRSS"]
    knit = KnitApp(workspace=None, dsh_home=str(tmp / "dsh"), messages=None,
                   settings=Settings(str(tmp / "settings.ini")), persistent=True)
    knit.window.show()
    seen = {"rankings": 0, "opened_s": None}
    started = time.perf_counter()
    knit.ranking.rankingChanged.connect(lambda _payload: seen.__setitem__("rankings", seen["rankings"] + 1))
    knit.ranking.indexOpened.connect(lambda _report: seen.__setitem__("opened_s", time.perf_counter() - started))
    samples: list[dict[str, float]] = []
    sampler = QTimer()
    sampler.setInterval(100)
    sampler.timeout.connect(lambda: samples.append(memory_mb()))
    sampler.start()
    stop = threading.Event()

    def talk() -> None:  # the conversation moves on every second
        i = 1
        while not stop.wait(1.0):
            log.append_rows([log.user(QUERIES[i % len(QUERIES)])])
            i += 1

    talker = threading.Thread(target=talk, daemon=True)
    talker.start()
    early: list = []
    if args.trace:  # what the window holds a few seconds in, to tell what grows after it from what it opened with
        QTimer.singleShot(5000, lambda: early.append(tracemalloc.take_snapshot()))
    QTimer.singleShot(int(args.seconds * 1000), app.quit)
    app.exec()
    stop.set()
    talker.join()
    end = memory_mb()
    if args.timeline:
        print("RSS each second (MB):", " ".join(f"{s['VmRSS']:.0f}" for s in samples[::10]))
    print(f"workspace: {args.workspace}")
    print(f"index opened after {seen['opened_s']:.1f} s" if seen["opened_s"] else "index: not opened")
    print(f"rankings shown: {seen['rankings']} over {args.seconds:.0f} s")
    print(f"RSS (MB): after imports {after_imports:.0f}, peak {end['VmHWM']:.0f}, at the end {end['VmRSS']:.0f} "
          f"(anonymous {end['RssAnon']:.0f}); median of the last 10 s "
          f"{sorted(s['VmRSS'] for s in samples[-100:])[len(samples[-100:]) // 2]:.0f} (target {TARGET_MB})")
    if args.trace:
        import tracemalloc

        snapshot = tracemalloc.take_snapshot()
        print(f"traced Python memory: {tracemalloc.get_traced_memory()[0] / 2**20:.1f} MB; the largest sites:")
        for stat in snapshot.statistics("traceback")[:15]:
            print(f"{stat.size / 2**20:6.1f} MB {stat.count:7d} blocks")
            for line in stat.traceback.format()[-4:]:
                print("      " + line)
        if early:
            print("grown since 5 s in:")
            for diff in snapshot.compare_to(early[0], "traceback")[:12]:
                print(f"{diff.size_diff / 2**20:+6.1f} MB {diff.count_diff:+7d} blocks")
                for line in diff.traceback.format()[-6:]:
                    print("      " + line)
    knit.close()
    return 0 if end["VmHWM"] <= TARGET_MB else 1


if __name__ == "__main__":
    sys.exit(main())
