"""Crash resume in-process: two kiosk runs on one demo backend and one state dir. The first run
stops without ending its order (as a crash would); the second takes the cart up again, or starts
clean when the cart was paid or deleted meanwhile. (test_crash_resume.py does the same with a real
process killed by SIGKILL.)"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from kiosk.api import RetryPolicy
from kiosk.config import Settings
from kiosk.demo import create_app
from kiosk.demo.data import LOCATIONS
from kiosk.runtime import build_demo_services, make_app
from kiosk.tui.app import CART_ID_FILE, KioskApp
from kiosk.tui.flow import Step
from kiosk.tui.screens.done import DoneScreen
from kiosk.tui.screens.location import LocationScreen
from kiosk.tui.screens.menu import MenuScreen
from kiosk.tui.screens.payment import PaymentScreen
from kiosk.tui.widgets.chrome import Banner
from tests.support.tui import BASE_URL, FIXED_NOW, PAY_URL, no_sleep, settle
from tests.tui.test_flow import type_text
from tests.tui.test_idle import to_payment
from tests.tui.test_kiosk_mode import keys, to_menu_with_cookie


class Rig:
    """One backend and one state dir; `app()` is a fresh kiosk process on them."""

    def __init__(self, tmp_path: Path) -> None:
        self.asgi = create_app(":memory:", clock=lambda: FIXED_NOW, public_base_url=PAY_URL)
        self.state_dir = tmp_path / "state"

    @property
    def backend(self) -> Any:
        return self.asgi.state.backend

    @property
    def cart_file(self) -> Path:
        return self.state_dir / CART_ID_FILE

    def app(self) -> KioskApp:
        services = build_demo_services(
            Settings(),
            backend_app=self.asgi,
            base_url=BASE_URL,
            location_ids=[loc.id for loc in LOCATIONS],
            state_dir=self.state_dir,
            client_options={
                "sleep": no_sleep,
                "retry": RetryPolicy(max_attempts=2, random=lambda: 0.0),
            },
        )
        return make_app(services=services, wall_clock=lambda: FIXED_NOW)

    def server_cart(self, cart_id: str) -> dict[str, Any]:
        return dict(self.backend.get_cart_json(cart_id))


class _Stub:
    """What to_menu_with_cookie needs of tests.tui's Kiosk."""

    def __init__(self, rig: Rig, app: KioskApp) -> None:
        self.rig, self.app = rig, app

    @property
    def backend(self) -> Any:
        return self.rig.backend

    def server_cart(self) -> dict[str, Any]:
        cart_id = self.app.visit.state.cart_id
        assert cart_id is not None
        return self.rig.server_cart(cart_id)


async def first_run(rig: Rig, *, pay: bool = False) -> str:
    app = rig.app()
    async with app.run_test(size=(100, 30)) as pilot:
        stub: Any = _Stub(rig, app)
        cart_id = await to_menu_with_cookie(stub, pilot)
        if pay:
            await to_payment(stub, pilot)
        # The app ends here without a reset: the cart stays open on the server, as after a crash
        # (a normal quit deletes it; a crash never runs the quit).
        app.keep_cart_on_quit = True
    assert rig.cart_file.exists()
    return cart_id


def banner_text(app: KioskApp) -> str:
    return app.screen.query_one(Banner).message


async def test_an_open_cart_is_resumed_on_the_menu(tmp_path: Path) -> None:
    rig = Rig(tmp_path)
    cart_id = await first_run(rig)
    app = rig.app()
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        assert isinstance(app.screen, MenuScreen)
        assert "we kept your order" in banner_text(app).lower()
        assert app.cart is not None and app.cart.id == cart_id
        assert [i.product_id for i in app.cart.items] == ["prd_cookie"]
        # The same cart on the server, still open, and no second one.
        assert rig.backend.carts.ids() == [cart_id]
        assert rig.server_cart(cart_id)["status"] == "OPEN"
        # It goes on as any order: a second cookie lands in the same cart.
        await type_text(pilot, "cookie")
        await keys(pilot, "enter", "f2")
        assert sum(i["quantity"] for i in rig.server_cart(cart_id)["items"]) == 2


