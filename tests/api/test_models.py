from __future__ import annotations

from typing import Any

import pytest
from pydantic import BaseModel, ValidationError

from kiosk.api import (
    Cart,
    CartStatus,
    CartValidation,
    CustomerOrder,
    DeliveryAddress,
    FulfillmentMethod,
    Location,
    Loyalty,
    MenuProduct,
    MenusResponse,
    Merchant,
    ModifierGroup,
    OrderingSession,
    PaymentIntent,
    ProductDetail,
    SelectedOption,
    Selection,
    TimeIntervals,
    TipSettings,
    normalize_fulfillment,
)
from kiosk.api.models import FULFILLMENT_ALIASES, validate_as

from .conftest import FIXTURES, TOTALS_CAMEL, spec_cart, vendor_fixture

# ---------------------------------------------------------------- the spec's own cart


def test_spec_cart_totals_are_minor_units_and_zero_may_be_decimal() -> None:
    cart = Cart.model_validate(spec_cart())
    assert cart.sub_total == 1250  # "1250" minor units
    assert cart.discount_total == 0  # "0.00"
    assert cart.waiter_tip_total == 225
    assert cart.tax_total == 109
    assert cart.tax_and_fee_total == 164
    assert cart.service_fee_total == 55
    assert cart.payment_processing_fee_total == 0
    assert cart.application_fee_total == 0
    assert cart.net_sales_total == 1250
    assert cart.fulfillment_method_fee_total == 0
    assert cart.order_total_with_service_fee == 1639
    assert cart.order_total == 1584
    assert cart.enterprise_fee_total == 0
    assert cart.sub_total_without_discount == 1250
    assert cart.order_total_with_service_fee_amount == 1639
    assert cart.order_total_formatted == "$15.84"
    assert cart.discount_total_formatted == "$0.00"


def test_every_spec_total_has_an_int_attribute_and_a_formatted_twin() -> None:
    raw = spec_cart()
    cart = Cart.model_validate(raw)
    assert len(Cart.TOTALS) == 14 == len(TOTALS_CAMEL)
    for snake, camel in zip(Cart.TOTALS, TOTALS_CAMEL, strict=True):
        value = getattr(cart, snake)
        assert isinstance(value, int) and not isinstance(value, bool), snake
        assert getattr(cart, f"{snake}_formatted") == raw[camel + "Formatted"]
        assert cart.formatted(snake) == raw[camel + "Formatted"]


def test_cart_fields_of_spec_2_4_to_2_7() -> None:
    cart = Cart.model_validate(
        spec_cart(
            deliveryInfo={"addressString": "1 Main St", "addressData": {"zip": "10001"}},
            tableServiceInfo={"tableNumber": 12},
            roomServiceInfo={"lastName": "Doe", "roomNumber": "204"},
        )
    )
    assert cart.id == "cart_1" and cart.location_id == "loc_1"
    assert cart.status == CartStatus.OPEN and cart.is_open and not cart.is_locked
    assert cart.fulfilment_method is FulfillmentMethod.PICKUP
    assert cart.fulfillment_method == "pickup"
    assert (
        cart.pickup_type == "ASAP"
        and cart.order_date == "2026-08-10"
        and cart.order_time == "12:00"
    )
    assert cart.total_quantity == 2 and cart.item_count == 2
    assert cart.fees.tax_rate == "0.0875" and cart.fees.service_fee_fix == "0.30"
    assert cart.metadata == {"kiosk": "front"}
    assert cart.checkout_url == "https://pay.example.test/c/cart_1"
    assert cart.delivery_info is not None and cart.delivery_info.address_string == "1 Main St"
    assert cart.delivery_info.address_data == {"zip": "10001"}
    assert cart.table_service_info is not None and cart.table_service_info.table_number == "12"
    assert cart.room_service_info is not None and cart.room_service_info.room_number == "204"
    item = cart.items[0]
    assert (item.id, item.product_id, item.name, item.quantity) == ("item_1", "prod_1", "Latte", 2)
    assert (item.price, item.total, item.discount) == (625, 1250, 0)
    assert item.total_formatted == "$12.50"
    assert item.selections == [{"groupId": "g_size", "selectedOptions": [{"optionId": "o_l"}]}]


