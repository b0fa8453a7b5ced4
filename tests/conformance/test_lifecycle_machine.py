"""The order's lifecycle, proven by a machine (Hypothesis stateful): a Visit drives whole orders
against the strict 2.0 server (written from the vendor's documents, not by us for the kiosk) with
random faults (5xx before a write commits, answers dropped after it commits), restarts from the
resume file (as after kill -9: nothing is closed cleanly), declines, payments late and early, a
payment with a code shown before the customer went back, and staff-like cancels.

Invariants, checked after every step:
- every paid order's number is the server's (order-result's order.shortId), never anything else;
- no paid order is ever called declined, expired or cancelled;
- no line is doubled or lost: each product's quantity on the server lies between the adds the
  kiosk confirmed and those plus the adds that failed (which may have landed);
- the total the kiosk holds equals the server's, whenever the kiosk says its cart is current.

Bounded (derandomized, EXAMPLES orders of 14 steps): a small budget in the default run, the full
one in CI (tests/conftest.py BUDGETS); a longer run:
    KIOSK_LIFECYCLE_EXAMPLES=200 ./dev test tests/conformance/test_lifecycle_machine.py"""

from __future__ import annotations

import asyncio
import contextlib
import os
import tempfile
from collections import Counter
from datetime import UTC, datetime
from decimal import Decimal
from pathlib import Path
from typing import Any

import httpx
from hypothesis import HealthCheck, settings
from hypothesis import Phase as Phase_
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, invariant, precondition, rule

from kiosk.api.errors import StorefrontError
from kiosk.config import Settings
from kiosk.ordering.lifecycle import Phase
from kiosk.ordering.visit import OrderPaidError, Visit
from kiosk.runtime import build_remote_services
from tests.conformance.vendor_server import DroppedAnswer, Faults, make_vendor_app
from tests.support.ordering_rig import START, FakeClock

LOCATION_ID = "66a1f0c2b3d4e5f60718293a"
PRODUCTS = ("prod_gyoza", "prod_crackers", "prod_jasmine_tea")


class _Dropping(httpx.AsyncBaseTransport):
    """In-process, the strict server's dropped answer is an exception out of the app: the client
    sees what a closed connection is, a transport error after the request was sent."""

    def __init__(self, inner: httpx.AsyncBaseTransport) -> None:
        self.inner = inner

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        try:
            return await self.inner.handle_async_request(request)
        except DroppedAnswer as exc:
            raise httpx.ReadError("connection closed mid-answer", request=request) from exc


