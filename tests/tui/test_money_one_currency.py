"""Journey 13 through the real TUI: an order at a restaurant that is not in dollars, on the strict
2.0 server (tests/conformance/vendor_server.py, a GBP location whose cross-sell answer lists
products with neither currency nor displayPrice). The suggestion after an add and the cart's
"you might also like" rows are priced in pounds, in English and in Spanish. Before: "$4.50" (and
"4,50 US$"): 2.0's location record names no currency, and the kiosk guessed USD."""

from __future__ import annotations

from pathlib import Path

import httpx
import pytest

from kiosk.config import Settings
from kiosk.runtime import build_remote_services, make_app
from tests.bench.tui_walk import Plan, Walk
from tests.conformance.vendor_server import make_vendor_app

BASE_URL = "https://harbour.test/api/v1/storefront"
PLAN = Plan(lines=(("prod_gyoza", ()),), quantity_change=("prod_gyoza", 1), tip="", discount="")


@pytest.mark.parametrize("language", ["en", "es"])
@pytest.mark.parametrize("size", [(80, 24), (120, 40)], ids=["80x24", "120x40"])
async def test_suggestions_are_priced_in_the_locations_currency(
    tmp_path: Path, language: str, size: tuple[int, int]
) -> None:
    server = make_vendor_app()
    settings = Settings(
        profile="production",
        api_dialect="v2",
        base_url=BASE_URL,
        location="harbour-noodles",
        language=language,
    )
    services = build_remote_services(settings, transport=httpx.ASGITransport(app=server))
    services.state_dir = tmp_path / "state"
    app = make_app(services=services)
    try:
        async with app.run_test(size=size) as pilot:
            walk = Walk(app, pilot, plan=PLAN)
            await walk.start()
            await walk.open_product("prod_gyoza")
            await pilot.press("f2")
            await walk.until(
                "the suggestion", lambda: type(app.screen).__name__ == "SuggestionDialog"
            )
            suggested = app.screen.price  # type: ignore[attr-defined]
            await pilot.press("n")
            await walk.until("the menu", lambda: type(app.screen).__name__ == "MenuScreen")
            await pilot.press("f4")
            cart = await walk.at("CartScreen", "cart")
            await walk.until(
                "the cross-sell", lambda: bool(cart.query_one("#cross-sell-section").display)
            )
            listing = cart.query_one("#cross-sell")
            prices = [str(row.right).strip() for row in listing.rows]  # type: ignore[attr-defined]
    finally:
        await services.aclose()
    assert prices
    for price in [suggested, *prices]:
        assert "£" in price and "$" not in price and "US" not in price, (suggested, prices)
    assert server.state.violations == []
