"""Keys in bursts through a real pseudo-terminal (issue 20): the real `kiosk demo` process (its
embedded backend, its own KIOSK_HOME) on a pty of 80x24 and 120x40, sent several keys in ONE
os.write, as a laggy SSH link delivers them: the program reads them in one read, and each key must
act on the focus it was meant for. The screen is read with a terminal emulator (pyte), the
backend's truth from the demo's SQLite. tests/tui/test_bursts.py drives the same bursts through
Pilot (in-process, keys queued as messages); this is the terminal's own path (the driver's input
thread and Textual's escape-sequence parser, keys in one read).

Waits read the program's output until the screen shows what is expected, with a deadline; nothing
sleeps."""

from __future__ import annotations

import json
import os
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.e2e.pty_screen import EmulatedTerminal, demo_db, kiosk_demo

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(not hasattr(os, "fork"), reason="needs a POSIX pty"),
]

SIZES = [pytest.param((80, 24), id="80x24"), pytest.param((120, 40), id="120x40")]
# Where a row's first cell ends: a field's right border, or a run of 3+ blanks.
CELL_END = re.compile(r"[▎▕│]|\s{3,}")


@pytest.fixture(params=SIZES)
def term(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[EmulatedTerminal]:
    columns, rows = request.param
    with kiosk_demo(tmp_path, columns, rows, "--location", "loc_downtown") as t:
        t.wait_for("How would you like your order?")
        yield t


def carts(home: Path) -> list[dict[str, Any]]:
    """The demo backend's carts, oldest first."""
    return [json.loads(doc) for (doc,) in demo_db(home, "SELECT doc FROM carts ORDER BY rowid")]


def field_under(term: EmulatedTerminal, label: str) -> str:
    """The text of the field drawn under `label`: the first non-blank left cell in the rows
    below it (a bordered field's text is on its second row); "" while the label is not drawn."""
    lines = term.lines
    try:
        start = term.row_with(label) + 1
    except ValueError:  # not drawn yet (a screen is drawn in more than one write)
        return ""
    for line in lines[start : start + 3]:
        text = CELL_END.split(line.lstrip(" ▊"), maxsplit=1)[0].strip()
        if text and not set(text) <= set("▔▁"):
            return text
    return ""


# Steps, each a key (or a few) in its own write ------------------------------------------------
def pickup(term: EmulatedTerminal) -> None:
    term.burst("1")
    term.wait_for("Type to search the menu")


def add_cookie(term: EmulatedTerminal) -> None:
    term.burst(*"cookie")
    term.wait_for("Search: cookie")
    term.burst("enter")
    term.wait_for("Add to order")
    term.burst("f2")
    term.wait_for("No thanks")
    term.burst("n")
    term.wait_for("Added 1 × Chocolate Chip Cookie")


def open_cart(term: EmulatedTerminal) -> None:
    term.burst("f4")
    term.wait_for("Discount code")


def open_checkout(term: EmulatedTerminal) -> None:
    term.burst("f2")
    term.wait_for("Your name")


def name_and_email_in_one_write(term: EmulatedTerminal, between: str) -> None:
    """A cookie at pickup, the checkout, then "Ann", `between` and an email in one write: each
    lands in its own field."""
    pickup(term)
    add_cookie(term)
    open_cart(term)
    open_checkout(term)

    term.burst(*"Ann", between, *"ann@example.com")

    def fields() -> tuple[str, str]:
        return field_under(term, "Your name"), field_under(term, "Email")

    term.wait_until("both fields filled", lambda: fields() == ("Ann", "ann@example.com"), 10)


# The bursts --------------------------------------------------------------------------------------
def test_name_down_email_in_one_write_fill_two_fields(
    term: EmulatedTerminal, tmp_path: Path
) -> None:
    # The email in its own field, not after the name ("Annann@example.com").
    name_and_email_in_one_write(term, "down")
    term.burst("enter")  # from the email: on to payment
    term.wait_for("Demo: approve")
    (cart,) = carts(tmp_path)
    assert cart["status"] == "LOCKED"
    assert (cart["customerName"], cart["emailAddress"]) == ("Ann", "ann@example.com")


def test_corrections_typed_in_one_write_are_made_in_order(term: EmulatedTerminal) -> None:
    """Backspace, the arrows, Home and End read with the letters around them act in the order
    typed: the field's own keys ran only after the letters that followed them (Backspace then n
    inserted the n and deleted it, the typo stayed)."""
    pickup(term)
    add_cookie(term)
    open_cart(term)
    open_checkout(term)
    term.burst(*"Anm", "backspace", "n", "left", "left", "left", "J", "end", "e")
    term.wait_until("the name corrected", lambda: field_under(term, "Your name") == "JAnne", 10)


def test_two_arrows_then_a_code_in_one_write_land_in_the_code_field(
    term: EmulatedTerminal, tmp_path: Path
) -> None:
    pickup(term)
    add_cookie(term)
    open_cart(term)

    # From the cart's lines: ↓ ↓ reach the code field, then the code ("E" of SAVE10 is the lines'
    # Edit key: it used to open the Edit screen, or the code was lost).
    term.burst("down", "down", *"SAVE10")

    term.wait_until("the code in its field", lambda: field_under(term, "Discount code") == "SAVE10")
    term.quiet()  # all drawn: the footer too
    # Still the cart, the code's letters typed, none taken as the lines' keys (E: Edit).
    assert "Your order" in term.lines[0] and "Change choices" not in term.text
    term.burst("enter")
    term.wait_for("Code SAVE10 applied")
    (cart,) = carts(tmp_path)
    assert cart["discountCode"] == "SAVE10"
    assert [(i["productId"], i["quantity"]) for i in cart["items"]] == [("prd_cookie", 1)]


def test_a_code_typed_on_the_lines_in_one_write_goes_to_the_code_field(
    term: EmulatedTerminal, tmp_path: Path
) -> None:
    pickup(term)
    add_cookie(term)
    open_cart(term)

    # The focus on the lines, no arrow first: a letter anywhere on the order screen starts the
    # code (issue 33), the whole burst lands there and no letter runs a key of the screen.
    term.burst(*"SAVE10")

    term.wait_until("the code in its field", lambda: field_under(term, "Discount code") == "SAVE10")
    term.quiet()
    assert "Your order" in term.lines[0]
    (cart,) = carts(tmp_path)
    assert [(i["productId"], i["quantity"]) for i in cart["items"]] == [("prd_cookie", 1)]


def test_enter_and_1_on_the_thank_you_screen_start_the_next_order(
    term: EmulatedTerminal, tmp_path: Path
) -> None:
    pickup(term)
    add_cookie(term)
    open_cart(term)
    open_checkout(term)
    term.burst(*"Ann", "down", *"ann@example.com")
    term.wait_until("both fields", lambda: field_under(term, "Email") == "ann@example.com")
    term.burst("enter")
    term.wait_for("Demo: approve")
    term.burst("a")
    term.wait_for("Thank you! Your order number is")
    term.wait_for("New order")

    # Enter: a new order; 1: Pickup on the next customer's first screen, in one read.
    term.burst("enter", "1")

    term.wait_for("Type to search the menu")
    # The menu drawn whole: nothing of the first screen left under it.
    term.wait_gone("How would you like your order?")
    term.quiet()
    assert "Menu" in term.lines[0] and "How would you like your order?" not in term.text
    first, second = carts(tmp_path)
    assert first["status"] == "COMPLETED"
    # The next customer's order: a new cart, for pickup, empty.
    assert second["status"] == "OPEN" and second["fulfillmentMethod"] == "pickup"
    assert second["items"] == []


def test_letters_typed_fast_go_to_the_menu_search(term: EmulatedTerminal) -> None:
    pickup(term)

    term.burst(*"cookie")

    term.wait_for("Search: cookie")
    term.wait_until(
        "only the cookie listed",
        lambda: "Chocolate Chip Cookie" in term.text and "Espresso" not in term.text,
    )
    # Six backspaces and two words (a space inside) in one write: a new search.
    term.burst(*["backspace"] * 6, *"earl grey")
    term.wait_for("Search: earl grey")
    term.wait_until("the tea listed", lambda: "Earl Grey Tea" in term.text)
    assert "Chocolate Chip Cookie" not in term.text


def test_a_choice_and_a_search_in_one_write(term: EmulatedTerminal, tmp_path: Path) -> None:
    """1 (Pickup) and "cookie" in one read: the letters come while the welcome screen starts the
    order (a cart made on the server), and are for the menu's search, not the welcome."""
    term.burst("1", *"cookie")

    term.wait_for("Search: cookie")
    # Listed, not only "no Espresso": while the menu still loads its list shows neither.
    term.wait_until(
        "only the cookie listed",
        lambda: "Chocolate Chip Cookie" in term.text and "Espresso" not in term.text,
    )
    assert "Menu" in term.lines[0]
    (cart,) = carts(tmp_path)
    assert cart["fulfillmentMethod"] == "pickup"


def test_name_enter_email_in_one_write_fill_two_fields(
    term: EmulatedTerminal, tmp_path: Path
) -> None:
    name_and_email_in_one_write(term, "enter")
