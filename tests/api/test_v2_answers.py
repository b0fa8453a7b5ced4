"""How the 2.0 dialect reads the answers only 2.0 gives (kiosk.api.v2), each checked on its own:
order-result's variants, the hand-off's expiry, a refusal's details, and the bodies of the writes
2.0 shapes its own way. The demo backend answers everything else; a test replaces one answer.
These close gaps the mutation run (tools/mutate.py, docs/mutation.md) found: a broken rule here
passed every other fast test.
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import AsyncIterator, Callable
from datetime import UTC, datetime
from typing import Any

import httpx
import pytest

from kiosk.api.errors import ConflictError, NotFoundError, ResponseFormatError, StorefrontError
from kiosk.api.models import DeliveryAddress, FulfillmentMethod
from kiosk.api.v2 import StorefrontClientV2
from kiosk.demo import create_app
from kiosk.demo.data import DOWNTOWN
from tests.demo.support import WED_AFTERNOON

BASE = "http://demo/api/v1/storefront"
DT = DOWNTOWN.id
Answer = Callable[[httpx.Request], httpx.Response | None]


class Server(httpx.AsyncBaseTransport):
    """The demo backend, except where `answer` (set by a test) answers first; keeps the requests."""

    def __init__(self) -> None:
        self.inner = httpx.ASGITransport(app=create_app(clock=lambda: WED_AFTERNOON))
        self.sent: list[httpx.Request] = []
        self.answer: Answer = lambda request: None

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        self.sent.append(request)
        replaced = self.answer(request)
        if replaced is not None:
            return replaced
        return await self.inner.handle_async_request(request)

    def bodies(self, suffix: str) -> list[dict[str, Any]]:
        return [
            json.loads(r.content)
            for r in self.sent
            if r.url.path.endswith(suffix) and r.method in ("POST", "PUT", "PATCH", "DELETE")
        ]


@pytest.fixture
async def wired() -> AsyncIterator[tuple[StorefrontClientV2, Server, str]]:
    server = Server()
    client = StorefrontClientV2(BASE, transport=server)
    async with client:
        cart_id = (await client.start_ordering_session(DT, FulfillmentMethod.PICKUP)).cart_id
        yield client, server, cart_id


def _on(suffix: str, status: int, body: Any) -> Answer:
    def answer(request: httpx.Request) -> httpx.Response | None:
        if request.url.path.endswith(suffix):
            return httpx.Response(status, json=body)
        return None

    return answer


async def test_order_result_completed_gives_the_number_total_and_quantity(
    wired: tuple[StorefrontClientV2, Server, str],
) -> None:
    client, server, cart_id = wired
    order = {
        "shortId": " K042 ",
        "pricing": {"total": "12.50"},
        "items": [{"quantity": 2}, {"quantity": 3}],
    }
    server.answer = _on("/order-result", 200, {"state": "completed", "order": order})
    progress = await client.order_progress(DT, cart_id)
    assert progress.completed
    assert progress.order_number == "K042"
    assert (progress.total, progress.quantity) == (1250, 5)
    assert progress.failure_code is None


@pytest.mark.parametrize(
    "order",
    [
        {"shortId": "K1", "pricing": {"total": "1"}, "items": [{"quantity": True}]},
        {"shortId": "K1", "pricing": {"total": "1"}, "items": [{"quantity": "2"}]},
        {"shortId": "K1", "pricing": {"total": "1"}, "items": ["x"]},
        {"shortId": "K1", "pricing": {"total": "lots"}, "items": []},
        {"shortId": "K1", "pricing": "1", "items": []},
        {"shortId": "K1", "pricing": {"total": "1"}},
    ],
)
async def test_a_completed_order_of_unreadable_size_is_read_again_not_guessed(
    wired: tuple[StorefrontClientV2, Server, str], order: dict[str, Any]
) -> None:
    client, server, cart_id = wired
    server.answer = _on("/order-result", 200, {"state": "completed", "order": order})
    progress = await client.order_progress(DT, cart_id)
    assert progress.completed and progress.order_number == "K1"
    assert (progress.total, progress.quantity) == (None, None)


@pytest.mark.parametrize("short", [None, "", "   ", 7])
async def test_a_completed_order_without_its_number_is_refused(
    wired: tuple[StorefrontClientV2, Server, str], short: Any
) -> None:
    client, server, cart_id = wired
    server.answer = _on("/order-result", 200, {"state": "completed", "order": {"shortId": short}})
    with pytest.raises(ResponseFormatError):
        await client.order_progress(DT, cart_id)


@pytest.mark.parametrize(
    ("code", "state"),
    [
        ("CART_EXPIRED", "expired"),
        ("CART_NOT_FOUND", "expired"),
        ("NOT_FOUND", "expired"),
        ("CART_DELETED", "expired"),
        ("PAYMENT_DECLINED", "failed"),
    ],
)
async def test_order_result_failed_for_a_gone_cart_is_an_expiry_not_a_decline(
    wired: tuple[StorefrontClientV2, Server, str], code: str, state: str
) -> None:
    client, server, cart_id = wired
    server.answer = _on("/order-result", 200, {"state": "failed", "code": code})
    progress = await client.order_progress(DT, cart_id)
    assert progress.state == state
    assert progress.failure_code == code
    assert progress.order_number is None and progress.total is None


@pytest.mark.parametrize("body", [{"state": 3}, {}, ["completed"]])
async def test_order_result_without_a_state_is_refused(
    wired: tuple[StorefrontClientV2, Server, str], body: Any
) -> None:
    client, server, cart_id = wired
    server.answer = _on("/order-result", 200, body)
    with pytest.raises(ResponseFormatError):
        await client.order_progress(DT, cart_id)


async def test_order_result_pending_has_no_code_and_no_number(
    wired: tuple[StorefrontClientV2, Server, str],
) -> None:
    client, server, cart_id = wired
    server.answer = _on("/order-result", 200, {"state": "payment_pending", "code": ""})
    progress = await client.order_progress(DT, cart_id)
    assert (progress.state, progress.failure_code, progress.order_number) == (
        "payment_pending",
        None,
        None,
    )


@pytest.mark.parametrize(
    ("expires", "expected"),
    [
        ("2026-11-29T05:00:00+00:00", datetime(2026, 11, 29, 5, tzinfo=UTC)),
        ("2026-11-29T05:00:00", None),  # no offset: not an instant
        ("soon", None),
        (1764392400, None),
    ],
)
async def test_the_handoff_expiry_is_an_instant_with_its_offset(
    wired: tuple[StorefrontClientV2, Server, str], expires: Any, expected: datetime | None
) -> None:
    client, server, cart_id = wired
    await client.add_item(DT, cart_id, "prd_cookie", 1)
    url = "http://demo/checkout/abc"
    server.answer = _on("/checkout-handoffs", 200, {"checkoutUrl": url, "expiresAt": expires})
    intent = await client.create_payment_intent(DT, cart_id)
    assert intent.checkout_url == url
    assert intent.expires_at == expected


@pytest.mark.parametrize("body", [{"checkoutUrl": ""}, {"checkoutUrl": 5}, {}])
async def test_a_handoff_without_a_page_is_refused(
    wired: tuple[StorefrontClientV2, Server, str], body: dict[str, Any]
) -> None:
    client, server, cart_id = wired
    server.answer = _on("/checkout-handoffs", 200, body)
    with pytest.raises(NotFoundError):
        await client.create_payment_intent(DT, cart_id)


async def test_the_handoff_page_is_kept_on_the_cart_read_after_it(
    wired: tuple[StorefrontClientV2, Server, str],
) -> None:
    client, _, cart_id = wired
    await client.add_item(DT, cart_id, "prd_cookie", 1)
    intent = await client.create_payment_intent(DT, cart_id)
    cart = await client.get_cart(DT, cart_id)
    assert intent.checkout_url and cart.checkout_url == intent.checkout_url


async def test_a_refusal_for_unavailable_lines_names_them(
    wired: tuple[StorefrontClientV2, Server, str],
) -> None:
    client, server, cart_id = wired
    await client.add_item(DT, cart_id, "prd_cookie", 1)
    details = {
        "reason": "ITEM_UNAVAILABLE",
        "itemIds": ["itm_1", "itm_2"],
        "productIds": ["prd_cookie"],
    }
    server.answer = _on(
        "/checkout-handoffs",
        400,
        {"code": "VALIDATION_ERROR", "message": "Sold out", "details": details},
    )
    with pytest.raises(StorefrontError) as refused:
        await client.create_payment_intent(DT, cart_id)
    assert refused.value.unavailable_items == ("itm_1", "itm_2")
    assert refused.value.unavailable_products == ("prd_cookie",)
    assert not refused.value.cart_expired


@pytest.mark.parametrize(
    ("status", "expired"), [("EXPIRED", True), ("expired", True), ("LOCKED", False)]
)
async def test_a_write_refused_for_an_expired_cart_says_so(
    wired: tuple[StorefrontClientV2, Server, str], status: str, expired: bool
) -> None:
    client, server, cart_id = wired
    server.answer = _on(
        "/items",
        409,
        {
            "code": "CART_IMMUTABLE",
            "message": "This cart can no longer change",
            "details": {"status": status},
        },
    )
    with pytest.raises(StorefrontError) as refused:
        await client.add_item(DT, cart_id, "prd_cookie", 1)
    assert refused.value.cart_expired is expired
    assert refused.value.unavailable_items == ()


async def test_a_later_time_sends_its_date_and_time_and_asap_does_not(
    wired: tuple[StorefrontClientV2, Server, str],
) -> None:
    client, server, cart_id = wired
    server.answer = _on("/order-time", 200, {"error": "not reached"})
    for pickup_type in ("ASAP", "LATER"):
        # The replaced answer is not a cart: the body sent is what this test reads.
        with contextlib.suppress(StorefrontError):
            await client.set_order_time(DT, cart_id, pickup_type, "2026-11-25", "15:30")
    asap, later = [b for b in _all_bodies(server) if "pickupType" in b]
    assert asap == {"pickupType": "ASAP"}
    assert later == {"pickupType": "LATER", "orderDate": "2026-11-25", "orderTime": "15:30"}


async def test_the_customer_email_is_sent_only_when_given(
    wired: tuple[StorefrontClientV2, Server, str],
) -> None:
    client, server, cart_id = wired
    await client.add_item(DT, cart_id, "prd_cookie", 1)
    await client.update_customer(DT, cart_id, "Ana", "")
    await client.update_customer(DT, cart_id, "Ana", "ana@example.com")
    without, with_email = [b for b in _all_bodies(server) if "customerName" in b][-2:]
    assert without == {"customerName": "Ana"}
    assert with_email == {"customerName": "Ana", "emailAddress": "ana@example.com"}


def _all_bodies(server: Server) -> list[dict[str, Any]]:
    return [json.loads(r.content) for r in server.sent if r.content]


@pytest.mark.parametrize(
    ("country", "sent"),
    [
        ("au", "Australia"),
        ("GB", "United Kingdom"),
        ("US", "United States"),
        ("usa", "United States"),
    ],
)
async def test_a_delivery_names_its_country_in_full(
    wired: tuple[StorefrontClientV2, Server, str], country: str, sent: str
) -> None:
    client, server, cart_id = wired
    server.answer = _on("/delivery", 200, {"error": "not reached"})
    address = DeliveryAddress.model_validate(
        {
            "street": "1 Main St",
            "city": "Springfield",
            "state": "IL",
            "zipCode": "62701",
            "country": country,
            "lat": 39.8,
            "lng": -89.6,
        }
    )
    # The replaced answer is not a cart: the body sent is what this test reads.
    with contextlib.suppress(StorefrontError):
        await client.set_delivery(DT, cart_id, address)
    [body] = [b for b in _all_bodies(server) if "country" in b]
    assert body["country"] == sent
    assert body["streetOptional"] == ""


@pytest.mark.parametrize("miles", [-0.5, True, "3", None])
async def test_a_distance_that_is_not_a_distance_is_refused(
    wired: tuple[StorefrontClientV2, Server, str], miles: Any
) -> None:
    client, server, _ = wired
    server.answer = _on("/distance", 200, {"distance": {"miles": miles}})
    with pytest.raises(ResponseFormatError):
        await client.distance_miles(DT, 41.0, -87.0)


@pytest.mark.parametrize("miles", [0, 2.5])
async def test_a_distance_is_read_in_miles(
    wired: tuple[StorefrontClientV2, Server, str], miles: float
) -> None:
    client, server, _ = wired
    server.answer = _on("/distance", 200, {"distance": {"miles": miles}})
    assert await client.distance_miles(DT, 41.0, -87.0) == miles


async def test_a_stale_delete_is_read_and_sent_once_more(
    wired: tuple[StorefrontClientV2, Server, str],
) -> None:
    client, server, cart_id = wired
    await client.add_item(DT, cart_id, "prd_cookie", 1)
    refusals = iter([True])

    def stale_once(request: httpx.Request) -> httpx.Response | None:
        if request.method == "DELETE" and next(refusals, False):
            body = {"code": "CART_CONFLICT", "message": "The cart changed"}
            return httpx.Response(409, json=body)
        return None

    server.answer = stale_once
    await client.delete_cart(DT, cart_id)
    deletes = [r for r in server.sent if r.method == "DELETE"]
    assert len(deletes) == 2
    reads = [r for r in server.sent if r.method == "GET" and r.url.path.endswith(cart_id)]
    assert reads, "the cart is read between the two deletes"


async def test_another_conflict_on_delete_is_not_retried(
    wired: tuple[StorefrontClientV2, Server, str],
) -> None:
    client, server, cart_id = wired
    body = {"code": "CART_IMMUTABLE", "message": "No"}
    server.answer = lambda r: httpx.Response(409, json=body) if r.method == "DELETE" else None
    with pytest.raises(ConflictError):
        await client.delete_cart(DT, cart_id)
    assert len([r for r in server.sent if r.method == "DELETE"]) == 1


async def test_a_code_applied_then_removed(
    wired: tuple[StorefrontClientV2, Server, str],
) -> None:
    client, _, cart_id = wired
    await client.add_item(DT, cart_id, "prd_cookie", 2)
    cart = await client.apply_discount(DT, cart_id, "SAVE10")
    assert cart.discount_code == "SAVE10"
    cart = await client.remove_discount(DT, cart_id)
    assert not cart.discount_code
