"""The auth matrix (401, 403, 404) and per-IP rate limiting with its headers, on a fake clock."""

from __future__ import annotations

import math

import httpx
import pytest
from starlette.applications import Starlette

from kiosk.demo import create_app
from kiosk.demo.backend import FAILED_AUTH_LIMIT
from kiosk.demo.data import AIRPORT, DOWNTOWN, MERCHANT_SLUG, WESTSIDE

from .support import DT, WS, Clock, make_client, new_cart

GOOD_PATHS = [
    "/locations/{loc}",
    "/locations/{loc}/time-intervals",
    "/locations/{loc}/gratuity",
    "/locations/{loc}/menus",
    "/locations/{loc}/products",
    "/locations/{loc}/products/prd_latte",
]


@pytest.mark.parametrize("path", GOOD_PATHS)
@pytest.mark.parametrize("ident", [DOWNTOWN.id, DOWNTOWN.slug])
async def test_own_key_by_id_or_slug(app: Starlette, path: str, ident: str) -> None:
    async with make_client(app, DOWNTOWN.api_key) as c:
        r = await c.get(path.format(loc=ident))
    assert r.status_code == 200, r.text


@pytest.mark.parametrize("path", GOOD_PATHS)
@pytest.mark.parametrize(
    ("key", "status", "code"),
    [
        pytest.param(None, 401, "UNAUTHORIZED", id="missing"),
        pytest.param("", 401, "UNAUTHORIZED", id="empty"),
        pytest.param("sk_demo_downtown_wrong", 401, "UNAUTHORIZED", id="wrong"),
        pytest.param(DOWNTOWN.api_key.upper(), 401, "UNAUTHORIZED", id="wrong-case"),
        pytest.param(WESTSIDE.api_key, 403, "LOCATION_MISMATCH", id="other-location"),
        pytest.param(AIRPORT.api_key, 403, "SUBSCRIPTION_REQUIRED", id="unsubscribed"),
    ],
)
async def test_refused_keys(
    app: Starlette, path: str, key: str | None, status: int, code: str
) -> None:
    async with make_client(app, key) as c:
        r = await c.get(path.format(loc=DOWNTOWN.id))
    assert r.status_code == status
    body = r.json()
    if status == 401:
        assert body == {"success": False, "message": body["message"], "code": "UNAUTHORIZED"}
    else:
        assert body["error"] == "forbidden" and body["code"] == code and body["status"] == 403
    # Every /api/v1 answer carries the rate-limit headers, refusals included.
    assert "x-ratelimit-remaining" in r.headers and "x-ratelimit-reset" in r.headers


async def test_unsubscribed_location_with_its_own_key(app: Starlette) -> None:
    async with make_client(app, AIRPORT.api_key) as c:
        r = await c.get(f"/locations/{AIRPORT.id}")
        assert r.status_code == 403 and r.json()["code"] == "SUBSCRIPTION_REQUIRED"
        r = await c.post(f"/locations/{AIRPORT.id}/carts", json={"currentCartId": ""})
        assert r.status_code == 403


async def test_writes_are_checked_too(app: Starlette) -> None:
    async with make_client(app, DOWNTOWN.api_key) as dt, make_client(app, WESTSIDE.api_key) as ws:
        cart_id = await new_cart(dt)
        r = await ws.post(
            f"/locations/{DT}/carts/{cart_id}/cart-item",
            json={"productId": "prd_cookie", "quantity": 1},
        )
        assert r.status_code == 403 and r.json()["code"] == "LOCATION_MISMATCH"
        # A downtown cart seen through the westside location (with the westside key) is not there.
        r = await ws.get(f"/locations/{WS}/carts/{cart_id}")
        assert r.status_code == 404 and r.json()["code"] == "NOT_FOUND"
        async with make_client(app, None) as anon:
            r = await anon.delete(f"/locations/{DT}/carts/{cart_id}")
            assert r.status_code == 401
        assert (await dt.get(f"/locations/{DT}/carts/{cart_id}")).status_code == 200


async def test_merchant(app: Starlette) -> None:
    async with make_client(app, WESTSIDE.api_key) as c:
        r = await c.get(f"/merchant/{MERCHANT_SLUG}")
        assert r.status_code == 200
        ids = [loc["id"] for loc in r.json()["locations"]]
        assert ids == [DOWNTOWN.id, WESTSIDE.id]  # the unsubscribed one is hidden
        r = await c.get("/merchant/someone-else")
        assert r.status_code == 404 and r.json()["code"] == "NOT_FOUND"
    async with make_client(app, None) as c:
        assert (await c.get(f"/merchant/{MERCHANT_SLUG}")).status_code == 401
    async with make_client(app, AIRPORT.api_key) as c:
        assert (await c.get(f"/merchant/{MERCHANT_SLUG}")).status_code == 403


