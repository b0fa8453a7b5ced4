"""Delivery from a counter kiosk: where an address is, and whether to offer delivery at all.

Storefront 2.0 takes a delivery address only with its coordinates, and a counter terminal has no
map. So delivery is offered on 2.0 only when the merchant lists delivery zones (config.toml
`[[delivery_zones]]`: postal codes and the point that stands for them); an address whose postal
code is in no zone is refused here, at the field, before anything is sent. The legacy API takes
an address without coordinates (the server places it), so there delivery needs no zones.

A geocoder (an address-to-coordinates service) would lift the zone list; none is wired in yet.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from kiosk.api.errors import InvalidRequestError
from kiosk.config import DeliveryZone
from kiosk.i18n import _

if TYPE_CHECKING:
    from kiosk.api import StorefrontBase
    from kiosk.api.models import DeliveryAddress, Location

__all__ = [
    "DeliveryOffer",
    "address_from_form",
    "delivery_offer",
    "details_from_form",
    "place_address",
    "zone_for",
]

log = logging.getLogger("kiosk.ordering")


@dataclass(frozen=True, slots=True)
class DeliveryOffer:
    """Whether this kiosk offers delivery, and why (for the staff screen)."""

    offered: bool
    why: str


def delivery_offer(needs_coordinates: bool, zones: Sequence[DeliveryZone]) -> DeliveryOffer:
    if not needs_coordinates:
        return DeliveryOffer(True, "the server places delivery addresses itself (legacy API)")
    if zones:
        codes = sum(len(z.postal_codes) for z in zones)
        return DeliveryOffer(True, f"{len(zones)} delivery zone(s), {codes} postal code(s)")
    return DeliveryOffer(
        False,
        "hidden: Storefront 2.0 needs coordinates with every address and this kiosk has no "
        "delivery zones (add [[delivery_zones]] to config.toml)",
    )


def zone_for(postal_code: str, zones: Sequence[DeliveryZone]) -> DeliveryZone | None:
    wanted = postal_code.strip().upper().replace(" ", "")
    return next((z for z in zones if wanted in z.postal_codes), None)


def address_from_form(details: Mapping[str, str], location: Location | None) -> DeliveryAddress:
    """The welcome screen's address fields as an address (the country the location's own)."""
    from kiosk.api.models import DeliveryAddress

    data = location.address_data if location is not None else None
    return DeliveryAddress(
        street=details["street"],
        street_optional=details.get("street2") or None,
        city=details["city"],
        state=details["state"],
        zip_code=details["zip"],
        country=(data.country if data is not None else None) or "US",
    )


async def place_address(
    client: StorefrontBase,
    location_id: str,
    address: DeliveryAddress,
    zones: Sequence[DeliveryZone],
    location: Location | None,
) -> DeliveryAddress:
    """The address with the coordinates the API needs, from the merchant's delivery zones,
    and within the location's delivery radius when the server gives one (the API's distance
    operation measures it). Refused at the postal-code field before anything is written."""
    if not client.needs_coordinates:
        return address
    zone = zone_for(address.zip_code, zones)
    if zone is None:
        raise InvalidRequestError(
            _("We don't deliver to this postal code from here."),
            code="OUT_OF_DELIVERY_AREA",
            field="zipCode",
        )
    placed = address.model_copy(update={"lat": zone.lat, "lng": zone.lng})
    radius = location.delivery_radius_miles if location is not None else None
    miles = await client.distance_miles(location_id, zone.lat, zone.lng)
    log.info("delivery zone %r is %.1f miles away", zone.name, miles)
    if radius is not None and miles > radius:
        raise InvalidRequestError(
            _("This address is {miles} miles away; we deliver up to {radius} miles.").format(
                miles=f"{miles:.1f}", radius=f"{radius:g}"
            ),
            code="OUT_OF_DELIVERY_AREA",
            field="zipCode",
        )
    return placed


async def details_from_form(
    method: str,
    details: Mapping[str, str],
    location: Location | None,
    client: Callable[[], StorefrontBase],
    location_id: str,
    zones: Sequence[DeliveryZone],
) -> dict[str, Any]:
    """The welcome screen's fields for `method` as the details an ordering session starts with:
    the table, the room, or the address placed in its zone (`place_address`)."""
    if method == "table_service":
        return {"table_number": details["table"]}
    if method == "room_service":
        return {"room": (details["last_name"], details["room"])}
    if method == "delivery":
        address = address_from_form(details, location)
        return {"delivery": await place_address(client(), location_id, address, zones, location)}
    return {}