async def test_a_locked_cart_resumes_into_payment(tmp_path: Path) -> None:
    rig = Rig(tmp_path)
    cart_id = await first_run(rig, pay=True)
    intent = rig.server_cart(cart_id)["paymentIntentId"]
    app = rig.app()
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        assert isinstance(app.screen, PaymentScreen)
        assert app.visit.state.cart_id == cart_id
        server = rig.server_cart(cart_id)
        assert server["status"] == "LOCKED" and server["paymentIntentId"] == intent
        # The demo processor approves: the resumed payment completes.
        await keys(pilot, "a")
        assert rig.server_cart(cart_id)["status"] == "COMPLETED"


async def test_a_cart_paid_while_the_kiosk_was_down_shows_its_number_at_once(
    tmp_path: Path,
) -> None:
    # Journey 4: the kiosk restarts on the payment screen's order; the customer paid meanwhile.
    rig = Rig(tmp_path)
    cart_id = await first_run(rig, pay=True)
    rig.backend.approve_payment(cart_id)
    app = rig.app()
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        assert isinstance(app.screen, DoneScreen)
        number = app.visit.state.order.order_number
        assert number and number == rig.server_cart(cart_id)["fulfillmentIdentifier"]
        assert app.screen.order_number == number
        # The done screen's return to the start ends the visit: nothing left to resume.
        await keys(pilot, "enter")
        await settle(pilot)
    assert not rig.cart_file.exists()


async def test_a_deleted_cart_starts_clean(tmp_path: Path) -> None:
    rig = Rig(tmp_path)
    cart_id = await first_run(rig)
    client = rig.app().services.clients[LOCATIONS[0].id]
    await client.delete_cart(LOCATIONS[0].id, cart_id)
    await client.aclose()
    app = rig.app()
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        assert isinstance(app.screen, LocationScreen)
        assert len(app.screen_stack) == 2
        assert not app.visit.state.has_order and app.cart is None
        assert not rig.cart_file.exists()


async def test_an_unreachable_server_keeps_the_file_for_next_time(tmp_path: Path) -> None:
    rig = Rig(tmp_path)
    cart_id = await first_run(rig)
    rig.backend.faults.update({"error_rate": 1.0})
    app = rig.app()
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        assert isinstance(app.screen, LocationScreen)
    assert rig.cart_file.exists()
    rig.backend.faults.reset()
    app = rig.app()
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        assert isinstance(app.screen, MenuScreen)
        assert app.cart is not None and app.cart.id == cart_id


async def test_a_resumed_paying_order_stands_as_a_live_one_does(tmp_path: Path) -> None:
    # Issue 32 item 6: resume goes through the same router as the live flow. Before it, the
    # resumed payment stood alone on the first screen ([location, payment]), and Escape there
    # rebuilt the menu and the order its own way.
    rig = Rig(tmp_path)
    app = rig.app()
    async with app.run_test(size=(100, 30)) as pilot:
        stub: Any = _Stub(rig, app)
        await to_menu_with_cookie(stub, pilot)
        await to_payment(stub, pilot)
        live = app.steps_shown()
        app.keep_cart_on_quit = True
    assert live[-1] is Step.PAYMENT
    app = rig.app()
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        assert isinstance(app.screen, PaymentScreen)
        assert app.steps_shown() == live
        assert "waiting for payment" in banner_text(app).lower()


async def test_a_resumed_paid_order_stands_as_a_live_one_does(tmp_path: Path) -> None:
    rig = Rig(tmp_path)
    cart_id = await first_run(rig, pay=True)
    rig.backend.approve_payment(cart_id)
    app = rig.app()
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        assert app.steps_shown() == [Step.LOCATION, Step.DONE]


async def test_back_from_a_resumed_payment_is_back_from_a_live_one(tmp_path: Path) -> None:
    # Before the router, a resumed payment's Escape pushed the menu and the order over the first
    # screen ([location, menu, order]: no welcome under the menu).
    rig = Rig(tmp_path)
    await first_run(rig, pay=True)
    app = rig.app()
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        assert isinstance(app.screen, PaymentScreen)
        await keys(pilot, "escape", "y")
        await settle(pilot)
        assert app.steps_shown() == [Step.LOCATION, Step.WELCOME, Step.MENU, Step.ORDER]
        assert "your order is back" in banner_text(app).lower()
