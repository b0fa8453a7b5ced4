"""Faults (each one), the /demo control endpoints, statistics and run-time sold-out flags."""

from __future__ import annotations

import time

import httpx
import pytest
from starlette.applications import Starlette

from kiosk.demo.backend import Backend
from kiosk.demo.faults import Faults

from .support import DT, add, get_cart, new_cart


async def test_error_rate_answers_5xx_and_writes_nothing(
    dt: httpx.AsyncClient, backend: Backend
) -> None:
    cart_id = await new_cart(dt)
    before = await get_cart(dt, cart_id)
    backend.faults.update({"error_rate": 1.0})
    r = await add(dt, cart_id, "prd_cookie")
    assert r.status_code == 500
    assert r.json() == {"success": False, "message": r.json()["message"], "code": "GENERIC_ERROR"}
    assert "x-ratelimit-remaining" in r.headers
    backend.faults.update({"error_status": 503})
    assert (await dt.get(f"/locations/{DT}")).status_code == 503
    backend.faults.reset()
    assert await get_cart(dt, cart_id) == before


async def test_error_rate_is_a_share(dt: httpx.AsyncClient, backend: Backend) -> None:
    backend.faults.update({"error_rate": 0.3, "seed": 7})
    codes = [(await dt.get(f"/locations/{DT}/gratuity")).status_code for _ in range(200)]
    failed = codes.count(500)
    assert 35 <= failed <= 85, failed
    assert set(codes) == {200, 500}


async def test_drop_after_commit(dt: httpx.AsyncClient, backend: Backend) -> None:
    cart_id = await new_cart(dt)
    backend.faults.update({"drop_after_commit_rate": 1.0})
    with pytest.raises(httpx.RemoteProtocolError):
        await add(dt, cart_id, "prd_cookie")
    # Reads are not dropped, and the write above was committed.
    cart = await get_cart(dt, cart_id)
    assert cart["totalQuantity"] == 1
    # Failed writes are not dropped either: nothing was committed, the client gets its 400.
    assert (await add(dt, cart_id, "prd_unicorn")).status_code == 400
    backend.faults.reset()
    assert (await add(dt, cart_id, "prd_cookie")).status_code == 200


async def test_burst_429(dt: httpx.AsyncClient, backend: Backend) -> None:
    backend.faults.update({"burst_429": 2, "burst_retry_after_s": 3})
    for _ in range(2):
        r = await dt.get(f"/locations/{DT}")
        assert r.status_code == 429
        assert r.json()["retryAfter"] == 3 and r.headers["retry-after"] == "3"
        assert r.json()["error"] == "rate_limit_exceeded"
    assert (await dt.get(f"/locations/{DT}")).status_code == 200
    assert backend.faults.burst_429 == 0


async def test_latency_and_stall(dt: httpx.AsyncClient, backend: Backend) -> None:
    cart_id = await new_cart(dt)
    backend.faults.update({"latency_s": 0.15})
    started = time.perf_counter()
    assert (await dt.get(f"/locations/{DT}")).status_code == 200
    assert time.perf_counter() - started >= 0.15
    backend.faults.update({"latency_s": 0, "stall_s": 0.15})
    started = time.perf_counter()
    assert (await add(dt, cart_id, "prd_cookie")).status_code == 200
    assert time.perf_counter() - started >= 0.15


async def test_a_stalled_write_is_committed_before_the_client_gives_up(
    app: Starlette, backend: Backend
) -> None:
    from kiosk.demo.data import DOWNTOWN

    transport = httpx.ASGITransport(app=app)
    headers = {"X-API-Key": DOWNTOWN.api_key}
    async with httpx.AsyncClient(
        transport=transport, base_url="http://demo/api/v1", headers=headers
    ) as c:
        cart_id = await new_cart(c)
        backend.faults.update({"stall_s": 5.0})
        import asyncio

        with pytest.raises(TimeoutError):
            await asyncio.wait_for(add(c, cart_id, "prd_cookie"), 0.2)
        backend.faults.reset()
        assert (await get_cart(c, cart_id))["totalQuantity"] == 1


