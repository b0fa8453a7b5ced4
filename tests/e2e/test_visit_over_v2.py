"""The kiosk's own ordering code (the Visit) over Storefront 2.0, built by the composition root as
`kiosk demo --api v2` builds it: an order with a crash in the middle (a new process resumes the cart
with the token from the resume file), a declined then approved payment, the order number."""

from __future__ import annotations

import json
import logging
from pathlib import Path

import httpx
import pytest

from kiosk.api.errors import ConflictError, PaymentDeclinedError
from kiosk.api.probe import dialect_base
from kiosk.api.v2 import StorefrontClientV2
from kiosk.config import Secret, Settings
from kiosk.demo import create_app
from kiosk.demo.data import DOWNTOWN
from kiosk.ordering.lifecycle import Phase
from kiosk.ordering.visit import Visit, request_selections
from kiosk.runtime import build_demo_services, dialect_for
from tests.demo.support import WED_AFTERNOON


def _visit(app: object, state: Path) -> tuple[Visit, object]:
    services = build_demo_services(
        Settings(api_dialect="v2"), backend_app=app, state_dir=state, location_ids=[DOWNTOWN.id]
    )
    visit = Visit(services.client_for, services.location_ids, cart_id_file=state / "open-cart.json")
    return visit, services


async def test_an_order_over_2_0_survives_a_restart(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG)
    app = create_app(clock=lambda: WED_AFTERNOON)
    backend = app.state.backend  # type: ignore[attr-defined]
    first, services = _visit(app, tmp_path)
    assert isinstance(services.client_for(DOWNTOWN.id), StorefrontClientV2)  # type: ignore[attr-defined]
    first.choose_location(DOWNTOWN.id)
    await first.start("pickup")
    await first.add_item("prd_cookie", 2)
    saved = json.loads((tmp_path / "open-cart.json").read_text())
    assert saved["cartToken"] and (tmp_path / "open-cart.json").stat().st_mode & 0o077 == 0
    await services.aclose()  # type: ignore[attr-defined]

    # A new process: new clients that never saw the token, only the resume file.
    second, services = _visit(app, tmp_path)
    second.choose_location(DOWNTOWN.id)
    outcome = await second.resume_saved()
    assert outcome.kind == "open" and outcome.cart is not None
    assert [(i.product_id, i.quantity) for i in outcome.cart.items] == [("prd_cookie", 2)]
    await second.add_item("prd_brownie", 1)
    result = await second.checkout("Test order", "test@example.com")
    assert result.validation.valid and result.intent is not None
    with pytest.raises(PaymentDeclinedError):
        await second.confirm_demo_payment("4000 0000 0000 0002")
    # Declined: order-result says the payment is still pending, and the server's cart is locked.
    polled = await second.poll()
    assert polled is not None and not polled.is_completed
    assert backend.get_cart_json(polled.id)["status"] == "LOCKED"
    await second.confirm_demo_payment("4242 4242 4242 4242")
    cart = await second.poll()
    # Paid: the order's number told, the server's cart completed. The order is the cart held
    # (same total and quantities), so that is what the receipt shows: not read again.
    assert cart is not None and second.state.order.phase is Phase.PAID
    server = backend.get_cart_json(cart.id)
    assert server["status"] == "COMPLETED" and server["fulfillmentIdentifier"] == "A001"
    assert second.state.order.order_number == "A001"
    assert cart.amount_due == int(server["orderTotalWithServiceFee"])  # the backend: minor units
    assert {i["productId"]: i["quantity"] for i in server["items"]} == {
        "prd_cookie": 2,
        "prd_brownie": 1,
    }
    assert len(backend.carts.ids()) == 1  # resumed, never replaced
    await services.aclose()  # type: ignore[attr-defined]
    # The cart token never reached a log record (DEBUG included), nor a repr of what holds it.
    token = saved["cartToken"]
    assert caplog.records and all(token not in r.getMessage() for r in caplog.records)
    assert token not in repr(second) + repr(second.state) + repr(services)


