"""Checkout from anywhere (issue 33, item 3): on the menu F2 is Checkout once the order has
lines, a filled "Checkout · total" button sits under the order panel (wide) or in the order bar
(80x24), and every footer's first key is its screen's main action."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from textual.pilot import Pilot
from textual.widgets import Button

from kiosk.config import Settings
from kiosk.tui.cartview import total_rows
from kiosk.tui.screens.cart import CartScreen
from kiosk.tui.screens.checkout import CheckoutScreen
from kiosk.tui.screens.location import LocationScreen
from kiosk.tui.screens.menu import MenuScreen, ProductList
from kiosk.tui.screens.product import ProductScreen
from kiosk.tui.screens.welcome import WelcomeScreen
from kiosk.tui.widgets.chrome import KioskFooter

from .conftest import Kiosk, make_kiosk, settle
from .test_cart_product import _latte_in_the_cart
from .test_flow import add_simple, keys, open_menu, type_text


def first_key(pilot: Pilot[Any]) -> tuple[str, str]:
    footer = pilot.app.screen.query_one(KioskFooter)
    shown = footer._choose()
    assert shown, "an empty footer"
    return shown[0].key, shown[0].description


@pytest.mark.parametrize(
    ("size", "button"), [((120, 40), "#order-checkout"), ((80, 24), "#bar-checkout")]
)
async def test_f2_and_a_filled_button_check_out_from_the_menu(
    kiosk: Kiosk, size: tuple[int, int], button: str
) -> None:
    app = kiosk.app
    async with app.run_test(size=size) as pilot:
        await open_menu(pilot, "1", "1")
        menu = app.screen
        assert isinstance(menu, MenuScreen)
        # An empty order: nothing to check out, F2 stays quiet, no button.
        await keys(pilot, "f2")
        assert app.screen is menu
        assert not menu.query_one(button, Button).display
        await add_simple(pilot, "latte")
        checkout = menu.query_one(button, Button)
        assert checkout.display and checkout.region.height >= 1
        assert checkout.region in menu.region, checkout.region
        assert app.cart is not None
        total = total_rows(app.cart)[-1][1]
        assert str(checkout.label) == f"Checkout · {total}"
        assert checkout.variant == "success"
        assert first_key(pilot) == ("f2", "Checkout")
        await keys(pilot, "f2")
        assert isinstance(app.screen, CheckoutScreen)
        # Back goes to the order, as the checkout's footer says, then to the menu.
        await keys(pilot, "escape")
        assert isinstance(app.screen, CartScreen)
        await keys(pilot, "escape")
        assert app.screen is menu
        await pilot.click(button)
        await settle(pilot)
        assert isinstance(app.screen, CheckoutScreen)


async def test_every_footer_starts_with_the_main_action(kiosk: Kiosk) -> None:
    app = kiosk.app
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        assert isinstance(app.screen, LocationScreen)
        assert first_key(pilot) == ("enter", "Choose")
        await keys(pilot, "1")
        assert isinstance(app.screen, WelcomeScreen)
        assert first_key(pilot) == ("enter", "Choose")
        await keys(pilot, "1")
        assert isinstance(app.screen, MenuScreen)
        assert first_key(pilot) == ("enter", "Choose")
        await type_text(pilot, "latte")
        await keys(pilot, "enter")
        assert isinstance(app.screen, ProductScreen)
        assert first_key(pilot)[0] == "f2"
        await keys(pilot, "escape", "f4")
        assert isinstance(app.screen, CartScreen)
        assert first_key(pilot) == ("f2", "Checkout")


async def test_the_edit_screen_says_update_everywhere(tmp_path: Path) -> None:
    """Editing a line: the button, the footer and the hint all say it updates the order (issue
    33: the footer said "Add to order")."""
    k = make_kiosk(tmp_path)
    app = k.app
    async with app.run_test(size=(100, 32)) as pilot:
        await _latte_in_the_cart(pilot)
        await keys(pilot, "f3")
        product = app.screen
        assert isinstance(product, ProductScreen) and product.editing is not None
        assert str(product.query_one("#add", Button).label) == "Update my order"
        assert first_key(pilot) == ("f2", "Update my order")
        described = {key.key: key.description for key in product.query_one(KioskFooter)._choose()}
        assert described["escape"] == "Back to your order"
        hint = str(product.query_one("#product-help").render())
        assert "F2 update" in hint and "F2 add" not in hint, hint


@pytest.mark.parametrize("size", [(120, 40), (80, 24)])
async def test_the_main_action_is_filled_in_high_contrast(
    tmp_path: Path, size: tuple[int, int]
) -> None:
    app = make_kiosk(tmp_path, settings=Settings(theme="high-contrast")).app
    async with app.run_test(size=size) as pilot:
        await open_menu(pilot, "1", "1")
        await add_simple(pilot, "latte")
        menu = app.screen
        button = menu.query_one("#order-checkout" if size[0] >= 110 else "#bar-checkout", Button)
        assert not button.has_focus
        # Filled: drawn on a colour of its own, not the screen's background as an outline.
        assert button.styles.background != menu.styles.background, button.styles.background


@pytest.mark.parametrize("size", [(120, 40), (80, 24)])
async def test_a_chosen_categorys_heading_is_at_the_top(
    kiosk: Kiosk, size: tuple[int, int]
) -> None:
    """Issue 33: choosing one of the last categories put its heading at the bottom of the list
    (the list could not scroll past its end)."""
    app = kiosk.app
    async with app.run_test(size=size) as pilot:
        await open_menu(pilot, "1", "1")
        menu = app.screen
        products = menu.query_one("#products", ProductList)
        categories = menu.query_one("#categories")
        await keys(pilot, "left")
        for _ in range(len(menu.shown) - 1):
            await keys(pilot, "down")
            chosen = categories.cursor_key
            heading = next(i for i in products._headers if products.rows[i].category_id == chosen)
            assert round(products.scroll_y) == heading, (chosen, products.scroll_y, heading)
        await keys(pilot, "enter")
        assert round(products.scroll_y) == heading and products.cursor == heading + 1
