"""The order on screen is the order on the server, proven by a machine (Hypothesis stateful):
a headless Visit (no Textual) takes whole orders against the strict 2.0 server, in-process, with
customer actions (a way to order and its details, lines, quantities, codes, a later time,
checkout, back, paying on the phone, paying again, starting over), server-side events in the
middle (the cart expires, a product in it sells out, a way to order is switched off, slots are
taken, a decline, a payment that lands late on an earlier hand-off) and kill -9 restarts and
takeovers at any step (a new Visit, CartStore and client on the same state folder and server).
Two locations: Harbour Noodles Quayside (every way to order) and Bondi (table and delivery only,
Sydney time, AUD). The headless Visit waits on the rig's FakeClock (a payment at t + 40 s is
instant): nobody moves a ManualClock here, as a journey does for the TUI.

Invariants, after every step:
- the order's way to order, its table, time, lines (product, quantity), discount code and total
  in the VisitState are the server's cart's, while the order is not paid;
- the phase agrees with the server once the kiosk has looked: an expired cart is EXPIRED (or
  gone from the visit), a completed order-result is PAID with the server's shortId;
- a paid order's number is on the visit or recallable on this terminal (`visit.recent`);
- a settled step leaves a way forward (no phase in the middle of a write or a checkout);
- a refusal is a typed StorefrontError, never another exception (IllegalTransition included);
- the server recorded no contract breach.

The sequences it found (each fixed in kiosk/ with its own commit) are kept at the end as plain
tests, run step by step with every invariant after each.

Bounded (derandomized, EXAMPLES orders of 20 steps): a small budget in the default run, the
full one in CI (tests/conftest.py BUDGETS); a longer run:
    KIOSK_ORDER_MACHINE_EXAMPLES=200 ./dev test tests/conformance/test_order_machine.py"""

from __future__ import annotations

import asyncio
import contextlib
import os
import tempfile
from collections import Counter
from collections.abc import Callable
from datetime import UTC, datetime
from decimal import Decimal
from pathlib import Path
from typing import Any

import httpx
from hypothesis import HealthCheck, settings
from hypothesis import Phase as Phase_
from hypothesis import strategies as st
from hypothesis.stateful import (
    RuleBasedStateMachine,
    initialize,
    invariant,
    rule,
)

from kiosk.api.errors import StorefrontError
from kiosk.api.models import DeliveryAddress
from kiosk.api.v2 import V2_FULFILLMENT
from kiosk.config import Settings
from kiosk.ordering.cart_store import load_saved_cart
from kiosk.ordering.lifecycle import Phase
from kiosk.ordering.payment import PaymentOutcome
from kiosk.ordering.recent import RECALL_WINDOW
from kiosk.ordering.visit import Visit
from kiosk.runtime import build_remote_services
from tests.conformance.test_lifecycle_machine import LOCATION_ID
from tests.conformance.vendor_server import (
    BONDI_LOCATION_ID,
    PaymentRefused,
    Seed,
    cart_body,
    harbour_and_bondi,
    harbour_noodles,
    make_vendor_app,
)
from tests.journeys.harness import BASE_URL
from tests.support.ordering_rig import START, FakeClock

# Products with no required choice; crackers and tea to sell out, gyoza for BIG100's minimum.
PRODUCTS = ("prod_gyoza", "prod_crackers", "prod_jasmine_tea")
# The kiosk's word for each way to order, and the details the customer gives with it.
WAYS = ("pickup", "table_service", "delivery", "room_service")
API_WAY = {"pickup": "takeout", "table_service": "table_side", "delivery": "delivery"}
API_WAY["room_service"] = "room_service"
ADDRESS = DeliveryAddress(
    street="3 Welsh Back",
    city="Bristol",
    state="England",
    zip_code="BS1 4SP",
    country="GB",
    lat=51.4507,
    lng=-2.5929,
)
CODES = ("HARBOUR10", "BIG100", "NOPE42")
# Who acts in a step: the customer mostly.
STEPS = ("customer", "customer", "customer", "customer", "customer", "server", "server", "restart")
EVENTS = (
    "the_cart_expires",
    "a_product_sells_out",
    "a_product_comes_back",
    "a_way_is_switched_off",
    "a_way_is_switched_on",
    "slots_are_taken",
    "the_card_is_declined",
    "a_late_payment_on_an_earlier_code",
)
# Phases a settled step never leaves the order in: the customer would have nothing to press.
MIDWAY = frozenset({Phase.CHECKING_OUT, Phase.IN_DOUBT})


