"""The strict 2.0 server follows the vendor's documents: it checks what it is sent, and what it
answers validates against openapi-facts.json. Plain httpx over ASGITransport (one test over
uvicorn on 127.0.0.1 for the dropped connection); never kiosk.api."""

from __future__ import annotations

import re
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import replace
from datetime import UTC, datetime, timedelta
from typing import Any

import httpx
import pytest
from starlette.routing import Route

from tests.conformance.contract import BASE_PATH, load_contract
from tests.conformance.serving import UvicornThread
from tests.conformance.vendor_server import (
    DroppedAnswer,
    Faults,
    Seed,
    harbour_noodles,
    make_vendor_app,
)

LOC = "66a1f0c2b3d4e5f60718293a"
SLUG = "harbour-noodles"
SOUP = [{"groupId": "grp_broth", "selectedOptions": [{"optionId": "opt_chicken", "quantity": 1}]}]
MONEY = re.compile(r"^-?\d+\.\d{2}$")


class Api:
    """A plain client that knows the template of each call, so every answer can be checked
    against the document's response schema for that operation and status."""

    def __init__(self, app: Any, client: httpx.AsyncClient) -> None:
        self.app = app
        self.client = client
        self.contract = load_contract()
        self.keys = 0
        self.checked: list[str] = []

    def key(self) -> str:
        self.keys += 1
        return f"test-key-{self.keys:08d}"

    async def call(
        self,
        method: str,
        template: str,
        *,
        json: Any = None,
        headers: dict[str, str] | None = None,
        params: dict[str, str] | None = None,
        check: bool = True,
        **path: str,
    ) -> httpx.Response:
        url = BASE_PATH + template.format(**path)
        response = await self.client.request(
            method, url, json=json, headers=headers or {}, params=params
        )
        if check:
            body = response.json() if response.content else None
            problems = self.contract.response_errors(method, template, response.status_code, body)
            assert problems == [], f"{method} {template} {response.status_code}: {problems}"
            operation = self.contract.operations[(method, template)]
            for name in operation.response_headers(response.status_code):
                assert name in response.headers, f"{method} {template}: no {name} header"
            if response.status_code >= 400:
                assert response.headers["X-Request-Id"] == body["requestId"]
            self.checked.append(f"{method} {template} {response.status_code}")
        return response

    async def session(self, method: str = "takeout") -> tuple[dict[str, Any], dict[str, str]]:
        r = await self.call(
            "POST",
            "/locations/{locationId}/ordering-sessions",
            json={"fulfillmentMethod": method, "channel": "kiosk"},
            headers={"Idempotency-Key": self.key()},
            locationId=LOC,
        )
        assert r.status_code == 201
        return r.json()["cart"], {"X-Cart-Token": r.json()["cartAccessToken"]}

    async def write(
        self,
        method: str,
        suffix: str,
        cart: dict[str, Any],
        token: dict[str, str],
        body: Any = None,
        *,
        key: str | None = None,
        if_match: str | None = "current",
        check: bool = True,
        **path: str,
    ) -> httpx.Response:
        headers = {**token, "Idempotency-Key": key or self.key()}
        if if_match == "current":
            headers["If-Match"] = f'"cart-{cart["revision"]}"'
        elif if_match is not None:
            headers["If-Match"] = if_match
        return await self.call(
            method,
            "/locations/{locationId}/carts/{cartId}" + suffix,
            json=body,
            headers=headers,
            check=check,
            locationId=LOC,
            cartId=cart["id"],
            **path,
        )


@pytest.fixture
async def api() -> AsyncIterator[Api]:
    app = make_vendor_app()
    transport = httpx.ASGITransport(app=app)
    async with httpx.AsyncClient(transport=transport, base_url="http://vendor.test") as client:
        yield Api(app, client)


def test_every_route_it_serves_is_in_the_document() -> None:
    app = make_vendor_app()
    contract = load_contract()
    templates = {template for _, template in contract.operations}
    api_routes = [r for r in app.routes if isinstance(r, Route) and r.path.startswith(BASE_PATH)]
    assert api_routes and {r.path.removeprefix(BASE_PATH) for r in api_routes} <= templates
    assert set(app.state.implemented) <= set(contract.operations)
    # The rest of the table: the test-only routes (apart from the API: /__test__ and the test
    # payment a client may look for, docs/api.md) and the catch-all.
    others = [r.path for r in app.routes if isinstance(r, Route) and r not in api_routes]
    test_only = ("/__test__/", "/.well-known/storefront-test-payment")
    assert all(p.startswith(test_only) for p in others[:-1]) and others[-1] == "/{rest:path}"


