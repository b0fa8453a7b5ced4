"""The demo backend over real HTTP: uvicorn on a free 127.0.0.1 port, started and stopped here."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from kiosk.demo import create_app
from kiosk.demo.data import AIRPORT, DOWNTOWN, MERCHANT_SLUG, WESTSIDE
from kiosk.demo.server import ServerThread, serve_in_background

from .support import DT, LATTE_OK, WS, Clock


@pytest.fixture
def server(tmp_path: Path, clock: Clock) -> Iterator[ServerThread]:
    app = create_app(tmp_path / "demo.sqlite3", clock=clock)
    with ServerThread(app) as running:
        yield running
    app.state.backend.close()


def client(server: ServerThread, key: str | None = DOWNTOWN.api_key) -> httpx.Client:
    headers = {"X-API-Key": key} if key else {}
    return httpx.Client(base_url=server.base_url, headers=headers, timeout=10)


def test_a_whole_order_over_http(server: ServerThread) -> None:
    assert re.fullmatch(r"http://127\.0\.0\.1:\d+/api/v1", server.base_url)
    with client(server) as c, httpx.Client(base_url=server.url, timeout=10) as browser:
        r = c.get(f"/merchant/{MERCHANT_SLUG}")
        assert r.status_code == 200 and r.headers["x-ratelimit-remaining"] == "199"
        assert c.get(f"/locations/{DOWNTOWN.slug}").json()["id"] == DT
        assert c.get(f"/locations/{DT}/menus").json()["menus"]
        assert c.get(f"/locations/{DT}/products/prd_latte").json()["modifiers"]
        cart_id = c.post(
            f"/locations/{DT}/ordering-sessions", json={"fulfillmentMethod": "pickup"}
        ).json()["cartId"]
        r = c.post(
            f"/locations/{DT}/carts/{cart_id}/cart-item",
            json={"productId": "prd_latte", "quantity": 2, "modifiers": LATTE_OK},
        )
        assert r.status_code == 200 and r.json()["cart"]["subTotal"] == "950"
        assert c.post(f"/locations/{DT}/carts/{cart_id}/validate").json()["valid"] is True
        intent = c.post(f"/locations/{DT}/carts/{cart_id}/payment-intent").json()
        cart = c.get(f"/locations/{DT}/carts/{cart_id}").json()
        assert cart["status"] == "LOCKED"
        # The checkout URL is the server's own, and reachable.
        assert cart["checkoutUrl"] == f"{server.url}/demo/checkout/{intent['paymentIntentId']}"
        page = browser.get(cart["checkoutUrl"].removeprefix(server.url))
        assert page.status_code == 200 and "Pay" in page.text
        paid = browser.post(
            "/demo/processor/confirm",
            data={"clientSecret": intent["clientSecret"], "cardNumber": "4242 4242 4242 4242"},
        )
        assert paid.status_code == 200 and "A001" in paid.text
        cart = c.get(f"/locations/{DT}/carts/{cart_id}").json()
        assert (cart["status"], cart["fulfillmentIdentifier"]) == ("COMPLETED", "A001")
        assert c.delete(f"/locations/{DT}/carts/{cart_id}").json() == {"success": True}


def test_auth_over_http(server: ServerThread) -> None:
    with client(server, None) as anon:
        r = anon.get(f"/locations/{DT}")
        assert r.status_code == 401 and r.json()["code"] == "UNAUTHORIZED"
    with client(server, WESTSIDE.api_key) as ws:
        assert ws.get(f"/locations/{DT}").json()["code"] == "LOCATION_MISMATCH"
        assert ws.get(f"/locations/{WS}").status_code == 200
    with client(server, AIRPORT.api_key) as ap:
        assert ap.get(f"/locations/{AIRPORT.id}").status_code == 403


def test_drop_after_commit_cuts_the_connection(server: ServerThread) -> None:
    backend = server.app.state.backend
    with client(server) as c:
        cart_id = c.post(f"/locations/{DT}/carts", json={"currentCartId": ""}).json()["cartId"]
        backend.faults.update({"drop_after_commit_rate": 1.0})
        with pytest.raises(httpx.TransportError):
            c.post(
                f"/locations/{DT}/carts/{cart_id}/cart-item",
                json={"productId": "prd_cookie", "quantity": 1},
            )
        backend.faults.reset()
        assert c.get(f"/locations/{DT}/carts/{cart_id}").json()["totalQuantity"] == 1


def test_faults_and_stats_over_http(server: ServerThread) -> None:
    with httpx.Client(base_url=server.url, timeout=10) as root, client(server) as c:
        assert root.post("/demo/faults", json={"burst_429": 1}).status_code == 200
        r = c.get(f"/locations/{DT}")
        assert r.status_code == 429 and r.headers["retry-after"] == "1"
        assert c.get(f"/locations/{DT}").status_code == 200
        stats = root.get("/demo/stats").json()
        assert stats["byClient"] == {"127.0.0.1": 2}
        assert root.post("/demo/stats/reset").json()["total"] == 0
        r = root.post(
            "/demo/faults", content=b"{nope", headers={"content-type": "application/json"}
        )
        assert r.status_code == 400


def test_a_big_body_over_http(server: ServerThread) -> None:
    with client(server) as c:
        cart_id = c.post(f"/locations/{DT}/carts", json={"currentCartId": ""}).json()["cartId"]
        r = c.post(
            f"/locations/{DT}/carts/{cart_id}/cart-item",
            content=b'{"productId": "' + b"x" * 1_048_576 + b'"}',
            headers={"content-type": "application/json"},
        )
        assert r.status_code == 413
        assert c.get(f"/locations/{DT}/carts/{cart_id}").json()["items"] == []


async def test_serve_in_background() -> None:
    app = create_app()
    async with serve_in_background(app) as base_url:
        assert base_url.startswith("http://127.0.0.1:") and base_url.endswith("/api/v1")
        async with httpx.AsyncClient(
            base_url=base_url, headers={"X-API-Key": DOWNTOWN.api_key}
        ) as c:
            assert (await c.get(f"/merchant/{MERCHANT_SLUG}")).status_code == 200
    async with httpx.AsyncClient() as after:
        with pytest.raises(httpx.ConnectError):
            await after.get(base_url + f"/merchant/{MERCHANT_SLUG}", timeout=2)
    app.state.backend.close()


def test_restart_on_the_same_file_over_http(tmp_path: Path) -> None:
    db = tmp_path / "demo.sqlite3"
    app = create_app(db)
    with ServerThread(app) as first, client(first) as c:
        cart_id = c.post(f"/locations/{DT}/carts", json={"currentCartId": ""}).json()["cartId"]
        c.post(
            f"/locations/{DT}/carts/{cart_id}/cart-item",
            json={"productId": "prd_cookie", "quantity": 3},
        )
        before = c.get(f"/locations/{DT}/carts/{cart_id}").json()
    app.state.backend.close()
    app2 = create_app(db)
    with ServerThread(app2) as second, client(second) as c:
        after = c.get(f"/locations/{DT}/carts/{cart_id}").json()
    app2.state.backend.close()
    # Equal apart from the ASAP order time, which follows the (real) clock.
    for cart in (before, after):
        cart.pop("orderTime")
        cart.pop("orderDate")
    assert after == before


def test_run_prints_the_url_and_keys(tmp_path: Path) -> None:
    with ServerThread(create_app()) as probe:  # a free port to reuse
        port = probe.port
    env = {**os.environ, "KIOSK_HOME": str(tmp_path / "home")}
    code = f"from kiosk.demo.server import run; run(port={port})"
    proc = subprocess.Popen(
        [sys.executable, "-c", code],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=env,
        text=True,
    )
    try:
        assert proc.stdout is not None
        lines = [proc.stdout.readline() for _ in range(6)]
        out = "".join(lines)
        assert f"http://127.0.0.1:{port}/api/v1" in out
        assert DOWNTOWN.api_key in out and WESTSIDE.api_key in out
        assert AIRPORT.api_key not in out
        assert str(tmp_path / "home" / "data" / "demo.sqlite3") in out
        url = f"http://127.0.0.1:{port}/api/v1/merchant/{MERCHANT_SLUG}"
        deadline = time.monotonic() + 20
        while True:  # uvicorn binds just after the banner
            assert proc.poll() is None, proc.stderr.read() if proc.stderr else ""
            try:
                r = httpx.get(url, headers={"X-API-Key": DOWNTOWN.api_key}, timeout=2)
                break
            except httpx.ConnectError:
                assert time.monotonic() < deadline, "the server never answered"
                time.sleep(0.05)
        assert r.status_code == 200
    finally:
        proc.terminate()
        proc.communicate(timeout=10)  # drains and closes the pipes
    assert (tmp_path / "home" / "data" / "demo.sqlite3").exists()
