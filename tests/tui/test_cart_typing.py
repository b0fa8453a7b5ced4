"""Typing is typing on the order screen (issue 33, item 4): a code typed wherever the focus is goes
to the discount field, whole, in a burst too, and no letter runs one of the screen's keys; Del
says what it removed with an Undo for 10 s that puts the same line back through the Visit; each
line has −, + and Remove for a finger."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from textual.widgets import Button, Input, Static

from kiosk.ordering.modifiers import SelectionState
from kiosk.tui.screens.cart import CartLines, CartScreen
from kiosk.tui.widgets.line_controls import UndoNote

from .conftest import make_kiosk, settle
from .test_cart_bursts import DELETE, one_write, open_cart
from .test_flow import banner
from .test_kiosk_mode import FakeClock


async def latte_cart(pilot: Any) -> CartScreen:
    """A latte with its choices (medium, whole milk) first, then a cookie; the order screen."""
    app: Any = pilot.app
    for key in ("1", "1"):
        await pilot.press(key)
        await settle(pilot)
    latte = await app.visit.product("prd_latte")
    await app.visit.add_item("prd_latte", 1, SelectionState.for_product(latte))
    await app.visit.add_item("prd_cookie", 1, None)
    await settle(pilot)
    await pilot.press("f4")
    await settle(pilot)
    assert isinstance(app.screen, CartScreen)
    return app.screen


def server_lines(app: Any) -> list[tuple[str, int, Any]]:
    cart = app.visit.state.cart
    return [(i.product_id, i.quantity, i.selections) for i in cart.items]


async def test_tab_to_edit_then_a_code_typed_goes_to_the_code_field(tmp_path: Path) -> None:
    app = make_kiosk(tmp_path, clock=lambda: 1000.0).app
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await latte_cart(pilot)
        await pilot.press("tab")
        await settle(pilot)
        assert app.focused is not None and not isinstance(app.focused, Input)
        await pilot.press(*"SAVE20")
        await settle(pilot)
        assert app.screen is screen, type(app.screen)
        field = screen.query_one("#discount", Input)
        assert field.value == "SAVE20"
        assert app.focused is field


async def test_a_code_in_one_read_from_the_lines_goes_to_the_code_field(tmp_path: Path) -> None:
    app = make_kiosk(tmp_path, clock=lambda: 1000.0).app
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await latte_cart(pilot)
        assert app.focused is not None and app.focused.id == "lines"
        before = server_lines(app)
        await one_write(pilot, "extra9")
        assert app.screen is screen, type(app.screen)
        assert screen.query_one("#discount", Input).value == "extra9"
        assert server_lines(app) == before, "a letter changed the order"


async def test_the_line_keys_are_no_letters(tmp_path: Path) -> None:
    for binding in CartLines.BINDINGS + CartScreen.BINDINGS:
        for key in binding.key.split(","):
            assert len(key) != 1 or not key.isalnum(), key


async def test_del_says_what_it_removed_and_undo_puts_it_back(tmp_path: Path) -> None:
    clock = FakeClock()
    app = make_kiosk(tmp_path, clock=clock).app
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await latte_cart(pilot)
        before = server_lines(app)
        await one_write(pilot, DELETE)
        assert len(server_lines(app)) == 1
        note = screen.query_one("#undo-note", UndoNote)
        assert note.display
        said = str(screen.query_one("#undo-text", Static).render())
        assert said.startswith("Removed 1 × "), said
        clock.advance(9.0)
        note.check()
        await pilot.press("ctrl+z")
        await settle(pilot)
        after = server_lines(app)
        assert sorted(map(repr, after)) == sorted(map(repr, before))
        assert not note.display
        assert "is back in your order" in banner(pilot)


async def test_undo_is_gone_after_ten_seconds(tmp_path: Path) -> None:
    clock = FakeClock()
    app = make_kiosk(tmp_path, clock=clock).app
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await latte_cart(pilot)
        await one_write(pilot, DELETE)
        note = screen.query_one("#undo-note", UndoNote)
        assert note.display
        clock.advance(10.0)
        note.check()  # what its Textual timer calls at 10 s
        await settle(pilot)
        assert not note.display
        await pilot.press("ctrl+z")
        await settle(pilot)
        assert len(server_lines(app)) == 1


async def test_minus_plus_and_remove_by_touch(tmp_path: Path) -> None:
    app = make_kiosk(tmp_path, clock=lambda: 1000.0).app
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await open_cart(pilot, "prd_cookie")
        for target in ("#line-more", "#line-less", "#line-remove"):
            assert screen.query_one(target, Button).region.area > 0, target
        await pilot.click("#line-more")
        await settle(pilot)
        assert server_lines(app)[0][1] == 2
        await pilot.click("#line-less")
        await settle(pilot)
        assert server_lines(app)[0][1] == 1
        await pilot.click("#line-remove")
        await settle(pilot)
        assert server_lines(app) == []
        await pilot.click("#undo")
        await settle(pilot)
        assert [q for _, q, _ in server_lines(app)] == [1]


async def test_minus_to_none_is_a_removal_with_undo(tmp_path: Path) -> None:
    app = make_kiosk(tmp_path, clock=lambda: 1000.0).app
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await latte_cart(pilot)
        await pilot.press("minus")
        await settle(pilot)
        assert len(server_lines(app)) == 1
        assert screen.query_one("#undo-note", UndoNote).display
