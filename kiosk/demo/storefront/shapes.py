"""2.0's JSON, made from the domain's: the vendor's schemas (components.schemas of its OpenAPI
document) are the target, closed objects included, so nothing the schema does not name is sent.

Amounts: 2.0 sends decimal strings in major units ("12.50"); the legacy cart's totals are minor-unit
strings ("1250") or "0.00", read back here by that rule.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from kiosk.demo.domain.states import CART_TTL
from kiosk.demo.money import dec

# The kiosk's (and the legacy API's) fulfillment names -> 2.0's. 2.0 has no dine-in: an order eaten
# here is collected at the counter, so it is `takeout` there.
METHOD_TO_V2 = {
    "pickup": "takeout",
    "dine_in": "takeout",
    "table_service": "table_side",
    "room_service": "room_service",
    "delivery": "delivery",
}
METHOD_FROM_V2 = {
    "takeout": "pickup",
    "table_side": "table_service",
    "room_service": "room_service",
    "delivery": "delivery",
}


def method_from_v2(method: str, offered: list[str]) -> str:
    """The legacy method a 2.0 one means at a location offering `offered` (legacy names). 2.0's
    takeout is pickup, or dine-in where the location seats its customers but has no pickup."""
    legacy = METHOD_FROM_V2[method]
    if legacy == "pickup" and "pickup" not in offered and "dine_in" in offered:
        return "dine_in"
    return legacy


# 2.0 names countries in full (DeliveryAddress.country, Merchant.country).
COUNTRY_NAMES = {
    "US": "United States",
    "AE": "United Arab Emirates",
    "AU": "Australia",
    "NZ": "New Zealand",
    "CA": "Canada",
    "GB": "United Kingdom",
    "IE": "Ireland",
    "DE": "Germany",
    "FR": "France",
    "NL": "Netherlands",
    "ES": "Spain",
    "IT": "Italy",
}

_TOTALS = (
    "subTotal",
    "discountTotal",
    "waiterTipTotal",
    "taxTotal",
    "taxAndFeeTotal",
    "serviceFeeTotal",
    "paymentProcessingFeeTotal",
    "applicationFeeTotal",
    "netSalesTotal",
    "fulfillmentMethodFeeTotal",
    "orderTotal",
    "orderTotalWithServiceFee",
    "enterpriseFeeTotal",
    "subTotalWithoutDiscount",
)


def legacy_minor(text: str) -> int:
    """A legacy total: "1250" is 1250 minor units, "12.50" (with a dot) major units."""
    if "." in text:
        whole, _, frac = text.partition(".")
        sign = -1 if whole.startswith("-") else 1
        return sign * (abs(int(whole or "0")) * 100 + int((frac + "00")[:2]))
    return int(text)


def iso(dt: datetime) -> str:
    return dt.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%S.000Z")


def _selection(group: dict[str, Any]) -> dict[str, Any]:
    options = []
    for option in group.get("selectedOptions", []):
        out: dict[str, Any] = {"optionId": option["optionId"], "quantity": option["quantity"]}
        children = [_selection(child) for child in option.get("children") or []]
        if children:
            out["children"] = children
        options.append(out)
    return {"groupId": group["groupId"], "selectedOptions": options}


def _item(legacy: dict[str, Any], stored: dict[str, Any]) -> dict[str, Any]:
    out: dict[str, Any] = {
        "id": legacy["id"],
        "productId": legacy["productId"],
        "name": legacy["name"],
        "description": legacy.get("description") or "",
        "imageUrl": legacy.get("imageUrl") or "",
        "quantity": legacy["quantity"],
        "categoryId": legacy.get("categoryId"),
        "itemUnavailableAction": stored.get("itemUnavailableAction", "remove_item"),
        "selections": [_selection(g) for g in legacy.get("selections") or []],
    }
    for name in ("price", "total", "discount"):
        out[name] = dec(legacy_minor(legacy[name]))
        out[name + "Formatted"] = legacy[name + "Formatted"]
    if legacy.get("specialInstructions"):
        out["specialInstructions"] = legacy["specialInstructions"]
    return out


def cart(legacy: dict[str, Any], stored: dict[str, Any], merchant_id: str) -> dict[str, Any]:
    """StorefrontCart (closed, 46 required members) from the legacy cart JSON and the stored doc."""
    stored_items = {it["id"]: it for it in stored.get("items", [])}
    created = datetime.fromisoformat(stored["createdAt"].replace("Z", "+00:00"))
    out: dict[str, Any] = {
        "id": legacy["id"],
        "locationId": legacy["locationId"],
        "merchantId": merchant_id,
        "status": legacy["status"],
        "lockedAt": legacy.get("lockedAt"),
        "revision": int(stored.get("revision", 0)),
        "expiresAt": iso(created + CART_TTL),
        "restaurantDisplayName": legacy["restaurantDisplayName"],
        "fulfilmentMethod": METHOD_TO_V2[legacy["fulfilmentMethod"]],
        "fulfillmentIdentifier": legacy.get("fulfillmentIdentifier") or "",
        "metadata": legacy.get("metadata") or {},
        "pickupType": legacy["pickupType"],
        "orderDate": legacy["orderDate"],
        "orderTime": legacy["orderTime"],
        "currency": legacy["currency"],
        "orderTotalWithServiceFeeAmount": legacy["orderTotalWithServiceFeeAmount"],
        "statementDescriptor": legacy["statementDescriptor"],
        "totalQuantity": legacy["totalQuantity"],
        "items": [_item(it, stored_items.get(it["id"], {})) for it in legacy["items"]],
        "fees": legacy["fees"],
        "deliveryInfo": _delivery(legacy.get("deliveryInfo")),
        "tableServiceInfo": legacy.get("tableServiceInfo"),
        "roomServiceInfo": legacy.get("roomServiceInfo"),
    }
    for name in _TOTALS:
        out[name] = dec(legacy_minor(legacy[name]))
        out[name + "Formatted"] = legacy[name + "Formatted"]
    if legacy.get("discountCode"):
        out["discountCode"] = legacy["discountCode"]
    return out


def _delivery(info: dict[str, Any] | None) -> dict[str, Any] | None:
    if not info:
        return None
    out = dict(info)
    address = out.get("addressData")
    if isinstance(address, dict):
        address = {**address, "streetOptional": address.get("streetOptional") or ""}
        country = address.get("country")
        address["country"] = COUNTRY_NAMES.get(country, country) if country else "United States"
        out["addressData"] = address
    return out


def location(legacy: dict[str, Any]) -> dict[str, Any]:
    return {**legacy, "coverPhoto": "", "restaurantLogo": ""}


def merchant(legacy: dict[str, Any], locations: list[dict[str, Any]]) -> dict[str, Any]:
    by_id = {loc["id"]: loc for loc in locations}
    out_locations = []
    for loc in legacy["locations"]:
        full = by_id[loc["id"]]
        status = loc["methodsStatus"]
        out_locations.append(
            {
                "id": loc["id"],
                "restaurantDisplayName": loc["restaurantDisplayName"],
                "coverPhoto": "",
                "restaurantLogo": "",
                "addressString": loc["addressString"],
                "restaurantBio": full.get("restaurantBio") or "",
                "lat": full["addressData"].get("lat"),
                "lng": full["addressData"].get("lng"),
                # 2.0 has no dine-in flag: dine-in is takeout there.
                "methodsStatus": {
                    "pickup": bool(status.get("pickup") or status.get("dineIn")),
                    "table": bool(status.get("table")),
                    "delivery": bool(status.get("delivery")),
                    "roomService": bool(status.get("roomService")),
                },
            }
        )
    # The merchant's country: its first listed location's (a restaurant file has no other).
    code = locations[0]["addressData"].get("country") if locations else None
    return {
        "id": legacy["id"],
        "name": legacy["name"],
        "country": COUNTRY_NAMES.get(code, code) if code else "United States",
        "currency": legacy["currency"],
        "bio": "",
        "logo": "",
        "cover": "",
        "locations": out_locations,
    }


def menus(legacy: dict[str, Any]) -> dict[str, Any]:
    """MenuBundle is closed: menus and popular products only."""
    return {"menus": legacy["menus"], "popularProducts": legacy["popularProducts"]}


def order(legacy_cart: dict[str, Any], stored: dict[str, Any], created_at: float) -> dict[str, Any]:
    """PublicOrderDetail (closed) of a paid cart."""
    created = iso(datetime.fromtimestamp(created_at, UTC))

    def money(name: str) -> str:
        return dec(legacy_minor(legacy_cart[name]))

    return {
        "id": stored.get("orderId") or legacy_cart["id"],
        "shortId": legacy_cart.get("fulfillmentIdentifier") or "",
        "restaurantDisplayName": legacy_cart["restaurantDisplayName"],
        "fulfillmentMethod": METHOD_TO_V2[legacy_cart["fulfilmentMethod"]],
        "fulfillmentIdentifier": legacy_cart.get("fulfillmentIdentifier") or "",
        "pickupType": legacy_cart["pickupType"],
        "orderTime": legacy_cart["orderTime"],
        "orderDate": legacy_cart["orderDate"],
        "totalQuantity": legacy_cart["totalQuantity"],
        "currency": legacy_cart["currency"],
        "orderTotal": money("orderTotalWithServiceFee"),
        "status": "confirmed",
        "createdAt": created,
        "partiallyRefunded": False,
        "items": [_order_item(it) for it in legacy_cart["items"]],
        "pricing": {
            "subtotal": money("subTotal"),
            "discount": money("discountTotal"),
            "tax": money("taxTotal"),
            "tip": money("waiterTipTotal"),
            "serviceFee": money("serviceFeeTotal"),
            "fulfillmentFee": money("fulfillmentMethodFeeTotal"),
            "enterpriseFee": money("enterpriseFeeTotal"),
            "total": money("orderTotalWithServiceFee"),
            "refunded": "0.00",
            "netPaid": money("orderTotalWithServiceFee"),
        },
        "deliveryInfo": _order_delivery(legacy_cart.get("deliveryInfo")),
        "roomServiceInfo": None,
        "tableServiceInfo": None,
        "payment": None,
        "updatedAt": created,
    }


def _order_item(legacy: dict[str, Any]) -> dict[str, Any]:
    """An order line (closed): the chosen options flattened, named as the customer saw them."""
    modifiers = []

    def walk(groups: list[dict[str, Any]]) -> None:
        for group in groups:
            for option in group.get("selectedOptions", []):
                modifiers.append(
                    {
                        "groupName": group.get("name") or group["groupId"],
                        "name": option.get("name") or option["optionId"],
                        "quantity": option["quantity"],
                        "price": option.get("price") or "0.00",
                    }
                )
                walk(option.get("children") or [])

    walk(legacy.get("selections") or [])
    return {
        "id": legacy["id"],
        "name": legacy["name"],
        "quantity": legacy["quantity"],
        "price": dec(legacy_minor(legacy["price"])),
        "total": dec(legacy_minor(legacy["total"])),
        "discount": dec(legacy_minor(legacy["discount"])),
        "specialInstructions": legacy.get("specialInstructions") or "",
        "modifiers": modifiers,
    }


def _order_delivery(info: dict[str, Any] | None) -> dict[str, Any] | None:
    if not info:
        return None
    return {"deliveryAddress": str(info.get("addressString") or "")}
