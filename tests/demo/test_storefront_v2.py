"""The demo backend speaks Storefront 2.0 under /api/v1/storefront (issue 11): a whole order the 2.0
way, every answer checked against the vendor's own schema for that operation and status, and the
rules of tokens, revisions and idempotency keys."""

from __future__ import annotations

import itertools
from typing import Any

import httpx
import pytest
from starlette.applications import Starlette

from kiosk.demo.data import DOWNTOWN, MERCHANT_SLUG, WESTSIDE

from .vendor_schema import response_errors

BASE = "/api/v1/storefront"
DT = DOWNTOWN.id
_keys = itertools.count()


def key() -> dict[str, str]:
    return {"Idempotency-Key": f"test-key-{next(_keys):012d}"}


class V2:
    """A plain-httpx 2.0 client for tests: checks every answer against the vendor's schema."""

    def __init__(self, client: httpx.AsyncClient) -> None:
        self.c = client
        self.token = ""
        self.etag = ""

    async def send(
        self, method: str, path: str, body: Any = None, headers: dict[str, str] | None = None
    ) -> httpx.Response:
        full = BASE + path
        r = await self.c.request(method, full, json=body, headers=headers or {})
        assert r.headers["content-type"].startswith("application/json"), r.text
        problems = response_errors(method, full, r.status_code, r.json())
        assert problems == [], (method, path, r.status_code, problems[:5])
        if r.status_code >= 400:
            assert r.headers["x-request-id"] == r.json()["requestId"]
        if "etag" in r.headers:
            self.etag = r.headers["etag"]
        return r

    async def start(self, method: str = "takeout", loc: str = DT) -> dict[str, Any]:
        r = await self.send(
            "POST", f"/locations/{loc}/ordering-sessions", {"fulfillmentMethod": method}, key()
        )
        assert r.status_code == 201, r.text
        self.token = r.json()["cartAccessToken"]
        cart: dict[str, Any] = r.json()["cart"]
        return cart

    def auth(self, *, match: bool = True, idempotent: bool = True) -> dict[str, str]:
        h = {"X-Cart-Token": self.token}
        if match:
            h["If-Match"] = self.etag
        if idempotent:
            h.update(key())
        return h

    async def write(
        self, method: str, cart: str, tail: str, body: Any = None, loc: str = DT
    ) -> httpx.Response:
        return await self.send(method, f"/locations/{loc}/carts/{cart}{tail}", body, self.auth())


@pytest.fixture
async def v2(app: Starlette) -> Any:
    transport = httpx.ASGITransport(app=app)
    async with httpx.AsyncClient(transport=transport, base_url="http://demo") as client:
        yield V2(client)


async def test_catalog_reads_are_anonymous_and_as_documented(v2: V2) -> None:
    for path in (
        f"/merchant/{MERCHANT_SLUG}",
        f"/locations/{DT}",
        f"/locations/{DOWNTOWN.slug}",
        f"/locations/{DT}/menus",
        f"/locations/{DT}/time-intervals",
        f"/locations/{DT}/gratuity",
        f"/locations/{DT}/products/prd_latte",
        f"/locations/{DT}/ordering-readiness?fulfillmentMethod=delivery",
        f"/locations/{WESTSIDE.id}/ordering-readiness?fulfillmentMethod=table_side",
    ):
        r = await v2.send("GET", path)
        assert r.status_code == 200, (path, r.text[:200])
    menus = (await v2.send("GET", f"/locations/{DT}/menus")).json()
    latte = next(
        p
        for m in menus["menus"]
        for c in m["categories"]
        for p in c["products"]
        if p["id"] == "prd_latte"
    )
    assert latte["price"] == "4.75"  # major units, as 2.0 sends amounts
    far = await v2.send("POST", f"/locations/{DT}/distance", {"lat": 40.75, "lng": -73.99})
    assert far.status_code == 200 and 2 < far.json()["distance"]["miles"] < 4


