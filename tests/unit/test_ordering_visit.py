"""The Visit (kiosk.ordering.visit) on the embedded backend: its published state, reset, resume,
quit, the location's clock and the rate-limit countdown."""

from __future__ import annotations

import asyncio
import dataclasses
import json
from datetime import UTC, datetime
from pathlib import Path

import pytest

from kiosk.api import DeliveryAddress, RetryPolicy
from kiosk.demo.data import DOWNTOWN, WESTSIDE
from kiosk.ordering.cart_store import load_saved_cart
from kiosk.ordering.clock import LocationClock
from kiosk.ordering.visit import OrderTime, Visit, VisitState
from kiosk.runtime import CLIENT_MAX_WAIT
from tests.support.ordering_rig import V1_ONLY_COORDS, V1_ONLY_DELETE, V1_ONLY_RATE, demo_rig

# Each test on the legacy API and on 2.0 (tests/unit/conftest.py).
pytestmark = pytest.mark.usefixtures("rig_dialect")


async def test_every_change_publishes_a_new_frozen_state() -> None:
    async with demo_rig() as rig:
        visit = rig.visit()
        seen: list[VisitState] = []
        visit.subscribe(seen.append)
        await visit.start("pickup")
        await visit.add_item("prd_cookie", 1)
        assert visit.state.cart is not None and visit.state.cart_id == visit.state.cart.id
        assert [(i.product_id, i.quantity) for i in visit.state.cart.items] == [("prd_cookie", 1)]
        assert visit.state.fulfillment_method == "pickup"
        assert seen[-1] is visit.state and visit.state.status.kind == "idle"
        assert any(s.status.kind == "busy" for s in seen)
        with pytest.raises(dataclasses.FrozenInstanceError):
            visit.state.cart_id = "x"  # type: ignore[misc]


@pytest.mark.only_dialect("v1", reason=V1_ONLY_COORDS)
async def test_reset_deletes_the_server_cart_and_clears_every_field(tmp_path: Path) -> None:
    path = tmp_path / "cart.json"
    async with demo_rig() as rig:
        visit = rig.visit(path)
        address = DeliveryAddress(
            street="1 Wall St", city="New York", state="NY", zip_code="10005", country="US"
        )
        await visit.start("delivery", delivery=address)
        await visit.add_item("prd_cookie", 1)
        visit.remember_customer("Ada", "ada@example.com")
        cart_id = visit.state.cart_id or ""
        assert visit.state.has_order and load_saved_cart(path) is not None
        assert "Ada" not in repr(visit.state) and "ada@" not in repr(visit.state)

        assert await visit.reset() is True
        assert rig.server_cart(cart_id) is None
        assert not path.exists()
        state = visit.state
        assert state.cart is None and not state.has_order
        assert state.fulfillment_method is None and state.delivery is None
        assert state.customer_name == "" and state.email_address == ""
        assert state.order_time == OrderTime() and state.order_time.is_asap
        # A one-location kiosk keeps its location.
        assert state.location_id == DOWNTOWN.id
        await visit.start("pickup")
        assert visit.state.has_order


async def test_reset_of_a_multi_location_kiosk_forgets_the_location() -> None:
    async with demo_rig(WESTSIDE) as rig:
        visit = rig.visit(locations=[DOWNTOWN.id, WESTSIDE.id])
        assert visit.state.location_id is None
        with pytest.raises(LookupError):
            await visit.start("pickup")
        visit.choose_location(WESTSIDE.id)
        await visit.start("room_service", room=("Okafor", "304"))
        assert visit.state.room == ("Okafor", "304")
        await visit.reset()
        assert visit.state.location_id is None and visit.state.room is None
        assert not visit.state.has_order


async def test_reset_leaves_a_completed_order_alone_and_survives_a_dead_network() -> None:
    async with demo_rig() as rig:
        visit = rig.visit()
        await visit.start("pickup")
        await visit.add_item("prd_cookie", 1)
        intent = await visit.begin_payment()
        assert visit.state.paying
        await rig.client.confirm_demo_payment(intent.client_secret, "4242 4242 4242 4242")
        await visit.poll()
        cart_id = visit.state.cart_id or ""
        rig.reset_counts()
        assert await visit.reset() is True
        assert rig.total() == 0
        assert (rig.server_cart(cart_id) or {}).get("status") == "COMPLETED"

        await visit.start("pickup")
        cart_id = visit.state.cart_id or ""
        for _ in range(8):  # the DELETE is retried by the client (2.0 more often): fail every one
            rig.transport.fail_next("DELETE", f"/carts/{cart_id}", when="before")
        assert await visit.reset() is False
        assert visit.state.cart is None and not visit.state.has_order


# ----------------------------------------------------------------------- the location's clock


