"""What the customer-flow screens ask of the kiosk: a step of the order, never a screen class.

The flow screens (location, welcome, menu, order, checkout, payment, done) do not import each
other. A screen says where the customer wants to go (`Wants`) and the app's router decides which
screens that means for the order as it stands (kiosk.tui.router): the menu's F2 asks for the
checkout and gets the order under it; a payment that went back asks for the order and gets the
menu under it; a paid order is shown as paid whatever was asked.

A request is handed to the app at once (`Kiosk.navigate`), not posted as a Textual message: the
stack changes before the next key of a burst is read (F2 then a name typed in one write), as it
did when the screens pushed each other.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum


class Step(Enum):
    """A screen of the customer flow, in the order the customer meets them."""

    LOCATION = "location"
    WELCOME = "welcome"
    MENU = "menu"
    ORDER = "order"
    CHECKOUT = "checkout"
    PAYMENT = "payment"
    DONE = "done"


@dataclass(frozen=True)
class Wants:
    """The customer asked for `step` ("back" is a step too: the checkout's back is ORDER).
    `said`: what the screen arrived at says on arrival (a payment that went back says why)."""

    step: Step
    said: str | None = None
    kind: str = "info"
    # The paid cart, for the done screen, where the screen has it from the server's answer.
    cart: object = None
