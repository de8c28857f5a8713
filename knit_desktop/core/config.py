"""The settings the window writes, read by every process (the command line and the MCP server too), without Qt.

The window keeps its preferences in `settings.ini` through QSettings (IniFormat). Only the preferences that other
processes need are read here: DSH's home, the memory folder, the language. Command-line flags override them;
anything missing or unreadable falls back to the defaults, so a broken settings file never stops a command.

QSettings' INI dialect: `group/key` is stored as `[group]` + `key=`; a value with `,` `;` `=` `"` or leading or
trailing spaces is written in double quotes with C-like escapes (`\\"`, `\\\\`, `\\t`, `\\xHHHH`); a leading `@` is
doubled (`@@`), and other `@` values (`@Variant(…)`, `@ByteArray(…)`) are binary types none of these keys hold.
Non-ASCII text is written as UTF-8 (Qt 6).
"""

from __future__ import annotations

import configparser
from dataclasses import dataclass
from pathlib import Path

from .paths import config_home

SETTINGS_FILE = "settings.ini"
LANGUAGES = ("system", "zh_CN", "en")
_ESCAPES = {"a": "\a", "b": "\b", "f": "\f", "n": "\n", "r": "\r", "t": "\t", "v": "\v", '"': '"', "'": "'",
            "\\": "\\", "?": "?"}


def settings_path() -> Path:
    return config_home() / SETTINGS_FILE


def unescape_ini_value(raw: str) -> str | None:
    """One QSettings INI value as the string QSettings would return; None for a list or a binary type."""
    raw = raw.strip()
    if raw.startswith("@@"):
        raw = raw[1:]
    elif raw.startswith("@"):
        return None  # @Variant(...), @ByteArray(...), @Invalid(): not a plain string
    out: list[str] = []
    quoted = False
    i = 0
    while i < len(raw):
        ch = raw[i]
        if ch == '"':
            quoted = not quoted
            i += 1
        elif ch == "\\" and i + 1 < len(raw):
            nxt = raw[i + 1]
            if nxt == "x":
                j = i + 2
                while j < len(raw) and j < i + 6 and raw[j] in "0123456789abcdefABCDEF":
                    j += 1
                out.append(chr(int(raw[i + 2 : j], 16)) if j > i + 2 else "x")
                i = j
            elif nxt in "01234567":
                j = i + 1
                while j < len(raw) and j < i + 4 and raw[j] in "01234567":
                    j += 1
                out.append(chr(int(raw[i + 1 : j], 8)))
                i = j
            else:
                out.append(_ESCAPES.get(nxt, nxt))
                i += 2
        elif ch == "," and not quoted:
            return None  # an unquoted comma makes a string list: not what a path or a name is
        else:
            out.append(ch)
            i += 1
    return "".join(out)


@dataclass(frozen=True)
class SharedSettings:
    """What the window chose that other processes must honour ('' means "the default")."""

    dsh_home: str = ""
    memory_dir: str = ""
    language: str = "system"
    workspace: str = ""

    @classmethod
    def load(cls, path: Path | None = None) -> SharedSettings:
        path = path or settings_path()
        parser = configparser.ConfigParser(interpolation=None, strict=False, delimiters=("=",),
                                           comment_prefixes=(";",), inline_comment_prefixes=None)
        parser.optionxform = str  # type: ignore[assignment,method-assign]  # keys are case-sensitive in Qt
        try:
            with open(path, encoding="utf-8", errors="replace") as handle:
                parser.read_file(handle)
        except (OSError, configparser.Error):
            return cls()

        def value(section: str, key: str) -> str:
            raw = parser.get(section, key, fallback=None)
            text = unescape_ini_value(raw) if raw is not None else None
            return text if isinstance(text, str) else ""

        language = value("ui", "language")
        return cls(
            dsh_home=value("dsh", "home").strip(),
            memory_dir=value("memory", "dir").strip(),
            language=language if language in LANGUAGES else "system",
            workspace=value("workspace", "fixed").strip(),
        )
