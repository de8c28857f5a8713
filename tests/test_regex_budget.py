"""No regular expression in Knit is worse than linear: every pattern in the package runs on 1 MB of its worst case
under a time budget.

The patterns are found, not listed: every `re.Pattern` at module or class level in `knit_desktop`, every one a
module's cached function without parameters compiles on first use, and every literal pattern passed to
`re.sub`/`re.match`/… in its source, so a new one is checked without touching this file. Worst
cases are built from each pattern's own structure: floods of each character it mentions, after each prefix that
leads into one of its repeats (`<!-- tags:` then spaces), and runs of those prefixes (`[[[[`, `](](](`). Each
candidate is timed on 4 KB; the slowest ones per pattern then run on 1 MB, in a child process the test kills if one
takes too long (a catastrophic pattern cannot be interrupted from inside).
"""

from __future__ import annotations

import ast
import collections
import importlib
import inspect
import json
import os
import pkgutil
import re
import selectors
import subprocess
import sys
import time
from pathlib import Path

try:  # Python 3.11+
    import re._parser as sre_parse  # type: ignore[import-not-found]
except ImportError:  # pragma: no cover - Python 3.10
    import sre_parse  # type: ignore[no-redef]

BUDGET_S = 1.0  # per pattern, on 1 MB of its worst case
BIG = 1024 * 1024
SMALL = 4096
FINALISTS = 3  # the slowest small candidates of each pattern that are run at 1 MB
GENERIC_FLOODS = " \t\n[](){}<>!#*-_`~|:.,/\\'\"a0@+=;。：标"
_CALLS = {"compile", "sub", "subn", "match", "fullmatch", "search", "findall", "finditer", "split"}
_FLAG_NAMES = {"I", "IGNORECASE", "M", "MULTILINE", "S", "DOTALL", "X", "VERBOSE", "A", "ASCII", "U", "UNICODE"}
ROOT = Path(__file__).resolve().parents[1]


# --- finding the patterns ---------------------------------------------------------------------------


def _flags(node: ast.expr | None) -> int:
    if node is None:
        return 0
    if isinstance(node, ast.Attribute) and node.attr in _FLAG_NAMES:
        return int(getattr(re, node.attr))
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.BitOr):
        return _flags(node.left) | _flags(node.right)
    return 0


def _literal_patterns(module) -> list[tuple[str, int]]:
    try:
        tree = ast.parse(inspect.getsource(module))
    except (OSError, TypeError):
        return []
    found = []
    for node in ast.walk(tree):
        if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in _CALLS):
            continue
        if not (isinstance(node.func.value, ast.Name) and node.func.value.id == "re"):
            continue
        if not node.args or not isinstance(node.args[0], ast.Constant) or not isinstance(node.args[0].value, str):
            continue
        flags_node = next((k.value for k in node.keywords if k.arg == "flags"), None)
        if flags_node is None and node.func.attr == "compile" and len(node.args) > 1:
            flags_node = node.args[1]
        found.append((node.args[0].value, _flags(flags_node)))
    return found


def _compiled_on_first_use(value, module_name: str) -> bool:
    """A module's cached function without parameters that returns a pattern (one compiled on first use)."""
    if not (callable(value) and hasattr(value, "cache_info") and getattr(value, "__module__", None) == module_name):
        return False
    signature = inspect.signature(value)
    return not signature.parameters and "Pattern" in str(signature.return_annotation)


def project_patterns() -> dict[str, re.Pattern]:
    """Every regular expression of the package, by where it is defined (first seen)."""
    import knit_desktop

    found: dict[tuple[str, int], str] = {}
    compiled: dict[str, re.Pattern] = {}

    def add(pattern: re.Pattern, where: str) -> None:
        key = (pattern.pattern, pattern.flags)
        if key not in found and isinstance(pattern.pattern, str):
            found[key] = where
            compiled[where] = pattern

    for info in pkgutil.walk_packages(knit_desktop.__path__, "knit_desktop."):
        if info.name.endswith("__main__"):
            continue
        module = importlib.import_module(info.name)
        for name, value in sorted(vars(module).items()):
            if isinstance(value, re.Pattern):
                add(value, f"{info.name}.{name}")
            elif _compiled_on_first_use(value, info.name):
                add(value(), f"{info.name}.{name}()")
            elif isinstance(value, type) and value.__module__ == info.name:
                for attr, inner in sorted(vars(value).items()):
                    if isinstance(inner, re.Pattern):
                        add(inner, f"{info.name}.{name}.{attr}")
        for i, (source, flags) in enumerate(_literal_patterns(module)):
            add(re.compile(source, flags), f"{info.name}:literal{i}:{source}")
    return compiled


