"""Touch (issue 20): counter terminals are often touchscreens, which send clicks. A whole order,
from the location to the order number and the next customer's first screen, is clicked through:
no key but the letters of the customer's name and email (typed on the screen's own keyboard);
the payment itself is made on the phone."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from textual.pilot import Pilot
from textual.widgets import Button
from textual.widgets._footer import FooterKey

from kiosk.tui.screens.cart import CartScreen
from kiosk.tui.screens.checkout import CheckoutScreen
from kiosk.tui.screens.done import DoneScreen
from kiosk.tui.screens.location import LocationScreen
from kiosk.tui.screens.menu import MenuScreen, ProductList
from kiosk.tui.screens.payment import PaymentScreen
from kiosk.tui.screens.product import ProductScreen, SuggestionDialog
from kiosk.tui.screens.welcome import WelcomeScreen

from .conftest import make_kiosk, settle


async def click(pilot: Pilot[Any], selector: str, offset: tuple[int, int] = (1, 0)) -> None:
    assert await pilot.click(selector, offset=offset), f"nothing to click at {selector}"
    await settle(pilot)


async def tap_main_action(pilot: Pilot[Any], selector: str) -> None:
    """A screen's main action is three rows tall at every size, compact 80x24 included: the
    tap lands on its bottom row."""
    button = pilot.app.screen.query_one(selector, Button)
    assert button.outer_size.height == 3, (selector, button.outer_size)
    await click(pilot, selector, (1, 2))


@pytest.mark.parametrize("size", [(120, 40), (80, 24)], ids=["120x40", "80x24"])
async def test_a_whole_order_by_touch(tmp_path: Path, size: tuple[int, int]) -> None:
    k = make_kiosk(tmp_path)
    app = k.app
    async with app.run_test(size=size) as pilot:
        await settle(pilot)
        await click(pilot, "#locations", (4, 0))  # the first restaurant's row
        assert isinstance(app.screen, WelcomeScreen), type(app.screen)
        await click(pilot, "#methods", (4, 0))  # Pickup
        assert isinstance(app.screen, MenuScreen), type(app.screen)
        # A product with nothing to choose: a touch on its row opens it.
        products = app.screen.query_one("#products", ProductList)
        cookie = next(
            i for i, row in enumerate(products.rows) if getattr(row, "id", None) == "prd_cookie"
        )
        products.scroll_to(y=cookie, animate=False)
        await settle(pilot)
        await click(pilot, "#products", (4, cookie - round(products.scroll_y)))
        assert isinstance(app.screen, ProductScreen), type(app.screen)
        await tap_main_action(pilot, "#add")
        if isinstance(app.screen, SuggestionDialog):
            await click(pilot, "#no")
        assert isinstance(app.screen, MenuScreen), type(app.screen)
        assert [i["productId"] for i in k.server_cart()["items"]] == ["prd_cookie"]
        # The order beside the menu (the bar beneath it at 80x24) opens the cart.
        await click(pilot, "#cart-panel" if size[0] >= 120 else "#cart-bar")
        assert isinstance(app.screen, CartScreen), type(app.screen)
        await tap_main_action(pilot, "#checkout")
        assert isinstance(app.screen, CheckoutScreen), type(app.screen)
        await click(pilot, "#name")
        for key in "Ada":
            await pilot.press(key)
        await click(pilot, "#email")
        for key in "ada@example.com":
            await pilot.press(key)
        await tap_main_action(pilot, "#continue")
        assert isinstance(app.screen, PaymentScreen), type(app.screen)
        # The customer pays on the phone (the processor is told, as the hosted page tells it),
        # then taps "I have paid": the number.
        intent = app.visit.payment_intent
        assert intent is not None
        k.backend.confirm_payment(intent.client_secret.get_secret_value(), "4242424242424242")
        await tap_main_action(pilot, "#paid")
        assert isinstance(app.screen, DoneScreen), type(app.screen)
        assert k.server_cart()["status"] == "COMPLETED"
        # The footer's "New order" is a touch target too: the next customer's first screen.
        new_order = next(f for f in app.screen.query(FooterKey) if f.action == "finish")
        assert await pilot.click(new_order)
        await settle(pilot)
        assert isinstance(app.screen, LocationScreen), type(app.screen)