def test_the_dialect_comes_from_the_setting_else_the_url() -> None:
    assert dialect_for(Settings(), "https://api.example.com/api/v1/storefront") == "v2"
    # The legacy root means v1 only with a location key; without one, 2.0 (today's API).
    keyed = Settings(api_key=Secret("sk_test_1234567890"))
    assert dialect_for(keyed, "https://api.example.com/api/v1") == "v1"
    assert dialect_for(Settings(), "https://api.example.com/api/v1") == "v2"
    assert dialect_for(keyed, "https://api.example.com/somewhere") == "v2"
    assert dialect_for(Settings(api_dialect="v2"), "https://api.example.com/api/v1") == "v2"
    assert dialect_for(Settings(api_dialect="v1"), "https://x/api/v1/storefront") == "v1"
    assert dialect_base("https://x/api/v1", "v2") == "https://x/api/v1/storefront"
    assert dialect_base("https://x/api/v1/storefront/", "v1") == "https://x/api/v1"


async def test_a_cart_changed_elsewhere_is_reread_and_the_changes_are_said(tmp_path: Path) -> None:
    app = create_app(clock=lambda: WED_AFTERNOON)
    visit, services = _visit(app, tmp_path)
    visit.choose_location(DOWNTOWN.id)
    await visit.start("pickup")
    await visit.add_item("prd_cookie", 2)
    cart_id = visit.state.cart_id
    assert cart_id is not None
    # Another device with the same cart token (staff, a second screen) changes the cart.
    client = services.client_for(DOWNTOWN.id)  # type: ignore[attr-defined]
    token = client.cart_access(cart_id)
    other = StorefrontClientV2("http://demo/api/v1/storefront", transport=httpx.ASGITransport(app))
    async with other:
        other.restore_cart_access(cart_id, token)
        cart = await other.get_cart(DOWNTOWN.id, cart_id)
        cookie = cart.items[0].id
        await other.add_item(DOWNTOWN.id, cart_id, "prd_brownie", 1)
        await other.set_item_quantity(DOWNTOWN.id, cart_id, cookie, 3)
    with pytest.raises(ConflictError) as refused:
        await visit.add_item("prd_espresso", 1)
    message = refused.value.message
    assert "changed elsewhere" in message
    assert "Chocolate Brownie ×1 added" in message or "Brownie ×1 added" in message, message
    assert "×3 (was ×2)" in message, message
    # The Visit shows the cart as it now is; the refused espresso was not sent again.
    assert visit.cart is not None
    assert {i.product_id: i.quantity for i in visit.cart.items} == {
        "prd_cookie": 3,
        "prd_brownie": 1,
    }
    # Asked again, the customer's write goes through once, on the new revision.
    await visit.add_item("prd_espresso", 1)
    assert visit.cart is not None and len(visit.cart.items) == 3
    await services.aclose()  # type: ignore[attr-defined]