class OrderMachine(RuleBasedStateMachine):
    def __init__(self) -> None:
        super().__init__()
        self.loop = asyncio.new_event_loop()
        self.clock = FakeClock(START)
        self.app = make_vendor_app(clock=lambda: datetime.fromtimestamp(self.clock.now, UTC))
        self.server = self.app.state.server
        self.dir = tempfile.TemporaryDirectory()
        self.resume_file = Path(self.dir.name) / "open-cart.json"
        self.services: Any = None
        self.visit: Visit = self._new_visit()
        # Adds the kiosk confirmed, and adds that failed (they may have landed), by product.
        self.must: Counter[str] = Counter()
        self.maybe: Counter[str] = Counter()
        self.cart_id: str | None = None
        # False after a failed step: the kiosk's copy may be behind until it reads again.
        self.current = True

    # -- plumbing --------------------------------------------------------------------------------

    def _new_visit(self) -> Visit:
        settings_ = Settings(
            profile="production",
            api_dialect="v2",
            base_url="http://127.0.0.1/api/v1/storefront",
            location=LOCATION_ID,
        )
        self.services = build_remote_services(
            settings_,
            client_options={"clock": self.clock, "sleep": self.clock.sleep},
            transport=_Dropping(httpx.ASGITransport(app=self.app)),
        )
        visit = Visit(
            self.services.client_for,
            self.services.location_ids,
            cart_id_file=self.resume_file,
            wall_clock=self.clock,
            store_options={"sleep": self.clock.sleep},
        )
        visit.choose_location(LOCATION_ID)
        return visit

    def run(self, work: Any) -> Any:
        return self.loop.run_until_complete(work)

    def teardown(self) -> None:
        with contextlib.suppress(Exception):
            self.run(self.services.aclose())
        self.loop.close()
        self.dir.cleanup()

    @property
    def phase(self) -> Phase:
        return self.visit.state.order.phase

    def server_cart(self) -> Any:
        return self.server.store.carts.get(self.cart_id) if self.cart_id else None

    def attempt(self, work: Any) -> bool:
        """Run a kiosk intent; a StorefrontError is a failure the customer is told of (the step
        is then not confirmed). Anything else is a bug and fails the test."""
        try:
            self.run(work)
        except OrderPaidError:
            self.current = True
            return False
        except StorefrontError:
            self.current = False
            return False
        self.current = True
        return True

    # -- the customer ------------------------------------------------------------------------------

    @precondition(lambda self: self.phase is Phase.ORDERING)
    @rule(product=st.sampled_from(PRODUCTS), fault=st.sampled_from(["ok", "ok", "error", "drop"]))
    def add(self, product: str, fault: str) -> None:
        if self.visit.state.cart_id is None:
            if not self.attempt(self.visit.start("pickup")):
                return
            self.cart_id = self.visit.state.cart_id
            self.must.clear()
            self.maybe.clear()
        self.server.faults = Faults(script=[fault])
        if self.attempt(self.visit.add_item(product, 1)):
            self.must[product] += 1
        else:
            self.maybe[product] += 1
        self.server.faults = Faults()

    @precondition(lambda self: self.phase is Phase.ORDERING and sum(self.must.values()) > 0)
    @rule()
    def checkout(self) -> None:
        self.attempt(self.visit.checkout("Test order", ""))

    @precondition(lambda self: self.phase is Phase.AWAITING_PAYMENT)
    @rule(delay=st.sampled_from([1, 5, 15, 30, 200]))
    def customer_pays(self, delay: int) -> None:
        """The customer pays on the hosted page `delay` s from now; the kiosk waits up to 120 s
        (a payment after that is late: seen by the next look, never called failed)."""
        cart_id = self.cart_id

        async def pay() -> None:
            if cart_id in self.server.store.carts:
                cart = self.server.store.carts[cart_id]
                if cart.status == "OPEN" and cart.result != "completed":
                    self.server.store.pay(cart_id)

        self.clock.call_later(delay, pay)
        self.attempt(self.visit.wait_for_payment(timeout=120))
        if self.phase is Phase.AWAITING_PAYMENT:
            self.clock.call_later(0, pay)  # the timer already ran out: a later look sees it
            self.run(self.clock.sleep(delay))
            self.attempt(self.visit.check_payment())
            self.attempt(self.visit.check_payment())

    @precondition(lambda self: self.phase is Phase.AWAITING_PAYMENT)
    @rule()
    def card_declined(self) -> None:
        assert self.cart_id is not None
        self.server.store.fail_payment(self.cart_id, "PAYMENT_DECLINED")
        self.attempt(self.visit.check_payment())
        assert self.phase in (Phase.DECLINED, Phase.AWAITING_PAYMENT)

    @precondition(lambda self: self.phase is Phase.DECLINED)
    @rule()
    def pay_again(self) -> None:
        self.attempt(self.visit.pay_again())

    @precondition(lambda self: self.phase in (Phase.AWAITING_PAYMENT, Phase.DECLINED))
    @rule()
    def back_to_the_order(self) -> None:
        self.attempt(self.visit.reopen_order())

    @precondition(
        lambda self: (
            self.phase is Phase.ORDERING and self.visit.state.order.checkout_url is not None
        )
    )
    @rule(product=st.sampled_from(PRODUCTS))
    def old_code_paid_then_an_add(self, product: str) -> None:
        """Back on the order, the customer pays with the code shown before: the next write is
        refused by the server, and the kiosk finds the order paid instead of saying "try again"."""
        assert self.cart_id is not None
        cart = self.server.store.carts[self.cart_id]
        if cart.status == "OPEN":
            self.server.store.pay(self.cart_id)
        self.attempt(self.visit.add_item(product, 1))
        for _ in range(3):  # order_pending, then completed
            if self.phase is Phase.PAID:
                break
            self.attempt(self.visit.check_payment())
        assert self.phase is Phase.PAID

    @rule()
    def restart(self) -> None:
        """kill -9 and a new start on the same resume file."""
        before = self.phase
        had_cart = self.visit.state.cart_id is not None
        self.run(self.services.aclose())
        self.visit = self._new_visit()
        outcome = self.run(self.visit.resume_saved())
        if before is Phase.PAID:
            assert outcome.kind == "paid", outcome
        elif before in (Phase.AWAITING_PAYMENT, Phase.DECLINED):
            assert outcome.kind in ("locked", "declined", "paid"), (before, outcome)
        elif before is Phase.ORDERING and had_cart and sum(self.must.values()) > 0:
            assert outcome.kind in ("open", "paid"), (before, outcome)
        self.current = outcome.kind != "failed"
        if self.visit.state.cart_id is None:
            self.cart_id = None

    @precondition(lambda self: self.phase in (Phase.PAID, Phase.EXPIRED, Phase.CANCELLED))
    @rule()
    def next_customer(self) -> None:
        self.run(self.visit.reset())
        self.cart_id = None
        self.must.clear()
        self.maybe.clear()

    @precondition(lambda self: self.phase is Phase.ORDERING and self.visit.state.cart_id)
    @rule()
    def start_over(self) -> None:
        self.run(self.visit.reset())
        cart = self.server_cart()
        assert cart is None or cart.status == "EXPIRED"
        self.cart_id = None
        self.must.clear()
        self.maybe.clear()

    # -- invariants ------------------------------------------------------------------------------

    @invariant()
    def a_paid_order_is_never_called_failed(self) -> None:
        cart = self.server_cart()
        if cart is not None and cart.result == "completed":
            assert self.phase not in (Phase.DECLINED, Phase.EXPIRED, Phase.CANCELLED)

    @invariant()
    def the_number_shown_is_the_servers(self) -> None:
        order = self.visit.state.order
        if order.phase is Phase.PAID:
            cart = self.server_cart()
            assert cart is not None and cart.order is not None
            assert order.order_number == cart.order["shortId"]
            assert order.order_number != cart.table and order.order_number != "counter"

    @invariant()
    def no_line_doubled_or_lost(self) -> None:
        cart = self.server_cart()
        if cart is None:
            return
        held = Counter[str]()
        for line in cart.lines:
            held[line.product.id] += line.quantity
        for product in PRODUCTS:
            assert self.must[product] <= held[product] <= self.must[product] + self.maybe[product]

    @invariant()
    def the_total_shown_is_the_servers(self) -> None:
        cart = self.server_cart()
        mine = self.visit.state.cart
        if cart is None or mine is None or not self.current or mine.id != cart.id:
            return
        if cart.revision != (mine.revision if hasattr(mine, "revision") else cart.revision):
            return
        body = self.server.store.cart_json(cart)
        theirs = int(Decimal(body["orderTotalWithServiceFee"]) * 100)
        assert mine.order_total_with_service_fee == theirs

    @invariant()
    def no_contract_breach(self) -> None:
        assert self.server.violations == [], self.server.violations


EXAMPLES = int(os.environ.get("KIOSK_LIFECYCLE_EXAMPLES", "25"))
OrderMachine.TestCase.settings = settings(
    max_examples=EXAMPLES,
    stateful_step_count=14,
    deadline=None,
    derandomize=True,
    # Shrinking a failure of this machine can take minutes; the printed steps are enough.
    phases=[Phase_.explicit, Phase_.reuse, Phase_.generate],
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much],
)
TestOrderLifecycle = OrderMachine.TestCase
