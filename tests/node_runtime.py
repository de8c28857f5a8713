"""A Node.js new enough for DSH's own packages, for the tests that run them.

DSH needs Node >= 20.12 (`util.parseEnv`); Debian bookworm's `nodejs` is 18. Where the system's node is older,
the official Node binary is installed from the npm registry (the `node-linux-<arch>` packages carry it) into the
tests' cache, once, and used instead. npm itself (any version) is what installs it.
"""

from __future__ import annotations

import hashlib
import os
import platform
import re
import shutil
import subprocess
import uuid
from pathlib import Path

MINIMUM = (20, 12)  # DSH's config and schema packages
PINNED = "20.20.2"  # the Node they are tested with here
_ARCH = {"x86_64": "x64", "amd64": "x64", "aarch64": "arm64", "arm64": "arm64"}


def _cache_root() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "knit-desktop-tests"


def node_version(node: str) -> tuple[int, ...]:
    try:
        out = subprocess.run([node, "--version"], capture_output=True, text=True, timeout=30).stdout
    except OSError:
        return ()
    m = re.match(r"v(\d+)\.(\d+)\.(\d+)", out.strip())
    return tuple(int(x) for x in m.groups()) if m else ()


def node_binary(minimum: tuple[int, int] = MINIMUM, pinned: str = PINNED) -> tuple[str | None, str]:
    """(path to a node >= minimum, '') or (None, why not): the system's, else `pinned` from the npm registry."""
    system = shutil.which("node")
    if system and node_version(system)[:2] >= minimum:
        return system, ""
    npm = shutil.which("npm")
    arch = _ARCH.get(platform.machine().lower())
    if npm is None or arch is None:
        found = ".".join(map(str, node_version(system))) if system else "none"
        return None, f"DSH's packages need Node >= {minimum[0]}.{minimum[1]} (found: {found}) and npm to install one"
    package = f"node-linux-{arch}"
    target = _cache_root() / f"node-{pinned}-{arch}"
    binary = target / "node_modules" / package / "bin" / "node"
    if not binary.exists():
        target.parent.mkdir(parents=True, exist_ok=True)
        staging = target.parent / f".staging-node-{os.getpid()}-{uuid.uuid4().hex[:8]}"
        staging.mkdir()
        try:
            done = subprocess.run(
                [npm, "install", "--prefix", str(staging), "--ignore-scripts", "--no-audit", "--no-fund",
                 "--loglevel=error", f"{package}@{pinned}"], capture_output=True, text=True, timeout=900)
            if done.returncode != 0:
                return None, f"installing {package}@{pinned} with npm failed: {done.stderr[-500:]}"
            try:
                os.rename(staging, target)
            except OSError:
                if not binary.exists():
                    raise
        finally:
            shutil.rmtree(staging, ignore_errors=True)
    if node_version(str(binary))[:2] < minimum:
        return None, f"{binary} does not run"
    return str(binary), ""


def unavailable(reason: str) -> None:
    """Skip locally; fail in CI, which must run every test that needs node (.ci/run installs it)."""
    import pytest

    if os.environ.get("CI", "").strip().lower() not in ("", "0", "false", "no"):
        pytest.fail(f"{reason} (CI must run this test: .ci/run installs nodejs and npm)")
    pytest.skip(reason)


def npm_project(source: Path, name: str, npm_args: list[str], node: str, ready: str = "node_modules") -> Path:
    """`source`'s package.json and package-lock.json installed with `npm <npm_args>` into the tests' cache, once per
    content of those two files: built in a private staging dir, then renamed into place, so two test processes
    never see a half-installed tree (the loser of the rename discards its copy). `ready` is the path, inside the
    install, whose presence means it is complete.

    npm runs under `node`, the Node the packages will run on: npm silently skips optional dependencies whose
    `engines` the running Node does not meet (sharp's prebuilt binaries need Node 20 and are skipped under
    Debian's 18, and DSH then fails to load its attachment plugin)."""
    import pytest

    files = ("package.json", "package-lock.json")
    digest = hashlib.sha256(b"".join((source / f).read_bytes() for f in files)).hexdigest()[:16]
    root = _cache_root() / name
    target = root / digest
    if (target / ready).exists():
        return target
    root.mkdir(parents=True, exist_ok=True)
    staging = root / f".staging-{digest}-{os.getpid()}-{uuid.uuid4().hex[:8]}"
    staging.mkdir()
    try:
        for f in files:
            shutil.copy2(source / f, staging / f)
        npm = os.path.realpath(shutil.which("npm") or "npm")  # npm-cli.js, run under `node` below
        env = {**os.environ, "PATH": os.path.dirname(node) + os.pathsep + os.environ.get("PATH", "")}
        done = subprocess.run([node, npm, *npm_args, "--ignore-scripts", "--no-audit", "--no-fund", "--loglevel=error"],
                              cwd=staging, capture_output=True, text=True, timeout=900, env=env)
        if done.returncode != 0:
            pytest.fail(f"npm {npm_args[0]} failed in {staging}:\n{done.stdout[-2000:]}\n{done.stderr[-4000:]}")
        try:
            os.rename(staging, target)
        except OSError:
            if not (target / ready).exists():
                raise
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    return target
