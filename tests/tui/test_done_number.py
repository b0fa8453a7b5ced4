"""The done screen (issue 33, item 5): the order number is the biggest thing on it for every
number format the API gives, wrapped and never cut where it is long; the receipt is whole (it
scrolls, Total included) with the customer's name and the way to order."""

from __future__ import annotations

from pathlib import Path

import pytest
from rich.console import Console
from textual.widgets import Static

from kiosk.config import Settings
from kiosk.tui.screens.done import DoneScreen
from kiosk.tui.widgets.order_number import BigNumber, OrderNumber, big_lines

from .conftest import make_kiosk, settle
from .test_flow import add_simple, checkout_and_pay, open_menu

NUMBERS = ["K003", "R-0042", "A100", "A001", "PICKUP-2026-11-28-042"]


@pytest.mark.parametrize("theme", ["default", "high-contrast"])
@pytest.mark.parametrize("size", [(80, 24), (120, 40)], ids=["80x24", "120x40"])
async def test_every_number_format_is_the_biggest_thing_and_the_receipt_is_whole(
    tmp_path: Path, theme: str, size: tuple[int, int]
) -> None:
    settings = Settings(theme=theme) if theme != "default" else Settings()
    k = make_kiosk(tmp_path, settings=settings)
    app = k.app
    async with app.run_test(size=size) as pilot:
        await open_menu(pilot, "1", "1")
        await add_simple(pilot, "espresso", "2")
        await checkout_and_pay(k, pilot)
        done = app.screen
        assert isinstance(done, DoneScreen)
        cart = done.order
        for number in NUMBERS:
            await app.switch_screen(DoneScreen(cart, number))
            await settle(pilot)
            screen = app.screen
            big = screen.query_one(BigNumber)
            region = big.region
            # Three rows of glyphs a row, every character drawn: nothing cut at the edge.
            assert region.height >= 3, (number, region)
            assert screen.region.contains_region(region), (number, region, screen.region)
            assert screen.query_one(OrderNumber).value == number.upper()
            # Also in plain characters: a glyph can be read two ways (K or R, 0 or O).
            assert str(screen.query_one(".order-number-spelled", Static).render()) == number
            drawn = big_lines(number.upper(), region.width)
            assert len(drawn) == region.height
            # Taller than any line of words on the screen.
            for other in screen.query(Static):
                if other.display and other.region.height and other.id != "done-receipt-lines":
                    assert other.region.height < region.height, (number, other.id)
        # The receipt: the name and the way to order on it, the whole of it inside the screen,
        # and read to its end (Total) with the arrow keys, which do not end the order.
        assert isinstance(screen, DoneScreen) and screen.receipt is not None
        console = Console(width=60, record=True)
        console.print(screen._receipt(screen.receipt))
        said = console.export_text()
        assert "Ada Lovelace" in said and "Pickup" in said, said
        assert "Total" in said
        scroller = screen.query_one("#done-receipt")
        assert screen.region.contains_region(scroller.region), scroller.region
        for _ in range(12):
            await pilot.press("down")
        await settle(pilot)
        assert app.screen is screen
        assert scroller.scroll_y == scroller.max_scroll_y
