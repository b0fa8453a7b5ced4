"""6. Checkout: name and email (checked here, then by the server's validate-and-update, errors at
the
field), then the cart is validated; sold-out lines are explained with a way forward."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.widgets import Button, Input, Label, Static

from kiosk.i18n import N_, _
from kiosk.tui.cartview import pay_total
from kiosk.tui.errors import Failure
from kiosk.tui.palette import tone
from kiosk.tui.screens.base import KioskScreen
from kiosk.tui.text import clean
from kiosk.tui.widgets.cart_summary import TotalsPanel
from kiosk.tui.widgets.chrome import FieldError

if TYPE_CHECKING:
    from kiosk.ordering.cart_store import CheckoutResult

# A practical check, not RFC 5322: something@domain.tld without spaces. The server has the last
# word.
EMAIL = re.compile(r"[^@\s]+@[^@\s]+\.[^@\s.]{2,}")
NAME_MAX = 80
SERVER_FIELDS = {"customerName": "name", "name": "name", "emailAddress": "email", "email": "email"}


def check_name(value: str) -> str | None:
    name = " ".join(value.split())
    if not name:
        return _("Please enter your name, so we can call you when your order is ready.")
    if len(name) > NAME_MAX:
        return _("Please keep your name under {n} characters.").format(n=NAME_MAX)
    if not any(ch.isalpha() for ch in name):
        return _("Please enter a name with at least one letter.")
    return None


def check_email(value: str) -> str | None:
    email = value.strip()
    if not email:
        return _("Please enter your email address for the receipt.")
    if not EMAIL.fullmatch(email):
        return _("That email address doesn't look right (for example: name@example.com).")
    return None


class CheckoutScreen(KioskScreen):
    TITLE = N_("Checkout")
    BINDINGS = [
        Binding("f2", "continue", N_("Continue to payment")),
        Binding("escape", "back", N_("Back to your order")),
    ]

    def __init__(self) -> None:
        super().__init__()
        self.unavailable: list[str] = []

    def compose_body(self) -> ComposeResult:
        with Horizontal(id="checkout-body"):
            with VerticalScroll(id="checkout-form"):
                yield Static(Text(_("Almost done: who is this order for?"), style="bold"))
                yield Label(_("Your name"), classes="field-label")
                yield Input(placeholder=_("First name is fine"), id="name", max_length=NAME_MAX)
                yield FieldError(id="e-name")
                yield Label(_("Email (for your receipt)"), classes="field-label")
                yield Input(placeholder="name@example.com", id="email", max_length=254)
                yield FieldError(id="e-email")
                with Vertical(id="problems"):
                    yield Static("", id="problems-text")
                    with Horizontal(id="problem-buttons"):
                        yield Button(_("Remove unavailable items"), id="remove-unavailable")
                        yield Button(_("Change my order"), id="change-order")
            with Vertical(id="checkout-right"):
                yield TotalsPanel(id="totals")
                yield Button(_("Continue to payment (F2)"), id="continue", variant="success")

    def on_mount(self) -> None:
        self.query_one("#problems").display = False
        state = self.kiosk.visit.state
        self.query_one("#name", Input).value = state.customer_name
        self.query_one("#email", Input).value = state.email_address
        self.query_one("#name", Input).focus()

    def _error(self, field: str, message: str | None) -> None:
        self.query_one(f"#e-{field}", FieldError).show(message)
        self.query_one(f"#{field}", Input).set_class(bool(message), "-invalid")

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        if event.input.id == "name":
            self.query_one("#email", Input).focus()
        else:
            self.action_continue()

    def on_input_changed(self, event: Input.Changed) -> None:
        # An error stays until the field is changed, then goes.
        if event.input.id in ("name", "email"):
            self._error(event.input.id, None)

    def on_button_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        if event.button.id == "continue":
            self.action_continue()
        elif event.button.id == "remove-unavailable":
            self.remove_unavailable()
        elif event.button.id == "change-order":
            self.dismiss(None)

    def _after_payment(self, back: object) -> None:
        """The payment screen went back to the order (Escape): the cart below this screen shows
        it, with what the payment screen said."""
        if not isinstance(back, str):
            return
        below = self.app.screen_stack[-2] if len(self.app.screen_stack) > 1 else None
        self.dismiss(None)
        if isinstance(below, KioskScreen):
            below.say(back, kind="info")

    def action_continue(self) -> None:
        name = " ".join(self.query_one("#name", Input).value.split())
        email = self.query_one("#email", Input).value.strip()
        name_error, email_error = check_name(name), check_email(email)
        self._error("name", name_error)
        self._error("email", email_error)
        if name_error or email_error:
            self.query_one("#name" if name_error else "#email", Input).focus()
            return
        visit = self.kiosk.visit
        visit.remember_customer(name, email)
        cart = self.kiosk.cart
        if cart is not None and cart.is_locked and not cart.is_completed:
            # Already handed to payment (a retry after a lost reply): go on to the payment.
            from kiosk.tui.screens.payment import PaymentScreen

            self.app.push_screen(PaymentScreen(), self._after_payment)
            return
        self.query_one("#problems").display = False

        async def checkout() -> CheckoutResult:
            return await visit.checkout(name, email)

        def failed(failure: Failure) -> bool:
            field = SERVER_FIELDS.get(failure.field or "")
            if field:
                self._error(field, failure.message)
                self.query_one(f"#{field}", Input).focus()
                return True
            return False

        self.call(
            checkout,
            group="cart",
            done=self._checked,
            failed=failed,
            busy=self.query_one("#checkout-body"),
        )

    def _checked(self, result: CheckoutResult) -> None:
        if result.validation.valid and result.intent is not None:
            from kiosk.tui.screens.payment import PaymentScreen

            self.app.push_screen(PaymentScreen(), self._after_payment)
            return
        cart = self.kiosk.cart
        names = {i.id: clean(i.name, 60) for i in cart.items} if cart else {}
        lines = Text(_("Your order can't be paid for yet:") + "\n", style=tone(self.app, "warn"))
        self.unavailable = []
        for issue in result.validation.errors:
            item = names.get(issue.item_id or "")
            if issue.item_id and item is not None:
                self.unavailable.append(issue.item_id)
            said = clean(issue.message, 160) or clean(issue.code, 40)
            # Name the line unless the server's sentence already does.
            what = f"{item}: " if item and item not in said else ""
            lines.append(f" • {what}{said}\n")
        if not result.validation.errors:
            lines.append(" • " + _("Please check your order and try again.") + "\n")
        if self.unavailable:
            lines.append(
                _("Remove the unavailable items and continue, or change your order."), style="dim"
            )
        self.query_one("#problems-text", Static).update(lines)
        self.query_one("#remove-unavailable").display = bool(self.unavailable)
        self.query_one("#problems").display = True
        focus = "#remove-unavailable" if self.unavailable else "#change-order"
        self.query_one(focus, Button).focus()

    def remove_unavailable(self) -> None:
        visit = self.kiosk.visit
        ids = list(self.unavailable)
        if not ids:
            return

        async def remove() -> Any:
            for item_id in ids:
                await visit.remove_item(item_id)

        def removed(_result: Any) -> None:
            self.unavailable = []
            self.query_one("#problems").display = False
            cart = self.kiosk.cart
            if cart is None or not cart.items:
                self.say(
                    _("Your order is now empty."), hint=_("Press Esc to choose something else.")
                )
            else:
                self.say(
                    _("Removed. Your new total is {total}.").format(total=pay_total(cart)),
                    kind="ok",
                    hint=_("Press F2 to continue."),
                )

        self.call(remove, group="cart", done=removed, busy=self.query_one("#checkout-body"))
