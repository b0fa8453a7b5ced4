"""The payment hand-off's panel (the payment screen's left column): the checkout page as a QR
code, or, at the counter, the code to say there in large glyphs; a staff message when the server
gave no page. The line beneath the screen (the address to type, the code in plain letters) is the
screen's: the panel says what it drew."""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.widgets import Static

from kiosk.i18n import _
from kiosk.tui.widgets.order_number import OrderNumber
from kiosk.tui.widgets.qr import QRCode


class HandoffPanel(Vertical):
    """Holds at most one of: the QR code (#qr), the counter code (#counter-code)."""

    def compose(self) -> ComposeResult:
        yield Static("", id="qr-holder")

    @property
    def holder(self) -> Static:
        return self.query_one("#qr-holder", Static)

    def ask_for_staff(self) -> None:
        """No checkout page from the server: staff take the payment."""
        self.query("#counter-code").remove()
        self.holder.update(
            Text(_("Please ask a member of staff\nto take your payment."), style="bold")
        )

    def show_checkout(self, url: str) -> None:
        """The checkout page as a QR code (in place, when one is up: a renewed hand-off)."""
        self.query("#counter-code").remove()
        existing = self.query("#qr")
        if existing:
            existing.first(QRCode).show(url)
        else:
            self.holder.display = False
            self.mount(QRCode(url, id="qr"), before=0)

    def show_counter_code(self, code: str) -> bool:
        """Pay at the counter: the code to say there, large, where the QR code was; False when
        that code is already up."""
        self.query("#qr").remove()
        existing = self.query("#counter-code")
        if existing and existing.first(OrderNumber).number == code:
            return False
        existing.remove()
        holder = self.holder
        holder.update(Text(_("Say this code at the counter:"), style="bold"))
        holder.display = True
        self.mount(OrderNumber(code, large=True, id="counter-code"), after=holder)
        return True

    def clear(self) -> None:
        """Nothing to pay with here any more (a decline, an order gone)."""
        self.query("#qr").remove()
        self.query("#counter-code").remove()
        self.holder.update("")
