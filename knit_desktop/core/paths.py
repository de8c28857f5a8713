"""Where Knit keeps its own files. Never inside a workspace; KNIT_DESKTOP_HOME overrides everything."""

from __future__ import annotations

import hashlib
import os
import re
import sys
from pathlib import Path

APP_DIR = "knit-desktop"


def app_home() -> Path:
    override = os.environ.get("KNIT_DESKTOP_HOME")
    if override:
        return Path(override)
    if sys.platform == "win32":
        base = Path(os.environ.get("LOCALAPPDATA") or Path.home() / "AppData" / "Local")
    elif sys.platform == "darwin":
        base = Path.home() / "Library" / "Caches"
    else:
        base = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache")
    return base / APP_DIR


def config_home() -> Path:
    """Where preferences live: not the cache, so clearing the cache never loses them."""
    override = os.environ.get("KNIT_DESKTOP_HOME")
    if override:
        return Path(override)
    if sys.platform == "win32":
        base = Path(os.environ.get("APPDATA") or Path.home() / "AppData" / "Roaming")
    elif sys.platform == "darwin":
        base = Path.home() / "Library" / "Application Support"
    else:
        base = Path(os.environ.get("XDG_CONFIG_HOME") or Path.home() / ".config")
    return base / APP_DIR


def data_home() -> Path:
    """Where Knit keeps what it must not lose but the user does not edit: pending memory proposals, backups of
    memory files taken before a confirmed write."""
    override = os.environ.get("KNIT_DESKTOP_HOME")
    if override:
        return Path(override)
    if sys.platform == "win32":
        base = Path(os.environ.get("APPDATA") or Path.home() / "AppData" / "Roaming")
    elif sys.platform == "darwin":
        base = Path.home() / "Library" / "Application Support"
    else:
        base = Path(os.environ.get("XDG_DATA_HOME") or Path.home() / ".local" / "share")
    return base / APP_DIR


def index_db_path(real_root: str) -> Path:
    """One database per workspace, keyed by its real path (the readable part is only for people)."""
    digest = hashlib.sha256(real_root.encode("utf-8", "surrogatepass")).hexdigest()[:16]
    label = re.sub(r"[^A-Za-z0-9._-]+", "_", os.path.basename(real_root.rstrip("/\\")) or "root")[:40]
    return app_home() / "indexes" / f"{label}-{digest}.sqlite3"
