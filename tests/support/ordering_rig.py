"""The test rig for kiosk.ordering: the REAL embedded demo backend in-process, a virtual clock and a
transport wrapper that can fail one request in a chosen way. Shared by the ordering tests, the
scripted customer, the conformance machines and the benchmarks (tests/unit/test_ordering_rig.py
checks it).

- `FakeClock`: time stands still until something sleeps; `sleep(s)` moves it on and first runs any
  action scheduled inside that span (a customer paying on a phone at t + 25 s), so runs with long
  waits are instant and deterministic.
- `FaultyTransport`: httpx.ASGITransport over `kiosk.demo.create_app`, counting the requests in
  flight; `fail_next(method, path_end, when=...)` makes the next matching request fail with a
  dropped connection either before it reaches the backend (nothing written) or after (committed).
- Dialects: the demo serves v1 and 2.0; `demo_rig(dialect=...)` picks one, else the ordering tests'
  `rig_dialect` fixture (tests/unit/conftest.py) runs each test on both.
"""

from __future__ import annotations

import asyncio
import heapq
import itertools
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from contextlib import asynccontextmanager, contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

import httpx

from kiosk.api import StorefrontClient
from kiosk.api.probe import dialect_base
from kiosk.api.v2 import StorefrontClientV2
from kiosk.demo import create_app
from kiosk.demo.data import DOWNTOWN, DemoLocation
from kiosk.ordering.cart_store import CartStore
from kiosk.ordering.visit import Visit

# Monday 2 March 2026, 16:00 UTC: 11:00 in New York, 08:00 in Los Angeles (both demo shops open).
START = 1772467200.0
BASE_URL = "http://demo.test/api/v1"
# The dialect a rig's client speaks unless told (the demo serves both): v1, or the one the
# ordering tests' `rig_dialect` fixture sets for the test running now (tests/unit/conftest.py).
_dialect = ["v1"]
# Why an ordering test runs on v1 only (`@pytest.mark.only_dialect("v1", reason=...)`).
V1_ONLY_CODES = "asserts v1's refusal codes; 2.0 answers VALIDATION_ERROR with the field"
V1_ONLY_COORDS = "a 2.0 delivery needs coordinates from delivery zones, which this test has none of"
V1_ONLY_DELETE = "a v1 DELETE removes the cart; 2.0's expires it and GET still answers it"
V1_ONLY_DINE = "2.0 has no dine-in (it is takeout there)"
V1_ONLY_EMAIL = (
    "asks v1's server about the email; 2.0's client checks it against the vendor schema first"
)
V1_ONLY_FAULT = "aims its fault at a v1 route (/cart-item, /quantity); 2.0's routes differ"
V1_ONLY_FILE = "asserts v1's resume file; 2.0's also keeps the cart token"
V1_ONLY_LOCK = "a v1 cart locks on its payment intent; a 2.0 cart stays open after its hand-off"
V1_ONLY_POLL = "v1 polls the cart; 2.0 asks order-result (tests/conformance covers it)"
V1_ONLY_RATE = "reads v1's X-RateLimit headers; 2.0 sends none (the client counts its own budget)"
V1_ONLY_ROUTES = "counts requests by v1's routes; 2.0 names and shapes its routes its own way"
V1_ONLY_VALIDATE = "v1's validate lists the sold-out line; 2.0 refuses the hand-off instead"


@contextmanager
def rig_dialect(dialect: str) -> Iterator[None]:
    _dialect.append(dialect)
    try:
        yield
    finally:
        _dialect.pop()


def rig_client(
    dialect: str, location: DemoLocation, transport: httpx.AsyncBaseTransport, **kw: Any
) -> StorefrontClient:
    """A client of `dialect` for the demo backend behind `transport` (2.0 needs no key)."""
    if dialect == "v2":
        return StorefrontClientV2(dialect_base(BASE_URL, "v2"), transport=transport, **kw)
    return StorefrontClient(BASE_URL, location.api_key, transport=transport, **kw)


class FakeClock:
    def __init__(self, start: float = START) -> None:
        self.now = start
        self._timers: list[tuple[float, int, Callable[[], Awaitable[Any]]]] = []
        self._seq = itertools.count()
        self.slept: list[float] = []

    def __call__(self) -> float:
        return self.now

    def call_at(self, when: float, action: Callable[[], Awaitable[Any]]) -> None:
        heapq.heappush(self._timers, (when, next(self._seq), action))

    def call_later(self, delay: float, action: Callable[[], Awaitable[Any]]) -> None:
        self.call_at(self.now + delay, action)

    async def sleep(self, seconds: float) -> None:
        self.slept.append(seconds)
        target = self.now + max(0.0, seconds)
        while self._timers and self._timers[0][0] <= target:
            when, _, action = heapq.heappop(self._timers)
            self.now = max(self.now, when)
            await action()
        self.now = max(self.now, target)
        await asyncio.sleep(0)