async def test_unknown_location_with_a_good_key_is_404(app: Starlette) -> None:
    async with make_client(app, DOWNTOWN.api_key) as c:
        r = await c.get("/locations/loc_mars")
    assert r.status_code == 404 and r.json()["code"] == "NOT_FOUND"


# -- rate limiting ---------------------------------------------------------------------------


@pytest.fixture
def limited(clock: Clock) -> Starlette:
    return create_app(clock=clock, rate_limit=5, rate_window=60.0)


async def test_window_headers_429_and_reset(limited: Starlette, clock: Clock) -> None:
    start = clock.now
    reset = str(math.ceil(start + 60))
    async with make_client(limited, DOWNTOWN.api_key) as c:
        for expected in (4, 3, 2, 1, 0):
            r = await c.get(f"/locations/{DT}/gratuity")
            assert r.status_code == 200
            assert r.headers["x-ratelimit-remaining"] == str(expected)
            assert r.headers["x-ratelimit-reset"] == reset
            clock.advance(1.5)
        r = await c.get(f"/locations/{DT}/gratuity")
        assert r.status_code == 429
        body = r.json()
        assert body["error"] == "rate_limit_exceeded" and body["status"] == 429
        # 7.5 s into the 60 s window: 52.5 s left, rounded up.
        assert body["retryAfter"] == 53
        assert r.headers["retry-after"] == "53"
        assert r.headers["x-ratelimit-remaining"] == "0"
        assert r.headers["x-ratelimit-reset"] == reset
        # Still refused just before the reset, allowed at it, with a fresh window.
        clock.now = start + 59.9
        assert (await c.get(f"/locations/{DT}/gratuity")).status_code == 429
        clock.now = start + 60
        r = await c.get(f"/locations/{DT}/gratuity")
        assert r.status_code == 200
        assert r.headers["x-ratelimit-remaining"] == "4"
        assert r.headers["x-ratelimit-reset"] == str(math.ceil(start + 120))


async def test_limit_is_per_client_ip_and_counted_after_authentication(
    limited: Starlette,
) -> None:
    # A wrong key spends only the failed-authentication allowance, never the IP's real budget.
    async with make_client(limited, "bad-key", "10.0.0.1") as bad:
        for _ in range(FAILED_AUTH_LIMIT):
            assert (await bad.get(f"/locations/{DT}")).status_code == 401
        flood = await bad.get(f"/locations/{DT}")
        assert flood.status_code == 429
        assert flood.headers["x-ratelimit-limit"] == str(FAILED_AUTH_LIMIT)
    async with make_client(limited, DOWNTOWN.api_key, "10.0.0.1") as good:
        r = await good.get(f"/locations/{DT}")
        assert r.status_code == 200 and r.headers["x-ratelimit-remaining"] == "4"
    async with make_client(limited, DOWNTOWN.api_key, "10.0.0.2") as other:
        r = await other.get(f"/locations/{DT}")
        assert r.status_code == 200 and r.headers["x-ratelimit-remaining"] == "4"


async def test_three_hundred_wrong_keys_leave_the_real_budget_whole(app: Starlette) -> None:
    async with make_client(app, "sk_demo_downtown_guess", "10.0.0.9") as bad:
        codes = [(await bad.get(f"/locations/{DT}")).status_code for _ in range(300)]
    assert codes.count(401) == FAILED_AUTH_LIMIT and codes.count(429) == 300 - FAILED_AUTH_LIMIT
    async with make_client(app, DOWNTOWN.api_key, "10.0.0.9") as good:
        r = await good.get(f"/locations/{DT}")
    assert r.status_code == 200 and r.headers["x-ratelimit-remaining"] == "199"


async def test_the_limit_can_be_off(clock: Clock) -> None:
    app = create_app(clock=clock, rate_limit=None)
    async with make_client(app, DOWNTOWN.api_key) as c:
        for _ in range(250):
            r = await c.get(f"/locations/{DT}/gratuity")
            assert r.status_code == 200
    assert "x-ratelimit-remaining" not in r.headers


async def test_demo_endpoints_are_not_limited(limited: Starlette) -> None:
    transport = httpx.ASGITransport(app=limited)
    async with httpx.AsyncClient(transport=transport, base_url="http://demo") as c:
        for _ in range(12):
            r = await c.get("/demo/stats")
            assert r.status_code == 200
            assert "x-ratelimit-remaining" not in r.headers


async def test_default_limit_is_200_per_10_minutes(app: Starlette, clock: Clock) -> None:
    async with make_client(app, DOWNTOWN.api_key) as c:
        r = await c.get(f"/locations/{DT}/gratuity")
    assert r.headers["x-ratelimit-remaining"] == "199"
    assert r.headers["x-ratelimit-reset"] == str(math.ceil(clock.now + 600))
    assert r.headers["x-ratelimit-limit"] == "200"