async def test_a_whole_order_answers_as_documented(api: Api) -> None:
    """Every answer of a scripted order, errors included, validates against the document."""
    r = await api.call("GET", "/locations/{locationSlugOrId}", locationSlugOrId=SLUG)
    assert r.json()["id"] == LOC
    await api.call("GET", "/locations/{locationSlugOrId}", locationSlugOrId=LOC)
    await api.call("GET", "/merchant/{merchantSlug}", merchantSlug="harbour-noodles-co")
    menus = (await api.call("GET", "/locations/{locationId}/menus", locationId=LOC)).json()
    assert menus["menus"][0]["categories"][0]["products"][0]["currency"] == "gbp"
    await api.call(
        "GET", "/locations/{locationId}/menus", params={"menuOnly": "true"}, locationId=LOC
    )
    soup = await api.call(
        "GET",
        "/locations/{locationId}/products/{productId}",
        locationId=LOC,
        productId="prod_wonton_soup",
    )
    assert soup.json()["modifiers"][0]["rule"] == {"min": 1, "max": 1}
    times = (await api.call("GET", "/locations/{locationId}/time-intervals", locationId=LOC)).json()
    await api.call(
        "GET",
        "/locations/{locationId}/ordering-readiness",
        params={"fulfillmentMethod": "delivery"},
        locationId=LOC,
    )
    await api.call("GET", "/locations/{locationId}/gratuity", locationId=LOC)
    await api.call(
        "POST",
        "/locations/{locationId}/distance",
        json={"lat": 51.45, "lng": -2.58},
        locationId=LOC,
    )

    cart, token = await api.session()
    r = await api.write(
        "POST",
        "/items",
        cart,
        token,
        {
            "productId": "prod_wonton_soup",
            "quantity": 1,
            "itemUnavailableAction": "remove_item",
            "selections": [
                {
                    "groupId": "grp_broth",
                    "selectedOptions": [
                        {
                            "optionId": "opt_sichuan",
                            "quantity": 1,
                            "children": [
                                {
                                    "groupId": "grp_heat",
                                    "selectedOptions": [{"optionId": "opt_hot", "quantity": 1}],
                                }
                            ],
                        }
                    ],
                },
                {
                    "groupId": "grp_extras",
                    "selectedOptions": [{"optionId": "opt_egg", "quantity": 2}],
                },
            ],
        },
    )
    cart = r.json()
    assert cart["items"][0]["price"] == "12.40"  # 9.50 + 0.50 Sichuan + 2 x 1.20 egg
    assert r.headers["ETag"] == '"cart-1"' and r.headers["Cache-Control"] == "private, no-store"
    cart = (
        await api.write(
            "POST",
            "/items",
            cart,
            token,
            {"productId": "prod_gyoza", "quantity": 1, "itemUnavailableAction": "remove_item"},
        )
    ).json()
    gyoza = cart["items"][1]["id"]
    cart = (
        await api.write("PATCH", "/items/{itemId}", cart, token, {"quantity": 3}, itemId=gyoza)
    ).json()
    await api.call(
        "GET",
        "/locations/{locationId}/carts/{cartId}/products",
        headers=token,
        locationId=LOC,
        cartId=cart["id"],
    )
    cart = (await api.write("POST", "/discount", cart, token, {"code": "HARBOUR10"})).json()
    cart = (await api.write("PUT", "/gratuity", cart, token, {"percentage": "15"})).json()
    day = times["orderDays"][-1]
    cart = (
        await api.write(
            "PUT",
            "/update-order-time",
            cart,
            token,
            {"pickupType": "LATER", "orderDate": day["value"], "orderTime": day["intervals"][0]},
        )
    ).json()
    cart = (
        await api.write("PUT", "/update-order-time", cart, token, {"pickupType": "ASAP"})
    ).json()
    cart = (await api.write("PATCH", "", cart, token, {"fulfillmentMethod": "delivery"})).json()
    address = {
        "street": "1 Harbourside",
        "city": "Bristol",
        "state": "England",
        "zipCode": "BS1 5DB",
        "country": "United Kingdom",
        "lat": 51.4505,
        "lng": -2.5981,
    }
    cart = (await api.write("PUT", "/set-delivery", cart, token, address)).json()
    assert cart["deliveryInfo"]["addressData"]["streetOptional"] == ""
    cart = (
        await api.write(
            "PUT",
            "/validate-and-update",
            cart,
            token,
            {
                "customerName": "Ada",
                "emailAddress": "ada@example.com",
                "phoneNumber": "+447700900123",
            },
        )
    ).json()
    r = await api.write("POST", "/checkout-handoffs", cart, token, {}, if_match=None)
    assert r.status_code == 201 and "ETag" not in r.headers
    handoff = r.json()["checkoutUrl"].rsplit("/", 1)[1]

    result = "/locations/{locationId}/carts/{cartId}/order-result"
    ids = {"locationId": LOC, "cartId": cart["id"]}
    assert (await api.call("GET", result, headers=token, **ids)).json() == {
        "state": "payment_pending"
    }
    assert (await api.client.post(f"/__test__/handoffs/{handoff}/pay")).status_code == 200
    assert (await api.call("GET", result, headers=token, **ids)).json() == {
        "state": "order_pending"
    }
    done = (await api.call("GET", result, headers=token, **ids)).json()
    assert done["state"] == "completed" and re.fullmatch(r"H\d{3}", done["order"]["shortId"])
    assert done["order"]["deliveryInfo"] == {"deliveryAddress": "1 Harbourside, Bristol, BS1 5DB"}
    cart = (
        await api.call("GET", "/locations/{locationId}/carts/{cartId}", headers=token, **ids)
    ).json()
    # The cart names where the order goes (here the address); the number is the order's own.
    assert cart["status"] == "COMPLETED"
    assert cart["fulfillmentIdentifier"] == "1 Harbourside, Bristol, BS1 5DB"
    assert done["order"]["fulfillmentIdentifier"] == cart["fulfillmentIdentifier"]
    assert done["order"]["shortId"] != cart["fulfillmentIdentifier"]
    r = await api.write(
        "POST",
        "/items",
        cart,
        token,
        {"productId": "prod_gyoza", "quantity": 1, "itemUnavailableAction": "remove_item"},
    )
    assert r.status_code == 409 and r.json()["code"] == "CART_IMMUTABLE"
    await api.write("POST", "/rating", cart, token, {"rating": 5}, if_match=None)

    # The other two ways to receive an order, and deleting a cart.
    for method, suffix, body in (
        ("table_side", "/set-table", {"tableNumber": "12"}),
        ("room_service", "/set-room", {"lastName": "Lovelace", "roomNumber": "204"}),
    ):
        other, other_token = await api.session(method)
        other = (await api.write("PUT", suffix, other, other_token, body)).json()
        assert other["tableServiceInfo" if method == "table_side" else "roomServiceInfo"]
        gone = (await api.write("DELETE", "", other, other_token)).json()
        assert gone["status"] == "EXPIRED"

    assert api.app.state.violations == [] and api.app.state.answer_errors == []
    assert len(api.checked) > 30


