"""Server-side events on the strict 2.0 server, driven through its /__test__ routes: what each
one changes, and the documented refusal a client then meets (a business refusal, never a
contract violation for a client that behaves). Every API answer is checked against the
vendor's schema by `Api`."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import httpx

from tests.conformance.test_vendor_server import GYOZA, LOC, RESULT, Api, Clock
from tests.conformance.vendor_server import (
    BONDI_LOCATION_ID,
    harbour_and_bondi,
    make_vendor_app,
)

CART = "/locations/{locationId}/carts/{cartId}"
TIMES = "/locations/{locationId}/time-intervals"
READY = "/locations/{locationId}/ordering-readiness"
SESSIONS = "/locations/{locationId}/ordering-sessions"


class Events(Api):
    """`Api` at any location of the seed, with the /__test__ controls."""

    loc = LOC

    async def session(self, method: str = "takeout") -> tuple[dict[str, Any], dict[str, str]]:
        r = await self.open_session(method)
        assert r.status_code == 201, r.json()
        return r.json()["cart"], {"X-Cart-Token": r.json()["cartAccessToken"]}

    async def open_session(self, method: str) -> httpx.Response:
        return await self.call(
            "POST",
            SESSIONS,
            json={"fulfillmentMethod": method, "channel": "kiosk"},
            headers={"Idempotency-Key": self.key()},
            locationId=self.loc,
        )

    async def write(  # type: ignore[override]
        self,
        method: str,
        suffix: str,
        cart: dict[str, Any],
        token: dict[str, str],
        body: Any = None,
        *,
        if_match: str | None = "current",
        **path: str,
    ) -> httpx.Response:
        headers = {**token, "Idempotency-Key": self.key()}
        if if_match == "current":
            headers["If-Match"] = f'"cart-{self.revision(cart)}"'
        return await self.call(
            method,
            CART + suffix,
            json=body,
            headers=headers,
            locationId=self.loc,
            cartId=cart["id"],
            **path,
        )

    def revision(self, cart: dict[str, Any]) -> int:
        # A server-side event moves the revision: the client would have re-read the cart.
        return int(self.app.state.store.carts[cart["id"]].revision)

    async def get(self, template: str, **params: str) -> dict[str, Any]:
        r = await self.call("GET", template, params=params or None, locationId=self.loc)
        assert r.status_code == 200
        return dict(r.json())

    async def read(self, cart: dict[str, Any], token: dict[str, str]) -> dict[str, Any]:
        r = await self.call("GET", CART, headers=token, locationId=self.loc, cartId=cart["id"])
        assert r.status_code == 200
        return dict(r.json())

    async def handoff(self, cart: dict[str, Any], token: dict[str, str]) -> httpx.Response:
        return await self.write("POST", "/checkout-handoffs", cart, token, {}, if_match=None)

    async def control(self, path: str, body: Any = None) -> httpx.Response:
        return await self.client.post(f"/__test__/{path}", json=body)

    def refusals_ok(self) -> None:
        assert self.app.state.violations == [] and self.app.state.answer_errors == []


@asynccontextmanager
async def events(*, at: str = LOC, **options: Any) -> AsyncIterator[Events]:
    options.setdefault("clock", Clock())
    if at != LOC:
        options.setdefault("seed", harbour_and_bondi())
    app = make_vendor_app(**options)
    async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://t") as c:
        api = Events(app, c)
        api.loc = at
        yield api


def _refused(r: httpx.Response, status: int, code: str) -> dict[str, Any]:
    body = dict(r.json())
    assert (r.status_code, body["code"]) == (status, code), body
    return body


async def test_an_expired_cart_reads_as_expired_and_refuses_edits_and_hand_off() -> None:
    async with events() as api:
        cart, token = await api.session()
        cart = (await api.write("POST", "/items", cart, token, GYOZA)).json()
        r = await api.control(f"carts/{cart['id']}/expire")
        assert r.json() == {"cart": cart["id"], "status": "EXPIRED"}
        assert (await api.read(cart, token))["status"] == "EXPIRED"
        for suffix, body in (("/items", GYOZA), ("/discount", {"code": "HARBOUR10"})):
            refused = _refused(
                await api.write("POST", suffix, cart, token, body), 409, "CART_IMMUTABLE"
            )
            assert refused["message"] == "The cart is EXPIRED."
            assert refused["details"] == {"status": "EXPIRED"}
        _refused(await api.handoff(cart, token), 409, "CART_IMMUTABLE")
        r = await api.call("GET", RESULT, headers=token, locationId=LOC, cartId=cart["id"])
        assert r.json() == {"state": "failed", "code": "CART_EXPIRED"}
        assert (await api.control(f"carts/{cart['id']}/pay")).status_code == 409
        assert (await api.control("carts/nope/expire")).status_code == 404
        api.refusals_ok()


async def test_a_sold_out_product_refuses_adds_marks_its_line_and_stops_the_hand_off() -> None:
    async with events() as api:
        cart, token = await api.session()
        cart = (await api.write("POST", "/items", cart, token, GYOZA)).json()
        assert "availability" not in cart["items"][0]
        assert (await api.control("products/prod_gyoza/sell-out")).status_code == 200
        menus = await api.get("/locations/{locationId}/menus")
        sides = menus["menus"][0]["categories"][1]["products"]
        assert next(p for p in sides if p["id"] == "prod_gyoza")["availability"] == "sold_out"
        line = (await api.read(cart, token))["items"][0]
        assert (line["availability"], line["itemUnavailableAction"]) == ("sold_out", "remove_item")
        refused = _refused(
            await api.write("POST", "/items", cart, token, GYOZA), 400, "VALIDATION_ERROR"
        )
        assert (refused["message"], refused["details"]) == (
            "Gyoza (5) is not available.",
            {"field": "productId"},
        )
        refused = _refused(await api.handoff(cart, token), 400, "VALIDATION_ERROR")
        assert refused["message"] == (
            "Sorry, Gyoza (5) is no longer available. Remove it from your order to continue."
        )
        assert refused["details"] == {
            "field": "items",
            "reason": "ITEM_UNAVAILABLE",
            "itemIds": [line["id"]],
            "productIds": ["prod_gyoza"],
        }
        # Removing the line lets the order go on; a restock lets the product back in.
        cart = (await api.write("DELETE", "/items/{itemId}", cart, token, itemId=line["id"])).json()
        tea = {**GYOZA, "productId": "prod_jasmine_tea"}
        cart = (await api.write("POST", "/items", cart, token, tea)).json()
        assert (await api.handoff(cart, token)).status_code == 201
        assert (await api.control("products/prod_gyoza/restock")).status_code == 200
        assert (await api.write("POST", "/items", cart, token, GYOZA)).status_code == 200
        assert (await api.control("products/nope/sell-out")).status_code == 404
        api.refusals_ok()


async def test_a_way_to_order_switched_off_leaves_methods_status_and_is_refused() -> None:
    async with events() as api:
        delivery_cart, delivery_token = await api.session("delivery")
        takeout, token = await api.session("takeout")
        r = await api.control("methods/delivery/off")
        assert r.json()["methods"]["delivery"] is False
        merchant = await api.call(
            "GET", "/merchant/{merchantSlug}", merchantSlug="harbour-noodles-co"
        )
        status = merchant.json()["locations"][0]["methodsStatus"]
        assert status == {"pickup": True, "table": True, "delivery": False, "roomService": True}
        ready = await api.get(READY, fulfillmentMethod="delivery")
        message = "Delivery orders are not available at Harbour Noodles Quayside right now."
        assert ready == {"ready": False, "fulfillmentMethod": "delivery", "reason": message}
        assert (await api.get(READY, fulfillmentMethod="takeout"))["ready"] is True
        refused = _refused(await api.open_session("delivery"), 400, "VALIDATION_ERROR")
        assert (refused["message"], refused["details"]) == (message, {"field": "fulfillmentMethod"})
        r = await api.write("PATCH", "", takeout, token, {"fulfillmentMethod": "delivery"})
        assert _refused(r, 400, "VALIDATION_ERROR")["message"] == message
        # A delivery cart made before: its hand-off is refused the same way.
        address = {
            "street": "1 Harbourside",
            "city": "Bristol",
            "state": "England",
            "zipCode": "BS1 5DB",
            "country": "United Kingdom",
            "lat": 51.4505,
            "lng": -2.5981,
        }
        delivery_cart = (
            await api.write("PUT", "/set-delivery", delivery_cart, delivery_token, address)
        ).json()
        delivery_cart = (
            await api.write("POST", "/items", delivery_cart, delivery_token, GYOZA)
        ).json()
        refused = _refused(
            await api.handoff(delivery_cart, delivery_token), 400, "VALIDATION_ERROR"
        )
        assert refused["details"] == {"field": "fulfillmentMethod"}
        await api.control("methods/delivery/on")
        assert (await api.handoff(delivery_cart, delivery_token)).status_code == 201
        assert (await api.open_session("delivery")).status_code == 201
        assert (await api.control("methods/pickup/off")).status_code == 404  # the API's word
        api.refusals_ok()


async def test_taken_slots_leave_the_times_and_are_refused_at_setting_and_hand_off() -> None:
    async with events() as api:
        # The clock: 12:02 UTC on 11 March 2026, 12:02 in Bristol; slots from 12:30.
        today = (await api.get(TIMES))["orderDays"][0]
        assert today["intervals"][:3] == ["12:30", "12:45", "13:00"]
        cart, token = await api.session()
        cart = (await api.write("POST", "/items", cart, token, GYOZA)).json()
        later = {"pickupType": "LATER", "orderDate": today["value"], "orderTime": "12:45"}
        cart = (await api.write("PUT", "/update-order-time", cart, token, later)).json()
        r = await api.control("slots/take", {"times": ["12:45"]})
        assert r.json()["intervals"][:2] == ["12:30", "13:00"]
        assert "12:45" not in (await api.get(TIMES))["orderDays"][0]["intervals"]
        refused = _refused(await api.handoff(cart, token), 400, "VALIDATION_ERROR")
        assert (refused["message"], refused["details"]) == (
            "12:45 is no longer available. Please choose another time.",
            {"field": "orderTime", "reason": "SLOT_UNAVAILABLE"},
        )
        refused = _refused(
            await api.write("PUT", "/update-order-time", cart, token, later),
            400,
            "VALIDATION_ERROR",
        )
        assert (refused["message"], refused["details"]) == (
            "That time is not one of the offered slots.",
            {"field": "orderTime"},
        )
        # Every slot after 13:00 today: 12:30 and 13:00 are left; tomorrow is untouched.
        r = await api.control("slots/take", {"after": "13:00"})
        assert r.json() == {"intervals": ["12:30", "13:00"]}
        days = (await api.get(TIMES))["orderDays"]
        assert days[0]["intervals"] == ["12:30", "13:00"] and len(days[1]["intervals"]) == 96
        cart = (
            await api.write(
                "PUT", "/update-order-time", cart, token, {**later, "orderTime": "13:00"}
            )
        ).json()
        assert (await api.handoff(cart, token)).status_code == 201
        api.refusals_ok()


async def test_a_code_below_its_minimum_says_how_much_more_and_applies_from_it() -> None:
    async with events() as api:
        cart, token = await api.session()
        cart = (await api.write("POST", "/items", cart, token, GYOZA)).json()
        refused = _refused(
            await api.write("POST", "/discount", cart, token, {"code": "big100"}),
            400,
            "VALIDATION_ERROR",
        )
        assert (
            refused["message"] == "This code needs an order of at least £100.00. Add £94.50 more."
        )
        assert refused["details"] == {
            "field": "code",
            "reason": "MINIMUM_NOT_MET",
            "minimumSubtotal": "100.00",
            "amountShort": "94.50",
        }
        line = cart["items"][0]
        cart = (
            await api.write(
                "PATCH", "/items/{itemId}", cart, token, {"quantity": 19}, itemId=line["id"]
            )
        ).json()
        cart = (await api.write("POST", "/discount", cart, token, {"code": "BIG100"})).json()
        assert (cart["subTotalWithoutDiscount"], cart["discountTotal"]) == ("104.50", "10.45")
        # Falling below the minimum keeps the code with no discount.
        cart = (
            await api.write(
                "PATCH", "/items/{itemId}", cart, token, {"quantity": 2}, itemId=line["id"]
            )
        ).json()
        assert (cart["discountCode"], cart["discountTotal"]) == ("BIG100", "0.00")
        # A code added at run time.
        r = await api.control(
            "discount-codes", {"code": "small5", "percentOff": 5, "minimumSubtotal": "20.00"}
        )
        assert r.json() == {"code": "SMALL5"}
        refused = _refused(
            await api.write("POST", "/discount", cart, token, {"code": "SMALL5"}),
            400,
            "VALIDATION_ERROR",
        )
        assert refused["message"] == "This code needs an order of at least £20.00. Add £9.00 more."
        api.refusals_ok()


async def test_an_earlier_hand_off_stays_payable_after_a_newer_one_and_an_edit() -> None:
    # A payment that lands late: the kiosk made a second hand-off and changed the order since.
    async with events() as api:
        cart, token = await api.session()
        cart = (await api.write("POST", "/items", cart, token, GYOZA)).json()
        first = (await api.handoff(cart, token)).json()["checkoutUrl"].rsplit("/", 1)[1]
        assert (await api.handoff(cart, token)).status_code == 201
        cart = (await api.write("POST", "/items", cart, token, GYOZA)).json()
        assert (await api.control(f"handoffs/{first}/pay")).status_code == 200
        r = await api.call("GET", RESULT, headers=token, locationId=LOC, cartId=cart["id"])
        assert r.json() == {"state": "order_pending"}
        r = await api.call("GET", RESULT, headers=token, locationId=LOC, cartId=cart["id"])
        assert r.json()["state"] == "completed"
        api.refusals_ok()


async def test_bondi_is_sydney_aud_table_and_delivery_only_tips_off_and_a_2_to_3_choice() -> None:
    async with events(at=BONDI_LOCATION_ID) as api:
        merchant = await api.call(
            "GET", "/merchant/{merchantSlug}", merchantSlug="harbour-noodles-co"
        )
        bondi = merchant.json()["locations"][1]
        assert bondi["id"] == BONDI_LOCATION_ID
        assert bondi["methodsStatus"] == {
            "pickup": False,
            "table": True,
            "delivery": True,
            "roomService": False,
        }
        # 12:02 UTC is 23:02 in Sydney (AEDT): today's last two slots, then tomorrow's.
        days = (await api.get(TIMES))["orderDays"]
        assert (days[0]["value"], days[0]["intervals"]) == ("2026-03-11", ["23:30", "23:45"])
        assert (days[1]["value"], days[1]["intervals"][0]) == ("2026-03-12", "00:00")
        assert (await api.get(READY))["fulfillmentMethod"] == "table_side"
        assert (await api.get(READY, fulfillmentMethod="takeout"))["ready"] is False
        assert (await api.get("/locations/{locationId}/gratuity"))["enabled"] is False
        _refused(await api.open_session("takeout"), 400, "VALIDATION_ERROR")
        cart, token = await api.session("table_side")
        assert cart["currency"] == "aud"
        platter = {
            "productId": "prod_bondi_platter",
            "quantity": 1,
            "itemUnavailableAction": "remove_item",
        }

        def fillings(*ids: str) -> dict[str, Any]:
            chosen = [{"optionId": f"opt_fill_{i}", "quantity": 1} for i in ids]
            return {
                **platter,
                "selections": [{"groupId": "grp_fillings", "selectedOptions": chosen}],
            }

        for wrong in (fillings("pork"), fillings("pork", "veg", "prawn", "chicken")):
            refused = _refused(
                await api.write("POST", "/items", cart, token, wrong), 400, "VALIDATION_ERROR"
            )
            assert refused["details"] == {"groupId": "grp_fillings"}
        cart = (await api.write("POST", "/items", cart, token, fillings("prawn", "pork"))).json()
        assert (cart["subTotal"], cart["subTotalFormatted"]) == ("19.50", "A$19.50")
        refused = _refused(
            await api.write("POST", "/discount", cart, token, {"code": "BIG100"}),
            400,
            "VALIDATION_ERROR",
        )
        assert (
            refused["message"] == "This code needs an order of at least A$100.00. Add A$80.50 more."
        )
        refused = _refused(
            await api.write("PUT", "/gratuity", cart, token, {"percentage": "10"}),
            400,
            "VALIDATION_ERROR",
        )
        assert (refused["message"], refused["details"]) == (
            "Harbour Noodles Bondi does not take tips.",
            {"field": "amount"},
        )
        cart = (await api.write("PUT", "/set-table", cart, token, {"tableNumber": "8"})).json()
        assert (await api.handoff(cart, token)).status_code == 201
        api.refusals_ok()
