"""The demo: a fresh copy of the bundled sample workspace, with believable modification times.

The copy lives in Knit's own data directory, so the bundle is never written to and a user may edit the demo files
and watch the ranking follow. Each launch starts from a clean copy.
"""

from __future__ import annotations

import json
import os
import shutil
import time
from pathlib import Path

from .core.paths import app_home
from .resources import demo_workspace, resources_dir

DEFAULT_AGE_MINUTES = 7 * 24 * 60


def prepare_demo_workspace(now_ms: int | None = None, dest: Path | None = None) -> Path:
    now = now_ms if now_ms is not None else int(time.time() * 1000)
    target = dest or app_home() / "demo-workspace"
    if target.exists():
        shutil.rmtree(target)
    shutil.copytree(demo_workspace(), target)
    ages = json.loads((resources_dir() / "demo" / "ages.json").read_text(encoding="utf-8"))
    for base, _dirs, names in os.walk(target):
        for name in names:
            path = Path(base) / name
            rel = path.relative_to(target).as_posix()
            minutes = ages.get(rel, DEFAULT_AGE_MINUTES)
            stamp = now - int(minutes) * 60_000
            os.utime(path, ns=(stamp * 1_000_000, stamp * 1_000_000))
    return target
