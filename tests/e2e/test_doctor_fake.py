"""`kiosk doctor` against a scripted backend (httpx.MockTransport): each failure has its own reason.

The doctor against the real demo backend over HTTP is in test_doctor.py.
"""

from __future__ import annotations

import io
import json
import time
from collections.abc import Callable
from typing import Any

import httpx
import pytest

from kiosk.api import RetryPolicy
from kiosk.config import load_settings
from kiosk.doctor import run_doctor
from kiosk.runtime import build_remote_services

KEY = "sk_live_DoctorKey0123456789"
BASE = "https://api.example.com/api/v1"
LOC = "loc_1"

LOCATION = {
    "id": LOC,
    "restaurantSlug": "one",
    "restaurantDisplayName": "Number One",
    "timezone": "Europe/Berlin",
    "isOrderingAllowed": True,
}
MENUS = {
    "menus": [
        {
            "id": "m1",
            "name": "All day",
            "categories": [
                {
                    "id": "c1",
                    "name": "Mains",
                    "products": [{"id": "p1", "name": "A", "price": "5.00"}],
                },
                {
                    "id": "c2",
                    "name": "Drinks",
                    "products": [
                        {"id": "p2", "name": "B", "price": "2.00"},
                        {"id": "p3", "name": "C", "price": "2.50"},
                    ],
                },
            ],
        }
    ]
}


class FakeBackend:
    """Answers the doctor's five requests; `override` replaces one answer by path suffix."""

    def __init__(self, **override: Callable[[httpx.Request], httpx.Response]) -> None:
        self.override = override
        self.requests: list[tuple[str, str]] = []
        self.carts: set[str] = set()
        self.headers = {
            "X-RateLimit-Remaining": "187",
            "X-RateLimit-Reset": str(int(time.time()) + 300),
        }

    def _json(self, body: Any, status: int = 200) -> httpx.Response:
        return httpx.Response(status, json=body, headers=self.headers)

    def __call__(self, request: httpx.Request) -> httpx.Response:
        if request.url.path.startswith("/api/v1/storefront/"):
            # A legacy-only server: 2.0's root is not there (doctor's probe asks once).
            return httpx.Response(404, text="<html>Not Found</html>")
        path = request.url.path.removeprefix("/api/v1")
        self.requests.append((request.method, path))
        assert request.headers["X-API-Key"] == KEY
        for suffix, answer in self.override.items():
            if path.endswith("/" + suffix) or (
                suffix == "location" and path == f"/locations/{LOC}"
            ):
                return answer(request)
        if path == f"/locations/{LOC}":
            return self._json(LOCATION)
        if path == f"/locations/{LOC}/menus":
            return self._json(MENUS)
        if path == f"/locations/{LOC}/carts" and request.method == "POST":
            self.carts.add("crt_9")
            return self._json({"cartId": "crt_9"})
        if path == f"/locations/{LOC}/carts/crt_9" and request.method == "GET":
            return self._json({"id": "crt_9", "status": "OPEN", "items": []})
        if path == f"/locations/{LOC}/carts/crt_9" and request.method == "DELETE":
            self.carts.discard("crt_9")
            return self._json({"success": True})
        return self._json({"error": "NOT_FOUND", "message": "no such thing"}, 404)


async def _doctor(backend: Callable[[httpx.Request], httpx.Response]) -> tuple[bool, str]:
    settings = load_settings(env={"KIOSK_API_KEY": KEY}, flags={"base_url": BASE, "location": LOC})
    services = build_remote_services(
        settings,
        transport=httpx.MockTransport(backend),
        client_options={"retry": RetryPolicy(max_attempts=1)},
    )
    out = io.StringIO()
    try:
        ok = await run_doctor(services, out, key_source="from KIOSK_API_KEY")
    finally:
        await services.aclose()
    text = out.getvalue()
    assert KEY not in text
    return ok, text


def _lines(text: str, tag: str) -> list[str]:
    return [line for line in text.splitlines() if line.startswith(tag)]


async def test_a_good_backend_passes_every_check() -> None:
    backend = FakeBackend()
    ok, text = await _doctor(backend)
    assert ok, text
    assert _lines(text, "FAIL") == []
    assert len(_lines(text, "OK")) == 6
    assert "this kiosk speaks v1 (its setting), which the server answers" in text
    assert "'Number One', Europe/Berlin, ordering allowed" in text
    assert "1 menu(s), 2 categories, 3 products" in text
    assert "rate budget: 187 of 200 requests still available" in text
    assert "created cart crt_9 and deleted it" in text
    # A real backend is named by its URL, never called the demo (the default profile is "demo").
    assert "kiosk doctor: the backend at https://" in text
    assert "demo" not in text.splitlines()[0]
    # The cart really was deleted, not only created.
    assert backend.carts == set()
    assert ("DELETE", f"/locations/{LOC}/carts/crt_9") in backend.requests


