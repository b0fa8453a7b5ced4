"""The Visit: one customer's whole visit at one terminal, headless (no Textual).

It holds the location and its clock (kiosk.ordering.clock) and the order's owner, the CartStore
(made per location; the Visit asks it, never reaches into its record). Its jobs beside it, each
offered on the visit as its intents: the reads (kiosk.ordering.catalogue), the order's time
(timing), paying (paying), the same order again (reorder), a restart's take-up (visit_resume).
What a location's server can do is published as a value (VisitState.abilities).

After every change it publishes one immutable `VisitState`; a screen renders the state and calls an
intent (a method here). No screen calls the Storefront client. The TUI, the benches' scripted
customer and the tests drive the same Visit.

Rate limits: the client never sleeps on a 429 (the composition root builds it with `max_wait=0`);
a write refused by the rate limit is waited out here, inside the store, with `state.status` saying
"waiting" and the seconds left from the first second. A read refused by the rate limit raises
RateLimitedError at once, carrying retry_after, for the screen's countdown (see kiosk/tui/screens/
base.py RateLimitWait).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Awaitable, Callable, Coroutine, Mapping, Sequence
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, Concatenate, ParamSpec, TypeVar

from kiosk.api.errors import ConflictError, StorefrontError
from kiosk.ordering.abilities import Abilities, served_abilities
from kiosk.ordering.cart_store import (
    IDLE,
    CartStore,
    CheckoutResult,
    StoreStatus,
    store_at,
)
from kiosk.ordering.catalogue import Catalogue
from kiosk.ordering.clock import LocationClock, country_of, set_region
from kiosk.ordering.delivery import DeliveryOffer, details_from_form
from kiosk.ordering.events import Listeners, OrderEvent, OrderObserver, tell
from kiosk.ordering.lifecycle import OrderSnapshot, Phase
from kiosk.ordering.paying import OrderPaidError, Paying, close_order, paid_meanwhile
from kiosk.ordering.recent import RECENT_FILE, RecentNumber
from kiosk.ordering.reorder import LineKeptError, ReopenResult, replace_line
from kiosk.ordering.selections import request_selections, same_selections
from kiosk.ordering.timing import OrderTiming
from kiosk.ordering.visit_resume import ResumeOutcome, quietly, resume_saved
from kiosk.ordering.visit_state import (
    CUSTOMER_FIELDS,
    OrderTime,
    VisitState,
    resumed_fields,
    way_fields,
)

if TYPE_CHECKING:
    from kiosk.api import StorefrontBase
    from kiosk.api.models import (
        Cart,
        CartItem,
        DeliveryAddress,
        FulfillmentMethod,
        Location,
        PaymentIntent,
        ProductDetail,
    )
    from kiosk.config import DeliveryZone
    from kiosk.ordering.modifiers import SelectionState

__all__ = [
    "Abilities",
    "LineKeptError",
    "OrderPaidError",
    "OrderTime",
    "ReopenResult",
    "ResumeOutcome",
    "Visit",
    "VisitState",
    "request_selections",
    "same_selections",
    "selection_for_line",
]

log = logging.getLogger("kiosk.ordering")

VisitListener = Callable[["VisitState"], None]


def selection_for_line(product: ProductDetail, item: CartItem) -> SelectionState:
    """The product screen's starting choice when a cart line is edited: the line's own choices
    (an option the product no longer has is dropped; the rules then say what is missing)."""
    from kiosk.ordering.modifiers import SelectionState

    chosen: dict[tuple[str, ...], int] = {}

    def walk(groups: list[dict[str, Any]], prefix: tuple[str, ...]) -> None:
        for group in groups:
            for option in group["selectedOptions"]:
                key = (*prefix, group["groupId"], option["optionId"])
                quantity = option.get("quantity", 1)
                chosen[key] = quantity if isinstance(quantity, int) and quantity > 0 else 1
                walk(option.get("children") or [], key)

    walk(request_selections(item.selections), ())
    return SelectionState(product, chosen)


P = ParamSpec("P")
R = TypeVar("R")


def _owner_intent(
    method: Callable[Concatenate[CartStore, P], Awaitable[R]],
) -> Callable[Concatenate[Visit, P], Coroutine[Any, Any, R]]:
    """An intent of the order's owner (a CartStore method) as an intent of the visit."""

    async def intent(visit: Visit, /, *args: P.args, **kwargs: P.kwargs) -> R:
        result: R = await visit.on_store(lambda store: method(store, *args, **kwargs))
        return result

    intent.__name__ = method.__name__
    intent.__doc__ = method.__doc__
    return intent


