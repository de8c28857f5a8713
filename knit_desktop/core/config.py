"""Knit's settings: one typed facade over `settings.ini`, for the window, the command line and the MCP server.

Every preference is an `Option` declared once below: its key (`group/name`), its type, its default and what values
it accepts. `Config` reads the file, hands out typed values (anything missing, unreadable or not allowed reads as
the default, so a broken settings file never stops a command) and writes changes back atomically, merged into what
is on disk at that moment, so keys it does not know (written by another version) are kept. The window wraps it
(`ui/settings.py`) to add a change signal and to debounce writes; other processes only read. Command-line flags
override what the file says.

The file stays in QSettings' INI dialect, so a file written by an earlier Knit (through QSettings) reads the same
and QSettings reads what this writes: `group/key` is stored as `[group]` + `key=`; a value with `,` `;` `=` or
leading or trailing spaces is written in double quotes, control characters and `"` `\\` with C-like escapes
(`\\"`, `\\\\`, `\\t`, `\\xHH`, `\\0`), and a hex digit right after a `\\x`/`\\0` escape is escaped too; a leading
`@` is doubled (`@@`); `@String(…)` text with a NUL in it, `@ByteArray(…)` holds bytes (the window's geometry) with every byte above 0x7E escaped;
other `@` values (`@Variant(…)`) are binary types no option holds. Non-ASCII text is UTF-8 (Qt 6). Bools are
`true`/`false`, numbers as Qt writes them.
"""

from __future__ import annotations

import configparser
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Generic, TypeVar

from .atomic_write import replace_text
from .paths import config_home

SETTINGS_FILE = "settings.ini"
T = TypeVar("T")
_ESCAPES = {"a": "\a", "b": "\b", "f": "\f", "n": "\n", "r": "\r", "t": "\t", "v": "\v", '"': '"', "'": "'",
            "\\": "\\", "?": "?"}
_NAMED = {"\a": "\\a", "\b": "\\b", "\f": "\\f", "\n": "\\n", "\r": "\\r", "\t": "\\t", "\v": "\\v", '"': '\\"',
          "\\": "\\\\"}
_HEX = "0123456789abcdefABCDEF"


def settings_path() -> Path:
    return config_home() / SETTINGS_FILE


# --- QSettings' INI value syntax ---------------------------------------------------------------------------------

def _unescape(raw: str) -> str | None:
    """A raw INI value without its quotes and escapes; None for a list (an unquoted comma)."""
    raw = raw.strip()
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
                while j < len(raw) and j < i + 6 and raw[j] in _HEX:
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
            return None  # an unquoted comma makes a string list: no option is one
        else:
            out.append(ch)
            i += 1
    return "".join(out)


def decode_ini_value(raw: str) -> str | bytes | None:
    """One QSettings INI value as QSettings would return it: text, bytes (`@ByteArray`), or None for a list or
    another binary type."""
    text = _unescape(raw)
    if text is None:
        return None
    if text.startswith("@@"):
        return text[1:]
    if text.startswith("@String(") and text.endswith(")"):
        return text[len("@String(") : -1]  # text with a NUL in it
    if text.startswith("@ByteArray(") and text.endswith(")"):
        try:
            return text[len("@ByteArray(") : -1].encode("latin-1")
        except UnicodeEncodeError:
            return None
    if text.startswith("@"):
        return None  # @Variant(...), @Invalid(): not a plain value
    return text


def unescape_ini_value(raw: str) -> str | None:
    """One QSettings INI value as the string QSettings would return; None for a list or a binary type."""
    value = decode_ini_value(raw)
    return value if isinstance(value, str) else None


