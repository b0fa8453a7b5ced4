"""2.0's ordering readiness read by the client against the strict server: the server's word on
whether an order for now is taken (closed: not ready, with its reason). The kiosk reads it only
when nothing on the menus is served now (kiosk.ordering.visit.Visit.menus; journey 30)."""

from __future__ import annotations

import httpx

from kiosk.api.v2 import StorefrontClientV2
from tests.conformance.vendor_server import make_vendor_app
from tests.journeys.harness import BASE_URL, LOCATION_ID, seed_with


async def readiness(seed: object = None) -> object:
    app = make_vendor_app(seed)
    client = StorefrontClientV2(BASE_URL, transport=httpx.ASGITransport(app=app))
    try:
        return await client.ordering_readiness(LOCATION_ID, "pickup")
    finally:
        await client.aclose()
        assert app.state.violations == [], app.state.violations


async def test_an_open_location_is_ready() -> None:
    ready = await readiness()
    assert ready.ready is True  # type: ignore[attr-defined]


async def test_a_closed_location_is_not_ready_and_says_why() -> None:
    ready = await readiness(seed_with(closed_reason="Closed for a private event"))
    assert ready.ready is False  # type: ignore[attr-defined]
    assert ready.reason == "Closed for a private event"  # type: ignore[attr-defined]