class VisitMachine(RuleBasedStateMachine):
    """At Harbour Noodles Quayside (Bristol, GBP): every way to order, a £100 minimum code."""

    SEED: Callable[[], Seed] = staticmethod(harbour_noodles)
    LOCATION = LOCATION_ID
    PRODUCTS = PRODUCTS
    # The ways the welcome screen offers here (a way switched off is refused by the server).
    WAYS = WAYS
    ADDRESS = ADDRESS
    CODES = CODES

    def __init__(self) -> None:
        super().__init__()
        self.loop = asyncio.new_event_loop()
        self.clock = FakeClock(START)
        self.app = make_vendor_app(
            self.SEED(), clock=lambda: datetime.fromtimestamp(self.clock.now, UTC)
        )
        self.server = self.app.state.server
        self.store = self.server.store
        self.dir = tempfile.TemporaryDirectory()
        self.resume_file = Path(self.dir.name) / "open-cart.json"
        # Every process started on this terminal (a takeover leaves the old one running).
        self.processes: list[Any] = []
        self.services: Any = None
        self.visit: Visit = self._new_visit()
        # The order's number once the kiosk said PAID, and when (the recall window).
        self.paid: tuple[str, float] | None = None
        # The cart the server expired, and how many requests the server had answered by then.
        self.expired: str | None = None
        self.expired_at = 0
        # Refusals the customer was told of, by exception and code.
        self.refusals: Counter[str] = Counter()

    # -- plumbing --------------------------------------------------------------------------------

    def _new_visit(self) -> Visit:
        """A kiosk process on this terminal's state folder, as the lifecycle machine builds it."""
        settings_ = Settings(
            profile="production", api_dialect="v2", base_url=BASE_URL, location=self.LOCATION
        )
        self.services = build_remote_services(
            settings_,
            client_options={"clock": self.clock, "sleep": self.clock.sleep},
            transport=httpx.ASGITransport(app=self.app),
        )
        self.processes.append(self.services)
        visit = Visit(
            self.services.client_for,
            self.services.location_ids,
            cart_id_file=self.resume_file,
            wall_clock=self.clock,
            store_options={"sleep": self.clock.sleep},
        )
        visit.choose_location(self.LOCATION)
        return visit

    def run(self, work: Any) -> Any:
        return self.loop.run_until_complete(work)

    def teardown(self) -> None:
        for services in self.processes:
            with contextlib.suppress(Exception):
                self.run(services.aclose())
        self.loop.close()
        self.dir.cleanup()

    @property
    def phase(self) -> Phase:
        return self.visit.state.order.phase

    @property
    def cart_id(self) -> str | None:
        return self.visit.state.cart_id

    def server_cart(self) -> Any:
        return self.server_cart_of(self.cart_id)

    def server_cart_of(self, cart_id: str | None) -> Any:
        return self.store.carts.get(cart_id) if cart_id else None

    def saved_cart_id(self) -> str | None:
        """The cart the resume file names (what a restart takes up)."""
        saved = load_saved_cart(self.resume_file)
        return saved.cart_id if saved is not None else None

    def attempt(self, work: Any) -> Any:
        """A kiosk intent; a StorefrontError is a refusal the customer is told of (recorded by
        its code). Anything else escapes and fails the test."""
        try:
            return self.run(work)
        except StorefrontError as exc:
            self.refusals[f"{type(exc).__name__}:{exc.code}"] += 1
            return None
        finally:
            self._note_paid()

    def _note_paid(self) -> None:
        order = self.visit.state.order
        number = order.order_number if order.phase is Phase.PAID else None
        if number and (self.paid is None or self.paid[0] != number):
            self.paid = (number, self.clock.now)

    @property
    def open_order(self) -> bool:
        return self.phase is Phase.ORDERING and self.cart_id is not None

    def lines(self) -> list[Any]:
        cart = self.visit.state.cart
        return list(cart.items) if cart is not None else []

    # -- the customer: the way to order ------------------------------------------------------------

    @initialize(data=st.data())
    def first_a_way(self, data: st.DataObject) -> None:
        self.choose_a_way(data)

    @rule(data=st.data())
    def step(self, data: st.DataObject) -> None:
        """One step: mostly the customer, now and then the server or the terminal (one rule with
        weights: Hypothesis picks among rules evenly and switches some off for a whole run, which
        left most runs without a payment)."""
        who = data.draw(st.sampled_from(STEPS), label="who")
        if who == "customer":
            self.the_customer(data)
        elif who == "server":
            self.the_server(data)
        else:
            self.restart(data.draw(st.booleans(), label="takeover"))

    def the_customer(self, data: st.DataObject) -> None:
        """What the customer can do on the screen the order is on (one rule, its action drawn
        from those of the phase, so that no step of a run is wasted on an action not offered)."""
        phase = self.phase
        if phase is Phase.ORDERING and self.cart_id is None:
            actions = ["choose_a_way"]
        elif phase is Phase.ORDERING:
            actions = ["add_a_line", "add_a_line", "apply_a_code", "choose_a_later_time"]
            actions += ["choose_a_way", "checkout", "checkout", "look", "start_over"]
            if self.lines():
                actions += ["change_quantity", "remove_a_line"]
        elif phase is Phase.AWAITING_PAYMENT:
            actions = ["pay_on_the_phone", "pay_on_the_phone", "look", "back_to_the_order"]
            actions += ["start_over"]
        elif phase is Phase.DECLINED:
            actions = ["pay_again", "look", "back_to_the_order", "start_over"]
        else:
            actions = ["start_over"]
        action = data.draw(st.sampled_from(actions), label="action")
        getattr(self, action)(data)

    def start_over(self, data: Any = None) -> None:
        self.attempt(self.visit.reset())

    def choose_a_way(self, data: Any, table: str | None = None) -> None:
        """The welcome screen: a way to order with its details (a new cart, or the same cart
        switched to another way)."""
        way = data if isinstance(data, str) else data.draw(st.sampled_from(self.WAYS), label="way")
        table = table or "8"
        details: dict[str, Any] = {
            "table_service": {"table_number": table},
            "delivery": {"delivery": self.ADDRESS},
            "room_service": {"room": ("Okafor", "304")},
        }.get(way, {})
        self.attempt(self.visit.start(way, **details))

    def add_a_line(self, data: st.DataObject) -> None:
        product = data.draw(st.sampled_from(self.PRODUCTS), label="product")
        self.attempt(self.visit.add_item(product, data.draw(st.sampled_from([1, 2]), label="qty")))

    def change_quantity(self, data: st.DataObject) -> None:
        line = data.draw(st.sampled_from(self.lines()), label="line")
        quantity = data.draw(st.sampled_from([1, 3, 20]), label="quantity")
        self.attempt(self.visit.set_quantity(line.id, quantity))

    def remove_a_line(self, data: st.DataObject) -> None:
        line = data.draw(st.sampled_from(self.lines()), label="line")
        self.attempt(self.visit.remove_item(line.id))

    def apply_a_code(self, data: st.DataObject) -> None:
        """HARBOUR10, BIG100 (refused below £100.00: MINIMUM_NOT_MET), or an unknown code."""
        self.attempt(
            self.visit.apply_discount(data.draw(st.sampled_from(self.CODES), label="code"))
        )

    def choose_a_later_time(self, data: st.DataObject) -> None:
        """From the list of times the kiosk has (read through the client's cache: it may offer
        a slot taken since)."""
        intervals = self.attempt(self.visit.time_intervals())
        if intervals is None:
            return
        slots = [(d.value, t) for d in intervals.order_days for t in d.intervals]
        if slots:
            day, at = slots[data.draw(st.integers(0, 6), label="slot") % len(slots)]
            self.attempt(self.visit.set_order_time_later(day, at))

    def checkout(self, data: Any = None) -> None:
        self.attempt(self.visit.checkout("Test order", ""))

    def back_to_the_order(self, data: Any = None) -> None:
        self.attempt(self.visit.reopen_order())

    def pay_on_the_phone(self, data: Any) -> None:
        """The customer pays with the code shown (or the card is declined), `delay` s from now;
        the kiosk waits up to 120 s (400: it lands after the wait gave up, for a look to find)."""
        delay = data if isinstance(data, int) else data.draw(st.sampled_from([3, 40, 400]))
        declined = not isinstance(data, int) and data.draw(st.booleans(), label="declined")
        cart_id = self.cart_id
        assert cart_id is not None

        paid: list[bool] = []

        async def pay() -> None:
            with contextlib.suppress(PaymentRefused):
                handoff = self.store.latest_handoff(cart_id)
                if declined:
                    self.store.decline(cart_id, handoff)
                else:
                    self.store.pay(cart_id, handoff)
                    paid.append(True)

        self.clock.call_later(delay, pay)
        result = self.attempt(self.visit.wait_for_payment(timeout=120))
        if paid and delay < 120:
            # Paid while the kiosk waited: the wait ends with the order and its number.
            assert result is not None and result.outcome is PaymentOutcome.COMPLETED, result
            assert self.phase is Phase.PAID
        if delay > 120:
            self.run(self.clock.sleep(delay))
            self.look_at_the_payment()  # order_pending: the order is being placed
        self.look_at_the_payment()

    def pay_again(self, data: Any = None) -> None:
        self.attempt(self.visit.pay_again())

    def look(self, data: Any = None) -> None:
        """The customer presses "I have paid", or the screen reads the cart: the kiosk asks."""
        if self.phase in (Phase.AWAITING_PAYMENT, Phase.DECLINED):
            self.look_at_the_payment()
        elif self.phase is Phase.ORDERING:
            self.attempt(self.visit.refresh())

    def look_at_the_payment(self) -> None:
        """One look at order-result: an order the server had completed before it is PAID, with
        the server's number (the invariants check the number)."""
        cart = self.server_cart()
        completed = cart is not None and cart.result == "completed"
        if self.phase not in (Phase.AWAITING_PAYMENT, Phase.DECLINED):
            return
        self.attempt(self.visit.check_payment())
        if completed:
            assert self.phase is Phase.PAID, self.phase

    # -- the server, in the middle of an order -----------------------------------------------------

    def the_server(self, data: st.DataObject) -> None:
        """Something happens on the server's side."""
        event = data.draw(st.sampled_from(EVENTS), label="event")
        getattr(self, event)(data)

    def the_cart_expires(self, data: st.DataObject) -> None:
        cart = self.server_cart()
        if cart is not None and cart.status == "OPEN":
            self.store.expire_cart(cart.id)
            self.expired = cart.id
            self.expired_at = len(self.server.log)

    def a_product_sells_out(self, data: st.DataObject) -> None:
        """A product of the order (or any, when it has none) sells out."""
        in_cart = [line.product_id for line in self.lines()]
        product = data.draw(st.sampled_from(in_cart or list(self.PRODUCTS)))
        self.store.sell_out(product, self.LOCATION)

    def a_product_comes_back(self, data: st.DataObject) -> None:
        self.store.restock(data.draw(st.sampled_from(self.PRODUCTS)), self.LOCATION)

    def a_way_is_switched_off(self, data: st.DataObject) -> None:
        """The order's own way to order (or another) is switched off."""
        mine = self.visit.state.fulfillment_method
        way = mine if mine in API_WAY and data.draw(st.booleans()) else None
        way = way or data.draw(st.sampled_from(self.WAYS))
        self.store.switch(API_WAY[way], False, self.LOCATION)

    def a_way_is_switched_on(self, data: st.DataObject) -> None:
        self.store.switch(API_WAY[data.draw(st.sampled_from(self.WAYS))], True, self.LOCATION)

    def slots_are_taken(self, data: st.DataObject) -> None:
        """Today's slots after a time are taken (and the cart's own, if it holds one)."""
        after = data.draw(st.sampled_from(["00:00", "16:30", "20:00"]))
        cart = self.server_cart()
        times = (cart.order_time,) if cart is not None and cart.pickup_type != "ASAP" else ()
        self.store.take_slots(times, after=after, location_id=self.LOCATION)

    def the_card_is_declined(self, data: st.DataObject) -> None:
        cart_id = self.cart_id
        if cart_id is not None and self.phase is Phase.AWAITING_PAYMENT:
            with contextlib.suppress(PaymentRefused):
                self.store.decline(cart_id, self.store.latest_handoff(cart_id))

    def a_late_payment_on_an_earlier_code(self, data: st.DataObject) -> None:
        """The customer pays with the first code this cart was given (still payable until its
        own expiry), whatever the kiosk shows now."""
        cart_id = self.cart_id
        earlier = self.store.handoffs_of(cart_id) if cart_id is not None else []
        if earlier and self.phase is not Phase.PAID:
            with contextlib.suppress(PaymentRefused):
                self.store.pay(cart_id, earlier[0])

    # -- the terminal ------------------------------------------------------------------------------

    def restart(self, takeover: bool) -> None:
        """kill -9 (the process sends nothing more) and a new start on the same state folder;
        or a takeover: a new session while the old one is left as it was."""
        if not takeover:
            self.run(self.services.aclose())
        self.visit = self._new_visit()
        cart = self.server_cart_of(self.saved_cart_id())
        completed = cart is not None and cart.result == "completed"
        self.attempt(self.visit.resume_saved())
        if completed:
            # A restart asks where the payment stands at once: the number is shown now.
            assert self.phase is Phase.PAID, self.phase

    # -- invariants ------------------------------------------------------------------------------

    @invariant()
    def the_order_shown_is_the_servers(self) -> None:
        cart = self.server_cart()
        state = self.visit.state
        if cart is None or self.phase is not Phase.ORDERING or cart.status != "OPEN":
            return
        if state.status.kind in ("busy", "waiting"):
            return
        body = cart_body(cart)
        mine = state.cart
        assert state.fulfillment_method is not None
        way = V2_FULFILLMENT[state.fulfillment_method]  # type: ignore[index]
        assert way == cart.method, (state.fulfillment_method, cart.method)
        if cart.method == "table_side":
            assert state.table_number == cart.table
        held = Counter({ln.product.id: 0 for ln in cart.lines})
        for ln in cart.lines:
            held[ln.product.id] += ln.quantity
        shown = Counter({item.product_id: 0 for item in self.lines()})
        for item in self.lines():
            shown[item.product_id] += item.quantity
        assert shown == held, (shown, held)
        if mine is None:
            # A new cart, known empty and not read back.
            assert not cart.lines and not cart.discount_code
            return
        assert (mine.discount_code or None) == cart.discount_code
        total = int(Decimal(body["orderTotalWithServiceFee"]) * 100)
        assert mine.order_total_with_service_fee == total
        if cart.pickup_type == "ASAP":
            assert state.order_time.is_asap, state.order_time
        else:
            chosen = (state.order_time.order_date, state.order_time.order_time)
            assert chosen == (cart.order_date, cart.order_time)

    @invariant()
    def an_expired_cart_is_not_shown_alive(self) -> None:
        """Once the kiosk has sent anything about the expired cart (the server answered it
        with the cart's status), it says so: EXPIRED, with one way forward (a new order)."""
        if self.expired is None or self.cart_id != self.expired:
            return
        about = f"/carts/{self.expired}"
        if any(about in path for _, path, _ in self.server.log[self.expired_at :]):
            assert self.phase in (Phase.EXPIRED, Phase.PAID), self.phase

    @invariant()
    def the_number_shown_is_the_servers(self) -> None:
        order = self.visit.state.order
        if order.phase is Phase.PAID:
            cart = self.server_cart()
            assert cart is not None and cart.order is not None
            assert order.order_number == cart.order["shortId"]

    @invariant()
    def a_paid_number_is_shown_or_recallable(self) -> None:
        if self.paid is None:
            return
        number, at = self.paid
        if self.clock.now - at >= RECALL_WINDOW:
            return
        shown = self.visit.state.order.order_number
        assert number in (shown, self.visit.recent.get()), (number, shown)

    @invariant()
    def a_way_forward(self) -> None:
        assert self.phase not in MIDWAY, self.phase

    @invariant()
    def no_contract_breach(self) -> None:
        assert self.server.violations == [], self.server.violations


