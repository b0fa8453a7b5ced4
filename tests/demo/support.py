"""Helpers for the demo backend's tests: an injected clock, plain-httpx clients, cart shortcuts.

The tests talk to the backend with plain httpx (never kiosk.api): the backend is another party, and
these tests pin it to the contract on its own.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import httpx
from starlette.applications import Starlette

from kiosk.demo.data import DOWNTOWN, WESTSIDE

# Wednesday 2026-03-11 19:30 UTC = 15:30 in New York (lunch + all day), 12:30 in Los Angeles (open).
WED_AFTERNOON = datetime(2026, 3, 11, 19, 30, tzinfo=UTC).timestamp()
DT = DOWNTOWN.id
WS = WESTSIDE.id


class Clock:
    """A settable clock for the backend (Unix seconds)."""

    def __init__(self, now: float = WED_AFTERNOON) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now

    def advance(self, seconds: float) -> None:
        self.now += seconds

    def set_utc(self, *parts: int) -> None:
        self.now = datetime(*parts, tzinfo=UTC).timestamp()  # type: ignore[misc]


def make_client(app: Starlette, key: str | None, client_ip: str = "127.0.0.1") -> httpx.AsyncClient:
    headers = {"X-API-Key": key} if key is not None else {}
    transport = httpx.ASGITransport(app=app, client=(client_ip, 40000))
    return httpx.AsyncClient(transport=transport, base_url="http://demo/api/v1", headers=headers)


async def new_cart(client: httpx.AsyncClient, loc: str = DT, method: str = "pickup") -> str:
    r = await client.post(f"/locations/{loc}/ordering-sessions", json={"fulfillmentMethod": method})
    assert r.status_code == 200, r.text
    cart_id: str = r.json()["cartId"]
    return cart_id


async def add(
    client: httpx.AsyncClient,
    cart_id: str,
    product: str,
    quantity: int = 1,
    modifiers: list[dict[str, Any]] | None = None,
    loc: str = DT,
    **extra: Any,
) -> httpx.Response:
    body: dict[str, Any] = {"productId": product, "quantity": quantity, **extra}
    if modifiers is not None:
        body["modifiers"] = modifiers
    return await client.post(f"/locations/{loc}/carts/{cart_id}/cart-item", json=body)


async def get_cart(client: httpx.AsyncClient, cart_id: str, loc: str = DT) -> dict[str, Any]:
    r = await client.get(f"/locations/{loc}/carts/{cart_id}")
    assert r.status_code == 200, r.text
    cart: dict[str, Any] = r.json()
    return cart


def sel(group: str, *options: str | tuple[str, int], **children: Any) -> dict[str, Any]:
    """A Selection: sel("grp_milk", "opt_milk_oat"); a quantity: ("opt_shot_extra", 2)."""
    chosen = []
    for opt in options:
        oid, qty = (opt, 1) if isinstance(opt, str) else opt
        entry: dict[str, Any] = {"optionId": oid, "quantity": qty}
        if oid in children:
            entry["children"] = children[oid]
        chosen.append(entry)
    return {"groupId": group, "selectedOptions": chosen}


LATTE_OK = [sel("grp_drink_size", "opt_size_small"), sel("grp_milk", "opt_milk_whole")]


def add_flash_discount(backend: Any, clock: Clock, code: str = "FLASH") -> str:
    """A 50 % code that expires 60 s from the clock's now (for expiry and frozen-price tests)."""
    backend.catalog.discounts[code] = {
        "code": code,
        "kind": "percent",
        "value": 50,
        "minimum": 0,
        "expires_at": clock.now + 60,
    }
    return code
