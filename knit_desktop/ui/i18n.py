"""Loads Knit's translations (and Qt's own) for the chosen language; switching is live.

Installing a translator makes Qt send every widget a LanguageChange event; widgets re-word themselves in
`retranslate()`. English is the source language, but it too has a catalogue: plural forms ("1 document",
"2 documents") come from it.
"""

from __future__ import annotations

from PySide6.QtCore import QCoreApplication, QLibraryInfo, QLocale, QTranslator

from ..resources import resources_dir

CATALOGUE = "knit"


def translations_dir() -> str:
    return str(resources_dir() / "i18n")


def resolve_language(choice: str, system: QLocale | None = None) -> str:
    """'system' follows the locale: any Chinese locale gets 简体中文, everything else English."""
    if choice in ("zh_CN", "en"):
        return choice
    locale = system or QLocale.system()
    return "zh_CN" if locale.language() == QLocale.Language.Chinese else "en"


class LanguageSwitcher:
    """Owns the installed translators; `apply` swaps them."""

    def __init__(self) -> None:
        self._installed: list[QTranslator] = []
        self.language = ""

    def apply(self, choice: str) -> str:
        language = resolve_language(choice)
        app = QCoreApplication.instance()
        if app is None or language == self.language:
            return language
        self.clear()
        ours = QTranslator()
        if ours.load(f"{CATALOGUE}_{language}", translations_dir()):
            self._installed.append(ours)
        qt = QTranslator()
        if language != "en" and qt.load(QLocale(language), "qtbase", "_", QLibraryInfo.path(QLibraryInfo.LibraryPath.TranslationsPath)):
            self._installed.append(qt)
        for translator in self._installed:
            app.installTranslator(translator)
        self.language = language
        QLocale.setDefault(QLocale(language))
        return language

    def clear(self) -> None:
        """Remove our translators (the window closing for good, or a test ending)."""
        app = QCoreApplication.instance()
        for translator in self._installed:
            if app is not None:
                app.removeTranslator(translator)
        self._installed = []
        self.language = ""