def test_cart_is_frozen() -> None:
    cart = Cart.model_validate(spec_cart())
    with pytest.raises(ValidationError):
        cart.sub_total = 1  # type: ignore[misc]


@pytest.mark.parametrize(
    ("status", "locked_at", "is_locked", "is_completed", "is_expired"),
    [
        ("OPEN", None, False, False, False),
        ("OPEN", "2026-08-10T12:00:00Z", True, False, False),  # spec: lockedAt alone locks
        ("LOCKED", "2026-08-10T12:00:00Z", True, False, False),
        ("locked", None, True, False, False),
        ("COMPLETED", "2026-08-10T12:00:00Z", True, True, False),
        ("EXPIRED", None, False, False, True),
        ("SOMETHING_NEW", None, False, False, False),
    ],
)
def test_cart_status_helpers(
    status: str, locked_at: str | None, is_locked: bool, is_completed: bool, is_expired: bool
) -> None:
    cart = Cart.model_validate(spec_cart(status=status, lockedAt=locked_at))
    assert cart.status == status  # unknown values kept as sent
    assert (cart.is_locked, cart.is_completed, cart.is_expired) == (
        is_locked,
        is_completed,
        is_expired,
    )


def test_cart_falls_back_to_local_formatting_without_a_twin() -> None:
    raw = spec_cart(currency="eur")
    del raw["orderTotalFormatted"]
    cart = Cart.model_validate(raw)
    assert cart.order_total_formatted is None
    assert cart.formatted("order_total") == "€15.84"
    with pytest.raises(KeyError):
        cart.formatted("not_a_total")


def test_minimal_cart_never_raises_on_missing_optional_fields() -> None:
    cart = Cart.model_validate({"id": "c"})
    assert cart.items == [] and cart.order_total == 0 and cart.fees.tax_rate is None
    assert cart.fulfilment_method is None and cart.order_total_formatted is None


def test_nulls_become_defaults_or_empty_strings() -> None:
    cart = Cart.model_validate(
        {
            "id": "c",
            "items": None,
            "fees": None,
            "subTotal": None,
            "restaurantDisplayName": None,
            "totalQuantity": None,
            "currency": None,
        }
    )
    assert cart.items == [] and cart.sub_total == 0 and cart.restaurant_display_name == ""
    assert cart.total_quantity == 0 and cart.currency == "usd"
    product = validate_as(MenuProduct, {"id": "p", "name": None, "modifierIds": None})
    assert product.name == "" and product.modifier_ids == ()
    # A required string that arrives as null is "" rather than a crash.
    assert Cart.model_validate({"id": None}).id == ""


def test_bad_money_in_a_cart_is_a_validation_error_not_a_wrong_price() -> None:
    with pytest.raises(ValidationError):
        Cart.model_validate(spec_cart(orderTotal="15.843"))
    with pytest.raises(ValidationError):
        Cart.model_validate(spec_cart(orderTotal=15.84))


def test_validation_errors_never_echo_input() -> None:
    with pytest.raises(ValidationError) as info:
        PaymentIntent.model_validate({"clientSecret": {"nested": "pi_SECRET"}, "amount": "x"})
    assert "pi_SECRET" not in str(info.value)


# ---------------------------------------------------------------- fulfillment methods


