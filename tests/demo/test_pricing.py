"""Every pricing rule of the contract, with totals computed by hand in the comments."""

from __future__ import annotations

import re
from decimal import Decimal
from typing import Any

import httpx

from kiosk.demo.backend import Backend
from kiosk.demo.money import dec, fmt, rate, round_half_up, total
from kiosk.demo.pricing import price_cart
from tests.contract import SPEC_CART_TOTALS

from .support import DT, WS, Clock, add, add_flash_discount, get_cart, new_cart, sel

TOTALS = SPEC_CART_TOTALS


def minor(cart: dict[str, Any], name: str) -> int:
    value = cart[name]
    return 0 if value == "0.00" else int(value)


def check_formats(cart: dict[str, Any]) -> None:
    for name in TOTALS:
        value = cart[name]
        assert value == "0.00" or re.fullmatch(r"[1-9]\d*", value), (name, value)
        assert cart[name + "Formatted"] == fmt(minor(cart, name)), name
    assert cart["orderTotalWithServiceFeeAmount"] == minor(cart, "orderTotalWithServiceFee")
    for key, value in cart["fees"].items():
        pattern = r"\d+\.\d{4}" if key.endswith("Rate") else r"\d+\.\d{2}"
        assert re.fullmatch(pattern, value), (key, value)


def test_money_helpers() -> None:
    assert round_half_up(Decimal("16.5")) == 17
    assert round_half_up(Decimal("146.52")) == 147
    assert round_half_up(Decimal("0.49999")) == 0
    assert dec(475) == "4.75" and dec(5) == "0.05" and dec(0) == "0.00"
    assert total(0) == "0.00" and total(1250) == "1250" and total(5) == "5"
    assert fmt(123456) == "$1,234.56" and fmt(0) == "$0.00"
    assert rate("0.05") == "0.0500" and rate("0") == "0.0000"


async def test_downtown_pickup_modifiers_tax_and_enterprise_fee(dt: httpx.AsyncClient) -> None:
    cart_id = await new_cart(dt)
    mods = [
        sel("grp_drink_size", "opt_size_large"),  # +1.00
        sel("grp_milk", "opt_milk_oat"),  # +0.70
        sel("grp_extra_shots", ("opt_shot_extra", 2)),  # +0.90 x 2
    ]
    r = await add(dt, cart_id, "prd_latte", 2, mods)
    assert r.status_code == 200, r.text
    cart = r.json()["cart"]
    line = cart["items"][0]
    # unit 4.75 + 1.00 + 0.70 + 1.80 = 8.25; line 16.50
    assert (line["price"], line["priceFormatted"]) == ("825", "$8.25")
    assert (line["total"], line["totalFormatted"]) == ("1650", "$16.50")
    assert minor(cart, "subTotalWithoutDiscount") == 1650
    assert minor(cart, "subTotal") == 1650
    assert minor(cart, "taxTotal") == 147  # 1650 x 0.0888 = 146.52
    assert minor(cart, "enterpriseFeeTotal") == 17  # 1650 x 0.01 = 16.5, half up
    assert minor(cart, "applicationFeeTotal") == 17
    assert minor(cart, "orderTotal") == 1797  # 1650 + 147
    assert minor(cart, "orderTotalWithServiceFee") == 1814  # + 17
    assert minor(cart, "taxAndFeeTotal") == 164  # 147 + 17
    assert minor(cart, "netSalesTotal") == 1650
    for zero in ("discountTotal", "waiterTipTotal", "serviceFeeTotal", "fulfillmentMethodFeeTotal"):
        assert cart[zero] == "0.00" and cart[zero + "Formatted"] == "$0.00"
    assert cart["fees"]["taxRate"] == "0.0888"
    assert cart["fees"]["enterpriseFeeRate"] == "0.0100"
    check_formats(cart)


