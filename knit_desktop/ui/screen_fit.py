"""Sizes that fit the screen's available area, the window frame included (a laptop at a scale factor of 2 has
less room than the sizes Knit prefers)."""

from __future__ import annotations

from PySide6.QtCore import QSize

FRAME_ALLOWANCE = 48  # a title bar and borders, before the window manager has said how large they are
SIDE_ALLOWANCE = 16


def fitted_size(screen, width: int, height: int) -> QSize:
    """`width` × `height`, or less where the screen's available area is smaller: the whole window on screen."""
    area = screen.availableGeometry() if screen is not None else None
    if area is None or area.isEmpty():
        return QSize(width, height)
    return QSize(min(width, area.width() - SIDE_ALLOWANCE), min(height, area.height() - FRAME_ALLOWANCE))
