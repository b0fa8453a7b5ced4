"""Wide terminals use the space (issue 20): at 200x60 each screen's content keeps to a readable
width, centred, so that prices stay near their names; the header and footer still span the
screen."""

from __future__ import annotations

from pathlib import Path

import pytest

from kiosk.tui.app import KioskApp

from .conftest import make_kiosk, settle

MAX_WIDTH = 140


@pytest.mark.parametrize(
    ("keys", "body"),
    [((), "#location-body"), (("1",), "#welcome-body"), (("1", "1"), "#menu-body")],
)
async def test_content_is_centred_to_a_readable_width(
    tmp_path: Path, keys: tuple[str, ...], body: str
) -> None:
    app: KioskApp = make_kiosk(tmp_path).app
    async with app.run_test(size=(200, 60)) as pilot:
        await settle(pilot)
        for key in keys:
            await pilot.press(key)
            await settle(pilot)
        region = app.screen.query_one(body).region
        assert region.width == MAX_WIDTH, region
        left, right = region.x, 200 - region.right
        assert abs(left - right) <= 1, region
        assert app.screen.query_one("#header").region.width == 200


@pytest.mark.parametrize(
    ("screen", "body"),
    [
        ("product", "#product-body"),
        ("cart", "#cart-body"),
        ("checkout", "#checkout-body"),
        ("payment", "#payment-body"),
    ],
)
async def test_the_order_screens_keep_to_a_readable_width_too(
    tmp_path: Path, screen: str, body: str
) -> None:
    from .test_snapshots import fill_customer, order_with_items, press

    steps = {
        "product": (press("1", "1", "l", "a", "t", "t", "e", "enter"),),
        "cart": (order_with_items, press("f4")),
        "checkout": (order_with_items, press("f4", "f2")),
        "payment": (order_with_items, press("f4", "f2"), fill_customer, press("f2")),
    }[screen]
    app: KioskApp = make_kiosk(tmp_path).app
    async with app.run_test(size=(200, 60)) as pilot:
        await settle(pilot)
        for step in steps:
            await step(pilot)
            await settle(pilot)
        region = app.screen.query_one(body).region
        assert region.width == MAX_WIDTH, region
        assert abs(region.x - (200 - region.right)) <= 1, region
