"""The system libraries Qt needs: one table, checked before Qt starts, installed by CI."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from knit_desktop import cli
from knit_desktop.core import system_libraries
from knit_desktop.core.system_libraries import TABLE, apt_packages, install_hint, missing_libraries

ROOT = Path(__file__).resolve().parent.parent
SCRIPT = ROOT / "knit_desktop" / "core" / "system_libraries.py"


@pytest.fixture
def without(monkeypatch):
    """Make the dynamic linker fail for the given sonames (and only those)."""

    def install(*sonames: str) -> None:
        real = system_libraries.ctypes.CDLL

        def cdll(name, *args, **kwargs):
            if name in sonames:
                raise OSError(f"{name}: cannot open shared object file: No such file or directory")
            return real(name, *args, **kwargs)

        monkeypatch.setattr(system_libraries.ctypes, "CDLL", cdll)
        monkeypatch.setattr(system_libraries.sys, "platform", "linux")

    return install


def test_a_missing_library_is_named_with_its_packages(without):
    without("libxcb-cursor.so.0")
    assert [row.soname for row in missing_libraries(("core",))] == ["libxcb-cursor.so.0"]
    hint = install_hint(missing_libraries())
    assert "\n" not in hint
    assert "libxcb-cursor.so.0" in hint
    assert "sudo apt install libxcb-cursor0" in hint
    assert "sudo dnf install xcb-util-cursor" in hint


def test_parts_are_checked_separately(without):
    without("libpulse.so.0")
    assert missing_libraries(("core",)) == []
    [row] = missing_libraries(("multimedia",))
    assert (row.debian, row.fedora, row.part) == ("libpulse0", "pulseaudio-libs", "multimedia")


def test_one_package_for_several_sonames_is_named_once(without):
    without("libglib-2.0.so.0", "libgthread-2.0.so.0")
    hint = install_hint(missing_libraries())
    assert hint.count("libglib2.0-0") == 1
    assert "libglib-2.0.so.0, libgthread-2.0.so.0" in hint


def test_the_table_names_each_soname_once_with_a_known_part():
    sonames = [row.soname for row in TABLE]
    assert len(sonames) == len(set(sonames))
    assert {row.part for row in TABLE} <= {"core", "multimedia", "wayland"}
    assert all(row.debian and row.soname.startswith("lib") and ".so." in row.soname for row in TABLE)


def test_check_exits_2_and_lists_what_is_missing(without, capsys):
    without("libva.so.2")
    assert system_libraries.main(["--check"]) == 2
    out, err = capsys.readouterr()
    assert out.split("\t")[:2] == ["libva.so.2", "libva2"]
    assert "sudo apt install libva2" in err


def test_apt_runs_with_a_plain_python_and_is_what_ci_installs():
    out = subprocess.run([sys.executable, "-I", str(SCRIPT), "--apt"], capture_output=True, text=True, check=True)
    packages = out.stdout.split()
    assert packages == apt_packages()
    for needed in ("libpulse0", "libva2", "libva-drm2", "libva-x11-2", "libxcb-cursor0", "libegl1", "fonts-noto-cjk"):
        assert needed in packages
    assert not any(row.debian in packages for row in TABLE if row.part == "wayland")
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    assert "python3 knit_desktop/core/system_libraries.py --apt" in ci


def test_the_window_refuses_to_start_with_one_line_when_qt_cannot(without, monkeypatch, capsys):
    without("libEGL.so.1")
    monkeypatch.setitem(cli.COMMANDS, "gui", lambda _args: pytest.fail("Qt must not start"))
    assert cli.main(["--demo"]) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("Knit Desktop needs system libraries that are missing: libEGL.so.1")
    assert "\n" not in err and "libegl1" in err


def test_commands_without_qt_do_not_check(without, monkeypatch):
    without("libEGL.so.1")
    monkeypatch.setitem(cli.COMMANDS, "memory", lambda _args: 0)
    assert cli.main(["memory"]) == 0
