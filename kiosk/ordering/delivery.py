"""Delivery from a counter kiosk: where an address is, and whether to offer delivery at all.

Storefront 2.0 takes a delivery address only with its coordinates, and a counter terminal has no
map. So delivery is offered on 2.0 only when the merchant lists delivery zones (config.toml
`[[delivery_zones]]`: postal codes and the point that stands for them); an address whose postal
code is in no zone is refused here, at the field, before anything is sent. The legacy API takes
an address without coordinates (the server places it), so there delivery needs no zones.

A geocoder (an address-to-coordinates service) would lift the zone list; none is wired in yet.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from kiosk.config import DeliveryZone

__all__ = ["DeliveryOffer", "delivery_offer", "zone_for"]


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
