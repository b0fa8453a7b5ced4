"""The payment wait on a 2.0 server we did not write: the kiosk polls the documented
`order-result` (contract section 7), not the cart, and learns the order number from it.

The strict server places the order only as order-result is polled (payment_pending, then
order_pending, then completed) and never changes a cart's status when the hosted page takes the
money; a kiosk that polled the cart would wait until the payment timed out."""

from __future__ import annotations

from collections import Counter
from datetime import UTC, datetime
from decimal import Decimal
from pathlib import Path
from typing import Any

import httpx

from kiosk.config import Settings
from kiosk.ordering.payment import PaymentOutcome
from kiosk.ordering.visit import Visit
from kiosk.runtime import build_remote_services
from tests.conformance.vendor_server import make_vendor_app
from tests.support.ordering_rig import START, FakeClock

LOCATION_ID = "66a1f0c2b3d4e5f60718293a"


class Counting(httpx.AsyncBaseTransport):
    def __init__(self, inner: httpx.AsyncBaseTransport) -> None:
        self.inner = inner
        self.sent: list[str] = []

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        self.sent.append(f"{request.method} {request.url.path.rsplit('/', 1)[-1]}")
        return await self.inner.handle_async_request(request)


async def _paid_wait(
    tmp_path: Path, page_tip: Decimal | None = None
) -> tuple[Any, Any, Counting, str]:
    """A takeout order paid 25 s into the wait (with `page_tip` added on the payment page):
    (the wait's result, the server, the requests sent during the wait, the cart id)."""
    clock = FakeClock(START)
    app = make_vendor_app(clock=lambda: datetime.fromtimestamp(clock.now, UTC))
    counting = Counting(httpx.ASGITransport(app=app))
    settings = Settings(
        profile="production",
        api_dialect="v2",
        base_url="http://127.0.0.1/api/v1/storefront",
        location=LOCATION_ID,
    )
    services = build_remote_services(
        settings, client_options={"clock": clock, "sleep": clock.sleep}, transport=counting
    )
    visit = Visit(
        services.client_for,
        services.location_ids,
        cart_id_file=tmp_path / "open-cart.json",
        wall_clock=clock,
        store_options={"sleep": clock.sleep},
    )
    try:
        visit.choose_location(LOCATION_ID)
        await visit.start("pickup")
        await visit.add_item("prod_gyoza", 2)
        result = await visit.checkout("Test order", "test@example.com")
        assert result.intent is not None and result.intent.checkout_url
        # The payment screen starts on the hand-off the checkout opened: no second one.
        assert (await visit.begin_payment()).checkout_url == result.intent.checkout_url
        cart = visit.cart
        assert cart is not None
        clock.call_later(25, _pay(app, cart.id, page_tip))
        counting.sent.clear()
        waited = await visit.wait_for_payment(timeout=120)
    finally:
        await services.aclose()
    return waited, app, counting, cart.id


async def test_the_wait_polls_order_result_and_keeps_the_cart_the_order_agrees_with(
    tmp_path: Path,
) -> None:
    waited, app, counting, cart_id = await _paid_wait(tmp_path)
    assert waited.outcome is PaymentOutcome.COMPLETED
    # The cart names where the order is handed over (the vendor's example: "counter").
    assert waited.cart is not None and waited.cart.fulfillment_identifier == "counter"
    # Polls until the server says completed; the order's total and quantities are the cart's,
    # so the cart held is the receipt: not read again.
    order = app.state.store.carts[cart_id].order
    assert waited.cart.amount_due == 1342 and order["pricing"]["total"] == "13.42"
    assert set(counting.sent) == {"GET order-result"} and len(counting.sent) >= 2
    assert app.state.violations == [] and app.state.answer_errors == []


async def test_an_order_paid_with_a_tip_added_on_the_page_is_read_again_for_the_receipt(
    tmp_path: Path,
) -> None:
    waited, app, counting, cart_id = await _paid_wait(tmp_path, page_tip=Decimal("2.00"))
    assert waited.outcome is PaymentOutcome.COMPLETED
    # The order's total is not the cart held: the cart is read once, after the polls.
    sent = Counter(counting.sent)
    assert sent["GET order-result"] >= 2 and sent[f"GET {cart_id}"] == 1, counting.sent
    assert counting.sent[-1] == f"GET {cart_id}"
    assert waited.cart is not None and waited.cart.waiter_tip_total == 200
    assert waited.cart.amount_due == 1342 + 200
    assert app.state.violations == [] and app.state.answer_errors == []


async def test_the_number_is_the_order_results_short_id(tmp_path: Path) -> None:
    waited, app, _, cart_id = await _paid_wait(tmp_path)
    order = app.state.store.carts[cart_id].order
    assert order is not None and order["shortId"] == "H101"
    assert waited.order_number == "H101"


def _pay(app: object, cart_id: str, page_tip: Decimal | None = None):  # type: ignore[no-untyped-def]
    async def pay() -> None:
        store = app.state.store  # type: ignore[attr-defined]
        if page_tip is not None:  # the customer added a tip on the hosted page
            store.carts[cart_id].tip_amount = page_tip
        store.pay(cart_id)

    return pay
