"""The lean menu: the client's menu records (slotted, validated by pydantic from the payload) carry
everything the screens and the opened product read, and bad data is a clear error at once."""

from __future__ import annotations

from typing import Any

import httpx
import pytest

from kiosk.api import (
    MenuProduct,
    MenusResponse,
    ProductDetail,
    ResponseFormatError,
    StorefrontClient,
)
from kiosk.api.models import validate_as
from kiosk.api.money import MAJOR_UNITS

from .conftest import Server, ok

FULL = {
    "id": "prd_1",
    "name": "Bagel \x1b[31m",
    "description": "Toasted",
    "price": "3.25",
    "displayPrice": "$3.25",
    "currency": "gbp",
    "availability": "UNAVAILABLE",
    "images": ["https://img/x.png"],
    "modifierIds": ["g1", "g2"],
    "tags": ["vegan", 7, None],
    "calories": 320.0,
    "availableTimes": [{"days": ["mon", "tue"], "start": "07:00", "end": "11:00"}],
    "futureField": {"kept": "by the detail only"},
}
SPARSE = {
    "id": 42,
    "name": None,
    "price": None,
    "availability": None,
    "tags": None,
    "modifier_ids": None,
    "available_times": None,
}


@pytest.mark.parametrize("payload", [FULL, SPARSE, {"id": "p", "price": 1250}])
@pytest.mark.parametrize("major_units", [False, True])
def test_a_listed_product_carries_what_its_detail_reads(
    payload: dict[str, Any], major_units: bool
) -> None:
    marker = MAJOR_UNITS.set(major_units)  # the 2.0 rule for amounts, as v2's parse sets it
    try:
        listed = validate_as(MenuProduct, payload)
        full = ProductDetail.model_validate(payload)
    finally:
        MAJOR_UNITS.reset(marker)
    from_listed = ProductDetail.from_listed(listed)
    extras = set(full.model_extra or {})
    assert from_listed.model_dump() == full.model_dump(exclude=extras)
    assert (listed.is_available, listed.price_text("usd")) == (
        full.is_available,
        full.price_text("usd"),
    )


def test_lean_records_keep_no_extras_and_share_repeated_text() -> None:
    one, two = (validate_as(MenuProduct, {**FULL, "id": i}) for i in ("a", "b"))
    assert not hasattr(one, "__dict__")  # slotted: no per-instance dict, no extras
    assert one.tags == ("vegan", "7") and one.calories == 320
    assert one.available_times[0].days == ("mon", "tue")
    assert one.availability is two.availability and one.tags[0] is two.tags[0]
    with pytest.raises(AttributeError):
        one.name = "changed"  # type: ignore[misc]


def test_a_bare_payload_and_nulls_read_as_defaults() -> None:
    menus = validate_as(
        MenusResponse,
        {"menus": [{"id": "m", "isActive": None, "categories": None}], "popularProducts": None},
    )
    assert menus.menus[0].is_active and menus.menus[0].categories == ()
    assert menus.popular_products == ()


def menus_with(product: Any) -> dict[str, Any]:
    return {"menus": [{"id": "m", "categories": [{"id": "c", "products": [product]}]}]}


@pytest.mark.parametrize(
    ("product", "where"),
    [
        ({"id": "p", "price": 12.5}, "products.0.price"),  # a float is never a price
        ({"id": "p", "price": "sk_live_SECRET1"}, "products.0.price"),
        ({"id": "p", "tags": {"a": 1}}, "products.0.tags"),
        ({"name": "no id"}, "products.0.id"),
        ({"id": "p", "availableTimes": "06:00-11:00"}, "products.0.availableTimes"),
        ("not a product", "products.0"),
    ],
)
async def test_bad_menu_data_is_a_format_error_that_says_where(
    client: StorefrontClient, server: Server, product: Any, where: str
) -> None:
    server.reply(ok(menus_with(product)))
    with pytest.raises(ResponseFormatError) as info:
        await client.get_menus("loc_1")
    assert info.value.endpoint == "menus"
    details = str(info.value.details)
    assert where in details
    assert "SECRET" not in details and "SECRET" not in str(info.value)  # input never repeated
    # Not cached: the next read asks again and gets the good menu.
    server.reply(ok(menus_with({"id": "p", "price": "1.00"})))
    menus = await client.get_menus("loc_1")
    assert menus.menus[0].categories[0].products[0].price == 100


async def test_a_bad_product_in_the_product_list_is_a_format_error(
    client: StorefrontClient, server: Server
) -> None:
    server.reply(ok({"products": [{"id": "p1"}, {"id": "p2", "modifierIds": 3}]}))
    with pytest.raises(ResponseFormatError):
        await client.list_products("loc_1")
    server.reply(httpx.Response(200, json=[{"id": "p1", "tags": ["hot"]}]))
    (product,) = await client.list_products("loc_1")
    assert isinstance(product, MenuProduct) and product.tags == ("hot",)
