"""Snapshots of issue 33's screens (items 2 and 5), in {default, high contrast} x {80x24,
120x40}: the product screen under "Vegan only" (a latte: sizes and syrups unmarked, oat milk
chosen in place of whole milk, said), the menu in large text, and the done screen with a K- and
an R- order number (the number in glyphs, the receipt with the name and the way to order). The
contrast and fit tests read these too. Update with `--snapshot-update` on this file after reading
the new SVGs as pictures."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from textual.pilot import Pilot

from kiosk.config import Settings
from kiosk.tui.app import KioskApp
from kiosk.tui.screens.done import DoneScreen

from .conftest import make_kiosk, settle
from .test_snapshots import fill_customer, order_with_items, press, steps

THEMES = [
    pytest.param(theme, size, id=f"{theme}-{size[0]}x{size[1]}")
    for theme in ("default", "high-contrast")
    for size in ((80, 24), (120, 40))
]


def app_for(tmp_path: Path, theme: str, *, large_text: bool = False) -> KioskApp:
    settings = Settings(theme=theme, large_text=large_text)
    return make_kiosk(tmp_path, settings=settings, clock=lambda: 1000.0).app


def search(text: str) -> Any:
    async def run(pilot: Pilot[Any]) -> None:
        for char in text:
            await pilot.press(char)
        await settle(pilot)

    return run


# A menu list or a product's groups drawn after a resize keep the scroll and heights of the
# first size (one row off): this walk starts at its own size (tests/support/snapshots.py).
@pytest.mark.own_walk
@pytest.mark.parametrize(("theme", "size"), THEMES)
def test_vegan_latte(snap_compare: Any, tmp_path: Path, theme: str, size: tuple[int, int]) -> None:
    run = steps(press("1", "1", "f6"), search("latte"), press("enter"))
    assert snap_compare(app_for(tmp_path, theme), terminal_size=size, run_before=run)


@pytest.mark.parametrize(("theme", "size"), THEMES)
def test_large_text_menu(
    snap_compare: Any, tmp_path: Path, theme: str, size: tuple[int, int]
) -> None:
    run = steps(press("1", "1"))
    app = app_for(tmp_path, theme, large_text=True)
    assert snap_compare(app, terminal_size=size, run_before=run)


def done_with(number: str) -> Any:
    async def run(pilot: Pilot[Any]) -> None:
        done = pilot.app.screen
        assert isinstance(done, DoneScreen)
        await pilot.app.switch_screen(DoneScreen(done.order, number))
        await settle(pilot)

    return run


@pytest.mark.parametrize("number", ["K003", "R-0042"])
@pytest.mark.parametrize(("theme", "size"), THEMES)
def test_done_number(
    snap_compare: Any,
    tmp_path: Path,
    theme: str,
    size: tuple[int, int],
    number: str,
    deterministic_ids: None,
) -> None:
    run = steps(
        order_with_items, press("f4", "f2"), fill_customer, press("f2", "a"), done_with(number)
    )
    assert snap_compare(app_for(tmp_path, theme), terminal_size=size, run_before=run)
