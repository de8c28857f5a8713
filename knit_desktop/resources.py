"""Where bundled resources (icons, translations, the demo workspace) live: an installed wheel, a frozen bundle or
the source tree.

They are kept in one place, `resources/` at the top of the source tree (where `make translations`, the
PyInstaller spec and the tests find them); building a wheel copies that folder into the package as
`knit_desktop/_resources` (`setup.py`), so `pip install .` gives a working app.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

PACKAGED = "_resources"


def resources_dir() -> Path:
    override = os.environ.get("KNIT_DESKTOP_RESOURCES")
    if override:
        return Path(override)
    frozen = getattr(sys, "_MEIPASS", None)
    if frozen:
        return Path(frozen) / "resources"
    here = Path(__file__).resolve().parent
    packaged = here / PACKAGED
    if packaged.is_dir():
        return packaged
    return here.parent / "resources"


def demo_workspace() -> Path:
    return resources_dir() / "demo-workspace"


def demo_conversation() -> Path:
    return resources_dir() / "demo" / "conversation.json"
