"""Merchant, location, menus filtered by time, products, time slots in each location's own zone,
and what a closed location does. All on the injected clock."""

from __future__ import annotations

import httpx
import pytest

from kiosk.demo import create_app
from kiosk.demo.data import DOWNTOWN, MERCHANT_SLUG, WESTSIDE

from .support import DT, WS, Clock, add, get_cart, make_client, new_cart


def menu_names(body: dict[str, object]) -> list[str]:
    return [m["name"] for m in body["menus"]]  # type: ignore[attr-defined, index]


async def test_merchant_and_locations(dt: httpx.AsyncClient) -> None:
    m = (await dt.get(f"/merchant/{MERCHANT_SLUG}")).json()
    assert m["name"] == "Lantern Street Kitchen" and m["currency"] == "usd"
    down, west = m["locations"]
    assert down["methodsStatus"] == {
        "pickup": True,
        "delivery": True,
        "table": False,
        "roomService": False,
        "dineIn": True,
    }
    assert west["methodsStatus"]["table"] and west["methodsStatus"]["roomService"]
    loc = (await dt.get(f"/locations/{DOWNTOWN.slug}")).json()
    assert loc["id"] == DT and loc["restaurantSlug"] == DOWNTOWN.slug
    assert loc["timezone"] == "America/New_York"
    assert loc["addressData"]["city"] == "New York"
    assert len(loc["hours"]) == 7 and loc["hours"][0] == {
        "day": "monday",
        "open": "00:00",
        "close": "23:59",
    }
    assert loc["fulfillmentMethods"] == ["pickup", "dine_in", "delivery"]
    assert loc["isOpenNow"] is True


@pytest.mark.parametrize(
    ("utc", "expected"),
    [
        ((2026, 3, 11, 13, 30), ["All day", "Breakfast"]),  # 09:30 New York
        ((2026, 3, 11, 19, 30), ["All day", "Lunch"]),  # 15:30
        ((2026, 3, 12, 2, 0), ["All day"]),  # 22:00: the all-day menu keeps the demo usable
    ],
)
async def test_menus_follow_the_clock(
    dt: httpx.AsyncClient, clock: Clock, utc: tuple[int, ...], expected: list[str]
) -> None:
    clock.set_utc(*utc)
    assert menu_names((await dt.get(f"/locations/{DT}/menus")).json()) == expected


async def test_menus_for_a_chosen_date_and_time(dt: httpx.AsyncClient) -> None:
    r = await dt.get(
        f"/locations/{DT}/menus", params={"orderDate": "2026-03-12", "orderTime": "07:00"}
    )
    body = r.json()
    assert menu_names(body) == ["All day", "Breakfast"]
    assert (body["orderDate"], body["orderTime"]) == ("2026-03-12", "07:00")
    breakfast = next(m for m in body["menus"] if m["name"] == "Breakfast")
    assert breakfast["time"] == "06:00-11:00" and breakfast["isActive"] is True
    products = [p for c in breakfast["categories"] for p in c["products"]]
    roll = next(p for p in products if p["id"] == "prd_cinnamon_roll")
    assert roll["availability"] == "unavailable"  # sold out in the seed
    pancakes = next(p for p in products if p["id"] == "prd_pancakes")
    assert pancakes["price"] == "9.50" and pancakes["displayPrice"] == "$9.50"
    assert pancakes["availableTimes"] == [
        {"days": list(pancakes["availableTimes"][0]["days"]), "start": "06:00", "end": "11:00"}
    ]
    # Popular products are only those on the menus served at that time.
    popular = [p["id"] for p in body["popularProducts"]]
    assert "prd_avocado_toast" in popular and "prd_classic_burger" not in popular


async def test_product_list_and_detail(dt: httpx.AsyncClient, ws: httpx.AsyncClient) -> None:
    products = (await dt.get(f"/locations/{DT}/products")).json()
    ids = {p["id"] for p in products}
    assert "prd_latte" in ids and "prd_club_tray" not in ids
    assert len(products) == 53
    assert len((await ws.get(f"/locations/{WS}/products")).json()) == 28
    detail = (await dt.get(f"/locations/{DT}/products/prd_turkey_club")).json()
    assert detail["modifierIds"] == ["grp_bread", "grp_sandwich_extras", "grp_combo"]
    combo = detail["modifiers"][2]
    assert combo["rule"] == {"min": 0, "max": 1}
    assert (combo["required"], combo["quantity"], combo["isFixed"]) == (False, 1, False)
    child = combo["items"][0]["childGroups"]
    assert [c["groupId"] for c in child] == ["grp_combo_side", "grp_combo_drink"]
    assert child[0]["group"]["rule"] == {"min": 1, "max": 1} and child[0]["group"]["isFixed"]
    cola = next(i for i in child[1]["group"]["items"] if i["id"] == "opt_cdrink_cola")
    assert cola["maxQuantity"] == 0
    bread = detail["modifiers"][0]
    assert bread["required"] is True
    assert next(i for i in bread["items"] if i["isDefault"])["id"] == "opt_bread_sourdough"
    assert (await dt.get(f"/locations/{DT}/products/prd_club_tray")).status_code == 404


