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

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from kiosk.tui.contract import Kiosk

KEPT_MESSAGE = "Welcome back: we kept your order."
KEPT_PAYING_MESSAGE = "Welcome back: we kept your order. It is waiting for payment."


async def resume_saved_cart(app: Kiosk) -> str:
    """Resume the saved cart if there is one (Visit.resume_saved) and show it. Returns what
    happened: "none", "menu", "payment", "welcome", "gone" or "failed" (for tests and the log)."""
    outcome = await app.visit.resume_saved()
    if outcome.kind in ("none", "gone", "failed"):
        return outcome.kind
    if outcome.kind == "way_gone":
        return "welcome"  # the app follows the refusal there (KioskApp._choose_way_again)
    any_app: Any = app
    if outcome.kind == "paid":
        from kiosk.tui.screens.done import DoneScreen

        number = app.visit.state.order.order_number
        await any_app.push_screen(DoneScreen(outcome.cart, number))
        return "done"
    if outcome.kind in ("locked", "declined"):
        from kiosk.tui.screens.payment import PaymentScreen

        screen: Any = PaymentScreen()
        message = KEPT_PAYING_MESSAGE
        shown = "payment"
    else:
        from kiosk.tui.screens.menu import MenuScreen

        screen = MenuScreen()
        message = KEPT_MESSAGE
        shown = "menu"
    if shown == "payment":
        await any_app.push_screen(screen, lambda back: _order_back(app, back))
    else:
        await any_app.push_screen(screen)
    if outcome.kind != "declined":  # the payment screen says the decline itself
        screen.say(message, kind="ok")
    return shown


def _order_back(app: Kiosk, back: object) -> None:
    """A resumed payment went back to the order (Escape): the menu, and the cart on it."""
    if not isinstance(back, str):
        return
    from kiosk.tui.screens.cart import CartScreen
    from kiosk.tui.screens.menu import MenuScreen

    any_app: Any = app
    any_app.push_screen(MenuScreen())
    cart = CartScreen()
    any_app.push_screen(cart)
    cart.call_after_refresh(cart.say, back, kind="info")
