"""A sweep of hostile and unlucky inputs through the real command line and the real MCP server.

Run: .venv/bin/python tests/benchmarks/bad_input.py [--only SUBSTRING] [--no-mcp] [--timeout S]

Builds each kind of bad input in a temp dir (a workspace with one bad file beside a good one, a DSH home with a bad
log, a memory directory with a bad file, a bad --messages file, a damaged index, …), runs the commands that read
it (`knit-desktop index|rank|context|conversation|memory|propose`, each a subprocess) and asks a `knit-desktop mcp`
server for `knit_docs` / `memory_search` through the MCP SDK's stdio client. Prints one row per run: kind, command,
exit code (MCP: the server's exit code, `/err` when the tool answered with an error), wall time, peak RSS (wait4's
rusage of the process, taken in a small wrapper), whether a traceback was printed, and flags (TIMEOUT, >10s, >512MB,
TRACEBACK, LEAK: the answer quoted a secret file kept outside every workspace, RAW-ESC: ESC or BEL printed
unescaped); then the counts of each. Exit status 1 when any count is not zero.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import signal
import sqlite3
import sys
import tempfile
import textwrap
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from tests.bad_inputs import big_log, json_bomb, knit, measure, zstd_bomb  # noqa: E402
from tests.dsh_fixtures import DshLog  # noqa: E402

LIMIT_S = 10.0
LIMIT_MB = 512.0
QUERY = "cache eviction rules"
SECRET_MARKS = ("hunter2", "root:x:0:0", "KNIT_DESKTOP_HOME=")  # a secret file outside, /etc/passwd, environ


def _leaked(text: str) -> bool:
    return any(mark in text for mark in SECRET_MARKS)
GOOD_DOC = "# Attachment cache\n\nEviction rules for the attachment cache: least recently used first.\n"


@dataclass
class Case:
    kind: str
    commands: list[tuple[str, list[str]]] = field(default_factory=list)  # (label, knit-desktop arguments)
    mcp: list[tuple[list[str], str, dict]] = field(default_factory=list)  # (server arguments, tool, arguments)
    env: dict[str, str] = field(default_factory=dict)
    stdin: str | None = None


@dataclass
class Row:
    kind: str
    command: str
    code: str
    wall_s: float
    rss_mb: float
    traceback: bool
    timeout: bool = False
    leak: bool = False  # the secret file outside the workspace was quoted
    raw_control: bool = False  # ESC or BEL reached the terminal unescaped


class Sweep:
    def __init__(self, root: Path) -> None:
        self.root = root
        self.home = root / "knit-home"  # Knit's own dirs (KNIT_DESKTOP_HOME) for every case unless it says otherwise
        self.secret = root / "outside" / "secret.txt"
        self.secret.parent.mkdir(parents=True)
        self.secret.write_text("TOP-SECRET cache eviction rules password=hunter2\n", encoding="utf-8")
        self.cases: list[Case] = []
        self._n = 0

    # --- builders ----------------------------------------------------------------------------------------------

    def workspace(self, kind: str, build: Callable[[Path], None], mcp: bool = True, index: bool = True) -> Case:
        """A workspace holding a good document and whatever `build` adds; indexed, ranked, packed, asked over MCP."""
        self._n += 1
        ws = self.root / f"ws{self._n:03d}"
        ws.mkdir()
        (ws / "cache.md").write_text(GOOD_DOC, encoding="utf-8")
        build(ws)
        case = Case(kind)
        w = str(ws)
        if index:
            case.commands.append(("index", ["index", "--workspace", w, "--json"]))
        case.commands.append(("rank", ["rank", "--workspace", w, "--query", QUERY, "--json"]))
        case.commands.append(("context (text)", ["context", "--workspace", w, "--query", QUERY]))
        if mcp:
            case.mcp.append((["--workspace", w], "knit_docs", {"query": QUERY}))
        self.cases.append(case)
        return case

    def add_workspace_command(self, kind: str, args: list[str], env: dict | None = None, mcp_args: list | None = None):
        case = Case(kind, env=env or {})
        case.commands.append((args[0], args))
        if mcp_args is not None:
            case.mcp.append((mcp_args, "knit_docs", {"query": QUERY}))
        self.cases.append(case)
        return case

    def messages(self, kind: str, content: str | bytes) -> Case:
        self._n += 1
        ws = self.root / f"msgws{self._n:03d}"
        if not ws.exists():
            ws.mkdir()
            (ws / "cache.md").write_text(GOOD_DOC, encoding="utf-8")
        path = self.root / f"messages{self._n:03d}.json"
        path.write_bytes(content.encode("utf-8", "surrogateescape") if isinstance(content, str) else content)
        case = Case(kind)
        case.commands.append(("rank --messages", ["rank", "--workspace", str(ws), "--messages", str(path), "--json"]))
        case.commands.append(("context --messages", ["context", "--workspace", str(ws), "--messages", str(path)]))
        self.cases.append(case)
        return case

    def dsh(self, kind: str, build: Callable[[Path, Path], None], cwd: str | None = None) -> Case:
        """A DSH home with one session (cwd: a small real workspace unless given) whose log `build` spoils."""
        self._n += 1
        home = self.root / f"dsh{self._n:03d}"
        ws = self.root / f"dshws{self._n:03d}"
        ws.mkdir()
        (ws / "cache.md").write_text(GOOD_DOC, encoding="utf-8")
        build(home, ws if cwd is None else Path(cwd))
        case = Case(kind)
        h = str(home)
        case.commands.append(("conversation", ["conversation", "--dsh-home", h, "--json"]))
        case.commands.append(("rank --session", ["rank", "--session", "auto", "--dsh-home", h, "--json"]))
        case.commands.append(("sessions (text)", ["sessions", "--dsh-home", h]))
        case.mcp.append((["--dsh-home", h], "knit_docs", {}))
        self.cases.append(case)
        return case

    def memory(self, kind: str, build: Callable[[Path], None], query: str = "editor keys") -> Case:
        self._n += 1
        mem = self.root / f"memory{self._n:03d}"
        mem.mkdir()
        (mem / "prefs.md").write_text("# Preferences\n\n## Editor\n- vim keys everywhere\n", encoding="utf-8")
        build(mem)
        case = Case(kind)
        m = str(mem)
        case.commands.append(("memory QUERY", ["memory", query, "--memory-dir", m, "--json"]))
        case.commands.append(("memory (structure)", ["memory", "--memory-dir", m]))
        case.commands.append(("propose", ["propose", "remember this", "--target", "prefs.md", "--memory-dir", m]))
        case.mcp.append((["--memory-dir", m], "memory_search", {"query": query}))
        self.cases.append(case)
        return case

    # --- running -----------------------------------------------------------------------------------------------

    def env(self, case: Case) -> dict[str, str]:
        env = {**os.environ, "KNIT_DESKTOP_HOME": str(self.home), "QT_QPA_PLATFORM": "offscreen",
               "PYTHONPATH": str(Path(__file__).resolve().parents[2])}
        env.update(case.env)
        return env

    def run(self, mcp: bool, timeout: float, only: str = "") -> list[Row]:
        rows: list[Row] = []
        for case in self.cases:
            if only and only not in case.kind:
                continue
            for label, args in case.commands:
                m = measure(knit(*args), timeout=timeout, env=self.env(case), stdin=case.stdin, cwd=str(self.root))
                rows.append(Row(case.kind, label, str(m.code), m.wall_s, m.rss_mb, m.traceback, m.code == -9,
                                _leaked(m.stdout) or _leaked(m.stderr),
                                any(c in m.stdout + m.stderr for c in "\x1b\x07")))
                _print_row(rows[-1])
            if mcp:
                for server_args, tool, arguments in case.mcp:
                    rows.append(self.run_mcp(case, server_args, tool, arguments, timeout))
                    _print_row(rows[-1])
        return rows

    def run_mcp(self, case: Case, server_args: list[str], tool: str, arguments: dict, timeout: float) -> Row:
        from mcp.client.session import ClientSession
        from mcp.client.stdio import StdioServerParameters, stdio_client

        rusage = self.root / f"mcp-{time.monotonic_ns()}.rusage"
        errlog = self.root / f"mcp-{time.monotonic_ns()}.err"
        params = StdioServerParameters(command=sys.executable,
                                       args=["-c", _SERVER_WRAPPER, str(rusage), *knit("mcp", *server_args)],
                                       env=self.env(case), cwd=str(self.root))
        state = {"error": False, "timeout": False, "wall": 0.0}

        async def main() -> None:
            with open(errlog, "w") as err:
                async with stdio_client(params, errlog=err) as (read, write), ClientSession(read, write) as session:
                    await session.initialize()
                    t0 = time.perf_counter()
                    try:
                        result = await asyncio.wait_for(session.call_tool(tool, arguments), timeout)
                        state["error"] = bool(result.is_error)
                        state["leak"] = _leaked(result.model_dump_json())
                    except TimeoutError:
                        state["timeout"] = True
                    state["wall"] = time.perf_counter() - t0

        t_start = time.perf_counter()
        try:
            asyncio.run(asyncio.wait_for(main(), timeout + 30))
        except Exception as exc:  # the server died or never answered
            if os.environ.get("KNIT_SWEEP_DEBUG"):
                import traceback

                traceback.print_exception(exc)
            state["error"] = True
            state["crash"] = f"{type(exc).__name__}"
        if not state["wall"]:
            state["wall"] = time.perf_counter() - t_start
        deadline = time.monotonic() + 10
        while not rusage.exists() and time.monotonic() < deadline:
            time.sleep(0.05)
        try:
            rss_kb, code = (int(x) for x in rusage.read_text().split())
        except (OSError, ValueError):
            rss_kb, code = 0, -1
        stderr = errlog.read_text(errors="replace") if errlog.exists() else ""
        for path in (rusage, errlog):
            with contextlib.suppress(OSError):
                path.unlink()
        label = f"mcp {tool}" + (" (no query)" if tool == "knit_docs" and "query" not in arguments else "")
        code_text = f"{code}" + ("/err" if state["error"] else "") + (f"/{state['crash']}" if "crash" in state else "")
        return Row(case.kind, label, code_text, state["wall"], rss_kb / 1024,
                   "Traceback (most recent call last)" in stderr, state["timeout"], bool(state.get("leak")))


# The MCP server runs under this wrapper so its peak RSS can be read when it exits (SIGTERM is passed on).
_SERVER_WRAPPER = textwrap.dedent(
    """
    import os, signal, sys
    pid = os.fork()
    if pid == 0:
        os.execvp(sys.argv[2], sys.argv[2:])
    signal.signal(signal.SIGTERM, lambda *_: os.kill(pid, signal.SIGTERM))
    while True:
        try:
            _, status, usage = os.wait4(pid, 0)
            break
        except InterruptedError:
            continue
    open(sys.argv[1], "w").write(f"{usage.ru_maxrss} {os.waitstatus_to_exitcode(status)}")
    """
)


def _print_row(row: Row) -> None:
    flags = []
    if row.timeout:
        flags.append("TIMEOUT")
    if row.wall_s > LIMIT_S:
        flags.append(">10s")
    if row.rss_mb > LIMIT_MB:
        flags.append(">512MB")
    if row.traceback:
        flags.append("TRACEBACK")
    if row.leak:
        flags.append("LEAK")
    if row.raw_control:
        flags.append("RAW-ESC")
    print(f"| {row.kind:<38} | {row.command:<22} | {row.code:>8} | {row.wall_s:7.2f} | {row.rss_mb:7.0f} | "
          f"{'yes' if row.traceback else 'no':<9} | {' '.join(flags)}", flush=True)


# --- the kinds of bad input --------------------------------------------------------------------------------------


def _looping_pdf() -> bytes:
    """A PDF whose page tree contains itself (no xref: readers repair it and walk the tree)."""
    return (b"%PDF-1.4\n1 0 obj << /Type /Catalog /Pages 2 0 R >> endobj\n"
            b"2 0 obj << /Type /Pages /Kids [2 0 R 3 0 R] /Count 2 >> endobj\n"
            b"3 0 obj << /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] >> endobj\n"
            b"trailer << /Root 1 0 R >>\n%%EOF\n")


def _pdf(path: Path, pages: list[str], **save) -> None:
    import pymupdf

    doc = pymupdf.open()
    for text in pages:
        doc.new_page().insert_text((72, 72), text)
    doc.save(str(path), **save)
    doc.close()


_AES256 = 5  # pymupdf.PDF_ENCRYPT_AES_256


def _sparse(path: Path, size: int, head: bytes = b"") -> None:
    with open(path, "wb") as fh:
        fh.write(head)
        fh.truncate(size)


def _nested(depth: int) -> str:
    return "[" * depth + "]" * depth


def build_cases(s: Sweep) -> None:
    secret = s.secret
    # Links that lead out of the workspace, and other odd directory entries.
    s.workspace("symlink to a file outside (absolute)", lambda w: (w / "leak.md").symlink_to(secret))
    s.workspace("symlink to a file outside (relative)",
                lambda w: (w / "leak.txt").symlink_to(os.path.relpath(secret, w)))
    s.workspace("symlink to /proc/self/environ", lambda w: (w / "env.txt").symlink_to("/proc/self/environ"))
    s.workspace("symlink to /etc/passwd", lambda w: (w / "passwd.md").symlink_to("/etc/passwd"))
    s.workspace("directory symlink outside", lambda w: (w / "outside").symlink_to(secret.parent))
    s.workspace("directory symlink to /", lambda w: (w / "root").symlink_to("/"))
    s.workspace("symlink loop", lambda w: ((w / "a.md").symlink_to(w / "b.md"), (w / "b.md").symlink_to(w / "a.md")))
    s.workspace("dangling symlink", lambda w: (w / "gone.md").symlink_to(w / "nothing-here.md"))
    s.workspace("directory symlink loop", lambda w: (w / "sub").mkdir() or (w / "sub" / "up").symlink_to(w))
    s.workspace("fifo named .md", lambda w: os.mkfifo(w / "pipe.md"))
    s.workspace("invalid UTF-8 file name", lambda w: Path(os.fsdecode(os.path.join(os.fsencode(w), b"bad-\xff\xfe.md")))
                .write_bytes(b"# Cache eviction in a badly named file\n"))
    s.workspace("newline and ESC in a file name", lambda w: (w / "new\nline\x1b[31m.md").write_text("# cache\n"))
    s.workspace("255-byte file name", lambda w: (w / ("n" * 252 + ".md")).write_text("# cache eviction\n"))
    s.workspace("directory nested 200 deep", lambda w: _deep(w, 200))
    s.workspace("3,000 tiny files", lambda w: [(w / f"f{i}.md").write_text(f"# note {i}\ncache\n") for i in range(3000)])
    s.workspace("unreadable file (mode 000)", lambda w: _unreadable(w / "locked.md"))
    s.workspace("unreadable directory (mode 000)", lambda w: _unreadable_dir(w / "locked"))
    # Odd text.
    s.workspace("control characters in a title", lambda w: (w / "ctl.md").write_text(
        "# Cache \x1b[2J\x1b[31mred\x07 eviction\x00\n\nrules\n"))
    s.workspace("UTF-16 with BOM", lambda w: (w / "u16.txt").write_bytes("Cache eviction rules\n".encode("utf-16")))
    s.workspace("UTF-32 with BOM", lambda w: (w / "u32.txt").write_bytes("Cache eviction rules\n".encode("utf-32")))
    s.workspace("UTF-8 with BOM", lambda w: (w / "bom.md").write_bytes(b"\xef\xbb\xbf# Cache eviction\n"))
    s.workspace("GB18030 text", lambda w: (w / "gb.txt").write_bytes("缓存淘汰规则 cache eviction\n".encode("gb18030")))
    s.workspace("Latin-1 text", lambda w: (w / "latin.txt").write_bytes("Caché éviction rules, déjà vu\n".encode("latin-1")))
    s.workspace("NUL bytes in Markdown", lambda w: (w / "nul.md").write_bytes(b"# cache\x00\x00 eviction\n" * 100))
    s.workspace("empty files", lambda w: [(w / n).write_bytes(b"") for n in ("e.md", "e.txt", "e.pdf", "e.png")])
    s.workspace("invalid UTF-8 bytes in Markdown", lambda w: (w / "bad.md").write_bytes(b"# cache \xff\xfe\xc0 eviction\n"))
    # Super-linear pattern bait.
    s.workspace("60 KB line of [", lambda w: (w / "brackets.md").write_text("[" * 60_000 + "\n"))
    s.workspace("2 MB line of [", lambda w: (w / "brackets2.md").write_text("[" * 2_000_000 + "\n"))
    s.workspace("2 MB of ](", lambda w: (w / "parens.md").write_text("](" * 1_000_000 + "\n"))
    s.workspace("2 MB of [a](", lambda w: (w / "links.md").write_text("[a](" * 500_000 + "\n"))
    s.workspace("1 MB of <!--", lambda w: (w / "comments.md").write_text("<!--" * 250_000 + "\n"))
    s.workspace("2 MB of *_` emphasis", lambda w: (w / "emph.md").write_text("*_`" * 700_000 + "\n"))
    s.workspace("100,000 headings", lambda w: (w / "heads.md").write_text("# cache\n" * 100_000))
    s.workspace("100,000 link definitions", lambda w: (w / "defs.md").write_text(
        "".join(f"[l{i}]: ./x{i}.md\n" for i in range(100_000))))
    s.workspace("60 MB single line", lambda w: (w / "long.md").write_text("cache " * 10_000_000))
    # Big and sparse.
    s.workspace("1 GB sparse .md", lambda w: _sparse(w / "huge.md", 1 << 30, b"# cache eviction\n"))
    s.workspace("1 GB sparse .txt", lambda w: _sparse(w / "huge.txt", 1 << 30, b"cache eviction\n"))
    s.workspace("1 GB sparse .pdf", lambda w: _sparse(w / "huge.pdf", 1 << 30, b"%PDF-1.4\n"))
    s.workspace("1 GB sparse .png", lambda w: _sparse(w / "huge.png", 1 << 30, b"\x89PNG\r\n\x1a\n"))
    # PDFs.
    s.workspace("PDF whose page tree loops", lambda w: (w / "loop.pdf").write_bytes(_looping_pdf()))
    s.workspace("truncated PDF", lambda w: (_pdf(w / "t.pdf", ["cache eviction"] * 3),
                                             (w / "t.pdf").write_bytes((w / "t.pdf").read_bytes()[:300])))
    s.workspace("encrypted PDF", lambda w: _pdf(w / "enc.pdf", ["cache eviction secret"], encryption=_AES256,
                                                 owner_pw="owner", user_pw="user"))
    s.workspace("PDF of 2,000 pages", lambda w: _pdf(w / "many.pdf", [f"page {i} cache" for i in range(2000)]))
    s.workspace("garbage named .pdf", lambda w: (w / "junk.pdf").write_bytes(os.urandom(200_000)))
    s.workspace("garbage named .png/.mp4", lambda w: ((w / "junk.png").write_bytes(os.urandom(5000)),
                                                       (w / "junk.mp4").write_bytes(os.urandom(5000))))
    # Unsafe or missing workspaces.
    s.add_workspace_command("workspace is /", ["rank", "--workspace", "/", "--query", QUERY, "--json"])
    fake_home = s.root / "home" / "someone"
    (fake_home / "Documents").mkdir(parents=True)
    (fake_home / "Documents" / "cache.md").write_text(GOOD_DOC, encoding="utf-8")
    s.add_workspace_command("workspace is the home folder", ["index", "--workspace", str(fake_home), "--json"],
                            env={"HOME": str(fake_home)})
    s.add_workspace_command("workspace does not exist", ["rank", "--workspace", str(s.root / "nope"), "--query", QUERY])
    s.add_workspace_command("workspace is a file", ["rank", "--workspace", str(secret), "--query", QUERY])
    # Knit's own files damaged.
    _damaged_index_cases(s)
    # --messages.
    s.messages("messages nested 200,000 deep", _nested(200_000))
    s.messages("messages with a 100,000-digit number", '[{"role": "user", "text": "cache", "n": ' + "9" * 100_000 + "}]")
    s.messages("messages is an object", "{}")
    s.messages("messages invalid UTF-8", b'[{"role": "user", "text": "\xff\xfe cache"}]')
    s.messages("messages of 50 MB text", json.dumps([{"role": "user", "text": "cache eviction " * 3_500_000}]))
    s.messages("messages with wrong types", '[{"role": 5, "text": ["x"]}, null, 3]')
    s.messages("messages with lone surrogates", '[{"role": "user", "text": "\\ud800 cache \\udfff"}]')
    # DSH logs.
    s.dsh("zstd bomb (2 GB, size not declared)", lambda h, c: _log_with(h, c, zstd_bomb()))
    s.dsh("zstd bomb (2 GB, size declared)", lambda h, c: _log_with(h, c, zstd_bomb(declare_size=True)))
    s.dsh("zstd frame of one 2 GB JSON line", lambda h, c: _log_with(h, c, json_bomb()))
    s.dsh("200 MB log", lambda h, c: big_log(h, 200 * 1024 * 1024, cwd=str(c)))
    s.dsh("torn log (cut mid-frame)", _torn_log)
    s.dsh("garbage log", lambda h, c: _raw_log(h, os.urandom(100_000)))
    s.dsh("corrupt frame in the middle", lambda h, c: _log_with(h, c, b"\x28\xb5\x2f\xfd" + b"\x00\xff" * 500))
    s.dsh("JSON nested 100,000 deep in a log line", lambda h, c: _log_with(h, c, _frame(_nested(100_000) + "\n")))
    s.dsh("100,000-digit seq in a log line", lambda h, c: _log_with(h, c, _frame(
        '{"type": "user/message", "seq": ' + "9" * 100_000 + ', "data": {}}\n')))
    s.dsh("control characters in the session title", lambda h, c: _log_with(h, c, _frame(json.dumps(
        {"type": "session/title", "seq": 3, "data": {"title": "evil \x1b[2J\x1b]0;pwned\x07 title"}}) + "\n")))
    s.dsh("uncompressed log with a 100 MB line", _long_line_log)
    s.dsh("empty log file", lambda h, c: _raw_log(h, b""))
    s.dsh("session cwd is /", lambda h, c: _log_with(h, c, b""), cwd="/")
    s.dsh("session cwd is ../..", lambda h, c: _log_with(h, c, b""), cwd="../..")
    s.dsh("session cwd does not exist", lambda h, c: _log_with(h, c, b""), cwd="/no/such/dir")
    s.dsh("log is a directory", _log_is_directory)
    # Memory files and the proposal queue.
    s.memory("memory: tag comment + 3,000 spaces", lambda m: (m / "tags.md").write_text(
        "# T\n\n## Editor\n<!-- tags:" + " " * 3000 + "x\n- keys\n"))
    s.memory("memory: 1 GB sparse file", lambda m: _sparse(m / "huge.md", 1 << 30, b"# huge\n## Editor\n- keys\n"))
    s.memory("memory: binary file", lambda m: (m / "bin.md").write_bytes(os.urandom(50_000)))
    s.memory("memory: invalid UTF-8", lambda m: (m / "bad.md").write_bytes(b"## Editor \xff\n- keys \xfe\n"))
    s.memory("memory: symlink outside", lambda m: (m / "leak.md").symlink_to(secret))
    s.memory("memory: 100,000 list items", lambda m: (m / "many.md").write_text(
        "## Editor\n" + "".join(f"- editor key {i}\n" for i in range(100_000))))
    s.memory("memory: 3 MB line of [", lambda m: (m / "brackets.md").write_text("## Editor\n" + "[" * 3_000_000))
    s.memory("memory: 3 MB of <!-- tags:", lambda m: (m / "c.md").write_text("<!-- tags: " * 270_000))
    s.memory("queue file holds {}", lambda m: _queue(s, m, "{}"))
    s.memory("queue file holds garbage", lambda m: _queue(s, m, "\x00\xff not json"))
    s.memory("queue file nested 100,000 deep", lambda m: _queue(s, m, _nested(100_000)))
    s.memory("memory: control characters in headings", lambda m: (m / "ctl.md").write_text(
        "# \x1b[2JT\n\n## Editor \x1b[31m\x07\n- keys\n"))
    case = Case("propose: 5,000 characters")
    case.commands.append(("propose", ["propose", "x" * 5000, "--memory-dir", str(s.root / "memory-none")]))
    s.cases.append(case)
    case = Case("memory dir is a file")
    case.commands.append(("memory QUERY", ["memory", "editor", "--memory-dir", str(secret)]))
    case.commands.append(("propose", ["propose", "hello", "--memory-dir", str(secret)]))
    s.cases.append(case)


def _deep(w: Path, depth: int) -> None:
    p = w
    for i in range(depth):
        p = p / f"d{i}"
    p.mkdir(parents=True)
    (p / "deep.md").write_text("# deep cache eviction\n")


def _unreadable(path: Path) -> None:
    path.write_text("# cache eviction\n")
    path.chmod(0)


def _unreadable_dir(path: Path) -> None:
    path.mkdir()
    (path / "in.md").write_text("# cache\n")
    path.chmod(0)


def _frame(text: str) -> bytes:
    import zstandard

    return zstandard.ZstdCompressor().compress(text.encode())


def _log_with(home: Path, cwd: Path, bad: bytes) -> DshLog:
    w = DshLog(home, "s1", str(cwd))
    w.append_rows([w.user("how do cache eviction rules work?")])
    w.append_bytes(bad)
    w.append_rows([w.assistant("Eviction is least recently used first."), w.user("and the cache size?")])
    return w


def _raw_log(home: Path, data: bytes) -> None:
    path = home / "sessions" / "--w--" / "s1" / "session.v4.jsonl.zstd"
    path.parent.mkdir(parents=True)
    path.write_bytes(data)


def _torn_log(home: Path, cwd: Path) -> None:
    w = _log_with(home, cwd, b"")
    frame = w.frame([w.user("this frame was cut")])
    w.append_bytes(frame[: len(frame) // 2])


def _long_line_log(home: Path, cwd: Path) -> None:
    w = DshLog(home, "s1", str(cwd), compress=False)
    w.append_rows([w.user("cache eviction")])
    with open(w.path, "r+b") as fh:
        fh.truncate(w.path.stat().st_size + 100 * 1024 * 1024)
    w.append_bytes(b"\n")
    w.append_rows([w.user("after the long line")])


def _log_is_directory(home: Path, cwd: Path) -> None:
    (home / "sessions" / "--w--" / "s1" / "session.v4.jsonl.zstd").mkdir(parents=True)


def _queue(s: Sweep, m: Path, content: str) -> None:
    queue = s.home / "memory-proposals.json"
    queue.parent.mkdir(parents=True, exist_ok=True)
    queue.write_text(content, encoding="utf-8", errors="surrogateescape")


def _damaged_index_cases(s: Sweep) -> None:
    from knit_desktop.core import paths

    os.environ["KNIT_DESKTOP_HOME"] = str(s.home)

    def indexed(name: str) -> tuple[Path, Path]:
        ws = s.root / name
        ws.mkdir()
        (ws / "cache.md").write_text(GOOD_DOC, encoding="utf-8")
        for i in range(50):
            (ws / f"n{i}.md").write_text(f"# note {i}\n\ncache eviction {i}\n")
        import subprocess

        subprocess.run(knit("index", "--workspace", str(ws)), env=s.env(Case("")), capture_output=True, timeout=120)
        return ws, paths.index_db_path(os.path.realpath(ws))

    ws, db = indexed("idx-garbage")
    with open(db, "r+b") as fh:  # garbage in the middle of the database file
        fh.seek(db.stat().st_size // 2)
        fh.write(os.urandom(8192))
    s.add_workspace_command("index: garbage in the middle of the SQLite file",
                            ["rank", "--workspace", str(ws), "--query", QUERY, "--json"], mcp_args=["--workspace", str(ws)])
    ws, db = indexed("idx-header")
    with open(db, "r+b") as fh:
        fh.write(b"not a database at all!")
    s.add_workspace_command("index: SQLite header overwritten", ["rank", "--workspace", str(ws), "--query", QUERY])
    ws, db = indexed("idx-dir")
    for suffix in ("", "-wal", "-shm"):
        with contextlib.suppress(OSError):
            os.unlink(str(db) + suffix)
    db.mkdir()
    s.add_workspace_command("index: DB path is a directory", ["rank", "--workspace", str(ws), "--query", QUERY])
    ws, db = indexed("idx-rows")
    with contextlib.suppress(sqlite3.Error):
        con = sqlite3.connect(db)
        for table, in con.execute("SELECT name FROM sqlite_master WHERE type='table'").fetchall():
            if table != "meta":
                con.execute(f'DELETE FROM "{table}" WHERE rowid % 2 = 0')
        con.execute("UPDATE meta SET value = 'garbage' WHERE key != 'root'")
        con.commit()
        con.close()
    s.add_workspace_command("index: half the rows gone, meta garbage", ["context", "--workspace", str(ws), "--query", QUERY])
    ws, db = indexed("idx-truncated")
    with open(db, "r+b") as fh:
        fh.truncate(db.stat().st_size // 3)
    s.add_workspace_command("index: SQLite file truncated", ["rank", "--workspace", str(ws), "--query", QUERY])
    ro_home = s.root / "read-only-home"
    ro_home.mkdir()
    ws = s.root / "ws-for-ro"
    ws.mkdir()
    (ws / "cache.md").write_text(GOOD_DOC, encoding="utf-8")
    ro_home.chmod(0o555)
    s.add_workspace_command("read-only data dir", ["rank", "--workspace", str(ws), "--query", QUERY],
                            env={"KNIT_DESKTOP_HOME": str(ro_home)})
    s.add_workspace_command("data dir path under a file", ["rank", "--workspace", str(ws), "--query", QUERY],
                            env={"KNIT_DESKTOP_HOME": str(s.secret / "sub")})


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--only", default="", help="run only the kinds whose name contains this")
    parser.add_argument("--no-mcp", action="store_true")
    parser.add_argument("--timeout", type=float, default=30.0, help="seconds before a run is killed (default 30)")
    opts = parser.parse_args()
    signal.signal(signal.SIGINT, signal.default_int_handler)
    with tempfile.TemporaryDirectory(prefix="knit-bad-input-") as tmp:
        sweep = Sweep(Path(tmp))
        t0 = time.perf_counter()
        build_cases(sweep)
        kinds = len(sweep.cases)
        print(f"{kinds} kinds of bad input built in {time.perf_counter() - t0:.0f} s under {tmp}\n")
        print(f"| {'kind':<38} | {'command':<22} | {'exit':>8} | {'wall s':>7} | {'peak MB':>7} | traceback | flags")
        print(f"|{'-' * 40}|{'-' * 24}|{'-' * 10}|{'-' * 9}|{'-' * 9}|{'-' * 11}|------")
        try:
            rows = sweep.run(not opts.no_mcp, opts.timeout, opts.only)
        finally:
            _restore_modes(Path(tmp))
    slow = sum(r.wall_s > LIMIT_S for r in rows)
    big = sum(r.rss_mb > LIMIT_MB for r in rows)
    tracebacks = sum(r.traceback for r in rows)
    timeouts = sum(r.timeout for r in rows)
    leaks = sum(r.leak for r in rows)
    raw = sum(r.raw_control for r in rows)
    print(f"\n{kinds} kinds, {len(rows)} runs: {slow} over {LIMIT_S:.0f} s, {big} over {LIMIT_MB:.0f} MB, "
          f"{tracebacks} with a traceback, {timeouts} timed out, {leaks} quoting a file outside the workspace, "
          f"{raw} printing raw control characters")
    return 0 if not (slow or big or tracebacks or timeouts or leaks or raw) else 1


def _restore_modes(root: Path) -> None:
    """Give back permissions taken away, so the temp dir can be removed."""
    for dirpath, dirnames, filenames in os.walk(root, topdown=True):
        for name in dirnames + filenames:
            with contextlib.suppress(OSError):
                p = os.path.join(dirpath, name)
                if not os.path.islink(p):
                    os.chmod(p, 0o755)
    with contextlib.suppress(OSError):
        os.chmod(root, 0o755)


if __name__ == "__main__":
    sys.exit(main())
