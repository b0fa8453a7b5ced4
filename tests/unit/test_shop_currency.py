"""Journey 13: every amount on a screen is in the location's currency (kiosk.tui.contract's
shop_currency feeds price_text, the cross-sell, suggestions, the product screen and the tip)."""

from __future__ import annotations

from types import SimpleNamespace

from kiosk.api.models import MenuProduct, validate_as
from kiosk.tui.contract import shop_currency


def test_the_location_decides_then_the_cart_never_a_guess() -> None:
    aud = SimpleNamespace(location=SimpleNamespace(currency="aud"), cart=None)
    assert shop_currency(aud) == "aud"
    cart_only = SimpleNamespace(location=None, cart=SimpleNamespace(currency="nzd"))
    assert shop_currency(cart_only) == "nzd"
    assert shop_currency(SimpleNamespace(location=None, cart=None)) == ""


def test_a_cross_sell_product_without_currency_in_an_aud_restaurant() -> None:
    # 2.0's cross-sell lists products with neither currency nor displayPrice: before, "$4.50"
    # in English and "4,50 US$" in Spanish.
    suggestion = validate_as(MenuProduct, {"id": "prd_1", "name": "Lamington", "price": "4.50"})
    app = SimpleNamespace(location=SimpleNamespace(currency="aud"), cart=None)
    english = suggestion.price_text(shop_currency(app), None)
    spanish = suggestion.price_text(shop_currency(app), "es")
    assert english == "A$4.50"
    assert spanish.replace("\xa0", " ") == "4,50 A$"