async def test_money_is_decimal_strings_in_major_units_with_formatted_twins(api: Api) -> None:
    cart, token = await api.session()
    body = {"productId": "prod_gyoza", "quantity": 2, "itemUnavailableAction": "remove_item"}
    cart = (await api.write("POST", "/items", cart, token, body)).json()
    assert cart["currency"] == "gbp"
    assert (cart["subTotal"], cart["subTotalFormatted"]) == ("11.00", "£11.00")
    assert (cart["taxTotal"], cart["serviceFeeTotal"]) == ("2.20", "0.22")
    assert cart["orderTotalWithServiceFee"] == "13.42"
    assert cart["orderTotalWithServiceFeeAmount"] == 1342  # the one integer: minor units
    item = cart["items"][0]
    assert (item["price"], item["total"], item["totalFormatted"]) == ("5.50", "11.00", "£11.00")
    amounts = [
        k for k in cart if k.endswith("Total") or k in ("subTotal", "orderTotalWithServiceFee")
    ]
    for name in amounts:
        assert MONEY.match(cart[name]) and cart[name + "Formatted"].lstrip("-").startswith("£")


async def test_a_write_without_if_match_is_428_and_a_violation(api: Api) -> None:
    cart, token = await api.session()
    body = {"productId": "prod_gyoza", "quantity": 1, "itemUnavailableAction": "remove_item"}
    r = await api.write("POST", "/items", cart, token, body, if_match=None)
    assert r.status_code == 428
    where = f"POST {BASE_PATH}/locations/{LOC}/carts/{cart['id']}/items"
    assert api.app.state.violations == [f"{where}: If-Match missing (answered 428)"]
    assert api.app.state.store.carts[cart["id"]].lines == []


async def test_a_stale_if_match_is_a_cart_conflict_and_no_violation(api: Api) -> None:
    cart, token = await api.session()
    body = {"productId": "prod_gyoza", "quantity": 1, "itemUnavailableAction": "remove_item"}
    await api.write("POST", "/items", cart, token, body)
    r = await api.write("POST", "/items", cart, token, body)  # still names revision 0
    assert r.status_code == 409 and r.json()["code"] == "CART_CONFLICT"
    assert len(api.app.state.store.carts[cart["id"]].lines) == 1
    assert api.app.state.violations == []


async def test_an_idempotent_resend_replays_and_another_body_is_refused(api: Api) -> None:
    cart, token = await api.session()
    body = {"productId": "prod_gyoza", "quantity": 1, "itemUnavailableAction": "remove_item"}
    first = await api.write("POST", "/items", cart, token, body, key="resend-key-0000001")
    again = await api.write("POST", "/items", cart, token, body, key="resend-key-0000001")
    assert again.status_code == 200 and again.json() == first.json()
    assert again.headers["ETag"] == first.headers["ETag"] == '"cart-1"'
    assert len(api.app.state.store.carts[cart["id"]].lines) == 1
    other = {**body, "quantity": 2}
    r = await api.write("POST", "/items", cart, token, other, key="resend-key-0000001")
    assert r.status_code == 409 and r.json()["code"] == "IDEMPOTENCY_KEY_REUSED"
    assert len(api.app.state.violations) == 1 and "reused" in api.app.state.violations[0]


@pytest.mark.parametrize(
    ("change", "status", "code", "broke"),
    [
        ({"Idempotency-Key": None}, 400, "IDEMPOTENCY_KEY_REQUIRED", "Idempotency-Key missing"),
        ({"Idempotency-Key": "short"}, 400, "VALIDATION_ERROR", "malformed"),
        ({"If-Match": '"7"'}, 400, "VALIDATION_ERROR", "If-Match '\"7\"' malformed"),
        ({"X-Cart-Token": None}, 401, "UNAUTHORIZED", "X-Cart-Token missing"),
        ({"X-Cart-Token": "ct_someone-else"}, 403, "FORBIDDEN", "not this cart's token"),
        ({"X-API-Key": "k"}, 400, "VALIDATION_ERROR", "X-API-Key"),
        ({"Authorization": "Bearer x.y.z"}, 401, "UNAUTHORIZED", "no customer token"),
    ],
)
async def test_header_breaches_are_answered_and_recorded(
    api: Api, change: dict[str, str | None], status: int, code: str, broke: str
) -> None:
    cart, token = await api.session()
    headers = {**token, "Idempotency-Key": api.key(), "If-Match": '"cart-0"'}
    for name, value in change.items():
        headers.pop(name, None)
        if value is not None:
            headers[name] = value
    r = await api.call(
        "POST",
        "/locations/{locationId}/carts/{cartId}/items",
        json={"productId": "prod_gyoza", "quantity": 1, "itemUnavailableAction": "remove_item"},
        headers=headers,
        locationId=LOC,
        cartId=cart["id"],
    )
    assert (r.status_code, r.json()["code"]) == (status, code)
    assert len(api.app.state.violations) == 1 and broke in api.app.state.violations[0]