@pytest.mark.parametrize(
    ("sent", "expected"),
    [
        ("pickup", FulfillmentMethod.PICKUP),
        ("takeout", FulfillmentMethod.PICKUP),
        ("TAKEOUT", FulfillmentMethod.PICKUP),
        ("delivery", FulfillmentMethod.DELIVERY),
        ("dine_in", FulfillmentMethod.DINE_IN),
        ("table_service", FulfillmentMethod.TABLE_SERVICE),
        ("table_side", FulfillmentMethod.TABLE_SERVICE),
        ("table", FulfillmentMethod.TABLE_SERVICE),
        ("room_service", FulfillmentMethod.ROOM_SERVICE),
        ("roomService", FulfillmentMethod.ROOM_SERVICE),
    ],
)
def test_fulfillment_aliases(sent: str, expected: FulfillmentMethod) -> None:
    assert normalize_fulfillment(sent) is expected
    assert Cart.model_validate({"id": "c", "fulfilmentMethod": sent}).fulfilment_method is expected


def test_unknown_fulfillment_is_kept_as_a_string() -> None:
    cart = Cart.model_validate({"id": "c", "fulfilmentMethod": "drone_drop"})
    assert cart.fulfilment_method == "drone_drop"
    assert not isinstance(cart.fulfilment_method, FulfillmentMethod)
    assert set(FULFILLMENT_ALIASES.values()) <= set(FulfillmentMethod)


def test_cart_reads_the_request_spelling_too() -> None:
    cart = Cart.model_validate({"id": "c", "fulfillmentMethod": "delivery"})
    assert cart.fulfilment_method is FulfillmentMethod.DELIVERY


# ---------------------------------------------------------------- vendor fixtures


VENDOR_MODELS: dict[str, type] = {
    "cart.json": Cart,
    "catalog.json": MenusResponse,
    "customer_order.json": CustomerOrder,
    "location.json": Location,
    "loyalty.json": Loyalty,
    "merchant.json": Merchant,
    "product.json": ProductDetail,
}


def test_every_vendor_fixture_has_a_model() -> None:
    names = {p.name for p in FIXTURES.glob("*.json")}
    assert names == set(VENDOR_MODELS)
    assert (FIXTURES / "LICENSE").read_text().startswith("MIT License")
    # Beside the shared folder (a developer's machine, CI), the copies are still the vendor's.
    shared = FIXTURES.parents[3] / "shared" / "vendor-fixtures"
    for name in names if shared.is_dir() else ():
        assert (FIXTURES / name).read_bytes() == (shared / name).read_bytes(), name


@pytest.mark.parametrize("name", sorted(VENDOR_MODELS))
def test_vendor_fixture_parses(name: str) -> None:
    kind = VENDOR_MODELS[name]
    model = validate_as(kind, vendor_fixture(name))
    if issubclass(kind, BaseModel):
        assert model.model_extra is not None  # unknown fields are kept, not dropped
    else:  # the lean menu keeps only what the kiosk reads
        assert not hasattr(model, "__dict__")


def test_vendor_cart_details() -> None:
    cart = Cart.model_validate(vendor_fixture("cart.json"))
    # Decimal strings (not the spec's minor-unit strings) read by the same rule.
    assert (cart.sub_total, cart.tax_total, cart.order_total) == (500, 50, 550)
    assert cart.order_total_with_service_fee_amount == 5.5  # kept as sent
    assert cart.fulfilment_method is FulfillmentMethod.PICKUP  # "takeout"
    assert cart.model_extra is not None
    assert cart.model_extra["revision"] == 3
    assert cart.model_extra["futureServerField"] == {"ignored": True}
    item = cart.items[0]
    assert item.description is None and item.image_url is None
    assert item.model_extra is not None
    assert item.model_extra["itemUnavailableAction"] == "future_action"
    assert cart.fees.tax_rate == "0.10"
    assert cart.delivery_info is None


def test_vendor_catalog_and_product() -> None:
    menus = validate_as(MenusResponse, vendor_fixture("catalog.json"))
    product = menus.menus[0].categories[0].products[0]
    assert (product.price, product.display_price, product.is_available) == (500, "$5.00", True)
    assert product.description is None and product.modifier_ids == ("modifier_01",)
    assert menus.popular_products == ()
    detail = ProductDetail.model_validate(vendor_fixture("product.json"))
    group = detail.modifiers[0]
    assert (group.rule.min, group.rule.max, group.is_required) == (1, 1, True)
    assert group.items[0].price == 0 and group.items[0].max_quantity == 1


