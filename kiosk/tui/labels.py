"""Words the kiosk uses for the API's values."""

from __future__ import annotations

from typing import Any

from kiosk.i18n import N_, _

# Display order and words for each fulfillment method (request spelling).
METHODS: dict[str, tuple[str, str]] = {
    "pickup": (N_("Pickup"), N_("Collect your order at the counter")),
    "dine_in": (N_("Eat here"), N_("Collect at the counter and eat in")),
    "table_service": (N_("Table service"), N_("We bring your order to your table")),
    "delivery": (N_("Delivery"), N_("We deliver your order to your address")),
    "room_service": (N_("Room service"), N_("We bring your order to your room")),
}

NEXT_STEPS: dict[str, str] = {
    "pickup": N_("We'll call your number when your order is ready at the counter."),
    "dine_in": N_("Take a seat: we'll call your number when your order is ready at the counter."),
    "table_service": N_("Take a seat: we'll bring your order to table {table}."),
    "delivery": N_("We're preparing your order and will deliver it to {address}."),
    "room_service": N_("We'll bring your order to room {room}."),
}


def method_key(value: Any) -> str:
    """The request spelling of a fulfillment value (an enum or an alias string)."""
    if value is None:
        return ""
    text = str(getattr(value, "value", value)).strip().lower()
    aliases = {
        "takeout": "pickup",
        "take_out": "pickup",
        "table_side": "table_service",
        "table": "table_service",
        "roomservice": "room_service",
        "dinein": "dine_in",
    }
    return aliases.get(text, text)


def method_label(value: Any) -> str:
    key = method_key(value)
    label = METHODS.get(key, (key.replace("_", " ").capitalize() or N_("Order"), ""))[0]
    return _(label)


def offered_methods(location: Any, fallback: Any = None) -> list[str]:
    """The fulfillment methods the location offers, in display order (request spelling).

    From the location's `methodsStatus`, else the merchant listing's; with neither (the vendor's
    location fixture has none) pickup alone is assumed, the one method every storefront has (A)."""
    status = getattr(location, "methods_status", None) or getattr(fallback, "methods_status", None)
    return offered_by(status)


def offered_by(status: Any) -> list[str]:
    """The methods a `methodsStatus` offers, in display order; None: pickup alone (A)."""
    if status is None:
        return ["pickup"]
    return [m for m in METHODS if status.offers(m)]


# What a postal code is called where the restaurant is (ISO 3166 alpha-2 of its address).
POSTAL_LABELS: dict[str, str] = {
    "US": N_("ZIP code"),
    "AU": N_("Postcode"),
    "GB": N_("Postcode"),
    "UK": N_("Postcode"),
    "NZ": N_("Postcode"),
    "IE": N_("Eircode"),
}
# Country names as a merchant may write them -> the code.
_COUNTRY_NAMES = {
    "UNITED STATES": "US",
    "USA": "US",
    "AUSTRALIA": "AU",
    "UNITED KINGDOM": "GB",
    "NEW ZEALAND": "NZ",
    "IRELAND": "IE",
}


def postal_label(country: str | None) -> str:
    """ "ZIP code" in the US, "Postcode" in Australia, the UK and New Zealand, else "Postal code"
    (issue 20: the delivery form said "ZIP code" in Australia). Translated."""
    code = (country or "").strip().upper()
    code = _COUNTRY_NAMES.get(code, code)
    return _(POSTAL_LABELS.get(code, N_("Postal code")))
