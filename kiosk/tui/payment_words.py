"""What the payment screen says in each of its states, as pure functions (no widgets): the
headline, the steps beneath it, the counter button's label, the demo's hint and the countdown.
kiosk.tui.screens.payment draws them; tests/unit/test_payment_words.py pins the mapping."""

from __future__ import annotations

from dataclasses import dataclass

from rich.text import Text

from kiosk.i18n import _


@dataclass(frozen=True)
class Waiting:
    """The words while the screen waits for a payment."""

    headline: str | None  # None: the service is out of reach, and the headline says so
    steps: str
    counter_label: str  # the counter button's, where the counter is offered


def waiting_words(*, at_counter: bool, phone_can_pay: bool, unreachable: bool) -> Waiting:
    """At the counter, by phone, or (a demo whose page no phone can open) by pressing A."""
    if at_counter:
        headline = _("Please pay at the counter")
        steps = _(
            "1. Go to the counter and say the code\n"
            "2. Staff take your payment there\n"
            "3. Your order number appears here"
        )
    elif phone_can_pay:
        headline = _("Scan to pay")
        steps = _(
            "1. Scan the code with your phone's camera\n"
            "2. Pay on your phone\n"
            "3. Your order number appears here"
        )
    else:
        headline = _("Demo: press A to pay")
        # The title says "press A to pay": said once (issue 20: it was said four times).
        steps = _(
            "This demo's payment page opens on this machine only, not on a phone. "
            "Your order number appears here."
        )
    label = _("Pay by phone instead (C)") if at_counter else _("Pay at the counter (C)")
    return Waiting(None if unreachable else headline, steps, label)


def declined_steps(*, counter_offered: bool) -> str:
    """After a decline: the ways on, one of them a new code."""
    if counter_offered:
        return _(
            "Nothing was charged for this attempt. You can pay again with a new code, "
            "pay at the counter, or go back to your order."
        )
    return _(
        "Nothing was charged for this attempt. You can pay again with a new code, "
        "or go back to your order."
    )


def demo_hint(*, at_counter: bool, phone_can_pay: bool) -> str:
    """The demo's one short line for staff and developers (the test cards' keys)."""
    if not at_counter and not phone_can_pay:
        return _("Demo: D declines")  # the headline already says "press A to pay"
    return _("Demo: A pays, D declines")


def countdown(seconds: int) -> str:
    minutes, secs = divmod(max(seconds, 0), 60)
    return f"{minutes}:{secs:02d}"


def countdown_text(seconds_left: int, handoff_left: int | None, muted: str) -> Text:
    """The time left to pay; and, when the checkout page's link runs out first (a 2.0
    hand-off, renewed by itself), how long this code works."""
    text = Text(_("Time left to pay") + " ", style=muted)
    text.append(countdown(seconds_left), style="bold")
    if handoff_left is not None and handoff_left < seconds_left:
        text.append("\n" + _("This code works for") + " ", style=muted)
        text.append(countdown(handoff_left))
        text.append(_("; a new one appears by itself."), style=muted)
    return text
