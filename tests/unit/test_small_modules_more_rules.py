"""More rules from the whole-module mutation run (docs/mutation.md, issue 32 item 8) of two small
modules: what a customer is told when the cart moved on elsewhere (kiosk.ordering.cart_changes),
and the resume file (kiosk.ordering.resume_file)."""

from __future__ import annotations

from pathlib import Path

from pydantic import SecretStr

from kiosk.api.models import Cart
from kiosk.ordering.cart_changes import cart_changes
from kiosk.ordering.lifecycle import OrderSnapshot, Phase
from kiosk.ordering.resume_file import ResumeFile, SavedCart


def test_a_line_with_neither_name_nor_product_is_told_as_an_item() -> None:
    before = Cart.model_validate({"id": "c1", "items": []})
    after = Cart.model_validate({"id": "c1", "items": [{"id": "i1", "quantity": 2}]})
    assert cart_changes(before, after) == ["an item ×2 added"]


def test_the_resume_file_reads_back_what_it_kept(tmp_path: Path) -> None:
    kept = ResumeFile(tmp_path / "cart.json")
    assert kept.load() is None
    order = OrderSnapshot(Phase.AWAITING_PAYMENT, checkout_url="https://pay.example/abc")
    kept.save("cart_1", "loc_1", order, SecretStr("token"))
    assert kept.load() == SavedCart("cart_1", "loc_1", "token", order)
    kept.remove()
    assert kept.load() is None
    # A terminal that keeps no file reads nothing back.
    assert ResumeFile(None).load() is None
