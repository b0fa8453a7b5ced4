"""Snapshots of the ordering screens in the high-contrast theme (80x24 and 120x40) and in large
text (80x24, where it is at risk), issue 13 F. The default theme's are in test_snapshots.py; the
same deterministic set-up (fixed clocks, counted ids, no blinking cursors). Update with
`--snapshot-update` on this file after reading the new SVGs."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import pytest
from textual.pilot import Pilot

from kiosk.config import Settings
from kiosk.tui.app import KioskApp

from .conftest import make_kiosk
from .test_snapshots import fill_customer, order_with_items, press, steps

VARIANTS = [
    pytest.param("high-contrast", (80, 24), id="high-contrast-80x24"),
    pytest.param("high-contrast", (120, 40), id="high-contrast-120x40"),
    pytest.param("large-text", (80, 24), id="large-text-80x24"),
]

Step = Callable[[Pilot[Any]], Awaitable[None]]


def themed_app(tmp_path: Path, variant: str) -> KioskApp:
    settings = (
        Settings(theme="high-contrast") if variant == "high-contrast" else Settings(large_text=True)
    )
    return make_kiosk(tmp_path, settings=settings, clock=lambda: 1000.0).app


def snap(
    snap_compare: Any, tmp_path: Path, variant: str, size: tuple[int, int], *run: Step
) -> bool:
    return bool(
        snap_compare(themed_app(tmp_path, variant), terminal_size=size, run_before=steps(*run))
    )


@pytest.mark.parametrize(("variant", "size"), VARIANTS)
def test_welcome(snap_compare: Any, tmp_path: Path, variant: str, size: tuple[int, int]) -> None:
    assert snap(snap_compare, tmp_path, variant, size, press("1"))


# A menu list or a product's groups drawn after a resize keep the scroll and heights of the
# first size (one row off): this walk starts at its own size (tests/support/snapshots.py).
@pytest.mark.own_walk
@pytest.mark.parametrize(("variant", "size"), VARIANTS)
def test_menu(snap_compare: Any, tmp_path: Path, variant: str, size: tuple[int, int]) -> None:
    # An order in progress, the cursor moved, and a sold-out item in view.
    assert snap(snap_compare, tmp_path, variant, size, order_with_items, press("k", "a", "l"))


# A menu list or a product's groups drawn after a resize keep the scroll and heights of the
# first size (one row off): this walk starts at its own size (tests/support/snapshots.py).
@pytest.mark.own_walk
@pytest.mark.parametrize(("variant", "size"), VARIANTS)
def test_product(snap_compare: Any, tmp_path: Path, variant: str, size: tuple[int, int]) -> None:
    run = (press("1", "1", "l", "a", "t", "t", "e", "enter"), press("down", "down", "space"))
    assert snap(snap_compare, tmp_path, variant, size, *run)


@pytest.mark.parametrize(("variant", "size"), VARIANTS)
def test_cart(snap_compare: Any, tmp_path: Path, variant: str, size: tuple[int, int]) -> None:
    assert snap(snap_compare, tmp_path, variant, size, order_with_items, press("f4"))


@pytest.mark.parametrize(("variant", "size"), VARIANTS)
def test_cart_line_removed(
    snap_compare: Any, tmp_path: Path, variant: str, size: tuple[int, int]
) -> None:
    # Del on the first line: what was removed, with its Undo (issue 33).
    assert snap(snap_compare, tmp_path, variant, size, order_with_items, press("f4", "delete"))


@pytest.mark.parametrize(("variant", "size"), VARIANTS)
def test_checkout_with_field_error(
    snap_compare: Any, tmp_path: Path, variant: str, size: tuple[int, int]
) -> None:
    async def bad_email(pilot: Pilot[Any]) -> None:
        await fill_customer(pilot)
        pilot.app.screen.query_one("#email").value = "ada@"  # type: ignore[attr-defined]

    run = (order_with_items, press("f4", "f2"), bad_email, press("f2"))
    assert snap(snap_compare, tmp_path, variant, size, *run)


@pytest.mark.parametrize(("variant", "size"), VARIANTS)
def test_payment(
    snap_compare: Any,
    tmp_path: Path,
    variant: str,
    size: tuple[int, int],
    deterministic_ids: None,
) -> None:
    run = (order_with_items, press("f4", "f2"), fill_customer, press("f2"))
    assert snap(snap_compare, tmp_path, variant, size, *run)


@pytest.mark.parametrize(("variant", "size"), VARIANTS)
def test_done(
    snap_compare: Any,
    tmp_path: Path,
    variant: str,
    size: tuple[int, int],
    deterministic_ids: None,
) -> None:
    run = (order_with_items, press("f4", "f2"), fill_customer, press("f2", "a"))
    assert snap(snap_compare, tmp_path, variant, size, *run)
