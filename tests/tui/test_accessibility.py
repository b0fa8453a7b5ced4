"""Issue 13 F: the high-contrast theme, large text, and states told without colour.

With colour off (NO_COLOR, which Textual honours by drawing in greys) or the high-contrast theme,
focus, choices, sold-out items, disabled controls and errors are told by characters and text
styles, not by a colour alone: these tests read the characters and styles, never colours.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from textual.geometry import Region
from textual.pilot import Pilot
from textual.widget import Widget
from textual.widgets import Button, Input, OptionList

from kiosk.config import Settings
from kiosk.tui.a11y import CURSOR_MARK, CURSOR_MARK_BLURRED, HIGH_CONTRAST
from kiosk.tui.app import KioskApp
from kiosk.tui.screens.cart import CartScreen
from kiosk.tui.screens.checkout import CheckoutScreen
from kiosk.tui.screens.location import LocationScreen
from kiosk.tui.screens.menu import CategoryList, MenuScreen, ProductList
from kiosk.tui.screens.payment import PaymentScreen
from kiosk.tui.screens.product import ProductScreen
from kiosk.tui.screens.staff import StaffScreen
from kiosk.tui.screens.welcome import WelcomeScreen
from kiosk.tui.widgets.cart_summary import CartBar, CartPanel
from kiosk.tui.widgets.chrome import Banner, FieldError
from kiosk.tui.widgets.rowlist import RowList

from .conftest import make_kiosk, no_thanks, settle
from .test_flow import keys, open_menu, type_text


def line(rowlist: RowList[Any], index: int) -> str:
    """Row `index` of a line-API list as drawn (the characters, not the colours)."""
    y = index - round(rowlist.scroll_y)
    return rowlist.render_line(y).text


def cursor_line(rowlist: RowList[Any]) -> str:
    assert rowlist.cursor is not None
    return line(rowlist, rowlist.cursor)


def no_color(monkeypatch: pytest.MonkeyPatch) -> None:
    # Textual reads NO_COLOR when the app is made (App.__init__): set it before make_kiosk.
    monkeypatch.setenv("NO_COLOR", "1")


# Settings and switches ----------------------------------------------------------------------------
def test_the_settings_choose_the_theme_and_large_text(tmp_path: Path) -> None:
    app = make_kiosk(tmp_path, settings=Settings(theme="high-contrast", large_text=True)).app
    assert app.theme == HIGH_CONTRAST.name
    assert app.has_class("-high-contrast") and app.has_class("-marks")
    assert app.large_text and app.has_class("-large-text")

    plain = make_kiosk(tmp_path / "plain").app
    assert plain.theme == "kiosk-dark"
    assert not plain.has_class("-high-contrast") and not plain.large_text
    with pytest.raises(ValueError, match="theme must be one of default, high-contrast"):
        Settings(theme="neon")
    assert Settings(large_text="yes").large_text is True  # type: ignore[arg-type]


def test_the_run_and_demo_commands_take_the_settings_as_flags(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from kiosk import cli

    for argv in (["demo"], ["run"], []):
        args = cli.build_parser().parse_args([*argv, "--theme", "high-contrast", "--large-text"])
        settings = cli._load(args).settings
        assert settings.theme == "high-contrast" and settings.large_text is True
    assert cli._load(cli.build_parser().parse_args(["demo"])).settings.theme == "default"
    monkeypatch.setenv("KIOSK_THEME", "high-contrast")
    assert cli._load(cli.build_parser().parse_args(["demo"])).settings.theme == "high-contrast"
    with pytest.raises(SystemExit):
        cli.build_parser().parse_args(["demo", "--theme", "neon"])


async def test_staff_switch_the_high_contrast_theme(tmp_path: Path) -> None:
    app = make_kiosk(tmp_path).app
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        await app.push_screen(StaffScreen())
        await settle(pilot)
        actions = app.screen.query_one("#staff-actions", OptionList)
        ids = [str(actions.get_option_at_index(i).id) for i in range(actions.option_count)]
        actions.highlighted = ids.index("contrast")
        assert "High-contrast theme: off" in str(actions.get_option("contrast").prompt)
        await keys(pilot, "enter")
        assert app.theme == HIGH_CONTRAST.name and app.has_class("-marks")
        assert "High-contrast theme: on" in str(actions.get_option("contrast").prompt)
        await keys(pilot, "enter")
        assert app.theme == "kiosk-dark" and not app.has_class("-marks")


# Marks when colour is off -------------------------------------------------------------------------
async def test_without_colour_the_cursor_and_sold_out_are_told_in_characters(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    no_color(monkeypatch)
    kiosk = make_kiosk(tmp_path)
    app = kiosk.app
    assert app.no_color and app.text_marks
    async with app.run_test(size=(80, 24)) as pilot:
        await open_menu(pilot, "1", "1")
        screen = app.screen
        assert isinstance(screen, MenuScreen)
        products = screen.query_one("#products", ProductList)
        categories = screen.query_one("#categories", CategoryList)
        assert products.has_focus
        # The focused list's cursor: ▶; the other list keeps its place with ▷.
        assert cursor_line(products).startswith(CURSOR_MARK)
        assert cursor_line(categories).startswith(CURSOR_MARK_BLURRED)
        others = [
            line(products, i)
            for i in range(round(products.scroll_y), round(products.scroll_y) + 5)
            if i != products.cursor
        ]
        assert not any(CURSOR_MARK in text for text in others)
        # Sold out is written out, on the row itself.
        await type_text(pilot, "kale")
        assert "Sold out" in cursor_line(products)
        await keys(pilot, "left")
        assert categories.has_focus
        assert cursor_line(categories).startswith(CURSOR_MARK)
        assert cursor_line(products).startswith(CURSOR_MARK_BLURRED)


async def test_with_colour_the_default_theme_draws_no_marks(tmp_path: Path) -> None:
    monkeypatch = pytest.MonkeyPatch()
    monkeypatch.delenv("NO_COLOR", raising=False)
    try:
        app = make_kiosk(tmp_path).app
    finally:
        monkeypatch.undo()
    assert not app.text_marks
    async with app.run_test(size=(80, 24)) as pilot:
        await open_menu(pilot, "1", "1")
        products = app.screen.query_one("#products", ProductList)
        assert not cursor_line(products).startswith(CURSOR_MARK)


async def test_without_colour_errors_choices_and_disabled_controls_are_marked(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    no_color(monkeypatch)
    app = make_kiosk(tmp_path).app
    async with app.run_test(size=(80, 24)) as pilot:
        await open_menu(pilot, "1", "1")
        # An empty cart: Checkout is disabled, and struck through.
        await keys(pilot, "f4")
        assert isinstance(app.screen, CartScreen)
        checkout = app.screen.query_one("#checkout", Button)
        assert checkout.disabled and checkout.styles.text_style.strike
        await keys(pilot, "escape")
        # An error is marked ✗ (info and ok messages are not errors).
        banner = app.screen.query_one("#banner", Banner)
        banner.show("The kitchen is closed.", hint="Please ask staff.")
        assert str(banner.render()).startswith("✗ The kitchen is closed.")
        assert banner.message.startswith("The kitchen is closed.")  # the text itself, unmarked
        banner.show("Added to your order.", kind="ok")
        assert str(banner.render()).startswith("✓ Added")
        await type_text(pilot, "cookie")
        await keys(pilot, "enter", "f2")
        await no_thanks(pilot)  # the one suggestion after an add
        await keys(pilot, "f4")
        cart = app.screen
        assert isinstance(cart, CartScreen)
        # The chosen tip is underlined and bold, the others are not; focus is reverse video.
        tips = list(cart.query("#tip-row Button").results(Button))
        chosen = [b for b in tips if b.has_class("-chosen")]
        others = [b for b in tips if not b.has_class("-chosen")]
        assert chosen and others
        assert chosen[0].styles.text_style.underline
        assert not any(b.styles.text_style.underline for b in others)
        others[0].focus()
        await settle(pilot)
        assert others[0].styles.text_style.reverse
        # A field's error is marked ✗ too.
        await keys(pilot, "f2")
        assert isinstance(app.screen, CheckoutScreen)
        await keys(pilot, "f2")  # nothing filled in
        errors = [e for e in app.screen.query(FieldError).results(FieldError) if e.message]
        assert errors
        assert all(str(e.render()).startswith("✗ ") for e in errors)
        # The focused field is underlined (its tint alone is a grey like the others').
        fields = list(app.screen.query(Input).results(Input))
        focused = [f for f in fields if f.has_focus]
        assert len(focused) == 1 and focused[0].styles.text_style.underline
        assert not any(f.styles.text_style.underline for f in fields if not f.has_focus)


async def test_high_contrast_focus_is_more_than_colour(tmp_path: Path) -> None:
    app = make_kiosk(tmp_path, settings=Settings(theme="high-contrast")).app
    async with app.run_test(size=(80, 24)) as pilot:
        await open_menu(pilot, "1", "1")
        products = app.screen.query_one("#products", ProductList)
        assert cursor_line(products).startswith(CURSOR_MARK)
        await type_text(pilot, "cookie")
        await keys(pilot, "enter", "f2")
        await no_thanks(pilot)  # the one suggestion after an add
        await keys(pilot, "f4")
        cart = app.screen
        assert isinstance(cart, CartScreen)
        button = cart.query_one("#checkout", Button)
        button.focus()
        await settle(pilot)
        assert button.styles.text_style.bold and button.styles.text_style.underline
        discount = cart.query_one("#discount", Input)
        discount.focus()
        await settle(pilot)
        # A focused one-line field is filled (white), not tinted.
        assert discount.styles.background.brightness > 0.9
        # A chosen tip is filled and not underlined; the focused one is underlined.
        tips = list(cart.query("#tip-row Button").results(Button))
        chosen = next(b for b in tips if b.has_class("-chosen"))
        other = next(b for b in tips if not b.has_class("-chosen"))
        other.focus()
        await settle(pilot)
        assert chosen.styles.background.brightness > 0.9
        assert not chosen.styles.text_style.underline
        assert other.styles.text_style.underline
        assert other.styles.background.brightness < chosen.styles.background.brightness


# Large text ---------------------------------------------------------------------------------------
async def test_large_text_is_the_customers_choice_until_the_order_ends(tmp_path: Path) -> None:
    app = make_kiosk(tmp_path).app
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await keys(pilot, "1")
        welcome = app.screen
        assert isinstance(welcome, WelcomeScreen)
        toggle = welcome.query_one("#text-size", Button)
        assert str(toggle.label) == "Larger text (T)" and not app.large_text
        await keys(pilot, "t")
        assert app.large_text and app.has_class("-large-text")
        assert str(toggle.label) == "Standard text (T)"
        await keys(pilot, "1")
        menu = app.screen
        assert isinstance(menu, MenuScreen)
        # One column: no category sidebar, no cart beside the menu; the cart bar instead.
        assert not menu.query_one("#categories").display
        assert not menu.query_one(CartPanel).display and menu.query_one(CartBar).display
        products = menu.query_one("#products", ProductList)
        assert products.size.width >= 110
        # No secondary tags on a row; the name is still there.
        assert "[vegetarian]" not in " ".join(line(products, i) for i in range(12))
        await app.go_home()
        await settle(pilot)
        assert not app.large_text  # the next customer starts from the merchant's setting
        assert isinstance(app.screen, LocationScreen)


async def test_the_merchants_large_text_comes_back_after_an_order(tmp_path: Path) -> None:
    app = make_kiosk(tmp_path, settings=Settings(large_text=True)).app
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await keys(pilot, "1")
        assert app.large_text
        app.screen.query_one("#text-size", Button).press()  # the visible control
        await settle(pilot)
        assert not app.large_text
        await app.go_home()
        await settle(pilot)
        assert app.large_text


def fully_visible(app: KioskApp, widget: Widget) -> bool:
    """Whether all of `widget` is on screen now (inside every container that clips it)."""
    geometry = app.screen.find_widget(widget)
    visible = geometry.region.intersection(geometry.clip)
    return visible == geometry.region and Region(0, 0, *app.size).contains_region(visible)


async def tab_through(pilot: Pilot[Any]) -> set[str]:
    """Tab once round every control of the screen; each must come fully into view when focused.
    Returns the ids reached."""
    app: KioskApp = pilot.app  # type: ignore[assignment]
    chain = [w for w in app.screen.focus_chain]
    assert chain, "nothing to focus on this screen"
    reached: set[str] = set()
    for _ in chain:
        await keys(pilot, "tab")
        focused = app.focused
        assert focused is not None
        await pilot.pause()  # the scroll that brings it into view lands after a refresh
        assert fully_visible(app, focused) or isinstance(focused, RowList), focused
        reached.add(str(focused.id))
    assert reached == {str(w.id) for w in chain}
    return reached


async def test_large_text_at_80x24_walks_a_whole_order_by_keys(tmp_path: Path) -> None:
    kiosk = make_kiosk(tmp_path)
    app = kiosk.app
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        assert isinstance(app.screen, LocationScreen)
        await keys(pilot, "1")
        assert isinstance(app.screen, WelcomeScreen)
        await keys(pilot, "t")
        assert app.large_text
        assert {"methods", "text-size"} <= await tab_through(pilot)
        await keys(pilot, "1")
        menu = app.screen
        assert isinstance(menu, MenuScreen)
        assert await tab_through(pilot) == {"products"}  # one column: nothing hidden to reach
        await keys(pilot, "left")  # the categories' key: they are hidden, focus stays in view
        assert app.focused is menu.query_one("#products")
        await type_text(pilot, "latte")
        await keys(pilot, "enter")
        product = app.screen
        assert isinstance(product, ProductScreen)
        assert product.query_one("#add", Button).size.height == 3  # taller buttons
        await tab_through(pilot)
        product.query_one("#modifiers").focus()
        await keys(pilot, "down", "space", "2", "f2")
        await no_thanks(pilot)  # the one suggestion after an add
        assert isinstance(app.screen, MenuScreen)
        await keys(pilot, "f4")
        cart = app.screen
        assert isinstance(cart, CartScreen)
        # The main action of each screen is a touch target three rows tall at 80x24 too.
        assert cart.query_one("#checkout", Button).size.height == 3
        reached = await tab_through(pilot)
        assert {"lines", "discount", "checkout"} <= reached
        assert any(name in reached for name in ("tip-none", "asap"))
        await keys(pilot, "f2")
        checkout = app.screen
        assert isinstance(checkout, CheckoutScreen)
        assert checkout.query_one("#continue", Button).size.height == 3
        assert {"name", "email", "continue"} <= await tab_through(pilot)
        checkout.query_one("#name", Input).focus()
        await type_text(pilot, "Ada")
        await keys(pilot, "tab")
        await type_text(pilot, "ada@example.com")
        await keys(pilot, "f2")
        assert isinstance(app.screen, PaymentScreen)
        server = kiosk.server_cart()
        assert server["items"][0]["quantity"] == 2


def word_is_bold(rowlist: RowList[Any], index: int, word: str) -> bool:
    """Whether `word` on row `index` of a line-API list is drawn bold (its first cell's style)."""
    y = index - round(rowlist.scroll_y)
    for segment in rowlist.render_line(y):
        if word in segment.text:
            return bool(segment.style and segment.style.bold)
    raise AssertionError(f"{word!r} is not on row {index}: {line(rowlist, index)!r}")


async def large_text_measures(tmp_path: Path, large: bool) -> dict[str, Any]:
    """What large text should change on the product, cart and checkout screens at 120x40 (where
    their buttons are three rows either way), measured on the screens as drawn."""
    from kiosk.tui.screens.cart import CartLines
    from kiosk.tui.screens.product import GroupRow, ModifierList, OptionRow
    from kiosk.tui.widgets.cart_summary import TotalsPanel

    from .test_snapshots import order_with_items

    app = make_kiosk(tmp_path, settings=Settings(large_text=large)).app
    found: dict[str, Any] = {}
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await order_with_items(pilot)
        await type_text(pilot, "latte")
        await keys(pilot, "enter")
        product = app.screen
        assert isinstance(product, ProductScreen)
        options = product.query_one("#modifiers", ModifierList)
        rows = list(options.rows)
        medium = next(
            i
            for i, r in enumerate(rows)
            if isinstance(r, OptionRow) and "Medium" in r.option.item.name
        )
        found["option bold"] = word_is_bold(options, medium, "Medium")
        found["option price bold"] = word_is_bold(options, medium, "+$0.50")
        # Rows between the last option of the first group and the second group's heading.
        second = next(i for i, r in enumerate(rows) if isinstance(r, GroupRow) and i > 0)
        found["rows between groups"] = (
            second - 1 - max(i for i, r in enumerate(rows[:second]) if isinstance(r, OptionRow))
        )
        found["hint bold"] = word_is_bold(options, 0, "chosen")
        found["list width"] = options.size.width
        await keys(pilot, "escape", "f4")
        cart = app.screen
        assert isinstance(cart, CartScreen)
        lines = cart.query_one("#lines", CartLines)
        items = [i for i, r in enumerate(lines.rows) if r.item_id is not None]
        found["rows between items"] = (
            items[1]
            - items[0]
            - max(
                i - items[0] for i, r in enumerate(lines.rows[: items[1]]) if r.text.plain.strip()
            )
            - 1
        )
        found["item bold"] = word_is_bold(lines, items[1], "Espresso")
        found["choice bold"] = word_is_bold(lines, items[0] + 1, "Medium")
        totals = cart.query_one(TotalsPanel)
        drawn = [totals.render_line(y).text for y in range(totals.size.height)]
        found["rule above total"] = any(set(t.strip()) == {"─"} for t in drawn)
        await keys(pilot, "f2")
        checkout = app.screen
        assert isinstance(checkout, CheckoutScreen)
        label = checkout.query_one(".field-label")
        found["label bold"] = label.styles.text_style.bold
        found["field width"] = checkout.query_one("#name", Input).size.width
        found["rows above continue"] = (
            checkout.query_one("#continue").region.y - checkout.query_one(TotalsPanel).region.bottom
        )
    return found


async def test_large_text_changes_product_cart_and_checkout_at_120x40(tmp_path: Path) -> None:
    """Issue 20: at 120x40 these screens looked the same with and without large text. With it,
    names and prices are bold (hints stay light), groups and items a blank row apart, the total
    under a rule, the labels bold, the page and the fields kept to a readable width."""
    standard = await large_text_measures(tmp_path / "standard", large=False)
    large = await large_text_measures(tmp_path / "large", large=True)
    assert standard["option bold"] is False and large["option bold"] is True
    assert standard["option price bold"] is False and large["option price bold"] is True
    assert standard["rows between groups"] == 0 and large["rows between groups"] == 1
    assert large["hint bold"] is False  # the group's "· 1/1 chosen" stays light (dim)
    assert standard["list width"] >= 110 and large["list width"] <= 84
    assert standard["rows between items"] == 0 and large["rows between items"] == 1
    assert large["item bold"] is True and large["choice bold"] is False
    assert not standard["rule above total"] and large["rule above total"]
    assert not standard["label bold"] and large["label bold"]
    assert standard["field width"] > 64 >= large["field width"]
    assert large["rows above continue"] > standard["rows above continue"]