@pytest.mark.parametrize(
    ("body", "broke"),
    [
        ({"productId": "prod_gyoza", "quantity": 1}, "'itemUnavailableAction' is a required"),
        (
            {
                "productId": "prod_gyoza",
                "quantity": 1,
                "itemUnavailableAction": "remove_item",
                "x": 1,
            },
            "Additional properties",
        ),
        (
            {"productId": "prod_gyoza", "quantity": 0, "itemUnavailableAction": "remove_item"},
            "quantity",
        ),
        (
            {"productId": "prod_gyoza", "quantity": "1", "itemUnavailableAction": "remove_item"},
            "quantity",
        ),
    ],
)
async def test_a_body_breaking_the_schema_is_a_violation(api: Api, body: Any, broke: str) -> None:
    cart, token = await api.session()
    r = await api.write("POST", "/items", cart, token, body)
    assert (r.status_code, r.json()["code"]) == (400, "VALIDATION_ERROR")
    assert len(api.app.state.violations) == 1 and broke in api.app.state.violations[0]


async def test_unknown_paths_methods_queries_and_slugs_for_ids_are_violations(api: Api) -> None:
    client = api.client
    assert (await client.get(f"{BASE_PATH}/locations/{LOC}/catalog")).status_code == 404
    assert (await client.put(f"{BASE_PATH}/locations/{LOC}/menus")).status_code == 404
    assert (await client.get(f"{BASE_PATH}/locations/{LOC}/menus?lang=en")).status_code == 400
    assert (await client.get(f"{BASE_PATH}/locations/{SLUG}/menus")).status_code == 404
    assert (
        await client.get(f"{BASE_PATH}/locations/{LOC}/menus", headers={"X-Cart-Token": "t"})
    ).status_code == 400
    assert (await client.get(f"/api/v2/storefront/locations/{LOC}")).status_code == 404
    broke = [v.split(": ", 1)[1] for v in api.app.state.violations]
    assert broke == [
        "path not in the document",
        "PUT is not documented on /locations/{locationId}/menus",
        "query parameter 'lang' is not documented",
        "a location slug in {locationId} (only /locations/{locationSlugOrId} takes a slug)",
        "sent X-Cart-Token, which storefrontListMenus does not declare (security: anonymous)",
        "path not in the document",
    ]


@pytest.mark.parametrize(
    ("now", "today", "first_slots"),
    [
        ("2026-03-11T12:02:00+00:00", ["2026-03-11", "2026-03-12"], ["12:30", "00:00"]),
        ("2026-03-11T23:50:00+00:00", ["2026-03-12"], ["00:15"]),  # nothing left today
        ("2026-07-01T10:00:00+00:00", ["2026-07-01", "2026-07-02"], ["11:15", "00:00"]),  # BST
    ],
)
async def test_slots_are_quarter_hours_from_15_minutes_ahead_in_local_time(
    now: str, today: list[str], first_slots: list[str]
) -> None:
    moment = datetime.fromisoformat(now)
    app = make_vendor_app(clock=lambda: moment)
    async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://t") as c:
        api = Api(app, c)
        r = await api.call("GET", "/locations/{locationId}/time-intervals", locationId=LOC)
    days = r.json()["orderDays"]
    assert [d["value"] for d in days] == today
    assert [d["intervals"][0] for d in days] == first_slots


async def test_exploring_past_a_slug_for_an_id_still_records_it() -> None:
    app = make_vendor_app(slug_as_id=True)
    async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://t") as c:
        r = await c.get(f"{BASE_PATH}/locations/{SLUG}/menus")
    assert r.status_code == 200 and len(app.state.violations) == 1


async def test_business_refusals_are_documented_errors_but_not_violations(api: Api) -> None:
    cart, token = await api.session()
    no_broth = {
        "productId": "prod_wonton_soup",
        "quantity": 1,
        "itemUnavailableAction": "remove_item",
    }
    r = await api.write("POST", "/items", cart, token, no_broth)
    assert (r.status_code, r.json()["code"]) == (400, "VALIDATION_ERROR")
    sold_out = {**no_broth, "productId": "prod_lychee_soda"}
    assert (await api.write("POST", "/items", cart, token, sold_out)).status_code == 400
    assert (
        await api.write("POST", "/discount", cart, token, {"code": "NOTACODE"})
    ).status_code == 400
    assert (
        await api.write("PUT", "/set-table", cart, token, {"tableNumber": "4"})
    ).status_code == 400
    r = await api.write("POST", "/checkout-handoffs", cart, token, {}, if_match=None)
    assert r.status_code == 400  # an empty cart
    assert api.app.state.violations == [] and len(api.app.state.refusals) == 5


async def test_resuming_a_cart_needs_its_token_and_if_match(api: Api) -> None:
    cart, token = await api.session()
    resume = {"fulfillmentMethod": "takeout", "existingCartId": cart["id"]}
    template = "/locations/{locationId}/ordering-sessions"
    r = await api.call(
        "POST",
        template,
        json=resume,
        headers={**token, "Idempotency-Key": api.key()},
        locationId=LOC,
    )
    assert r.status_code == 428
    headers = {**token, "Idempotency-Key": api.key(), "If-Match": '"cart-0"'}
    r = await api.call("POST", template, json=resume, headers=headers, locationId=LOC)
    assert r.status_code == 200 and r.json() == {"cart": cart} and r.headers["ETag"] == '"cart-0"'
    assert len(api.app.state.store.carts) == 1
    assert len(api.app.state.violations) == 1


async def test_rate_limiting_is_a_bare_429() -> None:
    app = make_vendor_app(rate_limit=2)
    async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://t") as c:
        codes = [(await c.get(f"{BASE_PATH}/locations/{SLUG}")) for _ in range(3)]
    assert [r.status_code for r in codes] == [200, 200, 429]
    assert codes[2].json()["code"] == "RATE_LIMITED"
    assert not [h for h in codes[2].headers if h.lower().startswith(("retry-after", "x-ratelimit"))]


