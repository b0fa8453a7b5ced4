"""The language choice (issue 13, part E): Spanish chosen on the welcome screen switches the whole
visit at once (labels, the footer's keys, prices and times in the locale), and the next customer
starts in the kiosk's own language again, after an order and after a start over."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from textual.pilot import Pilot
from textual.widgets import Button, Static

from kiosk import i18n
from kiosk.config import Settings
from kiosk.tui.cartview import total_rows
from kiosk.tui.screens.cart import CartLines, CartScreen
from kiosk.tui.screens.done import DoneScreen
from kiosk.tui.screens.location import LocationScreen
from kiosk.tui.screens.menu import MenuScreen, ProductList
from kiosk.tui.screens.welcome import MethodList, WelcomeScreen
from kiosk.tui.widgets.cart_summary import CartBar
from kiosk.tui.widgets.language import LanguageBar

from .conftest import DOWNTOWN, Kiosk, make_kiosk, settle
from .test_flow import add_simple, checkout_and_pay, keys


@pytest.fixture(autouse=True)
def english_after() -> Iterator[None]:
    # The language is the process's: a test that stops halfway must not leave Spanish behind.
    yield
    i18n.set_language(i18n.DEFAULT_LANGUAGE)


# "4,50 US$": babel's Spanish way with dollars (the server's own twin is "$4.50").
SPANISH_DOLLARS = re.compile(r"\d+,\d\d\s?US\$")


def text_of(screen: Any, selector: str) -> str:
    return str(screen.query_one(selector, Static).render())


def footer_words(pilot: Pilot[Any]) -> set[str]:
    return {b.binding.description for b in pilot.app.screen.active_bindings.values()}


def product_rows(screen: MenuScreen) -> list[str]:
    products = screen.query_one("#products", ProductList)
    return [products.text_at(i, 80, False).plain for i in range(len(products.rows))]


async def welcome_in_spanish_by_arrows(pilot: Pilot[Any]) -> None:
    """From the list of ways to order: up past the first one reaches the language choice, on
    the hours line beside the text size."""
    screen = pilot.app.screen
    assert isinstance(screen, WelcomeScreen)
    methods = screen.query_one(MethodList)
    assert pilot.app.focused is methods
    await keys(pilot, "up")
    focused = pilot.app.focused
    assert isinstance(focused, Button) and focused.id == "lang-es"
    await keys(pilot, "left")
    assert pilot.app.focused is not None and pilot.app.focused.id == "lang-en"
    await keys(pilot, "right")
    assert pilot.app.focused is not None and pilot.app.focused.id == "lang-es"
    await keys(pilot, "enter")


async def test_spanish_for_the_visit_then_english_after_the_order(kiosk: Kiosk) -> None:
    app = kiosk.app
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await keys(pilot, "1")
        welcome = app.screen
        assert isinstance(welcome, WelcomeScreen)
        assert "How would you like your order?" in text_of(welcome, "#prompt")
        await welcome_in_spanish_by_arrows(pilot)
        assert i18n.language() == "es"
        # Drawn again at once: the same screen, its words, its list and the footer.
        welcome = app.screen
        assert isinstance(welcome, WelcomeScreen)
        assert "¿Cómo quieres tu pedido?" in text_of(welcome, "#prompt")
        # The core's words too: opening hours (kiosk.ordering.hours) in the location's time.
        assert "Abierto · hasta las" in text_of(welcome, "#welcome-hours")
        rows = welcome.query_one(MethodList).rows
        assert any("Para llevar" in row.text.plain for row in rows)
        assert "Idioma" in footer_words(pilot)
        # The customer stays on the language choice, the Spanish one marked.
        assert app.focused is welcome.query_one("#lang-es", Button)
        assert welcome.query_one("#lang-es", Button).variant == "primary"
        await keys(pilot, "down")  # the list is below the hours line
        assert app.focused is welcome.query_one(MethodList)
        await keys(pilot, "1")  # pickup
        menu = app.screen
        assert isinstance(menu, MenuScreen)
        assert "Escribe para buscar en la carta" in text_of(menu, "#search")
        priced = [row for row in product_rows(menu) if SPANISH_DOLLARS.search(row)]
        assert priced, product_rows(menu)[:5]
        assert not any(re.search(r"\$\d", row) for row in product_rows(menu))
        await add_simple(pilot, "espresso", quantity="2")
        bar = str(menu.query_one(CartBar).render())
        assert "Tu pedido:" in bar and "2 artículos" in bar
        assert SPANISH_DOLLARS.search(bar), bar
        await keys(pilot, "f4")
        cart_screen = app.screen
        assert isinstance(cart_screen, CartScreen)
        assert "Tu pedido" in text_of(cart_screen, "#cart-title")
        assert "lo antes posible" in text_of(cart_screen, "#cart-title")
        assert {"Finalizar pedido", "Volver a la carta"} <= footer_words(pilot)
        cart = app.cart
        assert cart is not None
        labels = [label for label, _amount, _kind in total_rows(cart)]
        assert labels[0] == "Subtotal" and "Impuestos" in labels and labels[-1] == "Total"
        assert all(SPANISH_DOLLARS.fullmatch(amount) for _l, amount, _k in total_rows(cart))
        lines = cart_screen.query_one(CartLines)
        first = lines.row_text(lines.rows[0], 60, False).plain
        assert "Espresso" in first and SPANISH_DOLLARS.search(first), first
        await keys(pilot, "escape")
        await checkout_and_pay(kiosk, pilot)
        done = app.screen
        assert isinstance(done, DoneScreen)
        assert "¡Gracias! Tu número de pedido es" in text_of(done, "#done-title")
        assert SPANISH_DOLLARS.search(text_of(done, "#done-paid"))
        assert "Volvemos al inicio" in text_of(done, "#done-countdown")
        await keys(pilot, "enter")
        await settle(pilot)
        # The next customer: the kiosk's own language again.
        assert isinstance(app.screen, LocationScreen)
        assert i18n.language() == "en"
        assert "Where would you like to order from?" in text_of(app.screen, "#prompt")
        await keys(pilot, "1")
        welcome = app.screen
        assert isinstance(welcome, WelcomeScreen)
        assert "How would you like your order?" in text_of(welcome, "#prompt")
        assert welcome.query_one("#lang-en", Button).variant == "primary"


async def test_f3_switches_and_start_over_brings_the_default_back(tmp_path: Path) -> None:
    kiosk = make_kiosk(tmp_path, locations=[DOWNTOWN])
    app = kiosk.app
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        assert isinstance(app.screen, WelcomeScreen)
        await keys(pilot, "f3")
        assert i18n.language() == "es"
        assert "Bienvenido a" in text_of(app.screen, "#welcome-title")
        await keys(pilot, "1")
        assert isinstance(app.screen, MenuScreen)
        await add_simple(pilot, "espresso")
        await keys(pilot, "f9")
        # The question is asked in the customer's language too.
        assert "¿Empezar de nuevo?" in text_of(app.screen, "#dialog-question")
        await keys(pilot, "y")
        await settle(pilot)
        assert isinstance(app.screen, WelcomeScreen)
        assert i18n.language() == "en"
        assert "How would you like your order?" in text_of(app.screen, "#prompt")
        # F3 goes round the languages: English, Spanish, English.
        await keys(pilot, "f3", "f3")
        assert i18n.language() == "en"


async def test_the_setting_chooses_the_kiosks_language(tmp_path: Path) -> None:
    kiosk = make_kiosk(tmp_path, locations=[DOWNTOWN], settings=Settings(language="es"))
    app = kiosk.app
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        assert "¿Cómo quieres tu pedido?" in text_of(app.screen, "#prompt")
        # The customer may still choose English; a start over brings Spanish back.
        await pilot.click("#lang-en")
        await settle(pilot)
        assert "How would you like your order?" in text_of(app.screen, "#prompt")
        # From the language choice (English) down to the list, then pickup.
        await keys(pilot, "down", "down", "1")
        await add_simple(pilot, "espresso")
        await keys(pilot, "f9", "y")
        await settle(pilot)
        assert "¿Cómo quieres tu pedido?" in text_of(app.screen, "#prompt")


async def test_a_spanish_kiosk_draws_every_price_in_spanish_from_the_first_order(
    tmp_path: Path,
) -> None:
    """The setting's language, not only a customer's switch, sets the locale of the prices the
    kiosk formats itself (the product's options and its preview): one format on every screen."""
    from kiosk.tui.screens.product import ModifierList, ProductScreen

    kiosk = make_kiosk(tmp_path, locations=[DOWNTOWN], settings=Settings(language="es"))
    app = kiosk.app
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        await keys(pilot, "1", "l", "a", "t", "t", "e", "enter")
        product = app.screen
        assert isinstance(product, ProductScreen)
        options = product.query_one("#modifiers", ModifierList)
        drawn = " ".join(options.render_line(y).text for y in range(options.size.height))
        assert "0,50 US$" in drawn and "$0.50" not in drawn, drawn
        assert "US$" in text_of(product, "#preview")


async def test_the_details_form_hides_the_language_choice(tmp_path: Path) -> None:
    kiosk = make_kiosk(tmp_path)
    app = kiosk.app
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await keys(pilot, "2", "3")  # Westside, room service: a details form
        screen = app.screen
        assert isinstance(screen, WelcomeScreen) and screen.method == "room_service"
        assert not screen.query_one(LanguageBar).display
        await keys(pilot, "f3")  # not offered here: typed details are not thrown away
        assert i18n.language() == "en"
        await keys(pilot, "escape")
        assert screen.query_one(LanguageBar).display


async def test_back_to_the_restaurants_in_the_chosen_language(kiosk: Kiosk) -> None:
    app = kiosk.app
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await keys(pilot, "1", "f3")
        assert i18n.language() == "es"
        await keys(pilot, "escape")
        screen = app.screen
        assert isinstance(screen, LocationScreen)
        assert "¿Dónde quieres pedir?" in text_of(screen, "#prompt")
        listing = screen.query_one("#locations")
        shown = " ".join(row.text.plain for row in listing.rows)  # type: ignore[attr-defined]
        assert "Hoy " in shown and "Para llevar" in shown
