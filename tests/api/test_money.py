from __future__ import annotations

import math
from decimal import Decimal
from typing import Any

import pytest

from kiosk.api import MoneyError, format_money, parse_money, to_decimal_string


@pytest.mark.parametrize(
    ("raw", "minor"),
    [
        ("0.00", 0),
        ("0", 0),
        ("1250", 1250),
        ("12.50", 1250),
        ("12.5", 1250),
        ("5.00", 500),
        ("0.01", 1),
        ("0.10", 10),
        ("1", 1),
        ("  7.25 ", 725),
        ("999999999.99", 99999999999),
        ("-5", -5),
        ("-0.50", -50),
        ("-12.34", -1234),
        (0, 0),
        (1250, 1250),
        (-3, -3),
    ],
)
def test_parse_money_accepts_the_contract_forms(raw: str | int, minor: int) -> None:
    assert parse_money(raw) == minor


@pytest.mark.parametrize(
    ("raw", "says"),
    [
        (12.5, "float"),
        (0.0, "float"),
        (math.nan, "float"),
        (math.inf, "float"),
        ("NaN", "not a money amount"),
        ("nan", "not a money amount"),
        ("inf", "not a money amount"),
        ("Infinity", "not a money amount"),
        ("1.234", "at most two decimals"),
        ("0.001", "at most two decimals"),
        ("", "empty"),
        ("   ", "empty"),
        (None, "NoneType"),
        (True, "boolean"),
        (Decimal("1.50"), "Decimal"),
        ("abc", "not a money amount"),
        ("12.", "not a money amount"),
        (".5", "not a money amount"),
        ("1,250", "not a money amount"),
        ("1e3", "not a money amount"),
        ("+5", "not a money amount"),
        ("--5", "not a money amount"),
        ("$5.00", "not a money amount"),
        ("٣", "not a money amount"),  # an Arabic-Indic digit: \d would take it
        ("5 00", "not a money amount"),
    ],
)
def test_parse_money_refuses_with_a_clear_message(raw: Any, says: str) -> None:
    with pytest.raises(MoneyError) as info:
        parse_money(raw)
    assert says in str(info.value)
    assert isinstance(info.value, ValueError)


def test_parse_money_bounds_the_echoed_value() -> None:
    with pytest.raises(MoneyError) as info:
        parse_money("x" * 5000)
    assert len(str(info.value)) < 120


@pytest.mark.parametrize(
    ("minor", "text"),
    [(0, "0.00"), (1, "0.01"), (500, "5.00"), (1250, "12.50"), (123456, "1234.56"), (-5, "-0.05")],
)
def test_to_decimal_string(minor: int, text: str) -> None:
    assert to_decimal_string(minor) == text
    assert parse_money(text) == minor  # round trip


def test_to_decimal_string_refuses_non_integers() -> None:
    with pytest.raises(MoneyError):
        to_decimal_string(5.0)  # type: ignore[arg-type]
    with pytest.raises(MoneyError):
        to_decimal_string(True)


@pytest.mark.parametrize(
    ("minor", "currency", "text"),
    [
        (500, "usd", "$5.00"),
        (500, "USD", "$5.00"),
        (1250, "eur", "€12.50"),
        (99, "gbp", "£0.99"),
        (1250, "cad", "CA$12.50"),
        (1250, "nzd", "NZ$12.50"),
        (123456, "usd", "$1,234.56"),
        (-250, "usd", "-$2.50"),
        (0, "usd", "$0.00"),
        (700, "", "7.00"),
    ],
)
def test_format_money(minor: int, currency: str, text: str) -> None:
    assert format_money(minor, currency) == text


@pytest.mark.parametrize(
    ("locale", "text"),
    [
        (None, "NZ$1,234.50"),
        ("en_NZ", "$1,234.50"),
        ("de_DE", "1.234,50\xa0NZ$"),
        ("qq_QQ", "NZ$1,234.50"),
        ("../../etc", "NZ$1,234.50"),
    ],
)
def test_format_money_in_a_locale(locale: str | None, text: str) -> None:
    # One formatter for every screen; a locale babel does not know falls back to the default.
    assert format_money(123450, "nzd", locale) == text