async def test_faults_fail_before_committing_or_drop_after_committing() -> None:
    app = make_vendor_app(faults=Faults(script=["error", "drop"]))
    async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://t") as c:
        api = Api(app, c)
        cart, token = await api.session()
        body = {"productId": "prod_gyoza", "quantity": 1, "itemUnavailableAction": "remove_item"}
        r = await api.write("POST", "/items", cart, token, body, key="fault-key-00000001")
        assert r.status_code == 503 and app.state.store.carts[cart["id"]].lines == []
        # The resend (same key) commits, and its answer is lost.
        with pytest.raises(DroppedAnswer):
            await api.write(
                "POST", "/items", cart, token, body, key="fault-key-00000001", check=False
            )
        assert len(app.state.store.carts[cart["id"]].lines) == 1
        # Resent again: the stored answer, not a second line.
        r = await api.write("POST", "/items", cart, token, body, key="fault-key-00000001")
        assert r.status_code == 200 and len(r.json()["items"]) == 1
    assert app.state.violations == []


def test_rates_are_repeatable_with_a_seed() -> None:
    def draws(seed: int) -> list[tuple[bool, bool]]:
        faults = Faults(error_rate=0.1, drop_rate=0.2, seed=seed)
        return [(faults.before_commit(), faults.after_commit()) for _ in range(200)]

    assert draws(7) == draws(7) != draws(8)
    errors = sum(e for e, _ in draws(7))
    assert 8 <= errors <= 35


def test_over_uvicorn_a_dropped_answer_is_a_broken_connection() -> None:
    app = make_vendor_app(faults=Faults(script=["drop"]))
    with UvicornThread(app) as server, httpx.Client(base_url=server.url) as client:
        r = client.post(
            f"{BASE_PATH}/locations/{LOC}/ordering-sessions",
            json={"fulfillmentMethod": "takeout"},
            headers={"Idempotency-Key": "uvicorn-key-000001"},
        )
        cart, token = r.json()["cart"], r.json()["cartAccessToken"]
        headers = {
            "X-Cart-Token": token,
            "Idempotency-Key": "uvicorn-key-000002",
            "If-Match": '"cart-0"',
        }
        body = {"productId": "prod_gyoza", "quantity": 1, "itemUnavailableAction": "remove_item"}
        url = f"{BASE_PATH}/locations/{LOC}/carts/{cart['id']}/items"
        with pytest.raises(httpx.TransportError):
            client.post(url, json=body, headers=headers)
        assert len(app.state.store.carts[cart["id"]].lines) == 1
        again = client.post(url, json=body, headers=headers)
        assert again.status_code == 200 and len(again.json()["items"]) == 1


# ---------------------------------------------------------------------------------------------
# Issue 19: what the vendor documents and the server lacked or guessed. Each test names the
# document line it follows (contract = ../shared/storefront-v2-contract.md; facts =
# tests/data/vendor-v2/openapi-facts.json; fixtures = ../shared/vendor-fixtures/).

GYOZA = {"productId": "prod_gyoza", "quantity": 1, "itemUnavailableAction": "remove_item"}
RESULT = "/locations/{locationId}/carts/{cartId}/order-result"


class Clock:
    """The server's clock, moved by hand."""

    def __init__(self) -> None:
        self.now = datetime(2026, 3, 11, 12, 2, tzinfo=UTC)

    def __call__(self) -> datetime:
        return self.now

    def advance(self, **delta: float) -> None:
        self.now += timedelta(**delta)


@asynccontextmanager
async def served(**options: Any) -> AsyncIterator[Api]:
    app = make_vendor_app(**options)
    async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://t") as c:
        yield Api(app, c)


async def _ready_to_pay(api: Api, method: str = "takeout") -> tuple[dict, dict, str]:
    """A cart with a line and a hand-off: (cart, token headers, hand-off id)."""
    cart, token = await api.session(method)
    cart = (await api.write("POST", "/items", cart, token, GYOZA)).json()
    r = await api.write("POST", "/checkout-handoffs", cart, token, {}, if_match=None)
    assert r.status_code == 201, r.json()
    return cart, token, r.json()["checkoutUrl"].rsplit("/", 1)[1]


async def _result(api: Api, cart: dict, token: dict) -> dict[str, Any]:
    r = await api.call("GET", RESULT, headers=token, locationId=LOC, cartId=cart["id"])
    return dict(r.json())


async def _control(api: Api, path: str, body: Any = None) -> httpx.Response:
    return await api.client.post(f"/__test__/{path}", json=body)


@pytest.mark.parametrize("retry", ["same hand-off", "fresh hand-off"])
async def test_a_declined_payment_fails_the_result_and_a_later_payment_completes(
    api: Api, retry: str
) -> None:
    # contract line 143: order-result {state: "failed", code*} (codes not listed:
    # PAYMENT_DECLINED is ours); a later payment completing the order is inferred.
    cart, token, handoff = await _ready_to_pay(api)
    assert (await _control(api, f"handoffs/{handoff}/decline")).status_code == 200
    assert await _result(api, cart, token) == {"state": "failed", "code": "PAYMENT_DECLINED"}
    assert await _result(api, cart, token) == {"state": "failed", "code": "PAYMENT_DECLINED"}
    held = api.app.state.store.carts[cart["id"]]
    assert held.status == "OPEN" and api.app.state.store.orders == {}
    if retry == "same hand-off":
        paid = await _control(api, f"handoffs/{handoff}/pay")
    else:
        current = (
            await api.call(
                "GET",
                "/locations/{locationId}/carts/{cartId}",
                headers=token,
                locationId=LOC,
                cartId=cart["id"],
            )
        ).json()
        r = await api.write("POST", "/checkout-handoffs", current, token, {}, if_match=None)
        fresh = r.json()["checkoutUrl"].rsplit("/", 1)[1]
        # A fresh hand-off is a new attempt: it waits for its payment again.
        assert await _result(api, cart, token) == {"state": "payment_pending"}
        paid = await _control(api, f"carts/{cart['id']}/pay")  # by cart: its newest hand-off
        assert paid.json()["handoff"] == fresh
    assert paid.status_code == 200
    assert await _result(api, cart, token) == {"state": "order_pending"}
    done = await _result(api, cart, token)
    assert done["state"] == "completed" and len(api.app.state.store.orders) == 1
    assert api.app.state.violations == []


