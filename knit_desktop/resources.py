"""Where bundled resources (icons, translations, the demo workspace) live: the source tree or a frozen bundle."""

from __future__ import annotations

import os
import sys
from pathlib import Path


def resources_dir() -> Path:
    override = os.environ.get("KNIT_DESKTOP_RESOURCES")
    if override:
        return Path(override)
    frozen = getattr(sys, "_MEIPASS", None)
    if frozen:
        return Path(frozen) / "resources"
    return Path(__file__).resolve().parent.parent / "resources"


def demo_workspace() -> Path:
    return resources_dir() / "demo-workspace"


def demo_conversation() -> Path:
    return resources_dir() / "demo" / "conversation.json"
