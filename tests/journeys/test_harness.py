"""The journey harness itself: its clock moves only when told, and a restart is a kill -9 (the
old kiosk sends nothing more; the new one starts on the same state folder)."""

from __future__ import annotations

import asyncio
from decimal import Decimal
from pathlib import Path

import pytest

from tests.conformance.vendor_server import BONDI_LOCATION_ID, PaymentRefused
from tests.journeys.harness import (
    LOCATION_ID,
    ManualClock,
    _restore,
    _snapshot,
    start_journey,
)
from tests.journeys.test_example import order_gyoza_to_payment
from tests.support.pilot import quick_pilot


async def test_the_clock_wakes_sleepers_only_when_moved_and_in_order() -> None:
    clock = ManualClock(1000.0)
    woke: list[tuple[str, float]] = []

    async def nap(name: str, seconds: float) -> None:
        await clock.sleep(seconds)
        woke.append((name, clock.now))

    tasks = [asyncio.ensure_future(nap("late", 5)), asyncio.ensure_future(nap("early", 2))]
    await asyncio.sleep(0.01)
    assert woke == [] and clock.sleeping == 2 and clock.next_deadline() == 1002.0
    clock.now = 1002.0
    assert clock.wake_due() == 1
    await asyncio.sleep(0)
    assert woke == [("early", 1002.0)]
    tasks[0].cancel()
    await asyncio.sleep(0)
    assert clock.next_deadline() is None and clock.sleeping == 0


async def test_a_restart_is_a_kill_and_decline_pay_helpers_follow_the_server(
    tmp_path: Path,
) -> None:
    with quick_pilot():
        async with start_journey(tmp_path, size=(80, 24)) as j:
            await order_gyoza_to_payment(j)
            cart_id = j.cart_id
            first_app, first_transport = j.app, j.transport
            kept = j.resume_file.read_bytes()
            j.decline()
            assert j.order_result() == {"state": "failed", "code": "PAYMENT_DECLINED"}
            await j.restart()
            assert first_transport.killed and j.runs == 2 and j.app is not first_app
            # The first kiosk's shutdown reached neither the server nor its resume file.
            assert j.server_cart(cart_id)["status"] == "OPEN"
            assert j.resume_file.exists() and cart_id.encode() in kept
            assert j.app.visit.state.cart_id == cart_id
            # The phone pays the cart whose code was shown before the restart.
            j.pay(cart_id)
            with pytest.raises(PaymentRefused):
                j.pay(cart_id)  # one order per cart
            j.set_faults(rate_limited=2)
            assert j.faults.rate_limited == 2
            j.set_faults(rate_limited=0)


def test_the_state_folder_is_put_back_as_it_was_at_the_kill(tmp_path: Path) -> None:
    folder = tmp_path / "state"
    folder.mkdir()
    (folder / "open-cart.json").write_text("at the kill")
    kept = _snapshot(folder)
    (folder / "open-cart.json").write_text("written by a shutdown")
    (folder / "later.json").write_text("made by a shutdown")
    _restore(folder, kept)
    assert [p.name for p in folder.iterdir()] == ["open-cart.json"]
    assert (folder / "open-cart.json").read_text() == "at the kill"


async def test_server_side_events_change_the_kiosks_location_on_the_server(tmp_path: Path) -> None:
    with quick_pilot():
        async with start_journey(tmp_path, location=BONDI_LOCATION_ID) as j:
            bondi = j.store.location_by_id(BONDI_LOCATION_ID)
            bristol = j.store.location_by_id(LOCATION_ID)
            j.switch_off("table_side")
            assert bondi.methods["table_side"] is False and bristol.methods["table_side"]
            j.switch_on("table_side")
            assert bondi.methods["table_side"] is True
            j.sell_out("prod_bondi_laksa")
            assert bondi.product("prod_bondi_laksa").availability == "sold_out"
            j.restock("prod_bondi_laksa")
            assert bondi.product("prod_bondi_laksa").availability == "available"
            # 16:00 UTC on 2 March is 03:00 on 3 March in Sydney: slots from 03:15.
            left = j.take_slots("03:30", after="04:00")
            assert left == ["03:15", "03:45", "04:00"]
            assert j.take_slots(day="2026-03-04")[:1] == ["00:00"]
            j.add_code("ten", 10, "50.00")
            assert (bondi.discount_codes["TEN"], bondi.minimum_spend["TEN"]) == (
                Decimal("0.10"),
                Decimal("50.00"),
            )
            cart = j.store.new_cart(bondi, "table_side")
            j.expire_cart(cart.id)
            assert j.server_cart(cart.id)["status"] == "EXPIRED"
            assert j.order_result(cart.id) == {"state": "failed", "code": "CART_EXPIRED"}