# --- building worst cases ---------------------------------------------------------------------------


def _member(items, negate_ok=True) -> str:
    """One character an IN set matches."""
    negate = False
    chars: list[str] = []
    for op, arg in items:
        name = str(op)
        if name == "NEGATE":
            negate = True
        elif name == "LITERAL":
            chars.append(chr(arg))
        elif name == "RANGE":
            chars.append(chr(arg[0]))
        elif name == "CATEGORY":
            chars.append({"CATEGORY_DIGIT": "0", "CATEGORY_SPACE": " ", "CATEGORY_WORD": "a"}.get(str(arg), "a"))
    if not negate:
        return chars[0] if chars else "a"
    for cand in "a x0#-":
        if cand not in chars:
            return cand
    return "z"


class _Shape:
    """Walks a parsed pattern: the characters it mentions and the prefixes that lead into each repeat."""

    def __init__(self) -> None:
        self.chars: list[str] = []
        self.prefixes: list[str] = [""]

    def walk(self, items, prefix: str) -> str:
        """Visit a sequence; returns the prefix extended by a minimal example of the sequence."""
        for op, arg in items:
            name = str(op)
            if name == "LITERAL":
                self.chars.append(chr(arg))
                prefix += chr(arg)
            elif name == "NOT_LITERAL":
                self.chars.append(chr(arg))
                prefix += "a" if chr(arg) != "a" else "b"
            elif name == "IN":
                for sub_op, sub_arg in arg:
                    if str(sub_op) == "LITERAL":
                        self.chars.append(chr(sub_arg))
                    elif str(sub_op) == "RANGE":
                        self.chars.extend((chr(sub_arg[0]), chr(sub_arg[1])))
                prefix += _member(arg)
            elif name == "ANY":
                prefix += "a"
            elif name in ("MAX_REPEAT", "MIN_REPEAT", "POSSESSIVE_REPEAT"):
                low, _high, sub = arg
                self.prefixes.append(prefix)
                example = self.walk(sub, "")
                self.walk(sub, prefix)  # prefixes inside the repeat
                prefix += example * max(1, min(low, 3))
            elif name in ("SUBPATTERN", "ATOMIC_GROUP"):
                sub = arg[-1] if name == "SUBPATTERN" else arg
                prefix = self.walk(sub, prefix)
            elif name == "BRANCH":
                branches = arg[1]
                for branch in branches[1:]:
                    self.walk(branch, prefix)
                prefix = self.walk(branches[0], prefix)
            elif name in ("ASSERT", "ASSERT_NOT"):
                self.walk(arg[1], prefix)
        return prefix


