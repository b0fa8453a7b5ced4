"""Requests the CartStore does not make over Storefront 2.0 (issue 14, "fewer requests").

On 2.0 every cart write answers the cart with its revision (storefront-v2-contract.md, section 4:
200 StorefrontCart), so the store publishes that answer instead of reading the cart again. Each
test counts the requests with a recording transport and fails if the read comes back. (The legacy
contract answers `{success:true}` to the same writes, so there the one read stays: see
tests/e2e/test_scripted_customer.py.)
"""

from __future__ import annotations

from collections import Counter
from collections.abc import AsyncIterator

import pytest

from kiosk.api.v2 import StorefrontClientV2
from kiosk.demo import create_app
from kiosk.demo.data import DOWNTOWN
from kiosk.ordering.cart_store import CartStore
from tests.api.test_v2_dialect import Recorder as SendRecorder
from tests.demo.support import WED_AFTERNOON

BASE = "http://demo/api/v1/storefront"
GET_CART = ("GET", "")  # the cart itself: GET …/carts/{cartId}


class Recorder(SendRecorder):
    """The conformance tests' recorder, counting by method and the path after the cart id."""

    def by_endpoint(self) -> Counter[tuple[str, str]]:
        counted: Counter[tuple[str, str]] = Counter()
        for request in self.sent:
            path = request.url.path
            tail = path.split("/carts/", 1)[1].partition("/")[2] if "/carts/" in path else path
            counted[(request.method, tail)] += 1
        return counted

    def reset(self) -> None:
        self.sent.clear()


@pytest.fixture
async def served() -> AsyncIterator[tuple[CartStore, Recorder]]:
    app = create_app(clock=lambda: WED_AFTERNOON)
    recorder = Recorder(app)
    client = StorefrontClientV2(BASE, transport=recorder)
    async with client:
        store = CartStore(client, DOWNTOWN.id, clock=lambda: WED_AFTERNOON)
        await store.start("pickup")
        await store.add_item("prd_cookie", 2)
        recorder.reset()
        yield store, recorder


async def test_apply_discount_reads_no_cart_on_2_0(served: tuple[CartStore, Recorder]) -> None:
    store, recorder = served
    cart = await store.apply_discount("SAVE10")
    assert cart is not None and cart.discount_code == "SAVE10" and cart.discount_total > 0
    assert store.cart == cart
    assert recorder.by_endpoint() == {("POST", "discount"): 1}


async def test_update_order_time_reads_no_cart_on_2_0(served: tuple[CartStore, Recorder]) -> None:
    store, recorder = served
    cart = await store.set_order_time_asap()
    assert cart is not None and cart.pickup_type == "ASAP"
    assert store.cart == cart
    assert recorder.by_endpoint() == {("PUT", "update-order-time"): 1}


async def test_customer_details_read_no_cart_on_2_0(served: tuple[CartStore, Recorder]) -> None:
    store, recorder = served
    cart = await store.set_customer("Ada Lovelace", "ada@example.com")
    assert cart is not None and store.cart == cart
    assert recorder.by_endpoint() == {("PUT", "validate-and-update"): 1}


async def test_the_next_write_names_the_revision_the_answer_carried(
    served: tuple[CartStore, Recorder],
) -> None:
    # No read in between: the If-Match of the write after the discount comes from its answer.
    store, recorder = served
    discounted = await store.apply_discount("SAVE10")
    assert discounted is not None
    await store.set_tip("18")
    tip = next(r for r in recorder.sent if r.url.path.endswith("/gratuity"))
    assert tip.headers["if-match"] == f'"cart-{discounted.revision}"'
    assert GET_CART not in recorder.by_endpoint()
