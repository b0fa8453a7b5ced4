"""How and when the order is fulfilled: order time, tip, delivery address, table, room."""

from __future__ import annotations

import math
import re
from typing import Any

from kiosk.demo.domain.carts import CartRules
from kiosk.demo.domain.common import _str
from kiosk.demo.errors import ApiError, validation
from kiosk.demo.money import dec, parse_major


class FulfilmentRules(CartRules):
    """Order time, gratuity and the delivery, table and room details of a cart."""

    def update_order_time(
        self, loc: dict[str, Any], cart_id: str, body: dict[str, Any]
    ) -> dict[str, Any]:
        kind = _str(body, "pickupType", max_len=10)
        if kind not in ("ASAP", "LATER"):
            raise validation("pickupType must be ASAP or LATER", "pickupType")
        if kind == "ASAP":
            if not self.is_open(loc, self.local_now(loc)):
                raise ApiError(
                    422,
                    "LOCATION_CLOSED",
                    f"{loc['name']} is closed now; choose a later time",
                    field="pickupType",
                )

            def asap(cart: dict[str, Any]) -> None:
                cart["pickupType"] = "ASAP"
                cart["orderDate"] = None
                cart["orderTime"] = None

            self._mutate(loc, cart_id, asap)
            return {"success": True}
        if not loc["details"]["scheduled"]:
            raise validation(
                f"{loc['name']} does not take orders for later",
                "pickupType",
                code="SCHEDULING_NOT_ALLOWED",
            )
        order_date = _str(body, "orderDate", max_len=10)
        order_time = _str(body, "orderTime", max_len=5)
        when = self._parse_when(loc, order_date, order_time)
        day = next((d for d in self.order_days(loc) if d["value"] == when.date().isoformat()), None)
        if day is None:
            raise validation(
                "orderDate is not a day this location takes orders for",
                "orderDate",
                code="INVALID_ORDER_TIME",
            )
        if order_time not in day["intervals"]:
            raise validation(
                "orderTime is not one of the open time slots (see time-intervals)",
                "orderTime",
                code="INVALID_ORDER_TIME",
            )

        def later(cart: dict[str, Any]) -> None:
            cart["pickupType"] = "LATER"
            cart["orderDate"] = order_date
            cart["orderTime"] = order_time

        self._mutate(loc, cart_id, later)
        return {"success": True}

    def set_gratuity(
        self, loc: dict[str, Any], cart_id: str, body: dict[str, Any]
    ) -> dict[str, Any]:
        g = loc["details"]["gratuity"]
        if not g["enabled"]:
            raise validation(
                f"{loc['name']} does not take tips", "percentage", code="TIPS_DISABLED"
            )
        tip: dict[str, Any]
        if "percentage" in body and body["percentage"] is not None:
            raw = body["percentage"]
            if isinstance(raw, bool) or not isinstance(raw, str | int | float):
                raise validation('percentage must be a string such as "18"', "percentage")
            text = str(raw).strip()
            minor = parse_major(text)
            if minor is None or minor < 0 or minor > 10000:
                raise validation("percentage must be a number from 0 to 100", "percentage")
            canonical = dec(minor).rstrip("0").rstrip(".") if "." in dec(minor) else dec(minor)
            if not g["shouldAllowCustomTip"] and canonical not in g["tipPercentage"] and minor != 0:
                raise validation(
                    f"percentage must be one of {', '.join(g['tipPercentage'])}",
                    "percentage",
                    code="INVALID_TIP",
                )
            tip = {"percentage": canonical}
        elif "amount" in body and body["amount"] is not None:
            if not g["shouldAllowCustomTip"]:
                raise validation(
                    f"{loc['name']} accepts only a percentage tip", "amount", code="INVALID_TIP"
                )
            raw = body["amount"]
            if isinstance(raw, bool) or not isinstance(raw, str | int | float):
                raise validation('amount must be a string such as "5.00"', "amount")
            minor = parse_major(str(raw))
            if minor is None or minor < 0 or minor > 50000:
                raise validation("amount must be between 0.00 and 500.00", "amount")
            tip = {"amount": minor}
        else:
            raise validation("send percentage or amount", "percentage")

        def change(cart: dict[str, Any]) -> None:
            cart["tip"] = tip

        cart = self._mutate(loc, cart_id, change)
        return self.cart_json(loc, cart, self._price(loc, cart))

    def set_delivery(
        self, loc: dict[str, Any], cart_id: str, body: dict[str, Any]
    ) -> dict[str, Any]:
        if "delivery" not in loc["methods"]:
            raise validation(
                f"{loc['name']} does not deliver",
                "fulfillmentMethod",
                code="FULFILLMENT_METHOD_UNAVAILABLE",
            )
        street = _str(body, "street")
        street2 = _str(body, "streetOptional", required=False)
        city = _str(body, "city", max_len=100)
        state = _str(body, "state", max_len=100)
        zip_code = _str(body, "zipCode", max_len=20)
        country = _str(body, "country", max_len=60)
        coords: dict[str, float] = {}
        for name, bound in (("lat", 90.0), ("lng", 180.0)):
            v = body.get(name)
            if v is None:
                continue
            if (
                isinstance(v, bool)
                or not isinstance(v, int | float)
                or not math.isfinite(v)
                or abs(v) > bound
            ):
                raise validation(f"{name} must be a number within ±{bound:g}", name)
            coords[name] = float(v)
        det = loc["details"]
        if len(coords) == 2:
            a = det["address"]
            miles = _haversine_miles(a["lat"], a["lng"], coords["lat"], coords["lng"])
            if miles > det["delivery_radius_miles"]:
                raise validation(
                    f"The address is {miles:.1f} miles away; we deliver within "
                    f"{det['delivery_radius_miles']:g} miles",
                    "lat",
                    code="OUT_OF_DELIVERY_AREA",
                )
        line = ", ".join(x for x in (street, street2) if x)
        info = {
            "addressString": f"{line}, {city}, {state} {zip_code}",
            "addressData": {
                "street": street,
                "streetOptional": street2,
                "city": city,
                "state": state,
                "zipCode": zip_code,
                "country": country,
                **coords,
            },
        }

        def change(cart: dict[str, Any]) -> None:
            cart["deliveryInfo"] = info

        cart = self._mutate(loc, cart_id, change)
        return self.cart_json(loc, cart, self._price(loc, cart))

    @staticmethod
    def _short_id(body: dict[str, Any], name: str, longest: int = 10) -> str:
        v = body.get(name)
        if isinstance(v, int) and not isinstance(v, bool) and v > 0:
            v = str(v)
        if not isinstance(v, str) or not re.fullmatch(rf"[A-Za-z0-9-]{{1,{longest}}}", v.strip()):
            raise validation(f"{name} must be 1 to {longest} letters, digits or dashes", name)
        return v.strip()

    def set_table(self, loc: dict[str, Any], cart_id: str, body: dict[str, Any]) -> dict[str, Any]:
        if "table_service" not in loc["methods"]:
            raise validation(
                f"{loc['name']} has no table service",
                "fulfillmentMethod",
                code="FULFILLMENT_METHOD_UNAVAILABLE",
            )
        table = self._short_id(body, "tableNumber")

        def change(cart: dict[str, Any]) -> None:
            cart["tableServiceInfo"] = {"tableNumber": table}

        cart = self._mutate(loc, cart_id, change)
        return self.cart_json(loc, cart, self._price(loc, cart))

    def set_room(self, loc: dict[str, Any], cart_id: str, body: dict[str, Any]) -> dict[str, Any]:
        if "room_service" not in loc["methods"]:
            raise validation(
                f"{loc['name']} has no room service",
                "fulfillmentMethod",
                code="FULFILLMENT_METHOD_UNAVAILABLE",
            )
        # The limits 2.0 documents (RoomRequest: lastName 1-100, roomNumber up to 20).
        last = _str(body, "lastName", max_len=100)
        room = self._short_id(body, "roomNumber", longest=20)

        def change(cart: dict[str, Any]) -> None:
            cart["roomServiceInfo"] = {"lastName": last, "roomNumber": room}

        cart = self._mutate(loc, cart_id, change)
        return self.cart_json(loc, cart, self._price(loc, cart))


def _haversine_miles(lat1: float, lng1: float, lat2: float, lng2: float) -> float:
    r = 3958.8
    p1, p2 = math.radians(lat1), math.radians(lat2)
    dp, dl = p2 - p1, math.radians(lng2 - lng1)
    a = math.sin(dp / 2) ** 2 + math.cos(p1) * math.cos(p2) * math.sin(dl / 2) ** 2
    return 2 * r * math.asin(math.sqrt(a))
