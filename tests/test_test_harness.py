"""The harness itself: leaked threads are caught (checked in a subprocess so this run stays clean)."""

import subprocess
import sys
import textwrap
from pathlib import Path


def test_a_test_leaving_a_qthread_running_fails(tmp_path):
    tests_dir = Path(__file__).resolve().parent
    (tmp_path / "conftest.py").write_text((tests_dir / "conftest.py").read_text(encoding="utf-8"), encoding="utf-8")
    (tmp_path / "test_leak.py").write_text(
        textwrap.dedent(
            """
            from PySide6.QtCore import QThread

            def test_leaks():
                thread = QThread()
                thread.start()
                globals()["keep"] = thread
            """
        ),
        encoding="utf-8",
    )
    out = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", str(tmp_path)],
        capture_output=True, text=True, timeout=120, cwd=tmp_path,
    )
    assert "QThread(s) still running after the test" in out.stdout, out.stdout + out.stderr
    assert out.returncode != 0


def test_only_a_boot_lost_to_dshs_profile_root_race_is_started_again():
    sys.path.insert(0, str(Path(__file__).resolve().parent / "dsh_real"))
    from run_dsh import DshRun, lost_profile_root_race

    race = ("Error: dsh: plugin tree failed to load: dsh: 1 entry did not activate\n"
            "cordis:include: ConfigFileError: failed to validate config file /tmp/h/dsh/profiles/headless/cordis.yml")
    assert lost_profile_root_race(DshRun(1, "", race, 0.13))
    assert not lost_profile_root_race(DshRun(0, "", race, 0.13))  # it ran
    assert not lost_profile_root_race(DshRun(1, "", race, 2.0, requests=[{"model": "m"}]))  # it reached the model
    assert not lost_profile_root_race(DshRun(1, "", "mcp-client: server failed to start", 0.5))
    # The same empty read met first by the patch step (two DSH processes booting in one home, seen in a fresh root).
    patched = ("dsh: fatal load failure: TypeError: entries is not iterable\n    at buildMap (file:///x/dsh-app-boot/"
               "lib/index.js:62:23)\n    at applyEntryPatches (file:///x/dsh-app-boot/lib/index.js:67:2)")
    assert lost_profile_root_race(DshRun(1, "", patched, 1.29))
    assert not lost_profile_root_race(DshRun(1, "", patched, 1.29, requests=[{"model": "m"}]))
