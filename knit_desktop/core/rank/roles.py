"""Project roles from a document's path (knit-engine.md §5.6): test, config, design, impl, doc."""

from __future__ import annotations

import re

_TEST_SEGMENTS = {"test", "tests", "spec", "specs", "__tests__", "eval", "evals", "fixture", "fixtures"}
_CONFIG_NAMES = {"package.json", "package-lock.json", "pnpm-lock.yaml", "cordis.patch.yml", ".github"}
_DESIGN_MARKS = ("sdd", "prd", "rfc", "adr", "design", "spec-", "方案", "设计", "决策", "复盘")
_IMPL_SEGMENTS = {"src", "lib", "host", "client", "impl", "runtime"}
_IMPL_DOC_PREFIXES = ("api", "tool", "links", "relevance", "context", "index")


def source_type(rel: str) -> str:
    lowered = rel.lower()
    segments = lowered.split("/")
    name = segments[-1]
    if any(part in _TEST_SEGMENTS for part in re.split(r"[/-]", lowered)):
        return "test"
    if any(mark in name for mark in (".test.", "-test.", ".spec.", "-spec.")) or "fixture" in lowered:
        return "test"
    if any(seg in _CONFIG_NAMES or seg.startswith(("tsconfig", "config", "settings", "manifest")) for seg in segments):
        return "config"
    if any(mark in lowered for mark in _DESIGN_MARKS):
        return "design"
    if any(seg in _IMPL_SEGMENTS for seg in segments[:-1]):
        return "impl"
    if name.endswith((".md", ".markdown")) and name.startswith(_IMPL_DOC_PREFIXES):
        return "impl"
    return "doc"
