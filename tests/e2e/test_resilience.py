"""200 standard orders against the embedded backend with its faults on: every order ends with
exactly the intended cart on the server, nothing crashes, and every failure that reaches the
customer is a typed StorefrontError with a short, clear message.

The faults (kiosk.demo's own, switched per request where the backend's switch is global):
- 10% of requests answered 500 before anything is done (`error_rate`);
- 5% of writes committed, then the connection dropped before the answer (`drop_after_commit_rate`);
- every tenth order meets a burst of three 429s, alternately with a short wait (2 s, which the
  client sleeps through) and a long one (45 s, past the client's 30 s `max_wait`, so the CartStore
  waits it out with its countdown);
- 5% of requests stall 2 s after they were handled (`stall_s`), longer than this kiosk's 1.5 s read
  timeout: a timeout after the commit, the classic way to a doubled line.

The customer is the scripted customer's standard order (tests/e2e/test_scripted_customer.py), each
step done as the kiosk lets a customer do it: when a failure is shown, the customer reads it and
presses R (the same step again, after the wait it names). Time is virtual (tests/bench/vtime.py),
including the backend's stalls and the 30 s of waiting for the payment, so the run takes seconds.
"""

from __future__ import annotations

import asyncio
import random
from collections import Counter
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

import httpx
import pytest

from kiosk.api import Cart, RetryPolicy, StorefrontError
from kiosk.config import Settings
from kiosk.ordering.payment import PaymentOutcome
from kiosk.ordering.services import KioskServices
from kiosk.ordering.visit import Visit
from kiosk.tui.app import KioskApp
from tests.bench.rigs import VirtualRig
from tests.bench.tui_walk import Walk, quick_pilot
from tests.bench.vtime import run_virtual
from tests.e2e.test_scripted_customer import APPROVE, PAY_AFTER, check_final_cart, warm_up
from tests.support.ordering_rig import demo_rig

T = TypeVar("T")

ORDERS = 200
SEED = 6
STALL_RATE = 0.05
READ_TIMEOUT = 1.5
# What a customer is never shown: internals, secrets, tracebacks.
NOT_FOR_CUSTOMERS = ("Traceback", "httpx", "Error(", "_secret_", "X-API-Key", "\x1b")


@dataclass(frozen=True)
class Shown:
    """A failure that reached the customer (the screen's banner)."""

    step: str
    kind: str
    message: str


class Customer:
    """Does a step; when it fails, reads the message and presses R, up to `patience` times."""

    def __init__(self, rig: VirtualRig, shown: list[Shown], patience: int = 10) -> None:
        self.rig = rig
        self.shown = shown
        self.patience = patience

    async def do(self, step: str, action: Callable[[], Awaitable[T]]) -> T:
        for _ in range(self.patience):
            try:
                return await action()
            except StorefrontError as exc:
                self.shown.append(Shown(step, type(exc).__name__, exc.message))
                # Reading the message takes a moment; a named wait is honoured.
                await asyncio.sleep(max(2.0, exc.retry_after or 0.0))
        raise AssertionError(f"{step}: still failing after {self.patience} tries")


async def one_order(rig: VirtualRig, shared: Any, shown: list[Shown]) -> None:
    customer = Customer(rig, shown)
    store: Visit = rig.visit()
    await customer.do("start", lambda: store.start("pickup"))
    await customer.do("add latte", lambda: store.add_item("prd_latte", 1, shared.latte_state))
    for product in ("prd_cookie", "prd_orange_juice", "prd_hummus"):
        await customer.do(f"add {product}", lambda p=product: store.add_item(p, 1))

    async def cookie_to_three() -> Cart | None:
        if store.cart is None:
            await store.refresh()
        assert store.cart is not None
        cookie = next(i for i in store.cart.items if i.product_id == "prd_cookie")
        return await store.set_quantity(cookie.id, 3)

    await customer.do("quantity", cookie_to_three)
    await customer.do("tip", lambda: store.set_tip("18"))
    await customer.do(
        "order time", lambda: store.set_order_time_later(shared.slot_date, shared.slot_time)
    )
    await customer.do("discount", lambda: store.apply_discount("SAVE10"))
    result = await customer.do(
        "checkout", lambda: store.checkout("Ada Lovelace", "ada@example.com")
    )
    assert result.validation.valid and result.intent is not None, result.validation.errors
    intent = result.intent

    async def phone_pays() -> None:
        # The phone talks to the processor, not to the kiosk's API: no faults there.
        await rig.client.confirm_demo_payment(intent.client_secret, APPROVE)

    rig.clock.call_later(PAY_AFTER, phone_pays)
    for _ in range(3):
        paid = await store.wait_for_payment(timeout=300)
        if paid.outcome is PaymentOutcome.COMPLETED:
            break
        shown.append(Shown("payment", paid.outcome.value, "The time to pay has run out."))
    assert paid.outcome is PaymentOutcome.COMPLETED, paid
    check_final_cart(rig, store, intent, shared)  # type: ignore[arg-type]


