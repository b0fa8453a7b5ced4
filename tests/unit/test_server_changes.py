"""The order when the server changes it (issue 32, item 4), headless: the Visit on both dialects.

- Lines no longer available at checkout are one reading (kiosk.api.models.unavailable_lines) on
  v1 (the validation names them) and on 2.0 (the hand-off refused with ITEM_UNAVAILABLE, the
  line's own "availability"): the same CheckoutResult.unavailable, no hand-off.
- An expired cart ends the order (EXPIRED), however the server says it: the cart's status, a write
  refused 409 CART_IMMUTABLE {status: EXPIRED} (even when the cart cannot be read after it);
  nothing more is sent for it, and `Visit.start_again` makes a new cart with the same way and
  lines, naming the lines the server refused.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import httpx
import pytest

from kiosk.api.errors import ConflictError, InvalidRequestError, error_from_response
from kiosk.api.models import Cart, CartValidation, unavailable_lines
from kiosk.api.v2 import _read_refusal
from kiosk.config import Settings
from kiosk.ordering.cart_store import CartExpiredError
from kiosk.ordering.lifecycle import Phase
from kiosk.ordering.visit import Visit
from kiosk.runtime import build_remote_services
from tests.conformance.vendor_server import make_vendor_app
from tests.journeys.harness import BASE_URL, LOCATION_ID, ManualClock
from tests.support.ordering_rig import demo_rig


class Strict:
    """A Visit over the strict 2.0 server, as the kiosk builds it for a 2.0 base URL."""

    def __init__(self, tmp_path: Path) -> None:
        self.clock = ManualClock()
        self.server = make_vendor_app(clock=self.clock.utc)
        self.transport = httpx.ASGITransport(app=self.server)
        settings = Settings(
            profile="production", api_dialect="v2", base_url=BASE_URL, location=LOCATION_ID
        )
        self.services = build_remote_services(
            settings,
            client_options={"clock": self.clock, "sleep": self.sleep},
            transport=self.transport,
        )
        self.resume = tmp_path / "open-cart.json"
        self.visit = Visit(
            self.services.client_for,
            [LOCATION_ID],
            wall_clock=self.clock,
            cart_id_file=self.resume,
            store_options={"sleep": self.sleep},
        )

    async def sleep(self, seconds: float) -> None:
        """Time passes as fast as the kiosk waits (a retry's back-off, a rate-limit wait)."""
        self.clock.now += max(seconds, 0.0)
        await asyncio.sleep(0)

    @property
    def store(self) -> Any:
        return self.server.state.store

    def lines(self, cart_id: str | None = None) -> dict[str, int]:
        cart = self.store.carts[cart_id or self.visit.state.cart_id]
        return {line.product.id: line.quantity for line in cart.lines}


@asynccontextmanager
async def strict(tmp_path: Path) -> AsyncIterator[Strict]:
    rig = Strict(tmp_path)
    try:
        yield rig
    finally:
        await rig.services.aclose()
    assert rig.server.state.violations == [], rig.server.state.violations


async def gyoza_and_tea(rig: Strict, method: str = "table_service") -> None:
    rig.visit.choose_location(LOCATION_ID)
    if method == "table_service":
        await rig.visit.start(method, table_number="8")
    else:
        await rig.visit.start(method)
    await rig.visit.add_item("prod_gyoza", 2)
    await rig.visit.add_item("prod_jasmine_tea", 1)


# ---------------------------------------------------------------------------------- one reading


def test_one_reading_of_the_lines_no_longer_available() -> None:
    cart = Cart.model_validate(
        {
            "id": "c1",
            "items": [
                {"id": "l1", "productId": "p1", "availability": "sold_out"},
                {"id": "l2", "productId": "p2", "availability": "available"},
                {"id": "l3", "productId": "p3"},
                {"id": "l4", "productId": "p4"},
            ],
        }
    )
    assert unavailable_lines(cart) == ("l1",)  # the cart's own marking (2.0)
    assert unavailable_lines(None) == ()
    # A 2.0 refusal in its own shapes, read by the dialect onto the typed error.
    body = (
        b'{"code":"VALIDATION_ERROR","message":"Sorry, P3 is no longer available.",'
        b'"details":{"field":"items","reason":"ITEM_UNAVAILABLE","itemIds":["l3"],'
        b'"productIds":["p4"]}}'
    )
    refusal = error_from_response(400, body)
    assert isinstance(refusal, InvalidRequestError) and refusal.unavailable_items == ()
    _read_refusal(refusal)
    assert refusal.unavailable_items == ("l3",) and refusal.unavailable_products == ("p4",)
    assert unavailable_lines(cart, refusal) == ("l1", "l3", "l4")
    # v1's validation names lines by itemId.
    validation = CartValidation.model_validate(
        {"valid": False, "errors": [{"code": "ITEM_SOLD_OUT", "message": "x", "itemId": "l2"}]}
    )
    assert unavailable_lines(cart, validation) == ("l1", "l2")


def test_a_write_refused_for_an_expired_cart_is_read_as_expired() -> None:
    body = (
        b'{"code":"CART_IMMUTABLE","message":"The cart is EXPIRED.","details":{"status":"EXPIRED"}}'
    )
    refusal = error_from_response(409, body)
    assert isinstance(refusal, ConflictError) and not refusal.cart_expired
    _read_refusal(refusal)
    assert refusal.cart_expired
    locked = error_from_response(
        409,
        b'{"code":"CART_IMMUTABLE","message":"The cart is LOCKED.","details":{"status":"LOCKED"}}',
    )
    _read_refusal(locked)
    assert not locked.cart_expired


# ---------------------------------------------------------------------------------- sold out


async def test_sold_out_at_checkout_on_2_0_names_the_line_and_hands_off_nothing(
    tmp_path: Path,
) -> None:
    async with strict(tmp_path) as rig:
        await gyoza_and_tea(rig, "pickup")
        rig.store.sell_out("prod_gyoza", LOCATION_ID)
        result = await rig.visit.checkout("Ada", "")
        cart = rig.visit.state.cart
        assert cart is not None and result.intent is None and not result.validation.valid
        gyoza = next(i.id for i in cart.items if i.product_id == "prod_gyoza")
        assert result.unavailable == (gyoza,)
        assert rig.visit.state.order.phase is Phase.ORDERING  # refused: back to the order
        assert not list(rig.store.handoffs_of(cart.id))
        # Removed, the order goes on to its hand-off.
        await rig.visit.remove_item(gyoza)
        result = await rig.visit.checkout("Ada", "")
        assert result.intent is not None and result.unavailable == ()


async def test_a_hand_off_refused_as_item_unavailable_names_the_line(tmp_path: Path) -> None:
    async with strict(tmp_path) as rig:
        await gyoza_and_tea(rig, "pickup")
        rig.store.sell_out("prod_jasmine_tea", LOCATION_ID)
        await rig.visit.refresh()  # the kiosk has the cart as it now is: only the hand-off refuses
        result = await rig.visit.checkout("Ada", "")
        cart = rig.visit.state.cart
        assert cart is not None and result.intent is None
        tea = next(i.id for i in cart.items if i.product_id == "prod_jasmine_tea")
        assert result.unavailable == (tea,)
        assert [r for r in rig.server.state.refusals if "checkout-handoffs" in r]


async def test_sold_out_at_checkout_on_v1_is_the_same_reading() -> None:
    async with demo_rig() as rig:
        visit = rig.visit()
        await visit.start("pickup")
        await visit.add_item("prd_espresso", 1)
        await visit.add_item("prd_cookie", 1)
        rig.backend.set_sold_out("prd_cookie", True)
        result = await visit.checkout("Ada", "ada@example.com")
        cart = visit.state.cart
        assert cart is not None and result.intent is None
        cookie = next(i.id for i in cart.items if i.product_id == "prd_cookie")
        assert result.unavailable == (cookie,)


# ---------------------------------------------------------------------------------- expired


async def test_an_expired_cart_ends_the_order_and_starts_again_with_its_lines(
    tmp_path: Path,
) -> None:
    async with strict(tmp_path) as rig:
        await gyoza_and_tea(rig)
        old = rig.visit.state.cart_id
        assert old is not None and rig.resume.exists()
        rig.store.expire_cart(old)
        rig.store.sell_out("prod_jasmine_tea", LOCATION_ID)
        with pytest.raises(CartExpiredError) as refused:
            await rig.visit.add_item("prod_gyoza", 1)
        assert refused.value.message == "This order has expired."
        assert rig.visit.state.order.phase is Phase.EXPIRED
        assert not rig.resume.exists()  # nothing to come back to after a restart

        def asked() -> int:
            return sum(1 for _m, path, _s in rig.server.state.server.log if old in path)

        sent = asked()
        with pytest.raises(CartExpiredError):
            await rig.visit.set_quantity(rig.visit.state.cart.items[0].id, 3)  # type: ignore[union-attr]
        with pytest.raises(CartExpiredError):
            await rig.visit.checkout("Ada", "")
        assert asked() == sent  # nothing more asked of that cart

        result = await rig.visit.start_again()
        new = rig.visit.state.cart_id
        assert new not in (None, old)
        assert rig.visit.state.order.phase is Phase.ORDERING
        assert rig.lines() == {"prod_gyoza": 2}
        assert result.dropped_lines == ("Jasmine tea",)
        # The same way to order, table 8 included.
        assert rig.store.carts[new].method == "table_side"
        assert rig.visit.state.table_number == "8"
        assert rig.resume.exists()


async def test_a_409_for_an_expired_cart_ends_the_order_though_the_cart_cannot_be_read(
    tmp_path: Path,
) -> None:
    async with strict(tmp_path) as rig:
        await gyoza_and_tea(rig, "pickup")
        cart = rig.store.carts[rig.visit.state.cart_id]
        revision = cart.revision
        rig.store.expire_cart(cart.id)
        # A server whose expiry does not move the revision: the write is refused as immutable
        # (not as a stale revision), and the read after it is lost.
        cart.revision = revision
        inner = rig.transport

        class NoReads(httpx.AsyncBaseTransport):
            async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
                if request.method == "GET":
                    raise httpx.ConnectError("the read is lost", request=request)
                return await inner.handle_async_request(request)

        client = rig.services.client_for(LOCATION_ID)
        client._http._transport = NoReads()  # type: ignore[attr-defined]
        with pytest.raises(CartExpiredError):
            await rig.visit.add_item("prod_gyoza", 1)
        assert rig.visit.state.order.phase is Phase.EXPIRED
        assert not rig.resume.exists()
