"""The vendor's request rules as the kiosk reads them (kiosk/api/request_schema.py): which members
a body must carry, the limits the screens quote, and what a refusal names. test_request_schema.py
has the schemas' extraction and the client's refusals."""

from __future__ import annotations

from typing import Any

import pytest

from kiosk.api.errors import InvalidRequestError
from kiosk.api.request_schema import check_body, extract, field_limit, main, required_fields

CART = "/locations/{locationId}/carts/{cartId}"
ROOM = f"PUT {CART}/set-room"
DISCOUNT = f"POST {CART}/discount"
ITEMS = f"POST {CART}/items"
ORDER_TIME = f"PUT {CART}/update-order-time"


def test_the_members_a_body_must_carry_are_the_vendors() -> None:
    assert required_fields(ROOM) == {"lastName", "roomNumber"}
    assert required_fields(DISCOUNT) == {"code"}
    assert required_fields(f"DELETE {CART}") == frozenset()  # a body with nothing required
    assert required_fields("GET /nowhere") == frozenset()  # no body documented


def test_a_document_without_a_version_says_so_in_the_extracts_source() -> None:
    extracted = extract({"paths": {}}, [])
    assert "(Crave Storefront API ?)" in extracted["source"]
    assert extracted["operations"] == {} and extracted["components"] == {"schemas": {}}


@pytest.mark.parametrize(
    ("field", "keyword", "limit"),
    [
        ("code", "maxLength", 24),
        ("code", "minLength", 6),
        ("customerName", "maxLength", 100),
        ("orderTime", "maxLength", 32),  # in the second branch of the order time's oneOf
        ("lat", "minimum", -90),  # a component's member
        ("emailAddress", "format", None),  # not a number: no limit
        ("code", "maximum", None),
        ("nickname", "maxLength", None),
    ],
)
def test_the_limits_the_screens_quote_are_the_vendors(
    field: str, keyword: str, limit: int | None
) -> None:
    assert field_limit(field, keyword) == limit


def refusal(key: str, body: Any) -> InvalidRequestError:
    with pytest.raises(InvalidRequestError) as info:
        check_body(key, body, endpoint="row")
    assert info.value.code == "VALIDATION_ERROR" and info.value.endpoint == "row"
    assert info.value.details["origin"] == "kiosk"
    return info.value


def test_a_body_within_the_rules_is_let_through() -> None:
    check_body(DISCOUNT, {"code": "SAVE10NOW"})
    check_body(ROOM, {"lastName": "Lovelace", "roomNumber": "12"})
    check_body("GET /nowhere", {"anything": 1})  # no documented body: nothing to hold it to


def test_a_refusal_names_the_field_and_quotes_its_limits() -> None:
    short = refusal(DISCOUNT, {"code": "AB1"})
    assert short.field == "code"
    assert short.details == {
        "rule": "minLength",
        "origin": "kiosk",
        "minLength": 6,
        "maxLength": 24,
    }
    shape = refusal(DISCOUNT, {"code": "ab-12345"})
    assert shape.field == "code" and shape.details["rule"] == "pattern"
    assert shape.details["maxLength"] == 24  # a pattern failure still says how long it may be


def test_a_missing_member_is_named() -> None:
    missing = refusal(ROOM, {"roomNumber": "12"})
    assert missing.field == "lastName" and missing.details["rule"] == "required"
    assert missing.details["minLength"] == 1 and missing.details["maxLength"] == 100
    assert "lastName" in missing.message


def test_a_member_the_vendor_does_not_know_is_named() -> None:
    extra = refusal(ROOM, {"lastName": "L", "roomNumber": "12", "floor": "3"})
    assert extra.field == "floor" and extra.details["rule"] == "additionalProperties"


def test_a_body_that_is_not_an_object_names_no_field() -> None:
    odd = refusal(ROOM, ["lastName"])
    assert odd.field is None and odd.details == {"rule": "type", "origin": "kiosk"}
    assert "the request" in odd.message


LINE = {"productId": "prod_1", "quantity": 1, "itemUnavailableAction": "remove_item"}


def test_a_line_of_a_shared_schema_quotes_the_limits_of_the_rule_it_broke() -> None:
    # The line's schema is a component: the limits come from the rule itself.
    none = refusal(ITEMS, {**LINE, "quantity": 0})
    assert none.field == "quantity"
    assert none.details == {"rule": "minimum", "origin": "kiosk", "minimum": 1, "maximum": 99}
    choice = {"groupId": "g", "selectedOptions": [{"optionId": "o", "quantity": 100}]}
    deep = refusal(ITEMS, {**LINE, "selections": [choice]})
    assert deep.field == "selections"  # the body's own member, however deep the rule
    assert deep.details["rule"] == "maximum" and deep.details["maximum"] == 99
    check_body(ITEMS, LINE)


def test_an_order_time_in_neither_shape_names_no_field() -> None:
    odd = refusal(ORDER_TIME, {"pickupType": "SOON"})
    assert odd.field is None and odd.details == {"rule": "oneOf", "origin": "kiosk"}
    check_body(ORDER_TIME, {"pickupType": "ASAP"})
    check_body(ORDER_TIME, {"pickupType": "LATER", "orderDate": "2026-08-10", "orderTime": "12:00"})


def test_the_regeneration_command_says_how_it_is_used(capsys: pytest.CaptureFixture[str]) -> None:
    assert main([]) == 2
    assert main(["a.json", "b.json"]) == 2
    said = capsys.readouterr()
    assert said.out == "" and said.err.startswith("usage: python -m kiosk.api.request_schema ")
