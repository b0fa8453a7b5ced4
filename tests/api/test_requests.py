"""Every contract row: the request the client sends (method, path, query, JSON body, key) and how
the reply is parsed."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

import httpx
import pytest
from pydantic import SecretStr

from kiosk.api import (
    ENDPOINTS,
    Cart,
    CartValidation,
    DeliveryAddress,
    FulfillmentMethod,
    InvalidRequestError,
    Location,
    MenuProduct,
    MenusResponse,
    Merchant,
    NotFoundError,
    OrderingSession,
    PaymentIntent,
    ProductDetail,
    ResponseFormatError,
    SelectedOption,
    Selection,
    StorefrontClient,
    TimeIntervals,
    TipSettings,
)

from .conftest import API_KEY, BASE, ClientFactory, Server, ok, spec_cart

PRODUCT = {"id": "prod_1", "name": "Latte", "price": "6.25", "displayPrice": "$6.25"}
CART_REPLY = {"cartId": "cart_1", "cart": spec_cart()}
SELECTION = Selection(
    group_id="g_size", selected_options=[SelectedOption(option_id="o_large", quantity=1)]
)


@dataclass
class Case:
    endpoint: str
    call: Callable[[StorefrontClient], Awaitable[Any]]
    method: str
    path: str
    reply: Any
    check: Callable[[Any], bool]
    body: Any = None
    query: dict[str, str] | None = None


CASES = [
    Case(
        "merchant",
        lambda c: c.get_merchant("demo-cafe"),
        "GET",
        "/merchant/demo-cafe",
        {"id": "m1", "name": "Demo", "currency": "usd", "locations": [{"id": "loc_1"}]},
        lambda r: isinstance(r, Merchant) and r.locations[0].id == "loc_1",
    ),
    Case(
        "location",
        lambda c: c.get_location("loc_1"),
        "GET",
        "/locations/loc_1",
        {"id": "loc_1", "timezone": "America/New_York", "hours": [{"day": "mon", "open": "08:00"}]},
        lambda r: isinstance(r, Location) and r.timezone == "America/New_York" and r.hours[0].open,
    ),
    Case(
        "time_intervals",
        lambda c: c.get_time_intervals("loc_1"),
        "GET",
        "/locations/loc_1/time-intervals",
        {"orderDays": [{"value": "2026-08-10", "intervals": ["12:00", "12:15"]}]},
        lambda r: isinstance(r, TimeIntervals) and r.order_days[0].intervals[1] == "12:15",
    ),
    Case(
        "gratuity",
        lambda c: c.get_gratuity("loc_1"),
        "GET",
        "/locations/loc_1/gratuity",
        {"enabled": True, "tipPercentage": ["15", "18", "20"], "defaultTipPercentage": "18"},
        lambda r: isinstance(r, TipSettings) and r.enabled and r.default_tip_percentage == "18",
    ),
    Case(
        "menus",
        lambda c: c.get_menus("loc_1", "2026-08-10", "12:30"),
        "GET",
        "/locations/loc_1/menus",
        {"menus": [{"id": "m", "categories": [{"id": "c", "products": [PRODUCT]}]}]},
        lambda r: (
            isinstance(r, MenusResponse) and r.menus[0].categories[0].products[0].price == 625
        ),
        query={"orderDate": "2026-08-10", "orderTime": "12:30"},
    ),
    Case(
        "products",
        lambda c: c.list_products("loc_1"),
        "GET",
        "/locations/loc_1/products",
        [PRODUCT, {**PRODUCT, "id": "prod_2"}],
        lambda r: [p.id for p in r] == ["prod_1", "prod_2"] and isinstance(r[0], MenuProduct),
    ),
    Case(
        "product",
        lambda c: c.get_product("loc_1", "prod_1"),
        "GET",
        "/locations/loc_1/products/prod_1",
        {**PRODUCT, "modifiers": [{"id": "g_size", "rule": {"min": 1, "max": 1}, "items": []}]},
        lambda r: isinstance(r, ProductDetail) and r.modifiers[0].is_required,
    ),
    Case(
        "ordering_session",
        lambda c: c.start_ordering_session(
            "loc_1", FulfillmentMethod.PICKUP, existing_cart_id="cart_0", marketplace_id="loc_1"
        ),
        "POST",
        "/locations/loc_1/ordering-sessions",
        {"cartId": "cart_1"},
        lambda r: isinstance(r, OrderingSession) and r.cart_id == "cart_1" and r.ok,
        body={"fulfillmentMethod": "pickup", "existingCartId": "cart_0", "marketplaceId": "loc_1"},
    ),
    Case(
        "create_cart",
        lambda c: c.create_or_resume_cart("loc_1"),
        "POST",
        "/locations/loc_1/carts",
        {"cartId": "cart_1"},
        lambda r: r == "cart_1",
        body={"marketplaceId": "loc_1", "currentCartId": ""},
    ),
    Case(
        "cart",
        lambda c: c.get_cart("loc_1", "cart_1"),
        "GET",
        "/locations/loc_1/carts/cart_1",
        spec_cart(),
        lambda r: isinstance(r, Cart) and r.order_total == 1584,
    ),
    Case(
        "delete_cart",
        lambda c: c.delete_cart("loc_1", "cart_1"),
        "DELETE",
        "/locations/loc_1/carts/cart_1",
        {"success": True},
        lambda r: r is None,
    ),
    Case(
        "add_item",
        lambda c: c.add_item(
            "loc_1",
            "cart_1",
            "prod_1",
            2,
            modifiers=[SELECTION, {"groupId": "g_milk", "selectedOptions": []}],
            special_instructions="no foam",
        ),
        "POST",
        "/locations/loc_1/carts/cart_1/cart-item",
        CART_REPLY,
        lambda r: isinstance(r, Cart) and r.items[0].quantity == 2,
        body={
            "productId": "prod_1",
            "quantity": 2,
            "modifiers": [
                {"groupId": "g_size", "selectedOptions": [{"optionId": "o_large", "quantity": 1}]},
                {"groupId": "g_milk", "selectedOptions": []},
            ],
            "specialInstructions": "no foam",
        },
    ),
    Case(
        "item_quantity",
        lambda c: c.set_item_quantity("loc_1", "cart_1", "item_1", 0),
        "PATCH",
        "/locations/loc_1/carts/cart_1/cart-item/item_1/quantity",
        CART_REPLY,
        lambda r: isinstance(r, Cart),
        body={"quantity": 0},
    ),
    Case(
        "order_time",
        lambda c: c.set_order_time("loc_1", "cart_1", "LATER", "2026-08-10", "18:30"),
        "PUT",
        "/locations/loc_1/carts/cart_1/update-order-time",
        {"success": True},
        lambda r: r is None,
        body={"pickupType": "LATER", "orderDate": "2026-08-10", "orderTime": "18:30"},
    ),
    Case(
        "customer",
        lambda c: c.update_customer("loc_1", "cart_1", "Ada", "ada@example.test"),
        "PUT",
        "/locations/loc_1/cart/cart_1/validate-and-update",
        {"success": True},
        lambda r: r is None,
        body={"customerName": "Ada", "emailAddress": "ada@example.test"},
    ),
    Case(
        "tip",
        lambda c: c.set_tip("loc_1", "cart_1", percentage="18"),
        "PUT",
        "/locations/loc_1/carts/cart_1/gratuity",
        spec_cart(),
        lambda r: isinstance(r, Cart) and r.waiter_tip_total == 225,
        body={"percentage": "18"},
    ),
    Case(
        "delivery",
        lambda c: c.set_delivery(
            "loc_1",
            "cart_1",
            DeliveryAddress(street="1 Main", city="Town", state="NY", zip_code="1", country="US"),
        ),
        "PUT",
        "/locations/loc_1/carts/cart_1/set-delivery",
        spec_cart(deliveryInfo={"addressString": "1 Main, Town"}),
        lambda r: r.delivery_info.address_string == "1 Main, Town",
        body={"street": "1 Main", "city": "Town", "state": "NY", "zipCode": "1", "country": "US"},
    ),
    Case(
        "table",
        lambda c: c.set_table("loc_1", "cart_1", "12"),
        "PUT",
        "/locations/loc_1/carts/cart_1/set-table",
        spec_cart(tableServiceInfo={"tableNumber": "12"}),
        lambda r: r.table_service_info.table_number == "12",
        body={"tableNumber": "12"},
    ),
    Case(
        "room",
        lambda c: c.set_room("loc_1", "cart_1", "Doe", "204"),
        "PUT",
        "/locations/loc_1/carts/cart_1/set-room",
        spec_cart(roomServiceInfo={"lastName": "Doe", "roomNumber": "204"}),
        lambda r: r.room_service_info.last_name == "Doe",
        body={"lastName": "Doe", "roomNumber": "204"},
    ),
    Case(
        "apply_discount",
        lambda c: c.apply_discount("loc_1", "cart_1", "SAVE10"),
        "POST",
        "/locations/loc_1/discounts/apply-discount",
        {"success": True},
        lambda r: r is None,
        body={"code": "SAVE10", "cartId": "cart_1"},
    ),
    Case(
        "remove_discount",
        lambda c: c.remove_discount("loc_1", "cart_1"),
        "DELETE",
        "/locations/loc_1/carts/cart_1/discount",
        spec_cart(),
        lambda r: isinstance(r, Cart) and r.discount_code is None,
    ),
    Case(
        "validate",
        lambda c: c.validate_cart("loc_1", "cart_1"),
        "POST",
        "/locations/loc_1/carts/cart_1/validate",
        {"valid": False, "errors": [{"code": "MINIMUM_ORDER_NOT_MET", "message": "Min $10"}]},
        lambda r: isinstance(r, CartValidation) and r.errors[0].code == "MINIMUM_ORDER_NOT_MET",
    ),
    Case(
        "cross_sell",
        lambda c: c.cross_sell("loc_1", "cart_1"),
        "GET",
        "/locations/loc_1/carts/cart_1/products",
        [PRODUCT],
        lambda r: r[0].display_price == "$6.25",
    ),
    Case(
        "payment_intent",
        lambda c: c.create_payment_intent("loc_1", "cart_1"),
        "POST",
        "/locations/loc_1/carts/cart_1/payment-intent",
        {
            "clientSecret": "pi_1_secret_x",
            "paymentIntentId": "pi_1",
            "amount": 1639,
            "currency": "usd",
        },
        lambda r: (
            isinstance(r, PaymentIntent) and r.amount == 1639 and r.payment_intent_id == "pi_1"
        ),
    ),
]


def test_cases_cover_every_row_of_the_table() -> None:
    rows = {e.contract_row for e in ENDPOINTS.values() if e.contract_row is not None}
    assert rows == set(range(1, 25))
    outside = {"demo_confirm", "test_payment_offered", "test_payment"}
    assert {c.endpoint for c in CASES} | outside == set(ENDPOINTS)


@pytest.mark.parametrize("case", CASES, ids=[c.endpoint for c in CASES])
async def test_endpoint_request_and_response(
    case: Case, client: StorefrontClient, server: Server
) -> None:
    server.reply(ok(case.reply))
    result = await case.call(client)
    assert case.check(result)
    assert len(server.requests) == 1
    request = server.last
    assert request.method == case.method
    assert request.url.host == "api.example.test"
    assert request.url.path == "/api/v1" + case.path
    assert dict(request.url.params) == (case.query or {})
    assert request.headers["X-API-Key"] == API_KEY
    assert server.body() == case.body
    if case.body is not None:
        assert request.headers["Content-Type"] == "application/json"
    # The path in the table is the path that was sent.
    template = ENDPOINTS[case.endpoint]
    assert template.method == case.method
    assert client.stats.by_endpoint == {case.endpoint: 1}
    assert client.stats.by_method == {case.method: 1}


async def test_set_tip_amount_is_sent_as_a_decimal_string(
    client: StorefrontClient, server: Server
) -> None:
    server.reply(ok(spec_cart()))
    await client.set_tip("loc_1", "cart_1", amount_minor=500)
    assert server.body() == {"amount": "5.00"}


async def test_set_tip_needs_exactly_one_form(client: StorefrontClient) -> None:
    with pytest.raises(ValueError):
        await client.set_tip("loc_1", "cart_1")
    with pytest.raises(ValueError):
        await client.set_tip("loc_1", "cart_1", percentage="18", amount_minor=100)
    with pytest.raises(ValueError):
        await client.set_tip("loc_1", "cart_1", amount_minor=-1)


async def test_demo_confirm_goes_to_the_origin_outside_api_v1(
    client: StorefrontClient, server: Server
) -> None:
    server.reply(ok({"success": True}))
    await client.confirm_demo_payment(SecretStr("pi_1_secret_x"), "4242 4242 4242 4242")
    assert str(server.last.url) == "https://api.example.test/demo/processor/confirm"
    assert server.last.method == "POST"
    assert server.body() == {"clientSecret": "pi_1_secret_x", "cardNumber": "4242 4242 4242 4242"}


async def test_the_test_payment_is_found_and_paid_on_the_origin(
    client: StorefrontClient, server: Server
) -> None:
    # docs/api.md, "A test payment": a GET says the server has one, a POST pays a hand-off.
    server.reply(ok({"testPayment": True}), ok({"status": "succeeded"}))
    assert await client.test_payment_offered()
    assert str(server.last.url) == "https://api.example.test/.well-known/storefront-test-payment"
    assert server.last.method == "GET"
    await client.pay_test_order("https://pay.example.test/h/1")
    assert server.last.method == "POST"
    assert server.body() == {"checkoutUrl": "https://pay.example.test/h/1"}
    # A server without one (the hosted service): a 404, read as no.
    server.reply(httpx.Response(404, json={"error": "Not found"}))
    assert not await client.test_payment_offered()


async def test_menus_without_date_send_no_query(client: StorefrontClient, server: Server) -> None:
    server.reply(ok({"menus": []}))
    await client.get_menus("loc_1")
    assert server.last.url.query == b""


async def test_create_or_resume_sends_the_current_cart(
    client: StorefrontClient, server: Server
) -> None:
    server.reply(ok({"cartId": "cart_9"}))
    assert await client.create_or_resume_cart("loc_1", "cart_9") == "cart_9"
    assert server.body() == {"marketplaceId": "loc_1", "currentCartId": "cart_9"}


async def test_ordering_session_minimal_body_and_refusal(
    client: StorefrontClient, server: Server
) -> None:
    server.reply(ok({"errorMessage": "Ordering is closed"}))
    session = await client.start_ordering_session("loc_1", "delivery")
    assert server.body() == {"fulfillmentMethod": "delivery"}
    assert not session.ok and session.error_message == "Ordering is closed"


async def test_path_parameters_are_encoded_as_one_segment(
    client: StorefrontClient, server: Server
) -> None:
    server.reply(ok(spec_cart()))
    await client.get_cart("my loc/1", "cart?x=1")
    assert server.last.url.raw_path == b"/api/v1/locations/my%20loc%2F1/carts/cart%3Fx%3D1"


@pytest.mark.parametrize("bad", ["", "   "])
async def test_empty_ids_are_refused_before_sending(
    client: StorefrontClient, server: Server, bad: str
) -> None:
    with pytest.raises(ValueError):
        await client.get_cart("loc_1", bad)
    assert server.requests == []


async def test_quantities_are_checked_before_sending(
    client: StorefrontClient, server: Server
) -> None:
    with pytest.raises(ValueError):
        await client.add_item("loc_1", "cart_1", "prod_1", 0)
    with pytest.raises(ValueError):
        await client.set_item_quantity("loc_1", "cart_1", "item_1", -1)
    assert server.requests == []


# ---------------------------------------------------------------- tolerated reply shapes


async def test_write_reply_may_be_a_bare_cart(client: StorefrontClient, server: Server) -> None:
    server.reply(ok(spec_cart(totalQuantity=5)))
    cart = await client.add_item("loc_1", "cart_1", "prod_1", 1)
    assert cart.total_quantity == 5 and len(server.requests) == 1


async def test_write_reply_without_a_cart_reads_it_back(
    client: StorefrontClient, server: Server
) -> None:
    server.reply(ok({"cartId": "cart_2"}), ok(spec_cart(id="cart_2")))
    cart = await client.set_table("loc_1", "cart_1", "7")
    assert cart.id == "cart_2"
    assert [r.method for r in server.requests] == ["PUT", "GET"]
    assert server.requests[1].url.path == "/api/v1/locations/loc_1/carts/cart_2"


async def test_list_replies_may_be_wrapped(client: StorefrontClient, server: Server) -> None:
    server.reply(ok({"products": [PRODUCT]}), ok({"products": [PRODUCT]}))
    assert [p.id for p in await client.list_products("loc_1")] == ["prod_1"]
    assert [p.id for p in await client.cross_sell("loc_1", "cart_1")] == ["prod_1"]


async def test_get_cart_reply_may_be_wrapped(client: StorefrontClient, server: Server) -> None:
    server.reply(ok({"cart": spec_cart()}))
    assert (await client.get_cart("loc_1", "cart_1")).id == "cart_1"


@pytest.mark.parametrize(
    "reply",
    [
        httpx.Response(200, text="<html>gateway</html>"),
        httpx.Response(200, json=[1, 2, 3]),
        httpx.Response(200, json={"items": "nope"}),
    ],
)
async def test_unreadable_success_is_a_response_format_error(
    client: StorefrontClient, server: Server, reply: httpx.Response
) -> None:
    server.reply(reply)
    with pytest.raises(ResponseFormatError) as info:
        await client.get_cart("loc_1", "cart_1")
    assert info.value.endpoint == "cart"
    assert len(server.requests) == 1  # not retried: the server answered


async def test_create_cart_without_an_id_is_a_format_error(
    client: StorefrontClient, server: Server
) -> None:
    server.reply(ok({"success": True}))
    with pytest.raises(ResponseFormatError):
        await client.create_or_resume_cart("loc_1")


async def test_a_success_status_saying_success_false_is_an_error(
    client: StorefrontClient, server: Server
) -> None:
    server.reply(ok({"success": False, "message": "Invalid discount code", "code": "INVALID"}))
    with pytest.raises(InvalidRequestError) as info:
        await client.apply_discount("loc_1", "cart_1", "NOPE")
    assert info.value.message == "Invalid discount code"
    server.reply(ok({"success": False, "message": "Gone", "code": "NOT_FOUND"}))
    with pytest.raises(NotFoundError):
        await client.apply_discount("loc_1", "cart_1", "NOPE")


async def test_empty_success_body_is_fine_for_a_none_result(
    client: StorefrontClient, server: Server
) -> None:
    server.reply(httpx.Response(204))
    assert await client.delete_cart("loc_1", "cart_1") is None


# ---------------------------------------------------------------- construction


@pytest.mark.parametrize(
    "base", ["https://api.example.test", "ftp://x/api/v1", "api.example.test/api/v1", ""]
)
def test_base_url_must_be_http_and_end_with_api_v1(base: str) -> None:
    with pytest.raises(ValueError):
        StorefrontClient(base, API_KEY)


def test_base_url_trailing_slash_is_fine() -> None:
    client = StorefrontClient(BASE + "/", API_KEY)
    assert client.base_url == BASE


def test_api_key_is_required() -> None:
    with pytest.raises(ValueError):
        StorefrontClient(BASE, "")


async def test_context_manager_closes_the_one_http_client(make_client: ClientFactory) -> None:
    async with make_client() as client:
        assert not client.is_closed
    assert client.is_closed


def test_menu_ttl_is_clamped_to_the_spec_window(make_client: ClientFactory) -> None:
    assert make_client(menu_ttl=10).menu_ttl == 300
    assert make_client(menu_ttl=450).menu_ttl == 450
    assert make_client(menu_ttl=3600).menu_ttl == 600
