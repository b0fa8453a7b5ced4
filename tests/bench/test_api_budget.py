"""Benchmarks 1 and 2: what an order costs of the 200-requests-per-10-minutes budget, and what three
terminals behind one IP get out of that budget.

Both run the scripted customer of tests/e2e/test_scripted_customer.py (the standard order: 4 lines,
one with modifiers, a quantity change, a tip, a later time, a discount, customer details, validate,
pay, and about 30 s waiting for the payment) through CartStore and StorefrontClient against the
embedded backend, on virtual time (tests/bench/vtime.py): the backend's own clock and rate limiter
run on the same clock, so ten minutes take well under a second.

Before each order a terminal makes the reads a kiosk makes for an order (location, menus, tip
settings, time slots, the four products' details) through its client's cache, so cached reads are
shared across orders and re-fetched only when their TTL has run out; the backend counts them.
"""

from __future__ import annotations

import asyncio
import statistics
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from kiosk.api import RateLimitedError, StorefrontClient, StorefrontError
from kiosk.diskcache import DiskCache
from kiosk.ordering.cart_store import StoreStatus
from kiosk.ordering.payment import PaymentOutcome
from kiosk.ordering.visit import Visit
from tests.bench.conftest import Figures
from tests.bench.rigs import VirtualRig
from tests.bench.vtime import run_virtual
from tests.e2e.test_scripted_customer import Shared, check_final_cart, standard_order, warm_up

ORDERS = 12
WINDOW = 600.0
LIMIT = 200
OTHER_PRODUCTS = ("prd_cookie", "prd_orange_juice", "prd_hummus")


@dataclass
class Terminal:
    """One kiosk: its own client (cache, rate budget) on the shared backend and IP; shaped like the
    scripted customer's Rig."""

    rig: VirtualRig
    client: StorefrontClient
    name: str
    statuses: list[StoreStatus] = field(default_factory=list)
    # Reads outside the CartStore that the rate limit refused: a kiosk shows these as a banner
    # ("We're very busy right now. Please try again in about N s"), not as a countdown.
    refused_reads: list[str] = field(default_factory=list)

    @property
    def clock(self) -> Any:
        return self.rig.clock

    @property
    def location_id(self) -> str:
        return self.rig.location_id

    def visit(self) -> Visit:
        visit = self.rig.visit(self.client)

        def note(state: Any) -> None:
            if not self.statuses or self.statuses[-1] != state.status:
                self.statuses.append(state.status)

        visit.subscribe(note)
        return visit

    def server_cart(self, cart_id: str) -> dict[str, Any] | None:
        return self.rig.server_cart(cart_id)


async def order_reads(terminal: Terminal) -> Shared:
    """The cached reads of one order: what warm_up reads, plus the other products' details. A read
    the rate limit refuses is retried after the wait it names, as a customer pressing R after the
    banner's "try again in about N s" would; each refusal is noted."""
    while True:
        try:
            shared = await warm_up(terminal)  # type: ignore[arg-type]
            for product in OTHER_PRODUCTS:
                await terminal.client.get_product(terminal.location_id, product)
            return shared
        except RateLimitedError as exc:
            terminal.refused_reads.append(exc.message)
            await asyncio.sleep(max(1.0, exc.retry_after or 0.0))


# --------------------------------------------------------------------------------------------------
# 1. requests per standard order


@dataclass
class PerOrder:
    """Requests the backend counted for each order (the first includes the cold caches' reads)."""

    orders: list[dict[str, int]]
    polls: list[int]

    @property
    def first(self) -> int:
        return sum(self.orders[0].values())

    @property
    def per_order(self) -> float:
        """Steady state: orders 2..N, cached reads re-fetched when their TTL ran out included."""
        steady = self.orders[1:]
        return sum(sum(d.values()) for d in steady) / len(steady)

    def mean_of(self, test: Any) -> float:
        steady = self.orders[1:]
        return sum(v for d in steady for k, v in d.items() if test(k)) / len(steady)


_per_order: PerOrder | None = None


def measure_per_order() -> PerOrder:
    """ORDERS standard orders back to back on one kiosk, counted by the backend (memoised: the
    three-terminal benchmark divides the budget by this figure)."""
    global _per_order
    if _per_order is not None:
        return _per_order

    async def main() -> PerOrder:
        rig = VirtualRig(rate_limit=100_000)
        terminal = Terminal(rig, rig.client, "one")
        orders: list[dict[str, int]] = []
        polls = []
        try:
            for _ in range(ORDERS):
                before = rig.requests()
                shared = await order_reads(terminal)
                store, intent, paid = await standard_order(terminal, shared)  # type: ignore[arg-type]
                assert paid.outcome is PaymentOutcome.COMPLETED
                check_final_cart(terminal, store, intent, shared)  # type: ignore[arg-type]
                after = rig.requests()
                orders.append(
                    {k: v - before.get(k, 0) for k, v in after.items() if v > before.get(k, 0)}
                )
                polls.append(paid.polls)
            return PerOrder(orders, polls)
        finally:
            await rig.aclose()

    _per_order = run_virtual(main())
    return _per_order


