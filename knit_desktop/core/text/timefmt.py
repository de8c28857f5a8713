"""Relative times as a code plus arguments, so each front end words them in its own language."""

from __future__ import annotations

import datetime as _dt

MINUTE = 60_000
HOUR = 60 * MINUTE
DAY = 24 * HOUR


def relative_time(mtime_ms: int, now_ms: int) -> tuple[str, dict[str, int]]:
    age = max(0, now_ms - mtime_ms)
    if age < MINUTE:
        return "just_now", {}
    if age < HOUR:
        return "minutes", {"n": age // MINUTE}
    if age < DAY:
        return "hours", {"n": age // HOUR}
    if age < 2 * DAY:
        return "yesterday", {}
    if age < 30 * DAY:
        return "days", {"n": age // DAY}
    date = _dt.datetime.fromtimestamp(mtime_ms / 1000)
    return "month_day", {"month": date.month, "day": date.day}


_ENGLISH = {
    "just_now": "just now",
    "minutes": "{n} min ago",
    "hours": "{n} h ago",
    "yesterday": "yesterday",
    "days": "{n} d ago",
    "month_day": "{month}/{day}",
}


def relative_time_en(mtime_ms: int, now_ms: int) -> str:
    code, args = relative_time(mtime_ms, now_ms)
    return _ENGLISH[code].format(**args)
