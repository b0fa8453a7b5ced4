"""The rules of the API's shapes a restaurant, a customer or the server would notice when broken.

The null rule is the base model's (`ApiModel`): every response shape, including one added
tomorrow, reads a JSON null as the field's default, as "" for a required text, and as None where
None is a value the field holds. The shapes below are declared here, so the rule is checked as a
new response model meets it (each model class works out its plan once, at its first use).
"""

from __future__ import annotations

from typing import Annotated, Any, Optional

import pytest
from pydantic import AliasChoices, BeforeValidator, Field, ValidationError

from kiosk.api import (
    Cart,
    CartItem,
    FulfillmentMethod,
    MenuProduct,
    ModifierGroup,
    OrderingSession,
    OrderProgress,
    ProductDetail,
    normalize_fulfillment,
)
from kiosk.api.models import ApiModel, ModifierRule, validate_as
from kiosk.api.money import format_money
from kiosk.ordering.diet import raw_tags


def _doubled(value: Any) -> Any:
    return value * 2 if isinstance(value, int) else value


class Voucher(ApiModel):
    """A response shape of every kind of field the null rule distinguishes."""

    code: str
    uses: int
    label: str = "voucher"
    count: int = 3
    note: str | None = "ask at the counter"
    legacy_note: Optional[str] = "see the menu"  # noqa: UP045 (typing's spelling, read alike)
    points: Annotated[int | None, BeforeValidator(_doubled)] = 5
    # A seat number, or a text such as "bar"; null allowed (an Annotated type inside a union).
    seat: Annotated[int | None, BeforeValidator(_doubled)] | str = "bar"
    anything: Any = "kept"
    title: str = Field(default="untitled", validation_alias=AliasChoices("title", "heading"))
    caption: str = Field(default="no caption", validation_alias="shownAs")


def test_a_null_where_a_field_has_a_default_reads_as_that_default() -> None:
    voucher = Voucher.model_validate(
        {"code": "C1", "uses": 1, "label": None, "count": None, "heading": None, "shownAs": None}
    )
    assert (voucher.label, voucher.count) == ("voucher", 3)
    assert (voucher.title, voucher.caption) == ("untitled", "no caption")


def test_a_null_for_a_required_text_reads_as_empty_and_a_required_number_is_refused() -> None:
    assert Voucher.model_validate({"code": None, "uses": 2}).code == ""
    with pytest.raises(ValidationError):
        Voucher.model_validate({"code": "C1", "uses": None})


def test_a_null_where_none_is_a_value_is_kept_as_none_not_the_default() -> None:
    voucher = Voucher.model_validate(
        {
            "code": "C1",
            "uses": 1,
            "note": None,
            "legacyNote": None,
            "points": None,
            "seat": None,
            "anything": None,
        }
    )
    assert voucher.note is None and voucher.legacy_note is None
    assert voucher.points is None and voucher.seat is None and voucher.anything is None


def test_fields_not_sent_keep_their_defaults_and_sent_values_are_read() -> None:
    voucher = Voucher.model_validate({"code": "C1", "uses": 1, "points": 4, "heading": "Spring"})
    assert voucher.note == "ask at the counter" and voucher.points == 8
    assert voucher.title == "Spring"


def test_a_shape_built_from_shapes_the_kiosk_holds_keeps_them() -> None:
    # A cart or a group put together from objects already read (not from JSON) is the same.
    cart = Cart(id="c1", items=[CartItem(id="i1", quantity=2), CartItem(id="i2", quantity=1)])
    assert cart.item_count == 3
    group = ModifierGroup(id="g", rule=ModifierRule(min=1, max=2))
    assert (group.min_selections, group.max_selections, group.is_required) == (1, 2, True)
    assert Cart.model_validate(cart) == cart


# ---------------------------------------------------------------- the way to order


def test_a_cart_that_names_no_way_to_order_has_none() -> None:
    assert normalize_fulfillment(None) is None
    assert Cart.model_validate({"id": "c", "fulfilmentMethod": None}).fulfilment_method is None
    member = FulfillmentMethod.TABLE_SERVICE
    assert normalize_fulfillment(member) is member


def test_a_way_to_order_sent_as_a_number_is_kept_as_its_text() -> None:
    # Unknown values are kept as sent (the kiosk then offers no such way), never lost as None.
    assert normalize_fulfillment(7) == "7"
    assert Cart.model_validate({"id": "c", "fulfilmentMethod": 7}).fulfilment_method == "7"


# ---------------------------------------------------------------- modifier groups and options


def _option_opening(group: dict[str, Any], overrides: dict[str, Any] | None) -> ModifierGroup:
    """The group an option opens, as the option's link carries it (with the link's overrides)."""
    link: dict[str, Any] = {"groupId": group["id"], "group": group}
    if overrides is not None:
        link["overrides"] = overrides
    outer = ModifierGroup.model_validate(
        {"id": "g_outer", "items": [{"id": "o_burger", "childGroups": [link]}]}
    )
    child = outer.items[0].child_groups[0].group
    assert child is not None
    return child


def test_an_option_can_make_an_optional_group_required_keeping_its_maximum() -> None:
    sauces = {"id": "g_sauce", "rule": {"min": 0, "max": 3}, "items": [{"id": "o_bbq"}]}
    child = _option_opening(sauces, {"min": 1})
    assert (child.min_selections, child.max_selections, child.is_required) == (1, 3, True)
    # The same group without the link's rule keeps its own.
    plain = _option_opening(sauces, None)
    assert (plain.min_selections, plain.max_selections, plain.is_required) == (0, 3, False)


