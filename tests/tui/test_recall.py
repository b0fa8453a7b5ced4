""" "Show my number again" (issue 20): after the thank-you screen has gone back to the start by
itself, the first screen offers the last order's number for a while (RECALL_WINDOW), by N or a
tap; then it is no longer offered."""

from __future__ import annotations

from pathlib import Path

from textual.widgets import Static

from kiosk.ordering.recent import RECALL_WINDOW
from kiosk.tui.screens.done import DoneScreen
from kiosk.tui.screens.location import LocationScreen
from kiosk.tui.widgets.order_number import OrderNumber
from kiosk.tui.widgets.recall import NumberDialog, RecallLine

from .conftest import make_kiosk, settle
from .test_flow import add_simple, checkout_and_pay, open_menu


async def test_the_number_again_on_the_first_screen_for_a_while(tmp_path: Path) -> None:
    now = [1000.0]
    # The window is wall-clock time: the number is kept in the terminal's state for the next
    # process too (journey 28), where a monotonic clock means nothing.
    k = make_kiosk(tmp_path, clock=lambda: now[0], wall_clock=lambda: now[0])
    app = k.app
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        # Before any order: nothing offered, N does nothing.
        assert not app.screen.query_one(RecallLine).display
        await pilot.press("n")
        assert isinstance(app.screen, LocationScreen)

        await open_menu(pilot, "1", "1")
        await add_simple(pilot, "espresso")
        await checkout_and_pay(k, pilot)
        done = app.screen
        assert isinstance(done, DoneScreen) and done.order_number
        number = done.order_number
        await pilot.press("enter")
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, LocationScreen)
        line = screen.query_one(RecallLine)
        assert line.display and "Press N" in str(line.render())

        # N: the number, large; any key closes it and nothing else happens.
        await pilot.press("n")
        await settle(pilot)
        assert isinstance(app.screen, NumberDialog)
        assert app.screen.query_one(OrderNumber).value == number.upper() or (
            app.screen.query_one(OrderNumber).value == number
        )
        await pilot.press("1")
        await settle(pilot)
        assert app.screen is screen

        # A tap on the line opens it too.
        assert await pilot.click(RecallLine)
        await settle(pilot)
        assert isinstance(app.screen, NumberDialog)
        await pilot.click(offset=(1, 1))
        await settle(pilot)
        assert app.screen is screen

        # Later than the window: no longer offered (to the customer after next).
        now[0] += RECALL_WINDOW + 1
        line.refresh_line()
        await pilot.press("n")
        await settle(pilot)
        assert app.screen is screen and not line.display
        said = " ".join(str(s.render()) for s in screen.query(Static) if s.display)
        assert number not in said