def encode_ini_value(value: str | bytes) -> str:
    """The INI text QSettings writes for a string or bytes value (QSettingsPrivate::iniEscapedString)."""
    if isinstance(value, bytes):
        text, binary = "@ByteArray(" + value.decode("latin-1") + ")", True
    else:
        text, binary = ("@" + value if value.startswith("@") else value), False
        if "\0" in value:
            text = f"@String({value})"
    out: list[str] = []
    escape_next_digit = False
    for ch in text:
        if escape_next_digit and ch in _HEX:
            out.append(f"\\x{ord(ch):x}")
            continue
        escape_next_digit = False
        if ch == "\0":
            out.append("\\0")
            escape_next_digit = True
        elif ch in _NAMED:
            out.append(_NAMED[ch])
        elif ord(ch) <= 0x1F or (binary and ord(ch) >= 0x7F):
            out.append(f"\\x{ord(ch):x}")
            escape_next_digit = True
        else:
            out.append(ch)
    result = "".join(out)
    if any(c in text for c in ";,=") or result.startswith(" ") or result.endswith(" "):
        result = f'"{result}"'
    return result


# --- typed options -----------------------------------------------------------------------------------------------

class Option(Generic[T]):
    """One preference: its key, its default, how its stored text reads (`parse`, None = not allowed) and writes."""

    def __init__(self, key: str, default: T) -> None:
        self.key = key
        self.default = default

    def parse(self, stored: str | bytes) -> T | None:
        raise NotImplementedError

    def format(self, value: T) -> str | bytes:
        raise NotImplementedError

    def normalise(self, value: T) -> T:
        """What setting `value` stores: an allowed value, else the default."""
        parsed = self.parse(self.format(value))
        return self.default if parsed is None else parsed

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.key!r})"


class TextOption(Option[str]):
    """Free text; `strip` for paths, where surrounding spaces are always a typo."""

    def __init__(self, key: str, default: str = "", *, strip: bool = False) -> None:
        super().__init__(key, default)
        self.strip = strip

    def parse(self, stored: str | bytes) -> str | None:
        if not isinstance(stored, str):
            return None
        return stored.strip() if self.strip else stored

    def format(self, value: str) -> str:
        return (value or "").strip() if self.strip else (value or "")


class ChoiceOption(Option[str]):
    def __init__(self, key: str, default: str, choices: Sequence[str]) -> None:
        super().__init__(key, default)
        self.choices = tuple(choices)

    def parse(self, stored: str | bytes) -> str | None:
        return stored if isinstance(stored, str) and stored in self.choices else None

    def format(self, value: str) -> str:
        return value if value in self.choices else self.default


class BoolOption(Option[bool]):
    def parse(self, stored: str | bytes) -> bool | None:
        if not isinstance(stored, str):
            return None
        return {"true": True, "1": True, "false": False, "0": False}.get(stored.strip().lower())

    def format(self, value: bool) -> str:
        return "true" if value else "false"


class FloatOption(Option[float]):
    """A number clamped to [low, high], rounded to `digits` so a drag's last pixel does not count as a change."""

    def __init__(self, key: str, default: float, low: float, high: float, digits: int = 4) -> None:
        super().__init__(key, default)
        self.low, self.high, self.digits = low, high, digits

    def clamp(self, value: float) -> float:
        return min(self.high, max(self.low, value))

    def parse(self, stored: str | bytes) -> float | None:
        try:
            number = float(stored)
        except (TypeError, ValueError):
            return None
        return self.clamp(number) if number == number else None  # NaN is not a ratio

    def format(self, value: float) -> str:
        return repr(round(self.clamp(float(value)), self.digits))


class PointOption(Option["tuple[int, int] | None"]):
    """A screen position `x,y`, or None (unset, stored as '')."""

    def parse(self, stored: str | bytes) -> tuple[int, int] | None:
        if not isinstance(stored, str):
            return None
        try:
            x, y = (int(v) for v in stored.split(","))
        except ValueError:
            return None
        return x, y

    def format(self, value: tuple[int, int] | None) -> str:
        return "" if value is None else f"{int(value[0])},{int(value[1])}"


class BytesOption(Option["bytes | None"]):
    """Opaque bytes (a saved window geometry), stored as QSettings stores a QByteArray."""

    def parse(self, stored: str | bytes) -> bytes | None:
        return stored if isinstance(stored, bytes) and stored else None

    def format(self, value: bytes | None) -> bytes:
        return bytes(value or b"")


