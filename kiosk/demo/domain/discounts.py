"""Discount codes on a cart."""

from __future__ import annotations

from typing import Any

from kiosk.demo.domain.carts import CartRules
from kiosk.demo.domain.common import _str
from kiosk.demo.errors import validation
from kiosk.demo.money import dec, fmt


class DiscountRules(CartRules):
    """Applying and removing a discount code."""

    def apply_discount(self, loc: dict[str, Any], body: dict[str, Any]) -> dict[str, Any]:
        raw = _str(body, "code", max_len=40)
        cart_id = _str(body, "cartId", max_len=100)
        assert raw is not None and cart_id is not None
        code = raw.upper()
        discount = self.catalog.discounts.get(code)

        def change(cart: dict[str, Any]) -> None:
            if discount is None:
                raise validation(f"{raw} is not a valid code", "code", code="INVALID_DISCOUNT_CODE")
            exp = discount.get("expires_at")
            if exp is not None and self.clock() >= float(exp):
                raise validation(
                    f"{code} has expired", "code", code="INVALID_DISCOUNT_CODE", reason="expired"
                )
            sub = sum(int(i["unitPrice"]) * int(i["quantity"]) for i in cart["items"])
            minimum = int(discount.get("minimum") or 0)
            if sub < minimum:
                raise validation(
                    f"{code} needs an order of at least {fmt(minimum)}",
                    "code",
                    code="MINIMUM_ORDER_NOT_MET",
                    minimumOrder=dec(minimum),
                )
            cart["discountCode"] = code

        self._mutate(loc, cart_id, change)
        return {"success": True}

    def remove_discount(self, loc: dict[str, Any], cart_id: str) -> dict[str, Any]:
        def change(cart: dict[str, Any]) -> None:
            cart["discountCode"] = None

        cart = self._mutate(loc, cart_id, change)
        return self.cart_json(loc, cart, self._price(loc, cart))
