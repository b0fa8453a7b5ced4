"""The staff screen: the health line, reset, switch location, the demo fault switches; and the
health line on every screen in kiosk mode."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from textual.pilot import Pilot
from textual.widgets import OptionList, Static

from kiosk.api.errors import StorefrontError
from kiosk.tui.health import HealthLine, client_health, clock_time
from kiosk.tui.screens.location import LocationScreen
from kiosk.tui.screens.menu import MenuScreen
from kiosk.tui.screens.staff import LocationChoice, StaffScreen
from kiosk.tui.screens.welcome import WelcomeScreen
from kiosk.tui.widgets.dialogs import ConfirmDialog

from .conftest import WESTSIDE, settle
from .test_kiosk_mode import PIN, keys, kiosk_with, pin_hash, to_menu_with_cookie, type_pin


def staff_ids(pilot: Pilot[Any]) -> list[str]:
    actions = pilot.app.screen.query_one("#staff-actions", OptionList)
    return [str(actions.get_option_at_index(i).id) for i in range(actions.option_count)]


async def choose(pilot: Pilot[Any], action: str) -> None:
    actions = pilot.app.screen.query_one("#staff-actions", OptionList)
    actions.highlighted = staff_ids(pilot).index(action)
    await keys(pilot, "enter")


def staff_text(pilot: Pilot[Any], widget_id: str) -> str:
    return str(pilot.app.screen.query_one(widget_id, Static).render())


async def test_health_line_reset_and_faults(tmp_path: Path) -> None:
    k, _ = kiosk_with(tmp_path, kiosk_mode=True, staff_pin_hash=pin_hash())
    k.services.demo_backend = k.backend
    app = k.app
    async with app.run_test(size=(100, 30)) as pilot:
        cart_id = await to_menu_with_cookie(k, pilot)
        # Kiosk mode: the health line is on the ordering screens.
        line = app.screen.query_one(HealthLine)
        assert line.display
        line.tick()
        # Customers see a mark, not the words (issue 20/23): those are on the staff screen.
        assert str(line.render()).strip() == "●"
        # At rest nothing is redrawn: a tick with nothing changed updates nothing.
        updates: list[object] = []
        line.update = lambda *a, **kw: updates.append(a)  # type: ignore[method-assign]
        line.tick()
        line.tick()
        assert updates == []
        app.show_health_line(True)  # staff want the words
        line.tick()
        assert len(updates) == 1 and "API reachable" in str(updates[0][0])
        del line.update
        app.show_health_line(None)

        await keys(pilot, "f12")
        await type_pin(pilot, PIN)
        assert isinstance(app.screen, StaffScreen)
        health = staff_text(pilot, "#staff-health")
        assert "Kiosk mode on" in health and "staff PIN set" in health
        assert "API reachable" in health and "last error: none" in health
        # The order as staff can speak of it: its items and total, not its id (issue 33).
        cart = app.cart
        assert cart is not None and cart.items
        first = cart.items[0]
        assert f"Order in progress: {first.quantity} × {first.name}" in health, health
        assert f"total {cart.order_total_formatted}" in health and cart_id not in health
        # Locations by name, not id; the customer's F9 is not offered: staff have their reset.
        assert "Lantern Downtown: ●" in health and f"{app.location_id}:" not in health
        assert "f9" not in app.screen.active_bindings
        assert "reset" in staff_ids(pilot)
        # The budget is the server's: X-RateLimit-Remaining of the last response.
        client = app.services.clients[app.location_id]
        assert f"budget {client.rate_budget.remaining}/" in health

        # A demo fault from the staff screen reaches the backend.
        assert "errors" in staff_ids(pilot)
        await choose(pilot, "errors")
        assert k.backend.faults.error_rate == 0.3
        assert "[x] Demo fault: Server errors" in str(
            app.screen.query_one("#staff-actions", OptionList).get_option("errors").prompt
        )
        await choose(pilot, "burst")
        assert k.backend.faults.burst_429 == 5
        await choose(pilot, "faults-off")
        assert k.backend.faults.error_rate == 0 and k.backend.faults.burst_429 == 0

        # Reset asks first, saying what is dropped; No keeps the order.
        await choose(pilot, "reset")
        assert isinstance(app.screen, ConfirmDialog)
        detail = str(app.screen.query_one("#dialog-detail", Static).render())
        assert f"{first.quantity} × {first.name}" in detail and cart_id not in detail, detail
        await keys(pilot, "n")
        assert isinstance(app.screen, StaffScreen)
        assert cart_id in k.backend.carts.ids()
        # Yes: the cart is deleted on the server, back to the first screen.
        await choose(pilot, "reset")
        await keys(pilot, "y")
        assert isinstance(app.screen, LocationScreen)
        assert cart_id not in k.backend.carts.ids()
        assert not app.visit.state.has_order


async def test_health_line_reports_the_last_error() -> None:
    class Budget:
        limit = 200
        remaining = 12

        def seconds_until_reset(self) -> float:
            return 42.0

    class Client:
        last_success_at = 100.0
        last_error_at = 130.0
        last_error = StorefrontError("Something went wrong.", status=503, code="UNAVAILABLE")
        rate_budget = Budget()

    text = str(client_health(Client(), now=160.0))
    assert "API failing" in text
    assert f"(last ok {clock_time(100.0)})" in text
    assert f"503 UNAVAILABLE Something went wrong. at {clock_time(130.0)}" in text
    assert f"budget 12/200 (resets at {clock_time(202.0)})" in text
    # Clock times, not ages: a second later the line is the same, so nothing is redrawn.
    Budget.seconds_until_reset = lambda self: 41.0  # type: ignore[method-assign]
    assert str(client_health(Client(), now=161.0)) == text


def test_the_request_id_is_for_staff_only() -> None:
    class Client:
        last_success_at = None
        last_error_at = 130.0
        last_error = StorefrontError(
            "Something went wrong.", status=500, code="INTERNAL", details={"requestId": "req_7f3a"}
        )
        rate_budget = None

    assert "(requestId req_7f3a)" in str(client_health(Client(), now=160.0, staff=True))
    # The health line on ordering screens (customers can see it) carries no requestId.
    assert "req_7f3a" not in str(client_health(Client(), now=160.0))


async def test_outside_kiosk_mode_no_health_line_until_staff_switch_it_on(tmp_path: Path) -> None:
    k, _ = kiosk_with(tmp_path)
    app = k.app
    async with app.run_test(size=(100, 30)) as pilot:
        await to_menu_with_cookie(k, pilot)
        assert not app.screen.query(HealthLine)
        await keys(pilot, "f12")
        assert isinstance(app.screen, StaffScreen)
        # Only the in-process backend has switches; this kiosk's services do not carry it.
        assert "errors" not in staff_ids(pilot)
        await choose(pilot, "health")
        await keys(pilot, "escape")
        assert isinstance(app.screen, MenuScreen)
        line = app.screen.query_one(HealthLine)
        assert line.display


async def test_switch_location(tmp_path: Path) -> None:
    k, _ = kiosk_with(tmp_path)
    app = k.app
    async with app.run_test(size=(100, 30)) as pilot:
        cart_id = await to_menu_with_cookie(k, pilot)
        await keys(pilot, "f12")
        await choose(pilot, "location")
        assert isinstance(app.screen, LocationChoice)
        choice = app.screen.query_one(OptionList)
        ids = [choice.get_option_at_index(i).id for i in range(choice.option_count)]
        choice.highlighted = ids.index(WESTSIDE.id)
        await keys(pilot, "enter")
        # An order is open: asked first, with what it holds.
        assert isinstance(app.screen, ConfirmDialog)
        assert "total" in str(app.screen.query_one("#dialog-detail", Static).render())
        assert cart_id in k.backend.carts.ids()
        await keys(pilot, "y")
        # The order in progress was discarded; the kiosk now serves Westside only.
        assert cart_id not in k.backend.carts.ids()
        assert app.services.location_ids == [WESTSIDE.id]
        assert app.single_location
        assert isinstance(app.screen, WelcomeScreen)
        assert len(app.screen_stack) == 2
        assert app.location is not None and app.location.id == WESTSIDE.id
        # ...and back to all locations.
        await keys(pilot, "f12")
        await choose(pilot, "location")
        await keys(pilot, "enter")  # the first row: all locations
        assert len(app.services.location_ids) == 2
        assert isinstance(app.screen, LocationScreen)
        await settle(pilot)
        # What the staff screen calls, public on KioskApp; it refuses to serve no location.
        with pytest.raises(ValueError):
            await app.serve_locations([])
        assert len(app.services.location_ids) == 2 and isinstance(app.screen, LocationScreen)
        await app.serve_locations([WESTSIDE.id])
        await settle(pilot)
        assert app.single_location and app.location_id == WESTSIDE.id
        assert isinstance(app.screen, WelcomeScreen) and len(app.screen_stack) == 2


@pytest.mark.parametrize("zones", [(), ("10038",)], ids=["no-zones", "zones"])
async def test_on_2_0_delivery_needs_zones_and_staff_see_why(
    tmp_path: Path, zones: tuple[str, ...]
) -> None:
    from kiosk.config import DeliveryZone

    listed = tuple(DeliveryZone("FiDi", zones, 40.709, -74.007) for _ in zones[:1])
    k, _ = kiosk_with(tmp_path, api_dialect="v2", staff_pin_hash=pin_hash(), delivery_zones=listed)
    app = k.app
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        await keys(pilot, "1")
        assert isinstance(app.screen, WelcomeScreen)
        methods = app.screen.methods
        # Downtown offers pickup, eat here and delivery; 2.0 without zones cannot place an address.
        assert ("delivery" in methods) == bool(zones), methods
        assert "pickup" in methods
        await keys(pilot, "f12")
        await type_pin(pilot, PIN)
        assert isinstance(app.screen, StaffScreen)
        health = staff_text(pilot, "#staff-health")
        if zones:
            assert "Delivery: 1 delivery zone(s), 1 postal code(s)" in health
        else:
            assert "Delivery: hidden: Storefront 2.0 needs coordinates" in health


async def test_the_staff_screen_shows_the_fleet_metrics(tmp_path: Path) -> None:
    # The same counters Prometheus scrapes (kiosk.metrics), fed by the app's own Visit.
    k, _ = kiosk_with(tmp_path, kiosk_mode=True, staff_pin_hash=pin_hash())
    app = k.app
    async with app.run_test(size=(120, 40)) as pilot:
        await to_menu_with_cookie(k, pilot)
        await keys(pilot, "f12")
        await type_pin(pilot, PIN)
        assert isinstance(app.screen, StaffScreen)
        health = staff_text(pilot, "#staff-health")
        assert "Orders since start: 1 started · 0 paid" in health
        assert "Metrics for Prometheus: off" in health
        metrics = app.services.metrics
        assert metrics is not None and metrics.last_success_at is not None
        assert f"last success at {clock_time(metrics.last_success_at)}" in health
        # A quiet counter (issue 23): as the seconds go by at rest, the words stay the same, so
        # nothing is redrawn over the counter's SSH link ("last success 13 s ago" redrew the
        # screen every second: 1,185 B/s at 80x24, benchmark 7).
        screen = app.screen
        shown = screen.query_one("#staff-health", Static)
        updates: list[object] = []
        shown.update = lambda *a, **kw: updates.append(a)  # type: ignore[method-assign]
        # The kiosk's clock from the last success on (the test's wall clock stands still).
        start = metrics.last_success_at
        for later in (1.0, 7.0, 59.0):
            app.wall_clock = lambda later=later: start + later  # type: ignore[misc]
            screen.show_health()
        assert updates == []
        del shown.update
        # Reset asks first, saying what is dropped (items and total, not an id); No keeps it.
        cart = app.cart
        assert cart is not None and cart.items
        await choose(pilot, "reset")
        assert isinstance(app.screen, ConfirmDialog)
        detail = str(app.screen.query_one("#dialog-detail", Static).render())
        assert f"1 × {cart.items[0].name}" in detail, detail
        assert f"total {cart.order_total_formatted}" in detail and cart.id not in detail
        await keys(pilot, "n")
        assert isinstance(app.screen, StaffScreen) and app.visit.state.has_order
        # Staff reset the order in progress: counted as a reset, not as abandoned.
        await choose(pilot, "reset")
        await keys(pilot, "y")
        assert metrics.orders["reset"] == 1 and metrics.orders["abandoned"] == 0
