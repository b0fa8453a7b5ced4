"""The receipt as data: what the done screen draws and the receipt printer prints, built once.

Headless (no Textual): the done screen (kiosk/tui/screens/done.py) lays it out with Rich, the
printer (kiosk/printing.py) as ESC/POS text. Every amount is the server's formatted string; every
string from the API passes through `clean` (it is data, never markup or printer commands).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING

from kiosk.i18n import _
from kiosk.tui.cartview import pay_total, receipt_rows, when_text
from kiosk.tui.labels import method_key, method_label
from kiosk.tui.text import clean

if TYPE_CHECKING:
    from kiosk.api.models import Cart, Location

__all__ = ["Receipt", "ReceiptRow", "build_receipt"]


@dataclass(frozen=True, slots=True)
class ReceiptRow:
    text: str
    amount: str
    # "line", "choice", "discount", "total" or "" (subtotal, tax, fees, tip).
    kind: str


@dataclass(frozen=True, slots=True)
class Receipt:
    restaurant: str
    address: str
    order_number: str
    when: str  # "as soon as possible" or "for 2026-11-23 18:30"
    total: str
    rows: tuple[ReceiptRow, ...]
    customer: str = ""  # the name the order is called by
    method: str = ""  # the way to order, with its table or room: "Table service · table 12"

    @property
    def paid_line(self) -> str:
        # A receipt is for an order, and an order exists once paid (kiosk.ordering.payment).
        return _("Paid {total}").format(total=self.total)


def build_receipt(
    cart: Cart,
    *,
    location: Location | None = None,
    option_names: Mapping[str, str] | None = None,
    order_number: str | None = None,
    customer_name: str = "",
) -> Receipt:
    """The receipt of `cart`, a completed order. `order_number` is the server's number for the
    order (the lifecycle's: 2.0's order.shortId), never read off the cart: a cart's
    `fulfillmentIdentifier` holds the table, the address or "counter"."""
    restaurant = cart.restaurant_display_name
    if not restaurant and location is not None:
        restaurant = location.restaurant_display_name
    address = location.address_string if location is not None else ""
    method = method_label(cart.fulfilment_method) if cart.fulfilment_method else ""
    key = method_key(cart.fulfilment_method)
    if key == "table_service" and cart.table_service_info and cart.table_service_info.table_number:
        method += " · " + _("table {table}").format(table=cart.table_service_info.table_number)
    elif key == "room_service" and cart.room_service_info and cart.room_service_info.room_number:
        method += " · " + _("room {room}").format(room=cart.room_service_info.room_number)
    return Receipt(
        restaurant=clean(restaurant, 60),
        address=clean(address or "", 100),
        order_number=clean(order_number or "", 20),
        when=when_text(cart),
        total=clean(pay_total(cart), 20),
        rows=tuple(ReceiptRow(t, a, k) for t, a, k in receipt_rows(cart, option_names)),
        customer=clean(customer_name, 60),
        method=clean(method, 80),
    )