async def test_a_whole_order_the_2_0_way(v2: V2, app: Starlette) -> None:
    cart = await v2.start()
    assert len(cart["id"]) == 24 and cart["revision"] == 0 and v2.etag == '"cart-0"'
    cid = cart["id"]
    added = await v2.write(
        "POST",
        cid,
        "/items",
        {"productId": "prd_cookie", "quantity": 2, "itemUnavailableAction": "remove_item"},
    )
    assert added.status_code == 200, added.text
    cart = added.json()
    assert cart["revision"] == 1 and v2.etag == '"cart-1"'
    [line] = cart["items"]
    assert line["quantity"] == 2 and line["total"] == f"{2 * float(line['price']):.2f}"
    latte = await v2.write(
        "POST",
        cid,
        "/items",
        {
            "productId": "prd_latte",
            "quantity": 1,
            "itemUnavailableAction": "remove_item",
            "selections": [
                {
                    "groupId": "grp_drink_size",
                    "selectedOptions": [{"optionId": "opt_size_large", "quantity": 1}],
                },
                {
                    "groupId": "grp_milk",
                    "selectedOptions": [{"optionId": "opt_milk_oat", "quantity": 1}],
                },
            ],
        },
    )
    assert latte.status_code == 200, latte.text
    lines = latte.json()["items"]
    latte_line = next(i for i in lines if i["productId"] == "prd_latte")
    assert latte_line["price"] == "6.45"  # 4.75 + 1.00 large + 0.70 oat
    qty = await v2.write("PATCH", cid, f"/items/{line['id']}", {"quantity": 3})
    assert [i["quantity"] for i in qty.json()["items"] if i["id"] == line["id"]] == [3]
    tip = await v2.write("PUT", cid, "/gratuity", {"percentage": "18"})
    assert tip.status_code == 200 and tip.json()["waiterTipTotal"] != "0.00"
    code = await v2.write("POST", cid, "/discount", {"code": "SAVE10"})
    assert code.status_code == 200 and code.json()["discountCode"] == "SAVE10"
    when = await v2.write("PUT", cid, "/update-order-time", {"pickupType": "ASAP"})
    assert when.status_code == 200, when.text
    who = await v2.write("PUT", cid, "/validate-and-update", {"customerName": "Ann O'Brien"})
    assert who.status_code == 200, who.text
    handoff = await v2.send(
        "POST", f"/locations/{DT}/carts/{cid}/checkout-handoffs", None, v2.auth(match=False)
    )
    assert handoff.status_code == 201, handoff.text
    assert handoff.json()["checkoutUrl"].startswith("http")
    result = await v2.send(
        "GET",
        f"/locations/{DT}/carts/{cid}/order-result",
        headers=v2.auth(match=False, idempotent=False),
    )
    assert result.json() == {"state": "payment_pending"}
    # The customer pays on the hosted page (the demo processor).
    number = app.state.backend.approve_payment(cid)
    done = await v2.send(
        "GET",
        f"/locations/{DT}/carts/{cid}/order-result",
        headers=v2.auth(match=False, idempotent=False),
    )
    assert done.json()["state"] == "completed"
    assert done.json()["order"]["shortId"] == number
    # A paid cart is immutable.
    late = await v2.send(
        "GET", f"/locations/{DT}/carts/{cid}", headers=v2.auth(match=False, idempotent=False)
    )
    v2.etag = late.headers["etag"]
    refused = await v2.write(
        "POST",
        cid,
        "/items",
        {"productId": "prd_cookie", "quantity": 1, "itemUnavailableAction": "remove_item"},
    )
    assert refused.status_code == 409 and refused.json()["code"] == "CART_IMMUTABLE"


async def test_revisions_if_match_and_conflicts(v2: V2) -> None:
    cart = await v2.start()
    path = f"/locations/{DT}/carts/{cart['id']}/items"
    item = {"productId": "prd_cookie", "quantity": 1, "itemUnavailableAction": "remove_item"}
    missing = await v2.send("POST", path, item, v2.auth(match=False))
    assert missing.status_code == 428
    assert (await v2.send("POST", path, item, v2.auth())).status_code == 200
    stale = {**v2.auth(), "If-Match": '"cart-0"'}
    conflict = await v2.send("POST", path, item, stale)
    assert conflict.status_code == 409 and conflict.json()["code"] == "CART_CONFLICT"
    weak = {**v2.auth(), "If-Match": "W/" + v2.etag}
    assert (await v2.send("POST", path, item, weak)).status_code == 200
    bad = {**v2.auth(), "If-Match": "cart-1"}
    assert (await v2.send("POST", path, item, bad)).status_code == 400
    # Nothing but the two accepted writes landed.
    read = await v2.send("GET", path.removesuffix("/items"), headers={"X-Cart-Token": v2.token})
    assert [i["quantity"] for i in read.json()["items"]] == [2]


