"""The committed catalogues are complete and current: lupdate finds nothing new, lrelease gives the same .qm."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from PySide6.QtCore import QCoreApplication, QLocale

from knit_desktop.ui.i18n import LanguageSwitcher, resolve_language
from knit_desktop.ui.wording import relative_time_text

REPO = Path(__file__).resolve().parent.parent
I18N = REPO / "resources" / "i18n"
CATALOGUES = ("knit_zh_CN", "knit_en")
BIN = Path(sys.executable).parent


def tool(name: str) -> str:
    found = shutil.which(name, path=str(BIN)) or shutil.which(name)
    if not found:
        pytest.fail(f"{name} is missing: it comes with PySide6")
    return found


def test_lupdate_finds_no_string_that_the_catalogues_lack(tmp_path):
    copies = []
    for name in CATALOGUES:
        copy = tmp_path / f"{name}.ts"
        shutil.copy(I18N / f"{name}.ts", copy)
        copies.append(copy)
    sources = sorted(str(p) for p in (REPO / "knit_desktop" / "ui").glob("*.py"))
    subprocess.run([tool("pyside6-lupdate"), "-locations", "none", *sources, "-ts", *map(str, copies)],
                   check=True, capture_output=True, cwd=I18N)
    for name, copy in zip(CATALOGUES, copies):
        assert copy.read_text(encoding="utf-8") == (I18N / f"{name}.ts").read_text(encoding="utf-8"), (
            f"{name}.ts is out of date: run `make translations` and translate the new entries")
    assert 'type="unfinished"' not in (I18N / "knit_zh_CN.ts").read_text(encoding="utf-8")


def test_the_compiled_catalogues_match_their_sources(tmp_path):
    for name in CATALOGUES:
        built = tmp_path / f"{name}.qm"
        subprocess.run([tool("pyside6-lrelease"), str(I18N / f"{name}.ts"), "-qm", str(built)], check=True,
                       capture_output=True)
        assert built.read_bytes() == (I18N / f"{name}.qm").read_bytes(), f"{name}.qm is stale: run `make translations`"


def test_the_system_locale_picks_the_language():
    assert resolve_language("system", QLocale(QLocale.Language.Chinese, QLocale.Country.China)) == "zh_CN"
    assert resolve_language("system", QLocale(QLocale.Language.Chinese, QLocale.Country.Taiwan)) == "zh_CN"
    assert resolve_language("system", QLocale(QLocale.Language.German)) == "en"
    assert resolve_language("en", QLocale(QLocale.Language.Chinese)) == "en"


def test_relative_times_and_plurals_in_both_languages(qapp):
    now = 1_780_000_000_000
    switcher = LanguageSwitcher()
    try:
        switcher.apply("en")
        assert relative_time_text(now - 60_000, now) == "1 min ago"
        assert relative_time_text(now - 5 * 60_000, now) == "5 min ago"
        assert relative_time_text(now - 3 * 3_600_000, now) == "3 h ago"
        switcher.apply("zh_CN")
        assert relative_time_text(now - 5 * 60_000, now) == "5分钟前"
        assert relative_time_text(now - 3 * 3_600_000, now) == "3小时前"
        assert QCoreApplication.translate("DocumentListModel", "%n docs", "", 2) == "2 篇"
    finally:
        switcher.clear()
    assert QCoreApplication.translate("HeaderBar", "Relevant") == "Relevant"
