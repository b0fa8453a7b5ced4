"""Money at the edges: the API's strings in, integer minor units inside, strings out.

The contract's rule (tag A, covering spec 2.4 and the public API): a money string that contains "."
is a decimal amount in major units ("12.50" -> 1250, "0.00" -> 0); without "." it is an integer
amount in minor units ("1250" -> 1250). Every currency is assumed to have two decimals
(assumption A: the contract's currencies are usd/eur/gbp-like; a zero-decimal currency would
need an exponent here).
"""

from __future__ import annotations

import re
from contextvars import ContextVar

__all__ = ["MAJOR_UNITS", "MoneyError", "format_money", "parse_money", "to_decimal_string"]

# True while a Storefront 2.0 answer is parsed: there every amount is a decimal in major units, so
# "12" is twelve units, never twelve cents (the legacy rule must not leak into 2.0). Set by the
# dialect (kiosk.api.v2), read only here.
MAJOR_UNITS: ContextVar[bool] = ContextVar("major_units", default=False)

# ASCII digits only: str.isdigit() and \d accept other scripts' digits, which the API never sends.
_MINOR = re.compile(r"-?[0-9]+", re.ASCII)
_DECIMAL = re.compile(r"-?[0-9]+\.[0-9]{1,2}", re.ASCII)
_DECIMAL_ANY = re.compile(r"-?[0-9]+\.[0-9]+", re.ASCII)

_SYMBOLS = {"usd": "$", "eur": "€", "gbp": "£"}


class MoneyError(ValueError):
    """A value that is not a money amount by the contract's rule. The message says why."""


def parse_money(value: str | int) -> int:
    """Return integer minor units for an API money value.

    Accepts an int (already minor units) or a string by the contract's rule. A leading "-" is
    accepted (a refund or discount line may be negative; decided here, not in the contract).
    Refused, with MoneyError: floats (binary fractions are not money), bools, None, NaN/inf, more
    than two decimals, exponents, thousands separators, a "+" sign, empty strings, anything else.
    """
    if isinstance(value, bool):
        raise MoneyError(
            f"a money amount must be a string or an integer, not a boolean ({value!r})"
        )
    if isinstance(value, int):
        return value
    if isinstance(value, float):
        raise MoneyError(
            f"a money amount must not be a float ({value!r}); send a decimal string such as '12.50'"
        )
    if not isinstance(value, str):
        raise MoneyError(
            f"a money amount must be a string or an integer, not {type(value).__name__}"
        )
    text = value.strip()
    if not text:
        raise MoneyError("a money amount must not be empty")
    if _MINOR.fullmatch(text):
        return int(text) * 100 if MAJOR_UNITS.get() else int(text)
    if _DECIMAL.fullmatch(text):
        negative = text.startswith("-")
        whole, _, frac = text.lstrip("-").partition(".")
        minor = int(whole) * 100 + int(frac.ljust(2, "0"))
        return -minor if negative else minor
    if _DECIMAL_ANY.fullmatch(text):
        raise MoneyError(f"a money amount has at most two decimals: {_shown(text)}")
    raise MoneyError(f"not a money amount: {_shown(text)}")


def _shown(text: str) -> str:
    # Bound what an error message repeats: the value came from the network.
    return repr(text if len(text) <= 40 else text[:37] + "...")


def to_decimal_string(minor: int) -> str:
    """Minor units as the decimal major-unit string requests use: 500 -> "5.00", -5 -> "-0.05"."""
    if isinstance(minor, bool) or not isinstance(minor, int):
        raise MoneyError(f"minor units must be an integer, not {type(minor).__name__}")
    sign = "-" if minor < 0 else ""
    whole, cents = divmod(abs(minor), 100)
    return f"{sign}{whole}.{cents:02d}"


def format_money(minor: int, currency: str, locale: str | None = None) -> str:
    """A display string when the server sent no formatted twin: "$5.00", "€5.00", "12.50 CAD".

    The server's `...Formatted` value is always preferred; this is only the fallback. With a
    `locale` (the customer chose another language: kiosk.i18n.money_locale) the amount is written
    the way that locale writes it, by babel ("12,50 US$" in "es"), twin or not.
    """
    if isinstance(minor, bool) or not isinstance(minor, int):
        raise MoneyError(f"minor units must be an integer, not {type(minor).__name__}")
    code = (currency or "").strip().upper()
    if locale and code:
        # Imported here: babel's number data costs nothing until a customer changes language.
        from decimal import Decimal

        from babel.numbers import format_currency

        # Two decimals always (this module's rule), whatever the currency's usual digits.
        return format_currency(
            Decimal(minor).scaleb(-2), code, locale=locale, currency_digits=False
        )
    sign = "-" if minor < 0 else ""
    whole, cents = divmod(abs(minor), 100)
    amount = f"{whole:,}.{cents:02d}"
    code = (currency or "").strip().lower()
    symbol = _SYMBOLS.get(code)
    if symbol:
        return f"{sign}{symbol}{amount}"
    suffix = f" {code.upper()}" if code else ""
    return f"{sign}{amount}{suffix}"