async def test_idempotency_keys(v2: V2, app: Starlette) -> None:
    cart = await v2.start()
    path = f"/locations/{DT}/carts/{cart['id']}/items"
    item = {"productId": "prd_cookie", "quantity": 1, "itemUnavailableAction": "remove_item"}
    headers = v2.auth()
    first = await v2.send("POST", path, item, headers)
    again = await v2.send("POST", path, item, headers)  # a retry after a lost answer
    assert first.status_code == again.status_code == 200
    assert first.json() == again.json()
    assert [i["quantity"] for i in again.json()["items"]] == [1]  # once, not twice
    other = await v2.send("POST", path, {**item, "quantity": 2}, headers)
    assert other.status_code == 409 and other.json()["code"] == "IDEMPOTENCY_KEY_REUSED"
    no_key = {k: v for k, v in v2.auth().items() if k != "Idempotency-Key"}
    refused = await v2.send("POST", path, item, no_key)
    assert refused.status_code == 400 and refused.json()["code"] == "IDEMPOTENCY_KEY_REQUIRED"
    # A retried session start returns the same cart and token: no orphan cart.
    session = {"fulfillmentMethod": "takeout"}
    k = key()
    one = await v2.send("POST", f"/locations/{DT}/ordering-sessions", session, k)
    two = await v2.send("POST", f"/locations/{DT}/ordering-sessions", session, k)
    assert one.json() == two.json()
    assert len(app.state.backend.carts.ids()) == 2


async def test_cart_tokens(v2: V2) -> None:
    cart = await v2.start()
    mine = v2.token
    other = await v2.start()
    path = f"/locations/{DT}/carts/{cart['id']}"
    assert (await v2.send("GET", path)).status_code == 401
    assert (await v2.send("GET", path, headers={"X-Cart-Token": v2.token})).status_code == 403
    assert (await v2.send("GET", path, headers={"X-Cart-Token": mine})).status_code == 200
    assert other["id"] != cart["id"]
    assert (
        await v2.send("GET", f"/locations/{DT}/carts/{'0' * 24}", headers={"X-Cart-Token": mine})
    ).status_code == 404


async def test_fulfillment_the_2_0_way(v2: V2) -> None:
    cart = await v2.start("table_side", WESTSIDE.id)
    cid = cart["id"]
    assert cart["fulfilmentMethod"] == "table_side"
    refused = await v2.write("PUT", cid, "/set-table", {"tableNumber": "12A"}, loc=WESTSIDE.id)
    assert refused.status_code == 400
    table = await v2.write("PUT", cid, "/set-table", {"tableNumber": "12"}, loc=WESTSIDE.id)
    assert table.status_code == 200 and table.json()["tableServiceInfo"] == {"tableNumber": "12"}
    room = await v2.write(
        "PUT", cid, "/set-room", {"lastName": "Ng", "roomNumber": "1204"}, loc=WESTSIDE.id
    )
    assert room.status_code == 200, room.text
    dt = await v2.start("delivery")
    address = {
        "street": "1 Main St",
        "city": "New York",
        "state": "NY",
        "zipCode": "10038",
        "country": "US",
        "lat": 40.71,
        "lng": -74.0,
    }
    assert (await v2.write("PUT", dt["id"], "/set-delivery", address)).status_code == 400
    ok = await v2.write("PUT", dt["id"], "/set-delivery", {**address, "country": "United States"})
    assert ok.status_code == 200, ok.text


async def test_errors_are_the_2_0_envelope_and_never_undocumented_statuses(v2: V2) -> None:
    unknown = await v2.c.get(BASE + "/customer")
    assert unknown.status_code == 404 and set(unknown.json()) >= {"code", "message", "requestId"}
    closed = await v2.send(
        "POST",
        f"/locations/{DT}/ordering-sessions",
        {"fulfillmentMethod": "takeout", "x": 1},
        key(),
    )
    assert closed.status_code == 400
    huge = await v2.c.post(
        BASE + f"/locations/{DT}/ordering-sessions",
        content=b'{"fulfillmentMethod": "' + b"x" * 70_000 + b'"}',
        headers={"Content-Type": "application/json", **key()},
    )
    assert huge.status_code == 400 and huge.json()["code"] == "VALIDATION_ERROR"
    assert huge.headers["x-request-id"] == huge.json()["requestId"]
