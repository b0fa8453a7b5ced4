"""Carts: opening or resuming one, reading it (as the API shows it), changing it, deleting it."""

from __future__ import annotations

import secrets
from collections.abc import Callable
from typing import Any

from kiosk.demo import data
from kiosk.demo.catalog import selections_json
from kiosk.demo.domain.common import _str, iso
from kiosk.demo.domain.menus import MenuRules
from kiosk.demo.domain.states import Op, Rule, State, as_of, check
from kiosk.demo.errors import validation
from kiosk.demo.money import dec, fmt, rate, total
from kiosk.demo.pricing import Pricing, price_cart

# Response aliases a client might send back to us; requests should use the canonical values.
METHOD_ALIASES = {
    "takeout": "pickup",
    "table": "table_service",
    "table_side": "table_service",
    "roomService": "room_service",
    "dinein": "dine_in",
}


class CartRules(MenuRules):
    """A cart's life: created, resumed, loaded, priced, shown, mutated under lock, deleted."""

    @property
    def carts(self) -> CartInspector:
        """Read-only views of the stored carts, for tests and demos."""
        return CartInspector(self)

    def _new_cart(self, loc: dict[str, Any], method: str, now: float) -> dict[str, Any]:
        return {
            # 24 hex characters: the form Storefront 2.0 requires of cart ids (v1 takes any string).
            "id": secrets.token_hex(12),
            "locationId": loc["id"],
            "status": "OPEN",
            "fulfillmentMethod": method,
            "pickupType": "ASAP",
            "orderDate": None,
            "orderTime": None,
            "items": [],
            "discountCode": None,
            "tip": None,
            "deliveryInfo": None,
            "tableServiceInfo": None,
            "roomServiceInfo": None,
            "customerName": None,
            "emailAddress": None,
            "lockedAt": None,
            "lockedAtTs": None,
            "paymentIntentId": None,
            "checkoutUrl": None,
            "fulfillmentIdentifier": None,
            "metadata": {},
            "createdAt": iso(now),
            "updatedAt": iso(now),
        }

    def _method(self, loc: dict[str, Any], body: dict[str, Any]) -> str:
        raw = _str(body, "fulfillmentMethod", max_len=40)
        assert raw is not None
        method = METHOD_ALIASES.get(raw, raw)
        if method not in data.METHODS:
            raise validation(
                f"fulfillmentMethod must be one of {', '.join(data.METHODS)}", "fulfillmentMethod"
            )
        if method not in loc["methods"]:
            raise validation(
                f"{loc['name']} does not offer {method}",
                "fulfillmentMethod",
                code="FULFILLMENT_METHOD_UNAVAILABLE",
            )
        return method

    def _check_marketplace(self, loc: dict[str, Any], body: dict[str, Any]) -> None:
        mid = _str(body, "marketplaceId", required=False, max_len=100)
        if mid and mid not in (loc["id"], loc["slug"]):
            raise validation("marketplaceId does not name this location", "marketplaceId")

    def _schedule_if_closed(self, loc: dict[str, Any], cart: dict[str, Any]) -> str | None:
        if self.is_open(loc, self.local_now(loc)):
            return None
        days = self.order_days(loc) if loc["details"]["scheduled"] else []
        if not days:
            return f"{loc['name']} is closed now and does not take orders for later"
        cart["pickupType"] = "LATER"
        cart["orderDate"] = days[0]["value"]
        cart["orderTime"] = days[0]["intervals"][0]
        return (
            f"{loc['name']} is closed now; this order is scheduled for "
            f"{days[0]['label'].lower()} at {days[0]['intervals'][0]}"
        )

    def start_session(
        self,
        loc: dict[str, Any],
        body: dict[str, Any],
        *,
        new_cart_fields: dict[str, Any] | None = None,
        may_resume: Callable[[dict[str, Any]], bool] = lambda cart: True,
    ) -> dict[str, Any]:
        """Open a new cart, or resume `existingCartId`. 2.0 gives a new cart its token's hash
        (`new_cart_fields`) and resumes only a cart its caller may reach (`may_resume`)."""
        method = self._method(loc, body)
        self._check_marketplace(loc, body)
        existing = _str(body, "existingCartId", required=False, max_len=100)
        now = self.clock()
        with self.store.write() as conn:
            cart = self._own_cart(conn, loc, existing) if existing else None
            if cart is not None and not may_resume(cart):
                cart = None
            state = check(Op.RESUME, cart).to
            if cart is not None and state is State.OPEN:
                cart["fulfillmentMethod"] = method
                cart["updatedAt"] = iso(now)
                self.store.put_cart(conn, cart, now)
                return {"cartId": cart["id"]}
            if cart is not None and state is State.LOCKED:
                return {
                    "cartId": cart["id"],
                    "errorMessage": "This cart is being paid for and cannot change now",
                }
            cart = self._new_cart(loc, method, now)
            cart.update(new_cart_fields or {})
            message = self._schedule_if_closed(loc, cart)
            self.store.put_cart(conn, cart, now)
        out: dict[str, Any] = {"cartId": cart["id"]}
        if message:
            out["errorMessage"] = message
        return out

    def create_or_resume_cart(self, loc: dict[str, Any], body: dict[str, Any]) -> dict[str, Any]:
        self._check_marketplace(loc, body)
        current = _str(body, "currentCartId", required=False, max_len=100)
        now = self.clock()
        with self.store.write() as conn:
            if current:
                cart = self._own_cart(conn, loc, current)
                if cart is not None and check(Op.RESUME, cart).to in (State.OPEN, State.LOCKED):
                    return {"cartId": cart["id"]}
            cart = self._new_cart(loc, loc["methods"][0], now)
            self._schedule_if_closed(loc, cart)
            self.store.put_cart(conn, cart, now)
        return {"cartId": cart["id"]}

    def _cart_at(self, conn: Any, cart_id: str) -> dict[str, Any] | None:
        """The stored cart as it is now (expired once past its expiresAt): every cart the domain
        reads comes through here."""
        return as_of(self.store.get_cart(conn, cart_id), self.clock())

    def _own_cart(self, conn: Any, loc: dict[str, Any], cart_id: str) -> dict[str, Any] | None:
        """The cart, if it is this location's (another location's is as good as none)."""
        cart = self._cart_at(conn, cart_id)
        return cart if cart is not None and cart["locationId"] == loc["id"] else None

    def _guarded(
        self, conn: Any, loc: dict[str, Any], cart_id: str, op: Op
    ) -> tuple[dict[str, Any], Rule]:
        """The cart and the rule of `op` in its state (kiosk.demo.domain.states), read in the
        operation's own transaction; the table's refusal is raised before anything is written."""
        cart = self._own_cart(conn, loc, cart_id)
        rule = check(op, cart)
        assert cart is not None  # check() refuses every operation but RESUME on no cart
        return cart, rule

    def _load(self, conn: Any, loc: dict[str, Any], cart_id: str) -> dict[str, Any]:
        return self._guarded(conn, loc, cart_id, Op.READ)[0]

    def _price(self, loc: dict[str, Any], cart: dict[str, Any]) -> Pricing:
        # A locked cart is priced as of its lock time, so the amount of its payment intent holds.
        now = cart.get("lockedAtTs") or self.clock()
        return price_cart(cart, loc["details"]["fees"], self.catalog.discounts, now)

    def get_cart(self, loc: dict[str, Any], cart_id: str) -> dict[str, Any]:
        with self.store.read() as conn:
            cart = self._load(conn, loc, cart_id)
        pricing = self._price(loc, cart)
        if pricing.discount_state in ("expired", "unknown") and cart["status"] == "OPEN":
            # Revalidation removes a code that can never apply again (persisted, so it stays gone).
            with self.store.write() as conn:
                cart = self._load(conn, loc, cart_id)
                if cart["discountCode"] and cart["status"] == "OPEN":
                    cart["discountCode"] = None
                    self.store.put_cart(conn, cart, self.clock())
        return self.cart_json(loc, cart, pricing)

    def get_cart_json(self, cart_id: str) -> dict[str, Any]:
        """Test helper: the cart as GET would return it, without HTTP or auth."""
        with self.store.read() as conn:
            cart = self._cart_at(conn, cart_id)
        if cart is None:
            raise KeyError(cart_id)
        loc = self.catalog.locations[cart["locationId"]]
        return self.cart_json(loc, cart, self._price(loc, cart))

    def cart_json(self, loc: dict[str, Any], cart: dict[str, Any], p: Pricing) -> dict[str, Any]:
        cur = self._currency(loc)
        moment = self.order_moment(loc, cart)
        code = cart.get("discountCode")
        if p.discount_state in ("expired", "unknown"):
            code = None
        out: dict[str, Any] = {
            "id": cart["id"],
            "locationId": cart["locationId"],
            "status": cart["status"],
            "lockedAt": cart["lockedAt"],
            "discountCode": code,
            "currency": cur,
            "fulfilmentMethod": cart["fulfillmentMethod"],
            "statementDescriptor": loc["details"]["statement"],
            "pickupType": cart["pickupType"],
            "orderDate": moment.date().isoformat(),
            "orderTime": moment.strftime("%H:%M"),
            "totalQuantity": sum(int(i["quantity"]) for i in cart["items"]),
            "restaurantDisplayName": loc["name"],
            "deliveryInfo": cart["deliveryInfo"],
            "tableServiceInfo": cart["tableServiceInfo"],
            "roomServiceInfo": cart["roomServiceInfo"],
            "customerName": cart.get("customerName"),
            "emailAddress": cart.get("emailAddress"),
            "fees": _fees_json(loc["details"]["fees"], p),
            "items": [_item_json(it, cur) for it in cart["items"]],
            "metadata": cart.get("metadata") or {},
            "checkoutUrl": cart.get("checkoutUrl"),
            "fulfillmentIdentifier": cart.get("fulfillmentIdentifier"),
            "paymentIntentId": cart.get("paymentIntentId"),
            "createdAt": cart["createdAt"],
            "updatedAt": cart["updatedAt"],
            "isActive": cart["status"] != "COMPLETED",
        }
        out.update(_totals_json(p, cur))
        if p.notices:
            out["discountNotice"] = p.notices[0]["message"]
        return out

    def _mutate(
        self, loc: dict[str, Any], cart_id: str, change: Callable[[dict[str, Any]], None]
    ) -> dict[str, Any]:
        now = self.clock()
        with self.store.write() as conn:
            cart, _ = self._guarded(conn, loc, cart_id, Op.EDIT)
            change(cart)
            cart["updatedAt"] = iso(now)
            self.store.put_cart(conn, cart, now)
        return cart

    def delete_cart(self, loc: dict[str, Any], cart_id: str) -> dict[str, Any]:
        """v1's DELETE: the cart is removed and its payment canceled (Op.DELETE_V1)."""
        with self.store.write() as conn:
            self._guarded(conn, loc, cart_id, Op.DELETE_V1)
            conn.execute("DELETE FROM carts WHERE id = ?", (cart_id,))
            self._cancel_payments(conn, cart_id)
        return {"success": True}

    def expire_cart(self, loc: dict[str, Any], cart_id: str) -> dict[str, Any]:
        """2.0's DELETE: the cart is kept, EXPIRED (a retried delete and a late read still find
        it), and its payment canceled (Op.DELETE_V2). Returns the stored cart."""
        now = self.clock()
        with self.store.write() as conn:
            cart, rule = self._guarded(conn, loc, cart_id, Op.DELETE_V2)
            if rule.to is not None and cart["status"] != rule.to.value:
                cart["status"] = rule.to.value
                cart["updatedAt"] = iso(now)
                self._cancel_payments(conn, cart_id)
                self.store.put_cart(conn, cart, now)
        return cart

    @staticmethod
    def _cancel_payments(conn: Any, cart_id: str) -> None:
        conn.execute(
            "UPDATE payment_intents SET status = 'canceled'"
            " WHERE cart_id = ? AND status != 'succeeded'",
            (cart_id,),
        )


