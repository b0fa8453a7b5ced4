"""Cart endpoints: sessions, create/resume, items, order time, customer, tip, fulfillment details,
cross-sell, validation, and the cart's shape as the specification lists it."""

from __future__ import annotations

import httpx

from kiosk.demo.backend import Backend
from kiosk.demo.data import DOWNTOWN

from .support import DT, LATTE_OK, WS, add, get_cart, new_cart, sel

SPEC_FIELDS = {
    "id",
    "locationId",
    "status",
    "lockedAt",
    "discountCode",
    "currency",
    "fulfilmentMethod",
    "statementDescriptor",
    "pickupType",
    "orderDate",
    "orderTime",
    "totalQuantity",
    "restaurantDisplayName",
    "deliveryInfo",
    "tableServiceInfo",
    "roomServiceInfo",
    "fees",
    "items",
    "metadata",
    "checkoutUrl",
    "fulfillmentIdentifier",
    "orderTotalWithServiceFeeAmount",
}
ITEM_FIELDS = {
    "id",
    "productId",
    "name",
    "description",
    "imageUrl",
    "price",
    "priceFormatted",
    "quantity",
    "total",
    "totalFormatted",
    "discount",
    "discountFormatted",
    "selections",
}
FEES = {
    "enterpriseFeeRate",
    "enterpriseFeeFix",
    "serviceFeeRate",
    "serviceFeeFix",
    "taxRate",
    "tipRate",
    "fulfillmentMethodFeeFix",
    "fulfillmentMethodFeeRate",
    "paymentProcessingFeeRate",
    "paymentProcessingFeeFix",
}


async def test_cart_has_every_field_of_the_spec(dt: httpx.AsyncClient) -> None:
    cart_id = await new_cart(dt)
    await add(dt, cart_id, "prd_latte", 1, LATTE_OK)
    cart = await get_cart(dt, cart_id)
    assert cart.keys() >= SPEC_FIELDS
    assert set(cart["fees"]) == FEES
    assert cart["items"][0].keys() >= ITEM_FIELDS
    assert cart["status"] == "OPEN" and cart["lockedAt"] is None
    assert cart["currency"] == "usd"
    assert cart["fulfilmentMethod"] == "pickup"
    assert cart["restaurantDisplayName"] == "Lantern Downtown"
    # ASAP: the order time is now, in the location's own time zone (15:30 in New York).
    assert (cart["pickupType"], cart["orderDate"], cart["orderTime"]) == (
        "ASAP",
        "2026-03-11",
        "15:30",
    )


async def test_ordering_session_resume_and_method_change(dt: httpx.AsyncClient) -> None:
    cart_id = await new_cart(dt)
    await add(dt, cart_id, "prd_cookie")
    r = await dt.post(
        f"/locations/{DT}/ordering-sessions",
        json={"fulfillmentMethod": "delivery", "existingCartId": cart_id, "marketplaceId": DT},
    )
    assert r.json() == {"cartId": cart_id}
    cart = await get_cart(dt, cart_id)
    assert cart["fulfilmentMethod"] == "delivery" and cart["totalQuantity"] == 1
    # An unknown existing cart starts a new one; an alias is understood.
    r = await dt.post(
        f"/locations/{DT}/ordering-sessions",
        json={"fulfillmentMethod": "takeout", "existingCartId": "cart_gone"},
    )
    other = r.json()["cartId"]
    assert other != cart_id
    assert (await get_cart(dt, other))["fulfilmentMethod"] == "pickup"


async def test_ordering_session_refuses_methods_the_location_lacks(
    dt: httpx.AsyncClient, ws: httpx.AsyncClient
) -> None:
    r = await dt.post(
        f"/locations/{DT}/ordering-sessions", json={"fulfillmentMethod": "room_service"}
    )
    assert r.status_code == 400
    assert r.json()["code"] == "FULFILLMENT_METHOD_UNAVAILABLE"
    assert r.json()["details"]["field"] == "fulfillmentMethod"
    r = await ws.post(f"/locations/{WS}/ordering-sessions", json={"fulfillmentMethod": "teleport"})
    assert r.status_code == 400 and r.json()["code"] == "VALIDATION_ERROR"
    r = await ws.post(f"/locations/{WS}/ordering-sessions", json={})
    assert r.status_code == 400 and r.json()["details"]["field"] == "fulfillmentMethod"
    r = await ws.post(
        f"/locations/{WS}/ordering-sessions",
        json={"fulfillmentMethod": "pickup", "marketplaceId": DT},
    )
    assert r.status_code == 400 and r.json()["details"]["field"] == "marketplaceId"


async def test_create_or_resume_cart(dt: httpx.AsyncClient, backend: Backend) -> None:
    r = await dt.post(f"/locations/{DT}/carts", json={"marketplaceId": DT, "currentCartId": ""})
    assert r.status_code == 200
    cart_id = r.json()["cartId"]
    r = await dt.post(
        f"/locations/{DT}/carts", json={"marketplaceId": DT, "currentCartId": cart_id}
    )
    assert r.json() == {"cartId": cart_id}
    # A completed cart is not resumed.
    await add(dt, cart_id, "prd_cookie")
    await dt.post(f"/locations/{DT}/carts/{cart_id}/payment-intent")
    backend.approve_payment(cart_id)
    r = await dt.post(
        f"/locations/{DT}/carts", json={"marketplaceId": DT, "currentCartId": cart_id}
    )
    assert r.json()["cartId"] != cart_id


