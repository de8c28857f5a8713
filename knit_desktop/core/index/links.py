"""Citations between documents: backticked paths, Markdown links and bare paths (knit-engine.md §5.5).

Resolution never guesses: a reference that does not name exactly one workspace document is dropped.
`../` is resolved exactly against the referring file (the reference engine only reached such targets
through the unique-basename rule), and a path that climbs out of the workspace resolves to nothing.
"""

from __future__ import annotations

import bisect
import posixpath
import re
from dataclasses import dataclass, field
from functools import cache, cached_property
from urllib.parse import unquote

MAX_REFS_PER_DOC = 500
LINK_TARGET_EXTENSIONS = (".md", ".markdown", ".txt", ".pdf")

# The patterns are compiled on first use (about 0.6 ms together): only reading a file's links needs them, not a
# command that loads an index.


@cache
def _backtick() -> re.Pattern[str]:
    return re.compile(r"`([^`\n]+)`")


# Link text holds no bracket: each `[` starts at most one scan, which stops at the next bracket, so a line of
# brackets costs linear time (a text class with `[` in it made a 60 KB line of `[` take seconds).
@cache
def _md_link() -> re.Pattern[str]:
    return re.compile(r"\[[^\[\]\n]*\]\(\s*<?([^)\s>]+)")


@cache
def _link_target() -> re.Pattern[str]:
    return re.compile(r"\]\([^()\n]*\)")


@cache
def _scheme() -> re.Pattern[str]:
    return re.compile(r"^[a-z][a-z0-9+.-]*:", re.IGNORECASE)


@cache
def _bare() -> re.Pattern[str]:
    return re.compile(
        r"(?:^|(?<=[\s(（]))((?:[\w.@+-]+/)*[\w.@+-]+\.(?:md|markdown|txt|pdf))(?![\w.])", re.IGNORECASE | re.MULTILINE
    )


# Every bare path ends in one of these: without one, _bare() cannot match and is not run.
@cache
def _extension_hint() -> re.Pattern[str]:
    return re.compile(r"\.(?:md|markdown|txt|pdf)", re.IGNORECASE)


@dataclass(frozen=True)
class Ref:
    raw: str
    line: int  # 1-based line of the mention in the referring file


def _clean(candidate: str) -> str | None:
    candidate = candidate.strip().split("#", 1)[0]
    if not candidate or _scheme().match(candidate):
        return None
    if not candidate.lower().endswith(LINK_TARGET_EXTENSIONS):
        return None
    return candidate


def _blank(match: re.Match) -> str:
    return " " * (match.end() - match.start())


def extract_refs(text: str) -> list[Ref]:
    """References in a Markdown body, first mention first, duplicates dropped, at most 500."""
    found: list[tuple[int, str]] = []
    # Cheap guards first (substring searches at C speed): most documents have no backtick, no link and no
    # file name, and the bare-path pattern was a tenth of a cold build when run over every body.
    backticks = "`" in text
    links = "](" in text
    if backticks:
        for m in _backtick().finditer(text):
            cand = _clean(m.group(1))
            if cand:
                found.append((m.start(), cand))
    if links:
        for m in _md_link().finditer(text):
            cand = _clean(unquote(m.group(1)))
            if cand:
                found.append((m.start(1), cand))
    if _extension_hint().search(text):
        # Bare paths are looked for where backtick spans and link targets are blanked out, so
        # `00_ Knit PRD/x.md` does not also yield PRD/x.md.
        masked = _backtick().sub(_blank, text) if backticks else text
        masked = _link_target().sub(_blank, masked) if links else masked
        for m in _bare().finditer(masked):
            cand = _clean(m.group(1))
            if cand:
                found.append((m.start(1), cand))
    if not found:
        return []
    found.sort(key=lambda f: f[0])
    refs: list[Ref] = []
    seen: set[str] = set()
    line_starts = _line_starts(text)
    for offset, cand in found:
        if cand in seen:
            continue
        seen.add(cand)
        refs.append(Ref(cand, line_of(line_starts, offset)))
        if len(refs) >= MAX_REFS_PER_DOC:
            break
    return refs


def _line_starts(text: str) -> list[int]:
    starts = [0]
    pos = text.find("\n")
    while pos >= 0:
        starts.append(pos + 1)
        pos = text.find("\n", pos + 1)
    return starts


def line_of(line_starts: list[int], offset: int) -> int:
    """1-based line number of a character offset."""
    return bisect.bisect_right(line_starts, offset)


class LinkResolver:
    """Maps a reference from one document to a workspace document, or to None when that would be a guess.

    Its lookups by file name and by suffix are made on first use: most references name a path exactly, and
    making them took 90 ms at 100,000 documents each time the link graph was built again."""

    def __init__(self, rels: list[str]) -> None:
        self._rels_list = rels
        self.rels = set(rels)

    @cached_property
    def by_basename(self) -> dict[str, list[str]]:
        by_basename: dict[str, list[str]] = {}
        for rel in self._rels_list:
            by_basename.setdefault(rel.rpartition("/")[2], []).append(rel)
        return by_basename

    @cached_property
    def _sorted(self) -> list[str]:
        return sorted(self._rels_list)

    def resolve(self, referrer: str, raw: str) -> str | None:
        cand = raw[2:] if raw.startswith("./") else raw
        if not cand:
            return None
        directory = posixpath.dirname(referrer)
        joined = posixpath.normpath(posixpath.join(directory, cand))
        if not joined.startswith("../") and joined in self.rels:  # exact, and never outside the workspace
            return joined
        if cand.lstrip("/") in self.rels:
            return cand.lstrip("/")
        if cand.startswith("-"):
            matches = [r for r in self._sorted if r.endswith(cand)]
            return matches[0] if len(matches) == 1 else None
        same_name = self.by_basename.get(posixpath.basename(cand), [])
        return same_name[0] if len(same_name) == 1 else None


@dataclass
class LinkGraph:
    out: dict[str, dict[str, int]] = field(default_factory=dict)  # source -> {target: line of first mention}
    incoming: dict[str, dict[str, int]] = field(default_factory=dict)  # target -> {source: line in source}

    def add(self, source: str, target: str, line: int) -> None:
        if source == target:
            return
        self.out.setdefault(source, {}).setdefault(target, line)
        self.incoming.setdefault(target, {}).setdefault(source, line)

    def outgoing_of(self, rel: str) -> dict[str, int]:
        return self.out.get(rel, {})

    def incoming_of(self, rel: str) -> dict[str, int]:
        return self.incoming.get(rel, {})


def build_graph(refs_by_doc: dict[str, list[Ref]], rels: list[str] | LinkResolver) -> LinkGraph:
    """The links between documents; `rels` the documents' names, or a resolver made of them and kept while they
    stay the same (Workspace.graph)."""
    graph = LinkGraph()
    if not refs_by_doc:
        return graph
    resolver = rels if isinstance(rels, LinkResolver) else LinkResolver(rels)
    for source in sorted(refs_by_doc):
        for ref in refs_by_doc[source]:
            target = resolver.resolve(source, ref.raw)
            if target is not None:
                graph.add(source, target, ref.line)
    return graph