def candidates(pattern: re.Pattern, size: int) -> list[tuple[str, str]]:
    """(label, text) pairs of about `size` characters that could make `pattern` backtrack."""
    shape = _Shape()
    shape.walk(sre_parse.parse(pattern.pattern, pattern.flags), "")
    floods = list(dict.fromkeys(shape.chars + list(GENERIC_FLOODS)))
    prefixes = list(dict.fromkeys(p for p in shape.prefixes))[:16]
    out: list[tuple[str, str]] = []
    for prefix in prefixes:
        for ch in floods:
            body = prefix + ch * max(1, size - len(prefix))
            out.append((f"{prefix!r} + {ch!r}*", body))
            out.append((f"{prefix!r} + {ch!r}* + '\\x01'", body + "\x01"))
            if prefix:
                unit = prefix + ch
                out.append((f"({unit!r})*", unit * max(1, size // len(unit))))
        if prefix:
            out.append((f"({prefix!r})*", prefix * max(1, size // len(prefix))))
    return out


def _run(pattern: re.Pattern, text: str) -> float:
    start = time.perf_counter()
    collections.deque(pattern.finditer(text), maxlen=0)  # every start position, as sub/findall do
    return time.perf_counter() - start


def child() -> None:
    """Time every pattern's worst candidates; one JSON line before and after each run at 1 MB."""
    for where, pattern in sorted(project_patterns().items()):
        small = sorted(((_run(pattern, text), label) for label, text in candidates(pattern, SMALL)), reverse=True)
        finalists = [label for _, label in small[:FINALISTS]]
        big = dict(candidates(pattern, BIG))
        for label in finalists:
            print(json.dumps({"start": where, "label": label}), flush=True)
            seconds = _run(pattern, big[label])
            if seconds > BUDGET_S / 2:  # a busy machine: the better of two runs (a super-linear one fails both)
                seconds = min(seconds, _run(pattern, big[label]))
            print(json.dumps({"done": where, "label": label, "seconds": seconds}), flush=True)
    print(json.dumps({"end": True}), flush=True)


# --- the test ---------------------------------------------------------------------------------------


def test_the_patterns_are_found():
    patterns = project_patterns()
    names = set(patterns)
    assert any(n.startswith("knit_desktop.core.index.links.") for n in names)
    assert any(n.startswith("knit_desktop.core.index.documents.") for n in names)
    assert any(n.startswith("knit_desktop.core.memory.") for n in names)
    assert any(":literal" in n for n in names)  # patterns passed straight to re.sub & co. count too
    assert len(patterns) >= 20


def test_the_worst_cases_catch_a_quadratic_pattern():
    """The generator finds the floods that made the old patterns slow: on its worst candidate, 4 times the text
    takes far more than 4 times as long (kept small: the old tags pattern is cubic)."""
    old_link = re.compile(r"\[[^\]\n]*\]\(\s*<?([^)\s>]+)")
    old_tags = re.compile(r"^\s*<!--\s*(?:标签|tags?)\s*[:：]\s*(.*?)\s*-->\s*$", re.IGNORECASE)
    for old, size in ((old_link, 1024), (old_tags, 256)):  # small sizes: the old tags pattern is cubic

        def best_of_three(text: str, old=old) -> float:
            return min(_run(old, text) for _ in range(3))

        label = max((best_of_three(text), label) for label, text in candidates(old, size))[1]
        small = best_of_three(dict(candidates(old, size))[label])
        large = best_of_three(dict(candidates(old, 4 * size))[label])
        assert large > 10 * small, (old.pattern, label, small, large)


def test_every_pattern_is_linear_on_1mb_of_its_worst_case():
    env = dict(os.environ, PYTHONPATH=str(ROOT), QT_QPA_PLATFORM="offscreen")
    code = "from tests.test_regex_budget import child; child()"
    proc = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            cwd=str(ROOT), env=env)
    selector = selectors.DefaultSelector()
    selector.register(proc.stdout, selectors.EVENT_READ)
    slow: list[str] = []
    current = None
    ran = 0
    try:
        while True:
            # Screening all of a pattern's candidates at 4 KB comes before its first 1 MB run: allow for it.
            if not selector.select(timeout=60 if current is None else 10 * BUDGET_S):
                raise AssertionError(f"{current} did not finish within {10 * BUDGET_S:.0f} s")
            line = proc.stdout.readline()
            if not line:
                raise AssertionError(f"the timing process ended early: {proc.stderr.read()[-2000:]}")
            event = json.loads(line)
            if event.get("end"):
                break
            if "start" in event:
                current = f"{event['start']} on {event['label']}"
                continue
            ran += 1
            current = None
            if event["seconds"] > BUDGET_S:
                slow.append(f"{event['done']} on {event['label']}: {event['seconds']:.2f} s")
    finally:
        proc.kill()
        proc.wait()
    assert ran >= 20 * FINALISTS
    assert not slow, "patterns over budget on 1 MB:\n" + "\n".join(slow)