async def test_change_quantity_and_remove(dt: httpx.AsyncClient) -> None:
    cart_id = await new_cart(dt)
    r = await add(dt, cart_id, "prd_cookie", 2)
    item = r.json()["cart"]["items"][0]["id"]
    await add(dt, cart_id, "prd_brownie")
    url = f"/locations/{DT}/carts/{cart_id}/cart-item/{item}/quantity"
    r = await dt.patch(url, json={"quantity": 5})
    assert r.status_code == 200
    cart = r.json()["cart"]
    assert r.json()["cartId"] == cart_id
    assert cart["items"][0]["quantity"] == 5 and cart["totalQuantity"] == 6
    r = await dt.patch(url, json={"quantity": 0})
    assert [i["productId"] for i in r.json()["cart"]["items"]] == ["prd_brownie"]
    r = await dt.patch(url, json={"quantity": 1})
    assert r.status_code == 404


async def test_quantity_cap_applies_to_merged_lines(dt: httpx.AsyncClient) -> None:
    cart_id = await new_cart(dt)
    assert (await add(dt, cart_id, "prd_cookie", 60)).status_code == 200
    r = await add(dt, cart_id, "prd_cookie", 40)
    assert r.status_code == 400 and r.json()["details"]["field"] == "quantity"
    assert (await get_cart(dt, cart_id))["items"][0]["quantity"] == 60


async def test_delete_cart(dt: httpx.AsyncClient) -> None:
    cart_id = await new_cart(dt)
    r = await dt.delete(f"/locations/{DT}/carts/{cart_id}")
    assert r.json() == {"success": True}
    assert (await dt.get(f"/locations/{DT}/carts/{cart_id}")).status_code == 404
    assert (await dt.delete(f"/locations/{DT}/carts/{cart_id}")).status_code == 404


async def test_order_time_later_and_back_to_asap(dt: httpx.AsyncClient) -> None:
    cart_id = await new_cart(dt)
    url = f"/locations/{DT}/carts/{cart_id}/update-order-time"
    body = {"pickupType": "LATER", "orderDate": "2026-03-12", "orderTime": "08:15"}
    r = await dt.put(url, json=body)
    assert r.json() == {"success": True}
    cart = await get_cart(dt, cart_id)
    assert (cart["pickupType"], cart["orderDate"], cart["orderTime"]) == (
        "LATER",
        "2026-03-12",
        "08:15",
    )
    # Breakfast is served at the chosen time, so a breakfast item may be added now.
    mods = [sel("grp_pancake_syrup", "opt_psyrup_maple")]
    assert (await add(dt, cart_id, "prd_pancakes", 1, mods)).status_code == 200
    r = await dt.put(url, json={"pickupType": "ASAP"})
    assert r.json() == {"success": True}
    cart = await get_cart(dt, cart_id)
    assert (cart["pickupType"], cart["orderTime"]) == ("ASAP", "15:30")
    # ...and the pancakes are no longer orderable for now.
    v = (await dt.post(f"/locations/{DT}/carts/{cart_id}/validate")).json()
    assert v["valid"] is False
    assert v["errors"][0]["code"] == "ITEM_UNAVAILABLE"
    assert v["errors"][0]["itemId"] == cart["items"][0]["id"]


async def test_customer_details(dt: httpx.AsyncClient) -> None:
    cart_id = await new_cart(dt)
    r = await dt.put(
        f"/locations/{DT}/cart/{cart_id}/validate-and-update",
        json={"customerName": " Ada Lovelace ", "emailAddress": "ada@example.com"},
    )
    assert r.json() == {"success": True}
    cart = await get_cart(dt, cart_id)
    assert (cart["customerName"], cart["emailAddress"]) == ("Ada Lovelace", "ada@example.com")


async def test_gratuity_settings_and_westside_rules(
    dt: httpx.AsyncClient, ws: httpx.AsyncClient
) -> None:
    r = await dt.get(f"/locations/{DT}/gratuity")
    assert r.json() == {
        "enabled": True,
        "shouldAllowCustomTip": True,
        "tipPercentage": ["15", "18", "20"],
        "defaultTipPercentage": "18",
    }
    g = (await ws.get(f"/locations/{WS}/gratuity")).json()
    assert g["shouldAllowCustomTip"] is False and g["tipPercentage"] == ["10", "15", "20"]
    cart_id = await new_cart(ws, WS)
    await add(ws, cart_id, "prd_cookie", loc=WS)
    url = f"/locations/{WS}/carts/{cart_id}/gratuity"
    assert (await ws.put(url, json={"percentage": "12"})).json()["code"] == "INVALID_TIP"
    assert (await ws.put(url, json={"amount": "2.00"})).json()["code"] == "INVALID_TIP"
    r = await ws.put(url, json={"percentage": 20})
    assert r.status_code == 200 and r.json()["fees"]["tipRate"] == "0.2000"


