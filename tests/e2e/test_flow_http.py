"""The kiosk as `kiosk demo --server URL` builds it (kiosk.runtime), over real HTTP to the demo
backend served by uvicorn on 127.0.0.1: location to order number, and the demo processor's
decline/approve outside /api/v1. Then a second customer starts clean on the same kiosk.
"""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path

import pytest

from kiosk.config import Settings
from kiosk.demo.app import create_app
from kiosk.demo.server import ServerThread
from kiosk.runtime import build_demo_services, make_app
from kiosk.tui.screens.done import DoneScreen
from kiosk.tui.screens.location import LocationScreen
from kiosk.tui.screens.menu import MenuScreen
from kiosk.tui.screens.payment import PaymentScreen
from kiosk.tui.screens.product import ProductScreen
from tests.support.tui import no_thanks, settle

# Tuesday 13:00 in New York: Downtown open, the lunch menu on.
NOW = datetime(2026, 3, 10, 17, 0, tzinfo=UTC).timestamp()


@pytest.fixture
def server(tmp_path: Path) -> Iterator[ServerThread]:
    app = create_app(tmp_path / "demo.sqlite3", clock=lambda: NOW)
    with ServerThread(app) as running:
        yield running
    app.state.backend.close()


# A real server in a thread: while its answer is on the way the app looks idle to Pilot, whose
# 20 ms steps this walk was written against (tests/conftest.py quick_idle_waits).
@pytest.mark.pilot_idle_20ms
async def test_order_over_http(server: ServerThread, tmp_path: Path) -> None:
    services = build_demo_services(Settings(), base_url=server.base_url)
    app = make_app(services=services, wall_clock=lambda: NOW)
    backend = server.app.state.backend
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        assert isinstance(app.screen, LocationScreen)
        await pilot.press("1", "1")
        await settle(pilot)
        assert isinstance(app.screen, MenuScreen)
        await pilot.press(*"latte", "enter")
        await settle(pilot)
        assert isinstance(app.screen, ProductScreen)
        await pilot.press("2", "f2")
        await settle(pilot)
        await no_thanks(pilot)
        assert isinstance(app.screen, MenuScreen)
        cart_id = app.visit.state.cart_id
        assert [i["quantity"] for i in backend.get_cart_json(cart_id)["items"]] == [2]
        await pilot.press("f4", "f2")
        await settle(pilot)
        app.screen.query_one("#name").value = "Ada"  # type: ignore[attr-defined]
        app.screen.query_one("#email").value = "ada@example.com"  # type: ignore[attr-defined]
        await pilot.press("f2")
        await settle(pilot)
        assert isinstance(app.screen, PaymentScreen)
        assert backend.get_cart_json(cart_id)["checkoutUrl"].startswith(server.url)
        await pilot.press("d")
        await settle(pilot)
        # The payment's state and its one note (issue 33: no bottom toast on a payment).
        assert "declined" in str(app.screen.query_one("#pay-note").render()).lower()
        await pilot.press("a")
        await settle(pilot)
        assert isinstance(app.screen, DoneScreen)
        server_cart = backend.get_cart_json(cart_id)
        assert server_cart["status"] == "COMPLETED"
        number = server_cart["fulfillmentIdentifier"]
        assert app.screen.query_one("#order-number").value == number.upper()  # type: ignore[attr-defined]
        # The next customer: a clean start, a new cart.
        await pilot.press("enter")
        await settle(pilot)
        assert isinstance(app.screen, LocationScreen)
        await pilot.press("1", "1")
        await settle(pilot)
        assert app.visit.state.cart_id not in (None, cart_id)
        assert backend.get_cart_json(app.visit.state.cart_id)["items"] == []
