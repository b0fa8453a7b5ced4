"""From the last customer's finished order to the next customer's first screen in one step.

The screens of an order were popped one by one: each one underneath was drawn for a moment (the
payment, the cart, the menu, the last welcome), and a key in that moment went to a screen on its
way out. A customer's burst (Enter on the thank-you screen, then 1 at once) reaches the new first
screen, and nothing between is drawn."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from kiosk.tui.screens.done import DoneScreen
from kiosk.tui.screens.location import LocationScreen
from kiosk.tui.screens.welcome import WelcomeScreen

from .conftest import make_kiosk, settle
from .test_flow import add_simple, checkout_and_pay, open_menu


async def test_a_burst_on_the_thank_you_screen_reaches_the_next_first_screen(
    tmp_path: Path,
) -> None:
    k = make_kiosk(tmp_path)
    app = k.app
    async with app.run_test(size=(80, 24)) as pilot:
        await open_menu(pilot, "1", "1")
        await add_simple(pilot, "espresso")
        await checkout_and_pay(k, pilot)
        assert isinstance(app.screen, DoneScreen)
        await settle(pilot)

        drawn: list[str] = []
        display = app._display

        def recording(screen: Any, renderable: Any) -> None:
            drawn.append(type(screen).__name__)
            display(screen, renderable)

        app._display = recording  # type: ignore[method-assign]
        # One read: Enter for a new order and 1 for the first restaurant.
        await pilot.press("enter", "1")
        await settle(pilot)
        await settle(pilot)

        assert isinstance(app.screen, WelcomeScreen), type(app.screen).__name__
        assert app.location is not None and app.location.id == "loc_downtown"
        # Only the thank-you screen (until the key), the first screen and the next one drawn.
        allowed = {"DoneScreen", LocationScreen.__name__, WelcomeScreen.__name__}
        assert set(drawn) <= allowed, drawn
