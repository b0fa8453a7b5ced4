"""More of what a customer is told when the cart moved on elsewhere (kiosk.ordering.cart_changes),
from the whole-module mutation run (docs/mutation.md, issue 32 item 8)."""

from __future__ import annotations

from kiosk.api.models import Cart
from kiosk.ordering.cart_changes import cart_changes


def test_a_line_with_neither_name_nor_product_is_told_as_an_item() -> None:
    before = Cart.model_validate({"id": "c1", "items": []})
    after = Cart.model_validate({"id": "c1", "items": [{"id": "i1", "quantity": 2}]})
    assert cart_changes(before, after) == ["an item ×2 added"]
