"""The menu's product rows drawn straight to segments (ProductList.strip_at) look exactly as the
Text path draws them, and the scrollbar repainted line by line after a search shows what a whole
repaint would."""

from __future__ import annotations

from pathlib import Path
from typing import Any, cast

from textual.geometry import Region
from textual.strip import Strip

from kiosk.tui import menu_model
from kiosk.tui.screens.menu import MenuScreen, ProductList

from .conftest import make_kiosk, settle
from .test_flow import open_menu


async def _menu_products(pilot: Any) -> ProductList:
    """Downtown's menu for pickup (test_flow.open_menu), and its product list."""
    await open_menu(pilot, "1", "1")
    screen = pilot.app.screen
    assert isinstance(screen, MenuScreen)
    return screen.query_one(ProductList)


def _cells(strip: Strip) -> list[tuple[str, Any]]:
    # Joined where the style is the same: how many segments carry a look is not the look.
    return [(s.text, s.style) for s in strip.simplify()]


def _every_row_both_ways(products: ProductList) -> tuple[int, set[str]]:
    """Draw every row with strip_at and again with the Text path; assert they match. Returns how
    many rows strip_at drew itself and the states of the rows compared."""
    fast_rows = 0
    states: set[str] = set()
    original = ProductList.strip_at
    calls: list[bool] = []

    def counted(self: ProductList, *args: Any) -> Strip | None:
        strip = original(self, *args)
        calls.append(strip is not None)
        return strip

    height = products.scrollable_content_region.height
    for top in range(0, len(products.rows), height):
        products.scroll_to(y=top, animate=False, immediate=True)
        first = round(products.scroll_y)
        for y in range(min(height, len(products.rows) - first)):
            found = products.entry_at(first + y)
            if found is not None:
                states.add(found[0].state(found[1])[0])
            calls.clear()
            ProductList.strip_at = counted  # type: ignore[method-assign]
            try:
                fast = products.render_line(y)
            finally:
                ProductList.strip_at = original  # type: ignore[method-assign]
            fast_rows += sum(calls)
            products.strip_at = lambda *a: None  # type: ignore[method-assign,assignment]
            try:
                slow = products.render_line(y)
            finally:
                del products.strip_at
            assert _cells(fast) == _cells(slow), (first + y, fast.text)
    return fast_rows, states


async def test_product_rows_drawn_as_segments_match_the_text_path(tmp_path: Path) -> None:
    kiosk = make_kiosk(tmp_path, extra_products=120)
    app = kiosk.app
    async with app.run_test(size=(120, 40)) as pilot:
        products = await _menu_products(pilot)
        assert len(products.rows) > 100
        # Every state on screen whatever the time of day: one product sold out, one served later.
        entries = list(products.entries())
        for (group, product), state in zip(
            entries[3:5], (menu_model.SOLD_OUT, menu_model.NOT_NOW), strict=True
        ):
            cast(dict[str, tuple[str, str]], group.unavailable)[product.id] = (state, "06:00")
        # The cursor on the sold-out row: its colours win over the row's own.
        products.move_to_key((entries[3][0].id, entries[3][1].id))
        fast_rows, states = _every_row_both_ways(products)
        # Not a comparison of the Text path with itself: most rows were drawn as segments, and
        # each state was among them.
        assert fast_rows > len(products.rows) // 2
        assert {menu_model.AVAILABLE, menu_model.SOLD_OUT, menu_model.NOT_NOW} <= states
        # The cursor blurred, and a search: its match underlined, a tag match not.
        app.screen.query_one("#categories").focus()
        await pilot.pause()
        _every_row_both_ways(products)
        await pilot.press(*"la")
        await settle(pilot)
        assert products.needle == "la"
        fast_rows, _states = _every_row_both_ways(products)
        assert fast_rows > 0
        # Narrow: long names are cut with an ellipsis (the Text path draws those rows).
        await pilot.resize_terminal(60, 20)
        await settle(pilot)
        _every_row_both_ways(products)


async def test_the_list_and_its_scrollbar_repainted_by_lines_show_what_a_whole_repaint_shows(
    tmp_path: Path,
) -> None:
    """After each search key only the lines that change are repainted (the scrollbar's, the
    list's rows before and after): what is drawn must be what a whole repaint draws."""
    kiosk = make_kiosk(tmp_path, extra_products=300)
    app = kiosk.app
    async with app.run_test(size=(120, 40)) as pilot:
        products = await _menu_products(pilot)
        bar = products.vertical_scrollbar
        looks: set[tuple[str, ...]] = set()
        counts: set[int] = set()
        # The thumb grows, moves or stays; the rows go down to a few (No. 290 to 299), one, none
        # ("Nothing matches"), and back.
        typed = ["n", "o", "backspace", "backspace", "t", "a", "backspace", "backspace"]
        typed += [*"no. 29", "9", "backspace", "z", "z", "backspace", "backspace", "backspace"]
        for key in typed:
            await pilot.press(key)
            await settle(pilot)
            counts.add(len(products.rows))
            for widget in (bar, products):
                region = Region(0, 0, widget.size.width, widget.size.height)
                drawn = [_cells(strip) for strip in widget.render_lines(region)]
                widget.refresh()
                whole = [_cells(strip) for strip in widget.render_lines(region)]
                assert drawn == whole, (key, widget)
                if widget is bar:
                    looks.add(tuple(str(line) for line in whole))
        assert len(looks) > 2  # the thumb did change
        height = products.scrollable_content_region.height
        assert min(counts) == 0 and any(1 < n < height for n in counts) and max(counts) > height
