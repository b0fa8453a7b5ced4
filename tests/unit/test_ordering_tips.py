"""Tip choices with this cart's amounts, and the check of a custom tip (kiosk.ordering.tips)."""

from __future__ import annotations

import pytest

from kiosk.api.models import Cart, TipSettings
from kiosk.ordering.tips import TipRefused, chosen_tip, parse_custom_tip, tip_choices

SETTINGS = TipSettings.model_validate(
    {"enabled": True, "shouldAllowCustomTip": True, "tipPercentage": ["15", "18", "12.5"]}
)


def cart(**extra: object) -> Cart:
    return Cart.model_validate({"id": "c1", "subTotal": "23.00", "currency": "usd", **extra})


def test_each_preset_shows_its_amount_for_this_cart() -> None:
    texts = [c.text for c in tip_choices(cart(), SETTINGS)]
    # 15% of 23.00 = 3.45; 18% = 4.14; 12.5% = 2.875 -> 2.88 (half up, as the contract rounds).
    assert texts == ["No tip · $0.00", "15% · $3.45", "18% · $4.14", "12.5% · $2.88", "Other"]


def test_the_chosen_preset_shows_the_servers_figure() -> None:
    chosen = cart(
        fees={"tipRate": "0.1800"}, waiterTipTotal="4.15", waiterTipTotalFormatted="US$4.15"
    )
    assert chosen_tip(chosen) == "18"
    assert [c.text for c in tip_choices(chosen, SETTINGS)][2] == "18% · US$4.15"


def test_a_custom_tip_is_chosen_and_shown_on_other() -> None:
    custom = cart(waiterTipTotal="2.50")
    assert chosen_tip(custom) == "custom"
    assert tip_choices(custom, SETTINGS)[-1].text == "Other · $2.50"
    assert chosen_tip(cart()) == "none"


def test_amounts_in_the_carts_currency_and_locale() -> None:
    nz = cart(currency="nzd")
    assert tip_choices(nz, SETTINGS)[1].text == "15% · NZ$3.45"
    assert tip_choices(nz, SETTINGS, "en_NZ")[1].text == "15% · $3.45"


def test_disabled_tips_and_bad_presets() -> None:
    assert tip_choices(cart(), TipSettings.model_validate({"enabled": False})) == []
    odd = TipSettings.model_validate(
        {"enabled": True, "tipPercentage": ["abc", "15", "15.0", "0", "250", "-5"]}
    )
    assert [c.key for c in tip_choices(cart(), odd)] == ["none", "15"]


@pytest.mark.parametrize(("raw", "minor"), [("2.50", 250), ("$3", 300), (" 4 ", 400), ("0", 0)])
def test_custom_tip_accepted(raw: str, minor: int) -> None:
    assert parse_custom_tip(raw, "usd") == minor


@pytest.mark.parametrize(
    ("raw", "says"),
    [
        ("", "enter an amount"),
        ("abc", "not an amount"),
        ("2.505", "not an amount"),
        ("-3", "negative"),
        ("2500", r"at most \$1,000\.00"),
    ],
)
def test_custom_tip_refused_with_a_reason(raw: str, says: str) -> None:
    with pytest.raises(TipRefused, match=says):
        parse_custom_tip(raw, "usd")