# Every preference, once. The window's Settings, the command line and the MCP server read these.
LANGUAGES = ("system", "zh_CN", "en")
SORTS = ("relevance", "time")
KINDS = ("doc", "media", "all")
NOTE_SHAPES = ("capsule", "rounded", "square", "circle")
# The seed's five colours (sea blue, mist purple, moss green, amber, rose), or the theme's own.
NOTE_COLOURS = {"theme": "", "sea": "#2f7fbf", "mist": "#8a7fbf", "moss": "#5f8f4f", "amber": "#d9962b",
                "rose": "#cf4f73"}
NOTE_SIZES = ("S", "M", "L")
DEFAULT_PREVIEW_RATIO = 0.46
MIN_PREVIEW_RATIO, MAX_PREVIEW_RATIO = 0.2, 0.8

LANGUAGE = ChoiceOption("ui/language", "system", LANGUAGES)
SORT = ChoiceOption("list/sort", "relevance", SORTS)
KIND = ChoiceOption("list/kind", "doc", KINDS)
LIST_SCOPES = ("workspace", "library", "all")  # the window's Workspace / Library / Both switch
LIST_SCOPE = ChoiceOption("list/scope", "workspace", LIST_SCOPES)
SHOW_USAGE = BoolOption("list/show_usage", False)
WORKSPACE = TextOption("workspace/fixed", strip=True)  # '' follows the DSH session's folder
DSH_HOME = TextOption("dsh/home", strip=True)  # '' is DSH_HOME, else ~/.dsh
ALWAYS_ON_TOP = BoolOption("window/always_on_top", False)
TRAY = BoolOption("window/tray", True)
GEOMETRY = BytesOption("window/geometry", None)
TOLD_ABOUT_TRAY = BoolOption("window/told_about_tray", False)  # closing to the tray was said once
PREVIEW_RATIO = FloatOption("preview/ratio", DEFAULT_PREVIEW_RATIO, MIN_PREVIEW_RATIO, MAX_PREVIEW_RATIO)
MEMORY_DIR = TextOption("memory/dir", strip=True)  # '' is <DSH home>/memory
NOTE_SHAPE = ChoiceOption("memory/note_shape", "capsule", NOTE_SHAPES)
NOTE_COLOUR = ChoiceOption("memory/note_colour", "theme", tuple(NOTE_COLOURS))
NOTE_SIZE = ChoiceOption("memory/note_size", "M", NOTE_SIZES)
NOTE_POSITION = PointOption("memory/note_position", None)

OPTIONS: tuple[Option, ...] = (LANGUAGE, SORT, KIND, SHOW_USAGE, WORKSPACE, DSH_HOME, ALWAYS_ON_TOP, TRAY, GEOMETRY,
                                TOLD_ABOUT_TRAY, PREVIEW_RATIO, MEMORY_DIR, NOTE_SHAPE, NOTE_COLOUR, NOTE_SIZE,
                                NOTE_POSITION)


# --- the file ----------------------------------------------------------------------------------------------------

class _IniParser(configparser.ConfigParser):
    """QSettings' file shape: `=` only, `;` comments only at a line's start, case-sensitive keys."""

    def __init__(self) -> None:
        super().__init__(interpolation=None, strict=False, delimiters=("=",), comment_prefixes=(";",),
                         inline_comment_prefixes=None, default_section="\x00none")

    def optionxform(self, optionstr: str) -> str:
        return optionstr


def _read_raw(path: Path) -> _IniParser:
    parser = _IniParser()
    try:
        with open(path, encoding="utf-8", errors="replace") as handle:
            parser.read_file(handle)
    except (OSError, configparser.Error, UnicodeError):
        return _IniParser()
    return parser


def _split(key: str) -> tuple[str, str]:
    group, _, name = key.rpartition("/")
    return group or "General", name


