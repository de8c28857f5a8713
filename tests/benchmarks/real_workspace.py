"""A workspace of real prose nobody on this project wrote, for benchmarks: the docstrings of the Python installation
that runs this script (its standard library and the packages installed beside it), written out as Markdown.

The generated workspaces (`workspace_generator.py`) repeat a small vocabulary; real documentation has a large one
(identifiers, names, numbers), long and short documents, and headings that are code. Every machine that can run
the benchmarks has a Python installation, so the material is there without a download; which documents come out
depends on the Python version and the packages installed, so a run prints how many files and bytes it measured.

Two shapes:
- `module`: one file per module (its docstring, then a `##` section per documented class and function), about
  16,000 files for CPython 3.11 with the test extras installed;
- `docstring`: one file per docstring longer than 80 characters, about 50,000 files.

Queries: `queries(root, n)` takes n files spread over the workspace (in name order, every k-th) and asks for two or
three words of each one's first docstring sentence, as a user remembering a document would.

    python tests/benchmarks/real_workspace.py /tmp/real-ws --shape module   # the files, and /tmp/real-ws.queries.json
"""

from __future__ import annotations

import argparse
import ast
import json
import re
import sysconfig
from pathlib import Path

MIN_DOCSTRING = 80
QUERY_STOP = frozenset(
    "the and for with that this from into are was were will can not but has have had its use used uses using "
    "return returns returned value values object objects function functions method methods class classes given "
    "which when where there their than then also only such each other any all one two new none true false "
    "should would could may might must does done make makes made see more most some same like just whether "
    "list lists string strings number type types argument arguments default".split()
)
WORD = re.compile(r"[A-Za-z][a-z]{3,}")


def _documented(tree: ast.Module) -> list[tuple[str, str]]:
    """(qualified name, docstring) of the module and every class and function in it, in source order."""
    out: list[tuple[str, str]] = []

    def visit(node: ast.AST, prefix: str) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                name = f"{prefix}{child.name}"
                doc = ast.get_docstring(child)
                if doc:
                    out.append((name, doc))
                visit(child, name + ".")

    doc = ast.get_docstring(tree)
    if doc:
        out.append(("", doc))
    visit(tree, "")
    return out


def _sources() -> list[tuple[str, Path]]:
    """(dotted module name, path) of every .py file of the standard library and the installed packages."""
    found: dict[str, Path] = {}
    for base in dict.fromkeys((sysconfig.get_paths()["stdlib"], sysconfig.get_paths()["purelib"])):
        root = Path(base)
        for path in sorted(root.rglob("*.py")):
            rel = path.relative_to(root).with_suffix("")
            if rel.parts[0] in ("site-packages", "dist-packages") and base == sysconfig.get_paths()["stdlib"]:
                continue  # the packages are walked from their own root
            found.setdefault(".".join(rel.parts), path)
    return sorted(found.items())


def build(root: Path, shape: str) -> int:
    """Write the workspace under `root` (emptied first by the caller); returns the number of files written."""
    written = 0
    for module, path in _sources():
        try:
            tree = ast.parse(path.read_bytes())
        except (SyntaxError, ValueError, OSError):
            continue
        docs = [(name, doc) for name, doc in _documented(tree) if len(doc) > MIN_DOCSTRING]
        if not docs:
            continue
        folder = root / Path(*module.split(".")[:-1]) if "." in module else root
        if shape == "module":
            parts = [f"# {module}\n"]
            for name, doc in docs:
                parts.append(f"{doc}\n" if not name else f"## {name}\n\n{doc}\n")
            target = folder / f"{module.rsplit('.', 1)[-1]}.md"
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text("\n".join(parts), encoding="utf-8")
            written += 1
        else:
            for name, doc in docs:
                title = f"{module}.{name}" if name else module
                target = folder / module.rsplit(".", 1)[-1] / f"{name or '__module__'}.md"
                target.parent.mkdir(parents=True, exist_ok=True)
                target.write_text(f"# {title}\n\n{doc}\n", encoding="utf-8")
                written += 1
    return written


def queries(root: Path, n: int = 30) -> list[str]:
    """n queries of two or three words, each from the first sentence of a file spread over the workspace."""
    files = sorted(p for p in root.rglob("*.md"))
    out: list[str] = []
    step = max(1, len(files) // (n * 2))
    for path in files[::step]:
        lines = [line for line in path.read_text(encoding="utf-8").splitlines()[1:] if line.strip()]
        first = lines[0] if lines else ""
        words = list(dict.fromkeys(w.lower() for w in WORD.findall(first) if w.lower() not in QUERY_STOP))
        if len(words) >= 2:
            out.append(" ".join(words[: 2 + len(out) % 2]))
        if len(out) == n:
            break
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("root", type=Path)
    parser.add_argument("--shape", choices=("module", "docstring"), default="module")
    args = parser.parse_args()
    args.root.mkdir(parents=True, exist_ok=True)
    if any(args.root.iterdir()):
        raise SystemExit(f"{args.root} is not empty")
    count = build(args.root, args.shape)
    (args.root.parent / f"{args.root.name}.queries.json").write_text(json.dumps(queries(args.root), indent=0))
    print(f"{count} files written under {args.root}")


if __name__ == "__main__":
    main()
