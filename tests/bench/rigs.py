"""The embedded backend on virtual time, for the benchmarks and the resilience test.

`VirtualRig` has the shape of tests/support/ordering_rig.Rig (client, location_id, store(),
clock.call_later, server_cart), so the scripted customer of tests/e2e/test_scripted_customer.py
runs on it unchanged; but its clock is the VirtualTimeLoop's (tests/bench/vtime.py), so several
kiosks can run concurrently on one consistent clock, and the backend's own stall fault (an
asyncio.sleep) is virtual too. Must be used inside `run_virtual(...)`.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

import httpx

from kiosk.api import StorefrontClient
from kiosk.demo import create_app
from kiosk.demo.data import DOWNTOWN, DemoLocation
from kiosk.ordering.cart_store import CartStore
from kiosk.ordering.visit import Visit
from tests.support.ordering_rig import BackendViews

BASE_URL = "http://demo.test/api/v1"


# Monday 2 March 2026, 16:00 UTC: both demo shops are open (as in tests/support/ordering_rig.py).
START = 1772467200.0


class LoopClock:
    """A Unix clock on the running loop's virtual time (`epoch` + loop time), with `call_later`
    for scripted events (a customer paying on a phone)."""

    def __init__(self, epoch: float = START) -> None:
        self._loop = asyncio.get_running_loop()
        self.epoch = epoch
        self._tasks: set[asyncio.Task[Any]] = set()

    def __call__(self) -> float:
        return self.epoch + self._loop.time()

    async def sleep(self, seconds: float) -> None:
        await asyncio.sleep(seconds)

    def call_later(self, delay: float, action: Callable[[], Awaitable[Any]]) -> None:
        def fire() -> None:
            task = self._loop.create_task(action())  # type: ignore[arg-type]
            self._tasks.add(task)
            task.add_done_callback(self._tasks.discard)

        self._loop.call_later(delay, fire)


@dataclass
class TimeoutTransport(httpx.AsyncBaseTransport):
    """ASGITransport enforces no timeouts; this does, on the loop's (virtual) clock, the way a real
    socket would: a reply that takes longer than the request's read timeout is a ReadTimeout, even
    though the backend may already have committed the write.

    `before` (optional) runs before each request reaches the backend (to switch faults per
    request); `sent` counts the requests the kiosk sent (the backend counts what reached it)."""

    inner: httpx.AsyncBaseTransport
    before: Callable[[httpx.Request], None] | None = None
    sent: int = 0
    timeouts: int = 0
    log: list[str] = field(default_factory=list)

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        self.sent += 1
        if self.before is not None:
            self.before(request)
        timeout = (request.extensions.get("timeout") or {}).get("read")
        try:
            async with asyncio.timeout(timeout):
                response = await self.inner.handle_async_request(request)
                await response.aread()
        except TimeoutError:
            self.timeouts += 1
            raise httpx.ReadTimeout("virtual read timeout", request=request) from None
        return response


class VirtualRig(BackendViews):
    """The demo backend on the loop's clock, and clients (one per terminal) on one IP."""

    def __init__(
        self,
        location: DemoLocation = DOWNTOWN,
        *,
        epoch: float = START,
        rate_limit: int = 200,
        rate_window: float = 600.0,
        extra_products: int = 0,
        before: Callable[[httpx.Request], None] | None = None,
        client_kw: dict[str, Any] | None = None,
    ) -> None:
        self.clock = LoopClock(epoch)
        self.location = location
        self.app = create_app(
            ":memory:",
            clock=self.clock,
            rate_limit=rate_limit,
            rate_window=rate_window,
            extra_products=extra_products,
        )
        self.transport = TimeoutTransport(httpx.ASGITransport(app=self.app), before=before)
        self._client_kw = dict(client_kw or {})
        self.clients: list[StorefrontClient] = []
        self.client = self.new_client()

    # The Rig interface the scripted customer uses (with BackendViews) ---------------------
    def new_client(self, **kw: Any) -> StorefrontClient:
        client = StorefrontClient(
            BASE_URL,
            self.location.api_key,
            transport=self.transport,
            clock=self.clock,
            sleep=asyncio.sleep,
            **(self._client_kw | kw),
        )
        self.clients.append(client)
        return client

    def store(self, client: StorefrontClient | None = None, **kw: Any) -> CartStore:
        return CartStore(
            client or self.client,
            self.location.id,
            clock=self.clock,
            sleep=asyncio.sleep,
            location_aliases=(self.location.slug,),
            **kw,
        )

    def visit(self, client: StorefrontClient | None = None, **kw: Any) -> Visit:
        chosen = client or self.client
        return Visit(
            lambda _location_id: chosen,
            [self.location.id],
            wall_clock=self.clock,
            store_options={"sleep": asyncio.sleep, **kw},
        )

    def by_status(self) -> dict[str, int]:
        return dict(self.backend.stats.as_dict()["byStatus"])

    async def aclose(self) -> None:
        for client in self.clients:
            await client.aclose()
        self.backend.close()