class Config:
    """The settings file in memory: typed `get`, `set` (in memory, returns whether the value changed) and `save`.

    `save` re-reads the file and writes only the keys set since the last save over it, atomically, so another
    process's keys (and keys of options this version does not know) survive."""

    def __init__(self, path: Path | str | None = None) -> None:
        self.path = Path(path) if path is not None else settings_path()
        self._stored: dict[str, str | bytes | None] = {}
        self._pending: dict[str, str | bytes] = {}
        self.reload()

    def reload(self) -> None:
        parser = _read_raw(self.path)
        self._stored = {}
        for section in parser.sections():
            for name, raw in parser.items(section, raw=True):
                key = name if section == "General" else f"{section}/{name}"
                self._stored[key] = decode_ini_value(raw)
        self._stored.update(self._pending)

    def get(self, option: Option[T]) -> T:
        stored = self._stored.get(option.key)
        parsed = option.parse(stored) if stored is not None else None
        return option.default if parsed is None else parsed

    def set(self, option: Option[T], value: T) -> bool:
        """Store `value` (or the default, if it is not allowed); False if that is what the option already holds."""
        text = option.format(option.normalise(value))
        if self._stored.get(option.key) == text:  # compared as stored: "true" is True, "0.46" is 0.46
            return False
        self._stored[option.key] = text
        self._pending[option.key] = text
        return True

    @property
    def unsaved(self) -> bool:
        return bool(self._pending)

    def save(self) -> None:
        """Write the pending changes (raises OSError if the file cannot be written; they stay pending)."""
        if not self._pending:
            return
        parser = _read_raw(self.path)
        for key, value in self._pending.items():
            section, name = _split(key)
            if not parser.has_section(section):
                parser.add_section(section)
            parser.set(section, name, encode_ini_value(value))
        lines: list[str] = []
        for section in parser.sections():
            lines.append(f"[{section}]")
            lines.extend(f"{name}={raw}" for name, raw in parser.items(section, raw=True))
            lines.append("")
        self.path.parent.mkdir(parents=True, exist_ok=True)
        replace_text(self.path, "\n".join(lines))
        self._pending.clear()


@dataclass(frozen=True)
class SharedSettings:
    """What the window chose that other processes must honour ('' means "the default")."""

    dsh_home: str = ""
    memory_dir: str = ""
    language: str = "system"
    workspace: str = ""
    library: tuple[str, ...] = ()  # the library folders, in the order they were added

    @classmethod
    def load(cls, path: Path | None = None) -> SharedSettings:
        config = Config(path)
        return cls(dsh_home=config.get(DSH_HOME), memory_dir=config.get(MEMORY_DIR),
                   language=config.get(LANGUAGE), workspace=config.get(WORKSPACE),
                   library=tuple(library_folders(config)))


# The library folders: a QSettings array (`beginWriteArray("library/folders")`, field `path`), stored as
# `[library]` `folders\1\path=…` … `folders\size=N`, so QSettings' readArray and this facade read the same entries.
# Entries past `size` (left by a longer list) are ignored by both.
LIBRARY_FOLDERS = "library/folders"
MAX_LIBRARY_FOLDERS = 1000


def _library_entry(i: int) -> TextOption:
    return TextOption(f"{LIBRARY_FOLDERS}\\{i}\\path", strip=True)


_LIBRARY_SIZE = TextOption(f"{LIBRARY_FOLDERS}\\size", strip=True)


def library_folders(config: Config) -> list[str]:
    try:
        size = int(config.get(_LIBRARY_SIZE) or 0)
    except ValueError:
        return []
    folders = [config.get(_library_entry(i)) for i in range(1, min(size, MAX_LIBRARY_FOLDERS) + 1)]
    return [folder for folder in folders if folder]


def set_library_folders(config: Config, folders: Sequence[str]) -> bool:
    """Set the list (in memory; `config.save()` writes it); False if it is what the file holds already."""
    if list(folders) == library_folders(config):
        return False
    for i, folder in enumerate(folders, start=1):
        config.set(_library_entry(i), folder)
    config.set(_LIBRARY_SIZE, str(len(folders)))
    return True


def write_library_folders(folders: Sequence[str], path: Path | None = None) -> None:
    """Write the library folders into the settings file now (the command line's `library add|remove`), merged into
    what is on disk, atomically."""
    config = Config(path)
    if set_library_folders(config, folders):
        config.save()