async def test_a_failure_with_its_own_code_by_cart_id(api: Api) -> None:
    cart, token, _ = await _ready_to_pay(api)
    r = await _control(api, f"carts/{cart['id']}/fail", {"code": "INSUFFICIENT_FUNDS"})
    assert r.status_code == 200
    assert await _result(api, cart, token) == {"state": "failed", "code": "INSUFFICIENT_FUNDS"}
    assert (await _control(api, "carts/000000000000000000000000/pay")).status_code == 404


async def test_paying_twice_makes_one_order(api: Api) -> None:
    cart, token, handoff = await _ready_to_pay(api)
    assert (await _control(api, f"handoffs/{handoff}/pay")).status_code == 200
    # Paid, order not yet placed: a second payment is refused.
    r = await _control(api, f"handoffs/{handoff}/pay")
    assert r.status_code == 409 and "already paid" in r.json()["refused"]
    await _result(api, cart, token)
    assert (await _result(api, cart, token))["state"] == "completed"
    for path in (
        f"handoffs/{handoff}/pay",
        f"carts/{cart['id']}/pay",
        f"handoffs/{handoff}/decline",
    ):
        r = await _control(api, path)
        assert r.status_code == 409, path
    assert len(api.app.state.store.orders) == 1
    assert api.app.state.store.carts[cart["id"]].status == "COMPLETED"


def _links(product: dict[str, Any], group: str, option: str) -> list[dict[str, Any]]:
    found = next(g for g in product["modifiers"] if g["id"] == group)
    return list(next(o for o in found["items"] if o["id"] == option)["childGroups"])


async def test_an_override_on_a_nested_link_is_published_and_enforced(api: Api) -> None:
    # facts line 651: ModifierChildLink.overrides {min, max} beside the group's own rule.
    r = await api.call(
        "GET",
        "/locations/{locationId}/products/{productId}",
        locationId=LOC,
        productId="prod_build_bowl",
    )
    product = r.json()
    (noodles,) = _links(product, "grp_base", "opt_base_noodles")
    (rice,) = _links(product, "grp_base", "opt_base_rice")
    assert noodles["overrides"] == {"min": 1, "max": 1}
    assert noodles["group"]["rule"] == rice["group"]["rule"] == {"min": 0, "max": 2}
    assert "overrides" not in rice

    def bowl(base: str, sauces: list[str]) -> dict[str, Any]:
        option: dict[str, Any] = {"optionId": base, "quantity": 1}
        if sauces:
            option["children"] = [
                {
                    "groupId": "grp_sauce",
                    "selectedOptions": [{"optionId": s, "quantity": 1} for s in sauces],
                }
            ]
        return {
            "productId": "prod_build_bowl",
            "quantity": 1,
            "itemUnavailableAction": "remove_item",
            "selections": [{"groupId": "grp_base", "selectedOptions": [option]}],
        }

    cart, token = await api.session()
    two = ["opt_sauce_soy", "opt_sauce_chilli"]
    for body, status in (
        (bowl("opt_base_noodles", []), 400),  # the override makes the sauce required
        (bowl("opt_base_noodles", two), 400),  # ... and at most one
        (bowl("opt_base_rice", []), 200),  # the group's own rule: optional
        (bowl("opt_base_rice", two), 200),  # ... up to 2
        (bowl("opt_base_noodles", ["opt_sauce_chilli"]), 200),
    ):
        r = await api.write("POST", "/items", cart, token, body)
        assert r.status_code == status, (body, r.json())
        if status == 200:
            cart = r.json()
    assert [i["price"] for i in cart["items"]] == ["8.75", "9.05", "9.55"]
    refusals = api.app.state.refusals
    assert len(refusals) == 2 and "Sauce is required" in refusals[0]
    assert "Sauce: choose between 1 and 1" in refusals[1]
    assert api.app.state.violations == []


def _seed(**changes: Any) -> Seed:
    seed = harbour_noodles()
    seed.locations[0] = replace(seed.locations[0], **changes)
    return seed


async def test_a_scheduled_only_location_refuses_asap_and_takes_a_later_slot() -> None:
    # contract line 136 / facts line 525: OrderTimes.requireScheduledOrders. What it forbids is
    # not written: we refuse ASAP at update-order-time and at the hand-off (where an order
    # begins) until a LATER slot is set. Readiness: ready, LATER, the first slot (facts 3017).
    async with served(seed=_seed(require_scheduled=True), clock=Clock()) as api:
        times = (
            await api.call("GET", "/locations/{locationId}/time-intervals", locationId=LOC)
        ).json()
        assert times["requireScheduledOrders"] is True and times["scheduleAllowed"] is True
        ready = (
            await api.call("GET", "/locations/{locationId}/ordering-readiness", locationId=LOC)
        ).json()
        first = times["orderDays"][0]
        assert (ready["ready"], ready["pickupType"]) == (True, "LATER")
        assert (ready["orderDate"], ready["orderTime"]) == (first["value"], first["intervals"][0])
        cart, token = await api.session()
        cart = (await api.write("POST", "/items", cart, token, GYOZA)).json()
        r = await api.write("PUT", "/update-order-time", cart, token, {"pickupType": "ASAP"})
        assert (r.status_code, r.json()["code"]) == (400, "VALIDATION_ERROR")
        r = await api.write("POST", "/checkout-handoffs", cart, token, {}, if_match=None)
        assert r.status_code == 400 and r.json()["details"] == {"field": "pickupType"}
        later = {
            "pickupType": "LATER",
            "orderDate": first["value"],
            "orderTime": first["intervals"][0],
        }
        cart = (await api.write("PUT", "/update-order-time", cart, token, later)).json()
        r = await api.write("POST", "/checkout-handoffs", cart, token, {}, if_match=None)
        assert r.status_code == 201
        assert api.app.state.violations == [] and len(api.app.state.refusals) == 2


