"""The media grid's geometry and keys, as the reference panel defines them (plus ↑/↓ by row)."""

from __future__ import annotations

import pytest

from knit_desktop.core.media.layout import duration_text, grid_geometry, grid_step


@pytest.mark.parametrize(("width", "columns"), [(320, 2), (632, 5), (1200, 10), (100, 1), (0, 5)])
def test_columns_follow_the_width_like_the_reference(width, columns):
    assert grid_geometry(width).columns == columns


def test_cells_fill_the_row_and_small_cells_lose_their_labels():
    g = grid_geometry(632)
    usable = 632 - 16 - 24
    assert g.cell * g.columns + 10 * (g.columns - 1) <= usable < (g.cell + 1) * g.columns + 10 * (g.columns - 1)
    assert g.cell >= 104 and g.labels
    assert not grid_geometry(120).labels  # one column of 80 px: no label
    assert grid_geometry(200).labels


@pytest.mark.parametrize(("ms", "text"), [(0, "0:00"), (4000, "0:04"), (65_999, "1:05"), (3_600_000, "1:00:00"),
                                           (3_725_000, "1:02:05"), (-5, "0:00")])
def test_duration_badges(ms, text):
    assert duration_text(ms) == text


def test_grid_keys_move_within_rows_and_by_rows():
    # 3 columns, 8 cells:  0 1 2 / 3 4 5 / 6 7
    assert grid_step(4, "left", 3, 8) == 3
    assert grid_step(3, "left", 3, 8) == 3  # stops at the row edge
    assert grid_step(4, "right", 3, 8) == 5
    assert grid_step(5, "right", 3, 8) == 5
    assert grid_step(7, "right", 3, 8) == 7  # the short last row ends early
    assert grid_step(1, "down", 3, 8) == 4
    assert grid_step(4, "down", 3, 8) == 7
    assert grid_step(5, "down", 3, 8) == 7  # nothing below: the last cell of the short row
    assert grid_step(7, "down", 3, 8) == 7
    assert grid_step(4, "up", 3, 8) == 1
    assert grid_step(1, "up", 3, 8) == 1
    assert grid_step(4, "home", 3, 8) == 0 and grid_step(4, "end", 3, 8) == 7
    assert grid_step(-1, "down", 3, 8) == 0  # no cursor yet: the first cell
    assert grid_step(0, "down", 3, 0) == -1
