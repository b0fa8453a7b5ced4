"""Typing is typing on every screen with a text field (issue 33, item 4): a word made of the
letters that are keys somewhere (T text size, N the terminal's number, R retry, Y/A/C/D) typed in a
burst into the welcome's details, the checkout's name and email, and the menu's search reaches the
field whole, and no single-letter key fires."""

from __future__ import annotations

from pathlib import Path

from textual.widgets import Input

from kiosk.tui.a11y import large_text
from kiosk.tui.screens.checkout import CheckoutScreen
from kiosk.tui.screens.menu import MenuScreen
from kiosk.tui.screens.welcome import WelcomeScreen

from .conftest import make_kiosk, settle
from .test_flow import keys, open_menu

WORD = "Tnrycad"  # every letter that is a key on some screen


async def test_the_welcome_details_take_every_letter(tmp_path: Path) -> None:
    app = make_kiosk(tmp_path).app
    async with app.run_test(size=(80, 24)) as pilot:
        await open_menu(pilot, "2", "3")  # Westside, room service: its details form
        screen = app.screen
        assert isinstance(screen, WelcomeScreen)
        large = large_text(app)
        await pilot.press("tab")  # the second field (the last name) takes letters
        await settle(pilot)
        field = app.focused
        assert isinstance(field, Input)
        await pilot.press(*WORD)
        await settle(pilot)
        assert app.screen is screen
        assert field.value == WORD
        assert large_text(app) == large, "T changed the text size"


async def test_the_checkout_fields_take_every_letter(tmp_path: Path) -> None:
    k = make_kiosk(tmp_path)
    app = k.app
    async with app.run_test(size=(80, 24)) as pilot:
        await open_menu(pilot, "1", "1")
        await app.visit.add_item("prd_cookie", 1, None)
        await keys(pilot, "f4", "f2")
        screen = app.screen
        assert isinstance(screen, CheckoutScreen)
        field = app.focused
        assert isinstance(field, Input)
        await pilot.press(*WORD)
        await settle(pilot)
        assert app.screen is screen and field.value == WORD


async def test_the_menu_search_takes_every_letter(tmp_path: Path) -> None:
    app = make_kiosk(tmp_path).app
    async with app.run_test(size=(80, 24)) as pilot:
        await open_menu(pilot, "1", "1")
        screen = app.screen
        assert isinstance(screen, MenuScreen)
        await pilot.press(*WORD.lower())
        await settle(pilot)
        assert app.screen is screen
        assert screen.query_text == WORD.lower()
