"""Money rules at their edges (kiosk/api/money.py): how much of a refused value a message
repeats, and the formatter's fallbacks. test_money.py has the contract's forms."""

from __future__ import annotations

import pytest

from kiosk.api import MoneyError, format_money, parse_money


def test_a_refused_value_of_forty_characters_is_repeated_whole_a_longer_one_cut() -> None:
    forty = "x" * 40
    with pytest.raises(MoneyError) as info:
        parse_money(forty)
    assert repr(forty) in str(info.value)
    longer = "y" * 37 + "zzzz"
    with pytest.raises(MoneyError) as info:
        parse_money(longer)
    assert repr("y" * 37 + "...") in str(info.value)


def test_a_language_with_its_own_symbol_for_the_currency_keeps_it() -> None:
    # Tongan writes the Australian dollar "AUD$": its own symbol, which holds the bare code, so
    # it is not the bare code that the default locale's "A$" replaces (Spanish writes "AUD").
    assert format_money(1250, "aud", "to") == "AUD$\xa012.50"
    assert format_money(1250, "aud", "es") == "12,50\xa0A$"


@pytest.mark.parametrize("odd", [5.0, True, "500", None])
def test_only_whole_minor_units_are_formatted(odd: object) -> None:
    with pytest.raises(MoneyError):
        format_money(odd, "usd")  # type: ignore[arg-type]