async def test_delivery_table_and_room(dt: httpx.AsyncClient, ws: httpx.AsyncClient) -> None:
    cart_id = await new_cart(dt, method="delivery")
    r = await dt.put(
        f"/locations/{DT}/carts/{cart_id}/set-delivery",
        json={
            "street": "200 Water St",
            "streetOptional": "Apt 4",
            "city": "New York",
            "state": "NY",
            "zipCode": "10038",
            "country": "US",
            "lat": 40.7069,
            "lng": -74.0031,
        },
    )
    assert r.status_code == 200, r.text
    info = r.json()["deliveryInfo"]
    assert info["addressString"] == "200 Water St, Apt 4, New York, NY 10038"
    assert info["addressData"]["zipCode"] == "10038" and info["addressData"]["lat"] == 40.7069
    table_cart = await new_cart(ws, WS, "table_service")
    r = await ws.put(f"/locations/{WS}/carts/{table_cart}/set-table", json={"tableNumber": 12})
    assert r.json()["tableServiceInfo"] == {"tableNumber": "12"}
    room_cart = await new_cart(ws, WS, "room_service")
    r = await ws.put(
        f"/locations/{WS}/carts/{room_cart}/set-room",
        json={"lastName": "Okafor", "roomNumber": "1204"},
    )
    assert r.json()["roomServiceInfo"] == {"lastName": "Okafor", "roomNumber": "1204"}
    assert r.json()["fulfilmentMethod"] == "room_service"


async def test_validate_names_what_is_missing(
    dt: httpx.AsyncClient, ws: httpx.AsyncClient, backend: Backend
) -> None:
    cart_id = await new_cart(dt, method="delivery")
    v = (await dt.post(f"/locations/{DT}/carts/{cart_id}/validate")).json()
    assert v["valid"] is False
    assert {e["code"] for e in v["errors"]} == {"EMPTY_CART", "DELIVERY_ADDRESS_REQUIRED"}
    r = await add(dt, cart_id, "prd_latte", 1, LATTE_OK)
    item_id = r.json()["cart"]["items"][0]["id"]
    backend.set_sold_out("prd_latte", True)
    v = (await dt.post(f"/locations/{DT}/carts/{cart_id}/validate")).json()
    sold = [e for e in v["errors"] if e["code"] == "ITEM_SOLD_OUT"]
    assert sold == [
        {"code": "ITEM_SOLD_OUT", "message": "Caffè Latte is sold out", "itemId": item_id}
    ]
    table = await new_cart(ws, WS, "table_service")
    await add(ws, table, "prd_cookie", loc=WS)
    v = (await ws.post(f"/locations/{WS}/carts/{table}/validate")).json()
    assert [e["code"] for e in v["errors"]] == ["TABLE_NUMBER_REQUIRED"]
    await ws.put(f"/locations/{WS}/carts/{table}/set-table", json={"tableNumber": "7"})
    assert (await ws.post(f"/locations/{WS}/carts/{table}/validate")).json() == {
        "valid": True,
        "errors": [],
        "warnings": [],
    }


async def test_sold_out_product_cannot_grow(dt: httpx.AsyncClient, backend: Backend) -> None:
    cart_id = await new_cart(dt)
    r = await add(dt, cart_id, "prd_cookie", 2)
    item = r.json()["cart"]["items"][0]["id"]
    backend.set_sold_out("prd_cookie", True)
    url = f"/locations/{DT}/carts/{cart_id}/cart-item/{item}/quantity"
    assert (await dt.patch(url, json={"quantity": 3})).status_code == 400
    assert (await dt.patch(url, json={"quantity": 1})).status_code == 200


async def test_cross_sell(dt: httpx.AsyncClient, backend: Backend) -> None:
    cart_id = await new_cart(dt)
    await add(dt, cart_id, "prd_cookie")
    backend.set_sold_out("prd_lemonade", True)
    r = await dt.get(f"/locations/{DT}/carts/{cart_id}/products")
    ids = [p["id"] for p in r.json()]
    assert "prd_cookie" not in ids and "prd_lemonade" not in ids
    assert ids == ["prd_fries", "prd_brownie", "prd_cold_brew"]
    assert all(p["availability"] == "available" and p["price"] for p in r.json())


async def test_carts_are_per_location(dt: httpx.AsyncClient, ws: httpx.AsyncClient) -> None:
    cart_id = await new_cart(dt)
    r = await add(ws, cart_id, "prd_cookie", loc=WS)
    assert r.status_code == 404


async def test_slug_and_id_are_interchangeable_for_carts(dt: httpx.AsyncClient) -> None:
    cart_id = await new_cart(dt, DOWNTOWN.slug)
    r = await add(dt, cart_id, "prd_cookie", loc=DOWNTOWN.slug)
    assert r.status_code == 200
    assert (await get_cart(dt, cart_id, DT))["locationId"] == DT
    assert (await get_cart(dt, cart_id, DOWNTOWN.slug))["totalQuantity"] == 1