async def test_downtown_delivery_discount_percent_tip_and_delivery_fee(
    dt: httpx.AsyncClient,
) -> None:
    cart_id = await new_cart(dt, method="delivery")
    burger = [
        sel("grp_doneness", "opt_done_medium"),
        sel("grp_cheese", "opt_cheese_cheddar"),  # +1.00
        sel("grp_burger_addons", ("opt_add_patty", 2), "opt_add_bacon"),  # +8.00 +2.00
        sel(
            "grp_combo",
            "opt_combo_yes",  # +4.50
            opt_combo_yes=[
                sel("grp_combo_side", "opt_cside_sweet"),  # +1.00
                sel("grp_combo_drink", "opt_cdrink_lemonade"),
            ],
        ),
    ]
    assert (await add(dt, cart_id, "prd_classic_burger", 1, burger)).status_code == 200
    assert (await add(dt, cart_id, "prd_cookie", 3)).status_code == 200  # 3 x 2.75
    r = await dt.post(
        f"/locations/{DT}/discounts/apply-discount", json={"code": "save10", "cartId": cart_id}
    )
    assert r.json() == {"success": True}
    r = await dt.put(f"/locations/{DT}/carts/{cart_id}/gratuity", json={"percentage": "18"})
    assert r.status_code == 200, r.text
    cart = r.json()
    # burger 13.50 + 1.00 + 8.00 + 2.00 + 4.50 + 1.00 = 30.00; cookies 8.25
    assert cart["items"][0]["price"] == "3000"
    assert minor(cart, "subTotalWithoutDiscount") == 3825
    assert minor(cart, "discountTotal") == 383  # 382.5 half up
    assert cart["discountCode"] == "SAVE10"
    assert minor(cart, "subTotal") == 3442
    assert minor(cart, "taxTotal") == 306  # 3442 x 0.0888 = 305.65
    assert minor(cart, "waiterTipTotal") == 620  # 3442 x 0.18 = 619.56
    assert cart["fees"]["tipRate"] == "0.1800"
    assert minor(cart, "fulfillmentMethodFeeTotal") == 471  # 3442 x 0.05 + 299 = 471.1
    assert cart["fees"]["fulfillmentMethodFeeFix"] == "2.99"
    assert cart["fees"]["fulfillmentMethodFeeRate"] == "0.0500"
    assert minor(cart, "enterpriseFeeTotal") == 34  # 34.42
    assert minor(cart, "orderTotal") == 4839  # 3442 + 306 + 620 + 471
    assert minor(cart, "orderTotalWithServiceFee") == 4873  # + 34
    assert minor(cart, "taxAndFeeTotal") == 811  # 306 + 471 + 34
    assert minor(cart, "netSalesTotal") == 3442
    check_formats(cart)


async def test_westside_fixed_discount_service_and_processing_fees(ws: httpx.AsyncClient) -> None:
    cart_id = await new_cart(ws, WS, "table_service")
    assert (await add(ws, cart_id, "prd_club_tray", loc=WS)).status_code == 200  # 24.00
    assert (await add(ws, cart_id, "prd_fruit_plate", loc=WS)).status_code == 200  # 11.00
    r = await ws.post(
        f"/locations/{WS}/discounts/apply-discount", json={"code": "FIVEOFF", "cartId": cart_id}
    )
    assert r.status_code == 200, r.text
    r = await ws.put(f"/locations/{WS}/carts/{cart_id}/gratuity", json={"percentage": "15"})
    cart = r.json()
    assert minor(cart, "subTotalWithoutDiscount") == 3500
    assert minor(cart, "discountTotal") == 500
    assert minor(cart, "subTotal") == 3000
    assert minor(cart, "taxTotal") == 285  # 3000 x 0.095
    assert minor(cart, "waiterTipTotal") == 450  # 15 %
    assert minor(cart, "serviceFeeTotal") == 115  # 3000 x 0.03 + 25
    assert minor(cart, "paymentProcessingFeeTotal") == 117  # 3000 x 0.029 + 30
    assert cart["fulfillmentMethodFeeTotal"] == "0.00"
    assert cart["enterpriseFeeTotal"] == "0.00"
    assert minor(cart, "orderTotal") == 3735  # 3000 + 285 + 450
    assert minor(cart, "orderTotalWithServiceFee") == 3967  # + 115 + 117
    assert minor(cart, "taxAndFeeTotal") == 517  # 285 + 115 + 117
    assert cart["fees"]["serviceFeeFix"] == "0.25"
    assert cart["fees"]["paymentProcessingFeeFix"] == "0.30"
    check_formats(cart)


async def test_fixed_tip_and_custom_percentage(dt: httpx.AsyncClient) -> None:
    cart_id = await new_cart(dt)
    await add(dt, cart_id, "prd_cheesecake", 2)  # 13.00
    r = await dt.put(f"/locations/{DT}/carts/{cart_id}/gratuity", json={"amount": "5.00"})
    cart = r.json()
    assert minor(cart, "waiterTipTotal") == 500
    assert cart["fees"]["tipRate"] == "0.0000"
    # tax 1300 x 0.0888 = 115.44 -> 115; enterprise 13; total 1300 + 115 + 500 = 1915
    assert minor(cart, "orderTotal") == 1915
    assert minor(cart, "orderTotalWithServiceFee") == 1928
    r = await dt.put(f"/locations/{DT}/carts/{cart_id}/gratuity", json={"percentage": "12.5"})
    cart = r.json()
    assert cart["fees"]["tipRate"] == "0.1250"
    assert minor(cart, "waiterTipTotal") == 163  # 1300 x 0.125 = 162.5, half up
    r = await dt.put(f"/locations/{DT}/carts/{cart_id}/gratuity", json={"percentage": "0"})
    assert r.json()["waiterTipTotal"] == "0.00"


async def test_empty_cart_is_all_zero(dt: httpx.AsyncClient) -> None:
    cart_id = await new_cart(dt, method="delivery")
    cart = await get_cart(dt, cart_id)
    for name in TOTALS:
        assert cart[name] == "0.00", name
    assert cart["orderTotalWithServiceFeeAmount"] == 0
    assert cart["items"] == [] and cart["totalQuantity"] == 0
    check_formats(cart)