def test_200_orders_survive_the_faults() -> None:
    rng = random.Random(SEED)
    shown: list[Shown] = []

    async def main() -> dict[str, Any]:
        rig: VirtualRig

        def per_request(request: httpx.Request) -> None:
            # The backend's stall switch is global: set it for this one request.
            stall = request.url.path.startswith("/api/v1") and rng.random() < STALL_RATE
            rig.backend.faults.stall_s = 2.0 if stall else 0.0

        rig = VirtualRig(
            rate_limit=1_000_000,
            before=per_request,
            client_kw={"timeout": READ_TIMEOUT, "retry": RetryPolicy(random=lambda: 0.5)},
        )
        try:
            shared = await warm_up(rig)  # type: ignore[arg-type]
            rig.faults(error_rate=0.10, drop_after_commit_rate=0.05, seed=SEED)
            for number in range(ORDERS):
                if number % 10 == 5:
                    rig.faults(burst_429=3, burst_retry_after_s=2 if number % 20 == 5 else 45)
                if number % 20 == 0:
                    # Slots move with the clock: the customer picks from today's list.
                    rig.faults(error_rate=0.0, drop_after_commit_rate=0.0)
                    shared = await warm_up(rig)  # type: ignore[arg-type]
                    rig.faults(error_rate=0.10, drop_after_commit_rate=0.05)
                await one_order(rig, shared, shown)
            return {
                "statuses": rig.by_status(),
                "requests": rig.total(),
                "timeouts": rig.transport.timeouts,
                "carts": len(rig.backend.carts),
            }
        finally:
            await rig.aclose()

    seen = run_virtual(main())
    statuses = seen["statuses"]
    print(f"\n{ORDERS} orders: {seen}; failures shown: {Counter(s.kind for s in shown)}")
    for failure in shown:
        print(f"  shown: {failure}")
    # The faults really fired (so the clean result means something).
    assert statuses.get("500", 0) > 0.05 * seen["requests"]
    assert statuses.get("429", 0) >= ORDERS // 10 * 3
    assert seen["timeouts"] > 0.02 * seen["requests"]
    # Every failure shown was typed and worded for a customer.
    for failure in shown:
        assert failure.message.strip(), failure
        assert len(failure.message) <= 200, failure
        assert not any(bad in failure.message for bad in NOT_FOR_CUSTOMERS), failure


@pytest.mark.clock_bound(seconds=16)
async def test_r_after_an_unconfirmed_add_does_not_double_the_line(tmp_path: Path) -> None:
    async with demo_rig() as rig:
        services = KioskServices(
            settings=Settings(),
            clients={rig.location_id: rig.client},
            location_ids=[rig.location_id],
            demo=True,
            state_dir=tmp_path / "state",
        )
        app = KioskApp(services)
        with quick_pilot():
            async with app.run_test(size=(120, 40)) as pilot:
                walk = Walk(app, pilot)
                await walk.start()
                product = await walk.open_product("prd_hummus")
                assert app.visit.state.cart_id
                cart_id = app.visit.state.cart_id
                # The add lands but its answer is lost; then every re-read attempt fails too (the
                # store settles a lost answer with up to 8 reads of the cart, each retried by the
                # client: CartStore(settle_reads=8)).
                rig.transport.fail_next("POST", "/cart-item", when="after")
                for _ in range(rig.client.retry.max_attempts * 8):
                    rig.transport.fail_next("GET", f"/carts/{cart_id}", when="before")
                await pilot.press("f2")
                await walk.until("the failure", lambda: bool(product.banner.message))  # type: ignore[attr-defined]
                shown = product.banner.message  # type: ignore[attr-defined]
                server = rig.server_cart(cart_id) or {}
                assert [i["quantity"] for i in server["items"]] == [1], "the add did land"
                # The customer does what the message offers.
                await pilot.press("r")
                await walk.settle()
                server = rig.server_cart(cart_id) or {}
        assert [(i["productId"], i["quantity"]) for i in server["items"]] == [("prd_hummus", 1)], (
            f"shown: {shown!r}"
        )
