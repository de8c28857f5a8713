"""Widgets only: the main window, the document list, previews, the tray. Logic lives in core and services."""

from .. import use_builtin_hashes

use_builtin_hashes()  # the window's process: before the modules below it import hashlib (see there)