async def test_a_closed_location_has_no_slot_today_and_says_why_per_location() -> None:
    # contract line 29: readiness {ready: false, fulfillmentMethod, reason}; line 136: slots.
    seed = _seed(closed_reason="Closed today for a private event.")
    open_one = replace(
        seed.locations[0], id="66a1f0c2b3d4e5f60718293b", slug="harbour-2", closed_reason=None
    )
    seed.locations.append(open_one)
    async with served(seed=seed, clock=Clock()) as api:
        ready = (
            await api.call("GET", "/locations/{locationId}/ordering-readiness", locationId=LOC)
        ).json()
        assert ready == {
            "ready": False,
            "fulfillmentMethod": "takeout",
            "reason": "Closed today for a private event.",
        }
        other = await api.call(
            "GET", "/locations/{locationId}/ordering-readiness", locationId=open_one.id
        )
        assert other.json()["ready"] is True
        days = (
            await api.call("GET", "/locations/{locationId}/time-intervals", locationId=LOC)
        ).json()["orderDays"]
        assert [d["label"] for d in days] == ["Tomorrow"]  # nothing today
        menus = (await api.call("GET", "/locations/{locationId}/menus", locationId=LOC)).json()
        assert menus["menus"][0]["isActive"] is False
        later = await api.call(
            "GET",
            "/locations/{locationId}/menus",
            params={"orderDate": days[0]["value"], "orderTime": "12:00"},
            locationId=LOC,
        )
        assert later.json()["menus"][0]["isActive"] is True
        cart, token = await api.session()
        cart = (await api.write("POST", "/items", cart, token, GYOZA)).json()
        r = await api.write("PUT", "/update-order-time", cart, token, {"pickupType": "ASAP"})
        assert r.status_code == 400
        r = await api.write("POST", "/checkout-handoffs", cart, token, {}, if_match=None)
        assert r.status_code == 400
        tomorrow = {"pickupType": "LATER", "orderDate": days[0]["value"], "orderTime": "12:00"}
        cart = (await api.write("PUT", "/update-order-time", cart, token, tomorrow)).json()
        r = await api.write("POST", "/checkout-handoffs", cart, token, {}, if_match=None)
        assert r.status_code == 201
        assert api.app.state.violations == []


async def test_an_old_hand_off_stays_payable_after_the_kiosk_goes_back(api: Api) -> None:
    # contract line 75: a hand-off lives until its expiresAt; nothing says going back ends it.
    old, old_token, handoff = await _ready_to_pay(api)
    new, new_token = await api.session()  # the kiosk went back and started a new cart
    assert (await _control(api, f"handoffs/{handoff}/pay")).status_code == 200
    await _result(api, old, old_token)
    done = await _result(api, old, old_token)
    assert done["state"] == "completed"
    assert await _result(api, new, new_token) == {"state": "payment_pending"}


async def test_a_deleted_carts_hand_off_cannot_be_paid(api: Api) -> None:
    # contract line 61: DELETE expires the cart; line 125: EXPIRED carts are finished.
    cart, token, handoff = await _ready_to_pay(api)
    current = api.app.state.store.carts[cart["id"]]
    gone = await api.write("DELETE", "", {"id": cart["id"], "revision": current.revision}, token)
    assert gone.json()["status"] == "EXPIRED"
    for path in (f"handoffs/{handoff}/pay", f"carts/{cart['id']}/pay"):
        r = await _control(api, path)
        assert r.status_code == 409 and "deleted" in r.json()["refused"]
    assert current.status == "EXPIRED" and api.app.state.store.orders == {}
    assert (await _result(api, cart, token))["state"] == "failed"


async def test_hand_offs_and_carts_expire_at_their_expires_at_on_the_servers_clock() -> None:
    # contract lines 75 and 125: both carry expiresAt; the lifetimes are ours (settings).
    clock = Clock()
    async with served(
        clock=clock, cart_lifetime=timedelta(hours=1), handoff_lifetime=timedelta(minutes=5)
    ) as api:
        cart, token = await api.session()
        assert cart["expiresAt"] == "2026-03-11T13:02:00.000Z"
        cart = (await api.write("POST", "/items", cart, token, GYOZA)).json()
        r = await api.write("POST", "/checkout-handoffs", cart, token, {}, if_match=None)
        assert r.json()["expiresAt"] == "2026-03-11T12:07:00.000Z"
        handoff = r.json()["checkoutUrl"].rsplit("/", 1)[1]
        clock.advance(minutes=5)
        r = await _control(api, f"handoffs/{handoff}/pay")
        assert r.status_code == 409 and "expired" in r.json()["refused"]
        r = await api.write("POST", "/checkout-handoffs", cart, token, {}, if_match=None)
        fresh = r.json()["checkoutUrl"].rsplit("/", 1)[1]
        clock.advance(minutes=56)  # past the cart's expiresAt
        got = await api.call(
            "GET",
            "/locations/{locationId}/carts/{cartId}",
            headers=token,
            locationId=LOC,
            cartId=cart["id"],
        )
        assert got.json()["status"] == "EXPIRED" and got.json()["revision"] == cart["revision"] + 1
        r = await api.write("POST", "/items", got.json(), token, GYOZA)
        assert (r.status_code, r.json()["code"]) == (409, "CART_IMMUTABLE")
        assert (await _control(api, f"handoffs/{fresh}/pay")).status_code == 409
        assert api.app.state.store.orders == {} and api.app.state.violations == []


