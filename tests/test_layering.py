"""`knit_desktop/core` must never import Qt: it runs in the CLI, the MCP server and worker threads alike."""

import ast
import subprocess
import sys
from pathlib import Path

CORE = Path(__file__).resolve().parent.parent / "knit_desktop" / "core"
QT_MODULES = ("PySide6", "PyQt5", "PyQt6", "shiboken6", "qtpy")


def _imported_modules(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.add(node.module)
    return names


def test_no_core_module_imports_qt_in_its_source():
    files = sorted(CORE.rglob("*.py"))
    assert files, "core package not found"
    offenders = {
        str(f.relative_to(CORE)): sorted(m for m in _imported_modules(f) if m.split(".")[0] in QT_MODULES)
        for f in files
    }
    assert {k: v for k, v in offenders.items() if v} == {}


def test_importing_every_core_module_loads_no_qt():
    modules = [
        "knit_desktop.core." + ".".join(f.relative_to(CORE).with_suffix("").parts)
        for f in sorted(CORE.rglob("*.py"))
        if f.stem != "__init__"
    ]
    code = (
        "import importlib, sys\n"
        f"for m in {modules!r}: importlib.import_module(m)\n"
        f"bad = [m for m in sys.modules if m.split('.')[0] in {QT_MODULES!r}]\n"
        "print(','.join(bad))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == ""