async def test_asap_uses_the_locations_date_and_time_not_the_machines(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # 03:30 UTC on 4 March is still 3 March, 22:30, in New York.
    at = datetime(2026, 3, 4, 3, 30, tzinfo=UTC).timestamp()
    monkeypatch.setenv("TZ", "Asia/Tokyo")
    async with demo_rig(start=at) as rig:
        clock = LocationClock(DOWNTOWN, rig.clock)
        assert clock.date_and_time() == ("2026-03-03", "22:30")
        assert LocationClock(None, rig.clock).date_and_time() == ("2026-03-04", "03:30")
        sent: list[tuple[str, str]] = []
        real = rig.client.set_order_time

        async def spy(loc: str, cart: str, kind: str, day: str, time: str):  # type: ignore[no-untyped-def]
            sent.append((day, time))
            return await real(loc, cart, kind, day, time)

        rig.client.set_order_time = spy  # type: ignore[method-assign]
        visit = rig.visit()
        visit.choose_location(DOWNTOWN.id, await rig.client.get_location(DOWNTOWN.id))
        await visit.start("pickup")
        assert visit.state.cart is None  # a fresh cart is not read back: nothing to copy from
        await visit.set_order_time_asap()
        assert sent == [("2026-03-03", "22:30")]


# ---------------------------------------------------------------------------------- rate limits


@pytest.mark.only_dialect("v1", reason=V1_ONLY_RATE)
async def test_a_429_shows_the_countdown_at_once_with_the_real_retry_settings() -> None:
    # The client as the composition root builds it: the real RetryPolicy, the root's max_wait.
    async with demo_rig(client_kw={"retry": RetryPolicy(), "max_wait": CLIENT_MAX_WAIT}) as rig:
        visit = rig.visit()
        await visit.start("pickup")
        seen: list[tuple[float, str, int | None]] = []
        visit.subscribe(lambda s: seen.append((rig.clock(), s.status.kind, s.status.seconds_left)))
        rig.faults(burst_429=1, burst_retry_after_s=12)
        t0 = rig.clock()
        await visit.add_item("prd_cookie", 1)
        waits = [(t - t0, left) for t, kind, left in seen if kind == "waiting"]
        # The first state after "busy" is the countdown, before any time passed: nobody slept
        # silently first.
        assert waits[0] == (0.0, 12)
        assert [left for _, left in waits] == list(range(12, 0, -1))
        assert rig.clock() - t0 == pytest.approx(12)
        assert visit.state.status.kind == "idle" and visit.state.cart is not None
        assert [(i.product_id, i.quantity) for i in visit.state.cart.items] == [("prd_cookie", 1)]


# ------------------------------------------------------------------------------- resume, quit


async def _saved_open_cart(rig, path: Path, location_key: str) -> str:  # type: ignore[no-untyped-def]
    visit = rig.visit(path)
    await visit.start("pickup")
    await visit.add_item("prd_cookie", 1)
    cart_id = visit.state.cart_id or ""
    # The file as a kiosk naming the location `location_key` would have written it.
    text = json.dumps({"cartId": cart_id, "locationId": location_key})
    await asyncio.to_thread(path.write_text, text, "utf-8")
    return cart_id


@pytest.mark.parametrize("saved_as", ["id", "slug"])
async def test_resume_finds_the_cart_whether_the_location_was_a_slug_or_an_id(
    tmp_path: Path, saved_as: str
) -> None:
    path = tmp_path / "cart.json"
    async with demo_rig() as rig:
        key = DOWNTOWN.id if saved_as == "id" else DOWNTOWN.slug
        cart_id = await _saved_open_cart(rig, path, key)
        # The kiosk names the location the other way round from the file.
        served = DOWNTOWN.slug if saved_as == "id" else DOWNTOWN.id
        visit = rig.visit(path, locations=[served])
        outcome = await visit.resume_saved()
        assert outcome.kind == "open" and visit.state.cart_id == cart_id
        assert path.exists()
        assert rig.server_cart(cart_id) is not None


@pytest.mark.only_dialect("v1", reason=V1_ONLY_DELETE)
async def test_a_saved_cart_with_no_lines_is_dropped(tmp_path: Path) -> None:
    path = tmp_path / "cart.json"
    async with demo_rig() as rig:
        first = rig.visit(path)
        await first.start("pickup")
        cart_id = first.state.cart_id or ""
        assert load_saved_cart(path) is not None
        visit = rig.visit(path)
        outcome = await visit.resume_saved()
        assert outcome.kind == "gone" and not visit.state.has_order
        assert not path.exists()
        assert rig.server_cart(cart_id) is None


@pytest.mark.only_dialect("v1", reason=V1_ONLY_DELETE)
async def test_a_quit_keeps_the_open_cart_for_the_next_start(tmp_path: Path) -> None:
    # Journey 16: a quit is not "start over"; only a caller that chooses to clear deletes it.
    path = tmp_path / "cart.json"
    async with demo_rig() as rig:
        visit = rig.visit(path)
        await visit.start("pickup")
        await visit.add_item("prd_cookie", 1)
        cart_id = visit.state.cart_id or ""
        await visit.quit()
        assert rig.server_cart(cart_id) is not None and load_saved_cart(path) is not None
        again = rig.visit(path)
        assert (await again.resume_saved()).kind == "open"
        assert again.state.cart_id == cart_id

        cleared = rig.visit(tmp_path / "other.json")
        await cleared.start("pickup")
        await cleared.add_item("prd_cookie", 1)
        cart_id = cleared.state.cart_id or ""
        await cleared.quit(keep_cart=False)
        assert rig.server_cart(cart_id) is None and not (tmp_path / "other.json").exists()


async def test_a_quit_while_paying_keeps_the_locked_cart_for_the_next_start(
    tmp_path: Path,
) -> None:
    path = tmp_path / "cart.json"
    async with demo_rig() as rig:
        visit = rig.visit(path)
        await visit.start("pickup")
        await visit.add_item("prd_cookie", 1)
        await visit.begin_payment()
        await visit.quit()
        assert load_saved_cart(path) is not None
        assert (await rig.visit(path).resume_saved()).kind == "locked"


def test_visit_has_no_textual() -> None:
    import kiosk.ordering.visit as module

    assert "textual" not in Path(module.__file__).read_text(encoding="utf-8").replace(
        "(no Textual)", ""
    )
    assert Visit.__module__ == "kiosk.ordering.visit"
