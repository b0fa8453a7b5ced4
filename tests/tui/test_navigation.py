"""Navigation a customer guesses (issue 13): arrows reach every control of every screen, the footer
shows the screen's keys, Escape goes back one step (on the menu: the search first, then the ways to
order, the cart kept), long names can be read in full at 80x24, and the location list and the
welcome screen agree on what can be ordered and when."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from textual.pilot import Pilot
from textual.widget import Widget
from textual.widgets import Button, Select

from kiosk.tui.labels import offered_methods
from kiosk.tui.screens.base import KioskScreen
from kiosk.tui.screens.cart import CartScreen
from kiosk.tui.screens.checkout import CheckoutScreen
from kiosk.tui.screens.location import LocationScreen
from kiosk.tui.screens.menu import MenuScreen
from kiosk.tui.screens.payment import PaymentScreen
from kiosk.tui.screens.product import ProductScreen
from kiosk.tui.screens.welcome import WelcomeScreen

from .conftest import FIXED_NOW, WESTSIDE, Kiosk, make_kiosk, no_thanks, settle
from .test_flow import add_simple, banner, keys, open_menu, type_text


def label(widget: Widget | None) -> str:
    return f"{type(widget).__name__}#{widget.id}" if widget is not None else "None"


async def walk(
    pilot: Pilot[Any], step: str, limit: int = 40, expected: int | None = None
) -> list[str]:
    """Press `step` (an arrow) up to `limit` times; the controls focus went through, in order.
    On the time choice (a Select) ↑↓ open its list, so the walk goes on with → or ← there.
    Once `expected` controls have been seen, the walk stops when two more presses move nothing
    (neither the focus nor a list's cursor): the rest of the presses would only repeat that."""
    app = pilot.app
    seen = [label(app.focused)]

    def where() -> tuple[str, object]:
        return label(app.focused), getattr(app.focused, "cursor", None)

    still = 0
    for _ in range(limit):
        key = step
        if isinstance(app.focused, Select):
            key = "right" if step == "down" else "left"
        before = where()
        await pilot.press(key)
        await pilot.pause(0)
        now = label(app.focused)
        if now != seen[-1]:
            seen.append(now)
        still = still + 1 if where() == before else 0
        if expected is not None and len(seen) >= expected and still >= 2:
            break
    return seen


def controls(pilot: Pilot[Any]) -> list[str]:
    screen = pilot.app.screen
    assert isinstance(screen, KioskScreen)
    return [label(w) for w in screen.controls()]


async def reaches_every_control(pilot: Pilot[Any], limit: int = 40) -> list[str]:
    """From the first control, ↓ visits every control in order, and ↑ walks back to the first."""
    wanted = controls(pilot)
    assert wanted, "a screen with no control"
    pilot.app.screen.screen.set_focus(pilot.app.screen.controls()[0])  # type: ignore[attr-defined]
    await pilot.pause(0)
    down = await walk(pilot, "down", limit, len(wanted))
    assert down == wanted, (down, wanted)
    up = await walk(pilot, "up", limit, len(wanted))
    assert up == list(reversed(wanted)), up
    return wanted


def footer_keys(pilot: Pilot[Any]) -> set[str]:
    from textual.widgets._footer import FooterKey

    return {f"{k.key_display} {k.description}" for k in pilot.app.screen.query(FooterKey)}


async def test_arrows_reach_every_control_on_every_screen(tmp_path: Path) -> None:
    k = make_kiosk(tmp_path)
    app = k.app
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        assert isinstance(app.screen, LocationScreen)
        # The language is chosen on the first screen too (issue 33).
        assert await reaches_every_control(pilot) == [
            "Button#lang-en",
            "Button#lang-es",
            "LocationList#locations",
        ]
        assert "↑↓←→ Move" in footer_keys(pilot)

        # Welcome: the text size and the languages on the hours line, then the list.
        await keys(pilot, "2")  # Westside
        assert isinstance(app.screen, WelcomeScreen)
        assert await reaches_every_control(pilot) == [
            "Button#text-size",
            "Button#lang-en",
            "Button#lang-es",
            "MethodList#methods",
        ]
        app.screen.query_one("#methods").focus()
        # With a details form (the language choice hidden: it would redraw the form empty): the
        # text size, the list, each field, the start button.
        await keys(pilot, "3")  # room service
        assert isinstance(app.screen, WelcomeScreen)
        assert await reaches_every_control(pilot) == [
            "Button#text-size",
            "MethodList#methods",
            "TextField#f-last_name",
            "TextField#f-room",
            "Button#start",
        ]
        assert "↑↓←→ Move" in footer_keys(pilot)
        await keys(pilot, "escape", "escape")  # the form closes; back to the locations
        assert isinstance(app.screen, LocationScreen)
        await keys(pilot, "1", "1")
        assert isinstance(app.screen, MenuScreen)

        # Menu: ← the categories, → the products (↑↓ move inside each).
        assert label(app.focused) == "ProductList#products"
        await keys(pilot, "left")
        assert label(app.focused) == "CategoryList#categories"
        await keys(pilot, "right")
        assert label(app.focused) == "ProductList#products"
        shown = footer_keys(pilot)
        assert "↑↓←→ Move" in shown and any("Your order" in k for k in shown), shown
        assert any(k.endswith(" Back") for k in shown), shown

        # Product: the choices, then −, +, Add (←→ stay the amount keys here).
        await type_text(pilot, "latte")
        await keys(pilot, "enter")
        assert isinstance(app.screen, ProductScreen)
        # The description's box too (it scrolls a long description whole: issue 33).
        assert await reaches_every_control(pilot, limit=30) == [
            "VerticalScroll#product-info-box",
            "ModifierList#modifiers",
            "Button#qty-less",
            "Button#qty-more",
            "Button#add",
        ]
        await keys(pilot, "f2")
        await no_thanks(pilot)  # the one suggestion after an add
        assert isinstance(app.screen, MenuScreen)

        # Cart: lines, code, tips, the time, suggestions, checkout, every one by arrows.
        await keys(pilot, "f4")
        assert isinstance(app.screen, CartScreen)
        wanted = await reaches_every_control(pilot)
        for control in (
            "TextField#discount",
            "TipButton#tip-none",
            "Button#asap",
            "Button#checkout",
        ):
            assert control in wanted, wanted
        assert "Select#later" in wanted and "CrossSell#cross-sell" in wanted
        # The tip buttons are a row: → and ← move along it.
        app.screen.query_one("#tip-none", Button).focus()
        await keys(pilot, "right")
        tips = [label(b) for b in app.screen.query("#tip-row Button")]
        assert label(app.focused) == tips[1]
        await keys(pilot, "left")
        assert label(app.focused) == "TipButton#tip-none"

        # Checkout: name, email, continue.
        await keys(pilot, "f2")
        assert isinstance(app.screen, CheckoutScreen)
        assert await reaches_every_control(pilot) == [
            "TextField#name",
            "TextField#email",
            "Button#continue",
        ]
        app.screen.query_one("#name").value = "Ada"  # type: ignore[attr-defined]
        app.screen.query_one("#email").value = "ada@example.com"  # type: ignore[attr-defined]
        await keys(pilot, "f2")
        assert isinstance(app.screen, PaymentScreen), banner(pilot)
        # "I have paid" first (the main action), then back and cancel; "Pay again" only after
        # a decline.
        assert await reaches_every_control(pilot) == [
            "Button#paid",
            "Button#back",
            "Button#cancel",
        ]
        # At 80x24 the footer keeps the keys that matter first (KioskFooter.RANK): the main
        # action and Esc; the demo's keys take the arrows' room here.
        assert {"f2 I have paid", "esc Back to my order"} <= footer_keys(pilot)


async def test_a_list_hands_the_arrow_on_past_its_ends(kiosk: Kiosk) -> None:
    app = kiosk.app
    async with app.run_test(size=(80, 24)) as pilot:
        await open_menu(pilot, "2", "3")  # Westside, room service: a list above a form
        screen = app.screen
        assert isinstance(screen, WelcomeScreen)
        methods = screen.query_one("#methods")
        methods.focus()
        await keys(pilot, "home")
        first = methods.cursor  # type: ignore[attr-defined]
        await keys(pilot, "up")  # past the first row: the control above (the text size)
        assert label(app.focused) == "Button#text-size"
        await keys(pilot, "down")  # back into the list, its cursor where it was
        assert app.focused is methods and methods.cursor == first  # type: ignore[attr-defined]
        await keys(pilot, "down")  # inside the list first
        assert app.focused is methods and methods.cursor != first  # type: ignore[attr-defined]
        await keys(pilot, "end", "down")  # past the last row: the next control
        assert label(app.focused) == "TextField#f-last_name"


async def test_escape_on_the_menu_clears_the_search_then_goes_back_keeping_the_cart(
    kiosk: Kiosk,
) -> None:
    app = kiosk.app
    async with app.run_test(size=(80, 24)) as pilot:
        await open_menu(pilot, "1", "1")
        await add_simple(pilot, "cookie")
        menu = app.screen
        assert isinstance(menu, MenuScreen)
        cart_id = app.visit.state.cart_id
        await type_text(pilot, "lat")
        assert menu.query_text == "lat"
        await keys(pilot, "escape")
        assert app.screen is menu and menu.query_text == ""
        await keys(pilot, "escape")
        # One step back: the ways to order, no "start over?" question, the cart as it was.
        assert isinstance(app.screen, WelcomeScreen)
        assert app.visit.state.cart_id == cart_id
        assert [i["productId"] for i in kiosk.server_cart()["items"]] == ["prd_cookie"]
        await keys(pilot, "1")  # pickup again: the same cart, on the menu
        assert isinstance(app.screen, MenuScreen)
        assert app.visit.state.cart_id == cart_id
        assert [i["productId"] for i in kiosk.server_cart()["items"]] == ["prd_cookie"]


async def test_a_search_ends_when_the_customer_leaves_the_menu(kiosk: Kiosk) -> None:
    app = kiosk.app
    async with app.run_test(size=(80, 24)) as pilot:
        await open_menu(pilot, "1", "1")
        menu = app.screen
        assert isinstance(menu, MenuScreen)
        everything = len(menu.query_one("#products").rows)  # type: ignore[attr-defined]
        await type_text(pilot, "latte")
        assert menu.query_text == "latte"
        await keys(pilot, "f4")  # to the cart and back
        assert isinstance(app.screen, CartScreen)
        await keys(pilot, "escape")
        assert app.screen is menu and menu.query_text == ""
        assert len(menu.query_one("#products").rows) == everything  # type: ignore[attr-defined]
        await type_text(pilot, "latte")
        await keys(pilot, "enter", "escape")  # a product, and back without adding
        assert app.screen is menu and menu.query_text == ""


async def test_f9_still_asks_to_start_over_on_the_menu(kiosk: Kiosk) -> None:
    from kiosk.tui.widgets.dialogs import ConfirmDialog

    app = kiosk.app
    async with app.run_test(size=(80, 24)) as pilot:
        await open_menu(pilot, "1", "1")
        await add_simple(pilot, "cookie")
        await keys(pilot, "f9")
        assert isinstance(app.screen, ConfirmDialog)
        await keys(pilot, "n")
        assert isinstance(app.screen, MenuScreen)


async def test_closed_with_no_later_orders_does_not_let_the_customer_in(
    tmp_path: Path, monkeypatch: Any
) -> None:
    late = FIXED_NOW + 12 * 3600  # 22:00 in Los Angeles: Westside is closed
    k = make_kiosk(tmp_path, wall_clock=lambda: late)
    k.backend.set_clock(lambda: late)
    original = k.backend.location_json

    def no_later_orders(loc: Any) -> Any:
        body = dict(original(loc))
        if body["id"] == WESTSIDE.id:
            body["isScheduledOrderAllowed"] = False
        return body

    monkeypatch.setattr(k.backend, "location_json", no_later_orders)
    app = k.app
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, LocationScreen)
        rows = [str(r.text) for r in screen.query_one("#locations").rows]  # type: ignore[attr-defined]
        assert any("not taking orders now" in r for r in rows), (rows, banner(pilot))
        await keys(pilot, "2")
        assert app.screen is screen  # not let in
        said = banner(pilot)
        assert "closed now" in said and "We open tomorrow at" in said, said
        assert app.visit.state.cart_id is None


