"""The customer session and its reset (kiosk.ordering.session) on the embedded backend."""

from __future__ import annotations

from pathlib import Path

import pytest

from kiosk.api import DeliveryAddress
from kiosk.demo.data import DOWNTOWN, WESTSIDE
from kiosk.ordering.cart_store import CartStore, load_saved_cart
from kiosk.ordering.session import CustomerSession, OrderTime
from tests.unit.test_ordering_rig import Rig, demo_rig


def factory(rig: Rig, path: Path | None = None):  # type: ignore[no-untyped-def]
    def make(location_id: str) -> CartStore:
        store = rig.store(cart_id_file=path)
        assert store.location_id == location_id
        return store

    return make


async def test_reset_deletes_the_server_cart_and_clears_every_field(tmp_path: Path) -> None:
    path = tmp_path / "cart.json"
    async with demo_rig() as rig:
        session = CustomerSession(factory(rig, path), DOWNTOWN.id, fixed_location=True)
        address = DeliveryAddress(
            street="1 Wall St", city="New York", state="NY", zip_code="10005", country="US"
        )
        await session.begin("delivery", delivery=address)
        assert session.store is not None
        await session.store.add_item("prd_cookie", 1)
        session.remember_customer("Ada", "ada@example.com")
        session.order_time = OrderTime("2026-03-03", "12:00")
        cart_id = session.store.cart_id or ""
        assert session.has_order_in_progress and load_saved_cart(path) is not None
        assert "Ada" not in repr(session) and "ada@" not in repr(session)

        assert await session.reset() is True
        assert rig.server_cart(cart_id) is None
        assert not path.exists()
        assert session.cart is None and not session.has_order_in_progress
        assert session.fulfillment_method is None and session.delivery is None
        assert session.customer_name == "" and session.email_address == ""
        assert session.order_time.is_asap
        # A one-location kiosk keeps its location and a usable store.
        assert session.location_id == DOWNTOWN.id and session.store is not None
        await session.begin("pickup")
        assert session.has_order_in_progress


async def test_reset_of_a_multi_location_kiosk_forgets_the_location() -> None:
    async with demo_rig(WESTSIDE) as rig:
        session = CustomerSession(factory(rig))
        assert session.store is None
        with pytest.raises(RuntimeError):
            await session.begin("pickup")
        store = session.choose_location(WESTSIDE.id)
        assert session.choose_location(WESTSIDE.id) is store
        await session.begin("room_service", room=("Okafor", "304"))
        assert session.room == ("Okafor", "304")
        await session.reset()
        assert session.location_id is None and session.store is None and session.room is None


async def test_reset_leaves_a_completed_order_alone_and_survives_a_dead_network() -> None:
    async with demo_rig() as rig:
        session = CustomerSession(factory(rig), DOWNTOWN.id, fixed_location=True)
        await session.begin("pickup")
        assert session.store is not None
        await session.store.add_item("prd_cookie", 1)
        intent = await session.store.begin_payment()
        await rig.client.confirm_demo_payment(intent.client_secret, "4242 4242 4242 4242")
        await session.store.poll()
        cart_id = session.store.cart_id or ""
        rig.reset_counts()
        assert await session.reset() is True
        assert rig.total() == 0
        assert (rig.server_cart(cart_id) or {}).get("status") == "COMPLETED"

        await session.begin("pickup")
        cart_id = session.store.cart_id or ""
        for _ in range(4):  # the DELETE is retried by the client: fail every attempt
            rig.transport.fail_next("DELETE", f"/carts/{cart_id}", when="before")
        assert await session.reset() is False
        assert session.cart is None and not session.has_order_in_progress