def test_vendor_location_and_merchant_without_optional_parts() -> None:
    location = Location.model_validate(vendor_fixture("location.json"))
    assert location.timezone is None and location.hours == [] and location.methods_status is None
    assert location.address_data is not None and location.address_data.zip_code == "10001"
    merchant = Merchant.model_validate(vendor_fixture("merchant.json"))
    first = merchant.locations[0]
    assert first.slug is None and first.location_key == "location_01"
    assert first.methods_status is not None
    assert first.methods_status.offers("pickup") and first.methods_status.offers("takeout")
    assert not first.methods_status.offers(FulfillmentMethod.ROOM_SERVICE)
    assert not first.methods_status.offers("drone")


def test_vendor_order_keeps_unknown_status() -> None:
    order = CustomerOrder.model_validate(vendor_fixture("customer_order.json"))
    assert order.status == "future_status" and order.short_id == "A100"
    assert order.fulfillment_method is FulfillmentMethod.PICKUP and order.order_total == 550


# ---------------------------------------------------------------- menus, products, modifiers


def test_menu_product_contract_shape() -> None:
    product = validate_as(
        MenuProduct,
        {
            "id": "p",
            "name": "Bagel",
            "price": "3.25",
            "displayPrice": "$3.25",
            "availability": "UNAVAILABLE",
            "images": ["https://img/x.png"],
            "modifierIds": ["g1"],
            "tags": ["vegan"],
            "calories": 320,
            "availableTimes": [{"days": ["mon"], "start": "07:00", "end": "11:00"}],
        },
    )
    assert product.price == 325 and not product.is_available
    assert product.tags == ("vegan",) and product.calories == 320
    assert product.available_times[0].start == "07:00"
    assert product.price_text("usd") == "$3.25"
    assert validate_as(MenuProduct, {"id": "q", "price": "1.5"}).price_text("gbp") == "£1.50"
    # Journey 13: a product listed without a currency (2.0's cross-sell answer) is priced in the
    # location's, in every language; never a guessed dollar.
    bare = validate_as(MenuProduct, {"id": "s", "price": "4.50"})
    assert bare.price_text("aud") == "A$4.50"
    assert bare.price_text("aud", "es").replace("\xa0", " ") == "4,50 A$"
    assert "$" not in bare.price_text("") and "US" not in bare.price_text("", "es")
    # The location's currency wins over a product's own (one currency on a screen).
    assert validate_as(MenuProduct, {"id": "u", "price": "1.00", "currency": "usd"}).price_text(
        "aud"
    ) == ("A$1.00")


def test_missing_availability_means_available() -> None:
    assert validate_as(MenuProduct, {"id": "p"}).is_available


@pytest.mark.parametrize(
    ("legacy", "rule"),
    [
        ({"required": True, "quantity": 1, "isFixed": True}, (1, 1)),
        ({"required": True, "quantity": 3, "isFixed": False}, (1, 3)),
        ({"required": False, "quantity": 2}, (0, 2)),
        ({"required": True, "quantity": 2, "isFixed": True}, (2, 2)),
        ({"required": False, "quantity": 0}, (0, None)),
        ({"required": True}, (1, None)),
        ({}, (0, None)),
    ],
)
def test_modifier_group_reads_the_legacy_trio(legacy: dict[str, Any], rule: tuple) -> None:
    group = ModifierGroup.model_validate({"id": "g", "name": "Size", **legacy})
    assert (group.rule.min, group.rule.max) == rule
    assert (group.min_selections, group.max_selections) == rule


def test_modifier_group_prefers_rule_over_legacy() -> None:
    group = ModifierGroup.model_validate(
        {"id": "g", "rule": {"min": 0, "max": 4}, "required": True, "quantity": 1}
    )
    assert (group.rule.min, group.rule.max) == (0, 4)
    assert group.required is True  # the legacy value is still there


