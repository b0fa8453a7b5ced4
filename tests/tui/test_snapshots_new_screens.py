"""Snapshots of the screens issue 13 added, at 80x24 and 120x40, in the default and the
high-contrast theme: the one suggestion after an add and the menu under a diet filter. The
counter code carries the cart's id and the time left, which no fixed set-up holds still: its
Pilot tests are in test_pay_at_counter.py. The same deterministic set-up as test_snapshots.py;
update with `--snapshot-update` on this file after reading the new SVGs."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from kiosk.config import Settings

from .conftest import make_kiosk
from .test_snapshots import press, steps

VARIANTS = [
    pytest.param(theme, size, id=f"{theme}-{size[0]}x{size[1]}")
    for theme in ("default", "high-contrast")
    for size in ((80, 24), (120, 40))
]


def snap(
    snap_compare: Any, tmp_path: Path, settings: Settings, size: tuple[int, int], *run: Any
) -> bool:
    app = make_kiosk(tmp_path, settings=settings, clock=lambda: 1000.0).app
    return bool(snap_compare(app, terminal_size=size, run_before=steps(*run)))


@pytest.mark.parametrize(("theme", "size"), VARIANTS)
def test_suggestion_after_an_add(
    snap_compare: Any, tmp_path: Path, theme: str, size: tuple[int, int]
) -> None:
    run = (press("1", "1", "e", "s", "p", "r", "e", "s", "s", "o", "enter", "f2"),)
    assert snap(snap_compare, tmp_path, Settings(theme=theme), size, *run)


# A menu list or a product's groups drawn after a resize keep the scroll and heights of the
# first size (one row off): this walk starts at its own size (tests/support/snapshots.py).
@pytest.mark.own_walk
@pytest.mark.parametrize(("theme", "size"), VARIANTS)
def test_menu_under_a_diet_filter(
    snap_compare: Any, tmp_path: Path, theme: str, size: tuple[int, int]
) -> None:
    run = (press("1", "1", "f6"),)
    assert snap(snap_compare, tmp_path, Settings(theme=theme), size, *run)
