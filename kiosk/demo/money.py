"""Money at the demo backend's edges. Inside, money is always integer minor units."""

from __future__ import annotations

from decimal import ROUND_HALF_UP, Decimal, InvalidOperation

# Every amount a request may carry is below this many major units (a tip, a price, a percentage).
MAX_MAJOR = Decimal(10) ** 9

SYMBOLS = {"usd": "$", "cad": "$", "aud": "$", "nzd": "NZ$", "eur": "€", "gbp": "£"}


def round_half_up(value: Decimal) -> int:
    return int(value.quantize(Decimal(1), rounding=ROUND_HALF_UP))


def dec(minor: int) -> str:
    """Decimal major units: 475 -> "4.75" (prices, modifier deltas, tips, fee fixes)."""
    sign = "-" if minor < 0 else ""
    minor = abs(minor)
    return f"{sign}{minor // 100}.{minor % 100:02d}"


def total(minor: int) -> str:
    """A cart total as the spec emits it: non-zero as minor units ("1250"), zero as "0.00"."""
    return "0.00" if minor == 0 else str(minor)


def fmt(minor: int, currency: str = "usd") -> str:
    sign = "-" if minor < 0 else ""
    minor = abs(minor)
    symbol = SYMBOLS.get(currency.lower(), currency.upper() + " ")
    return f"{sign}{symbol}{minor // 100:,}.{minor % 100:02d}"


def rate(value: str | Decimal) -> str:
    """A fee rate with four decimals: "0.0888"."""
    return str(Decimal(value).quantize(Decimal("0.0001")))


def parse_major(text: str) -> int | None:
    """Major units with at most two decimals ("5.00", "5") -> 500; None for anything else."""
    try:
        value = Decimal(text.strip())
    except (InvalidOperation, AttributeError):
        return None
    # Bounded before any arithmetic: quantizing "1e999999" raises InvalidOperation, and no
    # amount here comes near 10^9 major units.
    if not value.is_finite() or abs(value) >= MAX_MAJOR:
        return None
    if value != value.quantize(Decimal("0.01")):
        return None
    return int(value * 100)
