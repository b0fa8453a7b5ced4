"""The strict 2.0 server follows the vendor's documents: it checks what it is sent, and what it
answers validates against openapi-facts.json. Plain httpx over ASGITransport (one test over
uvicorn on 127.0.0.1 for the dropped connection); never kiosk.api."""

from __future__ import annotations

import re
from collections.abc import AsyncIterator
from datetime import datetime
from typing import Any

import httpx
import pytest
from starlette.routing import Route

from tests.conformance.contract import BASE_PATH, load_contract
from tests.conformance.serving import UvicornThread
from tests.conformance.vendor_server import DroppedAnswer, Faults, make_vendor_app

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
    # The rest of the table: the test-only routes (apart from the API) and the catch-all.
    others = [r.path for r in app.routes if isinstance(r, Route) and r not in api_routes]
    assert all(p.startswith("/__test__/") for p in others[:-1]) and others[-1] == "/{rest:path}"


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
    assert (
        cart["status"] == "COMPLETED" and cart["fulfillmentIdentifier"] == done["order"]["shortId"]
    )
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
