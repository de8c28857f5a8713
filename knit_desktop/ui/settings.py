"""The window's settings: the typed options of `core.config` with a change signal and debounced writes.

One source of truth: the keys, types, defaults and allowed values live in `core/config.py`, which the command line
and the MCP server read too; this class only adds what a window needs. A setter changes the value at once (and
says so through `changed(key)`), but the file is written at most once per WRITE_INTERVAL_MS (a splitter drag is
hundreds of moves), and the last change is written when the app quits or `flush()` is called.
"""

from __future__ import annotations

from PySide6.QtCore import QByteArray, QCoreApplication, QObject, Signal

from ..core import config as options
from ..core.config import (  # noqa: F401  (re-exported: the dialog and the window import them from here)
    DEFAULT_PREVIEW_RATIO,
    KINDS,
    LANGUAGES,
    LIST_SCOPES,
    MAX_PREVIEW_RATIO,
    MIN_PREVIEW_RATIO,
    NOTE_COLOURS,
    NOTE_SHAPES,
    NOTE_SIZES,
    SORTS,
    Config,
    Option,
)
from .throttle import Throttle

WRITE_INTERVAL_MS = 1000


def clamp_ratio(value: float) -> float:
    return options.PREVIEW_RATIO.clamp(value)


class Settings(QObject):
    """Typed accessors; `changed(key)` (a `core.config` option's key) tells the window to apply a preference the
    moment it is set."""

    changed = Signal(str)

    def __init__(self, path: str | None = None, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.config = Config(path)
        self.path = str(self.config.path)
        self.write_error = ""  # why the last write failed ('' if it did not); the change stays pending
        self._write = Throttle(self._save, WRITE_INTERVAL_MS, self)
        app = QCoreApplication.instance()
        if app is not None:
            app.aboutToQuit.connect(self.flush)

    def _save(self) -> None:
        try:
            self.config.save()
            self.write_error = ""
        except OSError as exc:
            self.write_error = f"{self.path}: {exc.strerror or exc}"

    def flush(self) -> None:
        """Write what is still waiting for the debounce (on quit; a new Settings over the same file reads it)."""
        self._write.flush()
        if self.config.unsaved:
            self._save()

    def get(self, option: Option) -> object:
        return self.config.get(option)

    def set(self, option: Option, value: object) -> None:
        if self.config.set(option, value):
            self._write()
            self.changed.emit(option.key)

    # --- preferences ---------------------------------------------------------------------------------

    @property
    def language(self) -> str:
        return self.config.get(options.LANGUAGE)

    @language.setter
    def language(self, value: str) -> None:
        self.set(options.LANGUAGE, value)

    @property
    def sort(self) -> str:
        return self.config.get(options.SORT)

    @sort.setter
    def sort(self, value: str) -> None:
        self.set(options.SORT, value)

    @property
    def kind(self) -> str:
        return self.config.get(options.KIND)

    @kind.setter
    def kind(self, value: str) -> None:
        self.set(options.KIND, value)

    @property
    def scope(self) -> str:
        """What the list ranks over: "workspace", "library" (the library folders) or "all" (both)."""
        return self.config.get(options.LIST_SCOPE)

    @scope.setter
    def scope(self, value: str) -> None:
        self.set(options.LIST_SCOPE, value)

    @property
    def workspace(self) -> str:
        """A fixed folder, or '' to follow the DSH session's working directory."""
        return self.config.get(options.WORKSPACE)

    @workspace.setter
    def workspace(self, value: str) -> None:
        self.set(options.WORKSPACE, value)

    @property
    def dsh_home(self) -> str:
        return self.config.get(options.DSH_HOME)

    @dsh_home.setter
    def dsh_home(self, value: str) -> None:
        self.set(options.DSH_HOME, value)

    @property
    def always_on_top(self) -> bool:
        return self.config.get(options.ALWAYS_ON_TOP)

    @always_on_top.setter
    def always_on_top(self, value: bool) -> None:
        self.set(options.ALWAYS_ON_TOP, bool(value))

    @property
    def tray(self) -> bool:
        return self.config.get(options.TRAY)

    @tray.setter
    def tray(self, value: bool) -> None:
        self.set(options.TRAY, bool(value))

    @property
    def show_usage(self) -> bool:
        return self.config.get(options.SHOW_USAGE)

    @show_usage.setter
    def show_usage(self, value: bool) -> None:
        self.set(options.SHOW_USAGE, bool(value))

    @property
    def preview_ratio(self) -> float:
        return self.config.get(options.PREVIEW_RATIO)

    @preview_ratio.setter
    def preview_ratio(self, value: float) -> None:
        self.set(options.PREVIEW_RATIO, value)

    @property
    def geometry(self) -> QByteArray | None:
        value = self.config.get(options.GEOMETRY)
        return QByteArray(value) if value else None

    @geometry.setter
    def geometry(self, value: QByteArray) -> None:
        self.set(options.GEOMETRY, bytes(value.data()))

    @property
    def told_about_tray(self) -> bool:
        """The user was told once that closing the window leaves Knit in the tray."""
        return self.config.get(options.TOLD_ABOUT_TRAY)

    @told_about_tray.setter
    def told_about_tray(self, value: bool) -> None:
        self.set(options.TOLD_ABOUT_TRAY, bool(value))

    # --- memory and its sticky notes -----------------------------------------------------------------

    @property
    def library_folders(self) -> list[str]:
        """The library folders (core.config's QSettings array, read by the command line and the MCP server too)."""
        return options.library_folders(self.config)

    @library_folders.setter
    def library_folders(self, folders: list[str]) -> None:
        if options.set_library_folders(self.config, folders):
            self.flush()  # written at once, not debounced: the MCP server answers from it at its next call
            self.changed.emit(options.LIBRARY_FOLDERS)

    @property
    def memory_dir(self) -> str:
        """The memory directory, or '' for <DSH home>/memory."""
        return self.config.get(options.MEMORY_DIR)

    @memory_dir.setter
    def memory_dir(self, value: str) -> None:
        self.set(options.MEMORY_DIR, value)

    @property
    def note_shape(self) -> str:
        return self.config.get(options.NOTE_SHAPE)

    @note_shape.setter
    def note_shape(self, value: str) -> None:
        self.set(options.NOTE_SHAPE, value)

    @property
    def note_colour(self) -> str:
        return self.config.get(options.NOTE_COLOUR)

    @note_colour.setter
    def note_colour(self, value: str) -> None:
        self.set(options.NOTE_COLOUR, value)

    @property
    def note_size(self) -> str:
        return self.config.get(options.NOTE_SIZE)

    @note_size.setter
    def note_size(self, value: str) -> None:
        self.set(options.NOTE_SIZE, value)

    @property
    def note_position(self) -> tuple[int, int] | None:
        return self.config.get(options.NOTE_POSITION)

    @note_position.setter
    def note_position(self, value: tuple[int, int] | None) -> None:
        self.set(options.NOTE_POSITION, value)