class CartInspector:
    """backend.carts: what is stored, without HTTP, auth or rate limits."""

    def __init__(self, backend: CartRules) -> None:
        self._backend = backend

    def ids(self, location_id: str | None = None) -> list[str]:
        sql = "SELECT id FROM carts"
        args: tuple[str, ...] = ()
        if location_id is not None:
            sql += " WHERE location_id = ?"
            args = (location_id,)
        with self._backend.store.read() as conn:
            return [r[0] for r in conn.execute(sql + " ORDER BY created_at, id", args)]

    def get_cart_json(self, cart_id: str) -> dict[str, Any]:
        """The cart as GET .../carts/{cartId} returns it (KeyError when there is none)."""
        return self._backend.get_cart_json(cart_id)

    def raw(self, cart_id: str) -> dict[str, Any]:
        """The stored document (items with minor-unit prices, tip, lock time...)."""
        with self._backend.store.read() as conn:
            cart = self._backend.store.get_cart(conn, cart_id)
        if cart is None:
            raise KeyError(cart_id)
        return cart

    def __len__(self) -> int:
        return len(self.ids())

    def __contains__(self, cart_id: object) -> bool:
        return isinstance(cart_id, str) and cart_id in self.ids()


def _item_json(it: dict[str, Any], cur: str) -> dict[str, Any]:
    """One stored line as the cart shows it."""
    line = int(it["unitPrice"]) * int(it["quantity"])
    return {
        "id": it["id"],
        "productId": it["productId"],
        "name": it["name"],
        "description": it["description"],
        "imageUrl": None,
        "categoryId": it.get("categoryId"),
        "price": total(int(it["unitPrice"])),
        "priceFormatted": fmt(int(it["unitPrice"]), cur),
        "basePrice": dec(int(it["basePrice"])),
        "quantity": it["quantity"],
        "total": total(line),
        "totalFormatted": fmt(line, cur),
        "discount": "0.00",
        "discountFormatted": fmt(0, cur),
        "selections": selections_json(it["selections"], cur),
        "specialInstructions": it.get("specialInstructions"),
    }


