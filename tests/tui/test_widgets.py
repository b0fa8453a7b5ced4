"""The kiosk's small parts: API text drawn literally, the QR code, the menu model, the totals."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
import segno
from rich.text import Text

from kiosk.api import Cart, MenuProduct, MenusResponse
from kiosk.api.models import validate_as
from kiosk.tui import menu_model
from kiosk.tui.cartview import choice_lines, total_rows
from kiosk.tui.text import clean, literal
from kiosk.tui.widgets.qr import QUIET_ZONE, qr_lines, qr_matrix

HOSTILE = "[bold]x[/] \x1b[31mRED\x1b[0m \x07\u202eevil\u202c ﺳﻼﻡ 漢字"


def test_clean_keeps_characters_drops_controls() -> None:
    out = clean(HOSTILE)
    assert "[bold]x[/]" in out
    assert "[31mRED[0m" in out  # the escape sequence's visible part stays, as data
    assert "\x1b" not in out and "\x07" not in out
    assert "\u202e" not in out and "\u202c" not in out  # no bidi override can reorder the row
    assert "ﺳﻼﻡ" in out and "漢字" in out
    assert clean("a\nb\tc") == "a b c"
    assert clean("line one\nline two", one_line=False) == "line one\nline two"


def test_clean_bounds_huge_text() -> None:
    out = clean("A" * 10_000)
    assert len(out) == 200 and out.endswith("…")
    assert clean(None) == ""
    assert clean(12) == "12"


def test_literal_is_never_markup() -> None:
    text = literal("[bold red]not bold[/]")
    assert isinstance(text, Text)
    assert text.plain == "[bold red]not bold[/]"
    assert text.spans == []


@pytest.mark.parametrize(
    "url",
    [
        "https://pay.lantern.example/demo/checkout/pi_000000000000000000000004",
        "http://embedded-demo.localhost/demo/checkout/pi_0123456789abcdef01234567",
        "x",
    ],
)
@pytest.mark.parametrize("border", [2, 4])
def test_qr_half_blocks_draw_exactly_the_modules(url: str, border: int) -> None:
    lines = qr_lines(qr_matrix(url, border))
    # Read the drawing back: each cell is (top module, bottom module).
    decode = {" ": (False, False), "█": (True, True), "▀": (True, False), "▄": (False, True)}
    rows: list[list[bool]] = []
    for line in lines:
        pairs = [decode[ch] for ch in line]
        rows.append([top for top, _ in pairs])
        rows.append([bottom for _, bottom in pairs])
    expected = [
        [bool(m) for m in row]
        for row in segno.make_qr(url, error="l", boost_error=True).matrix_iter(border=border)
    ]
    assert rows[: len(expected)] == expected
    # An odd module count leaves the last half-row light, part of the quiet zone.
    assert all(not m for row in rows[len(expected) :] for m in row)
    # The quiet zone: the first and last `border` modules of every row are light.
    assert all(not any(row[:border]) and not any(row[-border:]) for row in expected)


def test_qr_of_a_checkout_url_fits_80x24_with_its_whole_quiet_zone() -> None:
    url = "http://embedded-demo.localhost/demo/checkout/pi_0123456789abcdef01234567"
    lines = qr_lines(qr_matrix(url, QUIET_ZONE))
    assert QUIET_ZONE == 4 and len(lines) <= 21 and len(lines[0]) <= 41


def _menus(n: int) -> MenusResponse:
    products = [
        {
            "id": f"p{i}",
            "name": f"Item {i} {'Burger' if i % 7 == 0 else 'Salad'}",
            "price": "5.00",
            "displayPrice": "$5.00",
            "availability": "unavailable" if i % 50 == 0 else "available",
            "tags": ["vegan"] if i % 3 == 0 else [],
        }
        for i in range(n)
    ]
    cats = [
        {"id": f"c{c}", "name": f"Cat {c}", "products": products[c : c + 100]}
        for c in range(0, n, 100)
    ]
    return validate_as(
        MenusResponse,
        {
            "menus": [{"id": "m", "name": "All", "isActive": True, "categories": cats}],
            "popularProducts": products[:3],
        },
    )


def _products(rows: list[menu_model.Row]) -> list[MenuProduct]:
    return [r for r in rows if not isinstance(r, menu_model.Header)]


def test_menu_rows_and_search() -> None:
    categories = menu_model.build(_menus(300), None)
    assert categories[0].id == menu_model.POPULAR_ID
    rows = menu_model.rows(categories)
    assert isinstance(rows[0], menu_model.Header)
    entries = _products(rows)
    assert len(entries) == 303  # popular products appear twice when not searching
    p50 = next(e for e in entries if e.id == "p50")
    assert categories[1].state(p50) == (menu_model.SOLD_OUT, "")
    found = [
        r for r in menu_model.rows(categories, "burger") if not isinstance(r, menu_model.Header)
    ]
    assert {e.id for e in found} == {f"p{i}" for i in range(0, 300, 7)}
    # Each product once in a search, popular or not; tags are searched too.
    assert len(found) == len({e.id for e in found})
    vegan = [
        r for r in menu_model.rows(categories, "VEGAN") if not isinstance(r, menu_model.Header)
    ]
    assert len(vegan) == 100


def test_not_available_now_from_available_times() -> None:
    from datetime import datetime

    product = SimpleNamespace(
        is_available=True,
        available_times=[SimpleNamespace(days=["monday"], start="06:00", end="11:00")],
    )
    monday_9 = datetime(2026, 3, 9, 9, 0)
    monday_12 = datetime(2026, 3, 9, 12, 0)
    tuesday_9 = datetime(2026, 3, 10, 9, 0)
    assert menu_model.availability(product, monday_9) == (menu_model.AVAILABLE, "")
    assert menu_model.availability(product, monday_12) == (menu_model.NOT_NOW, "06:00–11:00")
    assert menu_model.availability(product, tuesday_9)[0] == menu_model.NOT_NOW
    assert menu_model.availability(product, None)[0] == menu_model.AVAILABLE


def _cart(**totals: Any) -> Cart:
    base = {"id": "c1", "currency": "usd", "items": []}
    return Cart.model_validate({**base, **totals})


def test_totals_show_what_applies_from_formatted_strings() -> None:
    cart = _cart(
        subTotal="900",
        subTotalFormatted="$9.00",
        subTotalWithoutDiscount="1000",
        subTotalWithoutDiscountFormatted="$10.00",
        discountTotal="100",
        discountTotalFormatted="$1.00",
        discountCode="SAVE10",
        taxTotal="80",
        taxTotalFormatted="$0.80",
        fulfillmentMethodFeeTotal="299",
        fulfillmentMethodFeeTotalFormatted="$2.99",
        waiterTipTotal="0.00",
        waiterTipTotalFormatted="$0.00",
        orderTotal="1279",
        orderTotalFormatted="$12.79",
        orderTotalWithServiceFee="1300",
        orderTotalWithServiceFeeFormatted="$13.00 (server)",
    )
    rows = total_rows(cart)
    assert rows == [
        ("Subtotal", "$10.00", ""),
        ("Discount (SAVE10)", "-$1.00", "discount"),
        ("Tax", "$0.80", ""),
        ("Delivery fee", "$2.99", ""),
        ("Total", "$13.00 (server)", "total"),
    ]


def test_totals_fall_back_without_service_fee_total() -> None:
    cart = _cart(subTotal="500", taxTotal="0.00", orderTotal="500", orderTotalFormatted="$5.00")
    rows = total_rows(cart)
    assert rows[0] == ("Subtotal", "$5.00", "")
    assert rows[-1] == ("Total", "$5.00", "total")


def test_choice_lines_read_any_selection_shape() -> None:
    item = SimpleNamespace(
        selections=[
            {
                "groupId": "g",
                "selectedOptions": [
                    {"optionId": "o1", "name": "Large", "quantity": 1},
                    {
                        "optionId": "o2",
                        "name": "Combo",
                        "quantity": 1,
                        "children": [
                            {"groupId": "s", "selectedOptions": [{"name": "Fries", "quantity": 2}]}
                        ],
                    },
                ],
            },
            "junk",
            {"name": "[bold]flat[/]"},
        ],
        special_instructions=None,
    )
    assert choice_lines(item) == ["Large", "Combo", "  Fries ×2", "[bold]flat[/]"]  # type: ignore[arg-type]


async def test_the_order_panel_says_how_many_more_choices_past_its_limit(tmp_path: Path) -> None:
    """The panel beside the menu shows a line's choices up to CartPanel.CHOICES; past that, one
    fewer and "+N more", so that no choice vanishes without a word (issue 20)."""
    import copy

    from kiosk.tui.widgets.cart_summary import CartPanel

    from .conftest import make_kiosk, settle
    from .test_snapshots import BURGER_COMBO, press

    loaded = copy.deepcopy(BURGER_COMBO)
    addons = next(g for g in loaded if g["groupId"] == "grp_burger_addons")
    addons["selectedOptions"] += [
        {"optionId": "opt_add_avocado", "quantity": 1},
        {"optionId": "opt_add_egg", "quantity": 1},
    ]
    app = make_kiosk(tmp_path).app
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await press("1", "1")(pilot)
        await app.visit.add_item("prd_classic_burger", 1, loaded)
        await settle(pilot)
        panel = app.screen.query_one(CartPanel)
        drawn = [panel.render_line(y).text.strip() for y in range(panel.size.height)]
        choices = drawn[drawn.index(next(d for d in drawn if "Classic Burger" in d)) + 1 :]
        choices = choices[: next(i for i, d in enumerate(choices) if not d)]
        # Eight choice lines (doneness, cheese, bacon, avocado, egg, the combo, its side and
        # drink): five shown and the three others counted.
        assert len(choices) == CartPanel.CHOICES, drawn
        assert choices[:4] == ["Medium", "Aged cheddar", "Bacon ×2", "Avocado"], drawn
        assert choices[-1] == "+3 more", drawn