EXAMPLES = int(os.environ.get("KIOSK_ORDER_MACHINE_EXAMPLES", "150"))
VisitMachine.TestCase.settings = settings(
    max_examples=EXAMPLES,
    stateful_step_count=20,
    deadline=None,
    derandomize=True,
    # Shrinking a failure of this machine can take minutes; the printed steps are enough.
    phases=[Phase_.explicit, Phase_.reuse, Phase_.generate],
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much],
)
TestTheOrderIsTheServers = VisitMachine.TestCase


class BondiMachine(VisitMachine):
    """At Harbour Noodles Bondi (Sydney time, AUD): table and delivery only, no tips, an
    A$100 minimum code."""

    SEED = staticmethod(harbour_and_bondi)
    LOCATION = BONDI_LOCATION_ID
    PRODUCTS = ("prod_bondi_laksa", "prod_bondi_lemonade")
    WAYS = ("table_service", "delivery")
    ADDRESS = DeliveryAddress(
        street="12 Hall St",
        city="Bondi Beach",
        state="NSW",
        zip_code="2026",
        country="AU",
        lat=-33.8908,
        lng=151.2743,
    )
    CODES = ("BIG100", "NOPE42")


BondiMachine.TestCase.settings = settings(
    VisitMachine.TestCase.settings, max_examples=max(1, EXAMPLES // 3)
)
TestTheOrderIsTheServersAtBondi = BondiMachine.TestCase


# -- sequences the machine found, and the stories every run must cover ----------------------------
# Each runs the machine's own steps in order, with every invariant checked after each step.

INVARIANTS = [
    name
    for name in dir(VisitMachine)
    if getattr(getattr(VisitMachine, name), "hypothesis_stateful_invariant", None) is not None
]


def play(*steps: Any) -> VisitMachine:
    machine = VisitMachine()
    try:
        for step in steps:
            step(machine)
            for name in INVARIANTS:
                getattr(machine, name)()
    finally:
        machine.teardown()
    return machine


def test_a_restart_after_the_cart_expired_at_payment_deletes_it_by_its_revision() -> None:
    """Found by the machine: the restarted client had only asked order-result, so its DELETE of
    the expired cart named no revision and the server answered 428 (a contract breach)."""
    machine = play(
        lambda m: m.choose_a_way("room_service"),
        lambda m: m.add_a_line(Fixed("prod_crackers", 1)),
        lambda m: m.checkout(),
        lambda m: m.the_cart_expires(None),
        lambda m: m.restart(False),
    )
    assert machine.phase is Phase.ORDERING and machine.cart_id is None


def test_pay_again_refused_for_a_slot_taken_since_goes_back_to_the_order() -> None:
    """Found by the machine: declined, then the order's later time was taken; "pay again" was
    refused (SLOT_UNAVAILABLE) and left the order CHECKING_OUT, with nothing to press."""

    def later(m: VisitMachine) -> None:
        m.choose_a_later_time(Fixed(2))
        assert not m.visit.state.order_time.is_asap

    machine = play(
        lambda m: m.choose_a_way("table_service", "12"),
        later,
        lambda m: m.add_a_line(Fixed("prod_crackers", 2)),
        lambda m: m.checkout(),
        lambda m: m.pay_on_the_phone(Fixed(3, True)),
        lambda m: m.slots_are_taken(Fixed("16:30")),
        lambda m: m.pay_again(),
    )
    assert machine.phase is Phase.ORDERING
    assert machine.refusals["InvalidRequestError:VALIDATION_ERROR"] == 1


def test_a_restart_after_the_orders_way_was_switched_off_keeps_its_time_and_says_why() -> None:
    """Found by the machine: a restart whose way to order the location no longer offers kept the
    cart but lost the order's later time (the screen said as soon as possible, the server held
    16:15) and the server's words (the store's state, read after them, had none)."""
    machine = play(
        lambda m: m.choose_a_way("delivery"),
        lambda m: m.choose_a_later_time(Fixed(0)),
        lambda m: m.add_a_line(Fixed("prod_jasmine_tea", 1)),
        lambda m: m.a_way_is_switched_off(Fixed(True)),
        lambda m: m.restart(False),
    )
    state = machine.visit.state
    # The refusal is said where the welcome reads it (VisitState.way_refused).
    assert state.way_refused == (
        "Delivery orders are not available at Harbour Noodles Quayside right now."
    )
    assert state.order_time.order_time == "16:15" and len(state.cart.items) == 1


def test_a_restart_after_a_late_payment_on_the_kept_code_shows_the_number() -> None:
    """Found by the machine: back on the order after the hand-off, the customer paid with the
    code still on their phone; a write was refused (the cart locked) and the order placed; a
    restart then resumed the record (ordering) as an open cart, found it completed and forgot
    it: the number was lost. Now the kept code's payment is asked for first."""
    machine = play(
        lambda m: m.choose_a_way("room_service"),
        lambda m: m.add_a_line(Fixed("prod_jasmine_tea", 1)),
        lambda m: m.checkout(),
        lambda m: m.back_to_the_order(),
        lambda m: m.a_late_payment_on_an_earlier_code(None),
        lambda m: m.apply_a_code(Fixed("NOPE42")),
        lambda m: m.restart(False),
    )
    assert machine.phase is Phase.PAID and machine.paid is not None
    assert machine.visit.recent.get() == machine.paid[0]


class Fixed:
    """A stand-in for Hypothesis's `data` in a scripted sequence: its draws, in order."""

    def __init__(self, *values: Any) -> None:
        self.values = list(values)

    def draw(self, strategy: Any, label: str | None = None) -> Any:
        return self.values.pop(0)