async def test_faults_over_the_demo_endpoint(root: httpx.AsyncClient, backend: Backend) -> None:
    r = await root.get("/demo/faults")
    assert r.json()["error_rate"] == 0.0 and r.json()["burst_429"] == 0
    r = await root.post("/demo/faults", json={"latency_s": 0.5, "burst_429": 3})
    assert r.status_code == 200 and r.json()["latency_s"] == 0.5
    assert backend.faults.burst_429 == 3
    for bad in ({"error_rate": 2}, {"latency_s": "slow"}, {"nonsense": 1}, {"burst_429": 1.5}):
        r = await root.post("/demo/faults", json={"error_rate": 0.1, **bad})
        assert r.status_code == 400, bad
        assert r.json()["details"]["field"] == "faults"
    assert backend.faults.error_rate == 0.0  # a refused update changes nothing
    r = await root.post("/demo/faults/reset")
    assert r.json()["latency_s"] == 0.0 and r.json()["burst_429"] == 0


async def test_demo_control_endpoints_answer_only_on_loopback(app: Starlette) -> None:
    transport = httpx.ASGITransport(app=app, client=("192.168.1.20", 5000))
    async with httpx.AsyncClient(transport=transport, base_url="http://demo") as c:
        for path in ("/demo/faults", "/demo/stats"):
            assert (await c.get(path)).status_code == 403
        assert (await c.post("/demo/faults", json={"error_rate": 1})).status_code == 403
        assert (await c.post("/demo/sold-out", json={"itemId": "prd_latte"})).status_code == 403
        # The checkout page is for customers' phones: reachable.
        assert (await c.get("/demo/checkout/pi_nope")).status_code == 404
        assert (await c.get("/demo/health")).status_code == 200
    assert app.state.backend.faults.error_rate == 0.0


async def test_stats(dt: httpx.AsyncClient, root: httpx.AsyncClient, app: Starlette) -> None:
    await root.post("/demo/stats/reset")
    cart_id = await new_cart(dt)
    await get_cart(dt, cart_id)
    await get_cart(dt, cart_id)
    await dt.get("/locations/nowhere/gratuity")
    async with httpx.AsyncClient(
        transport=httpx.ASGITransport(app=app, client=("10.1.1.1", 1)),
        base_url="http://demo/api/v1",
    ) as other:
        await other.get(f"/locations/{DT}")
    stats = (await root.get("/demo/stats")).json()
    assert stats["total"] == 5
    assert stats["byClient"] == {"127.0.0.1": 4, "10.1.1.1": 1}
    assert stats["byPath"]["GET /api/v1/locations/{locationId}/carts/{cartId}"] == 2
    assert stats["byPath"]["POST /api/v1/locations/{locationId}/ordering-sessions"] == 1
    assert stats["byStatus"] == {"200": 3, "404": 1, "401": 1}
    await root.post("/demo/stats/reset")
    assert (await root.get("/demo/stats")).json()["total"] == 0


async def test_sold_out_over_the_demo_endpoint(
    dt: httpx.AsyncClient, root: httpx.AsyncClient
) -> None:
    r = await root.post("/demo/sold-out", json={"itemId": "prd_cookie", "soldOut": True})
    assert r.json() == {"itemId": "prd_cookie", "soldOut": True}
    detail = (await dt.get(f"/locations/{DT}/products/prd_cookie")).json()
    assert detail["availability"] == "unavailable"
    await root.post("/demo/sold-out", json={"itemId": "prd_cookie", "soldOut": False})
    assert (await dt.get(f"/locations/{DT}/products/prd_cookie")).json()[
        "availability"
    ] == "available"
    r = await root.post("/demo/sold-out", json={"itemId": "prd_unicorn"})
    assert r.status_code == 400
    r = await root.post("/demo/sold-out", json={"itemId": "prd_cookie", "soldOut": "yes"})
    assert r.status_code == 400


async def test_rate_limit_reset_endpoint(root: httpx.AsyncClient, backend: Backend) -> None:
    backend.limiter.hit("127.0.0.1")
    assert backend.limiter.hit("127.0.0.1")[1] == 198
    await root.post("/demo/rate-limit/reset")
    assert backend.limiter.hit("127.0.0.1")[1] == 199


def test_faults_validate_before_applying() -> None:
    faults = Faults()
    with pytest.raises(ValueError):
        faults.update({"latency_s": 1.0, "error_rate": -0.1})
    assert faults.latency_s == 0.0
    faults.update({"seed": 3, "error_rate": 0.5})
    first = [faults.roll(0.5) for _ in range(20)]
    faults.update({"seed": 3})
    assert [faults.roll(0.5) for _ in range(20)] == first
    assert faults.roll(0.0) is False and faults.roll(1.0) is True
