"""6. Checkout: name and email (checked here, then by the server's validate-and-update, errors at
the
field), then the cart is validated; sold-out lines are explained with a way forward."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.widgets import Button, Input, Label, Static

from kiosk.i18n import N_, _
from kiosk.ordering.lifecycle import Phase
from kiosk.tui.cartview import pay_total
from kiosk.tui.errors import Failure
from kiosk.tui.flow import Step, Wants
from kiosk.tui.palette import tone
from kiosk.tui.screens.base import KioskScreen
from kiosk.tui.text import clean
from kiosk.tui.widgets.cart_summary import TotalsPanel
from kiosk.tui.widgets.chrome import FieldError
from kiosk.tui.widgets.fields import TextField
from kiosk.tui.widgets.scroll import ControlsScroll

if TYPE_CHECKING:
    from kiosk.ordering.cart_store import CheckoutResult

# A quick check at the field, before anything is sent: something@domain.tld without spaces, and
# a local part that is a dot-atom (RFC 5322: no leading, trailing or doubled dot, so
# `zoe..t@example.com` is refused here). On 2.0 the vendor's own schema (its `emailAddress` pattern
# and length, kiosk.api.request_schema) then has the word before the request; on v1, the server.
EMAIL = re.compile(r"[^@\s.]+(?:\.[^@\s.]+)*@[^@\s]+\.[^@\s.]{2,}")
NAME_MAX = 80
# The fields a refusal may name (ours from the schema check, or the server's `details.fields`),
# as this screen's inputs.
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


def check_email(value: str, *, required: bool = True) -> str | None:
    email = value.strip()
    if not email:
        if not required:
            return None  # an offer, not a requirement (2.0 needs a name only)
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

    @property
    def email_required(self) -> bool:
        """Whether the API needs an email with the name (v1 does; 2.0's schema needs a name
        only, so there the receipt by email is an offer)."""
        return self.kiosk.visit.state.abilities.email_required

    def compose_body(self) -> ComposeResult:
        with Horizontal(id="checkout-body"):
            with ControlsScroll(id="checkout-form"):
                yield Static(Text(_("Almost done: who is this order for?"), style="bold"))
                yield Label(_("Your name"), classes="field-label")
                yield TextField(
                    placeholder=_("First name is fine"),
                    id="name",
                    max_length=NAME_MAX,
                    select_on_focus=False,
                )
                yield FieldError(id="e-name")
                yield Label(
                    _("Email (for your receipt)")
                    if self.email_required
                    else _("Email me a receipt (optional)"),
                    classes="field-label",
                )
                yield TextField(
                    placeholder="name@example.com",
                    id="email",
                    max_length=254,
                    select_on_focus=False,
                )
                yield FieldError(id="e-email")
                with Vertical(id="problems"):
                    yield Static("", id="problems-text")
                    with Horizontal(id="problem-buttons"):
                        yield Button(_("Remove unavailable items"), id="remove-unavailable")
                        yield Button(_("Change my order"), id="change-order")
            with Vertical(id="checkout-right"):
                yield TotalsPanel(id="totals")
                yield Button(
                    _("Continue to payment (F2)"),
                    id="continue",
                    variant="success",
                    classes="main-action",
                )

    def on_mount(self) -> None:
        self.query_one("#problems").display = False
        state = self.kiosk.visit.state
        self.query_one("#name", Input).value = state.customer_name
        self.query_one("#email", Input).value = state.email_address
        self.query_one("#name", Input).focus()

    def _error(self, field: str, message: str | None) -> None:
        self.query_one(f"#e-{field}", FieldError).show(message)
        self.query_one(f"#{field}", Input).set_class(bool(message), "-invalid")

    def _focus_field(self, field: str) -> None:
        self.refocus(self.query_one(f"#{field}", Input))

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
            self.action_back()

    def action_back(self) -> None:
        self.kiosk.navigate(Wants(Step.ORDER))

    def action_continue(self) -> None:
        name = " ".join(self.query_one("#name", Input).value.split())
        email = self.query_one("#email", Input).value.strip()
        name_error = check_name(name)
        email_error = check_email(email, required=self.email_required)
        self._error("name", name_error)
        self._error("email", email_error)
        if name_error or email_error:
            self._focus_field("name" if name_error else "email")
            return
        visit = self.kiosk.visit
        visit.remember_customer(name, email)
        cart = self.kiosk.cart
        if cart is not None and cart.is_locked and not cart.is_completed:
            # Already handed to payment (a retry after a lost reply): go on to the payment.
            self.kiosk.navigate(Wants(Step.PAYMENT))
            return
        self.query_one("#problems").display = False

        async def checkout() -> CheckoutResult:
            return await visit.checkout(name, email)

        def failed(failure: Failure) -> bool:
            if visit.state.order.phase is Phase.EXPIRED:
                # The order says so, once, with its one way on (start again).
                self.action_back()
                return True
            field = SERVER_FIELDS.get(failure.field or "")
            if field:
                self._error(field, failure.message)
                self._focus_field(field)
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
            self.kiosk.navigate(Wants(Step.PAYMENT))
            return
        cart = self.kiosk.cart
        names = {i.id: clean(i.name, 60) for i in cart.items} if cart else {}
        lines = Text(_("Your order can't be paid for yet:") + "\n", style=tone(self.app, "warn"))
        # Which lines can no longer be ordered: one reading for both dialects (v1's validation
        # names them; 2.0's refused hand-off or the cart's own marking), marked line by line.
        self.unavailable = [i for i in result.unavailable if i in names]
        told = set()
        for issue in result.validation.errors:
            item = names.get(issue.item_id or "")
            said = clean(issue.message, 160) or clean(issue.code, 40)
            if item is not None:
                told.add(issue.item_id)
            # Name the line unless the server's sentence already does.
            what = f"{item}: " if item and item not in said else ""
            lines.append(f" • {what}{said}\n")
        for item_id in self.unavailable:
            if item_id not in told:
                lines.append(f" • {names[item_id]}: {_('Sold out')}\n")
        if not result.validation.errors and not self.unavailable:
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