async def test_time_intervals_downtown_all_day(dt: httpx.AsyncClient, clock: Clock) -> None:
    clock.set_utc(2026, 3, 11, 13, 31)  # 09:31 in New York
    body = (await dt.get(f"/locations/{DT}/time-intervals")).json()
    assert body["scheduleAllowed"] is True
    days = body["orderDays"]
    assert [d["value"] for d in days] == ["2026-03-11", "2026-03-12", "2026-03-13"]
    assert [d["label"] for d in days] == ["Today", "Tomorrow", "Fri, Mar 13"]
    # At least 15 minutes ahead, on the quarter hour.
    assert days[0]["intervals"][0] == "10:00" and days[0]["intervals"][-1] == "23:45"
    assert len(days[1]["intervals"]) == 96 and days[1]["intervals"][:2] == ["00:00", "00:15"]


async def test_time_intervals_follow_the_location_zone(ws: httpx.AsyncClient, clock: Clock) -> None:
    # 04:30 UTC Thursday: already Thursday 00:30 in New York, still Wednesday 21:30 in Los Angeles.
    clock.set_utc(2026, 3, 12, 4, 30)
    days = (await ws.get(f"/locations/{WS}/time-intervals")).json()["orderDays"]
    # Westside is closed for the rest of Wednesday; its next days are Thursday and Friday.
    assert [d["value"] for d in days] == ["2026-03-12", "2026-03-13"]
    assert days[0]["label"] == "Tomorrow"
    assert days[0]["intervals"][0] == "07:00" and days[0]["intervals"][-1] == "14:45"
    clock.set_utc(2026, 3, 14, 17, 0)  # Saturday 10:00 in Los Angeles: weekend hours 08:00-14:00
    days = (await ws.get(f"/locations/{WS}/time-intervals")).json()["orderDays"]
    assert days[0]["intervals"][0] == "10:15" and days[0]["intervals"][-1] == "13:45"
    assert days[1]["intervals"][0] == "08:00"


async def test_closed_location_schedules_and_refuses_asap(
    ws: httpx.AsyncClient, clock: Clock
) -> None:
    clock.set_utc(2026, 3, 11, 13, 30)  # 06:30 in Los Angeles: Westside opens at 07:00
    loc = (await ws.get(f"/locations/{WS}")).json()
    assert loc["isOpenNow"] is False
    r = await ws.post(f"/locations/{WS}/ordering-sessions", json={"fulfillmentMethod": "pickup"})
    body = r.json()
    assert "closed" in body["errorMessage"]
    cart = await get_cart(ws, body["cartId"], WS)
    assert (cart["pickupType"], cart["orderDate"], cart["orderTime"]) == (
        "LATER",
        "2026-03-11",
        "07:00",
    )
    r = await ws.put(
        f"/locations/{WS}/carts/{body['cartId']}/update-order-time", json={"pickupType": "ASAP"}
    )
    assert r.status_code == 422 and r.json()["code"] == "LOCATION_CLOSED"


async def test_payment_refused_while_closed_for_asap(ws: httpx.AsyncClient, clock: Clock) -> None:
    cart_id = await new_cart(ws, WS)  # 12:30: open
    await add(ws, cart_id, "prd_cookie", loc=WS)
    clock.set_utc(2026, 3, 12, 0, 0)  # 17:00 in Los Angeles: closed
    v = (await ws.post(f"/locations/{WS}/carts/{cart_id}/validate")).json()
    assert [e["code"] for e in v["errors"]] == ["LOCATION_CLOSED"]
    r = await ws.post(f"/locations/{WS}/carts/{cart_id}/payment-intent")
    assert r.status_code == 422 and r.json()["code"] == "LOCATION_CLOSED"
    assert (await get_cart(ws, cart_id, WS))["status"] == "OPEN"


async def test_a_scheduled_time_that_passed_blocks_payment(
    dt: httpx.AsyncClient, clock: Clock
) -> None:
    cart_id = await new_cart(dt)
    await add(dt, cart_id, "prd_cookie")
    await dt.put(
        f"/locations/{DT}/carts/{cart_id}/update-order-time",
        json={"pickupType": "LATER", "orderDate": "2026-03-11", "orderTime": "16:00"},
    )
    clock.advance(3600)
    r = await dt.post(f"/locations/{DT}/carts/{cart_id}/payment-intent")
    assert r.status_code == 400 and r.json()["code"] == "ORDER_TIME_PASSED"


def test_generated_large_menu(clock: Clock) -> None:
    # How fast it is built is a benchmark's question (tests/bench), not a test's.
    app = create_app(clock=clock, extra_products=5000)
    backend = app.state.backend
    products = backend.products_json(backend.location(DT))
    assert len(products) == 53 + 5000
    body = backend.menus_json(backend.location(DT), None, None)
    big = next(m for m in body["menus"] if m["id"] == "menu_xp_big")
    assert sum(len(c["products"]) for c in big["categories"]) == 5000
    assert len(big["categories"]) == 50
    # The westside location is untouched.
    assert len(backend.products_json(backend.location(WS))) == 28


async def test_large_menu_over_the_api(clock: Clock) -> None:
    app = create_app(clock=clock, extra_products=5000)
    async with make_client(app, DOWNTOWN.api_key) as c:
        r = await c.get(f"/locations/{DT}/menus")
        assert r.status_code == 200
        menus = r.json()["menus"]
        assert sum(len(cat["products"]) for m in menus for cat in m["categories"]) > 5000
        r = await c.get(f"/locations/{DT}/products/xp_00011")
        assert r.json()["modifiers"][0]["id"] == "grp_drink_size"
    async with make_client(app, WESTSIDE.api_key) as c:
        assert (await c.get(f"/locations/{WS}/products/xp_00001")).status_code == 404