@dataclass
class _Fault:
    method: str
    path_end: str
    when: Literal["before", "after"]


@dataclass
class FaultyTransport(httpx.AsyncBaseTransport):
    inner: httpx.AsyncBaseTransport
    faults: list[_Fault] = field(default_factory=list)
    in_flight: int = 0
    max_in_flight: int = 0
    sent: list[str] = field(default_factory=list)

    def fail_next(
        self, method: str, path_end: str, when: Literal["before", "after"] = "after"
    ) -> None:
        self.faults.append(_Fault(method.upper(), path_end, when))

    def _take(self, request: httpx.Request) -> _Fault | None:
        for fault in self.faults:
            if request.method == fault.method and request.url.path.endswith(fault.path_end):
                self.faults.remove(fault)
                return fault
        return None

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        self.sent.append(f"{request.method} {request.url.path}")
        fault = self._take(request)
        if fault is not None and fault.when == "before":
            raise httpx.RemoteProtocolError("test fault: dropped before the server saw it")
        self.in_flight += 1
        self.max_in_flight = max(self.max_in_flight, self.in_flight)
        try:
            # Let other tasks run while this request is "on the wire".
            await asyncio.sleep(0)
            response = await self.inner.handle_async_request(request)
            await response.aread()
        finally:
            self.in_flight -= 1
        if fault is not None:
            raise httpx.RemoteProtocolError("test fault: dropped after the server committed")
        return response


class BackendViews:
    """What a test reads off the embedded backend behind a rig (this one and tests/bench's)."""

    app: Any
    location: DemoLocation

    @property
    def backend(self) -> Any:
        return self.app.state.backend

    @property
    def location_id(self) -> str:
        return self.location.id

    def requests(self) -> dict[str, int]:
        """Requests the backend counted, by "METHOD /template" (without /api/v1/locations/{id})."""
        by_path = self.backend.stats.as_dict()["byPath"]
        return {
            k.replace("/api/v1/locations/{locationId}", ""): v for k, v in sorted(by_path.items())
        }

    def total(self) -> int:
        return int(self.backend.stats.total)

    def reset_counts(self) -> None:
        self.backend.stats.reset()

    def server_cart(self, cart_id: str) -> dict[str, Any] | None:
        try:
            return dict(self.backend.get_cart_json(cart_id))
        except KeyError:
            return None

    def faults(self, **values: Any) -> None:
        self.backend.faults.update(values)


@dataclass
class Rig(BackendViews):
    app: Any
    clock: FakeClock
    transport: FaultyTransport
    client: StorefrontClient
    location: DemoLocation

    def store(self, cart_id_file: Path | None = None, **kw: Any) -> CartStore:
        return CartStore(
            self.client,
            self.location.id,
            clock=self.clock,
            sleep=self.clock.sleep,
            cart_id_file=cart_id_file,
            location_aliases=(self.location.slug,),
            **kw,
        )

    def visit(self, cart_id_file: Path | None = None, *, locations: Any = None, **kw: Any) -> Visit:
        """A Visit at this rig's location (or `locations`), on the rig's clock and client."""
        return Visit(
            lambda _location_id: self.client,
            list(locations) if locations is not None else [self.location.id],
            wall_clock=self.clock,
            cart_id_file=cart_id_file,
            store_options={"sleep": self.clock.sleep, **kw},
        )

    @property
    def dialect(self) -> str:
        return self.client.dialect

    def new_client(self, **kw: Any) -> StorefrontClient:
        """A second client on the same backend (e.g. a kiosk restarted after a crash)."""
        return rig_client(
            self.dialect,
            self.location,
            self.transport,
            clock=self.clock,
            sleep=self.clock.sleep,
            **kw,
        )


async def cookie_order(owner: CartStore | Visit) -> None:
    """The rule tests' usual order: pickup, one cookie (on a CartStore or a Visit)."""
    await owner.start("pickup")
    await owner.add_item("prd_cookie", 1)


async def cookie_handed_off(owner: CartStore | Visit) -> Any:
    """`cookie_order`, handed off for payment: the payment intent."""
    await cookie_order(owner)
    return await owner.begin_payment()


@asynccontextmanager
async def demo_rig(
    location: DemoLocation = DOWNTOWN,
    *,
    start: float = START,
    client_kw: Any = None,
    dialect: str | None = None,
    **app_kw: Any,
) -> AsyncIterator[Rig]:
    clock = FakeClock(start)
    app = create_app(":memory:", clock=clock, **app_kw)
    transport = FaultyTransport(httpx.ASGITransport(app=app))
    client = rig_client(
        dialect or _dialect[-1],
        location,
        transport,
        clock=clock,
        sleep=clock.sleep,
        **(client_kw or {}),
    )
    try:
        yield Rig(app, clock, transport, client, location)
    finally:
        await client.aclose()
        app.state.backend.close()