async def test_closed_single_location_offers_no_way_to_order(
    tmp_path: Path, monkeypatch: Any
) -> None:
    late = FIXED_NOW + 12 * 3600
    k = make_kiosk(tmp_path, locations=[WESTSIDE], wall_clock=lambda: late)
    k.backend.set_clock(lambda: late)
    original = k.backend.location_json

    def no_later_orders(loc: Any) -> Any:
        return {**original(loc), "isScheduledOrderAllowed": False}

    monkeypatch.setattr(k.backend, "location_json", no_later_orders)
    app = k.app
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, WelcomeScreen)
        assert screen.methods == []
        # The reason at the top, where the ways to order would be, not on the bottom row under
        # an empty screen (issue 33).
        reason = screen.query_one("#welcome-later")
        said = str(reason.render())
        assert "We open tomorrow at" in said, said
        assert reason.display and reason.region.y < 10, reason.region
        assert not banner(pilot)
        hours = str(screen.query_one("#welcome-hours").render())
        assert "today" in hours and "today closed today" not in hours


async def test_the_location_list_offers_what_the_welcome_screen_offers(tmp_path: Path) -> None:
    """On 2.0 without delivery zones the welcome screen hides delivery: so does the list."""
    from kiosk.config import Settings

    k = make_kiosk(tmp_path, settings=Settings(api_dialect="v2"))
    app = k.app
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, LocationScreen)
        first = k.services.location_ids[0]
        location = screen.locations[first]
        assert "delivery" in offered_methods(location)  # the location offers it ...
        assert "delivery" not in screen.orderable_methods(
            location, location_id=first
        )  # ... not here
        rows = [str(r.text) for r in screen.query_one("#locations").rows]  # type: ignore[attr-defined]
        assert not any("Delivery" in r for r in rows), rows
        await keys(pilot, "1")
        welcome = app.screen
        assert isinstance(welcome, WelcomeScreen)
        assert welcome.methods == screen.orderable_methods(location, location_id=first)
        assert "delivery" not in welcome.methods


