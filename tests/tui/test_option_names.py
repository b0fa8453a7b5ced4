"""A cart line's options read as names even when the server echoes only their ids (Storefront
2.0, and our demo over 2.0): the names come from the product detail the kiosk already read
(issue 13)."""

from __future__ import annotations

from pathlib import Path

from kiosk.config import Settings
from kiosk.tui.screens.cart import CartLines, CartScreen
from kiosk.tui.screens.product import ProductScreen

from .conftest import make_kiosk, no_thanks, settle
from .test_flow import keys, open_menu, type_text


async def test_a_2_0_cart_line_names_its_options(tmp_path: Path) -> None:
    k = make_kiosk(tmp_path, settings=Settings(api_dialect="v2"))
    app = k.app
    async with app.run_test(size=(100, 32)) as pilot:
        await open_menu(pilot, "1", "1")
        await type_text(pilot, "latte")
        await keys(pilot, "enter")
        assert isinstance(app.screen, ProductScreen)
        await keys(pilot, "f2")
        await settle(pilot)
        await no_thanks(pilot)  # the one suggestion after an add
        assert app.cart is not None and app.cart.items
        # The server sent ids only.
        assert "optionId" in str(app.cart.items[0].selections)
        assert "name" not in str(app.cart.items[0].selections)
        await keys(pilot, "f4")
        assert isinstance(app.screen, CartScreen)
        shown = "\n".join(str(row) for row in app.screen.query_one(CartLines).rows)
        assert "opt_" not in shown, shown
        # The latte's defaults, by name.
        assert "Medium (16 oz)" in shown and "Whole milk" in shown, shown