async def test_minimum_not_met_keeps_the_code_at_zero(dt: httpx.AsyncClient) -> None:
    cart_id = await new_cart(dt)
    r = await add(dt, cart_id, "prd_steak_frites")  # not a downtown product
    assert r.status_code == 400
    r = await add(dt, cart_id, "prd_cheesecake", 4)  # 26.00
    item_id = r.json()["cart"]["items"][0]["id"]
    r = await dt.post(
        f"/locations/{DT}/discounts/apply-discount", json={"code": "FIVEOFF", "cartId": cart_id}
    )
    assert r.status_code == 200
    assert minor(await get_cart(dt, cart_id), "discountTotal") == 500
    # Down to 19.50: below the 25.00 minimum; the code stays, worth nothing, with a notice.
    r = await dt.patch(
        f"/locations/{DT}/carts/{cart_id}/cart-item/{item_id}/quantity", json={"quantity": 3}
    )
    cart = r.json()["cart"]
    assert cart["discountCode"] == "FIVEOFF"
    assert cart["discountTotal"] == "0.00"
    assert minor(cart, "subTotal") == 1950
    assert "25.00" in cart["discountNotice"]
    r = await dt.post(f"/locations/{DT}/carts/{cart_id}/validate")
    assert r.json()["valid"] is True
    assert r.json()["warnings"][0]["code"] == "MINIMUM_ORDER_NOT_MET"
    # Back above the minimum: it applies again.
    await dt.patch(
        f"/locations/{DT}/carts/{cart_id}/cart-item/{item_id}/quantity", json={"quantity": 5}
    )
    assert minor(await get_cart(dt, cart_id), "discountTotal") == 500


async def test_expired_code_is_removed_on_read(
    dt: httpx.AsyncClient, backend: Backend, clock: Clock
) -> None:
    add_flash_discount(backend, clock)
    cart_id = await new_cart(dt)
    await add(dt, cart_id, "prd_cookie", 2)  # 5.50
    r = await dt.post(
        f"/locations/{DT}/discounts/apply-discount", json={"code": "FLASH", "cartId": cart_id}
    )
    assert r.status_code == 200
    assert minor(await get_cart(dt, cart_id), "discountTotal") == 275
    clock.advance(61)
    cart = await get_cart(dt, cart_id)
    assert cart["discountCode"] is None
    assert cart["discountTotal"] == "0.00"
    assert minor(cart, "subTotal") == 550
    assert "expired" in cart["discountNotice"]
    # The removal was stored: the code does not come back.
    clock.now -= 3600
    assert (await get_cart(dt, cart_id))["discountCode"] is None


async def test_discount_never_exceeds_subtotal(dt: httpx.AsyncClient, backend: Backend) -> None:
    backend.catalog.discounts["BIG"] = {
        "code": "BIG",
        "kind": "fixed",
        "value": 100000,
        "minimum": 0,
        "expires_at": None,
    }
    cart_id = await new_cart(dt, method="delivery")
    await add(dt, cart_id, "prd_cookie")
    await dt.post(
        f"/locations/{DT}/discounts/apply-discount", json={"code": "BIG", "cartId": cart_id}
    )
    cart = await get_cart(dt, cart_id)
    assert minor(cart, "discountTotal") == 275
    assert cart["subTotal"] == "0.00"
    assert cart["taxTotal"] == "0.00"
    # The delivery fee's fixed part still applies to a non-empty cart: 0 x 0.05 + 2.99.
    assert minor(cart, "fulfillmentMethodFeeTotal") == 299
    assert minor(cart, "orderTotal") == 299
    check_formats(cart)


async def test_remove_discount(dt: httpx.AsyncClient) -> None:
    cart_id = await new_cart(dt)
    await add(dt, cart_id, "prd_cheesecake", 2)
    await dt.post(
        f"/locations/{DT}/discounts/apply-discount", json={"code": "SAVE10", "cartId": cart_id}
    )
    r = await dt.delete(f"/locations/{DT}/carts/{cart_id}/discount")
    assert r.status_code == 200
    assert r.json()["discountCode"] is None and r.json()["discountTotal"] == "0.00"


def test_price_cart_rounds_each_total_once() -> None:
    # Two lines whose exact tax is 0.5 + 0.5 cents: rounding per line would give 2, once gives 1.
    fees = {
        "taxRate": "0.0500",
        "serviceFeeRate": "0",
        "serviceFeeFix": 0,
        "paymentProcessingFeeRate": "0",
        "paymentProcessingFeeFix": 0,
        "enterpriseFeeRate": "0",
        "enterpriseFeeFix": 0,
        "methodFees": {},
    }
    cart = {
        "items": [{"unitPrice": 10, "quantity": 1}, {"unitPrice": 10, "quantity": 1}],
        "fulfillmentMethod": "pickup",
    }
    p = price_cart(cart, fees, {}, 0.0)
    assert p.tax == 1  # 20 x 0.05 = 1.0
    cart["items"] = [{"unitPrice": 30, "quantity": 1}]
    assert price_cart(cart, fees, {}, 0.0).tax == 2  # 1.5 half up
