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
from kiosk.ordering.tips import TipRefused, parse_custom_tip, tip_choices
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


@pytest.mark.parametrize(
    ("raw", "currency", "minor"),
    [("£3", "gbp", 300), ("3 £", "gbp", 300), ("€2.50", "eur", 250), ("NZ$4", "nzd", 400)],
)
def test_a_custom_tip_may_be_typed_with_its_currency_sign(
    raw: str, currency: str, minor: int
) -> None:
    assert parse_custom_tip(raw, currency) == minor


def test_a_custom_tip_of_only_a_currency_sign_asks_for_an_amount() -> None:
    with pytest.raises(TipRefused, match="enter an amount"):
        parse_custom_tip(" £ ", "gbp")


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
