"""Before payment: the customer's details, what stops a cart from being paid, cross-sell."""

from __future__ import annotations

import re
from typing import Any

from kiosk.demo.domain.carts import CartRules
from kiosk.demo.domain.common import _str
from kiosk.demo.errors import validation

EMAIL_RE = re.compile(r"^[^@\s]+@[^@\s]+\.[^@\s.]{2,}$")


class CheckoutRules(CartRules):
    """Customer details, the cart's problems, validation and cross-sell."""

    def validate_and_update(
        self, loc: dict[str, Any], cart_id: str, body: dict[str, Any]
    ) -> dict[str, Any]:
        name = _str(body, "customerName", max_len=100)
        email = body.get("emailAddress")
        if not isinstance(email, str) or not EMAIL_RE.match(email.strip()) or len(email) > 254:
            raise validation("emailAddress must be an e-mail address", "emailAddress")

        def change(cart: dict[str, Any]) -> None:
            cart["customerName"] = name
            cart["emailAddress"] = email.strip()

        self._mutate(loc, cart_id, change)
        return {"success": True}

    def _problems(self, loc: dict[str, Any], cart: dict[str, Any]) -> list[dict[str, Any]]:
        errors: list[dict[str, Any]] = []
        if not cart["items"]:
            errors.append({"code": "EMPTY_CART", "message": "The cart is empty"})
        sold = self.sold_out()
        moment = self.order_moment(loc, cart)
        for it in cart["items"]:
            pid = it["productId"]
            if self.catalog.location_product(loc["id"], pid) is None:
                errors.append(
                    {
                        "code": "ITEM_UNAVAILABLE",
                        "message": f"{it['name']} is no longer on the menu",
                        "itemId": it["id"],
                    }
                )
            elif pid in sold or _option_sold_out(it["selections"], sold):
                errors.append(
                    {
                        "code": "ITEM_SOLD_OUT",
                        "message": f"{it['name']} is sold out",
                        "itemId": it["id"],
                    }
                )
            elif not self.catalog.product_open_at(loc["id"], pid, moment):
                errors.append(
                    {
                        "code": "ITEM_UNAVAILABLE",
                        "message": f"{it['name']} is not served at {moment.strftime('%H:%M')}",
                        "itemId": it["id"],
                    }
                )
        method = cart["fulfillmentMethod"]
        if method == "delivery" and not cart["deliveryInfo"]:
            errors.append(
                {"code": "DELIVERY_ADDRESS_REQUIRED", "message": "Add a delivery address"}
            )
        if method == "table_service" and not cart["tableServiceInfo"]:
            errors.append({"code": "TABLE_NUMBER_REQUIRED", "message": "Add a table number"})
        if method == "room_service" and not cart["roomServiceInfo"]:
            errors.append({"code": "ROOM_REQUIRED", "message": "Add a last name and room number"})
        if cart["pickupType"] == "LATER":
            if moment < self.local_now(loc):
                errors.append(
                    {"code": "ORDER_TIME_PASSED", "message": "The chosen order time has passed"}
                )
        elif not self.is_open(loc, self.local_now(loc)):
            errors.append({"code": "LOCATION_CLOSED", "message": f"{loc['name']} is closed now"})
        return errors

    def validate_cart(self, loc: dict[str, Any], cart_id: str) -> dict[str, Any]:
        with self.store.read() as conn:
            cart = self._load(conn, loc, cart_id)
        errors = self._problems(loc, cart) if cart["status"] == "OPEN" else []
        warnings = self._price(loc, cart).notices
        return {"valid": not errors, "errors": errors, "warnings": warnings}

    def cross_sell(self, loc: dict[str, Any], cart_id: str) -> list[dict[str, Any]]:
        with self.store.read() as conn:
            cart = self._load(conn, loc, cart_id)
        in_cart = {it["productId"] for it in cart["items"]}
        sold = self.sold_out()
        moment = self.order_moment(loc, cart)
        out = []
        for pid in loc.get("crossSell", []):
            if pid in in_cart or pid in sold or pid not in self.catalog.products:
                continue
            if not self.catalog.product_open_at(loc["id"], pid, moment):
                continue
            out.append(
                self.catalog.menu_product(
                    loc["id"], self.catalog.products[pid], sold, self._currency(loc)
                )
            )
        return out[:4]


def _option_sold_out(selections: list[dict[str, Any]], sold: set[str]) -> bool:
    for g in selections:
        for o in g["selectedOptions"]:
            if o["optionId"] in sold or _option_sold_out(o.get("children") or [], sold):
                return True
    return False
