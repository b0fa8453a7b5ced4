"""Kiosk mode: the keys that leave or suspend the app are ignored, staff get out with the PIN
(wrong PINs refused and throttled on an injected clock), and outside kiosk mode Ctrl+Q quits.

Against the embedded demo backend (tests/tui/conftest.py), driven by keys with Pilot.
"""

from __future__ import annotations

from functools import cache
from pathlib import Path
from typing import Any

import pytest
from textual.command import CommandPalette
from textual.pilot import Pilot

from kiosk.config import Settings, hash_pin
from kiosk.tui.kiosk_mode import PinThrottle
from kiosk.tui.screens.location import LocationScreen
from kiosk.tui.screens.menu import MenuScreen
from kiosk.tui.screens.product import ProductScreen
from kiosk.tui.screens.staff import PinDialog, StaffScreen
from kiosk.tui.screens.welcome import WelcomeScreen
from kiosk.tui.widgets.dialogs import ConfirmDialog

from .conftest import Kiosk, make_kiosk, no_thanks, settle
from .test_flow import keys, type_text

PIN = "2468"


@cache
def pin_hash() -> str:
    return hash_pin(PIN)


class FakeClock:
    """The app's monotonic clock, moved by the test."""

    def __init__(self, start: float = 1000.0) -> None:
        self.now = start

    def __call__(self) -> float:
        return self.now

    def advance(self, seconds: float) -> None:
        self.now += seconds


def kiosk_with(
    tmp_path: Path, clock: FakeClock | None = None, **settings: Any
) -> tuple[Kiosk, FakeClock]:
    clock = clock or FakeClock()
    k = make_kiosk(tmp_path, settings=Settings(**settings), clock=clock)
    return k, clock


async def to_menu_with_cookie(k: Kiosk, pilot: Pilot[Any]) -> str:
    """Location 1 (downtown), pickup, a cookie in the cart; returns the server cart id."""
    await settle(pilot)
    assert isinstance(pilot.app.screen, LocationScreen)
    await keys(pilot, "1")
    assert isinstance(pilot.app.screen, WelcomeScreen)
    await keys(pilot, "1")
    assert isinstance(pilot.app.screen, MenuScreen)
    await type_text(pilot, "cookie")
    await keys(pilot, "enter")
    assert isinstance(pilot.app.screen, ProductScreen)
    await keys(pilot, "f2")
    await no_thanks(pilot)
    assert isinstance(pilot.app.screen, MenuScreen)
    assert pilot.app.screen.query_text == ""  # the search ended when the product opened
    cart = k.server_cart()
    assert [i["productId"] for i in cart["items"]] == ["prd_cookie"]
    return str(cart["id"])


async def type_pin(pilot: Pilot[Any], pin: str) -> None:
    await type_text(pilot, pin)
    await keys(pilot, "enter")


def pin_message(pilot: Pilot[Any]) -> str:
    screen = pilot.app.screen
    assert isinstance(screen, PinDialog)
    return screen.message


# Kiosk mode keys ----------------------------------------------------------------------------------
async def test_kiosk_mode_ignores_quit_suspend_and_palette_keys(tmp_path: Path) -> None:
    k, _ = kiosk_with(tmp_path, kiosk_mode=True, staff_pin_hash=pin_hash())
    app = k.app
    async with app.run_test(size=(100, 30)) as pilot:
        cart_id = await to_menu_with_cookie(k, pilot)
        menu = app.screen
        for key in ("ctrl+c", "ctrl+q", "ctrl+z", "ctrl+backslash", "ctrl+p"):
            await keys(pilot, key)
            assert app.is_running, key
            assert app.return_code is None, key
            assert app.screen is menu, (key, app.screen)
            assert not CommandPalette.is_open(app), key
        # Nothing of the order was lost on the way.
        assert k.server_cart()["id"] == cart_id
        assert len(k.server_cart()["items"]) == 1
        # The footer offers no way out either.
        assert "quit" not in {b.binding.action for b in app.active_bindings.values()}
        assert "command_palette" not in {b.binding.action for b in app.active_bindings.values()}


