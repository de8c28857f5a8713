"""Hostile DSH logs and a way to measure a command on them: shared by tests/test_dsh_log_bounds.py and the sweep
in tests/benchmarks/bad_input.py."""

from __future__ import annotations

import contextlib
import json
import os
import random
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import zstandard

from tests.dsh_fixtures import DshLog

GIB = 1 << 30


def zstd_bomb(decoded: int = 2 * GIB, declare_size: bool = False) -> bytes:
    """One zstd frame of `decoded` zero bytes, compressed streaming (~65 KB for 2 GB, ~0.3 s to build).
    Without `declare_size` the frame does not say how large it is (DSH's streaming writer does not either)."""
    compressor = zstandard.ZstdCompressor(level=1)
    stream = compressor.compressobj(size=decoded if declare_size else -1)
    zeros = bytes(16 << 20)
    out = []
    left = decoded
    while left > 0:
        piece = zeros if left >= len(zeros) else zeros[:left]
        out.append(stream.compress(piece))
        left -= len(piece)
    out.append(stream.flush())
    return b"".join(out)


def json_bomb(decoded: int = 2 * GIB) -> bytes:
    """A frame that decodes to one enormous JSON line: a user message whose text is `decoded` bytes of 'a'."""
    compressor = zstandard.ZstdCompressor(level=1)
    stream = compressor.compressobj()
    out = [stream.compress(b'{"type":"user/message","seq":99,"data":{"source":{"kind":"user"},"content":"')]
    chunk = b"a" * (16 << 20)
    for _ in range(decoded // len(chunk)):
        out.append(stream.compress(chunk))
    out.append(stream.compress(b'"}}\n'))
    out.append(stream.flush())
    return b"".join(out)


def big_log(home: Path, size: int, session_id: str = "big", cwd: str = "/w", distinct: int = 40) -> DshLog:
    """A log of about `size` bytes on disk in DSH's format: append batches of user and assistant turns and tool
    calls (`read` and `bash`, alternately) with file contents or command output in their results (text that compresses ~3x, as real turns do). `distinct` different
    batches are built and then written over and over (a 200 MB log in a couple of seconds); the last batch ends
    with the user message "the very last question"."""
    rng = random.Random(7)
    words = ["".join(rng.choice("abcdefghijklmnopqrstuvwxyz") for _ in range(rng.randint(2, 10))) for _ in range(20000)]
    texts = [" ".join(rng.choices(words, k=rng.randint(200, 1500))) for _ in range(64)]
    log = DshLog(home, session_id, cwd)
    frames = []
    n = 0
    for _ in range(distinct):
        rows = []
        for _ in range(10):
            n += 1
            rows.append(log.user(f"question {n}: {texts[n % 64][:300]}"))
            if n % 2:
                rows.append(log.read_call(f"c{n}", f"docs/file{n % 500}.md"))
            else:  # half the tools are not `read`: a shell command and its output
                rows.append(log.event("tool/call", {"turn": n, "step": 1, "callId": f"c{n}", "name": "bash",
                                                    "arguments": json.dumps({"command": "grep -rn cache docs"})}))
            message = {"role": "tool", "toolCallId": f"c{n}", "isError": False,
                       "content": [{"type": "text", "text": texts[(n * 7) % 64] * 4}]}
            rows.append(log.event("tool/result", {"turn": n, "step": 1, "message": message}, surfaceOp="append"))
            rows.append(log.assistant(texts[(n * 3) % 64]))
        frames.append(log.frame(rows))
    last = log.frame([log.user("the very last question")])
    with open(log.path, "ab") as handle:
        written = log.path.stat().st_size
        i = 0
        while written < size:
            frame = frames[i % distinct]
            handle.write(frame)
            written += len(frame)
            i += 1
        handle.write(last)
    return log


@dataclass
class Measured:
    code: int
    wall_s: float
    rss_mb: float
    stdout: str
    stderr: str

    @property
    def traceback(self) -> bool:
        return "Traceback (most recent call last)" in self.stderr


_WRAPPER = (
    "import os, sys\n"
    "pid = os.fork()\n"
    "if pid == 0:\n"
    "    os.execvp(sys.argv[2], sys.argv[2:])\n"
    "_, status, usage = os.wait4(pid, 0)\n"
    "open(sys.argv[1], 'w').write(f'{usage.ru_maxrss} {os.waitstatus_to_exitcode(status)}')\n"
    "sys.exit(os.waitstatus_to_exitcode(status) & 0xFF)\n"
)


def measure(args: list[str], timeout: float = 120, env: dict | None = None, stdin: str | None = None,
            cwd: str | None = None) -> Measured:
    """Run a command; its exit code, wall time and peak RSS. The RSS comes from wait4's rusage in a small wrapper
    process (a child forked straight from a big parent would report the parent's pages as its own peak)."""
    base = Path(os.environ.get("TMPDIR", "/tmp")) / f"knit-measure-{os.getpid()}-{time.monotonic_ns()}"
    t0 = time.perf_counter()
    with open(f"{base}.out", "w+b") as out, open(f"{base}.err", "w+b") as err:
        proc = subprocess.Popen([sys.executable, "-c", _WRAPPER, f"{base}.rusage", *args], stdout=out, stderr=err,
                                env=env, cwd=cwd, stdin=subprocess.PIPE if stdin is not None else subprocess.DEVNULL,
                                start_new_session=True)
        if stdin is not None:
            try:
                proc.stdin.write(stdin.encode())
                proc.stdin.close()
            except BrokenPipeError:
                pass
        try:
            proc.wait(timeout)
        except subprocess.TimeoutExpired:
            with contextlib.suppress(OSError):
                os.killpg(proc.pid, 9)  # the wrapper and the command under it (its own session)
            proc.wait()
        wall = time.perf_counter() - t0
        out.seek(0)
        err.seek(0)
        stdout, stderr = out.read().decode("utf-8", "replace"), err.read().decode("utf-8", "replace")
    try:
        rss_kb, code = (int(x) for x in Path(f"{base}.rusage").read_text().split())
    except (OSError, ValueError):
        rss_kb, code = 0, -9  # killed on timeout
    for suffix in (".out", ".err", ".rusage"):
        with contextlib.suppress(OSError):
            os.unlink(f"{base}{suffix}")
    return Measured(code, wall, rss_kb / 1024, stdout, stderr)


def knit(*args: str) -> list[str]:
    return [sys.executable, "-m", "knit_desktop", *args]