class Visit:
    """One customer's visit. `client_for(location_id)` gives the location's client (keys are per
    location); `location_ids` are the locations this kiosk serves (one: a fixed location)."""

    def __init__(
        self,
        client_for: Callable[[str], StorefrontBase],
        location_ids: Sequence[str],
        *,
        wall_clock: Callable[[], float] = time.time,
        cart_id_file: Path | None = None,
        store_options: Mapping[str, Any] | None = None,
        merchant_slug: str | None = None,
        delivery_zones: Sequence[DeliveryZone] = (),
        observer: OrderObserver | None = None,
    ) -> None:
        self._client_for = client_for
        # Told when an order starts, is paid, declined, abandoned or reset (kiosk.metrics).
        self.observer = observer
        # The order this visit counts: None (none yet), "open", or "paid" (each told once).
        self._order: str | None = None
        self.location_ids = list(location_ids)
        self.wall_clock = wall_clock
        self.cart_id_file = cart_id_file
        self.store_options = dict(store_options or {})
        self.merchant_slug = merchant_slug
        self.delivery_zones = tuple(delivery_zones)
        # The customer's chosen locale (a language choice), None: the location's or the default.
        self._locale: str | None = None
        self.state = VisitState(
            location_id=self._home(),
            served=self._served(),
        )
        self._store: CartStore | None = None
        self._store_unsubscribe: list[Callable[[], None]] = []
        self._listeners: Listeners[VisitState] = Listeners("visit")
        # The reads (kiosk.ordering.catalogue) are offered on the visit as the catalogue has them.
        catalogue = self._catalogue = Catalogue(
            client_for, lambda: self.state, self._set, self.choose_location, merchant_slug
        )
        # Option and group id -> name, from the product details read during this run.
        self.option_names = catalogue.option_names
        self.load_location = catalogue.load_location
        self.merchant_listing = catalogue.merchant_listing
        self.location_ways = catalogue.location_ways
        self.product = catalogue.product
        self.picture = catalogue.picture
        self.tip_settings = catalogue.tip_settings
        self.time_intervals = catalogue.time_intervals
        self.cross_sell = catalogue.cross_sell
        self.suggestion = catalogue.suggestion
        self.learn_option_names = catalogue.learn_option_names
        # The order's time as the location allows it (kiosk.ordering.timing).
        timing = self._timing = OrderTiming(self, catalogue)
        self.menus = timing.menus
        self.menu_slot = timing.menu_slot
        self.schedule_if_required = timing.schedule_if_required
        # Discards of abandoned carts still running (the next visit's writes queue behind them).
        self._discards: set[asyncio.Task[bool]] = set()
        # Paying for the order (kiosk.ordering.paying): its intents, offered as they are.
        paying = Paying(self)
        self.reopen_order = paying.reopen_order
        self.start_again = paying.start_again
        self.confirm_demo_payment = paying.confirm_demo_payment
        self.check_payment = paying.check_payment
        self.pay_again = paying.pay_again
        self.choose_counter = paying.choose_counter
        self.kept_handoff_seconds_left = paying.kept_handoff_seconds_left
        self.watch_kept_handoff = paying.watch_kept_handoff
        self.wait_for_payment = paying.wait_for_payment
        self.keep_paying = paying.keep_paying
        # The last paid order's number, kept beside the resume file (kiosk.ordering.recent).
        self.recent = RecentNumber(
            cart_id_file.with_name(RECENT_FILE) if cart_id_file is not None else None,
            wall_clock,
        )

    def __repr__(self) -> str:
        return f"Visit(location_id={self.state.location_id!r}, cart_id={self.state.cart_id!r})"

    # ------------------------------------------------------------------ state and subscriptions

    @property
    def fixed_location(self) -> bool:
        return len(self.location_ids) == 1

    def _home(self) -> str | None:
        return self.location_ids[0] if len(self.location_ids) == 1 else None

    def _served(self) -> tuple[tuple[str, Abilities], ...]:
        return served_abilities(self.location_ids, self._client_for, self.delivery_zones)

    def subscribe(self, callback: VisitListener) -> Callable[[], None]:
        """Call `callback(state)` after every change. Returns an unsubscribe."""
        return self._listeners.add(callback)

    def _set(self, **changes: Any) -> None:
        state = replace(self.state, **changes)
        if state == self.state:
            return
        if state.location is not self.state.location:
            # Times of day are written the way the location's country writes them.
            set_region(country_of(state.location))
        self.state = state
        self._listeners.tell(state)

    @property
    def location_id(self) -> str | None:
        return self.state.location_id

    @property
    def cart(self) -> Cart | None:
        return self.state.cart

    @property
    def cart_id(self) -> str | None:
        return self.state.cart_id

    @property
    def status(self) -> StoreStatus:
        return self.state.status

    @property
    def locale(self) -> str | None:
        """The locale prices are drawn in (`kiosk.api.money.format_money`): the location's when
        its record names one, else None (the formatter's default). A language choice sets it."""
        chosen = self._locale
        if chosen:
            return chosen
        named = getattr(self.state.location, "locale", None)
        return named if isinstance(named, str) and named else None

    @locale.setter
    def locale(self, value: str | None) -> None:
        self._locale = value

    @property
    def payment_intent(self) -> PaymentIntent | None:
        """The open payment intent (its client secret is for the processor only)."""
        return self._store.payment_intent if self._store is not None else None

    @property
    def clock(self) -> LocationClock:
        """The location's clock (time of day in its timezone)."""
        return LocationClock(self.state.location, self.wall_clock)

    def opening(self, location: Any = None) -> Any:
        """Opening hours and open/closed now at `location` (default: the visit's)."""
        from kiosk.ordering.hours import opening_status

        target = location if location is not None else self.state.location
        return opening_status(target, LocationClock(target, self.wall_clock).utc_now())

    @property
    def client(self) -> StorefrontBase:
        location_id = self.state.location_id
        if location_id is None:
            raise LookupError("no location chosen yet")
        return self._client_for(location_id)

    def client_for(self, location_id: str) -> StorefrontBase:
        return self._client_for(location_id)

    # ------------------------------------------------------------------ the store (one owner)

    def _make_store(self, location_id: str) -> CartStore:
        return store_at(
            self._client_for(location_id),
            location_id,
            self.state.location,
            clock=self.wall_clock,
            cart_id_file=self.cart_id_file,
            options=self.store_options,
        )

    def _use_store(self, store: CartStore | None) -> None:
        for stop in self._store_unsubscribe:
            stop()
        self._store_unsubscribe.clear()
        self._store = store
        if store is not None:
            # One handler: whatever the store publishes of the order (a cart, a row of its
            # lifecycle), the visit's state is derived again from the store as it is. The
            # writer's status is only that (it says nothing of the order).
            for channel in (store.subscribe, store.subscribe_order):
                self._store_unsubscribe.append(channel(lambda _news: self.sync_store()))
            status = store.subscribe_status(lambda status: self._set(status=status))
            self._store_unsubscribe.append(status)
        self.sync_store()

    def sync_store(self) -> None:
        """VisitState's part that is the store's: the cart, its id, the status, the order's
        record and the way to order derived from them (the one place it is derived)."""
        store = self._store
        if store is None:
            self._set(
                cart=None,
                cart_id=None,
                status=IDLE,
                session_message=None,
                paying=False,
                order=OrderSnapshot(),
            )
            return
        before = self.state.order
        self._set(
            cart=store.cart,
            cart_id=store.cart_id,
            status=store.status,
            session_message=store.session_message,
            paying=store.payment_intent is not None,
            order=store.order,
        )
        if store.cart_id is not None and store.phase is not Phase.CANCELLED:
            # The way to order is the server's cart's where it says one, else the record kept
            # (not a cancelled order's: the visit that ended it cleared its way already).
            self._set(**way_fields(store.cart, store.order))
        if store.order != before:
            self._order_moved(before.phase, store.order)

    def _order_moved(self, before: Phase, order: OrderSnapshot) -> None:
        # The lifecycle is the one place an order's fate is decided, so it is counted here
        # (kiosk.metrics): paid once per order, each decline as it is told.
        if order.phase is Phase.PAID:
            # Whoever heard it (the payment screen, a kept code's watch, a restart): offered
            # again on this terminal's first screen for a while.
            self.recent.remember(order.order_number)
        if order.phase is Phase.PAID and self._order == "open":
            self._order = "paid"
            tell(self.observer, OrderEvent.PAID)
        elif order.phase is Phase.DECLINED and before is not Phase.DECLINED:
            tell(self.observer, OrderEvent.DECLINED)

    def need_store(self) -> CartStore:
        if self._store is None:
            location_id = self.state.location_id
            if location_id is None:
                raise LookupError("no location chosen yet")
            self._use_store(self._make_store(location_id))
        assert self._store is not None
        return self._store

    async def on_store(self, work: Callable[[CartStore], Awaitable[Any]]) -> Any:
        store = self.need_store()
        try:
            return await work(store)
        except ConflictError:
            await paid_meanwhile(store)
            raise
        except StorefrontError as exc:
            await self.reread_refused(exc)
            raise
        finally:
            self.sync_store()

    # ------------------------------------------------------------------ location

    def choose_location(self, location_id: str, location: Location | None = None) -> None:
        """Pick the location (the location screen, or the fixed one once it is loaded). A
        different location gets a fresh store; the caller ends any visit of the old one first."""
        changed = location_id != self.state.location_id or self._store is None
        self._set(location_id=location_id, location=location or self.known_location(location_id))
        if changed:
            self._use_store(self._make_store(location_id))
        elif self._store is not None and location is not None:
            # The location's record arrived: the store now knows its slug and timezone too.
            self._store.know_location(
                (location.id, location.restaurant_slug), LocationClock(location, self.wall_clock)
            )

    def known_location(self, location_id: str) -> Location | None:
        location = self.state.location
        if location is not None and location_id in (location.id, location.restaurant_slug):
            return location
        return None

    # ------------------------------------------------------------------ reads

    # ------------------------------------------------------------------ intents: the order

    async def start(
        self,
        fulfillment_method: FulfillmentMethod | str,
        *,
        table_number: str | None = None,
        delivery: DeliveryAddress | None = None,
        room: tuple[str, str] | None = None,
    ) -> Cart | None:
        """Start (or switch) the ordering session with the fulfillment's details. A failure
        leaves the store as it is, so a retry switches the same cart instead of making another."""
        store = self.need_store()
        try:
            cart = await store.start(
                fulfillment_method, table_number=table_number, delivery=delivery, room=room
            )
            if store.cart is None and store.session_message:
                # A fresh cart is known empty; but the server said something about it (closed
                # now: scheduled for later), and the menu depends on the order time: one read.
                cart = await store.refresh()
        except StorefrontError as exc:
            await self.reread_refused(exc)
            raise
        finally:
            self.sync_store()
        if self._order is None:
            self._order = "open"
            tell(self.observer, OrderEvent.STARTED)
        # The way itself is the store's record (WAY_CHOSEN) and the server's cart, derived in
        # _sync_store: only the refusal it answers is cleared here.
        self._set(way_refused=None)
        return cart

    async def start_with_details(
        self, method: str, details: Mapping[str, str], location: Location | None = None
    ) -> Cart | None:
        """`start` from the welcome screen's form fields (delivery.details_from_form)."""
        location = location or self.state.location
        where = self.state.location_id or ""
        kwargs = await details_from_form(
            method, details, location, lambda: self.client, where, self.delivery_zones
        )
        return await self.start(method, **kwargs)

    def delivery_offer(self) -> DeliveryOffer:
        """Whether delivery can be offered here at all (the welcome screen hides it if not; the
        staff screen says why)."""
        return self.state.abilities.delivery

    # ------------------------------------------------------------------ intents: the owner's
    # The order's owner's own intents, offered as they are (each through `_on_store`: the store
    # made when needed, a refusal re-read, a payment made meanwhile said, the state synced).
    add_item = _owner_intent(CartStore.add_item)
    set_quantity = _owner_intent(CartStore.set_quantity)
    remove_item = _owner_intent(CartStore.remove_item)
    apply_discount = _owner_intent(CartStore.apply_discount)
    remove_discount = _owner_intent(CartStore.remove_discount)
    set_tip = _owner_intent(CartStore.set_tip)
    set_no_tip = _owner_intent(CartStore.set_no_tip)
    set_delivery = _owner_intent(CartStore.set_delivery)
    set_table = _owner_intent(CartStore.set_table)
    set_room = _owner_intent(CartStore.set_room)
    refresh = _owner_intent(CartStore.refresh)
    validate = _owner_intent(CartStore.validate)
    begin_payment = _owner_intent(CartStore.begin_payment)
    poll = _owner_intent(CartStore.poll)

    async def replace_line(
        self,
        item_id: str,
        quantity: int,
        selections: SelectionState | Sequence[Mapping[str, Any]],
    ) -> Cart | None:
        """A cart line edited on the product screen (kiosk.ordering.reorder.replace_line)."""
        return await replace_line(self, self.state.cart, item_id, quantity, selections)

    @property
    def asap_refused(self) -> str | None:
        """Why this visit's location takes no order for now (kiosk.ordering.timing)."""
        return self._timing.asap_refused

    @property
    def scheduled_first(self) -> tuple[str, str] | None:
        """The later slot the order was set to because none is taken for now (timing)."""
        return self._timing.scheduled_first

    @property
    def can_remove_discount(self) -> bool:
        """False once this location's server showed it cannot remove a code (a legacy server
        without the route): the cart screen hides the button, and F9 starts over without it."""
        location_id = self.state.location_id
        return location_id is None or self._client_for(location_id).offers("remove_discount")

    async def set_order_time_asap(self) -> Cart | None:
        cart = await self.on_store(lambda s: s.set_order_time_asap())
        self._set(order_time=OrderTime())
        return cart

    async def set_order_time_later(self, order_date: str, order_time: str) -> Cart | None:
        cart = await self.on_store(lambda s: s.set_order_time_later(order_date, order_time))
        self._set(order_time=OrderTime(order_date, order_time))
        return cart

    # ------------------------------------------------------------------ checkout and payment

    def remember_customer(self, name: str, email: str) -> None:
        self._set(customer_name=name, email_address=email)

    async def set_customer(self, name: str, email: str) -> Cart | None:
        self.remember_customer(name, email)
        return await self.on_store(lambda s: s.set_customer(name, email))

    async def checkout(self, name: str, email: str) -> CheckoutResult:
        """Customer details, validation and, when valid, the payment intent (one cart read)."""
        self.remember_customer(name, email)
        # A later-only location refuses an order for as soon as possible (the cart screen set
        # and said the first slot already; this covers a checkout that came before it could).
        await self.schedule_if_required()
        return await self.on_store(lambda s: s.checkout(name, email))

    # ------------------------------------------------------------------ idle, reset, quit

    def end(self, reason: OrderEvent = OrderEvent.RESET) -> Awaitable[bool]:
        """Start over now: every field cleared at once, the cart discarded on the server in the
        background (a completed order's cart is only forgotten). With a fixed location the next
        customer's writes queue behind the discard on the same store (its lock is FIFO). Returns
        the discard, for whoever wants to wait for it (True: the server confirmed the delete).
        `reason` is what an unpaid order's end counts as: RESET (asked for) or ABANDONED (idle)."""
        if self._order == "open":
            tell(self.observer, reason)
        self._order = None
        store = self._store
        self._catalogue.new_visit()
        self._timing.new_visit()
        keep = store if self.fixed_location and store is not None else None
        if keep is None:
            self._use_store(None)
        location = self.state.location if self.fixed_location else None
        self._set(location_id=self._home(), location=location, **CUSTOMER_FIELDS)
        if store is None:
            done: asyncio.Future[bool] = asyncio.get_running_loop().create_future()
            done.set_result(True)
            return done
        task = asyncio.ensure_future(quietly(store.discard()))
        self._discards.add(task)
        task.add_done_callback(self._discards.discard)
        return task

    async def reset(self) -> bool:
        """`end()` and wait for the discard."""
        return await self.end()

    def serve_locations(self, location_ids: Sequence[str]) -> Awaitable[bool]:
        """Serve `location_ids` from now on (staff). The visit in progress ends first."""
        ids = list(location_ids)
        if not ids:
            raise ValueError("a kiosk serves at least one location")
        discard = self.end()
        self._use_store(None)
        self.location_ids = ids
        self._set(
            location_id=self._home(),
            location=None,
            served=self._served(),
        )
        return discard

    async def quit(self, *, keep_cart: bool = True) -> None:
        """The kiosk is closing normally. An open order is kept, on the server and in the resume
        file, for the next start (journey 16: a quit is not "start over", the one way an order
        is deleted); `keep_cart=False` deletes it (a caller that chose to clear it)."""
        if self._store is not None:
            await close_order(self._store, keep_cart=keep_cart)
        if self._discards:
            await asyncio.gather(*self._discards, return_exceptions=True)

    # ------------------------------------------------------------------ refusals

    async def reread_refused(self, exc: StorefrontError) -> None:
        """The server refused something about the order: what the refusal concerns is read again
        from the server and published, so that screens show what the server holds and offer
        what it offers now, never the choice it refused. A time: the slots and the cart. The
        way to order: the location's ways and the cart, and `way_refused` asks the customer to
        choose another (the same cart and lines). Best effort: the refusal itself is what the
        customer is told; a read that fails leaves the last answer."""
        from kiosk.ordering.refusals import Concern

        concern = await self._catalogue.reread(exc)
        if concern is None:
            return
        store = self._store
        if store is not None and store.cart_id is not None:
            with contextlib.suppress(StorefrontError):
                await store.refresh()
            self.sync_store()
        if concern is Concern.WAY:
            # Last: whoever follows it (the welcome) finds the ways and the cart read already.
            self._set(way_refused=exc.message)

    # ------------------------------------------------------------------ crash resume

    async def resume_saved(self) -> ResumeOutcome:
        """Take up the cart a previous run left open (the resume file). The saved location may be
        an id or a slug, and may differ in kind from how this kiosk names it: the cart is found
        by either. An open cart with no lines is dropped (nothing to come back for). The names
        of its lines' choices are read before it is shown (`learn_option_names`)."""
        return await resume_saved(self)

    def order_resumed(self, *, paid: bool) -> None:
        """A resume took up an order a previous run started (and counted): its payment or reset
        counts here; its time and name come back from the record."""
        self._set(**resumed_fields(self.need_store().order))
        self._order = "paid" if paid else "open"

    def abandon_resume(self) -> None:
        """A resume that took nothing up: a kiosk of several locations asks for one again."""
        if not self.fixed_location:
            self._use_store(None)
            self._set(location_id=None, location=None)
