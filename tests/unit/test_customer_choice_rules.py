"""Rules of the customer's choices, pure (no server): tips, modifier groups, an edited line's
choices and a location's hours. Found untested by the mutation run (tools/mutate.py,
docs/mutation.md, issue 32 item 8): each test breaks if one of those survivors is put back."""

from __future__ import annotations

from datetime import UTC, datetime
from types import SimpleNamespace
from typing import Any

import pytest

from kiosk.api.models import Cart, CartItem, ProductDetail, TipSettings
from kiosk.ordering.hours import opening_status
from kiosk.ordering.modifiers import SelectionState
from kiosk.ordering.tips import (
    MAX_CUSTOM_TIP,
    TipRefused,
    chosen_tip,
    parse_custom_tip,
    tip_choices,
)
from kiosk.ordering.visit import selection_for_line


def _cart(**extra: object) -> Cart:
    return Cart.model_validate({"id": "c1", "subTotal": "20.00", "currency": "usd", **extra})


def _tips(*presets: str, custom: bool = False) -> TipSettings:
    return TipSettings.model_validate(
        {"enabled": True, "shouldAllowCustomTip": custom, "tipPercentage": list(presets)}
    )


# -- tips ------------------------------------------------------------------------------------


def test_a_tip_preset_of_up_to_a_hundred_percent_is_offered_and_no_more() -> None:
    keys = [c.key for c in tip_choices(_cart(), _tips("99.5", "100", "100.01"))]
    assert keys == ["none", "99.5", "100"]
    hundred = tip_choices(_cart(), _tips("100"))[1]
    assert hundred.text == "100% · $20.00"


def test_a_tip_preset_that_is_not_a_plain_percentage_is_left_out() -> None:
    keys = [c.key for c in tip_choices(_cart(), _tips("20X", "x15", "15 %", "18%"))]
    assert keys == ["none", "15", "18"]


def test_without_a_cart_the_tip_buttons_show_no_amounts() -> None:
    choices = tip_choices(None, _tips("15", custom=True))
    assert [(c.key, c.amount, c.text) for c in choices] == [
        ("none", "", "No tip"),
        ("15", "", "15%"),
        ("custom", "", "Other"),
    ]


def test_only_the_chosen_preset_shows_the_servers_figure_the_others_their_own() -> None:
    chosen = _cart(fees={"tipRate": "0.15"}, waiterTipTotal="3.01")
    texts = [c.text for c in tip_choices(chosen, _tips("10", "15", "20", custom=True))]
    assert texts == ["No tip · $0.00", "10% · $2.00", "15% · $3.01", "20% · $4.00", "Other"]


def test_a_tip_rate_of_zero_is_no_preset_chosen() -> None:
    assert chosen_tip(_cart(fees={"tipRate": "0.00"})) == "none"
    assert chosen_tip(_cart(fees={"tipRate": "0"}, waiterTipTotal="2.00")) == "custom"
    assert chosen_tip(_cart(fees={"tipRate": "0.1"}, waiterTipTotal="2.00")) == "10"


@pytest.mark.parametrize(
    ("raw", "currency", "minor"),
    [
        ("£3", "gbp", 300),
        ("3 £", "gbp", 300),
        ("€2.50", "eur", 250),
        ("NZ$4", "nzd", 400),
        ("A$5", "aud", 500),
        ("CA$6.25", "cad", 625),
    ],
)
def test_a_custom_tip_may_be_typed_with_its_currency_sign(
    raw: str, currency: str, minor: int
) -> None:
    assert parse_custom_tip(raw, currency) == minor


@pytest.mark.parametrize("raw", ["7 CA$", "7NZ$", "7 A$"])
def test_a_dollar_sign_with_its_country_may_follow_the_amount(raw: str) -> None:
    assert parse_custom_tip(raw, "cad") == 700


def test_a_custom_tip_of_up_to_a_thousand_is_taken_and_no_more() -> None:
    assert parse_custom_tip("1000", "usd") == MAX_CUSTOM_TIP == 100_000
    with pytest.raises(TipRefused):
        parse_custom_tip("1000.01", "usd")


@pytest.mark.parametrize(
    ("raw", "says"),
    [
        (" £ ", "Please enter an amount, e.g. 2.50."),
        ("-3", "A tip can't be negative."),
        ("1000.01", "A tip here is at most $1,000.00. Please ask staff for more."),
        ("2,50", "'2,50' is not an amount. Please type digits, e.g. 2.50."),
        # What was typed is repeated, cut to its first 12 characters.
        ("abcdefghijklmnop", "'abcdefghijkl' is not an amount. Please type digits, e.g. 2.50."),
    ],
)
def test_a_refused_custom_tip_tells_the_customer_why_in_full(raw: str, says: str) -> None:
    with pytest.raises(TipRefused) as refused:
        parse_custom_tip(raw, "usd")
    assert str(refused.value) == says


def test_other_is_offered_under_the_custom_key_the_tip_screen_sends() -> None:
    choices = tip_choices(_cart(), _tips("15", custom=True))
    assert [c.key for c in choices] == ["none", "15", "custom"]
    assert choices[-1].text == "Other"
    chosen = tip_choices(_cart(waiterTipTotal="2.50"), _tips("15", custom=True))
    assert (chosen[-1].key, chosen[-1].text) == ("custom", "Other · $2.50")


# -- modifier groups -------------------------------------------------------------------------


