"""Issue 35, item 3: trust no other site. Redirects name a path, never the Host header; every
state-changing /demo route and staff page refuses a request a browser sent for another site's
page, and the same request from the demo's own page (or from no browser: the kiosk) still works;
the counter finds a waiting payment by its code however many are waiting."""

from __future__ import annotations

import re
from typing import Any

import httpx
import pytest
from starlette.applications import Starlette

from kiosk.demo.backend import Backend
from kiosk.demo.store import COUNTER_CODE_SQL

from .support import DT, Clock, add, new_cart

# What a browser sends with a request made by a page of another site (a form it posts, a fetch).
CROSS_SITE = [
    {"Sec-Fetch-Site": "cross-site", "Origin": "https://evil.example"},
    {"Sec-Fetch-Site": "same-site", "Origin": "http://demo:9000"},  # another port, this host
    {"Origin": "https://evil.example"},  # a browser without Sec-Fetch-* headers
    {"Origin": "null"},  # a sandboxed frame, a data: page
]
# The demo's own checkout page posting its form; a user opening an address or a bookmark.
OWN_PAGE = {"Sec-Fetch-Site": "same-origin", "Origin": "http://demo"}
TYPED = {"Sec-Fetch-Site": "none"}


@pytest.fixture
async def local(app: Starlette) -> Any:
    transport = httpx.ASGITransport(app=app)
    async with httpx.AsyncClient(transport=transport, base_url="http://demo") as client:
        yield client


async def waiting_payment(dt: httpx.AsyncClient) -> tuple[str, dict[str, Any]]:
    cart = await new_cart(dt)
    assert (await add(dt, cart, "prd_cookie")).status_code == 200
    r = await dt.post(f"/locations/{DT}/carts/{cart}/payment-intent")
    assert r.status_code == 200, r.text
    return cart, r.json()


async def page_secret(local: httpx.AsyncClient, intent: dict[str, Any]) -> str:
    """The secret the checkout page's form carries, as a browser would post it."""
    page = await local.get(f"/demo/checkout/{intent['paymentIntentId']}")
    found = re.search(r'name="clientSecret" value="([^"]+)"', page.text)
    assert found, page.text
    return found.group(1)


# --- redirects --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("target", "location"),
    [
        ("/demo/counter/", "/demo/counter"),
        ("/demo/counter/?code=ABC123", "/demo/counter?code=ABC123"),
        ("/demo/health/", "/demo/health"),
    ],
)
async def test_a_trailing_slash_redirects_to_a_path_never_to_the_host_header(
    app: Starlette, target: str, location: str
) -> None:
    transport = httpx.ASGITransport(app=app, client=("203.0.113.9", 40000))  # a phone
    async with httpx.AsyncClient(transport=transport, base_url="http://demo") as phone:
        r = await phone.get(target, headers={"Host": "evil.example"})
    assert r.status_code == 307 and r.headers["location"] == location


@pytest.mark.parametrize(
    "target", ["http://demo//evil.example/", "/demo/nothing-here/", "/demo/faults/reset/"]
)
async def test_no_redirect_leaves_this_server(local: httpx.AsyncClient, target: str) -> None:
    r = await local.get(target, headers={"Host": "evil.example"})
    assert r.status_code in (404, 405), (r.status_code, r.headers.get("location"))
    assert "location" not in r.headers


# --- cross-site requests ----------------------------------------------------------------------


@pytest.mark.parametrize("browser", CROSS_SITE)
async def test_the_loopback_controls_refuse_another_sites_page(
    local: httpx.AsyncClient, backend: Backend, browser: dict[str, str]
) -> None:
    backend.faults.update({"latency_s": 0.01})
    sold_out = await local.post(
        "/demo/sold-out", json={"itemId": "prd_cookie", "soldOut": True}, headers=browser
    )
    reset = await local.post("/demo/faults/reset", headers=browser)
    faults = await local.post("/demo/faults", json={"error_rate": 1.0}, headers=browser)
    stats = await local.post("/demo/stats/reset", headers=browser)
    limit = await local.post("/demo/rate-limit/reset", headers=browser)
    for r in (sold_out, reset, faults, stats, limit):
        assert r.status_code == 403 and r.json()["code"] == "CROSS_SITE_REQUEST", r.text
    assert backend.faults.latency_s == 0.01 and backend.faults.error_rate == 0
    assert "prd_cookie" not in backend.sold_out()


async def test_the_loopback_controls_still_answer_this_machine(
    local: httpx.AsyncClient, backend: Backend
) -> None:
    backend.faults.update({"latency_s": 0.01})
    for headers in ({}, OWN_PAGE, TYPED):  # the kiosk (no browser), the demo's page, a typed URL
        assert (await local.post("/demo/faults/reset", headers=headers)).status_code == 200
        assert backend.faults.latency_s == 0
        backend.faults.update({"latency_s": 0.01})


@pytest.mark.parametrize("browser", CROSS_SITE)
async def test_the_pay_form_refuses_another_sites_page(
    dt: httpx.AsyncClient, local: httpx.AsyncClient, backend: Backend, browser: dict[str, str]
) -> None:
    cart, intent = await waiting_payment(dt)
    secret = await page_secret(local, intent)
    card = {"clientSecret": secret, "cardNumber": "4242 4242 4242 4242"}
    r = await local.post("/demo/processor/confirm", data=card, headers=browser)
    assert r.status_code == 403
    by_url = {"checkoutUrl": intent["checkoutUrl"], "cardNumber": "4242 4242 4242 4242"}
    r = await local.post("/demo/processor/confirm", json=by_url, headers=browser)
    assert r.status_code == 403
    assert backend.get_cart_json(cart)["status"] == "LOCKED"  # not paid


