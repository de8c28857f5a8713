"""The eval corpus copied into a temp workspace with fixed, spread-out modification times."""

from __future__ import annotations

import hashlib
import json
import os
import shutil
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent
EVAL_NOW_MS = 1_780_000_000_000
DAY_MS = 86_400_000


def age_days(rel: str) -> int:
    # Deterministic ages between 0 and 59 days, so freshness varies but never decides alone.
    return int(hashlib.sha256(rel.encode()).hexdigest()[:8], 16) % 60


@pytest.fixture(scope="session")
def eval_cases() -> dict:
    return json.loads((HERE / "cases.json").read_text(encoding="utf-8"))


@pytest.fixture(scope="session")
def eval_workspace(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("eval") / "harbor"
    shutil.copytree(HERE / "corpus", root)
    for path in root.rglob("*"):
        if path.is_file():
            rel = path.relative_to(root).as_posix()
            mtime = (EVAL_NOW_MS - age_days(rel) * DAY_MS) * 1_000_000
            os.utime(path, ns=(mtime, mtime))
    return root


# A held-out memory set's questions and its memory files (parsed in a temp folder), for the test module that names
# the set in HELD_OUT (a (corpus, cases) pair of memory_eval).
@pytest.fixture(scope="module")
def held_out_cases(request) -> list[dict]:
    from .memory_eval import load_cases

    return load_cases(*request.module.HELD_OUT)


@pytest.fixture(scope="module")
def held_out_libraries(request, tmp_path_factory) -> list:
    from .memory_eval import load_libraries

    corpus, _ = request.module.HELD_OUT
    return load_libraries(corpus, tmp_path_factory.mktemp("held-out"))
