"""Snapshots of every screen at 80x24 and 120x40 (pytest-textual-snapshot; plain `def` tests).

Deterministic: the backend's clock is fixed, its ids and client secrets come from a counter, the
kiosk's clocks are frozen (no countdown moves), and input cursors do not blink. Update with
`./dev test tests/tui/test_snapshots.py --snapshot-update` after checking the diff by eye.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import pytest
from textual.pilot import Pilot

from kiosk.tui.app import KioskApp

from .conftest import freeze_inputs, make_kiosk, settle

SIZES = [pytest.param((80, 24), id="80x24"), pytest.param((120, 40), id="120x40")]
# Variants of a screen already shown at both sizes: the small size is the one at risk.
SMALL = [pytest.param((80, 24), id="80x24")]

BURGER_COMBO = [
    {
        "groupId": "grp_doneness",
        "selectedOptions": [{"optionId": "opt_done_medium", "quantity": 1}],
    },
    {
        "groupId": "grp_cheese",
        "selectedOptions": [{"optionId": "opt_cheese_cheddar", "quantity": 1}],
    },
    {
        "groupId": "grp_burger_addons",
        "selectedOptions": [{"optionId": "opt_add_bacon", "quantity": 2}],
    },
    {
        "groupId": "grp_combo",
        "selectedOptions": [
            {
                "optionId": "opt_combo_yes",
                "quantity": 1,
                "children": [
                    {
                        "groupId": "grp_combo_side",
                        "selectedOptions": [{"optionId": "opt_cside_fries", "quantity": 1}],
                    },
                    {
                        "groupId": "grp_combo_drink",
                        "selectedOptions": [{"optionId": "opt_cdrink_lemonade", "quantity": 1}],
                    },
                ],
            }
        ],
    },
]


def kiosk_app(tmp_path: Path) -> KioskApp:
    return make_kiosk(tmp_path, clock=lambda: 1000.0).app


def steps(
    *actions: Callable[[Pilot[Any]], Awaitable[None]],
) -> Callable[[Pilot[Any]], Awaitable[None]]:
    async def run(pilot: Pilot[Any]) -> None:
        await settle(pilot)
        for action in actions:
            await action(pilot)
            await settle(pilot)
        freeze_inputs(pilot.app)  # type: ignore[arg-type]
        await settle(pilot)

    return run


def press(*keys: str) -> Callable[[Pilot[Any]], Awaitable[None]]:
    async def run(pilot: Pilot[Any]) -> None:
        for key in keys:
            await pilot.press(key)
            await settle(pilot)

    return run


async def order_with_items(pilot: Pilot[Any]) -> None:
    """Downtown, pickup, a burger combo and two espressos, SAVE10 and an 18 % tip: via the store."""
    await press("1", "1")(pilot)
    app: KioskApp = pilot.app  # type: ignore[assignment]
    store = app.visit
    await store.add_item("prd_classic_burger", 1, BURGER_COMBO)
    await store.add_item("prd_espresso", 2, None)
    await store.apply_discount("SAVE10")
    await store.set_tip(percentage="18")


async def fill_customer(pilot: Pilot[Any]) -> None:
    screen = pilot.app.screen
    screen.query_one("#name").value = "Ada Lovelace"  # type: ignore[attr-defined]
    screen.query_one("#email").value = "ada@example.com"  # type: ignore[attr-defined]


@pytest.mark.parametrize("size", SIZES)
def test_location(snap_compare: Any, tmp_path: Path, size: tuple[int, int]) -> None:
    assert snap_compare(kiosk_app(tmp_path), terminal_size=size, run_before=steps())


@pytest.mark.parametrize("size", SIZES)
def test_welcome_delivery_details(snap_compare: Any, tmp_path: Path, size: tuple[int, int]) -> None:
    assert snap_compare(kiosk_app(tmp_path), terminal_size=size, run_before=steps(press("1", "3")))


@pytest.mark.parametrize("size", SMALL)
def test_menu_with_search(snap_compare: Any, tmp_path: Path, size: tuple[int, int]) -> None:
    run = steps(press("1", "1"), press("b", "u", "r"))
    assert snap_compare(kiosk_app(tmp_path), terminal_size=size, run_before=run)


# A menu list or a product's groups drawn after a resize keep the scroll and heights of the
# first size (one row off): this walk starts at its own size (tests/support/snapshots.py).
@pytest.mark.own_walk
@pytest.mark.parametrize("size", SIZES)
def test_menu_with_cart(snap_compare: Any, tmp_path: Path, size: tuple[int, int]) -> None:
    run = steps(order_with_items, press("down", "down"))
    assert snap_compare(kiosk_app(tmp_path), terminal_size=size, run_before=run)


@pytest.mark.parametrize("size", SIZES)
def test_product_combo(snap_compare: Any, tmp_path: Path, size: tuple[int, int]) -> None:
    run = steps(press("1", "1", "c", "l", "a", "s", "s", "enter"), press("end", "space", "2"))
    assert snap_compare(kiosk_app(tmp_path), terminal_size=size, run_before=run)


@pytest.mark.parametrize("size", SIZES)
def test_cart(snap_compare: Any, tmp_path: Path, size: tuple[int, int]) -> None:
    run = steps(order_with_items, press("f4"))
    assert snap_compare(kiosk_app(tmp_path), terminal_size=size, run_before=run)


@pytest.mark.parametrize("size", SIZES)
def test_cart_line_removed(snap_compare: Any, tmp_path: Path, size: tuple[int, int]) -> None:
    # Del on the first line: what was removed, with its Undo (issue 33).
    run = steps(order_with_items, press("f4", "delete"))
    assert snap_compare(kiosk_app(tmp_path), terminal_size=size, run_before=run)


@pytest.mark.parametrize("size", SIZES)
def test_checkout_with_field_error(
    snap_compare: Any, tmp_path: Path, size: tuple[int, int]
) -> None:
    async def bad_email(pilot: Pilot[Any]) -> None:
        await fill_customer(pilot)
        pilot.app.screen.query_one("#email").value = "ada@"  # type: ignore[attr-defined]

    run = steps(order_with_items, press("f4", "f2"), bad_email, press("f2"))
    assert snap_compare(kiosk_app(tmp_path), terminal_size=size, run_before=run)


@pytest.mark.parametrize("size", SIZES)
def test_payment(
    snap_compare: Any, tmp_path: Path, size: tuple[int, int], deterministic_ids: None
) -> None:
    run = steps(order_with_items, press("f4", "f2"), fill_customer, press("f2"))
    assert snap_compare(kiosk_app(tmp_path), terminal_size=size, run_before=run)


@pytest.mark.parametrize("size", SMALL)
def test_payment_declined(
    snap_compare: Any, tmp_path: Path, size: tuple[int, int], deterministic_ids: None
) -> None:
    run = steps(order_with_items, press("f4", "f2"), fill_customer, press("f2", "d"))
    assert snap_compare(kiosk_app(tmp_path), terminal_size=size, run_before=run)


@pytest.mark.parametrize("size", SIZES)
def test_done(
    snap_compare: Any, tmp_path: Path, size: tuple[int, int], deterministic_ids: None
) -> None:
    run = steps(order_with_items, press("f4", "f2"), fill_customer, press("f2", "a"))
    assert snap_compare(kiosk_app(tmp_path), terminal_size=size, run_before=run)


@pytest.mark.parametrize("size", SMALL)
def test_boot_failure(snap_compare: Any, size: tuple[int, int]) -> None:
    async def broken() -> Any:
        raise RuntimeError("no base URL for profile 'production': pass --base-url URL")

    app = KioskApp(services_factory=broken)
    assert snap_compare(app, terminal_size=size, run_before=steps())
