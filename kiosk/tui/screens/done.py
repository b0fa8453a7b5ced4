"""8. Done: the order number large, what happens next, and back to the start after a short time."""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

from rich.table import Table
from rich.text import Text
from textual import events
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Center, Vertical, VerticalScroll
from textual.widgets import Digits, Static

from kiosk.i18n import N_, _
from kiosk.tui.cartview import pay_total, receipt_rows, when_text
from kiosk.tui.labels import NEXT_STEPS, method_key
from kiosk.tui.screens.base import KioskScreen
from kiosk.tui.text import clean

if TYPE_CHECKING:
    from kiosk.api import Cart

# The characters textual's Digits can draw large; other order numbers are shown as bold text.
DIGITS_CHARS = set("0123456789ABCDEF-+.:,$£€ ")


def next_steps(cart: Cart | None) -> str:
    if cart is None:
        return _("Please listen for your number.")
    method = method_key(cart.fulfilment_method)
    template = _(NEXT_STEPS.get(method, NEXT_STEPS["pickup"]))
    table = clean(cart.table_service_info.table_number if cart.table_service_info else "", 10)
    room = clean(cart.room_service_info.room_number if cart.room_service_info else "", 10)
    address = clean(cart.delivery_info.address_string if cart.delivery_info else "", 100)
    return template.format(
        table=table or _("your"), room=room or _("your"), address=address or _("you")
    )


class DoneScreen(KioskScreen):
    TITLE = N_("Thank you")
    # No idle prompt here: this screen returns to the start by itself (issue 5).
    IDLE_RESET = False
    BINDINGS = [Binding("enter,escape,f9", "finish", N_("New order"))]

    def __init__(self, cart: Cart | None) -> None:
        super().__init__()
        self.order = cart
        self.deadline = 0.0

    def compose_body(self) -> ComposeResult:
        number = clean(self.order.fulfillment_identifier if self.order else "", 20) or "—"
        with Vertical(id="done-body"):
            yield Static(Text(_("Thank you! Your order number is"), style="bold"), id="done-title")
            with Center():
                if set(number.upper()) <= DIGITS_CHARS:
                    yield Digits(number.upper(), id="order-number")
                else:
                    yield Static(Text(number, style="bold"), id="order-number-text")
            if self.order is not None:
                paid = Text(
                    _("Paid {total}").format(total=clean(pay_total(self.order), 20)) + " · "
                )
                paid.append(when_text(self.order), style="bold")
                yield Static(paid, id="done-paid")
            yield Static(Text(next_steps(self.order)), id="done-next")
            if self.order is not None and self.order.items:
                with Center(), VerticalScroll(id="done-receipt"):
                    yield Static(self._receipt(self.order), id="done-receipt-lines")
            yield Static("", id="done-countdown")

    def _receipt(self, cart: Cart) -> Table:
        """The itemised receipt (lines, choices, totals), every amount the server's."""
        table = Table.grid(expand=True, padding=(0, 1))
        table.add_column(ratio=1, overflow="fold")
        table.add_column(justify="right", no_wrap=True)
        number = clean(cart.fulfillment_identifier or "", 20)
        heading = _("Receipt · order {number}").format(number=number) if number else _("Receipt")
        table.add_row(Text(heading, style="bold"), "")
        for text, amount, kind in receipt_rows(cart, self.kiosk.visit.option_names):
            style = {"total": "bold", "choice": "dim", "discount": "green"}.get(kind, "")
            table.add_row(Text(text, style=style), Text(amount, style=style))
        return table

    def on_mount(self) -> None:
        self.deadline = self.kiosk.clock() + float(self.kiosk.settings.done_timeout)
        self._tick()
        self.set_interval(1.0, self._tick)

    def _tick(self) -> None:
        left = max(0, math.ceil(self.deadline - self.kiosk.clock()))
        text = Text(
            _("Back to the start in {seconds} s · press Enter to start now").format(seconds=left),
            style="dim",
        )
        self.query_one("#done-countdown", Static).update(text)
        if left <= 0:
            self.action_finish()

    def on_key(self, event: events.Key) -> None:
        # Any key: the next customer may start at once.
        if event.key not in ("enter", "escape"):
            event.stop()
            self.action_finish()

    def action_finish(self) -> None:
        if getattr(self, "_finishing", False):
            return
        self._finishing = True
        self.kiosk.reset_now()

    def action_back(self) -> None:
        self.action_finish()
