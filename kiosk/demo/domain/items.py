"""A cart's lines: adding a product with its modifiers, changing a line's quantity."""

from __future__ import annotations

import secrets
from typing import Any

from kiosk.demo.catalog import selections_delta, selections_key
from kiosk.demo.domain.carts import CartRules
from kiosk.demo.domain.common import _int, _str
from kiosk.demo.errors import not_found, validation

MAX_QUANTITY = 99  # per line
MAX_LINES = 50
# The vendor's Storefront 2.0 document: specialInstructions up to 500 (one rule for both APIs).
MAX_INSTRUCTIONS = 500


class ItemRules(CartRules):
    """Adding items and setting quantities."""

    def add_item(self, loc: dict[str, Any], cart_id: str, body: dict[str, Any]) -> dict[str, Any]:
        pid = _str(body, "productId", max_len=128)  # as the 2.0 document says
        assert pid is not None
        quantity = _int(body, "quantity", 1, MAX_QUANTITY)
        instructions = _str(body, "specialInstructions", required=False, max_len=MAX_INSTRUCTIONS)
        product = self.catalog.location_product(loc["id"], pid)
        if product is None:
            raise validation(f"Unknown product {pid!r}", "productId", code="INVALID_PRODUCT")
        sold = self.sold_out()
        if pid in sold:
            raise validation(
                f"{product.name} is sold out",
                "productId",
                code="INVALID_PRODUCT",
                reason="sold_out",
            )
        selections = self.catalog.check_selections(product, body.get("modifiers"), sold)
        unit = product.price + selections_delta(selections)
        place = self.catalog.placements[loc["id"]][pid]

        def change(cart: dict[str, Any]) -> None:
            if not self.catalog.product_open_at(loc["id"], pid, self.order_moment(loc, cart)):
                raise validation(
                    f"{product.name} is not available at the order time",
                    "productId",
                    code="INVALID_PRODUCT",
                    reason="not_available_at_order_time",
                )
            key = selections_key(selections)
            for it in cart["items"]:
                if (
                    it["productId"] == pid
                    and selections_key(it["selections"]) == key
                    and (it.get("specialInstructions") or None) == (instructions or None)
                    and it["unitPrice"] == unit
                ):
                    if it["quantity"] + quantity > MAX_QUANTITY:
                        raise validation(
                            f"At most {MAX_QUANTITY} of one item per order", "quantity"
                        )
                    it["quantity"] += quantity
                    return
            if len(cart["items"]) >= MAX_LINES:
                raise validation(f"A cart holds at most {MAX_LINES} lines", "productId")
            cart["items"].append(
                {
                    "id": "item_" + secrets.token_hex(6),
                    "productId": pid,
                    "name": product.name,
                    "description": product.description,
                    "categoryId": place[0][1],
                    "basePrice": product.price,
                    "unitPrice": unit,
                    "quantity": quantity,
                    "selections": selections,
                    "specialInstructions": instructions or None,
                }
            )

        cart = self._mutate(loc, cart_id, change)
        return {"cartId": cart["id"], "cart": self.cart_json(loc, cart, self._price(loc, cart))}

    def set_quantity(
        self, loc: dict[str, Any], cart_id: str, item_id: str, body: dict[str, Any]
    ) -> dict[str, Any]:
        quantity = _int(body, "quantity", 0, MAX_QUANTITY)
        sold = self.sold_out()

        def change(cart: dict[str, Any]) -> None:
            for i, it in enumerate(cart["items"]):
                if it["id"] == item_id:
                    if quantity == 0:
                        del cart["items"][i]
                    else:
                        if quantity > it["quantity"] and it["productId"] in sold:
                            raise validation(
                                f"{it['name']} is sold out",
                                "quantity",
                                code="INVALID_PRODUCT",
                                reason="sold_out",
                            )
                        it["quantity"] = quantity
                    return
            raise not_found("Cart item not found")

        cart = self._mutate(loc, cart_id, change)
        return {"cartId": cart["id"], "cart": self.cart_json(loc, cart, self._price(loc, cart))}