async def test_a_stalled_write_commits_is_in_progress_then_replays() -> None:
    # contract line 42: resend with the same key after a timeout replays the first outcome;
    # line 43: IDEMPOTENCY_IN_PROGRESS (409) while the first is still running.
    clock = Clock()
    async with served(clock=clock, faults=Faults(script=["stall"], stall_seconds=30)) as api:
        cart, token = await api.session()
        with pytest.raises(httpx.ReadTimeout):
            await api.write(
                "POST", "/items", cart, token, GYOZA, key="stall-key-000001", check=False
            )
        assert len(api.app.state.store.carts[cart["id"]].lines) == 1  # it committed
        clock.advance(seconds=29)
        r = await api.write("POST", "/items", cart, token, GYOZA, key="stall-key-000001")
        assert (r.status_code, r.json()["code"]) == (409, "IDEMPOTENCY_IN_PROGRESS")
        clock.advance(seconds=1)
        r = await api.write("POST", "/items", cart, token, GYOZA, key="stall-key-000001")
        assert r.status_code == 200 and len(r.json()["items"]) == 1
        assert r.headers["ETag"] == '"cart-1"'
        assert api.app.state.violations == [] and api.app.state.server.stalled


def test_over_uvicorn_a_stalled_write_really_answers_late() -> None:
    clock = Clock()
    faults = Faults(script=["stall"], stall_seconds=30, stall_delay=0.5)
    app = make_vendor_app(clock=clock, faults=faults)
    # A generous timeout for the ordinary requests (a loaded machine answers late); only the
    # stalled write gives up, long before the server answers it (0.5 s).
    with UvicornThread(app) as server, httpx.Client(base_url=server.url, timeout=30) as client:
        r = client.post(
            f"{BASE_PATH}/locations/{LOC}/ordering-sessions",
            json={"fulfillmentMethod": "takeout"},
            headers={"Idempotency-Key": "uvicorn-key-000001"},
        )
        cart, token = r.json()["cart"], r.json()["cartAccessToken"]
        headers = {
            "X-Cart-Token": token,
            "Idempotency-Key": "uvicorn-key-000002",
            "If-Match": '"cart-0"',
        }
        url = f"{BASE_PATH}/locations/{LOC}/carts/{cart['id']}/items"
        with pytest.raises(httpx.ReadTimeout):
            client.post(url, json=GYOZA, headers=headers, timeout=0.1)
        again = client.post(url, json=GYOZA, headers=headers)
        assert (again.status_code, again.json()["code"]) == (409, "IDEMPOTENCY_IN_PROGRESS")
        clock.advance(seconds=30)
        again = client.post(url, json=GYOZA, headers=headers)
        assert again.status_code == 200 and len(again.json()["items"]) == 1


async def test_a_burst_of_429s_answers_the_next_n_requests_bare() -> None:
    # contract line 14: only 429 RATE_LIMITED, no Retry-After nor X-RateLimit-* header.
    async with served(faults=Faults(rate_limited=2)) as api:
        codes = [(await api.client.get(f"{BASE_PATH}/locations/{SLUG}")) for _ in range(3)]
        assert [r.status_code for r in codes] == [429, 429, 200]
        assert codes[0].json()["code"] == "RATE_LIMITED"
        assert not [h for h in codes[0].headers if h.lower().startswith(("retry-after", "x-rate"))]
        assert (await _control(api, "faults", {"rate_limited": 1})).status_code == 200
        assert (await api.client.get(f"{BASE_PATH}/locations/{SLUG}")).status_code == 429
        assert (await api.client.get(f"{BASE_PATH}/locations/{SLUG}")).status_code == 200


@pytest.mark.parametrize(
    ("method", "suffix", "details", "identifier"),
    [
        ("takeout", None, None, "counter"),
        ("table_side", "/set-table", {"tableNumber": "7"}, "7"),
        ("room_service", "/set-room", {"lastName": "Lovelace", "roomNumber": "204"}, "204"),
        (
            "delivery",
            "/set-delivery",
            {
                "street": "10 Pitt St",
                "streetOptional": "Unit 5",
                "city": "Bristol",
                "state": "England",
                "zipCode": "BS1 5DB",
                "country": "United Kingdom",
                "lat": 51.45,
                "lng": -2.59,
            },
            "10 Pitt St, Unit 5, Bristol, BS1 5DB",
        ),
    ],
)
async def test_fulfillment_identifier_names_where_the_order_goes_not_its_number(
    api: Api, method: str, suffix: str | None, details: Any, identifier: str
) -> None:
    # fixtures customer_order.json lines 3, 5-6: takeout, fulfillmentIdentifier "counter"
    # beside shortId "A100"; contract line 124: its meaning is not stated.
    cart, token = await api.session(method)
    if suffix:
        cart = (await api.write("PUT", suffix, cart, token, details)).json()
    cart = (await api.write("POST", "/items", cart, token, GYOZA)).json()
    assert cart["fulfillmentIdentifier"] == identifier
    r = await api.write("POST", "/checkout-handoffs", cart, token, {}, if_match=None)
    handoff = r.json()["checkoutUrl"].rsplit("/", 1)[1]
    await _control(api, f"handoffs/{handoff}/pay")
    await _result(api, cart, token)
    order = (await _result(api, cart, token))["order"]
    assert order["fulfillmentIdentifier"] == identifier
    assert re.fullmatch(r"H\d{3}", order["shortId"]) and order["shortId"] != identifier
    assert api.app.state.violations == []
