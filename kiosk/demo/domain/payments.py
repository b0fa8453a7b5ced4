"""Payment intents and the demo processor (approve 4242..., decline 4000 0000 0000 0002)."""

from __future__ import annotations

import re
import secrets
from typing import Any

from kiosk.demo.domain.checkout import CheckoutRules
from kiosk.demo.domain.common import iso
from kiosk.demo.errors import ApiError, not_found, validation
from kiosk.demo.pricing import price_cart
from kiosk.demo.store import COUNTER_CODE_SQL

APPROVE_CARD = "4242424242424242"
DECLINE_CARD = "4000000000000002"


class PaymentRules(CheckoutRules):
    """Locking a cart behind a payment intent, and paying or declining it."""

    def create_payment_intent(
        self, loc: dict[str, Any], cart_id: str, base_url: str
    ) -> dict[str, Any]:
        now = self.clock()
        with self.store.write() as conn:
            cart = self._load(conn, loc, cart_id)
            if cart["status"] == "COMPLETED":
                raise ApiError(
                    409, "CART_COMPLETED", "The order for this cart is already paid", field="cartId"
                )
            if cart["status"] == "LOCKED":
                # A new hand-off after a declined attempt: a new attempt on the same intent.
                conn.execute(
                    "UPDATE payment_intents SET status = 'requires_payment_method'"
                    " WHERE id = ? AND status = 'declined'",
                    (cart["paymentIntentId"],),
                )
                row = conn.execute(
                    "SELECT id, client_secret, amount, currency FROM payment_intents WHERE id = ?",
                    (cart["paymentIntentId"],),
                ).fetchone()
                return self._intent_json(row, cart)
            problems = self._problems(loc, cart)
            if problems:
                first = problems[0]
                status = 422 if first["code"] == "LOCATION_CLOSED" else 400
                raise ApiError(
                    status,
                    first["code"],
                    first["message"],
                    field="cartId",
                    extra={"errors": problems},
                )
            pricing = price_cart(cart, loc["details"]["fees"], self.catalog.discounts, now)
            if pricing.discount_state in ("expired", "unknown"):
                cart["discountCode"] = None
            amount = pricing.order_total_with_service_fee
            pi_id = "pi_" + secrets.token_hex(12)
            secret = f"{pi_id}_secret_{secrets.token_urlsafe(18)}"
            conn.execute(
                "INSERT INTO payment_intents"
                " (id, cart_id, client_secret, amount, currency, status, created_at)"
                " VALUES (?, ?, ?, ?, ?, 'requires_payment_method', ?)",
                (pi_id, cart_id, secret, amount, self.catalog.currency, now),
            )
            cart["status"] = "LOCKED"
            cart["lockedAt"] = iso(now)
            cart["lockedAtTs"] = now
            cart["paymentIntentId"] = pi_id
            cart["checkoutUrl"] = f"{self.public_base_url or base_url}/demo/checkout/{pi_id}"
            cart["updatedAt"] = iso(now)
            self.store.put_cart(conn, cart, now)
            return self._intent_json((pi_id, secret, amount, self.catalog.currency), cart)

    @staticmethod
    def _intent_json(row: Any, cart: dict[str, Any]) -> dict[str, Any]:
        pi_id, secret, amount, currency = row
        return {
            "clientSecret": secret,
            "paymentIntentId": pi_id,
            "amount": int(amount),
            "currency": currency,
            "checkoutUrl": cart["checkoutUrl"],
        }

    def intents_awaiting_payment(
        self, limit: int = 50, code: str | None = None
    ) -> list[dict[str, Any]]:
        """Payments not made yet, newest first: what the counter page (staff) lists; with `code`,
        every one whose cart has that counter code, found by its index (never a window)."""
        where = "status = 'requires_payment_method'"
        args: tuple[Any, ...] = (limit,)
        if code is not None:
            where += f" AND {COUNTER_CODE_SQL} = ?"
            args = (code.upper(), limit)
        with self.store.read() as conn:
            rows = conn.execute(
                "SELECT id, cart_id, amount, currency FROM payment_intents"
                f" WHERE {where} ORDER BY created_at DESC LIMIT ?",
                args,
            ).fetchall()
        keys = ("id", "cartId", "amount", "currency")
        return [dict(zip(keys, row, strict=True)) for row in rows]

    def count_awaiting_payment(self) -> int:
        with self.store.read() as conn:
            row = conn.execute(
                "SELECT count(*) FROM payment_intents WHERE status = 'requires_payment_method'"
            ).fetchone()
        return int(row[0])

    def intent_by_id(self, pi_id: str) -> dict[str, Any] | None:
        with self.store.read() as conn:
            row = conn.execute(
                "SELECT id, cart_id, client_secret, amount, currency, status"
                " FROM payment_intents WHERE id = ?",
                (pi_id,),
            ).fetchone()
        if row is None:
            return None
        keys = ("id", "cartId", "clientSecret", "amount", "currency", "status")
        return dict(zip(keys, row, strict=True))

    def confirm_payment(self, client_secret: str, card_number: str) -> dict[str, Any]:
        """The demo processor: approve 4242..., decline 4000 0000 0000 0002."""
        card = re.sub(r"[\s-]", "", card_number)
        if not card.isdigit():
            raise validation("cardNumber must contain only digits and spaces", "cardNumber")
        now = self.clock()
        with self.store.write() as conn:
            row = conn.execute(
                "SELECT id, cart_id, status, amount FROM payment_intents WHERE client_secret = ?",
                (client_secret,),
            ).fetchone()
            if row is None:
                raise not_found("Payment not found")
            pi_id, cart_id, status, amount = row
            cart = self.store.get_cart(conn, cart_id)
            if status == "succeeded" and cart is not None:
                return {
                    "status": "succeeded",
                    "orderNumber": cart["fulfillmentIdentifier"],
                    "cartId": cart_id,
                }
            if status == "canceled" or cart is None or cart["status"] != "LOCKED":
                raise ApiError(
                    409, "PAYMENT_CANCELED", "This payment was canceled", field="clientSecret"
                )
            declined = card == DECLINE_CARD
            if declined:
                # The intent stays payable and the cart LOCKED; the attempt is recorded (after
                # this block, so the write is kept) and 2.0's order-result says "failed"
                # (PAYMENT_DECLINED) until a new attempt starts.
                conn.execute(
                    "UPDATE payment_intents SET status = 'declined' WHERE id = ?", (pi_id,)
                )
            elif card != APPROVE_CARD:
                raise validation(
                    "Demo processor: use 4242 4242 4242 4242 to approve"
                    " or 4000 0000 0000 0002 to decline",
                    "cardNumber",
                    code="CARD_NOT_SUPPORTED",
                )
            else:
                return self._place_order(conn, cart, cart_id, pi_id, amount, now)
        raise ApiError(
            402, "CARD_DECLINED", "The card was declined; try another card", field="cardNumber"
        )

    def _place_order(
        self, conn: Any, cart: dict[str, Any], cart_id: str, pi_id: str, amount: int, now: float
    ) -> dict[str, Any]:
        """The approving card: the order with its number, the cart COMPLETED."""
        loc = self.catalog.locations[cart["locationId"]]
        n = self.store.next_counter(conn, "order:" + loc["id"])
        prefix = loc["details"]["order_prefix"]
        number = f"{prefix}{n % 1000:03d}"
        order_id = "ord_" + secrets.token_hex(8)
        conn.execute(
            "INSERT INTO orders (id, cart_id, location_id, number, amount, created_at, doc)"
            " VALUES (?, ?, ?, ?, ?, ?, '{}')",
            (order_id, cart_id, loc["id"], number, amount, now),
        )
        conn.execute("UPDATE payment_intents SET status = 'succeeded' WHERE id = ?", (pi_id,))
        cart["status"] = "COMPLETED"
        cart["fulfillmentIdentifier"] = number
        cart["orderId"] = order_id
        cart["updatedAt"] = iso(now)
        self.store.put_cart(conn, cart, now)
        return {"status": "succeeded", "orderNumber": number, "cartId": cart_id}

    def _secret_for_cart(self, cart_id: str) -> str:
        with self.store.read() as conn:
            cart = self.store.get_cart(conn, cart_id)
            if cart is None or not cart.get("paymentIntentId"):
                raise ValueError(f"cart {cart_id} has no payment intent")
            row = conn.execute(
                "SELECT client_secret FROM payment_intents WHERE id = ?", (cart["paymentIntentId"],)
            ).fetchone()
        return str(row[0])

    def approve_payment(self, cart_id: str) -> str:
        """Test helper: pay the cart's intent with the approving card; return the order number."""
        result = self.confirm_payment(self._secret_for_cart(cart_id), APPROVE_CARD)
        return str(result["orderNumber"])

    def decline_payment(self, cart_id: str) -> None:
        """Test/demo helper: a declined card on the cart's intent (the cart stays LOCKED)."""
        try:
            self.confirm_payment(self._secret_for_cart(cart_id), DECLINE_CARD)
        except ApiError as exc:
            if exc.code != "CARD_DECLINED":
                raise
