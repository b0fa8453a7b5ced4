"""7. Payment: the payment hand-off, its checkoutUrl as a QR code with the short URL beneath, a
countdown, "I have paid" (polls at once), and what the server decides: the order's number (the done
screen), or a declined payment with its three ways on (pay again with a fresh code, pay at the
counter, back to the order). The screen renders the order's lifecycle (VisitState.order); it never
infers an outcome. In the demo, keys to approve or decline. Where the merchant takes payment at the
counter (`pay_at_counter`), the customer may choose that instead (C): the QR code gives way to a
code to say at the counter (kiosk.ordering.payment).

One message at a time (issue 33): the headline is the payment's state (waiting, declined in the
error colour, the time run out, the service out of reach and whether a payment may still land, the
order gone), with at most one note beneath it; no bottom toast speaks over a money moment. The
focus starts on what the customer may need (the counter, or back to the order; after a decline,
paying again), never on "I have paid", which after one look says "not received yet" while the
server has no payment.

The clientSecret never reaches the screen: only the checkoutUrl is drawn (contract, payment hand-
off).
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.widgets import Button, Static

from kiosk.i18n import N_, _
from kiosk.ordering.lifecycle import Phase
from kiosk.ordering.payment import counter_code, offers_counter
from kiosk.tui.cartview import pay_total
from kiosk.tui.errors import Failure, describe
from kiosk.tui.flow import Step, Wants
from kiosk.tui.palette import tone
from kiosk.tui.screens.base import KioskScreen
from kiosk.tui.text import clean
from kiosk.tui.widgets.chrome import speak
from kiosk.tui.widgets.order_number import OrderNumber
from kiosk.tui.widgets.qr import QRCode

if TYPE_CHECKING:
    from kiosk.api import Cart, PaymentIntent
    from kiosk.ordering.payment import PaymentResult, PaymentTick

APPROVE_CARD = "4242 4242 4242 4242"
DECLINE_CARD = "4000 0000 0000 0002"


def short_url(url: str) -> str:
    """The URL without its scheme, for reading aloud or typing on a phone."""
    text = clean(url, 200)
    for scheme in ("https://", "http://"):
        if text.startswith(scheme):
            return text[len(scheme) :]
    return text


def countdown(seconds: int) -> str:
    minutes, secs = divmod(max(seconds, 0), 60)
    return f"{minutes}:{secs:02d}"


class PaymentScreen(KioskScreen):
    TITLE = N_("Payment")
    IDLE_RESET = False
    BINDINGS = [
        Binding("f2", "paid", N_("I have paid")),
        Binding("escape", "back", N_("Back to my order")),
        # "Start over" here is a cancel, with the same question and the same last look.
        Binding("f9", "cancel", N_("Cancel payment"), show=False),
        Binding("r,f5", "retry", N_("Retry"), show=False),
        # Only where the merchant takes payment at the counter (check_action).
        Binding("c", "counter", N_("Pay at the counter / by phone")),
        # Demo only (check_action hides them otherwise): the demo processor's two test cards.
        Binding("a", "demo('approve')", N_("Demo: approve")),
        Binding("d", "demo('decline')", N_("Demo: decline")),
    ]

    def __init__(self) -> None:
        super().__init__()
        self.intent: PaymentIntent | None = None
        self.seconds_left: int | None = None
        self.handoff_left: int | None = None
        self.poll_now = asyncio.Event()
        self.cancelled = asyncio.Event()
        self.finished = False
        # The customer chose to pay at the counter (C): a code to say there instead of the QR.
        self.at_counter = False
        # The declined panel is up (the order's phase is DECLINED).
        self.declined = False
        # The cart expired or was deleted: the screen offers only a new order.
        self.gone = False
        # The headline last drawn: a new state that went wrong is said once.
        self._said_headline: str | None = None
        # The last look failed (the service out of reach): the headline says so until one works.
        self.unreachable = False
        # "I have paid" pressed: the number of looks by then, so the next one can answer it.
        self.checking_from: int | None = None
        self.polls_seen = 0
        # "Still there?" over the payment, once its time has run out (the session asks).
        self.still_there: Any = None

    def compose_body(self) -> ComposeResult:
        with Horizontal(id="payment-body"):
            with Vertical(id="qr-column"):
                yield Static("", id="qr-holder")
            with Vertical(id="pay-info"):
                yield Static("", id="pay-title")
                yield Static("", id="pay-note")
                yield Static("", id="pay-amount")
                yield Static("", id="pay-steps")
                yield Static("", id="pay-countdown")
                yield Static("", id="pay-demo")
                yield Button(
                    _("I have paid (F2)"), id="paid", variant="primary", classes="main-action"
                )
                yield Button(
                    _("Pay again with a new code"),
                    id="pay-again",
                    variant="primary",
                    classes="main-action",
                )
                if offers_counter(self.kiosk.settings):
                    yield Button(_("Pay at the counter (C)"), id="counter")
                yield Button(_("Back to my order (Esc)"), id="back")
                yield Button(_("Cancel payment (F9)"), id="cancel", variant="error")
                yield Button(
                    _("Start a new order (F9)"),
                    id="new-order",
                    variant="primary",
                    classes="main-action",
                )
        yield Static("", id="pay-url")

    def on_mount(self) -> None:
        order = self.kiosk.visit.state.order
        # The older `payment_mode = "counter"`: the counter is chosen from the start; a restart
        # comes back to the customer's own choice.
        self.at_counter = self.kiosk.settings.payment_mode == "counter" or order.at_counter
        self.query_one("#pay-again").display = False
        self.query_one("#new-order").display = False
        self._show_demo_hint()
        self.watch(self.app, "cart", self._show_cart)
        self.watch(self.app, "visit_state", self._follow_order)
        self._focus_first()
        self.begin()

    def _follow_order(self, state: Any) -> None:
        """The screen renders the order's phase: a decline shows its panel; a new hand-off (pay
        again) takes it away."""
        if state is None:
            return
        phase = state.order.phase
        if phase is Phase.DECLINED and not self.declined:
            self._show_declined(state.order.failure_code)
        elif phase is Phase.AWAITING_PAYMENT and self.declined:
            self._hide_declined()

    # One message at a time --------------------------------------------------------------------
    def _headline(self, text: str, *, kind: str = "") -> None:
        """The payment's state, in the error colour when it went wrong (said when it changes,
        where speech is on)."""
        style = f"bold {tone(self.app, 'error')}" if kind == "error" else "bold"
        title = self.query_one("#pay-title", Static)
        changed = self._said_headline != text
        self._said_headline = text
        title.update(Text(text, style=style))
        if changed and kind == "error":  # the waiting title is said with the screen itself
            speak(title, text, kind)

    def _note(self, text: str = "", *, kind: str = "") -> None:
        """At most one line beneath the headline (what just happened); empty clears it. Said
        where speech is on, as a banner's message is."""
        style = tone(self.app, kind) if kind else ""
        note = self.query_one("#pay-note", Static)
        note.update(Text(text, style=style))
        if text:
            speak(note, text, kind or "info")

    def _focus_first(self) -> None:
        """What a customer waiting to pay may need: the counter where it is offered, else the way
        back to the order (it asks first); never "I have paid", which a stray Enter would press."""
        for selector in ("#counter", "#back"):
            found = self.query(selector)
            if found and found.first().display:
                found.first().focus()
                return

    def _show_declined(self, code: str | None) -> None:
        self.declined = True
        self.unreachable = False
        self._headline(_("Your payment did not go through"), kind="error")
        self._note()
        # The declined code goes: the choices below are the ways on, one of them a new code.
        # (A payment that still lands on the old page is watched and shows the number.)
        self.query("#qr").remove()
        self.query("#counter-code").remove()
        self.query_one("#qr-holder", Static).update("")
        self.query_one("#pay-url", Static).update("")
        self.query_one("#pay-steps", Static).update(
            Text(
                _(
                    "Nothing was charged for this attempt. You can pay again with a new code, "
                    "pay at the counter, or go back to your order."
                )
                if offers_counter(self.kiosk.settings)
                else _(
                    "Nothing was charged for this attempt. You can pay again with a new code, "
                    "or go back to your order."
                )
            )
        )
        self.query_one("#paid").display = False
        again = self.query_one("#pay-again", Button)
        again.display = True
        again.focus()

    def _hide_declined(self) -> None:
        self.declined = False
        self.query_one("#pay-again").display = False
        self.query_one("#paid", Button).display = True
        self._note()
        self._focus_first()
        self._show_cart(self.kiosk.cart)

    def _phone_can_pay(self, cart: Cart | None) -> bool:
        """False in a demo whose checkout page no phone can open (no `kiosk demo --lan`)."""
        if not self.kiosk.services.demo:
            return True
        url = cart.checkout_url if cart is not None else None
        controls = self.kiosk.services.demo_controls
        return controls is not None and controls.phone_can_open(url)

    def _show_demo_hint(self) -> None:
        if not self.kiosk.services.demo:
            return
        # One short line, quieter than the amount: the test cards and `kiosk demo --lan` are for
        # staff and developers (the staff screen and docs/demos.md say them).
        if not self.at_counter and not self._phone_can_pay(self.kiosk.cart):
            words = _("Demo: D declines")  # the headline already says "press A to pay"
        else:
            words = _("Demo: A pays, D declines")
        hint = Text(words, style=tone(self.app, "muted"))
        self.query_one("#pay-demo", Static).update(hint)

    # Starting -------------------------------------------------------------------------------------
    def begin(self) -> None:
        visit = self.kiosk.visit

        async def intent() -> PaymentIntent:
            return await visit.begin_payment()

        def ready(intent: PaymentIntent) -> None:
            self.intent = intent
            self._show_qr(self.kiosk.cart)
            self.wait()

        self.call(intent, group="payment", done=ready, busy=self.query_one("#payment-body"))

    def _show_cart(self, cart: Cart | None) -> None:
        if cart is None:
            return
        if self.declined:
            return
        counter = self.at_counter
        if self.unreachable:
            pass  # the headline says the service is out of reach until a look works
        elif counter:
            self._headline(_("Please pay at the counter"))
        elif self._phone_can_pay(cart):
            self._headline(_("Scan to pay"))
        else:
            self._headline(_("Demo: press A to pay"))
        amount = Text(_("Total") + " ", style=tone(self.app, "muted"))
        amount.append(clean(pay_total(cart), 20), style="bold")
        self.query_one("#pay-amount", Static).update(amount)
        if counter:
            steps = _(
                "1. Go to the counter and say the code\n"
                "2. Staff take your payment there\n"
                "3. Your order number appears here"
            )
        elif self._phone_can_pay(cart):
            steps = _(
                "1. Scan the code with your phone's camera\n"
                "2. Pay on your phone\n"
                "3. Your order number appears here"
            )
        else:
            # The title says "press A to pay": said once (issue 20: it was said four times).
            steps = _(
                "This demo's payment page opens on this machine only, not on a phone. "
                "Your order number appears here."
            )
        self.query_one("#pay-steps", Static).update(Text(steps))
        if self.query("#counter"):
            label = _("Pay by phone instead (C)") if counter else _("Pay at the counter (C)")
            self.query_one("#counter", Button).label = label
        self._show_demo_hint()
        if self.intent is not None:
            self._show_qr(cart)

    def _show_qr(self, cart: Cart | None) -> None:
        url = cart.checkout_url if cart is not None else None
        holder = self.query_one("#qr-holder", Static)
        if self.at_counter and cart is not None:
            self._show_counter_code(cart)
            return
        self.query("#counter-code").remove()
        if not url:
            holder.update(
                Text(_("Please ask a member of staff\nto take your payment."), style="bold")
            )
            self.query_one("#pay-url", Static).update("")
            return
        existing = self.query("#qr")
        if existing:
            existing.first(QRCode).show(url)
        else:
            holder.display = False
            self.query_one("#qr-column", Vertical).mount(QRCode(url, id="qr"), before=0)
        to_type = self._phone_can_pay(cart)
        if to_type:
            link = Text(_("Or visit") + " ", style=tone(self.app, "muted"))
            link.append(short_url(url), style="bold")
        else:
            # The demo's page is on this machine only: no address a customer could type.
            link = Text("")
        pay_url = self.query_one("#pay-url", Static)
        # An address to type is shown whole: wrapped, a long one folded (styles/payment.tcss).
        pay_url.set_class(to_type, "-to-type")
        pay_url.update(link)

    def _show_counter_code(self, cart: Cart) -> None:
        """Pay at the counter: the code to say there, large, where the QR code was."""
        self.query("#qr").remove()
        code = counter_code(cart)
        existing = self.query("#counter-code")
        if existing and existing.first(OrderNumber).number == code:
            return
        existing.remove()
        holder = self.query_one("#qr-holder", Static)
        holder.update(Text(_("Say this code at the counter:"), style="bold"))
        holder.display = True
        self.query_one("#qr-column", Vertical).mount(
            OrderNumber(code, large=True, id="counter-code"), after=holder
        )
        # The large digits can be read two ways (B or 8): the code in plain letters too.
        plain = Text(_("Your code:") + " ", style=tone(self.app, "muted"))
        plain.append(" ".join(code), style="bold")
        self.query_one("#pay-url", Static).update(plain)

    # Waiting --------------------------------------------------------------------------------------
    def wait(self) -> None:
        visit = self.kiosk.visit
        timeout = float(self.kiosk.settings.payment_timeout)
        self.cancelled.clear()

        async def waiting() -> PaymentResult:
            return await visit.wait_for_payment(
                timeout=timeout,
                on_tick=self._tick,
                cancel=self.cancelled,
                poll_now=self.poll_now,
                every=float(self.kiosk.settings.payment_poll),
                # When the time to pay runs out: "Still there?" for as long as idle asks it.
                ask_for=float(self.kiosk.settings.idle_countdown),
            )

        self.seconds_left = int(timeout)
        self._show_countdown()
        self.call(waiting, group="payment-wait", done=self._waited, exclusive=True)

    def _tick(self, tick: PaymentTick) -> None:
        if self.finished:
            return
        self.polls_seen = tick.polls
        self.seconds_left = tick.seconds_left
        self.handoff_left = tick.handoff_seconds_left
        self._show_countdown()
        self._ask_still_there(tick.asking_left)
        if self.declined:
            return
        if tick.error is not None:
            if not self.unreachable:
                self.unreachable = True
                self._headline(describe(tick.error).message, kind="error")
                self._note(_("Still checking for your payment: no need to pay again."))
            return
        if self.unreachable:
            self.unreachable = False
            self._note()
            self._show_cart(self.kiosk.cart)
        if self.checking_from is not None and tick.polls > self.checking_from:
            self.checking_from = None
            self._note(
                _("Not received yet. If you have just paid, it can take a moment."), kind="warn"
            )

    def _show_countdown(self) -> None:
        if self.seconds_left is None:
            return
        text = Text(_("Time left to pay") + " ", style=tone(self.app, "muted"))
        text.append(countdown(self.seconds_left), style="bold")
        handoff = self.handoff_left
        if handoff is not None and handoff < self.seconds_left:
            # The checkout page's link runs out first (2.0 hand-off): it is renewed by itself.
            text.append("\n" + _("This code works for") + " ", style=tone(self.app, "muted"))
            text.append(countdown(handoff))
            text.append(_("; a new one appears by itself."), style=tone(self.app, "muted"))
        self.query_one("#pay-countdown", Static).update(text)

    def _ask_still_there(self, seconds: int | None) -> None:
        """The time to pay ran out: "Still there?" over the payment, counted down by the
        payment session (its clock); any key or touch answers it and the wait goes on."""
        from kiosk.tui.screens.idle import StillThereDialog

        prompt = self.still_there
        if seconds is None:
            if prompt is not None and prompt.is_attached and self.app.screen is prompt:
                prompt.dismiss(True)
            self.still_there = None
            return
        if prompt is not None:
            prompt.show_seconds(seconds)
            return
        prompt = StillThereDialog(seconds)
        self.still_there = prompt

        def answered(_keep: bool | None) -> None:
            if self.still_there is prompt:
                self.still_there = None
                self.kiosk.visit.keep_paying()

        self.app.push_screen(prompt, answered)

    def _waited(self, result: PaymentResult) -> None:
        from kiosk.ordering.payment import PaymentOutcome

        self._ask_still_there(None)
        if result.outcome is PaymentOutcome.COMPLETED:
            self._completed(result.cart)
        elif result.outcome is PaymentOutcome.CANCELLED:
            return
        elif result.outcome is PaymentOutcome.TIMED_OUT:
            self.seconds_left = 0
            self._show_countdown()
            self._headline(_("The time to pay has run out."), kind="error")
            self._note(_("Press R to keep waiting, or Esc to cancel and start over."))
            self._retry = self.wait
        elif result.outcome is PaymentOutcome.ABANDONED:
            # Nobody answered and the last look found no payment: the next person must not
            # find this code. The visit ends as an idle reset does (a terminal that no longer
            # answers is left instead, keeping the order for the session that takes it over).
            self.finished = True
            self._close_dialogs()
            self.kiosk.idle.walked_away()
        elif result.outcome is PaymentOutcome.GONE:
            self._show_gone()

    def _show_gone(self) -> None:
        """The cart expired or was deleted: nothing on this screen can be paid any more. The
        code, its countdown and "I have paid" go at once; one way forward is left."""
        self.finished = True
        self.gone = True
        self.refresh_bindings()
        self._close_dialogs()
        self.query("#qr").remove()
        self.query("#counter-code").remove()
        holder = self.query_one("#qr-holder", Static)
        holder.update("")
        holder.display = True
        for selector in ("#pay-countdown", "#pay-url", "#pay-steps", "#pay-demo"):
            self.query_one(selector, Static).update("")
        for button in self.query(Button):
            button.display = button.id == "new-order"
        self._headline(_("This order is no longer available."), kind="error")
        self._note()
        new_order = self.query_one("#new-order", Button)
        new_order.display = True
        new_order.focus()
        self.banner.clear()

    def _close_dialogs(self) -> None:
        from kiosk.tui.widgets.dialogs import ConfirmDialog

        while isinstance(self.app.screen, ConfirmDialog):
            self.app.pop_screen()

    # Keys -----------------------------------------------------------------------------------------
    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if self.gone:
            # Nothing here can be paid any more: only a new order (F9).
            return action == "cancel"
        if action == "demo":
            return self.kiosk.services.demo
        if action == "counter":
            return offers_counter(self.kiosk.settings)
        if action == "paid":
            return not self.declined
        return True

    def action_paid(self) -> None:
        """ "I have paid": look at the payment now instead of at the next poll."""
        if self.finished or self.declined:
            return
        self.poll_now.set()
        self.checking_from = self.polls_seen
        self._note(_("Checking your payment…"))

    def action_pay_again(self) -> None:
        """After a decline: a fresh hand-off (a new code) for the same order."""
        if self.finished:
            return
        visit = self.kiosk.visit

        async def again() -> PaymentIntent:
            return await visit.pay_again()

        def ready(intent: PaymentIntent) -> None:
            self.intent = intent
            self.at_counter = False
            visit.choose_counter(False)
            self._hide_declined()
            self._show_qr(self.kiosk.cart)
            self._note(_("Here is a new code. Scan it to pay."), kind="ok")

        self.call(again, group="payment-again", done=ready, busy=self.query_one("#pay-info"))

    def action_counter(self) -> None:
        """Pay at the counter, or back to the QR code: the same hand-off either way (staff open
        the checkout page on their device), so nothing is sent; the wait goes on."""
        if self.finished or not offers_counter(self.kiosk.settings):
            return
        self.at_counter = not self.at_counter
        self.kiosk.visit.choose_counter(self.at_counter)
        if self.declined and self.at_counter:
            self._hide_declined()
        self._note()
        self._show_cart(self.kiosk.cart)

    def action_demo(self, what: str) -> None:
        visit = self.kiosk.visit
        if self.intent is None or self.finished:
            return
        card = APPROVE_CARD if what == "approve" else DECLINE_CARD

        async def confirm() -> None:
            await visit.confirm_demo_payment(card)

        def confirmed(_result: Any) -> None:
            self._note(_("Payment approved. Checking your order…"), kind="ok")
            self.poll_now.set()

        def declined(failure: Failure) -> bool:
            self.poll_now.set()  # the server's word on it (2.0: order-result "failed")
            if not self.declined:
                # The processor's own word (the legacy API has no failed result to poll): the
                # same code may pay with another card.
                self._headline(_("Your payment did not go through"), kind="error")
                self._note(failure.message)
            return True

        self.call(
            confirm,
            group="payment-demo",
            done=confirmed,
            failed=declined,
            busy=self.query_one("#pay-info"),
        )

    def on_button_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        if event.button.id == "cancel":
            self.action_cancel()
        elif event.button.id == "counter":
            self.action_counter()
        elif event.button.id == "paid":
            self.action_paid()
        elif event.button.id == "pay-again":
            self.action_pay_again()
        elif event.button.id == "back":
            self.action_back()
        elif event.button.id == "new-order":
            self.action_cancel()

    def _ask(self, question: str, detail: str, yes: str, then: Callable[[], None]) -> None:
        """A yes/no question over the payment ("Keep paying" is always the safe answer); `then`
        runs on yes, unless the payment finished meanwhile."""
        if self.finished:
            return
        from kiosk.tui.widgets.dialogs import ConfirmDialog

        def answered(agreed: bool | None) -> None:
            if agreed and not self.finished:
                then()

        self.app.push_screen(
            ConfirmDialog(question, detail=detail, yes=yes, no=_("Keep paying")), answered
        )

    def action_back(self) -> None:
        """Escape: back to the cart with the order intact (asked first). What happens to the code
        is what the API does: a 2.0 hand-off stays payable until it expires (the kiosk keeps
        watching it), a legacy payment intent locks the cart, which is made again in a new one
        (the old code then stops working). Cancel (the button, F9) throws the order away."""
        if self.kiosk.visit.client.intent_changes_cart:
            detail = _("This payment code stops working; your order stays as it is.")
        else:
            detail = _(
                "Your order stays as it is. If you pay with this code meanwhile, "
                "your order number appears here."
            )
        self._ask(_("Go back to your order?"), detail, _("Back to my order"), self.back_to_order)

    def back_to_order(self) -> None:
        from kiosk.ordering.visit import ReopenResult

        visit = self.kiosk.visit
        self.cancelled.set()

        async def reopen() -> ReopenResult:
            return await visit.reopen_order()

        def reopened(result: ReopenResult) -> None:
            if result.paid:
                self._completed(result.completed)  # paid a moment ago: the order is theirs
                return
            self.finished = True
            if result.dropped:
                said = (
                    _("Your order is back. Not available again:")
                    + " "
                    + ", ".join(clean(d, 40) for d in result.dropped)
                )
            else:
                said = _("Your order is back, as it was.")
            # The order, with this message (the router puts the menu under it).
            self.kiosk.navigate(Wants(Step.ORDER, said=said))

        def failed(failure: Failure) -> bool:
            # Not sure where the order stands: keep waiting for the payment, and say so.
            self.cancelled.clear()
            self.wait()
            self._note(
                failure.message + " " + _("Still on the payment: please try again, or ask staff."),
                kind="error",
            )
            return True

        self.call(reopen, group="payment-cancel", done=reopened, failed=failed)

    def cancel_now(self) -> None:
        """Decided: a locked cart cannot be edited again, so cancelling discards it and the kiosk
        starts over. One last look first: a customer who paid a moment ago gets their order."""
        visit = self.kiosk.visit
        self.cancelled.set()
        if not visit.state.has_order:
            self.kiosk.reset_now()
            return

        async def last_look() -> Phase:
            return await visit.check_payment()

        def looked(phase: Phase) -> None:
            if phase is Phase.PAID:
                self._completed(self.kiosk.cart)
            else:
                self.kiosk.reset_now()

        def unreachable(failure: Failure) -> bool:
            # Cannot tell: keep the order (its payment may be on its way) and say so.
            self.cancelled.clear()
            self.wait()
            self._note(
                failure.message + " " + _("Not cancelled: please try again, or ask staff."),
                kind="error",
            )
            return True

        self.call(last_look, group="payment-cancel", done=looked, failed=unreachable)

    def _completed(self, cart: Cart | None) -> None:
        if self.finished:
            return
        self.finished = True
        self.cancelled.set()
        self._close_dialogs()
        self.kiosk.navigate(Wants(Step.DONE, cart=cart))

    def action_cancel(self) -> None:
        if self.gone:
            self.kiosk.reset_now()
            return
        self._ask(
            _("Cancel the payment?"),
            _("Your order will be cleared and the kiosk starts over."),
            _("Cancel payment"),
            self.cancel_now,
        )
