"""Messages clear when the customer acts (issue 13: they lingered until the idle reset): a
passing message goes with the next key or click; an error stays until dealt with; a live
countdown stays while it counts."""

from __future__ import annotations

from pathlib import Path

from kiosk.tui.screens.menu import MenuScreen
from kiosk.tui.widgets.chrome import Banner

from .conftest import make_kiosk
from .test_flow import keys, open_menu


async def test_a_passing_message_goes_with_the_next_key_an_error_stays(tmp_path: Path) -> None:
    k = make_kiosk(tmp_path)
    app = k.app
    async with app.run_test(size=(100, 32)) as pilot:
        await open_menu(pilot, "1", "1")
        screen = app.screen
        assert isinstance(screen, MenuScreen)
        banner = screen.query_one(Banner)
        for kind in ("info", "ok"):
            screen.say("Added 1 × Cookie to your order.", kind=kind)
            assert banner.message
            await keys(pilot, "down")
            assert banner.message == "", kind
        screen.say("We can't reach the ordering service.", hint="Press F5.", kind="error")
        await keys(pilot, "down", "up")
        assert "can't reach" in banner.message
        banner.show("We're very busy right now. Trying again in 9 s…", kind="wait")
        await keys(pilot, "down")
        assert "Trying again" in banner.message


async def test_a_product_without_options_says_there_is_nothing_to_choose(tmp_path: Path) -> None:
    from textual.widgets import Static

    from kiosk.tui.screens.product import ProductScreen

    from .test_flow import type_text

    k = make_kiosk(tmp_path)
    app = k.app
    async with app.run_test(size=(80, 24)) as pilot:
        await open_menu(pilot, "1", "1")
        await type_text(pilot, "sparkling")
        await keys(pilot, "enter")
        assert isinstance(app.screen, ProductScreen)
        help_text = str(app.screen.query_one("#product-help", Static).render())
        assert "No choices to make" in help_text and "F2" in help_text
        await keys(pilot, "3", "f2")
        assert [(i["productId"], i["quantity"]) for i in k.server_cart()["items"]] == [
            ("prd_sparkling", 3)
        ]


async def test_the_done_screen_shows_an_itemised_receipt_and_when(tmp_path: Path) -> None:
    from textual.widgets import Static

    from kiosk.tui.screens.done import DoneScreen

    from .test_flow import add_simple, checkout_and_pay

    k = make_kiosk(tmp_path)
    app = k.app
    async with app.run_test(size=(120, 40)) as pilot:
        await open_menu(pilot, "1", "1")
        await add_simple(pilot, "espresso", "2")
        server = await checkout_and_pay(k, pilot)
        assert isinstance(app.screen, DoneScreen)
        receipt = app.screen.query_one("#done-receipt-lines", Static).content
        text = "\n".join(str(cell) for col in receipt.columns for cell in col.cells)  # type: ignore[union-attr]
        assert "2 × Espresso" in text and "Total" in text
        total = server["orderTotalWithServiceFeeFormatted"] or server["orderTotalFormatted"]
        assert total in text
        assert f"order {server['fulfillmentIdentifier']}".lower() in text.lower()
        paid = str(app.screen.query_one("#done-paid", Static).render())
        assert "as soon as possible" in paid
