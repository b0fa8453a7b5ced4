"""The delivery form names the postal code as the restaurant's country does (issue 20)."""

from __future__ import annotations

import pytest

from kiosk.tui.labels import postal_label


@pytest.mark.parametrize(
    ("country", "label"),
    [
        ("US", "ZIP code"),
        ("us", "ZIP code"),
        ("AU", "Postcode"),
        ("Australia", "Postcode"),
        ("GB", "Postcode"),
        ("United Kingdom", "Postcode"),
        ("NZ", "Postcode"),
        ("IE", "Eircode"),
        ("DE", "Postal code"),
        (None, "Postal code"),
        ("", "Postal code"),
    ],
)
def test_postal_label(country: str | None, label: str) -> None:
    assert postal_label(country) == label
