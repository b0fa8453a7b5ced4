"""8. Done: the order number large, what happens next, the receipt (on screen and, when a printer
is configured, printed), and back to the start after a short time."""

from __future__ import annotations

import logging
import math
from typing import TYPE_CHECKING, Any, ClassVar

from rich.table import Table
from rich.text import Text
from textual import events
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Center, Vertical, VerticalScroll
from textual.widgets import Static

from kiosk.i18n import N_, _
from kiosk.receipt import Receipt, build_receipt
from kiosk.tui.cartview import when_text
from kiosk.tui.labels import NEXT_STEPS, method_key
from kiosk.tui.palette import tone
from kiosk.tui.screens.base import KioskScreen
from kiosk.tui.text import clean
from kiosk.tui.widgets.order_number import OrderNumber

if TYPE_CHECKING:
    from kiosk.api import Cart

log = logging.getLogger("kiosk.tui")


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
    # The footer names Enter, as the screen's own line does ("press Enter to start now").
    BINDINGS = [
        Binding("enter", "finish", N_("New order")),
        Binding("escape,f9", "finish", N_("New order"), show=False),
    ]

    def __init__(self, cart: Cart | None, order_number: str | None = None) -> None:
        super().__init__()
        self.order = cart
        # The server's number for the order (the lifecycle's: 2.0's order.shortId). Never the
        # cart's fulfillmentIdentifier: that is the table, the address or "counter".
        self.order_number = order_number
        self.deadline = 0.0
        self.receipt: Receipt | None = None
        self._finishing = False
        # The printer device once printed (python-escpos; a Dummy keeps its bytes for tests),
        # or the staff-facing reason it did not print.
        self.printed: Any = None
        self.print_error: str | None = None

    def compose_body(self) -> ComposeResult:
        if self.order is not None:
            self.receipt = build_receipt(
                self.order,
                location=self.kiosk.visit.state.location,
                option_names=self.kiosk.visit.option_names,
                order_number=self.order_number,
                customer_name=self.kiosk.visit.state.customer_name,
            )
        number = self.order_number
        title = (
            _("Thank you! Your order number is")
            if number
            else _("Thank you! Your order is placed.")
        )
        with Vertical(id="done-body"):
            yield Static(Text(title, style="bold"), id="done-title")
            yield OrderNumber(number, large=True, spelled=True, id="order-number")
            if self.receipt is not None and self.order is not None:
                paid = Text(self.receipt.paid_line + " · ")
                # In the words the cart and the time picker use ("for Today 14:45").
                today = self.kiosk.visit.clock.local_or_utc()
                paid.append(when_text(self.order, today), style="bold")
                yield Static(paid, id="done-paid")
            yield Static(Text(next_steps(self.order)), id="done-next")
            if self.receipt is not None and self.receipt.rows:
                # The rest of the screen's height: the receipt scrolls (↑↓, the wheel), whole.
                with Center(id="done-receipt-box"), VerticalScroll(id="done-receipt"):
                    yield Static(self._receipt(self.receipt), id="done-receipt-lines")
            yield Static("", id="done-print")
            yield Static("", id="done-countdown")

    def _receipt(self, receipt: Receipt) -> Table:
        """The itemised receipt (lines, choices, totals), every amount the server's."""
        table = Table.grid(expand=True, padding=(0, 1))
        table.add_column(ratio=1, overflow="fold")
        table.add_column(justify="right", no_wrap=True)
        number = receipt.order_number
        heading = _("Receipt · order {number}").format(number=number) if number else _("Receipt")
        table.add_row(Text(heading, style="bold"), "")
        for said in (receipt.customer, receipt.method):
            if said:
                table.add_row(Text(said), "")
        for row in receipt.rows:
            style = {
                "total": "bold",
                "choice": tone(self.app, "muted"),
                "discount": tone(self.app, "ok"),
            }.get(row.kind, "")
            table.add_row(Text(row.text, style=style), Text(row.amount, style=style))
        return table

    def on_mount(self) -> None:
        self.deadline = self.kiosk.clock() + float(self.kiosk.settings.done_timeout)
        # Shown again on the first screen for a while (kiosk.tui.widgets.recall).
        self.kiosk.recent_number.remember(self.order_number)
        self.query_one("#done-print").display = False
        self._tick()
        self.set_interval(1.0, self._tick)
        self.print_receipt()

    # Printing -------------------------------------------------------------------------------------
    def print_receipt(self) -> None:
        """Print the receipt when a printer is configured: in a thread (printers block), and a
        printer that fails costs the customer nothing but the paper (the order is placed)."""
        setting = self.kiosk.settings.printer
        receipt = self.receipt
        if not setting or receipt is None:
            return
        import asyncio

        from kiosk.printing import PrintError, parse_printer, print_receipt

        spec = parse_printer(setting)

        services = self.kiosk.services

        async def job() -> None:
            try:
                self.printed = await asyncio.to_thread(print_receipt, spec, receipt)
                services.printer_problem = None
            except PrintError as exc:
                log.warning("receipt not printed: %s", exc)
                services.printer_problem = str(exc)
                self._print_failed(str(exc))

        # The app's worker, not the screen's: a customer who leaves at once still gets the paper,
        # and staff still hear of a failure.
        self.app.run_worker(job(), group="receipt-print", exit_on_error=False)

    def _print_failed(self, reason: str) -> None:
        self.print_error = reason
        if not self.is_attached or self._finishing:
            return
        number = self.receipt.order_number if self.receipt else ""
        line = Text(
            _("Your receipt could not be printed: your order number is") + " ", style="bold"
        )
        line.append(number or _("on the screen above"), style="bold reverse")
        line.append(".\n")
        line.append(f"Staff: {clean(reason, 160)}", style=tone(self.app, "muted"))
        widget = self.query_one("#done-print", Static)
        widget.update(line)
        widget.display = True
        # The customer has no paper: time to note the number.
        self.deadline += float(self.kiosk.settings.done_timeout)
        self._tick()

    def _tick(self) -> None:
        left = max(0, math.ceil(self.deadline - self.kiosk.clock()))
        text = Text(
            _("Back to the start in {seconds} s · press Enter to start now").format(seconds=left),
            style=tone(self.app, "muted"),
        )
        self.query_one("#done-countdown", Static).update(text)
        if left <= 0:
            self.action_finish()

    # Keys that read the receipt rather than start the next order.
    SCROLL_KEYS: ClassVar[dict[str, str]] = {
        "up": "scroll_up",
        "down": "scroll_down",
        "pageup": "scroll_page_up",
        "pagedown": "scroll_page_down",
        "home": "scroll_home",
        "end": "scroll_end",
    }

    def on_key(self, event: events.Key) -> None:
        scroll = self.SCROLL_KEYS.get(event.key)
        if scroll is not None and self.query("#done-receipt"):
            event.stop()
            getattr(self.query_one("#done-receipt", VerticalScroll), scroll)(animate=False)
            return
        # Any key: the next customer may start at once, and the key is their first (1 chooses
        # the first restaurant). It goes on to the app, which holds it with those typed after it
        # for the next first screen; Enter or Esc typed before it still act here.
        if event.key not in ("enter", "escape") and not self._finishing:
            self.action_finish(after=math.nextafter(event.time, -math.inf))

    def action_finish(self, after: float | None = None) -> None:
        if self._finishing:
            return
        self._finishing = True
        self.kiosk.reset_now(after)

    def action_back(self) -> None:
        self.action_finish()
