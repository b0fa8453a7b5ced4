"""The ways off the payment screen (kiosk.tui.screens.payment): back to the order, cancel with one
last look, a paid order to the done screen, and the yes/no question before the first two. A base
class of PaymentScreen, which keeps what is shown while the customer pays; split from it by job
(issue 32)."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import TYPE_CHECKING

from kiosk.i18n import _
from kiosk.ordering.lifecycle import Phase
from kiosk.tui.errors import Failure
from kiosk.tui.flow import Step, Wants
from kiosk.tui.screens.base import KioskScreen
from kiosk.tui.text import clean

if TYPE_CHECKING:
    from kiosk.api import Cart


class PaymentExits(KioskScreen):
    """Leaving the payment. The payment screen sets these and draws the rest."""

    # The payment ended here (paid, cancelled, back to the order, gone): nothing more is asked.
    finished: bool
    # The cart expired or was deleted: only a new order is offered.
    gone: bool
    # Set to stop waiting for the payment (kiosk.ordering Visit.wait_for_payment).
    cancelled: asyncio.Event

    def wait(self) -> None:
        """Wait for the payment again (after a way off that could not be taken)."""
        raise NotImplementedError

    def _note(self, text: str = "", *, kind: str = "") -> None:
        raise NotImplementedError

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
        if self.kiosk.visit.state.abilities.intent_locks_cart:
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

    def _close_dialogs(self) -> None:
        from kiosk.tui.widgets.dialogs import ConfirmDialog

        while isinstance(self.app.screen, ConfirmDialog):
            self.app.pop_screen()
