"""The cart and product screens finished (issue 13, part D): tips as amounts, editing a line's
options, one suggestion after an add, prices formatted one way."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from textual.pilot import Pilot
from textual.widgets import Button, Input

from kiosk.config import Settings
from kiosk.ordering.modifiers import SelectionState
from kiosk.tui.app import KioskApp
from kiosk.tui.screens.cart import CartLines, CartScreen, TipButton
from kiosk.tui.screens.menu import MenuScreen
from kiosk.tui.screens.product import ModifierList, OptionRow, ProductScreen, SuggestionDialog
from kiosk.tui.widgets.chrome import FieldError

from .conftest import make_kiosk, settle
from .test_flow import banner, fill, keys, open_menu, type_text

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


async def _latte_in_the_cart(pilot: Pilot[Any]) -> None:
    app = pilot.app
    assert isinstance(app, KioskApp)
    await open_menu(pilot, "1", "1")
    latte = await app.visit.product("prd_latte")
    await app.visit.add_item("prd_latte", 2, SelectionState.for_product(latte))  # medium, whole
    await keys(pilot, "f4")
    assert isinstance(app.screen, CartScreen)
    app.screen.query_one(CartLines).focus()
    await settle(pilot)


async def _choose(pilot: Pilot[Any], option_id: str) -> None:
    """Move the modifier list's cursor to `option_id` with the arrows, and press Space."""
    modifiers = pilot.app.screen.query_one(ModifierList)
    for _ in range(20):
        row = modifiers.cursor_row
        if isinstance(row, OptionRow) and row.option.item.id == option_id:
            break
        await pilot.press("down")
    await keys(pilot, "space")


def _lines(k: Any) -> list[tuple[str, int, list[str]]]:
    return [
        (
            i["productId"],
            i["quantity"],
            sorted(o["optionId"] for g in i.get("selections") or [] for o in g["selectedOptions"]),
        )
        for i in k.server_cart()["items"]
    ]


@pytest.mark.parametrize("dialect", DIALECTS)
async def test_edit_a_lines_choices_replaces_the_line(tmp_path: Path, dialect: str) -> None:
    k = make_kiosk(tmp_path, settings=Settings(api_dialect=dialect))
    app = k.app
    async with app.run_test(size=(100, 32)) as pilot:
        await _latte_in_the_cart(pilot)
        old_id = k.server_cart()["items"][0]["id"]
        await keys(pilot, "f3")
        product = app.screen
        assert isinstance(product, ProductScreen) and product.editing is not None
        # The line's own choices and quantity come selected.
        assert product.quantity == 2
        assert product.state is not None
        chosen = sorted(
            o["optionId"] for g in product.state.to_request() for o in g["selectedOptions"]
        )
        assert chosen == ["opt_milk_whole", "opt_size_medium"]
        assert "Update" in str(product.query_one("#add", Button).label)
        # Escape leaves the line as it was.
        await _choose(pilot, "opt_size_large")
        await keys(pilot, "escape")
        assert isinstance(app.screen, CartScreen)
        assert _lines(k) == [("prd_latte", 2, ["opt_milk_whole", "opt_size_medium"])]
        # Enter on the line opens it again; a new size and quantity replace the line.
        await keys(pilot, "enter")
        assert isinstance(app.screen, ProductScreen)
        await _choose(pilot, "opt_size_large")
        await keys(pilot, "3", "f2")
        assert isinstance(app.screen, CartScreen), banner(pilot)
        assert _lines(k) == [("prd_latte", 3, ["opt_milk_whole", "opt_size_large"])]
        assert k.server_cart()["items"][0]["id"] != old_id
        # The same choices with another quantity: the line's quantity changes in place.
        same_id = k.server_cart()["items"][0]["id"]
        await keys(pilot, "f3", "1", "f2")
        assert isinstance(app.screen, CartScreen)
        assert [(i["id"], i["quantity"]) for i in k.server_cart()["items"]] == [(same_id, 1)]
        # The button does the same as the key.
        await pilot.click("#edit-line")
        await settle(pilot)
        assert isinstance(app.screen, ProductScreen) and app.screen.editing is not None


@pytest.mark.parametrize("dialect", DIALECTS)
async def test_one_suggestion_after_an_add_skipped_or_added_with_one_key(
    tmp_path: Path, dialect: str
) -> None:
    k = make_kiosk(tmp_path, settings=Settings(api_dialect=dialect))
    app = k.app
    async with app.run_test(size=(100, 32)) as pilot:
        await open_menu(pilot, "1", "1")
        await type_text(pilot, "espresso")
        await keys(pilot, "enter", "f2")
        dialog = app.screen
        assert isinstance(dialog, SuggestionDialog)
        first = dialog.product.id
        assert first != "prd_espresso"
        shown = _text(dialog)
        assert dialog.product.name in shown and "No thanks" in shown
        assert app.visit.client.stats.by_endpoint["cross_sell"] == 1
        await keys(pilot, "escape")  # no thanks: nothing added, back on the menu
        assert isinstance(app.screen, MenuScreen)
        assert [i["productId"] for i in k.server_cart()["items"]] == ["prd_espresso"]
        # The cart screen reuses the suggestion's answer: no request more.
        await keys(pilot, "f4")
        assert isinstance(app.screen, CartScreen)
        assert app.visit.client.stats.by_endpoint["cross_sell"] == 1
        await keys(pilot, "escape")  # back to the menu (its search ended when it was left)
        # A second add: another product is suggested (never the same twice), and Y adds it.
        assert isinstance(app.screen, MenuScreen)
        await type_text(pilot, "cookie")
        await keys(pilot, "enter", "f2")
        dialog = app.screen
        assert isinstance(dialog, SuggestionDialog) and dialog.product.id != first
        suggested = dialog.product
        await keys(pilot, "y")
        if suggested.modifier_ids:
            assert isinstance(app.screen, ProductScreen) and not app.screen.suggest
            await keys(pilot, "f2")
        assert isinstance(app.screen, MenuScreen), banner(pilot)
        products = sorted(i["productId"] for i in k.server_cart()["items"])
        assert products == sorted(["prd_espresso", "prd_cookie", suggested.id])


def _text(screen: Any) -> str:
    return "\n".join(str(w.render()) for w in screen.query("Static, Button"))


async def test_no_suggestion_takes_a_burst_of_keys_meant_for_the_menu(tmp_path: Path) -> None:
    from .test_bursts import Slow, burst

    k = make_kiosk(tmp_path, wrap_transport=Slow)
    app = k.app
    async with app.run_test(size=(100, 32)) as pilot:
        await open_menu(pilot, "1", "1")
        await type_text(pilot, "cookie")
        await keys(pilot, "enter")
        assert isinstance(app.screen, ProductScreen)
        # F2 and the customer's next keys at once: they are for the menu, not for a suggestion.
        await burst(pilot, "f2", "down", "down")
        assert isinstance(app.screen, MenuScreen), type(app.screen)
        assert [i["productId"] for i in k.server_cart()["items"]] == ["prd_cookie"]
        assert app.visit.client.stats.by_endpoint.get("cross_sell", 0) == 0
