"""Benchmark 1, the TUI's side: requests per standard order made by the real kiosk (KioskApp driven
by Pilot, tests/bench/tui_walk.py), counted by the backend.

Several customers order one after another on one kiosk, so cached reads (location, menus, product
details, tip settings, time slots) are shared across orders and fetched again only when their TTL
runs out. Time is virtual (the rig's FakeClock, given to the backend, the client and the CartStore):
each customer browses for BROWSE seconds and pays on the phone PAY_AFTER seconds after the QR code
appears, so the kiosk polls the cart through about 30 s of waiting. The first order (cold caches)
is reported apart from the steady state.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from kiosk.config import Settings
from kiosk.demo import create_app
from kiosk.demo.data import DOWNTOWN
from kiosk.ordering.lifecycle import Phase
from kiosk.ordering.services import KioskServices
from kiosk.runtime import build_demo_services
from kiosk.tui.app import KioskApp
from tests.bench.conftest import Figures
from tests.bench.tui_walk import INTENDED, Walk, quick_pilot
from tests.support.ordering_rig import START, FakeClock

BASE_URL = "http://demo.test/api/v1"
APPROVE = "4242 4242 4242 4242"
ORDERS = 6
BROWSE = 90.0  # seconds a customer spends choosing (virtual)
PAY_AFTER = 25.0  # seconds from the QR code to the phone's payment


class VirtualTimeKiosk(KioskApp):
    """KioskApp whose CartStores sleep on the fake clock (payment polling, rate-limit waits)."""

    def __init__(self, services: KioskServices, clock: FakeClock) -> None:
        super().__init__(services, wall_clock=clock, store_options={"sleep": clock.sleep})


def by_path(app: Any) -> dict[str, int]:
    raw = app.state.backend.stats.as_dict()["byPath"]
    return {k.replace("/api/v1/locations/{locationId}", ""): v for k, v in raw.items()}


def diff(after: dict[str, int], before: dict[str, int]) -> dict[str, int]:
    return {k: v - before.get(k, 0) for k, v in after.items() if v - before.get(k, 0)}


async def test_requests_per_order_in_the_tui(figures: Figures, tmp_path: Path) -> None:
    clock = FakeClock(START)
    backend_app = create_app(":memory:", clock=clock, rate_limit=100_000)
    services = build_demo_services(
        Settings(),
        backend_app=backend_app,
        base_url=BASE_URL,
        location_ids=[DOWNTOWN.id],
        state_dir=tmp_path / "state",
        client_options={"clock": clock, "sleep": clock.sleep},
    )
    # As measured before: no merchant listing, no fault switches.
    services.merchant_slug = None
    services.demo_backend = None
    client = services.client_for(DOWNTOWN.id)
    app = VirtualTimeKiosk(services, clock)
    per_order: list[dict[str, int]] = []
    polls: list[int] = []

    async def phone_pays() -> None:
        # Runs inside the payment wait's (fake) sleep, PAY_AFTER s after checkout.
        intent = app.visit.payment_intent
        assert intent is not None
        await client.confirm_demo_payment(intent.client_secret, APPROVE)

    async def already_arranged() -> None:
        pass

    with quick_pilot():
        async with app.run_test(size=(120, 40)) as pilot:
            walk = Walk(app, pilot)
            for _ in range(ORDERS):
                before = by_path(backend_app)
                await walk.start()
                clock.now += BROWSE
                await walk.fill_cart()
                await walk.edit_cart()
                # Virtual time moves only while the kiosk sleeps (the payment wait), and it moves
                # fast: the phone's payment is set up before the wait starts.
                clock.call_later(PAY_AFTER, phone_pays)
                await walk.checkout()
                done = await walk.pay(already_arranged)
                order = done.order  # type: ignore[attr-defined]
                # Paid, with the server's number; the order shown is the cart as its receipt.
                assert order is not None and app.visit.state.order.phase is Phase.PAID
                assert [(i.product_id, i.quantity) for i in order.items] == INTENDED
                await walk.finish()
                per_order.append(diff(by_path(backend_app), before))
                polls.append(per_order[-1].get("GET /carts/{cartId}", 0) - 3)
    backend_app.state.backend.close()

    totals = [sum(d.values()) for d in per_order]
    steady = per_order[1:]
    steady_mean = sum(sum(d.values()) for d in steady) / len(steady)
    keys = sorted({k for d in per_order for k in d})
    print("\nrequests of each order (first: cold caches):")
    for key in keys:
        print(f"  {key:60} " + " ".join(f"{d.get(key, 0):3d}" for d in per_order))
    print(f"  {'total':60} " + " ".join(f"{t:3d}" for t in totals))
    extra = {
        k: sum(d.get(k, 0) for d in steady) / len(steady)
        for k in keys
        if (k.startswith("GET") and "/carts/{cartId}" not in k) or k.endswith("/products")
    }
    figures.add(
        "1",
        f"requests per standard order, TUI (Pilot), steady state, {BROWSE:.0f} s browsing",
        steady_mean,
        "req",
        goal="<= 20",
        passed=steady_mean <= 20,
        note="reads beside the cart's, per order: "
        + ", ".join(f"{k} {v:.2f}" for k, v in extra.items() if v),
    )
    figures.add(
        "1",
        "requests for the first order on a fresh kiosk (cold caches), TUI",
        totals[0],
        "req",
    )
