"""Journey 17 (a server that answers nonsense) and journey 10's doctor part (a scheduled-only
location), for `kiosk doctor` and `kiosk doctor --test-order` on Storefront 2.0.

The server is the strict 2.0 server (tests/conformance/vendor_server.py) behind `Tamper`, an ASGI
wrapper that rewrites chosen answers: a 200 without a cart, a negative total, a paid order without
its number, a location that takes scheduled orders only. In-process through httpx.ASGITransport,
and once as the real CLI in a subprocess against uvicorn (no traceback, one line)."""

from __future__ import annotations

import io
import json
import os
import re
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx
import pytest

from kiosk.api import RetryPolicy
from kiosk.config import load_settings
from kiosk.doctor import run_doctor, run_test_order
from kiosk.runtime import build_remote_services
from tests.conformance.serving import UvicornThread
from tests.conformance.vendor_server import make_vendor_app

LOCATION = "harbour-noodles"
BASE = "http://127.0.0.1:9/api/v1/storefront"  # named only; the transport is in-process

Rewrite = Callable[[dict[str, Any]], tuple[int, Any]]


class Tamper:
    """An ASGI app in front of `inner`: an answer to METHOD on a path matching a pattern goes
    through its rewrite (the decoded JSON body -> a new status and body)."""

    def __init__(self, inner: Any, rules: dict[tuple[str, str], Rewrite]) -> None:
        self.inner = inner
        self.rules = rules
        self.state = inner.state
        self.requests: list[tuple[str, str, Any]] = []

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            await self.inner(scope, receive, send)
            return
        method, path = scope["method"], scope["path"]
        rule = next(
            (r for (m, p), r in self.rules.items() if m == method and re.search(p, path)), None
        )
        if rule is None:
            await self.inner(scope, receive, send)
            return
        started: dict[str, Any] = {}
        chunks: list[bytes] = []

        async def keep(message: Any) -> None:
            if message["type"] == "http.response.start":
                started.update(message)
            else:
                chunks.append(message.get("body", b""))

        body_in: list[bytes] = []

        async def replay() -> Any:
            message = await receive()
            body_in.append(message.get("body", b""))
            return message

        await self.inner(scope, replay, keep)
        sent = json.loads(b"".join(body_in) or b"null")
        self.requests.append((method, path, sent))
        status, answer = rule(json.loads(b"".join(chunks) or b"null") | {"__request__": sent})
        if isinstance(answer, dict):
            answer.pop("__request__", None)
        raw = json.dumps(answer).encode()
        headers = [(k, v) for k, v in started.get("headers", []) if k.lower() != b"content-length"]
        headers.append((b"content-length", str(len(raw)).encode()))
        await send({"type": "http.response.start", "status": status, "headers": headers})
        await send({"type": "http.response.body", "body": raw})


def _vendor(rules: dict[tuple[str, str], Rewrite]) -> Tamper:
    return Tamper(make_vendor_app(), rules)


async def _run(app: Tamper, *, test_order: bool) -> tuple[bool, str]:
    settings = load_settings(
        env={}, flags={"base_url": BASE, "location": LOCATION, "api_dialect": "v2"}
    )
    services = build_remote_services(
        settings,
        transport=httpx.ASGITransport(app=app),
        client_options={"retry": RetryPolicy(max_attempts=1)},
    )
    out = io.StringIO()
    try:
        if test_order:
            ok = await run_test_order(services, out)
        else:
            ok = await run_doctor(services, out)
    finally:
        await services.aclose()
    return ok, out.getvalue()


def _fails(text: str) -> list[str]:
    return [line for line in text.splitlines() if line.startswith("FAIL")]


def _no_cart(answer: dict[str, Any]) -> tuple[int, Any]:
    return 200, {"ok": True}


