"""A product's description is shown whole (issue 33, item 2): the box beside the picture
scrolls when the words are longer than its room, never cut silently (it was cut after 3 lines
at 80x24, and at 300 characters at 120x40, losing its allergen sentence)."""

from __future__ import annotations

from pathlib import Path

import pytest
from textual.containers import VerticalScroll
from textual.widgets import Static

from kiosk.tui.screens.product import ProductScreen

from .conftest import make_kiosk, settle
from .test_flow import keys, open_menu, type_text

LONG = (
    "Slow-cooked for twelve hours over oak, then finished on the grill and brushed with our "
    "house glaze of brown sugar, smoked paprika, cider vinegar and a little mustard. "
) * 3 + "Contains gluten, mustard, sesame and sulphites."


@pytest.mark.parametrize("size", [(80, 24), (120, 40)], ids=["80x24", "120x40"])
async def test_a_long_description_is_whole_and_scrolls(
    tmp_path: Path, size: tuple[int, int]
) -> None:
    app = make_kiosk(tmp_path).app
    async with app.run_test(size=size) as pilot:
        await open_menu(pilot, "1", "1")
        await type_text(pilot, "latte")
        await keys(pilot, "enter")
        screen = app.screen
        assert isinstance(screen, ProductScreen) and screen.product is not None
        screen._loaded(screen.product.model_copy(update={"description": LONG}))
        await settle(pilot)
        info = screen.query_one("#product-info", Static)
        box = screen.query_one("#product-info-box", VerticalScroll)
        shown = " ".join(
            strip.text.strip() for strip in info.render_lines(info.region.reset_offset)
        )
        assert "sulphites." in " ".join(shown.split()), shown
        # All of it laid out, and the box scrolls to its last line.
        box.scroll_end(animate=False)
        await settle(pilot)
        assert box.scroll_y == box.max_scroll_y
        assert info.region.height >= 4


async def test_a_product_whose_defaults_cost_more_shows_the_price_it_opens_at(
    tmp_path: Path,
) -> None:
    """Issue 33 (2): "Caffè Latte $4.75" opens with Medium (+$0.50) chosen: its screen says
    $5.25, from the server's option prices, and the menu's $4.75 as where it starts from."""
    app = make_kiosk(tmp_path).app
    async with app.run_test(size=(80, 24)) as pilot:
        await open_menu(pilot, "1", "1")
        await type_text(pilot, "latte")
        await keys(pilot, "enter")
        screen = app.screen
        assert isinstance(screen, ProductScreen)
        info = screen.query_one("#product-info", Static)
        head = " ".join(strip.text for strip in info.render_lines(info.region.reset_offset))
        assert "$5.25" in head and "(from $4.75)" in head, head