def _fees_json(fees: dict[str, Any], p: Pricing) -> dict[str, str]:
    """The location's fee rates and fixed parts, with the cart's tip and method fee."""
    return {
        "enterpriseFeeRate": rate(fees["enterpriseFeeRate"]),
        "enterpriseFeeFix": dec(int(fees["enterpriseFeeFix"])),
        "serviceFeeRate": rate(fees["serviceFeeRate"]),
        "serviceFeeFix": dec(int(fees["serviceFeeFix"])),
        "taxRate": rate(fees["taxRate"]),
        "tipRate": rate(p.tip_rate),
        "fulfillmentMethodFeeFix": dec(p.method_fee_fix),
        "fulfillmentMethodFeeRate": rate(p.method_fee_rate),
        "paymentProcessingFeeRate": rate(fees["paymentProcessingFeeRate"]),
        "paymentProcessingFeeFix": dec(int(fees["paymentProcessingFeeFix"])),
    }


def _totals_json(p: Pricing, cur: str) -> dict[str, Any]:
    """Each total as a decimal string and formatted, then the amount to pay in minor units."""
    totals = {
        "subTotal": p.sub_total,
        "discountTotal": p.discount,
        "waiterTipTotal": p.tip,
        "taxTotal": p.tax,
        "taxAndFeeTotal": p.tax_and_fee,
        "serviceFeeTotal": p.service_fee,
        "paymentProcessingFeeTotal": p.processing_fee,
        "applicationFeeTotal": p.enterprise_fee,
        "netSalesTotal": p.sub_total,
        "fulfillmentMethodFeeTotal": p.method_fee,
        "orderTotalWithServiceFee": p.order_total_with_service_fee,
        "orderTotal": p.order_total,
        "enterpriseFeeTotal": p.enterprise_fee,
        "subTotalWithoutDiscount": p.sub_total_without_discount,
    }
    out: dict[str, Any] = {}
    for name, minor in totals.items():
        out[name] = total(minor)
        out[name + "Formatted"] = fmt(minor, cur)
    out["orderTotalWithServiceFeeAmount"] = p.order_total_with_service_fee
    return out
