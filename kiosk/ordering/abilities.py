"""What a location's dialect can do, as a value the screens read in VisitState.

The screens render the published state and never talk to the client (architecture: "no screen
talks to the client"). Where a screen's words or choices depend on the dialect behind the
location (v1 or Storefront 2.0), the Visit publishes what it needs here, read once off the
location's client: whether an email is needed with the name, what going back from paying does
to the payment code, whether delivery can be offered.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from kiosk.ordering.delivery import DeliveryOffer, delivery_offer

if TYPE_CHECKING:
    from kiosk.api import StorefrontBase
    from kiosk.config import DeliveryZone

__all__ = ["Abilities", "abilities_of", "served_abilities"]


@dataclass(frozen=True, slots=True)
class Abilities:
    """What one location's server can do (the defaults: a location not known yet)."""

    # The customer's details need an email with the name (v1; 2.0's schema asks a name only,
    # so there the receipt by email is an offer).
    email_required: bool = True
    # Creating the payment intent locks the cart (v1): going back from paying makes the order
    # again in a new cart and the old code stops working. False (2.0): the code stays payable.
    intent_locks_cart: bool = True
    # Whether delivery is offered here, and why (2.0 needs coordinates: the merchant's zones).
    delivery: DeliveryOffer = field(default_factory=lambda: DeliveryOffer(True, ""))


def abilities_of(client: StorefrontBase, zones: Sequence[DeliveryZone]) -> Abilities:
    return Abilities(
        email_required=bool(client.email_required),
        intent_locks_cart=bool(client.intent_changes_cart),
        delivery=delivery_offer(client.needs_coordinates, zones),
    )


def served_abilities(
    location_ids: Sequence[str],
    client_for: Callable[[str], StorefrontBase],
    zones: Sequence[DeliveryZone],
) -> tuple[tuple[str, Abilities], ...]:
    """What each served location's server can do, read once off its client (a location this
    kiosk has no key for is left out: it is never chosen)."""
    served: list[tuple[str, Abilities]] = []
    for location_id in location_ids:
        try:
            client = client_for(location_id)
        except LookupError:
            continue
        served.append((location_id, abilities_of(client, zones)))
    return tuple(served)
