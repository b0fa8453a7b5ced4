"""The cart and product screens finished (issue 13, part D): tips as amounts, editing a line's
options, one suggestion after an add, prices formatted one way."""

from __future__ import annotations

from pathlib import Path

import pytest
from textual.widgets import Input

from kiosk.config import Settings
from kiosk.tui.screens.cart import CartScreen, TipButton
from kiosk.tui.widgets.chrome import FieldError

from .conftest import make_kiosk, settle
from .test_flow import fill, keys, open_menu

DIALECTS = [pytest.param("v1", id="v1"), pytest.param("v2", id="v2")]


@pytest.mark.parametrize("dialect", DIALECTS)
async def test_tips_show_amounts_move_with_arrows_and_say_why_refused(
    tmp_path: Path, dialect: str
) -> None:
    k = make_kiosk(tmp_path, settings=Settings(api_dialect=dialect))
    app = k.app
    async with app.run_test(size=(120, 40)) as pilot:
        await open_menu(pilot, "1", "1")
        await app.visit.add_item("prd_cookie", 2)  # 2 × 2.75 = 5.50
        await keys(pilot, "f4")
        screen = app.screen
        assert isinstance(screen, CartScreen)
        buttons = list(screen.query(TipButton))
        labels = [str(b.label) for b in buttons]
        # 15% of 5.50 = 0.825 -> 0.83; 18% = 0.99; 20% = 1.10. "No tip" is a button like them.
        assert labels == ["No tip", "15% · $0.83", "18% · $0.99", "20% · $1.10", "Other"]
        assert len({b.size.width for b in buttons}) == 1, "No tip as prominent as the presets"
        # The arrows move along the row and stop at its end; the footer names them.
        buttons[0].focus()
        await keys(pilot, "right", "right")
        assert app.focused is buttons[2]
        footer = {b.binding.description for b in app.active_bindings.values() if b.binding.show}
        assert {"Previous tip", "Next tip"} <= footer
        await keys(pilot, "enter")
        assert k.server_cart()["fees"]["tipRate"] in ("0.18", "0.1800")
        assert buttons[2].has_class("-chosen")
        await keys(pilot, "right", "right", "right")
        assert app.focused is buttons[4]
        await keys(pilot, "left", "up")
        assert app.focused is buttons[2]
        # A custom tip the kiosk refuses, then one the server refuses: each says so at the field.
        await keys(pilot, "right", "right", "enter")
        assert app.focused is screen.query_one("#custom-tip", Input)
        await fill(pilot, "abc")
        await keys(pilot, "enter")
        error = screen.query_one("#tip-error", FieldError)
        assert "not an amount" in error.message and error.display
        await fill(pilot, "750")  # within the kiosk's bound, over the demo's (500.00)
        await keys(pilot, "enter")
        assert error.message.startswith("Tip not set:"), error.message
        assert error.display
        assert k.server_cart()["fees"]["tipRate"] in ("0.18", "0.1800"), "the old tip stays"
        await fill(pilot, "2")
        await keys(pilot, "enter")
        assert not error.message
        assert str(buttons[4].label).replace("\n", " · ") == "Other · $2.00"


async def test_tips_at_80x24_keep_their_amounts_on_a_second_line(tmp_path: Path) -> None:
    k = make_kiosk(tmp_path)
    app = k.app
    async with app.run_test(size=(80, 24)) as pilot:
        await open_menu(pilot, "1", "1")
        await app.visit.add_item("prd_cookie", 2)
        await keys(pilot, "f4")
        await settle(pilot)
        labels = [str(b.label) for b in app.screen.query(TipButton)]
        assert labels[:2] == ["No tip\n$0.00", "15%\n$0.83"]
        assert all(b.size.height == 2 for b in app.screen.query(TipButton) if b.key != "custom")
