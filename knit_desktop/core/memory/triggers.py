"""Noticing that the user asks, in their own words, for something to be remembered."""

from __future__ import annotations

import re

TRIGGER = re.compile(r"记一下|记住|记录一下|remember (this|that)", re.IGNORECASE)


def asks_to_remember(text: str) -> bool:
    return bool(TRIGGER.search(text or ""))
