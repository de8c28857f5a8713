"""Smoke test of the frozen app: it starts offscreen and does what the installed one does.

Run: .venv/bin/python packaging/smoke.py [dist/knit-desktop]   (build.py runs it after every build)
Checks that the window renders with `--demo --screenshot` (and how long the first ranked list took), that
`selftest` finds the multimedia backend (first frame and duration of the demo video), renders a PDF page and loads
both translations, that `rank --json` answers, that `mcp` serves one `knit_docs` call through the MCP SDK's
own stdio client, and that a workspace large enough for worker processes indexes through them.
"""

from __future__ import annotations

import asyncio
import json
import os
import re
import struct
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
DEFAULT_BUNDLE = REPO / "dist" / "knit-desktop"
BINARY = "knit-desktop-bin"


def _env(home: Path) -> dict:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTHON", "VIRTUAL_ENV"))}
    env.update(QT_QPA_PLATFORM="offscreen", KNIT_DESKTOP_HOME=str(home))
    return env


def png_size(path: Path) -> tuple[int, int]:
    data = path.read_bytes()[:24]
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        raise AssertionError(f"{path} is not a PNG")
    return struct.unpack(">II", data[16:24])


def check_window(binary: Path, home: Path) -> dict:
    shot = home / "window.png"
    env = _env(home)
    env["KNIT_DESKTOP_LAUNCHED_AT"] = repr(time.time())
    out = subprocess.run([str(binary), "--demo", "--screenshot", str(shot)], env=env, capture_output=True,
                         text=True, timeout=120)
    assert out.returncode == 0, out.stderr[-2000:]
    width, height = png_size(shot)
    assert width >= 400 and height >= 600, (width, height)
    found = re.search(r"first ranked list shown (\d+) ms after launch", out.stderr)
    assert found, out.stderr[-2000:]
    return {"screenshot": [width, height], "first_list_ms": int(found.group(1))}


def check_selftest(binary: Path, home: Path) -> dict:
    out = subprocess.run([str(binary), "selftest"], env=_env(home), capture_output=True, text=True, timeout=120)
    report = json.loads(out.stdout)
    assert out.returncode == 0 and report["ok"], out.stdout + out.stderr[-2000:]
    return report


def check_rank(binary: Path, home: Path) -> dict:
    out = subprocess.run([str(binary), "rank", "--demo", "--json", "--limit", "3"], env=_env(home),
                         capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr[-2000:]
    data = json.loads(out.stdout)
    assert data["mode"] == "relevance" and len(data["results"]) == 3, data
    return {"top": data["results"][0]["rel"]}


def check_mcp(binary: Path, home: Path) -> dict:
    from mcp import ClientSession, StdioServerParameters
    from mcp.client.stdio import stdio_client

    workspace = REPO / "resources" / "demo-workspace"

    async def call() -> dict:
        params = StdioServerParameters(command=str(binary), args=["mcp", "--workspace", str(workspace)],
                                       env=_env(home))
        async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
            await session.initialize()
            tools = await session.list_tools()
            result = await session.call_tool("knit_docs", {"query": "attachment cache eviction"})
            return {"tools": [t.name for t in tools.tools], "error": result.is_error,
                    "primary": [i["rel"] for i in (result.structured_content or {}).get("primary", [])]}

    answer = asyncio.run(call())
    assert "knit_docs" in answer["tools"] and not answer["error"] and answer["primary"], answer
    return answer


def check_parallel_index(binary: Path, home: Path) -> dict:
    """A workspace large enough to be indexed by worker processes (core/index/preparing.py): a spawned worker
    starts the bundle's binary again, which `freeze_support()` in the entry point turns into a worker; without
    it the workers would start a second app and fail, and the files would be indexed in one process."""
    workspace = home / "many-notes"
    count = 2500  # above PARALLEL_MIN_FILES
    for i in range(count):
        note = workspace / f"notes/{i // 500}/note-{i}.md"
        note.parent.mkdir(parents=True, exist_ok=True)
        note.write_text(f"# Note {i}\n\nabout release train signing, week {i % 52}\n", encoding="utf-8")
    t0 = time.perf_counter()
    out = subprocess.run([str(binary), "index", "--workspace", str(workspace)], env=_env(home), capture_output=True,
                         text=True, timeout=300)
    seconds = time.perf_counter() - t0
    assert out.returncode == 0, out.stderr[-2000:]
    assert f"{count} indexed, 0 skipped, 0 failed" in out.stdout, out.stdout + out.stderr[-2000:]
    assert "Traceback" not in out.stderr and "usage:" not in out.stderr, out.stderr[-2000:]
    return {"files": count, "seconds": round(seconds, 1)}


def run(bundle: Path = DEFAULT_BUNDLE) -> dict:
    binary = bundle / BINARY
    if not binary.exists():
        raise FileNotFoundError(f"no bundle at {bundle} (build it with `make package`)")
    results = {}
    with tempfile.TemporaryDirectory(prefix="knit-smoke-") as tmp:
        home = Path(tmp)
        results["window"] = check_window(binary, home)
        results["window_again"] = check_window(binary, home)
        results["selftest"] = check_selftest(binary, home)
        results["rank"] = check_rank(binary, home)
        results["mcp"] = check_mcp(binary, home)
        results["parallel_index"] = check_parallel_index(binary, home)
    return results


def main() -> int:
    bundle = Path(sys.argv[1]) if len(sys.argv) > 1 else DEFAULT_BUNDLE
    try:
        results = run(bundle)
    except (AssertionError, FileNotFoundError, subprocess.TimeoutExpired) as exc:
        print(f"smoke test FAILED: {exc}", file=sys.stderr)
        return 1
    video = results["selftest"]["video"]
    print(f"window: {results['window']['screenshot'][0]}x{results['window']['screenshot'][1]}; first ranked list "
          f"{results['window']['first_list_ms']} ms after launch (first start), "
          f"{results['window_again']['first_list_ms']} ms (second)  [target <= 3000 ms]")
    print(f"multimedia: first frame {video['first_frame']}, duration {video['duration_ms']} ms; "
          f"pdf page {results['selftest']['pdf']['size']}; languages "
          f"{', '.join(k for k, v in results['selftest']['languages'].items() if v['ok'])}")
    print(f"rank --json top: {results['rank']['top']}; mcp knit_docs primary: {results['mcp']['primary']}")
    print(f"index of {results['parallel_index']['files']} files through worker processes: "
          f"{results['parallel_index']['seconds']} s")
    print("smoke test passed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