def test_requests_per_standard_order(figures: Figures) -> None:
    result = measure_per_order()
    writes = result.mean_of(lambda k: not k.startswith("GET"))
    cart_reads = result.mean_of(lambda k: k == "GET /carts/{cartId}")
    cached = result.mean_of(lambda k: k.startswith("GET") and k != "GET /carts/{cartId}")
    keys = sorted({k for d in result.orders for k in d})
    print("\nrequests of each order (first: cold caches):")
    for key in keys:
        print(f"  {key:60} " + " ".join(f"{d.get(key, 0):3d}" for d in result.orders))
    figures.add(
        "1",
        "requests per standard order (CartStore script, 30 s of polling, shared caches)",
        result.per_order,
        "req",
        goal="<= 20",
        passed=result.per_order <= 20,
        note=(
            f"steady state over orders 2-{len(result.orders)}: {writes:.0f} writes, "
            f"{cart_reads:.1f} cart reads and polls (polls per order "
            f"{statistics.median(result.polls):.0f}), {cached:.2f} cached reads re-fetched"
        ),
    )
    figures.add(
        "1",
        "requests for the first order on a fresh kiosk (cold caches), CartStore script",
        result.first,
        "req",
    )
    assert all(sum(v for k, v in d.items() if not k.startswith("GET")) == 12 for d in result.orders)


# --------------------------------------------------------------------------------------------------
# 2. three terminals behind one IP


@dataclass
class Outcome:
    terminal: str
    started: float
    finished: float | None = None
    error: str | None = None


async def _terminal_loop(
    terminal: Terminal, start: float, until: float, outcomes: list[Outcome]
) -> None:
    """Orders as fast as customers can: the next customer starts as soon as the last order is done,
    as long as the run's ten minutes last."""
    clock = terminal.clock
    while clock() < until:
        outcome = Outcome(terminal.name, clock() - start)
        outcomes.append(outcome)
        try:
            shared = await order_reads(terminal)
            store, intent, paid = await standard_order(terminal, shared)  # type: ignore[arg-type]
            if paid.outcome is not PaymentOutcome.COMPLETED:
                server = terminal.server_cart(store.cart_id or "") or {}
                outcome.error = (
                    f"the kiosk's payment wait ended {paid.outcome.value} after "
                    f"{paid.elapsed:.0f} s and {paid.polls} polls; the server's cart is "
                    f"{server.get('status')}"
                )
                continue
            check_final_cart(terminal, store, intent, shared)  # type: ignore[arg-type]
            outcome.finished = clock() - start
        except (StorefrontError, AssertionError) as exc:
            outcome.error = f"{type(exc).__name__}: {exc}"
            await asyncio.sleep(1.0)  # the next customer; also keeps virtual time moving


def test_three_terminals_share_one_budget(figures: Figures, tmp_path: Path) -> None:
    per_order = measure_per_order().per_order
    minutes = 60

    async def main() -> tuple[list[Outcome], list[Terminal], dict[str, int], float]:
        rig = VirtualRig(rate_limit=LIMIT, rate_window=WINDOW)
        # The terminals of one site share one cache on disk (as `kiosk` sets them up).
        site_cache = DiskCache(tmp_path / "site-cache", clock=rig.clock)
        terminals = [
            Terminal(rig, rig.new_client(disk_cache=site_cache), f"T{i + 1}") for i in range(3)
        ]
        outcomes: list[Outcome] = []
        start = rig.clock()
        try:
            await asyncio.gather(
                *(_terminal_loop(t, start, start + minutes * 60, outcomes) for t in terminals)
            )
            return outcomes, terminals, rig.by_status(), rig.clock() - start
        finally:
            await rig.aclose()

    outcomes, terminals, statuses, elapsed = run_virtual(main())
    allowed = LIMIT / per_order
    # The limiter's windows start at the first request (t = 0): count orders finished in each.
    per_window = [
        sum(
            1
            for o in outcomes
            if o.finished is not None and w * WINDOW <= o.finished < (w + 1) * WINDOW
        )
        for w in range(minutes * 60 // int(WINDOW))
    ]
    lost = [o for o in outcomes if o.error is not None]
    waits = [
        (a, b)
        for t in terminals
        for a, b in zip([None, *t.statuses], t.statuses, strict=False)
        if b.kind == "waiting" and (a is None or a.kind != "waiting")
    ]
    errors = [s for t in terminals for s in t.statuses if s.kind == "error"]
    refused = [m for t in terminals for m in t.refused_reads]
    longest_wait = max((b.seconds_left or 0 for _, b in waits), default=0)
    print(
        f"\nbudget allows {allowed:.2f} orders per window ({LIMIT} / {per_order:.2f}); "
        f"finished per window: {per_window}; statuses {statuses}; "
        f"calm waits {len(waits)} (longest {longest_wait} s); run {elapsed:.0f} s virtual; "
        f"reads refused by the limit {len(refused)}"
    )
    for o in lost:
        print(f"  lost or failed: {o}")
    first = per_window[0]
    steady = statistics.mean(per_window[1:]) if len(per_window) > 1 else first
    figures.add(
        "2",
        "3 terminals, one IP: orders in the first 10 min (cold caches)",
        first,
        "orders",
        baseline=allowed,
        goal=">= 95% of 200/req-per-order",
        passed=first >= 0.95 * allowed,
    )
    figures.add(
        "2",
        f"3 terminals, one IP: orders per 10 min, minutes 10-{minutes}",
        steady,
        "orders",
        baseline=allowed,
        goal=">= 95% of 200/req-per-order",
        passed=steady >= 0.95 * allowed,
    )
    figures.add(
        "2",
        "3 terminals: orders lost or failed, errors shown (cart writes)",
        len(lost) + len(errors),
        "",
        goal="0",
        passed=not lost and not errors,
        note=f"{len(outcomes)} orders started, longest calm wait {longest_wait} s",
    )
    figures.add(
        "2",
        "3 terminals: menu/product/slot reads refused by the limit (a banner, not a countdown)",
        len(refused),
        "",
        goal="0",
        passed=not refused,
    )
    # The benchmark must have loaded the limiter; lost orders are reported above as MISS (not
    # asserted: the known cause is in kiosk/ordering/payment.py, see docs/benchmarks.md).
    assert waits, "the budget never ran out: the benchmark did not load the limiter"