async def test_outside_kiosk_mode_ctrl_q_quits(tmp_path: Path) -> None:
    k, _ = kiosk_with(tmp_path)
    app = k.app
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        assert isinstance(app.screen, LocationScreen)
        await pilot.press("ctrl+q")
        await pilot.pause()
    assert not app.is_running
    assert app.return_code == 0


async def test_outside_kiosk_mode_the_palette_opens(tmp_path: Path) -> None:
    # The contrast for the kiosk-mode test: the same key does open it here.
    k, _ = kiosk_with(tmp_path)
    app = k.app
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        await keys(pilot, "ctrl+p")
        assert CommandPalette.is_open(app)


# The PIN ------------------------------------------------------------------------------------------
async def test_wrong_pin_refused_and_throttled_right_pin_opens_staff_then_exit(
    tmp_path: Path,
) -> None:
    k, clock = kiosk_with(tmp_path, kiosk_mode=True, staff_pin_hash=pin_hash())
    app = k.app
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        start = app.screen
        await keys(pilot, "f12")
        assert isinstance(app.screen, PinDialog)

        await type_pin(pilot, "1111")
        assert isinstance(app.screen, PinDialog)
        assert "Wrong PIN" in pin_message(pilot)
        await type_pin(pilot, "2222")
        assert "1 more try" in pin_message(pilot)
        await type_pin(pilot, "3333")
        assert "Try again in 30 s" in pin_message(pilot)

        # Locked: even the right PIN is not checked.
        await type_pin(pilot, PIN)
        assert isinstance(app.screen, PinDialog)
        assert app.pin_throttle.locked

        # Closing and reopening the prompt does not lift the lockout.
        await keys(pilot, "escape")
        assert app.screen is start
        await keys(pilot, "f12")
        assert "Try again in" in pin_message(pilot)

        # Time passes (the injected clock): one more wrong PIN locks for twice as long.
        clock.advance(31)
        app.screen.refresh_state()
        await type_pin(pilot, "4444")
        assert "Try again in 60 s" in pin_message(pilot)

        clock.advance(61)
        app.screen.refresh_state()
        await type_pin(pilot, PIN)
        assert isinstance(app.screen, StaffScreen)
        assert app.pin_throttle.failures == 0

        # Exit, confirmed: the app ends.
        actions = app.screen.query_one("#staff-actions")
        ids = [actions.get_option_at_index(i).id for i in range(actions.option_count)]
        assert ids[-1] == "exit"
        actions.highlighted = len(ids) - 1
        await keys(pilot, "enter")
        assert isinstance(app.screen, ConfirmDialog)
        await pilot.press("y")
        await pilot.pause()
    assert not app.is_running
    assert app.return_code == 0


async def test_ctrl_s_also_asks_for_the_pin_and_no_pin_means_no_way_out(tmp_path: Path) -> None:
    k, _ = kiosk_with(tmp_path, kiosk_mode=True)
    app = k.app
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        await keys(pilot, "ctrl+s")
        assert isinstance(app.screen, PinDialog)
        assert "No staff PIN is set" in pin_message(pilot)
        await type_pin(pilot, "0000")
        assert isinstance(app.screen, PinDialog)
        await keys(pilot, "escape")
        assert isinstance(app.screen, LocationScreen)


async def test_outside_kiosk_mode_without_a_pin_staff_open_directly(tmp_path: Path) -> None:
    k, _ = kiosk_with(tmp_path)
    async with k.app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        await keys(pilot, "f12")
        assert isinstance(k.app.screen, StaffScreen)
        await keys(pilot, "escape")
        assert isinstance(k.app.screen, LocationScreen)


def test_pin_throttle_grows_and_is_capped() -> None:
    clock = FakeClock(0.0)
    throttle = PinThrottle(clock, free_attempts=3, first_lockout=30, max_lockout=100)
    assert [throttle.failed() for _ in range(2)] == [0.0, 0.0]
    assert throttle.attempts_before_lockout == 1
    assert throttle.failed() == 30
    assert throttle.seconds_left() == pytest.approx(30)
    clock.advance(30)
    assert not throttle.locked
    assert throttle.failed() == 60
    clock.advance(60)
    assert throttle.failed() == 100  # capped
    throttle.succeeded()
    assert not throttle.locked and throttle.attempts_before_lockout == 3