def _item(id: str, price: str = "0.00", **extra: Any) -> dict[str, Any]:
    return {"id": id, "name": id.title(), "price": price, "maxQuantity": 1, **extra}


def _group(id: str, lo: int, hi: int | None, *items: dict[str, Any]) -> dict[str, Any]:
    return {"id": id, "name": id.title(), "rule": {"min": lo, "max": hi}, "items": list(items)}


def _product(*groups: dict[str, Any], price: str | None = "10.00") -> ProductDetail:
    data: dict[str, Any] = {"id": "p1", "name": "Burger", "modifiers": list(groups)}
    if price is not None:
        data["price"] = price
    return ProductDetail.model_validate(data)


def test_a_child_group_named_only_by_its_id_opens_under_its_option() -> None:
    # A server may link an option's child group by id alone; the group is one of the product's.
    sauce = _group("sauce", 0, 1, _item("ketchup"), _item("mayo"))
    meal = _group("meal", 0, 1, _item("combo", "3.00", childGroups=[{"groupId": "sauce"}]))
    state = SelectionState.for_product(_product(meal, sauce)).toggle(("meal", "combo"))
    keys = [view.key for view in state.groups()]
    assert keys == [("meal",), ("meal", "combo", "sauce"), ("sauce",)]
    state = state.toggle(("meal", "combo", "sauce", "mayo"))
    assert state.quantity(("meal", "combo", "sauce", "mayo")) == 1
    assert state.to_request()[0]["selectedOptions"][0]["children"] == [
        {"groupId": "sauce", "selectedOptions": [{"optionId": "mayo", "quantity": 1}]}
    ]


def test_a_group_that_allows_no_choice_takes_none_and_opens_nothing_beneath() -> None:
    # A required group whose max is 0 (or below): nothing can be chosen in it, not even its only
    # option, and what hangs under that option is not chosen either.
    side = _group("side", 1, 1, _item("salad"))
    only = _item("fries", childGroups=[{"groupId": "side", "group": side}])
    for hi in (0, -2):
        product = _product(_group("extras", 1, hi, only))
        state = SelectionState.for_product(product)
        assert state == SelectionState(product)
        assert state.quantity(("extras", "fries")) == 0
        assert state.quantity(("extras", "fries", "side", "salad")) == 0
        extras = state.group(("extras",))
        assert extras.max == 0
        assert not extras.options[0].can_increase
        assert state.to_request() == []


def test_the_preview_of_a_product_without_a_price_is_its_options_alone() -> None:
    extras = _group("extras", 0, 2, _item("cheese", "0.75"))
    for price in (None, "0.00"):
        state = SelectionState.for_product(_product(extras, price=price))
        assert state.preview_unit_price_minor() == 0
        assert state.toggle(("extras", "cheese")).preview_unit_price_minor() == 75


def test_an_edited_line_starts_from_the_quantities_it_was_ordered_with() -> None:
    extras = _group("extras", 0, 5, _item("cheese", "0.75", maxQuantity=3), _item("bacon"))
    line = CartItem.model_validate(
        {
            "id": "line1",
            "productId": "p1",
            "quantity": 1,
            "selections": [
                {
                    "groupId": "extras",
                    "selectedOptions": [
                        {"optionId": "cheese", "quantity": 2},
                        {"optionId": "bacon"},
                    ],
                }
            ],
        }
    )
    state = selection_for_line(_product(extras), line)
    assert state.quantity(("extras", "cheese")) == 2
    assert state.quantity(("extras", "bacon")) == 1
    assert state.preview_unit_price_minor() == 1000 + 2 * 75


# -- hours -----------------------------------------------------------------------------------


def test_a_location_without_hours_still_writes_times_its_countrys_way() -> None:
    moment = datetime(2026, 3, 2, 12, tzinfo=UTC)
    for hours in (None, []):
        place = SimpleNamespace(timezone="Pacific/Auckland", hours=hours, country="NZ")
        status = opening_status(place, moment)
        assert not status.known and status.country == "NZ"
    nowhere = SimpleNamespace(timezone=None, hours=None, country=None)
    assert opening_status(nowhere, moment).country == ""


# -- the order's time ------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("cart", "slot"),
    [
        (
            {"pickupType": "LATER", "orderDate": "2026-03-03", "orderTime": "10:00"},
            ("2026-03-03", "10:00"),
        ),
        (
            {"pickupType": "later", "orderDate": "2026-03-03", "orderTime": "10:00"},
            ("2026-03-03", "10:00"),
        ),
        # A server that says "later" without the day or the hour: what it gave, the rest unsaid.
        ({"pickupType": "LATER", "orderTime": "10:00"}, ("", "10:00")),
        ({"pickupType": "LATER", "orderDate": "2026-03-03"}, ("2026-03-03", "")),
        ({"pickupType": "ASAP", "orderDate": "2026-03-03", "orderTime": "10:00"}, ("", "")),
        ({}, ("", "")),
    ],
)
def test_the_menus_slot_is_the_later_carts_day_and_hour(
    cart: dict[str, Any], slot: tuple[str, str]
) -> None:
    from kiosk.ordering.timing import OrderTiming
    from kiosk.ordering.visit_state import VisitState

    host = SimpleNamespace(state=VisitState(cart=_cart(**cart)))
    assert OrderTiming(host, None).menu_slot() == slot  # type: ignore[arg-type]
