"""The welcome screen's digit shortcuts pick a method only from the method list."""

from __future__ import annotations

from pathlib import Path

from textual.widgets import Button

from kiosk.tui.screens.welcome import WelcomeScreen

from .conftest import make_kiosk
from .test_flow import keys, open_menu


async def test_a_digit_on_the_details_form_does_not_switch_the_method(tmp_path: Path) -> None:
    kiosk = make_kiosk(tmp_path)
    app = kiosk.app
    async with app.run_test(size=(80, 24)) as pilot:
        await open_menu(pilot, "2", "3")  # Westside, room service: its details form opens
        screen = app.screen
        assert isinstance(screen, WelcomeScreen) and screen.method == "room_service"
        screen.query_one("#start", Button).focus()
        await keys(pilot, "1")  # "1" is Pickup in the list
        assert app.screen is screen and screen.method == "room_service"
        assert app.visit.state.cart_id is None  # no order was started
