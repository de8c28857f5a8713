"""The deep-hit rule's candidates (`Ranking.strong_body_hits`): the same documents as ever, found without loading
modules the window would then hold for good."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from knit_desktop.core.rank.ranking import _sorted_distinct

REPO = Path(__file__).resolve().parents[1]


@pytest.mark.parametrize("values", [
    [], [7], [3, 3, 3], [5, 1, 4, 1, 5, 9, 2, 6, 5, 3], list(range(100, 0, -1)) * 2,
    np.random.default_rng(3).integers(0, 500, size=2_000).tolist(),
])
@pytest.mark.parametrize("dtype", [np.int32, np.int64])
def test_sorted_distinct_is_what_unique_gives(values: list[int], dtype: type) -> None:
    array = np.array(values, dtype=dtype)
    expected = np.unique(array)
    got = _sorted_distinct(array.copy())
    assert got.dtype == expected.dtype
    assert got.tolist() == expected.tolist()


STRONG_HITS = """
import sys
from knit_desktop.core.workspace import RankInput, Workspace
ws = Workspace.open(sys.argv[1])
ranking = ws.rank(RankInput.from_query("retry backoff"), now_ms=1_780_000_000_000)
hits = sorted(ranking.index.docs[int(d)].rel for d in ranking.strong_body_hits(2))
print(",".join(hits))
print("numpy.ma" in sys.modules)
"""


def test_strong_body_hits_leave_numpy_ma_unloaded(tmp_path: Path) -> None:
    """np.unique imports numpy.ma (to ask whether its input is masked): 2 MB the window held from its first
    context pack on, its source lines included."""
    workspace = tmp_path / "ws"
    workspace.mkdir()
    (workspace / "retry.md").write_text("# Upload\n\nretry retry retry backoff backoff\n")
    (workspace / "once.md").write_text("# Notes\n\nretry once, backoff once\n")
    (workspace / "other.md").write_text("# Other\n\nnothing here\n")
    env = {**os.environ, "PYTHONPATH": str(REPO), "KNIT_DESKTOP_HOME": str(tmp_path / "home")}
    done = subprocess.run([sys.executable, "-c", STRONG_HITS, str(workspace)], cwd=REPO, env=env,
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    hits, ma_loaded = done.stdout.split()
    assert hits == "retry.md"
    assert ma_loaded == "False"
