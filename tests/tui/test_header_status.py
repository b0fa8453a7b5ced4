"""The header's status line on a stack of screens, and a screen's density from its first style.

The status changes twice a request. Only the lines a customer can see follow it (the top
screen's, and those of screens showing through a see-through dialog); a covered screen's line
catches up when its screen is back (kiosk/tui/widgets/chrome.py StatusLine)."""

from __future__ import annotations

from pathlib import Path
from typing import Any, TypeVar

import pytest
from textual.app import ComposeResult
from textual.color import Color
from textual.pilot import Pilot
from textual.screen import ModalScreen, Screen
from textual.widgets import Button, Static

from kiosk.tui.screens.base import KioskScreen
from kiosk.tui.widgets.chrome import StatusLine

from .conftest import make_kiosk, settle

S = TypeVar("S", bound=Screen[Any])


class Plain(KioskScreen):
    """A screen with the shared frame and one button."""

    def compose_body(self) -> ComposeResult:
        yield Button("Go", id="go", classes="main-action")


def line_of(screen: object) -> StatusLine:
    return screen.query_one("#header-status", StatusLine)  # type: ignore[attr-defined]


def shows(line: StatusLine) -> str:
    return str(line.render()) if line.has_class("-active") else ""


async def pushed(pilot: Pilot[Any], screen: S) -> S:
    await pilot.app.push_screen(screen)
    await settle(pilot)
    return screen


async def test_the_top_screens_line_follows_and_a_covered_one_catches_up(tmp_path: Path) -> None:
    app = make_kiosk(tmp_path).app
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        below = await pushed(pilot, Plain())
        above = await pushed(pilot, Plain())
        app.status_text = "Saving your order…"
        await settle(pilot)
        assert shows(line_of(above)) == "Saving your order…"
        assert shows(line_of(below)) == ""  # covered: not restyled for nobody
        app.pop_screen()
        await settle(pilot)
        assert app.screen is below
        assert shows(line_of(below)) == "Saving your order…"
        app.status_text = ""
        await settle(pilot)
        assert shows(line_of(below)) == ""


async def test_a_line_under_a_see_through_dialog_follows(tmp_path: Path) -> None:
    app = make_kiosk(tmp_path).app
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        below = await pushed(pilot, Plain())
        # The kiosk's own dialogs are opaque (styles/*.tcss); Textual's default is 60 %.
        dialog = await pushed(pilot, ModalScreen[None]())
        dialog.styles.background = Color(0, 0, 0, 0.6)
        await settle(pilot)
        app.status_text = "Checking the payment…"
        await settle(pilot)
        assert shows(line_of(below)) == "Checking the payment…"


class Recording(Static):
    """Records, when mounted, whether its screen already had its density class."""

    def on_mount(self) -> None:
        seen.append(self.screen.has_class("-compact"))


seen: list[bool] = []


class Dense(KioskScreen):
    def compose_body(self) -> ComposeResult:
        yield Recording("x")
        yield Button("Go", id="go", classes="main-action")


@pytest.mark.every_frame  # the resize below is handled on the next frame
async def test_a_screen_has_its_density_before_its_children_are_mounted(tmp_path: Path) -> None:
    for size, compact in (((80, 24), True), ((120, 40), False)):
        seen.clear()
        app = make_kiosk(tmp_path / str(size[0])).app
        async with app.run_test(size=size) as pilot:
            await settle(pilot)
            screen = Dense()
            await app.push_screen(screen)
            await settle(pilot)
            assert seen == [compact]
            assert screen.has_class("-compact") is compact
            # Compact at 80x24, the main action keeps its three rows (styles/theme.tcss).
            assert screen.query_one("#go", Button).compact is compact
            # A resize still changes it.
            await pilot.resize_terminal(*((120, 40) if compact else (80, 24)))
            await pilot.pause()
            await settle(pilot)
            assert screen.has_class("-compact") is not compact
