"""Money rules at their edges (kiosk/api/money.py): how much of a refused value a message
repeats, and the formatter's fallbacks. test_money.py has the contract's forms."""

from __future__ import annotations

import pytest

from kiosk.api import MoneyError, parse_money


def test_a_refused_value_of_forty_characters_is_repeated_whole_a_longer_one_cut() -> None:
    forty = "x" * 40
    with pytest.raises(MoneyError) as info:
        parse_money(forty)
    assert repr(forty) in str(info.value)
    longer = "y" * 37 + "zzzz"
    with pytest.raises(MoneyError) as info:
        parse_money(longer)
    assert repr("y" * 37 + "...") in str(info.value)
