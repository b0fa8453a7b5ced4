"""Crash resume: at start, the cart a previous run left open is taken up again.

The CartStore keeps the open cart's id in `services.state_dir / CART_ID_FILE` (written when a cart
starts, removed when it completes, expires or is discarded). At start, after the first screen shows:
- an OPEN cart is resumed (create-or-resume with `currentCartId`, CartStore.resume) and the kiosk
  goes to the menu with it, saying "We kept your order";
- a LOCKED cart (the crash came mid-payment) goes to the payment screen, which takes up the same
  payment intent (the demo answers a second payment-intent request on a locked cart with the
  existing intent: assumption A for the real API) and polls;
- a COMPLETED, EXPIRED, deleted or foreign cart is forgotten (CartStore.resume removes the file)
  and the kiosk starts clean;
- when the server cannot be reached, the file is kept for the next start and the kiosk starts
  clean now (a new order then replaces the file).
"""

from __future__ import annotations

import contextlib
import logging
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from kiosk.tui.app import KioskApp

log = logging.getLogger("kiosk.tui")

KEPT_MESSAGE = "Welcome back: we kept your order."
KEPT_PAYING_MESSAGE = "Welcome back: we kept your order. It is waiting for payment."


async def resume_saved_cart(app: KioskApp) -> str:
    """Resume the saved cart if there is one. Returns what happened: "none", "menu", "payment",
    "gone" or "failed" (for tests and the log)."""
    from kiosk.api.errors import StorefrontError
    from kiosk.ordering.cart_store import load_saved_cart

    path = app.cart_id_file()
    saved = load_saved_cart(path)
    if saved is None or path is None:
        return "none"
    services = app.services
    if saved.location_id not in services.location_ids:
        # The kiosk now serves other locations: that cart is not for this kiosk any more.
        log.info("crash resume: the saved cart is for another location; forgotten")
        with contextlib.suppress(OSError):
            path.unlink()
        return "gone"
    any_app: Any = app
    session = app.session
    store = session.choose_location(saved.location_id)
    try:
        cart = await store.resume(saved.cart_id, saved.location_id)
    except StorefrontError:
        log.warning("crash resume: the server could not be asked; kept for the next start")
        if not app.single_location:
            session.clear()
        return "failed"
    if cart is None:
        log.info("crash resume: the saved cart is no longer open; starting clean")
        if not app.single_location:
            session.clear()
        return "gone"
    location = app.location
    if location is None or saved.location_id not in (location.id, location.restaurant_slug):
        try:
            location = await services.client_for(saved.location_id).get_location(saved.location_id)
        except StorefrontError:
            location = None
    app.choose_location(saved.location_id, location)
    from kiosk.tui.labels import method_key

    method = method_key(cart.fulfilment_method)
    if method:
        session.fulfillment_method = method
    log.info("crash resume: cart resumed (%s)", "locked" if cart.is_locked else "open")
    if cart.is_locked:
        from kiosk.tui.screens.payment import PaymentScreen

        screen: Any = PaymentScreen()
        message = KEPT_PAYING_MESSAGE
        outcome = "payment"
    else:
        from kiosk.tui.screens.menu import MenuScreen

        screen = MenuScreen()
        message = KEPT_MESSAGE
        outcome = "menu"
    await any_app.push_screen(screen)
    screen.say(message, kind="ok")
    return outcome
