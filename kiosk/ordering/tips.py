"""Tip choices for a cart, headless: each preset with its amount for this cart, and the check of a
custom amount before it is sent.

A preset's amount is a preview (like the product screen's): the server computes the tip it
charges. The contract's rule is `waiterTipTotal = subTotal × tipRate`, rounded half up once; the
chosen preset shows the server's own figure instead.
"""

from __future__ import annotations

from dataclasses import dataclass
from decimal import ROUND_HALF_UP, Decimal, InvalidOperation
from typing import TYPE_CHECKING

from kiosk.api.money import MoneyError, format_money, parse_money
from kiosk.i18n import _, money_locale

if TYPE_CHECKING:
    from kiosk.api.models import Cart, TipSettings

__all__ = [
    "MAX_CUSTOM_TIP",
    "TipChoice",
    "TipRefused",
    "chosen_tip",
    "parse_custom_tip",
    "tip_choices",
]

# The largest custom tip the kiosk sends (minor units): a mistyped "2500" is caught here.
MAX_CUSTOM_TIP = 100_000


class TipRefused(ValueError):
    """A custom tip the kiosk will not send; the message says why, for the customer."""


@dataclass(frozen=True, slots=True)
class TipChoice:
    """One tip button: `key` "none", "custom" or the percentage ("15", "12.5")."""

    key: str
    label: str
    amount: str = ""  # this cart's amount, formatted ("" for "Other")

    @property
    def text(self) -> str:
        """ "15% · $3.45", "No tip · $0.00", "Other"."""
        return f"{self.label} · {self.amount}" if self.amount else self.label


def _percentage(raw: str) -> Decimal | None:
    text = raw.strip().rstrip("%").strip()
    try:
        value = Decimal(text)
    except InvalidOperation:
        return None
    if not value.is_finite() or value < 0 or value > 100:
        return None
    return value


def _key(value: Decimal) -> str:
    return format(value.normalize(), "f")


def tip_choices(
    cart: Cart | None, settings: TipSettings, locale: str | None = None
) -> list[TipChoice]:
    """ "No tip" first, then each preset percentage the settings list, then "Other" when a custom
    amount is allowed. Amounts are for `cart` (none without a cart); the chosen one is the
    server's `waiterTipTotal`."""
    if not settings.enabled:
        return []
    chosen = chosen_tip(cart) if cart is not None else None

    def amount(minor: int, key: str) -> str:
        if cart is None:
            return ""
        if key == chosen and cart.waiter_tip_total:
            return cart.formatted("waiter_tip_total", money_locale())
        return format_money(minor, cart.currency, locale)

    choices = [TipChoice("none", _("No tip"), amount(0, "none"))]
    seen: set[str] = set()
    for raw in settings.tip_percentage:
        pct = _percentage(raw)
        if pct is None or pct == 0:
            continue
        key = _key(pct)
        if key in seen:
            continue
        seen.add(key)
        minor = 0
        if cart is not None:
            minor = int((Decimal(cart.sub_total) * pct / 100).quantize(0, ROUND_HALF_UP))
        choices.append(TipChoice(key, f"{key}%", amount(minor, key)))
    if settings.should_allow_custom_tip:
        custom = chosen == "custom" and cart is not None
        choices.append(TipChoice("custom", _("Other"), amount(0, "custom") if custom else ""))
    return choices


def chosen_tip(cart: Cart) -> str:
    """Which choice the cart's tip is: a percentage key ("18"), "custom" or "none"."""
    pct = _percentage(cart.fees.tip_rate or "")
    if pct is not None and pct > 0:
        # tipRate is a fraction ("0.18"): the key is the percentage.
        return _key(pct * 100)
    if cart.waiter_tip_total:
        return "custom"
    return "none"


def parse_custom_tip(raw: str, currency: str, locale: str | None = None) -> int:
    """A custom tip as typed ("2.50", "$3", "4") in minor units; TipRefused says why not."""
    text = raw.strip()
    for sign in ("NZ$", "CA$", "A$", "$", "€", "£"):  # the longer signs first: "7 CA$" is 7
        text = text.removeprefix(sign).removesuffix(sign).strip()
    if not text:
        raise TipRefused(_("Please enter an amount, e.g. 2.50."))
    try:
        minor = parse_money(text if "." in text else f"{text}.00")
    except MoneyError:
        raise TipRefused(
            _("{text} is not an amount. Please type digits, e.g. 2.50.").format(
                text=repr(text[:12])
            )
        ) from None
    if minor < 0:
        raise TipRefused(_("A tip can't be negative."))
    if minor > MAX_CUSTOM_TIP:
        most = format_money(MAX_CUSTOM_TIP, currency, locale)
        raise TipRefused(
            _("A tip here is at most {most}. Please ask staff for more.").format(most=most)
        )
    return minor