async def test_the_pay_form_still_pays_from_its_own_page(
    dt: httpx.AsyncClient, local: httpx.AsyncClient, backend: Backend
) -> None:
    cart, intent = await waiting_payment(dt)
    secret = await page_secret(local, intent)
    card = {"clientSecret": secret, "cardNumber": "4242 4242 4242 4242"}
    r = await local.post("/demo/processor/confirm", data=card, headers=OWN_PAGE)
    assert r.status_code == 200 and "Thank you" in r.text
    assert backend.get_cart_json(cart)["status"] == "COMPLETED"


async def test_a_configured_public_address_is_the_pages_own(
    dt: httpx.AsyncClient, local: httpx.AsyncClient, backend: Backend
) -> None:
    backend.public_base_url = "https://kiosk.example.com"
    cart, intent = await waiting_payment(dt)
    card = {"clientSecret": await page_secret(local, intent), "cardNumber": "4242 4242 4242 4242"}
    # An older browser behind the configured address sends only Origin.
    r = await local.post(
        "/demo/processor/confirm", data=card, headers={"Origin": "https://kiosk.example.com"}
    )
    assert r.status_code == 200, r.text
    assert backend.get_cart_json(cart)["status"] == "COMPLETED"


@pytest.mark.parametrize("browser", CROSS_SITE)
async def test_the_counter_page_refuses_another_sites_page(
    local: httpx.AsyncClient, browser: dict[str, str]
) -> None:
    r = await local.get("/demo/counter", headers=browser)
    assert r.status_code == 403 and "Orders to pay" not in r.text
    assert r.headers["content-type"].startswith("text/html")


async def test_the_counter_page_opens_from_its_link_and_its_own_form(
    local: httpx.AsyncClient,
) -> None:
    for headers in ({}, TYPED, OWN_PAGE):
        r = await local.get("/demo/counter", params={"code": "ABC123"}, headers=headers)
        assert r.status_code == 200 and "Orders to pay" in r.text


@pytest.mark.parametrize("host", ["evil.example:8765", "evil.example", "192.0.2.7:8765"])
async def test_a_page_under_a_name_rebound_to_loopback_is_refused(
    local: httpx.AsyncClient, backend: Backend, host: str
) -> None:
    # DNS rebinding: to the browser the request is same-origin; only the Host header tells.
    headers = {"Host": host, "Sec-Fetch-Site": "same-origin", "Origin": f"http://{host}"}
    backend.faults.update({"latency_s": 0.01})
    assert (await local.post("/demo/faults/reset", headers=headers)).status_code == 403
    assert backend.faults.latency_s == 0.01
    assert (await local.get("/demo/counter", headers=headers)).status_code == 403


@pytest.mark.parametrize("host", ["127.0.0.1:8765", "localhost:8765", "[::1]:8765", "demo"])
async def test_this_machines_names_still_reach_the_controls(
    local: httpx.AsyncClient, backend: Backend, host: str
) -> None:
    headers = {"Host": host, "Sec-Fetch-Site": "same-origin", "Origin": f"http://{host}"}
    backend.faults.update({"latency_s": 0.01})
    assert (await local.post("/demo/faults/reset", headers=headers)).status_code == 200
    assert backend.faults.latency_s == 0


async def test_staff_on_their_own_device_reach_the_counter_by_its_token(
    app: Starlette, backend: Backend
) -> None:
    # Off this machine the token is the credential, whatever name the device used.
    transport = httpx.ASGITransport(app=app, client=("192.168.1.20", 40000))
    async with httpx.AsyncClient(transport=transport, base_url="http://kiosk.lan:8765") as phone:
        r = await phone.get("/demo/counter", params={"token": backend.counter_token}, headers=TYPED)
    assert r.status_code == 200 and "Orders to pay" in r.text


# --- the counter finds any waiting payment by its code -----------------------------------------


async def test_the_counter_finds_a_waiting_payment_among_many(
    dt: httpx.AsyncClient, local: httpx.AsyncClient, backend: Backend, clock: Clock
) -> None:
    backend.limiter.limit = None
    first, _ = await waiting_payment(dt)
    for _ in range(60):  # more than a page of newer payments
        clock.advance(1)
        await waiting_payment(dt)
    code = first[-6:].upper()
    r = await local.get("/demo/counter", params={"code": code.lower()})
    assert r.status_code == 200 and f"<b>{code}</b>" in r.text
    listing = await local.get("/demo/counter")
    assert "newest of 61" in listing.text
    missing = await local.get("/demo/counter", params={"code": "ZZZZZZ"})
    assert "No payment waits under the code ZZZZZZ" in missing.text
    with backend.store.read() as conn:
        plan = conn.execute(
            "EXPLAIN QUERY PLAN SELECT id FROM payment_intents"
            f" WHERE status = 'requires_payment_method' AND {COUNTER_CODE_SQL} = ?",
            (code,),
        ).fetchall()
    assert "payment_intents_counter_code" in str(plan)
