"""From the last customer's finished order to the next customer's first screen in one step.

The screens of an order were popped one by one: each one underneath was drawn for a moment (the
payment, the cart, the menu, the last welcome), and a key in that moment went to a screen on its
way out. A customer's burst (Enter on the thank-you screen, then 1 at once) reaches the new first
screen, and nothing between is drawn."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from textual import events

from kiosk.tui.screens.done import DoneScreen
from kiosk.tui.screens.location import LocationScreen
from kiosk.tui.screens.welcome import WelcomeScreen

from .conftest import make_kiosk, settle
from .test_bursts import burst, open_checkout
from .test_flow import add_simple, checkout_and_pay, open_menu

# A slow or held server: Pilot's own 20 ms idle steps are part of the timing (tests/conftest.py).
pytestmark = pytest.mark.pilot_idle_20ms


async def thank_you(k: Any, pilot: Any) -> None:
    """An espresso ordered and paid at Downtown: the thank-you screen, settled."""
    await open_menu(pilot, "1", "1")
    await add_simple(pilot, "espresso")
    await checkout_and_pay(k, pilot)
    assert isinstance(pilot.app.screen, DoneScreen)
    await settle(pilot)


async def test_a_burst_on_the_thank_you_screen_reaches_the_next_first_screen(
    tmp_path: Path,
) -> None:
    k = make_kiosk(tmp_path)
    app = k.app
    async with app.run_test(size=(80, 24)) as pilot:
        await thank_you(k, pilot)

        drawn: list[str] = []
        display = app._display

        def recording(screen: Any, renderable: Any) -> None:
            drawn.append(type(screen).__name__)
            display(screen, renderable)

        app._display = recording  # type: ignore[method-assign]
        # One read: Enter for a new order and 1 for the first restaurant, both queued before
        # either is handled (pilot.press waits between keys: the 1 came after the reset began).
        await burst(pilot, "enter", "1")
        await settle(pilot)

        assert isinstance(app.screen, WelcomeScreen), type(app.screen).__name__
        assert app.location is not None and app.location.id == "loc_downtown"
        # Only the thank-you screen (until the key), the first screen and the next one drawn.
        allowed = {"DoneScreen", LocationScreen.__name__, WelcomeScreen.__name__}
        assert set(drawn) <= allowed, drawn


async def test_a_whole_next_order_typed_on_the_thank_you_screen_reaches_the_menus_search(
    tmp_path: Path,
) -> None:
    """Enter, 1 (the restaurant), 1 (Pickup) and "cookie" in one read: each key waits for the
    screen it was meant for, across the reset and the step that starts the order (a key that
    starts a step while the held keys are given out makes those behind it wait again)."""
    from kiosk.tui.screens.menu import MenuScreen

    from .test_bursts import Slow

    k = make_kiosk(tmp_path, wrap_transport=Slow)
    app = k.app
    async with app.run_test(size=(80, 24)) as pilot:
        await thank_you(k, pilot)
        await burst(pilot, "enter", "1", "1", *"cookie")
        for _ in range(20):  # each step, then the keys it held given on
            await settle(pilot)
            if app._held_keys is None:
                break
        assert app._held_keys is None, "holding ended"
        assert isinstance(app.screen, MenuScreen), type(app.screen).__name__
        assert app.screen.query_text == "cookie"


async def test_keys_held_by_a_step_that_never_ends_go_on_at_the_limit(tmp_path: Path) -> None:
    app = make_kiosk(tmp_path).app
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        assert isinstance(app.screen, LocationScreen)
        app.hold_keys()  # a step that never releases them
        await pilot.press("1")
        await settle(pilot)
        assert isinstance(app.screen, LocationScreen), "the key waits"
        assert app._hold_limit is not None
        app._hold_expired()  # what the timer does at HOLD_LIMIT
        await settle(pilot)
        assert isinstance(app.screen, WelcomeScreen), "the key went on"
        assert app._held_keys is None and app._hold_limit is None


async def test_a_hold_the_limit_ended_releases_nothing_when_its_step_ends_late(
    tmp_path: Path,
) -> None:
    """A step whose hold HOLD_LIMIT ended, ending at last, does not end a later step's hold."""
    app = make_kiosk(tmp_path).app
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        assert isinstance(app.screen, LocationScreen)
        stuck = app.hold_keys()
        app._hold_expired()  # what the timer does at HOLD_LIMIT
        later = app.hold_keys()  # another step, still going
        await pilot.press("1")
        await settle(pilot)
        app.release_keys(stuck)  # the stuck step ends at last
        await settle(pilot)
        assert isinstance(app.screen, LocationScreen), "the later step still holds the key"
        assert not app.holds(stuck) and app.holds(later)
        app.release_keys(later)
        await settle(pilot)
        assert isinstance(app.screen, WelcomeScreen)


async def test_an_enter_whose_submit_never_came_does_not_stop_the_next_from_holding(
    tmp_path: Path,
) -> None:
    """An Enter in a field holds the keys after it until the field's Submitted reaches the
    screen. One that never came ends at HOLD_LIMIT, and the next Enter holds keys again."""
    from textual.widgets import Input

    app = make_kiosk(tmp_path).app
    async with app.run_test(size=(80, 24)) as pilot:
        await open_checkout(pilot)
        screen = app.screen
        field = screen.query_one("#name", Input)
        field.focus()
        field.action_submit = lambda: None  # type: ignore[method-assign]  # no Submitted
        await pilot.press("enter")
        await settle(pilot)
        first = screen._submitting
        assert first is not None and app.holds(first)
        app._hold_expired()
        await settle(pilot)
        del field.action_submit
        screen.action_submit_field()  # the next Enter
        assert screen._submitting is not None and app.holds(screen._submitting)
        await settle(pilot)
        assert screen._submitting is None and app._held_keys is None


async def test_a_tap_while_a_step_holds_keys_reaches_the_screen_drawn(tmp_path: Path) -> None:
    """Only the next customer's swap drops taps: while a step still holds keys (the welcome's
    call that opened the menu releases them a moment after the menu is drawn), a tap lands on
    the screen it was aimed at (in the browser demo a tap on the menu just opened was lost)."""
    app = make_kiosk(tmp_path).app
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        assert isinstance(app.screen, LocationScreen)
        hold = app.hold_keys()
        # A tap as the terminal sends it (through the driver, as keys are): down and up on the
        # first restaurant's row.
        row = app.screen.query_one("#locations").region
        x, y = row.x + 5, row.y
        driver = app._driver
        assert driver is not None
        for kind in (events.MouseDown, events.MouseUp):
            driver.send_message(kind(None, x, y, 0, 0, 1, False, False, False, x, y))
        await settle(pilot)
        assert isinstance(app.screen, WelcomeScreen)
        app.release_keys(hold)
        await settle(pilot)
        assert app._held_keys is None
