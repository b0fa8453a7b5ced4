"""Keys that arrive together in the cart (issue 20), as a laggy SSH link delivers them: several
keys in ONE write, parsed as the terminal driver parses it (XTermParser) and queued before
anything settles. Each key acts on the focus it was meant for: two arrows move twice, a code typed
right after lands in the code field (its letters never run the cart's keys, "e" edits), and after
Del the highlight stays on the neighbouring line."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from textual._xterm_parser import XTermParser
from textual.pilot import Pilot
from textual.widgets import Input

from kiosk.tui.screens.cart import CartLines, CartScreen

from .conftest import make_kiosk, settle

DOWN = "\x1b[B"
DELETE = "\x1b[3~"


async def one_write(pilot: Pilot[Any], data: str) -> None:
    """`data` as one read from the terminal: every key it holds queued at once."""
    driver = pilot.app._driver
    assert driver is not None
    for message in list(XTermParser().feed(data)):
        driver.send_message(message)
    await settle(pilot)


async def open_cart(pilot: Pilot[Any], *products: str) -> CartScreen:
    """Downtown, pickup, one of each of `products` (no code applied), then the cart."""
    for key in ("1", "1"):
        await pilot.press(key)
        await settle(pilot)
    app: Any = pilot.app
    for product in products:
        await app.visit.add_item(product, 1, None)
    await settle(pilot)
    await pilot.press("f4")
    await settle(pilot)
    assert isinstance(app.screen, CartScreen)
    return app.screen


def where(app: Any) -> tuple[str | None, Any]:
    lines = app.screen.query_one("#lines", CartLines)
    return (app.focused.id if app.focused else None), lines.cursor


async def test_arrows_in_one_write_move_as_far_as_one_at_a_time(tmp_path: Path) -> None:
    seen = []
    for together in (False, True):
        app = make_kiosk(tmp_path / str(together), clock=lambda: 1000.0).app
        async with app.run_test(size=(80, 24)) as pilot:
            await open_cart(pilot, "prd_espresso", "prd_cookie")
            if together:
                await one_write(pilot, DOWN * 3)
            else:
                for _ in range(3):
                    await pilot.press("down")
                    await settle(pilot)
            seen.append(where(app))
    assert seen[0] == seen[1], seen
    assert seen[0][0] != "lines", "three downs from the first of two lines leave the list"


async def test_a_code_typed_right_after_the_arrows_lands_in_its_field(tmp_path: Path) -> None:
    app = make_kiosk(tmp_path, clock=lambda: 1000.0).app
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await open_cart(pilot, "prd_espresso", "prd_cookie")
        # How many downs from the first line reach the code field, one at a time.
        downs = 0
        while app.focused is None or app.focused.id != "discount":
            await pilot.press("down")
            await settle(pilot)
            downs += 1
            assert downs < 10, "the code field is never reached by the arrows"
        for _ in range(downs):
            await pilot.press("up")
            await settle(pilot)
        assert app.focused is not None and app.focused.id == "lines"
        # Arrows then the code in one write: "e" among its letters would edit the line.
        await one_write(pilot, DOWN * downs + "extra")
        assert app.screen is screen, type(app.screen)
        assert screen.query_one("#discount", Input).value == "extra"


async def test_after_del_the_highlight_stays_on_the_neighbouring_line(tmp_path: Path) -> None:
    app = make_kiosk(tmp_path, clock=lambda: 1000.0).app
    async with app.run_test(size=(100, 32)) as pilot:
        screen = await open_cart(pilot, "prd_espresso", "prd_cookie", "prd_brownie")
        lines = screen.query_one("#lines", CartLines)
        items = [i.id for i in app.visit.state.cart.items]
        assert len(items) == 3
        lines.move_to_key(items[1])
        await settle(pilot)
        await one_write(pilot, DELETE)
        left = [i.id for i in app.visit.state.cart.items]
        assert left == [items[0], items[2]]
        assert lines.cursor_key == items[2], "the highlight jumped away from the deleted line"
