"""The media grid's arithmetic: columns and cell size for a width, labels, duration badges, grid keys.

Mirrors the reference panel (`repeat(auto-fill, minmax(104px, 1fr))` with a 10 px gap, 320 px → 2 columns,
632 → 5, 1200 → 10), so a user moving from the plugin sees the same grid.
"""

from __future__ import annotations

from dataclasses import dataclass

CELL_BASE = 104
GAP = 10
LIST_PADDING = 16
GRID_PADDING = 24
UNMEASURED_USABLE = 632
LABEL_MIN_CELL = 96
ALL_DOC_CAP = 4  # the All view shows this many documents, then "View all →"


@dataclass(frozen=True)
class GridGeometry:
    columns: int
    cell: int  # square cells, in pixels

    @property
    def labels(self) -> bool:
        """Card labels are hidden when cells are small."""
        return self.cell >= LABEL_MIN_CELL

    @property
    def pitch(self) -> int:
        return self.cell + GAP


def grid_geometry(list_width: int) -> GridGeometry:
    usable = list_width - LIST_PADDING - GRID_PADDING if list_width > 0 else UNMEASURED_USABLE
    usable = max(usable, 32)  # a sliver of a window still shows one (tiny) column
    columns = max(1, (usable + GAP) // (CELL_BASE + GAP))
    cell = (usable - (columns - 1) * GAP) // columns
    return GridGeometry(columns, cell)


def duration_text(ms: int) -> str:
    """The badge on a video poster: m:ss, or h:mm:ss from an hour on."""
    seconds = max(0, int(ms) // 1000)
    hours, rest = divmod(seconds, 3600)
    minutes, secs = divmod(rest, 60)
    return f"{hours}:{minutes:02d}:{secs:02d}" if hours else f"{minutes}:{secs:02d}"


def grid_step(index: int, key: str, columns: int, count: int) -> int:
    """Where a key moves the cursor in a grid of `count` cells: ←/→ within the row (stopping at its edges),
    ↑/↓ one row straight up or down (the reference moved ±1 here), Home/End to the ends. -1 keeps it."""
    if count <= 0:
        return -1
    if index < 0 or index >= count:
        return 0
    columns = max(1, columns)
    row_start = index - index % columns
    if key == "left":
        return index - 1 if index > row_start else index
    if key == "right":
        return index + 1 if index + 1 < min(row_start + columns, count) else index
    if key == "up":
        return index - columns if index - columns >= 0 else index
    if key == "down":
        if index + columns < count:
            return index + columns
        last_row_start = (count - 1) - (count - 1) % columns
        return count - 1 if row_start < last_row_start else index  # a short last row: its last cell
    if key == "home":
        return 0
    if key == "end":
        return count - 1
    return -1
