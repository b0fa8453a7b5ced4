"""cart_changes: what a customer is told when the cart moved on elsewhere (2.0 CART_CONFLICT)."""

from __future__ import annotations

from typing import Any

from kiosk.api.models import Cart
from kiosk.ordering.cart_changes import cart_changes


def _cart(*items: tuple[str, str, int], **extra: Any) -> Cart:
    lines = [{"id": i, "name": n, "quantity": q, "productId": "p_" + i} for i, n, q in items]
    return Cart.model_validate({"id": "c1", "items": lines, **extra})


def test_lines_added_removed_and_recounted_are_named() -> None:
    before = _cart(("a", "Cookie", 2), ("b", "Latte", 1))
    after = _cart(("a", "Cookie", 3), ("c", "Brownie", 1))
    assert cart_changes(before, after) == [
        "Cookie now ×3 (was ×2)",
        "Brownie ×1 added",
        "Latte removed",
    ]


def test_the_code_the_time_and_a_long_list() -> None:
    before = _cart(("a", "Cookie", 1))
    assert cart_changes(before, _cart(("a", "Cookie", 1), discountCode="SAVE10")) == [
        "code SAVE10 applied"
    ]
    later = _cart(("a", "Cookie", 1), orderDate="2026-11-24", orderTime="09:00")
    assert cart_changes(before, later) == ["the order time changed"]
    many = _cart(*[(str(n), f"Item {n}", 1) for n in range(6)])
    said = cart_changes(before, many)
    assert len(said) == 4 and said[-1] == "4 more change(s)"
    assert cart_changes(before, before) == []


def test_a_line_that_sold_out_is_named() -> None:
    before = _cart(("a", "Gyoza", 1), ("b", "Tea", 1))
    after = Cart.model_validate(
        {
            "id": "c1",
            "items": [
                {"id": "a", "name": "Gyoza", "quantity": 1, "availability": "sold_out"},
                {"id": "b", "name": "Tea", "quantity": 1},
            ],
        }
    )
    assert cart_changes(before, after) == ["Gyoza is sold out"]
    assert cart_changes(after, after) == []


def test_a_long_name_is_cut_to_forty_characters_and_a_nameless_line_says_its_product() -> None:
    long_name = "Triple chocolate fudge brownie with sea salt caramel"
    before = _cart(("a", "Cookie", 1))
    after = _cart(("a", "Cookie", 1), ("b", long_name, 1), ("c", "", 2))
    exact = _cart(("a", "Cookie", 1), ("d", "x" * 40, 1))
    assert cart_changes(before, after) == [
        long_name[:39] + "… ×1 added",
        "p_c ×2 added",
    ]
    assert cart_changes(before, exact) == ["x" * 40 + " ×1 added"]
    one_more = _cart(("a", "Cookie", 1), ("e", "y" * 41, 1))
    assert cart_changes(before, one_more) == ["y" * 39 + "… ×1 added"]


def test_a_replaced_or_vanished_cart_is_said_once_and_the_tip_way_and_total_are_named() -> None:
    cart = _cart(("a", "Cookie", 1))
    assert cart_changes(None, None) == []
    assert cart_changes(cart, None) == ["your order was replaced"]
    assert cart_changes(None, cart) == ["your order was replaced"]
    assert cart_changes(_cart(discountCode="SAVE10"), _cart()) == ["the code was removed"]
    tipped = _cart(("a", "Cookie", 1), waiterTipTotal="1.00")
    assert cart_changes(cart, tipped) == ["the tip changed"]
    delivery = _cart(("a", "Cookie", 1), fulfillmentMethod="DELIVERY")
    assert cart_changes(cart, delivery) == ["the way of ordering changed"]
    dearer = _cart(("a", "Cookie", 1), orderTotal="9.99")
    assert cart_changes(cart, dearer) == ["the total changed"]
    three = _cart(*[(str(n), f"Item {n}", 1) for n in range(3)])
    assert len(cart_changes(_cart(), three)) == 3  # three said, none summed up