def _negative_total(answer: dict[str, Any]) -> tuple[int, Any]:
    answer = dict(answer)
    answer["orderTotal"] = "-" + answer["orderTotal"]
    answer["orderTotalFormatted"] = "-" + answer["orderTotalFormatted"]
    return 200, answer


SESSIONS = ("POST", r"/ordering-sessions$")
QUANTITY = ("PATCH", r"/items/[^/]+$")


@pytest.mark.parametrize("test_order", [False, True], ids=["doctor", "test-order"])
async def test_a_200_without_a_cart_is_one_line_naming_the_server(test_order: bool) -> None:
    # Before: a 45-line traceback (ValueError: cart: cart_id must be a non-empty string).
    ok, text = await _run(_vendor({SESSIONS: _no_cart}), test_order=test_order)
    assert not ok
    (fail,) = _fails(text)
    assert f"the server at {BASE}" in fail and "no cart in the reply" in fail
    assert "PASSED" not in text and "Traceback" not in text


async def test_a_negative_total_fails_the_test_order() -> None:
    # Before: "OK change the quantity to 2: total -£22.80" and "the test order PASSED".
    ok, text = await _run(_vendor({QUANTITY: _negative_total}), test_order=True)
    assert not ok, text
    (fail,) = _fails(text)
    assert fail.startswith("FAIL change the quantity to 2: ")
    assert f"the server at {BASE} says the order total is -£22.80" in fail
    assert "the test order FAILED" in text and "PASSED" not in text


@pytest.mark.parametrize("number", [None, "", "  "], ids=["missing", "empty", "blank"])
async def test_a_server_that_completes_orders_without_a_number_fails_the_test_order(
    number: str | None,
) -> None:
    # Before: the demo alone was paid, so such a server passed "a whole test order" unpaid.
    def numberless(answer: dict[str, Any]) -> tuple[int, Any]:
        order = answer.get("order")
        if answer.get("state") == "completed" and isinstance(order, dict):
            answer = {**answer, "order": {**order, "shortId": number}}
            if number is None:
                del answer["order"]["shortId"]
        return 200, answer

    app = _vendor({("GET", r"/order-result$"): numberless})
    ok, text = await _run(app, test_order=True)
    assert not ok, text
    (fail,) = _fails(text)
    assert fail == (
        f"FAIL pay with the server's test payment: the server at {BASE} says the order is "
        "completed but gives no order number"
    )
    assert "the test order FAILED" in text and "PASSED" not in text
    # It did pay, through the server's test payment (docs/api.md), and kept the paid cart.
    (cart,) = app.state.store.carts.values()
    assert cart.status == "COMPLETED" and "could not be deleted" not in text


async def test_a_legacy_server_that_completes_orders_without_a_number_fails_it() -> None:
    # The legacy API's number is the completed cart's fulfillmentIdentifier: the demo over v1,
    # its completed cart's number taken away.
    from kiosk.demo import create_app
    from kiosk.demo.data import DOWNTOWN

    def numberless(answer: dict[str, Any]) -> tuple[int, Any]:
        if answer.get("status") == "COMPLETED":
            answer = {**answer, "fulfillmentIdentifier": None}
        return 200, answer

    demo = create_app(":memory:")
    settings = load_settings(
        env={"KIOSK_API_KEY": DOWNTOWN.api_key},
        flags={"base_url": "http://127.0.0.1:9/api/v1", "location": "loc_downtown"},
    )
    services = build_remote_services(
        settings,
        transport=httpx.ASGITransport(app=Tamper(demo, {("GET", r"/carts/[^/]+$"): numberless})),
        client_options={"retry": RetryPolicy(max_attempts=1)},
    )
    out = io.StringIO()
    try:
        assert services.client_for("loc_downtown").dialect == "v1"
        ok = await run_test_order(services, out)
    finally:
        await services.aclose()
        demo.state.backend.close()
    text = out.getvalue()
    assert not ok, text
    (fail,) = _fails(text)
    assert fail == (
        "FAIL pay with the server's test payment: the server at http://127.0.0.1:9/api/v1 says "
        "the order is paid but gives no order number"
    )


