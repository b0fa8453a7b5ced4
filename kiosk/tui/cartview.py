"""How a cart's parts read on screen: the totals that apply, a line's choices. Pure functions of a
Cart.

The kiosk never computes a price the server computes: every amount here is the server's formatted
string.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from kiosk.i18n import _, language, money_locale
from kiosk.ordering.selections import echoed_name, echoed_options
from kiosk.tui.text import clean

if TYPE_CHECKING:
    from datetime import datetime

    from kiosk.api.models import Cart, CartItem


def total_rows(cart: Cart) -> list[tuple[str, str, str]]:
    """(label, amount text, kind) for every total that applies; kind is "", "discount" or "total".

    Subtotal, tax and the total are always shown; discount, fees and tip only when not zero. The
    total is what the customer pays: `orderTotalWithServiceFee` (it adds the service, processing and
    platform fees to `orderTotal`), falling back to `orderTotal` when the server sends none.
    """
    rows: list[tuple[str, str, str]] = []
    locale = money_locale()
    if cart.discount_total:
        rows.append((_("Subtotal"), cart.formatted("sub_total_without_discount", locale), ""))
        label = _("Discount")
        if cart.discount_code:
            label = f"{_('Discount')} ({clean(cart.discount_code, 24)})"
        amount = cart.formatted("discount_total", locale)
        if not amount.lstrip().startswith(("-", "−")):
            amount = "-" + amount
        rows.append((label, amount, "discount"))
    else:
        rows.append((_("Subtotal"), cart.formatted("sub_total", locale), ""))
    rows.append((_("Tax"), cart.formatted("tax_total", locale), ""))
    optional = (
        (_("Delivery fee"), "fulfillment_method_fee_total"),
        (_("Service fee"), "service_fee_total"),
        (_("Card processing fee"), "payment_processing_fee_total"),
        (_("Platform fee"), "enterprise_fee_total"),
        (_("Tip"), "waiter_tip_total"),
    )
    for label, name in optional:
        if getattr(cart, name):
            rows.append((label, cart.formatted(name, locale), ""))
    if cart.order_total_with_service_fee or not cart.order_total:
        rows.append((_("Total"), cart.formatted("order_total_with_service_fee", locale), "total"))
    else:
        rows.append((_("Total"), cart.formatted("order_total", locale), "total"))
    return rows


def pay_total(cart: Cart) -> str:
    return total_rows(cart)[-1][1]


def _names(entries: Any, out: list[str], known: Mapping[str, str]) -> None:
    for depth, entry in echoed_options(entries):
        option_id = entry.get("optionId")
        name = (
            echoed_name(entry)
            or (known.get(option_id) if isinstance(option_id, str) else None)
            or option_id
            or ""
        )
        quantity = entry.get("quantity")
        text = clean(name, 60)
        if isinstance(quantity, int) and quantity > 1:
            text = f"{text} ×{quantity}"
        if text:
            out.append(("  " * depth) + text)


def choice_lines(item: CartItem, known: Mapping[str, str] | None = None) -> list[str]:
    """A line's chosen options as short texts (nested choices indented).

    The spec leaves the entry shape open; this reads the contract's Selection shape, flat option
    entries, and names where the server sends them, and never fails on anything else. A server
    that sends only option ids (2.0) is read with `known` names (from the product details the
    kiosk read: Visit.option_names); an id shows only when its name was never seen.
    """
    out: list[str] = []
    _names(item.selections or [], out, known or {})
    if item.special_instructions:
        out.append(_("Note:") + " " + clean(item.special_instructions, 80))
    return out


def when_text(cart: Cart, today: datetime | None = None) -> str:
    """When the order is for, as the cart says: "as soon as possible" or its later slot. With
    `today` (now at the location), in the words every screen uses ("for Today 14:45"); without,
    the date itself (a printed receipt is read on another day)."""
    if (cart.pickup_type or "").upper() == "LATER" and cart.order_time:
        locale = money_locale()
        if today is not None:
            from kiosk.ordering.clock import human_moment

            moment = human_moment(
                clean(cart.order_date, 10), clean(cart.order_time, 5), today, locale or language()
            )
            return _("for {time}").format(time=moment)
        if locale:
            return _("for {time}").format(
                time=local_moment(cart.order_date, cart.order_time, locale)
            )
        return f"for {clean(cart.order_date, 10)} {clean(cart.order_time, 5)}".replace("  ", " ")
    return _("as soon as possible")


def slot_words(day: str | None, at: str | None) -> str:
    """A later slot as the server names it, its day label and its time ("Today 3:30 PM"): the
    time in the location's custom (kiosk.ordering.clock.clock_text), both cleaned."""
    from kiosk.ordering.clock import clock_text

    label = clean(day, 20)
    shown = clock_text(clean(at, 5), language())
    return f"{label} {shown}" if label else shown


def local_moment(day: str | None, clock: str | None, locale: str) -> str:
    """An order's date and time as `locale` writes them (babel): "10 mar 2026, 13:30" in "es".
    What cannot be read is shown as sent (cleaned), never an error."""
    from datetime import date

    from babel.dates import format_date

    from kiosk.ordering.clock import clock_text

    shown_time = clock_text(clean(clock, 5), locale)
    if not day:
        return shown_time
    try:
        shown_day = format_date(date.fromisoformat(clean(day, 10)), "medium", locale=locale)
    except ValueError:
        shown_day = clean(day, 10)
    return f"{shown_day} {shown_time}"


def line_amount(item: CartItem, currency: str | None) -> str:
    """A cart line's amount: the server's text, or (another language) written in its locale."""
    locale = money_locale()
    if locale:
        from kiosk.api.money import format_money

        return format_money(item.total or item.price, currency or "", locale)
    return clean(item.total_formatted or item.price_formatted or "", 20)


def receipt_rows(cart: Cart, known: Mapping[str, str] | None = None) -> list[tuple[str, str, str]]:
    """An itemised receipt: (text, amount, kind) for each line, its choices (kind "choice"),
    then every total that applies (kinds as in total_rows). Amounts are the server's."""
    rows: list[tuple[str, str, str]] = []
    for item in cart.items:
        amount = line_amount(item, cart.currency)
        rows.append((f"{item.quantity} × {clean(item.name, 60)}", amount, "line"))
        rows.extend(("   " + choice, "", "choice") for choice in choice_lines(item, known))
    rows.extend(total_rows(cart))
    return rows