LONG = "Slow-roasted heritage pumpkin and toasted hazelnut soup with sage brown butter on dark rye"
LONG_OPTION = (
    "Medium (16 oz), brewed slowly from single-origin beans grown on the misty hills above"
)


def rename(kiosk: Kiosk) -> None:
    """A 90-character product name (the espresso's) and a long option (the latte's medium)."""
    import dataclasses

    catalog = kiosk.backend.catalog
    catalog.products["prd_espresso"] = dataclasses.replace(
        catalog.products["prd_espresso"], name=LONG
    )
    group, option = catalog.options["opt_size_medium"]
    renamed = dataclasses.replace(option, name=LONG_OPTION)
    group = dataclasses.replace(
        group, options=tuple(renamed if o.id == option.id else o for o in group.options)
    )
    catalog.groups[group.id] = group
    for each in group.options:
        catalog.options[each.id] = (group, each)


async def test_a_long_name_cut_at_80x24_can_be_read_in_full(tmp_path: Path) -> None:
    from kiosk.tui.widgets.chrome import FullName

    assert len(LONG) == 90 and len(LONG_OPTION) >= 80
    k = make_kiosk(tmp_path)
    rename(k)
    app = k.app
    async with app.run_test(size=(80, 24)) as pilot:
        await open_menu(pilot, "1", "1")
        menu = app.screen
        assert isinstance(menu, MenuScreen)
        line = menu.query_one("#product-full-name", FullName)
        # An ordinary name fits: the line takes no room.
        assert not line.name_shown and not line.display
        await type_text(pilot, "slow-roasted")
        assert line.name_shown == LONG and line.display
        # The whole name is on the screen, if over two lines.
        shown = " ".join(str(menu.query_one("#product-full-name").render()).split())
        assert shown == " ".join(LONG.split())

        # The product screen: the long option, in full under the choices when highlighted.
        await keys(pilot, "escape")
        await type_text(pilot, "latte")
        await keys(pilot, "enter")
        product = app.screen
        assert isinstance(product, ProductScreen)
        option_line = product.query_one("#option-full-name", FullName)
        modifiers = product.query_one("#modifiers")
        assert modifiers.move_to_key(  # type: ignore[attr-defined]
            next(
                r.option.key
                for r in modifiers.rows  # type: ignore[attr-defined]
                if getattr(r, "option", None) and r.option.item.id == "opt_size_medium"
            )
        )
        await settle(pilot)
        assert option_line.name_shown == LONG_OPTION
        await keys(pilot, "down")  # the next size: a short name, the line goes
        assert option_line.name_shown == "" and not option_line.display
        await keys(pilot, "escape")  # back on the menu, the search already ended
        assert app.screen is menu and menu.query_text == ""

        # The cart: the long line's name in full under the lines.
        await type_text(pilot, "slow-roasted")
        await keys(pilot, "enter", "f2")
        await no_thanks(pilot)
        await keys(pilot, "f4")
        cart = app.screen
        assert isinstance(cart, CartScreen)
        assert cart.query_one("#line-full-name", FullName).name_shown == LONG


async def test_back_from_the_ways_to_order_with_a_cart_asks_first(kiosk: Kiosk) -> None:
    """Escape from the menu keeps the cart on the welcome screen; one more step back would leave
    the order, so it is the start-over question, not a silent drop to the locations."""
    from kiosk.tui.widgets.dialogs import ConfirmDialog

    app = kiosk.app
    async with app.run_test(size=(80, 24)) as pilot:
        await open_menu(pilot, "1", "1")
        await add_simple(pilot, "cookie")
        await keys(pilot, "escape")
        assert isinstance(app.screen, WelcomeScreen)
        await keys(pilot, "escape")
        assert isinstance(app.screen, ConfirmDialog)
        await keys(pilot, "n")  # keep my order
        assert isinstance(app.screen, WelcomeScreen)
        assert [i["productId"] for i in kiosk.server_cart()["items"]] == ["prd_cookie"]