async def test_a_write_answered_without_its_line_fails_the_test_order() -> None:
    def emptied(answer: dict[str, Any]) -> tuple[int, Any]:
        return 200, {**answer, "items": [], "totalQuantity": 0}

    ok, text = await _run(_vendor({QUANTITY: emptied}), test_order=True)
    assert not ok
    (fail,) = _fails(text)
    assert "answered a cart without the line just written" in fail


async def test_an_unexpected_error_is_one_line_not_a_traceback(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # The class, not the case: whatever escapes the client (a bug, a shape nobody foresaw) is
    # one FAIL line naming the server; the traceback goes to the log.
    from kiosk.api.v2 import StorefrontClientV2

    async def broken(self: Any, *args: Any, **kwargs: Any) -> Any:
        raise KeyError("orderDays")

    monkeypatch.setattr(StorefrontClientV2, "get_menus", broken)
    for test_order in (False, True):
        ok, text = await _run(_vendor({}), test_order=test_order)
        assert not ok
        (fail,) = _fails(text)
        assert f"the server at {BASE} gave an answer the kiosk cannot use (KeyError" in fail


def _scheduled_only(answer: dict[str, Any]) -> tuple[int, Any]:
    answer.pop("__request__", None)
    return 200, {**answer, "requireScheduledOrders": True}


def _refuse_asap(answer: dict[str, Any]) -> tuple[int, Any]:
    if answer["__request__"].get("pickupType") == "ASAP":
        return 400, {
            "code": "VALIDATION_ERROR",
            "message": "This location only accepts scheduled orders.",
            "requestId": "req_scheduled",
        }
    return 200, answer


async def test_a_scheduled_only_location_gets_the_first_slot_and_passes() -> None:
    app = _vendor(
        {
            ("GET", r"/time-intervals$"): _scheduled_only,
            ("PUT", r"/update-order-time$"): _refuse_asap,
        }
    )
    ok, text = await _run(app, test_order=True)
    assert ok, text
    times = [body for m, p, body in app.requests if p.endswith("/update-order-time")]
    days = app.state.store.order_days(next(iter(app.state.store.carts.values())).location)
    first = next((d["value"], t) for d in days for t in d["intervals"])
    assert times == [{"pickupType": "LATER", "orderDate": first[0], "orderTime": first[1]}]
    assert f"scheduled orders only: the first slot, {first[0]} {first[1]}" in text
    assert "the test order PASSED" in text


async def test_asap_where_it_is_allowed() -> None:
    app = _vendor({("PUT", r"/update-order-time$"): lambda a: (200, a)})
    ok, text = await _run(app, test_order=True)
    assert ok, text
    assert [b["pickupType"] for m, p, b in app.requests] == ["ASAP"]
    assert "OK   order time: as soon as possible" in text


def test_the_real_cli_prints_one_line_and_no_traceback(tmp_path: Path) -> None:
    app = _vendor({SESSIONS: _no_cart})
    env = {k: v for k, v in os.environ.items() if not k.startswith("KIOSK_")}
    env["KIOSK_HOME"] = str(tmp_path)
    with UvicornThread(app) as server:
        base = server.url + "/api/v1/storefront"
        argv = ["--api", "v2", "--base-url", base, "--location", LOCATION, "doctor"]
        for extra in ([], ["--test-order"]):
            done = subprocess.run(
                [sys.executable, "-m", "kiosk", *argv, *extra],
                env=env,
                capture_output=True,
                text=True,
                timeout=60,
            )
            assert done.returncode == 1, done.stdout + done.stderr
            assert "Traceback" not in done.stderr and done.stderr == ""
            (fail,) = _fails(done.stdout)
            assert f"the server at {base}" in fail and "PASSED" not in done.stdout