def test_an_option_can_cap_a_group_keeping_its_minimum() -> None:
    sides = {"id": "g_side", "rule": {"min": 1, "max": None}}
    child = _option_opening(sides, {"max": 2})
    assert (child.min_selections, child.max_selections) == (1, 2)


def test_the_link_rule_replaces_a_legacy_group_rule_for_good() -> None:
    # A legacy group (required, exactly two) that the link makes optional, up to four: the
    # legacy trio must not speak for the group any more.
    legacy = {"id": "g_pick", "required": True, "quantity": 2, "isFixed": True}
    child = _option_opening(legacy, {"min": 0, "max": 4})
    assert (child.min_selections, child.max_selections, child.is_required) == (0, 4, False)
    assert (child.required, child.quantity, child.is_fixed) == (None, None, None)
    again = ModifierGroup.model_validate(child.model_dump(by_alias=True))
    assert (again.min_selections, again.max_selections) == (0, 4)


def test_an_option_of_one_left_is_not_sold_out_and_of_none_is() -> None:
    group = ModifierGroup.model_validate(
        {"id": "g", "items": [{"id": "a", "maxQuantity": 1}, {"id": "b", "maxQuantity": 0}]}
    )
    assert [item.is_sold_out for item in group.items] == [False, True]


def test_a_group_with_no_minimum_is_optional() -> None:
    group = ModifierGroup.model_validate({"id": "g", "rule": {"min": 0, "max": 2}})
    assert group.is_required is False
    assert ModifierGroup.model_validate({"id": "g", "rule": {"min": 1}}).is_required is True


def test_a_fixed_legacy_group_is_read_in_snake_case_too() -> None:
    group = ModifierGroup.model_validate({"id": "g", "quantity": 2, "is_fixed": True})
    assert (group.min_selections, group.max_selections) == (2, 2)


# ---------------------------------------------------------------- products on the menu


def _listed(**fields: Any) -> MenuProduct:
    return validate_as(MenuProduct, {"id": "p_latte", "name": "Latte", **fields})


def test_the_server_price_text_is_shown_unless_another_language_is_asked() -> None:
    latte = _listed(price=625, displayPrice="US$6.25", currency="usd")
    assert latte.price_text("usd") == "US$6.25"
    assert latte.price_text("usd", "fr_FR") == format_money(625, "usd", "fr_FR") != "US$6.25"


def test_a_price_with_no_currency_anywhere_is_shown_without_a_symbol() -> None:
    assert _listed(price=625).price_text("") == "6.25"


def test_a_product_whose_diet_lists_are_null_or_not_lists_still_lists() -> None:
    latte = _listed(allergens=None, nutrition={"dietaryPreferences": "vegan"})
    assert latte.allergens == () and latte.dietary_preferences == ()
    assert _listed(allergens="milk").allergens == ()


@pytest.mark.parametrize("currency", [None, 5])
def test_a_product_with_a_null_or_numeric_currency_still_lists(currency: Any) -> None:
    latte = _listed(price=625, currency=currency)
    assert latte.currency == (None if currency is None else "5")


def test_a_product_opened_keeps_the_diet_words_the_menu_showed() -> None:
    listed = _listed(allergens=["peanuts", "milk"], nutrition={"dietaryPreferences": ["vegan"]})
    detail = ProductDetail.from_listed(listed)
    assert raw_tags(detail) == raw_tags(listed)
    assert {"peanuts", "dairy", "vegan"} <= set(raw_tags(detail))


# ---------------------------------------------------------------- ordering sessions


@pytest.mark.parametrize(
    ("reply", "started"),
    [
        ({"cartId": "cart_1"}, True),
        ({"cartId": "cart_1", "errorMessage": "Ordering is closed"}, False),
        ({"cartId": "", "errorMessage": None}, False),
        ({"errorMessage": "Ordering is closed"}, False),
    ],
)
def test_an_ordering_session_starts_only_with_a_cart_and_no_refusal(
    reply: dict[str, Any], started: bool
) -> None:
    assert OrderingSession.model_validate(reply).ok is started


@pytest.mark.parametrize(
    ("state", "failed", "completed"),
    [("failed", True, False), ("completed", False, True), ("payment_pending", False, False)],
)
def test_a_payment_poll_says_failed_only_for_a_failed_order(
    state: str, failed: bool, completed: bool
) -> None:
    progress = OrderProgress(state=state, order_number="A12" if completed else None)
    assert (progress.failed, progress.completed) == (failed, completed)


# ---------------------------------------------------------------- the cart


@pytest.mark.parametrize(
    ("status", "locked_at", "editable"),
    [
        ("OPEN", None, True),
        ("open", None, True),
        ("OPEN", "2026-11-29T10:00:00Z", False),  # locked by its lockedAt (spec)
        ("LOCKED", None, False),
        ("COMPLETED", None, False),
        ("EXPIRED", None, False),
    ],
)
def test_a_cart_is_open_for_edits_only_when_open_and_not_locked(
    status: str, locked_at: str | None, editable: bool
) -> None:
    cart = Cart.model_validate({"id": "c", "status": status, "lockedAt": locked_at})
    assert cart.is_open is editable
