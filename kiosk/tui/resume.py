"""Crash resume: at start, the cart a previous run left open is taken up again.

The Visit keeps the open cart's id in the resume file (app.resume_file: written when a cart starts,
removed when it completes, expires or is discarded). At start, after the first screen shows,
Visit.resume_saved() decides and this module shows the outcome:
- an OPEN cart is resumed (create-or-resume with `currentCartId`, CartStore.resume) and the kiosk
  goes to the menu with it, saying "We kept your order";
- an order that was handed to payment (the resume file keeps its lifecycle phase, the hand-off's
  URL and expiry: kiosk.ordering.lifecycle) comes back to the payment screen of the same cart with
  the same code, and the payment is asked at once: paid meanwhile shows the number at once (the
  done screen), declined shows the decline; a LOCKED legacy cart without a phase (an older file)
  goes to the payment screen too, which takes up the same payment intent;
- a COMPLETED, EXPIRED, deleted or foreign cart is forgotten (CartStore.resume removes the file)
  and the kiosk starts clean; so is an open cart with no lines (nothing to come back for);
- an open cart whose way to order the location no longer offers stays, lines and all: the app
  shows the welcome (it follows VisitState.way_refused), which says why, and the way the
  customer chooses there switches the same cart;
- the saved location may be an id or a slug: the cart is found by either;
- when the server cannot be reached, the file is kept for the next start and the kiosk starts
  clean now (a new order then replaces the file).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from kiosk.tui.flow import Step, Wants

if TYPE_CHECKING:
    from kiosk.tui.contract import Kiosk

KEPT_MESSAGE = "Welcome back: we kept your order."
KEPT_PAYING_MESSAGE = "Welcome back: we kept your order. It is waiting for payment."


async def resume_saved_cart(app: Kiosk) -> str:
    """Resume the saved cart if there is one (Visit.resume_saved) and show it through the router,
    as a live order of the same phase is shown: paid on the done screen, handed to payment on
    the payment (the menu, the order and the checkout under it, so that Escape there goes back
    to the order as it does live), open on the menu. Returns what happened: "none", "menu",
    "payment", "welcome", "done", "gone" or "failed" (for tests and the log)."""
    outcome = await app.visit.resume_saved()
    if outcome.kind in ("none", "gone", "failed"):
        return outcome.kind
    if outcome.kind == "way_gone":
        return "welcome"  # the router follows the refusal there (kiosk.tui.router.follow)
    if outcome.kind == "paid":
        await app.navigate(Wants(Step.DONE, cart=outcome.cart))
        return "done"
    if outcome.kind in ("locked", "declined"):
        # The payment screen says the decline itself.
        said = None if outcome.kind == "declined" else KEPT_PAYING_MESSAGE
        await app.navigate(Wants(Step.PAYMENT, said=said, kind="ok"))
        return "payment"
    await app.navigate(Wants(Step.MENU, said=KEPT_MESSAGE, kind="ok"))
    return "menu"