async def test_the_checkout_handoff_is_renewed_before_it_expires(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from datetime import timedelta

    import kiosk.demo.storefront.routes as routes

    monkeypatch.setattr(routes, "HANDOFF_TTL", timedelta(seconds=60))
    now = [WED_AFTERNOON]

    async def sleep(seconds: float) -> None:
        now[0] += seconds

    app = create_app(clock=lambda: now[0])
    handoffs: list[str] = []

    def count(inner: httpx.AsyncBaseTransport) -> httpx.AsyncBaseTransport:
        class Counting(httpx.AsyncBaseTransport):
            async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
                if request.url.path.endswith("/checkout-handoffs"):
                    handoffs.append(request.headers["Idempotency-Key"])
                return await inner.handle_async_request(request)

        return Counting()

    services = build_demo_services(
        Settings(api_dialect="v2"),
        backend_app=app,
        state_dir=tmp_path,
        location_ids=[DOWNTOWN.id],
        wrap_transport=count,
    )
    visit = Visit(
        services.client_for,
        services.location_ids,
        wall_clock=lambda: now[0],
        store_options={"sleep": sleep},
    )
    visit.choose_location(DOWNTOWN.id)
    await visit.start("pickup")
    await visit.add_item("prd_cookie", 1)
    result = await visit.checkout("Test order", "test@example.com")
    assert result.intent is not None and result.intent.expires_at is not None
    first_expiry = result.intent.expires_at
    ticks: list[int | None] = []
    waited = await visit.wait_for_payment(
        timeout=150, on_tick=lambda t: ticks.append(t.handoff_seconds_left)
    )
    assert waited.outcome.name == "TIMED_OUT"
    # 60 s hand-offs, renewed 20 s before they run out: at about 40 s, 80 s and 120 s.
    assert len(handoffs) == 4, handoffs
    assert len(set(handoffs)) == 4  # each renewal is its own write (its own Idempotency-Key)
    intent = visit.payment_intent
    assert intent is not None and intent.expires_at is not None
    assert intent.expires_at > first_expiry
    # The customer never saw a hand-off with less than the margin left.
    shown = [t for t in ticks if t is not None]
    assert shown and min(shown) >= 19 and max(shown) <= 60
    assert visit.cart is not None and visit.cart.checkout_url == intent.checkout_url
    await services.aclose()


@pytest.mark.parametrize("dialect", ["v1", "v2"])
async def test_back_from_payment_the_order_is_intact_in_a_new_cart(
    tmp_path: Path, dialect: str
) -> None:
    from kiosk.ordering.modifiers import SelectionState

    app = create_app(clock=lambda: WED_AFTERNOON)
    backend = app.state.backend  # type: ignore[attr-defined]
    services = build_demo_services(
        Settings(api_dialect=dialect),
        backend_app=app,
        state_dir=tmp_path,
        location_ids=[DOWNTOWN.id],
    )
    visit = Visit(services.client_for, services.location_ids, wall_clock=lambda: WED_AFTERNOON)
    visit.choose_location(DOWNTOWN.id)
    await visit.start("pickup")
    latte = await visit.product("prd_latte")
    await visit.add_item("prd_latte", 2, SelectionState.for_product(latte), "extra hot")
    await visit.add_item("prd_cookie", 1)
    await visit.apply_discount("SAVE10")
    await visit.checkout("Ann", "ann@example.com")
    old = visit.cart
    # Locked on the server by the payment's start (2.0: the kiosk does not read it back).
    assert old is not None and backend.get_cart_json(old.id)["status"] == "LOCKED"
    before = [(i.product_id, i.quantity, i.special_instructions) for i in old.items]
    before_choices = [request_selections(i.selections) for i in old.items]

    result = await visit.reopen_order()
    assert result.completed is None and result.dropped == ()
    new = visit.cart
    assert new is not None and new.id != old.id and not new.is_locked
    assert [(i.product_id, i.quantity, i.special_instructions) for i in new.items] == before
    assert [request_selections(i.selections) for i in new.items] == before_choices
    assert new.discount_code == "SAVE10"
    assert new.order_total == old.order_total
    # The locked cart is gone from the server: its payment can no longer be taken.
    try:
        gone = backend.get_cart_json(old.id)
    except KeyError:  # v1: deleted outright
        gone = None
    assert gone is None or gone["status"] == "EXPIRED", gone["status"]
    assert visit.state.customer_name == "Ann"
    await services.aclose()  # type: ignore[attr-defined]


async def test_back_from_payment_after_it_was_paid_shows_the_order(tmp_path: Path) -> None:
    app = create_app(clock=lambda: WED_AFTERNOON)
    backend = app.state.backend  # type: ignore[attr-defined]
    visit, services = _visit(app, tmp_path)
    visit.choose_location(DOWNTOWN.id)
    await visit.start("pickup")
    await visit.add_item("prd_cookie", 1)
    await visit.checkout("Ann", "ann@example.com")
    await visit.confirm_demo_payment("4242 4242 4242 4242")
    paid_id = visit.state.cart_id
    result = await visit.reopen_order()
    assert result.paid and result.completed is not None and result.order_number
    assert backend.get_cart_json(paid_id)["status"] == "COMPLETED"
    assert visit.state.cart_id == paid_id  # nothing was touched
    await services.aclose()  # type: ignore[attr-defined]
