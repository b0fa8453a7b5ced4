"""Cart pricing, exactly as the contract's pricing section says.

All arithmetic in integer minor units; a rate times an amount is computed exactly (Decimal) and
each total is rounded half up once. Fees other than tax and tip are zero on an empty cart
(assumption A: a fixed fee on a cart with nothing in it would be charged for nothing).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any

from kiosk.demo.money import round_half_up

ZERO = Decimal(0)


@dataclass
class Pricing:
    sub_total_without_discount: int = 0
    discount: int = 0
    sub_total: int = 0
    tax: int = 0
    tip: int = 0
    service_fee: int = 0
    method_fee: int = 0
    processing_fee: int = 0
    enterprise_fee: int = 0
    order_total: int = 0
    order_total_with_service_fee: int = 0
    tax_and_fee: int = 0
    tip_rate: Decimal = ZERO
    method_fee_rate: Decimal = ZERO
    method_fee_fix: int = 0
    # Discount revalidation: "ok", "expired", "unknown", "minimum" (kept but zero), or None.
    discount_state: str | None = None
    notices: list[dict[str, str]] = field(default_factory=list)


def fee(rate: Decimal, fix: int, base: int) -> int:
    return round_half_up(rate * base + fix)


def discount_state(discount: dict[str, Any] | None, sub_total: int, now: float) -> str:
    if discount is None:
        return "unknown"
    expires = discount.get("expires_at")
    if expires is not None and now >= float(expires):
        return "expired"
    if sub_total < int(discount.get("minimum") or 0):
        return "minimum"
    return "ok"


def discount_amount(discount: dict[str, Any], sub_total: int) -> int:
    if discount["kind"] == "percent":
        amount = round_half_up(Decimal(sub_total) * Decimal(int(discount["value"])) / 100)
    else:
        amount = int(discount["value"])
    return max(0, min(amount, sub_total))


def price_cart(
    cart: dict[str, Any],
    fees: dict[str, Any],
    discounts: dict[str, dict[str, Any]],
    now: float,
) -> Pricing:
    p = Pricing()
    items = cart.get("items") or []
    p.sub_total_without_discount = sum(int(i["unitPrice"]) * int(i["quantity"]) for i in items)

    code = cart.get("discountCode")
    if code:
        d = discounts.get(code)
        state = discount_state(d, p.sub_total_without_discount, now)
        p.discount_state = state
        if state == "ok" and d is not None:
            p.discount = discount_amount(d, p.sub_total_without_discount)
        elif state == "minimum" and d is not None:
            p.notices.append(
                {
                    "code": "MINIMUM_ORDER_NOT_MET",
                    "message": f"{code} needs an order of at least "
                    f"{int(d['minimum']) // 100}.{int(d['minimum']) % 100:02d}; "
                    "it applies again once the order reaches that amount",
                }
            )
        else:
            p.notices.append(
                {"code": "INVALID_DISCOUNT_CODE", "message": f"{code} has expired and was removed"}
            )
    p.sub_total = p.sub_total_without_discount - p.discount
    base = p.sub_total

    p.tax = fee(Decimal(fees["taxRate"]), 0, base)
    tip = cart.get("tip") or {}
    if "amount" in tip:
        p.tip = int(tip["amount"])
    elif "percentage" in tip:
        p.tip_rate = Decimal(tip["percentage"]) / 100
        p.tip = fee(p.tip_rate, 0, base)

    if items:
        p.service_fee = fee(Decimal(fees["serviceFeeRate"]), int(fees["serviceFeeFix"]), base)
        p.processing_fee = fee(
            Decimal(fees["paymentProcessingFeeRate"]), int(fees["paymentProcessingFeeFix"]), base
        )
        p.enterprise_fee = fee(
            Decimal(fees["enterpriseFeeRate"]), int(fees["enterpriseFeeFix"]), base
        )
    method_fee = fees.get("methodFees", {}).get(cart.get("fulfillmentMethod"))
    if method_fee is not None:
        p.method_fee_rate = Decimal(method_fee[0])
        p.method_fee_fix = int(method_fee[1])
        if items:
            p.method_fee = fee(p.method_fee_rate, p.method_fee_fix, base)

    p.order_total = p.sub_total + p.tax + p.tip + p.method_fee
    p.order_total_with_service_fee = (
        p.order_total + p.service_fee + p.processing_fee + p.enterprise_fee
    )
    p.tax_and_fee = p.tax + p.service_fee + p.method_fee + p.processing_fee + p.enterprise_fee
    return p
