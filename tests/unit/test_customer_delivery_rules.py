"""Delivery from a counter kiosk (kiosk.ordering.delivery), pure: whether it is offered, the
welcome form's address, its zone and the delivery radius. Found untested by the whole-module
mutation run of delivery.py (tools/mutate.py, docs/mutation.md, issue 32 item 8)."""

from __future__ import annotations

from typing import Any

import pytest

from kiosk.api.errors import InvalidRequestError
from kiosk.api.models import DeliveryAddress, Location
from kiosk.config import DeliveryZone
from kiosk.ordering.delivery import (
    address_from_form,
    delivery_offer,
    details_from_form,
    place_address,
    zone_for,
)

DOWNTOWN = DeliveryZone("Downtown", ("10007", "10038"), 40.7128, -74.006)
HARBOUR = DeliveryZone("Harbour", ("SW1A1AA",), 51.5, -0.14)
ZONES = (DOWNTOWN, HARBOUR)
FORM = {"street": "1 Main St", "city": "New York", "state": "NY", "zip": "10007"}


class _Server:
    """A client as place_address asks it: whether addresses need coordinates, and the distance
    to a point (recorded)."""

    def __init__(self, *, needs_coordinates: bool = True, miles: float = 1.0) -> None:
        self.needs_coordinates = needs_coordinates
        self.miles = miles
        self.asked: list[tuple[str, float, float]] = []

    async def distance_miles(self, location_id: str, lat: float, lng: float) -> float:
        self.asked.append((location_id, lat, lng))
        return self.miles


def _location(radius: float | None = None, country: str | None = None) -> Location:
    data: dict[str, Any] = {"id": "loc1"}
    if radius is not None:
        data["deliveryRadiusMiles"] = radius
    if country is not None:
        data["addressData"] = {"country": country}
    return Location.model_validate(data)


def _address(zip_code: str = "10007") -> DeliveryAddress:
    return DeliveryAddress(
        street="1 Main St", city="New York", state="NY", zip_code=zip_code, country="US"
    )


def test_delivery_is_offered_where_the_server_places_addresses_or_zones_are_listed() -> None:
    legacy = delivery_offer(False, ())
    assert legacy.offered
    assert legacy.why == "the server places delivery addresses itself (legacy API)"
    zoned = delivery_offer(True, ZONES)
    assert zoned.offered and zoned.why == "2 delivery zone(s), 3 postal code(s)"
    hidden = delivery_offer(True, ())
    assert not hidden.offered
    assert hidden.why.startswith("hidden: Storefront 2.0 needs coordinates")
    assert hidden.why.endswith("(add [[delivery_zones]] to config.toml)")


@pytest.mark.parametrize("typed", ["10038", " 10038 ", "100 38"])
def test_a_postal_code_finds_its_zone_however_it_is_spaced(typed: str) -> None:
    assert zone_for(typed, ZONES) is DOWNTOWN


def test_a_postal_code_finds_its_zone_in_any_case_and_an_unknown_one_none() -> None:
    assert zone_for("sw1a 1aa", ZONES) is HARBOUR
    assert zone_for("90210", ZONES) is None
    assert zone_for("10007", ()) is None


def test_the_welcome_forms_address_in_the_locations_country() -> None:
    address = address_from_form({**FORM, "street2": "Apt 4"}, _location(country="CA"))
    assert address == DeliveryAddress(
        street="1 Main St",
        street_optional="Apt 4",
        city="New York",
        state="NY",
        zip_code="10007",
        country="CA",
    )
    assert address_from_form({**FORM, "street2": ""}, _location()).street_optional is None
    assert address_from_form(FORM, None).country == "US"
    assert address_from_form(FORM, _location()).country == "US"


async def test_a_legacy_server_takes_the_address_as_given() -> None:
    server = _Server(needs_coordinates=False)
    address = _address("99999")
    assert await place_address(server, "loc1", address, (), None) is address  # type: ignore[arg-type]
    assert server.asked == []


async def test_an_address_is_placed_at_its_zones_point() -> None:
    server = _Server(miles=2.0)
    placed = await place_address(server, "loc1", _address(), ZONES, _location(radius=5))  # type: ignore[arg-type]
    assert (placed.lat, placed.lng) == (DOWNTOWN.lat, DOWNTOWN.lng)
    assert placed.model_dump(exclude={"lat", "lng"}) == _address().model_dump(
        exclude={"lat", "lng"}
    )
    assert server.asked == [("loc1", DOWNTOWN.lat, DOWNTOWN.lng)]


async def test_a_postal_code_in_no_zone_is_refused_at_the_field() -> None:
    server = _Server()
    with pytest.raises(InvalidRequestError) as caught:
        await place_address(server, "loc1", _address("90210"), ZONES, None)  # type: ignore[arg-type]
    refusal = caught.value
    assert (refusal.code, refusal.field) == ("OUT_OF_DELIVERY_AREA", "zipCode")
    assert refusal.message == "We don't deliver to this postal code from here."
    assert server.asked == []


@pytest.mark.parametrize(("miles", "taken"), [(4.9, True), (5.0, True), (5.1, False)])
async def test_an_address_up_to_the_delivery_radius_is_taken_and_no_farther(
    miles: float, taken: bool
) -> None:
    server = _Server(miles=miles)
    if taken:
        await place_address(server, "loc1", _address(), ZONES, _location(radius=5))  # type: ignore[arg-type]
        return
    with pytest.raises(InvalidRequestError) as caught:
        await place_address(server, "loc1", _address(), ZONES, _location(radius=5))  # type: ignore[arg-type]
    refusal = caught.value
    assert (refusal.code, refusal.field) == ("OUT_OF_DELIVERY_AREA", "zipCode")
    assert refusal.message == "This address is 5.1 miles away; we deliver up to 5 miles."


async def test_without_a_radius_any_distance_in_a_zone_is_taken() -> None:
    far = _Server(miles=500.0)
    for location in (None, _location()):
        placed = await place_address(far, "loc1", _address(), ZONES, location)  # type: ignore[arg-type]
        assert placed.lat == DOWNTOWN.lat


async def test_the_welcome_form_gives_each_way_its_own_details() -> None:
    server = _Server(miles=1.0)

    async def details(method: str, form: dict[str, str]) -> dict[str, Any]:
        return await details_from_form(method, form, None, lambda: server, "loc1", ZONES)  # type: ignore[arg-type,return-value]

    assert await details("table_service", {"table": "12"}) == {"table_number": "12"}
    assert await details("room_service", {"last_name": "Okafor", "room": "304"}) == {
        "room": ("Okafor", "304")
    }
    delivery = await details("delivery", FORM)
    assert delivery["delivery"].zip_code == "10007"
    assert delivery["delivery"].lat == DOWNTOWN.lat
    assert await details("pickup", {}) == {}
