"""Where Knit keeps its own files. Never inside a workspace; KNIT_DESKTOP_HOME overrides everything."""

from __future__ import annotations

import hashlib
import os
import re
import sys
from pathlib import Path

APP_DIR = "knit-desktop"


def _user_dir(windows: tuple[str, str], macos: str, xdg: tuple[str, str]) -> Path:
    """Knit's folder of one kind on this platform: (env var, fallback under the home folder) on Windows and
    freedesktop systems, a folder under ~/Library on macOS. KNIT_DESKTOP_HOME replaces them all."""
    override = os.environ.get("KNIT_DESKTOP_HOME")
    if override:
        return Path(override)
    if sys.platform == "win32":
        env, fallback = windows
    elif sys.platform == "darwin":
        return Path.home() / "Library" / macos / APP_DIR
    else:
        env, fallback = xdg
    return Path(os.environ.get(env) or Path.home() / fallback) / APP_DIR


def app_home() -> Path:
    """The cache: indexes, thumbnails, the demo copy. Always safe to delete."""
    return _user_dir(("LOCALAPPDATA", "AppData/Local"), "Caches", ("XDG_CACHE_HOME", ".cache"))


def config_home() -> Path:
    """Where preferences live: not the cache, so clearing the cache never loses them."""
    return _user_dir(("APPDATA", "AppData/Roaming"), "Application Support", ("XDG_CONFIG_HOME", ".config"))


def data_home() -> Path:
    """Where Knit keeps what it must not lose but the user does not edit: pending memory proposals, backups of
    memory files taken before a confirmed write."""
    return _user_dir(("APPDATA", "AppData/Roaming"), "Application Support", ("XDG_DATA_HOME", ".local/share"))


def index_db_path(real_root: str) -> Path:
    """One database per workspace, keyed by its real path (the readable part is only for people)."""
    digest = hashlib.sha256(real_root.encode("utf-8", "surrogatepass")).hexdigest()[:16]
    label = re.sub(r"[^A-Za-z0-9._-]+", "_", os.path.basename(real_root.rstrip("/\\")) or "root")[:40]
    return app_home() / "indexes" / f"{label}-{digest}.sqlite3"


def history_db_path(dsh_home: str) -> Path:
    """One history index per DSH home (its conversations, for recall), keyed by the home's real path."""
    real = os.path.realpath(dsh_home)
    digest = hashlib.sha256(real.encode("utf-8", "surrogatepass")).hexdigest()[:16]
    return app_home() / "history" / f"dsh-{digest}.sqlite3"
