"""The order number: one widget wherever it is shown (done screen, pay at the counter, staff).

Large (textual's Digits) when `large` and every character is one Digits can draw; otherwise, and
for any other number, bold text on a tinted block. The number is the server's data: cleaned and
drawn as Text, never as markup.
"""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Center
from textual.widgets import Digits, Static

from kiosk.tui.text import clean

# The characters textual's Digits can draw large; other order numbers are shown as bold text.
DIGITS_CHARS = frozenset("0123456789ABCDEF-+.:,$£€ ")


def order_number_text(number: str | None) -> str:
    """The number as shown: cleaned, bounded, "—" when there is none."""
    return clean(number or "", 20) or "—"


class OrderNumber(Center):
    """The order number, centred; `large` draws it with Digits where it can."""

    DEFAULT_CSS = """
    OrderNumber { height: auto; }
    OrderNumber > .order-number-digits { width: auto; color: $success; text-style: bold; }
    OrderNumber > .order-number-text {
        width: auto; text-style: bold; padding: 0 2; background: $success-muted;
    }
    OrderNumber.-large > .order-number-text { padding: 1 2; }
    """

    def __init__(self, number: str | None, *, large: bool = False, id: str | None = None) -> None:
        super().__init__(id=id, classes="-large" if large else "")
        self.number = order_number_text(number)
        self.large = large

    @property
    def drawn_large(self) -> bool:
        return self.large and set(self.number.upper()) <= DIGITS_CHARS

    @property
    def value(self) -> str:
        """The number as drawn (Digits draw capitals)."""
        return self.number.upper() if self.drawn_large else self.number

    def compose(self) -> ComposeResult:
        if self.drawn_large:
            yield Digits(self.value, classes="order-number-digits")
        else:
            yield Static(Text(self.number, style="bold"), classes="order-number-text")
