"""Money at the edges: the API's strings in, integer minor units inside, strings out.

The contract's rule (tag A, covering spec 2.4 and the public API): a money string that contains "."
is a decimal amount in major units ("12.50" -> 1250, "0.00" -> 0); without "." it is an integer
amount in minor units ("1250" -> 1250). Every currency is assumed to have two decimals
(assumption A: the contract's currencies are usd/eur/gbp-like; a zero-decimal currency would
need an exponent here).
"""

from __future__ import annotations

import functools
import re
from contextvars import ContextVar

__all__ = [
    "DEFAULT_LOCALE",
    "MAJOR_UNITS",
    "MoneyError",
    "format_money",
    "parse_money",
    "to_decimal_string",
]

# The locale prices are shown in when neither the location nor the customer names one. en_US
# writes a foreign dollar with its country ("NZ$12.50"), as the server's formatted twins do.
DEFAULT_LOCALE = "en_US"

# True while a Storefront 2.0 answer is parsed: there every amount is a decimal in major units, so
# "12" is twelve units, never twelve cents (the legacy rule must not leak into 2.0). Set by the
# dialect (kiosk.api.v2), read only here.
MAJOR_UNITS: ContextVar[bool] = ContextVar("major_units", default=False)

# ASCII digits only: str.isdigit() and \d accept other scripts' digits, which the API never sends.
_MINOR = re.compile(r"-?[0-9]+", re.ASCII)
_DECIMAL = re.compile(r"-?[0-9]+\.[0-9]{1,2}", re.ASCII)
_DECIMAL_ANY = re.compile(r"-?[0-9]+\.[0-9]+", re.ASCII)


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
    """A display string when the server sent no formatted twin: "$5.00", "€5.00", "NZ$12.50".

    The one money formatter of the kiosk (babel's `format_currency`): every screen calls it, with
    the location's or the customer's `locale` when there is one, else DEFAULT_LOCALE. The
    server's `...Formatted` value is always preferred; this is only the fallback.
    """
    if isinstance(minor, bool) or not isinstance(minor, int):
        raise MoneyError(f"minor units must be an integer, not {type(minor).__name__}")
    return _formatted(minor, (currency or "").strip().upper(), locale or DEFAULT_LOCALE)


@functools.lru_cache(maxsize=4096)
def _formatted(minor: int, code: str, where: str) -> str:
    # Cached: babel takes ~50 us a call, and a menu draws the same few prices again and again.
    from decimal import Decimal

    # Imported here: babel's tables cost ~60 ms, paid only once a price is first drawn.
    from babel.core import UnknownLocaleError
    from babel.numbers import format_currency, format_decimal

    amount = Decimal(minor).scaleb(-2)
    try:
        if not code:
            return format_decimal(amount, format="#,##0.00", locale=where)
        text = format_currency(amount, code, locale=where)
        # A language with no symbol of its own for the currency writes the bare code ("4,50 AUD"
        # in Spanish): the default locale's symbol instead, so an AUD restaurant reads A$ in
        # every language, as on its English screens and in the server's formatted twins.
        from babel.numbers import get_currency_symbol

        if where != DEFAULT_LOCALE and get_currency_symbol(code, where) == code:
            shared = get_currency_symbol(code, DEFAULT_LOCALE)
            if shared != code:
                text = text.replace(code, shared)
        return text
    except (UnknownLocaleError, ValueError):
        # A locale name babel does not know (it came from settings or the network): the default.
        if where == DEFAULT_LOCALE:
            raise
        return _formatted(minor, code, DEFAULT_LOCALE)
