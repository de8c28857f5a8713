"""One settings object over QSettings (IniFormat), so every preference has one name, one type and one default."""

from __future__ import annotations

from PySide6.QtCore import QByteArray, QObject, QSettings, Signal

from ..core.paths import config_home

LANGUAGES = ("system", "zh_CN", "en")
SORTS = ("relevance", "time")
KINDS = ("doc", "media", "all")
DEFAULT_PREVIEW_RATIO = 0.46
MIN_PREVIEW_RATIO, MAX_PREVIEW_RATIO = 0.2, 0.8
NOTE_SHAPES = ("capsule", "rounded", "square", "circle")
# The seed's five colours (sea blue, mist purple, moss green, amber, rose), or the theme's own.
NOTE_COLOURS = {"theme": "", "sea": "#2f7fbf", "mist": "#8a7fbf", "moss": "#5f8f4f", "amber": "#d9962b",
                "rose": "#cf4f73"}
NOTE_SIZES = ("S", "M", "L")


def clamp_ratio(value: float) -> float:
    return min(MAX_PREVIEW_RATIO, max(MIN_PREVIEW_RATIO, value))


class Settings(QObject):
    """Typed accessors; `changed(key)` tells the window to apply a preference the moment it is set."""

    changed = Signal(str)

    def __init__(self, path: str | None = None, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.path = path or str(config_home() / "settings.ini")
        self._qs = QSettings(self.path, QSettings.Format.IniFormat)

    def _get(self, key: str, default: object, allowed: tuple | None = None) -> object:
        value = self._qs.value(key, default)
        if allowed is not None and value not in allowed:
            return default
        return value

    def _set(self, key: str, value: object) -> None:
        if self._qs.value(key) == value:
            return
        self._qs.setValue(key, value)
        self._qs.sync()
        self.changed.emit(key)

    def _bool(self, key: str, default: bool) -> bool:
        value = self._qs.value(key, default)
        return value in (True, "true", "1", 1) if not isinstance(value, bool) else value

    # --- preferences ---------------------------------------------------------------------------------

    @property
    def language(self) -> str:
        return str(self._get("ui/language", "system", LANGUAGES))

    @language.setter
    def language(self, value: str) -> None:
        self._set("ui/language", value if value in LANGUAGES else "system")

    @property
    def sort(self) -> str:
        return str(self._get("list/sort", "relevance", SORTS))

    @sort.setter
    def sort(self, value: str) -> None:
        self._set("list/sort", value if value in SORTS else "relevance")

    @property
    def kind(self) -> str:
        return str(self._get("list/kind", "doc", KINDS))

    @kind.setter
    def kind(self, value: str) -> None:
        self._set("list/kind", value if value in KINDS else "doc")

    @property
    def workspace(self) -> str:
        """A fixed folder, or '' to follow the DSH session's working directory."""
        return str(self._get("workspace/fixed", ""))

    @workspace.setter
    def workspace(self, value: str) -> None:
        self._set("workspace/fixed", value or "")

    @property
    def dsh_home(self) -> str:
        return str(self._get("dsh/home", ""))

    @dsh_home.setter
    def dsh_home(self, value: str) -> None:
        self._set("dsh/home", value or "")

    @property
    def always_on_top(self) -> bool:
        return self._bool("window/always_on_top", False)

    @always_on_top.setter
    def always_on_top(self, value: bool) -> None:
        self._set("window/always_on_top", bool(value))

    @property
    def tray(self) -> bool:
        return self._bool("window/tray", True)

    @tray.setter
    def tray(self, value: bool) -> None:
        self._set("window/tray", bool(value))

    @property
    def show_usage(self) -> bool:
        return self._bool("list/show_usage", False)

    @show_usage.setter
    def show_usage(self, value: bool) -> None:
        self._set("list/show_usage", bool(value))

    @property
    def preview_ratio(self) -> float:
        try:
            return clamp_ratio(float(self._qs.value("preview/ratio", DEFAULT_PREVIEW_RATIO)))
        except (TypeError, ValueError):
            return DEFAULT_PREVIEW_RATIO

    @preview_ratio.setter
    def preview_ratio(self, value: float) -> None:
        self._set("preview/ratio", round(clamp_ratio(value), 4))

    @property
    def geometry(self) -> QByteArray | None:
        value = self._qs.value("window/geometry")
        return value if isinstance(value, QByteArray) else None

    @geometry.setter
    def geometry(self, value: QByteArray) -> None:
        self._qs.setValue("window/geometry", value)
        self._qs.sync()

    # --- memory and its sticky notes -----------------------------------------------------------------

    @property
    def memory_dir(self) -> str:
        """The memory directory, or '' for <DSH home>/memory."""
        return str(self._get("memory/dir", ""))

    @memory_dir.setter
    def memory_dir(self, value: str) -> None:
        self._set("memory/dir", value or "")

    @property
    def note_shape(self) -> str:
        return str(self._get("memory/note_shape", "capsule", NOTE_SHAPES))

    @note_shape.setter
    def note_shape(self, value: str) -> None:
        self._set("memory/note_shape", value if value in NOTE_SHAPES else "capsule")

    @property
    def note_colour(self) -> str:
        return str(self._get("memory/note_colour", "theme", tuple(NOTE_COLOURS)))

    @note_colour.setter
    def note_colour(self, value: str) -> None:
        self._set("memory/note_colour", value if value in NOTE_COLOURS else "theme")

    @property
    def note_size(self) -> str:
        return str(self._get("memory/note_size", "M", NOTE_SIZES))

    @note_size.setter
    def note_size(self, value: str) -> None:
        self._set("memory/note_size", value if value in NOTE_SIZES else "M")

    @property
    def note_position(self) -> tuple[int, int] | None:
        value = self._qs.value("memory/note_position")
        try:
            x, y = (int(v) for v in str(value).split(","))
        except (TypeError, ValueError):
            return None
        return x, y

    @note_position.setter
    def note_position(self, value: tuple[int, int] | None) -> None:
        self._set("memory/note_position", "" if value is None else f"{value[0]},{value[1]}")