def test_modifier_items_nested_child_groups() -> None:
    group = ModifierGroup.model_validate(
        {
            "id": "g",
            "rule": {"min": 1, "max": 1},
            "items": [
                {
                    "id": "o1",
                    "name": "Burger",
                    "price": "1.50",
                    "priceFormatted": "+$1.50",
                    "maxQuantity": 0,
                    "isDefault": True,
                    "childGroups": [
                        {
                            "groupId": "g2",
                            "group": {
                                "id": "g2",
                                "rule": {"min": 0, "max": 2},
                                "items": [{"id": "o2", "price": "0.75", "maxQuantity": 2}],
                            },
                        }
                    ],
                }
            ],
        }
    )
    item = group.items[0]
    assert item.price == 150 and item.price_formatted == "+$1.50"
    assert item.is_sold_out and item.is_default
    child = item.child_groups[0].group
    assert child is not None and child.items[0].price == 75 and child.items[0].max_quantity == 2


def test_time_intervals_tips_session_validation() -> None:
    slots = TimeIntervals.model_validate(
        {
            "orderDays": [{"value": "2026-08-10", "label": "Today", "intervals": ["12:00"]}],
            "scheduleAllowed": True,
        }
    )
    assert slots.order_days[0].intervals == ["12:00"] and slots.schedule_allowed
    tips = TipSettings.model_validate(
        {"enabled": True, "tipPercentage": [15, "18", 20], "defaultTipPercentage": 18}
    )
    assert tips.tip_percentage == ["15", "18", "20"] and tips.default_tip_percentage == "18"
    assert OrderingSession.model_validate({"cartId": "c1"}).ok
    refused = OrderingSession.model_validate({"errorMessage": "Closed"})
    assert not refused.ok and refused.cart_id == ""
    validation = CartValidation.model_validate(
        {"valid": False, "errors": [{"code": "ITEM_UNAVAILABLE", "message": "x", "itemId": "i1"}]}
    )
    assert validation.errors[0].item_id == "i1" and not validation.valid


def test_payment_intent_hides_its_secret() -> None:
    intent = PaymentIntent.model_validate(
        {"clientSecret": "pi_123_secret_ABC", "paymentIntentId": "pi_123", "amount": 1584}
    )
    assert intent.client_secret.get_secret_value() == "pi_123_secret_ABC"
    for text in (repr(intent), str(intent), intent.model_dump_json(), str(intent.model_dump())):
        assert "pi_123_secret_ABC" not in text
    assert intent.amount == 1584 and intent.amount_text() == "15.84"


# ---------------------------------------------------------------- request shapes


def test_selection_request_shape() -> None:
    selection = Selection(
        group_id="g1",
        selected_options=[
            SelectedOption(option_id="o1"),
            SelectedOption(
                option_id="o2",
                quantity=2,
                children=[
                    Selection(group_id="g2", selected_options=[SelectedOption(option_id="c")])
                ],
            ),
        ],
    )
    assert selection.to_request() == {
        "groupId": "g1",
        "selectedOptions": [
            {"optionId": "o1", "quantity": 1},
            {
                "optionId": "o2",
                "quantity": 2,
                "children": [
                    {"groupId": "g2", "selectedOptions": [{"optionId": "c", "quantity": 1}]}
                ],
            },
        ],
    }
    # Requests are strict: a typo is an error here, not a silently dropped field.
    with pytest.raises(ValidationError):
        Selection.model_validate({"groupId": "g", "selectedOption": []})
    with pytest.raises(ValidationError):
        SelectedOption(option_id="o", quantity=0)


def test_delivery_address_request_shape() -> None:
    address = DeliveryAddress(
        street="1 Main", city="Town", state="NY", zip_code="10001", country="US", lat=1.5
    )
    assert address.to_request() == {
        "street": "1 Main",
        "city": "Town",
        "state": "NY",
        "zipCode": "10001",
        "country": "US",
        "lat": 1.5,
    }