def _status(status: int, body: dict[str, Any]) -> Callable[[httpx.Request], httpx.Response]:
    return lambda request: httpx.Response(status, json=body)


@pytest.mark.parametrize(
    ("status", "body", "reason"),
    [
        (401, {"success": False, "message": "bad key", "code": "UNAUTHORIZED"}, "HTTP 401"),
        (
            403,
            {"error": "LOCATION_MISMATCH", "message": "other location"},
            "HTTP 403 [LOCATION_MISMATCH]",
        ),
        (404, {"success": False, "message": "no", "code": "NOT_FOUND"}, "HTTP 404"),
        (503, {"error": "DOWN", "message": "maintenance"}, "HTTP 503"),
    ],
)
async def test_the_first_failure_is_explained_and_the_rest_skipped(
    status: int, body: dict[str, Any], reason: str
) -> None:
    ok, text = await _doctor(FakeBackend(location=_status(status, body)))
    assert not ok
    fails = _lines(text, "FAIL")
    assert len(fails) == 1 and reason in fails[0], text
    assert _lines(text, "SKIP")
    # A refusal in the legacy envelope still shows the legacy API is there; nothing else passed.
    spoken = ["OK   this kiosk speaks v1 (its setting), which the server answers"]
    assert _lines(text, "OK") == (spoken if status in (401, 403) else [])


async def test_401_says_what_to_check() -> None:
    ok, text = await _doctor(FakeBackend(location=_status(401, {"message": "x"})))
    assert not ok
    assert "KIOSK_API_KEY" in _lines(text, "FAIL")[0]
    assert "missing, mistyped or revoked" in text


async def test_403_names_the_location() -> None:
    ok, text = await _doctor(FakeBackend(location=_status(403, {"message": "x"})))
    assert not ok
    assert f"another location than {LOC!r}" in text
    assert "subscription" in text


async def test_an_empty_menu_fails() -> None:
    ok, text = await _doctor(FakeBackend(menus=_status(200, {"menus": []})))
    assert not ok
    assert "0 products: there is nothing a customer could order" in _lines(text, "FAIL")[0]


async def test_an_exhausted_rate_budget_fails() -> None:
    backend = FakeBackend()
    backend.headers = {
        "X-RateLimit-Remaining": "0",
        "X-RateLimit-Reset": str(int(time.time()) + 120),
    }
    ok, text = await _doctor(backend)
    assert not ok
    assert "rate budget: 0 of 200 requests still available" in _lines(text, "FAIL")[0]


async def test_an_unknown_rate_budget_is_reported_not_failed() -> None:
    backend = FakeBackend()
    backend.headers = {}
    ok, text = await _doctor(backend)
    assert ok
    assert "no X-RateLimit-Remaining header" in text


async def test_a_refused_cart_fails() -> None:
    body = {"error": "LOCATION_CLOSED", "message": "closed"}
    ok, text = await _doctor(FakeBackend(carts=_status(422, body)))
    assert not ok
    assert _lines(text, "FAIL")[0].startswith("FAIL create a cart: refused: HTTP 422")


async def test_a_cart_that_cannot_be_deleted_fails() -> None:
    def refuse_delete(request: httpx.Request) -> httpx.Response:
        if request.method == "DELETE":
            return httpx.Response(409, json={"error": "CART_LOCKED", "message": "locked"})
        return httpx.Response(200, json={"id": "crt_9", "status": "OPEN"})

    ok, text = await _doctor(FakeBackend(crt_9=refuse_delete))
    assert not ok
    assert "created but not read or deleted" in _lines(text, "FAIL")[0]


async def test_a_server_that_is_not_the_api_fails() -> None:
    html = lambda request: httpx.Response(200, text="<html>login</html>")  # noqa: E731
    ok, text = await _doctor(FakeBackend(location=html))
    assert not ok
    assert "right base URL" in _lines(text, "FAIL")[0]


async def test_the_server_cannot_smuggle_the_key_into_the_output() -> None:
    body = {"error": "BAD", "message": f"your key {KEY} is wrong"}
    ok, text = await _doctor(FakeBackend(location=_status(400, body)))
    assert not ok
    assert KEY not in text  # _doctor asserts it too; stated here because it is the point


def test_fake_backend_json_is_valid() -> None:
    # The fixtures above are what the real API sends in shape; keep them parseable JSON.
    json.dumps(MENUS)
    json.dumps(LOCATION)
