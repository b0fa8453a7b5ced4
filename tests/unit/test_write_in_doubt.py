"""Journeys 11 and 12 in the CartStore, over 2.0 against the real embedded backend behind a
transport that stalls one write past the client's timeout (as wt-vendor teaches the strict server
to) or answers bursts of 429.

A write whose answer is late (the client timed out; the resend met 409 IDEMPOTENCY_IN_PROGRESS) is
settled by reading the cart, with the pause between reads counted down and said: "Added" when it
landed, never a failure; the kiosk's own late write never told as a change made "elsewhere"; the
cart shown is the server's."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import httpx
import pytest

from kiosk.api import AmbiguousWriteError, RetryPolicy
from kiosk.api.v2 import StorefrontClientV2
from kiosk.demo import create_app
from kiosk.demo.data import DOWNTOWN
from kiosk.ordering.cart_store import CartStore, StoreStatus
from tests.support.ordering_rig import FakeClock

BASE = "http://demo.test/api/v1/storefront"
IN_PROGRESS = {
    "code": "IDEMPOTENCY_IN_PROGRESS",
    "message": "A request with this Idempotency-Key is still running",
    "requestId": "req-12345678",
}


class Stalling(httpx.AsyncBaseTransport):
    """The backend, except for one stalled write: its first send is held (the client times out)
    and lands only after the cart has been read `lands_after_reads` times; a resend with its key
    meanwhile answers 409 IDEMPOTENCY_IN_PROGRESS. Also bursts of 429 (Retry-After 1)."""

    def __init__(self, inner: httpx.AsyncBaseTransport) -> None:
        self.inner = inner
        self.stall_path: str | None = None
        self.lands_after_reads = 0
        self.held: httpx.Request | None = None
        self.reads_while_held = 0
        self.burst = 0
        self.log: list[tuple[str, str, int]] = []

    def stall(self, path_end: str, *, lands_after_reads: int) -> None:
        self.stall_path, self.lands_after_reads = path_end, lands_after_reads

    async def land(self) -> None:
        held, self.held = self.held, None
        if held is not None:
            await self.inner.handle_async_request(held)

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        path = request.url.path
        if self.burst and request.method != "GET":
            self.burst -= 1
            self.log.append((request.method, path, 429))
            body = {"code": "RATE_LIMITED", "message": "Too many", "requestId": "r" * 8}
            return httpx.Response(429, json=body, headers={"Retry-After": "1"})
        if self.stall_path and request.method == "POST" and path.endswith(self.stall_path):
            self.stall_path = None
            self.held = request
            self.log.append((request.method, path, -1))
            raise httpx.ReadTimeout("stalled past the client's timeout", request=request)
        if self.held is not None and request.method != "GET":
            same = request.headers.get("idempotency-key") == self.held.headers["idempotency-key"]
            if same:
                self.log.append((request.method, path, 409))
                return httpx.Response(409, json=IN_PROGRESS)
        if self.held is not None and request.method == "GET" and "/carts/" in path:
            self.reads_while_held += 1
            if self.reads_while_held > self.lands_after_reads:
                await self.land()
        response = await self.inner.handle_async_request(request)
        self.log.append((request.method, path, response.status_code))
        return response


@asynccontextmanager
async def rig() -> AsyncIterator[tuple[CartStore, Stalling, Any, FakeClock]]:
    clock = FakeClock()
    app = create_app(":memory:", clock=clock)
    transport = Stalling(httpx.ASGITransport(app=app))
    client = StorefrontClientV2(
        BASE,
        transport=transport,
        clock=clock,
        sleep=clock.sleep,
        max_wait=1.0,  # as the composition root builds it (kiosk.runtime.CLIENT_MAX_WAIT)
        retry=RetryPolicy(max_attempts=4, random=lambda: 0.0),
    )
    store = CartStore(
        client, DOWNTOWN.id, clock=clock, sleep=clock.sleep, location_aliases=(DOWNTOWN.slug,)
    )
    try:
        await store.start("pickup")
        yield store, transport, app, clock
    finally:
        await client.aclose()
        app.state.backend.close()


def server_lines(app: Any, cart_id: str) -> list[tuple[str, int]]:
    cart = app.state.backend.get_cart_json(cart_id)
    return sorted((i["productId"], i["quantity"]) for i in cart["items"])


def server_total(app: Any, cart_id: str) -> str:
    cart = app.state.backend.get_cart_json(cart_id)
    return str(cart["orderTotalFormatted"])


async def test_a_stalled_add_that_lands_is_added_once_and_the_next_write_is_not_elsewhere() -> None:
    async with rig() as (store, transport, app, _clock):
        statuses: list[StoreStatus] = []
        store.subscribe_status(statuses.append)
        await store.add_item("prd_cookie", 1)
        transport.stall("/items", lands_after_reads=2)
        cart = await store.add_item("prd_espresso", 1)
        assert store.cart_id is not None
        # Landed while the kiosk read the cart: "Added", never a failure; once.
        assert cart is not None
        assert server_lines(app, store.cart_id) == [("prd_cookie", 1), ("prd_espresso", 1)]
        assert sorted((i.product_id, i.quantity) for i in cart.items) == server_lines(
            app, store.cart_id
        )
        assert cart.order_total_formatted == server_total(app, store.cart_id)
        # The pause between reads was said and counted down, never a silent wait.
        said = [s.message for s in statuses if s.kind == "waiting"]
        assert said and all("Checking your order" in m for m in said), said
        assert not [s for s in statuses if s.kind == "error"]
        # The next write names the revision the late add made: no conflict, nothing "elsewhere".
        after = await store.set_quantity(cart.items[0].id, 2)
        assert after is not None
        assert ("PATCH", 409) not in {(m, s) for m, _p, s in transport.log}


async def test_an_add_still_in_doubt_is_never_told_as_a_change_made_elsewhere() -> None:
    async with rig() as (store, transport, app, _clock):
        await store.add_item("prd_cookie", 1)
        transport.stall("/items", lands_after_reads=10_000)
        with pytest.raises(AmbiguousWriteError) as doubt:
            await store.add_item("prd_espresso", 1)
        assert doubt.value.details["reloaded"] is True
        assert store.settle_reads == 8  # eight reads, seven pauses of 2 s said on screen
        # Then the stalled add lands, late, and the customer adds something else.
        await transport.land()
        cart = await store.add_item("prd_cookie", 1)
        assert store.cart_id is not None and cart is not None
        assert server_lines(app, store.cart_id) == [("prd_cookie", 2), ("prd_espresso", 1)]
        assert cart.order_total_formatted == server_total(app, store.cart_id)


async def test_a_burst_of_429s_is_counted_down_and_the_add_goes_once() -> None:
    """Fifteen 429s: before, 14 s of "Working…" (the client slept through them, `retry 15/3`).
    Now the client sleeps at most a second in all, then the store counts down, saying why."""
    async with rig() as (store, transport, app, clock):
        statuses: list[StoreStatus] = []
        store.subscribe_status(statuses.append)
        transport.burst = 15
        t0 = clock()
        cart = await store.add_item("prd_cookie", 1)
        assert store.cart_id is not None and cart is not None
        assert server_lines(app, store.cart_id) == [("prd_cookie", 1)]
        waited = clock() - t0
        counted = [s for s in statuses if s.kind == "waiting"]
        assert [s.message for s in counted] == ["Very busy: sending in 1 s"] * 15
        # Every second of it counted down, none slept silently in the client; one add.
        assert waited == pytest.approx(15)
        sent = [s for m, p, s in transport.log if m == "POST" and p.endswith("/items")]
        assert sent == [429] * 15 + [200]


async def test_a_lost_answer_whose_first_reads_fail_is_settled_by_reading_again() -> None:
    """The answer is lost and the cart cannot be read at first either: the store reads again,
    counting the pause down, and finds the add landed: added once, no error."""
    async with rig() as (store, transport, app, _clock):
        statuses: list[StoreStatus] = []
        store.subscribe_status(statuses.append)
        inner = transport.inner
        failing = {"gets": 5, "posts": 0}

        class Flaky(httpx.AsyncBaseTransport):
            async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
                if request.method == "POST":
                    failing["posts"] += 1
                    if failing["posts"] == 1:
                        await inner.handle_async_request(request)  # lands; the answer is lost
                        raise httpx.ReadError("connection reset", request=request)
                    # The resends never get through (until the client's deadline).
                    raise httpx.ConnectError("unreachable", request=request)
                if request.method == "GET" and failing["gets"]:
                    failing["gets"] -= 1
                    raise httpx.ConnectError("unreachable", request=request)
                return await inner.handle_async_request(request)

        transport.inner = Flaky()
        cart = await store.add_item("prd_cookie", 1)
        assert store.cart_id is not None and cart is not None
        assert server_lines(app, store.cart_id) == [("prd_cookie", 1)]
        assert [s.message for s in statuses if s.kind == "waiting"][:1] == [
            "Checking your order with the restaurant: 2 s"
        ]
        assert not [s for s in statuses if s.kind == "error"]


async def test_the_order_is_in_doubt_while_a_late_write_is_settled_and_back_after() -> None:
    # kiosk.ordering.lifecycle: IN_DOUBT while the cart is read to settle a late write (persisted,
    # so a restart in the middle settles by reading too), then back where it began.
    from kiosk.ordering.lifecycle import Phase

    async with rig() as (store, transport, _app, _clock):
        phases: list[Phase] = []
        store.lifecycle.subscribe(lambda snap: phases.append(snap.phase))
        transport.stall("/items", lands_after_reads=2)
        await store.add_item("prd_espresso", 1)
        assert phases[:2] == [Phase.IN_DOUBT, Phase.ORDERING], phases
        assert store.lifecycle.phase is Phase.ORDERING
        assert store.lifecycle.snapshot.doubt_from is None
