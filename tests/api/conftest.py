"""Helpers for the Storefront client tests: a fake clock, a recording MockTransport, a client."""

from __future__ import annotations

import asyncio
import json
from collections import deque
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

import httpx
import pytest

from kiosk.api import RetryPolicy, StorefrontClient
from tests.contract import SPEC_CART_TOTALS

BASE = "https://api.example.test/api/v1"
API_KEY = "sk_live_TOPSECRET_9f8e7d6c5b4a"
# The vendor's fixtures travel with the tests (MIT, LICENSE beside them): a clone runs them all.
FIXTURES = Path(__file__).resolve().parents[1] / "data" / "vendor-fixtures"
EPOCH = 1_700_000_000.0


def vendor_fixture(name: str) -> Any:
    return json.loads((FIXTURES / name).read_text(encoding="utf-8"))


class FakeClock:
    """Time that moves only when the client sleeps; every sleep is recorded."""

    def __init__(self, now: float = EPOCH) -> None:
        self.now = now
        self.sleeps: list[float] = []

    def time(self) -> float:
        return self.now

    async def sleep(self, seconds: float) -> None:
        self.sleeps.append(seconds)
        self.now += seconds
        await asyncio.sleep(0)


Item = httpx.Response | type[Exception] | Callable[[httpx.Request], Any]


class Server:
    """A MockTransport handler: records every request, answers from a queue (then `default`).

    Queue items are an httpx.Response, an httpx exception class (raised with the request), or a
    callable taking the request and returning a response (it may be async).
    """

    def __init__(self) -> None:
        self.requests: list[httpx.Request] = []
        self.queue: deque[Item] = deque()
        self.default: Item | None = None

    def reply(self, *items: Item) -> Server:
        self.queue.extend(items)
        return self

    async def __call__(self, request: httpx.Request) -> httpx.Response:
        self.requests.append(request)
        item = self.queue.popleft() if self.queue else self.default
        if item is None:
            raise AssertionError(f"unexpected request {request.method} {request.url}")
        if isinstance(item, httpx.Response):
            return item
        if isinstance(item, type) and issubclass(item, Exception):
            if issubclass(item, httpx.RequestError):
                raise item("simulated", request=request)
            raise item("simulated")
        result = item(request)
        if asyncio.iscoroutine(result):
            result = await result
        return result  # type: ignore[no-any-return]

    @property
    def last(self) -> httpx.Request:
        return self.requests[-1]

    def body(self, index: int = -1) -> Any:
        content = self.requests[index].content
        return json.loads(content) if content else None


def ok(
    body: Any = None, status: int = 200, headers: dict[str, str] | None = None
) -> httpx.Response:
    if body is None:
        return httpx.Response(status, headers=headers)
    return httpx.Response(status, json=body, headers=headers)


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock()


@pytest.fixture
def server() -> Server:
    return Server()


ClientFactory = Callable[..., StorefrontClient]


@pytest.fixture
async def make_client(clock: FakeClock, server: Server) -> AsyncIterator[ClientFactory]:
    made: list[StorefrontClient] = []

    def make(**kw: Any) -> StorefrontClient:
        kw.setdefault("transport", httpx.MockTransport(server))
        kw.setdefault("clock", clock.time)
        kw.setdefault("sleep", clock.sleep)
        kw.setdefault("retry", RetryPolicy(random=lambda: 0.0))
        client = StorefrontClient(kw.pop("base_url", BASE), kw.pop("api_key", API_KEY), **kw)
        made.append(client)
        return client

    yield make
    for client in made:
        await client.aclose()


@pytest.fixture
def client(make_client: ClientFactory) -> StorefrontClient:
    return make_client()


TOTALS_CAMEL = SPEC_CART_TOTALS


def spec_cart(**overrides: Any) -> dict[str, Any]:
    """A cart exactly as spec 2.4 to 2.7 describe it: non-zero totals as minor-unit strings, zero
    totals as "0.00", every total with its Formatted twin."""
    cart: dict[str, Any] = {
        "id": "cart_1",
        "locationId": "loc_1",
        "status": "OPEN",
        "lockedAt": None,
        "discountCode": None,
        "currency": "usd",
        "fulfilmentMethod": "pickup",
        "statementDescriptor": "DEMO CAFE",
        "pickupType": "ASAP",
        "orderDate": "2026-08-10",
        "orderTime": "12:00",
        "totalQuantity": 2,
        "restaurantDisplayName": "Demo Cafe",
        "deliveryInfo": None,
        "tableServiceInfo": None,
        "roomServiceInfo": None,
        "fees": {
            "enterpriseFeeRate": "0.0000",
            "enterpriseFeeFix": "0.00",
            "serviceFeeRate": "0.0200",
            "serviceFeeFix": "0.30",
            "taxRate": "0.0875",
            "tipRate": "0.1800",
            "fulfillmentMethodFeeFix": "0.00",
            "fulfillmentMethodFeeRate": "0.0000",
            "paymentProcessingFeeRate": "0.0000",
            "paymentProcessingFeeFix": "0.00",
        },
        "items": [
            {
                "id": "item_1",
                "productId": "prod_1",
                "name": "Latte",
                "description": "Double shot",
                "imageUrl": "https://img.example.test/latte.png",
                "price": "625",
                "priceFormatted": "$6.25",
                "quantity": 2,
                "total": "1250",
                "totalFormatted": "$12.50",
                "discount": "0.00",
                "discountFormatted": "$0.00",
                "selections": [{"groupId": "g_size", "selectedOptions": [{"optionId": "o_l"}]}],
            }
        ],
        "metadata": {"kiosk": "front"},
        "checkoutUrl": "https://pay.example.test/c/cart_1",
        "fulfillmentIdentifier": None,
        "subTotal": "1250",
        "discountTotal": "0.00",
        "waiterTipTotal": "225",
        "taxTotal": "109",
        "taxAndFeeTotal": "164",
        "serviceFeeTotal": "55",
        "paymentProcessingFeeTotal": "0.00",
        "applicationFeeTotal": "0.00",
        "netSalesTotal": "1250",
        "fulfillmentMethodFeeTotal": "0.00",
        "orderTotalWithServiceFee": "1639",
        "orderTotal": "1584",
        "enterpriseFeeTotal": "0.00",
        "subTotalWithoutDiscount": "1250",
        "orderTotalWithServiceFeeAmount": 1639,
    }
    for name in TOTALS_CAMEL:
        raw = cart[name]
        minor = int(raw.replace(".", "")) if "." in raw else int(raw)
        cart[name + "Formatted"] = f"${minor // 100}.{minor % 100:02d}"
    cart.update(overrides)
    return cart
