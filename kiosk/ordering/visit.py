"""The Visit: one customer's whole visit at one terminal, headless (no Textual).

It owns the location and its clock (kiosk.ordering.clock), the reads the screens need (location,
merchant listing, menus, a product, tips, slots, cross-sell), the cart and every write to it (the
CartStore inside it: FIFO-serialised writes, no double writes after an ambiguous failure, rate-limit
waits with a countdown, crash-resume file), fulfillment and its details, the order time, customer,
checkout, payment hand-off and polling, the reset and crash resume.

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
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pydantic import SecretStr

from kiosk.api.errors import ConflictError, NotFoundError, StorefrontError
from kiosk.i18n import N_, _
from kiosk.ordering.cart_store import (
    IDLE,
    CartStore,
    CheckoutResult,
    StoreStatus,
    WayGoneError,
    load_saved_cart,
)
from kiosk.ordering.clock import LocationClock, country_of, set_region
from kiosk.ordering.delivery import DeliveryOffer, delivery_offer, zone_for
from kiosk.ordering.events import OrderEvent, OrderObserver, tell
from kiosk.ordering.lifecycle import OrderSnapshot, Phase, WayToOrder
from kiosk.ordering.pairing import drink_ids
from kiosk.ordering.recent import RECENT_FILE, RecentNumber
from kiosk.ordering.selections import request_selections, same_selections, unnamed_options

if TYPE_CHECKING:
    from kiosk.api import StorefrontBase
    from kiosk.api.models import (
        Cart,
        CartItem,
        CartValidation,
        DeliveryAddress,
        FulfillmentMethod,
        Location,
        MenuProduct,
        MenusResponse,
        Merchant,
        MethodsStatus,
        ModifierGroup,
        PaymentIntent,
        ProductDetail,
        TimeIntervals,
        TipSettings,
    )
    from kiosk.config import DeliveryZone
    from kiosk.ordering.modifiers import SelectionState
    from kiosk.ordering.payment import PaymentResult, PaymentSession, PaymentTick

__all__ = [
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


@dataclass(frozen=True, slots=True)
class OrderTime:
    """ASAP (date and time None) or a later slot from the server's time-intervals."""

    order_date: str | None = None
    order_time: str | None = None

    @property
    def is_asap(self) -> bool:
        return self.order_date is None or self.order_time is None


@dataclass(frozen=True, slots=True)
class VisitState:
    """Everything a screen shows about the visit, replaced whole on every change."""

    location_id: str | None = None
    location: Location | None = None
    # The cart the server last sent; None before an order starts (or right after a fresh start:
    # a new cart is known empty and is not read back).
    cart: Cart | None = None
    cart_id: str | None = None
    # idle / busy / waiting (rate limit: `status.seconds_left`) / error.
    status: StoreStatus = IDLE
    fulfillment_method: str | None = None
    table_number: str | None = None
    delivery: DeliveryAddress | None = None
    room: tuple[str, str] | None = None
    # Personal data: never in a repr (and so never in a log).
    customer_name: str = field(default="", repr=False)
    email_address: str = field(default="", repr=False)
    order_time: OrderTime = OrderTime()
    # What the ordering session said besides the cart id ("ordering for later only").
    session_message: str | None = None
    # True once a payment intent was made for this cart (its secret stays in the store).
    paying: bool = False
    # The order's lifecycle (kiosk.ordering.lifecycle): its phase, the server's order number,
    # a decline's code, the hand-off. Screens render it; only the server's answers move it.
    order: OrderSnapshot = field(default_factory=OrderSnapshot)
    # The location's slots as the server last listed them (None: not read yet); read again
    # from the server when it refuses a time.
    slots: TimeIntervals | None = None
    # The ways to order the location offers as the server last said them (its record's
    # methodsStatus, else the merchant listing's; None: neither says, pickup is assumed); read
    # again from the server when it refuses the order's way.
    ways: MethodsStatus | None = None
    # The server refused the order's way to order (its words, customer-safe by the client's
    # rule): the customer chooses another, with the same cart and lines. None once one is taken.
    way_refused: str | None = None

    @property
    def has_order(self) -> bool:
        """True when there is a server cart a reset would delete."""
        return self.cart_id is not None


@dataclass(frozen=True, slots=True)
class ResumeOutcome:
    """What `Visit.resume_saved()` did: "none", "open", "locked" (awaiting payment: the payment
    screen), "declined", "paid" (the number, at once), "gone" or "failed"."""

    kind: str
    cart: Cart | None = None


@dataclass(frozen=True, slots=True)
class ReopenResult:
    """What `Visit.reopen_order()` (or `start_again()`) did: `completed`, the order paid
    meanwhile (nothing was touched; `order_number` is the server's); else the order is open
    again, less the lines (by name) and extras (the code, the tip, the later time) that `dropped`
    names (`dropped_lines`: the lines alone). `kept_handoff`: the same cart, and the code shown
    before still pays it (2.0)."""

    completed: Cart | None = None
    dropped: tuple[str, ...] = ()
    dropped_lines: tuple[str, ...] = ()
    order_number: str | None = None
    paid: bool = False
    kept_handoff: bool = False


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


class OrderPaidError(StorefrontError):
    """The order was paid meanwhile (the payment poll said so): there is nothing left to change.
    The screens show the order's number (the app follows VisitState.order to the done screen)."""

    default_message = N_("Your payment went through: your order is placed.")

    def __init__(self, order_number: str | None) -> None:
        super().__init__()
        self.order_number = order_number


class LineKeptError(StorefrontError):
    """An edited line's new choice was added but the old line could not be removed: both are in
    the order (never neither); the customer removes the old one."""

    CODE = "LINE_KEPT"
    # Marked for the catalogue; the product screen shows it in the customer's language.
    default_message = N_(
        "Your new choice was added, but the old line is still in your order. "
        "Please remove it (Del)."
    )


class Visit:
    """One customer's visit. `client_for(location_id)` gives the location's client (keys are per
    location); `location_ids` are the locations this kiosk serves (one: a fixed location)."""

    # Reads of the location's ways asked of the server after a refusal (location_ways).
    _fresh_ways_reads = 0

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
        # Option and group id -> name, from the product details read during this run.
        self.option_names: dict[str, str] = {}
        # The customer's chosen locale (a language choice), None: the location's or the default.
        self._locale: str | None = None
        self.state = VisitState(location_id=self._home())
        self._store: CartStore | None = None
        self._store_unsubscribe: list[Callable[[], None]] = []
        self._listeners: list[VisitListener] = []
        # The cart's recommendations (cart id, answer): read once a cart (cross_sell).
        self._cross_sell_memo: tuple[str, list[MenuProduct]] | None = None
        # Products suggested after an add in this visit: none is suggested twice.
        self._suggested: set[str] = set()
        # What the last menus read say is a drink (kiosk.ordering.pairing): a suggestion after an
        # add is not a second drink.
        self.drinks: frozenset[str] = frozenset()
        # This visit's location takes no order for as soon as possible now (readiness: closed;
        # the server's reason, "" without one), None: it does, or nobody had to ask (`menus`).
        self.asap_refused: str | None = None
        # The later slot this visit's order was set to because none is taken for now (day label,
        # time), for the screens to say.
        self.scheduled_first: tuple[str, str] | None = None
        # Discards of abandoned carts still running (the next visit's writes queue behind them).
        self._discards: set[asyncio.Task[bool]] = set()
        # The payment being waited for (wait_for_payment), while it runs.
        self._payment_session: PaymentSession | None = None
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

    def subscribe(self, callback: VisitListener) -> Callable[[], None]:
        """Call `callback(state)` after every change. Returns an unsubscribe."""
        self._listeners.append(callback)

        def stop() -> None:
            with contextlib.suppress(ValueError):
                self._listeners.remove(callback)

        return stop

    def _set(self, **changes: Any) -> None:
        state = replace(self.state, **changes)
        if state == self.state:
            return
        if state.location is not self.state.location:
            # Times of day are written the way the location's country writes them.
            set_region(country_of(state.location))
        self.state = state
        for callback in list(self._listeners):
            try:
                callback(state)
            except Exception:  # a listener's bug must not break the order
                log.exception("visit listener failed")

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
        location = self.state.location
        aliases: list[str] = []
        if location is not None and location_id in (location.id, location.restaurant_slug):
            aliases = [a for a in (location.id, location.restaurant_slug) if a]
        store = CartStore(
            self._client_for(location_id),
            location_id,
            clock=self.wall_clock,
            cart_id_file=self.cart_id_file,
            location_aliases=aliases,
            local_clock=LocationClock(location, self.wall_clock),
            **self.store_options,
        )
        return store

    def _use_store(self, store: CartStore | None) -> None:
        for stop in self._store_unsubscribe:
            stop()
        self._store_unsubscribe.clear()
        self._store = store
        if store is not None:
            self._store_unsubscribe.append(store.subscribe(self._cart_published))
            self._store_unsubscribe.append(store.subscribe_status(self._status_published))
            self._store_unsubscribe.append(store.subscribe_order(self._order_published))
        self._sync_store()

    def _sync_store(self) -> None:
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
        self._set(
            cart=store.cart,
            cart_id=store.cart_id,
            session_message=store.session_message,
            paying=store.payment_intent is not None,
            order=store.order,
        )
        if store.cart_id is not None:
            # The way to order is the server's cart's where it says one, else the record kept.
            self._set(**way_fields(store.cart, store.order))

    def _cart_published(self, cart: Cart | None) -> None:
        self._sync_store()

    def _order_published(self, snapshot: OrderSnapshot) -> None:
        before = self.state.order.phase
        self._set(order=snapshot)
        # The lifecycle is the one place an order's fate is decided, so it is counted here
        # (kiosk.metrics): paid once per order, each decline as it is told.
        if snapshot.phase is Phase.PAID:
            # Whoever heard it (the payment screen, a kept code's watch, a restart): offered
            # again on this terminal's first screen for a while.
            self.recent.remember(snapshot.order_number)
        if snapshot.phase is Phase.PAID and self._order == "open":
            self._order = "paid"
            tell(self.observer, OrderEvent.PAID)
        elif snapshot.phase is Phase.DECLINED and before is not Phase.DECLINED:
            tell(self.observer, OrderEvent.DECLINED)

    def _status_published(self, status: StoreStatus) -> None:
        self._set(status=status)

    def _need_store(self) -> CartStore:
        if self._store is None:
            location_id = self.state.location_id
            if location_id is None:
                raise LookupError("no location chosen yet")
            self._use_store(self._make_store(location_id))
        assert self._store is not None
        return self._store

    async def _on_store(self, work: Callable[[CartStore], Awaitable[Any]]) -> Any:
        store = self._need_store()
        try:
            return await work(store)
        except ConflictError:
            await self._paid_meanwhile(store)
            raise
        except StorefrontError as exc:
            await self.reread_refused(exc)
            raise
        finally:
            self._sync_store()

    async def _paid_meanwhile(self, store: CartStore) -> None:
        """A write refused as a conflict on a cart that was handed to payment: the customer may
        have paid with the code (2.0 keeps a hand-off payable after the customer goes back).
        Ask the payment poll; if it says paid, the order is theirs (OrderPaidError carries the
        number) instead of "check and try again"."""
        if store.order.checkout_url is None or store.cart_id is None:
            return
        try:
            await store.check_payment()
        except StorefrontError:
            return
        if store.phase is Phase.PAID:
            raise OrderPaidError(store.order.order_number)

    # ------------------------------------------------------------------ location

    def choose_location(self, location_id: str, location: Location | None = None) -> None:
        """Pick the location (the location screen, or the fixed one once it is loaded). A
        different location gets a fresh store; the caller ends any visit of the old one first."""
        changed = location_id != self.state.location_id or self._store is None
        self._set(location_id=location_id, location=location or self._known(location_id))
        if changed:
            self._use_store(self._make_store(location_id))
        elif self._store is not None and location is not None:
            # The location's record arrived: the store now knows its slug and timezone too.
            self._store.know_location(
                (location.id, location.restaurant_slug), LocationClock(location, self.wall_clock)
            )

    def _known(self, location_id: str) -> Location | None:
        location = self.state.location
        if location is not None and location_id in (location.id, location.restaurant_slug):
            return location
        return None

    async def load_location(self, location_id: str | None = None) -> Location:
        """The location record (cached by the client)."""
        location_id = location_id or self.state.location_id
        if location_id is None:
            raise LookupError("no location chosen yet")
        return await self._client_for(location_id).get_location(location_id)

    async def merchant_listing(self, location: Location, *, fresh: bool = False) -> Any:
        """The merchant listing's entry for `location` (it says which methods the location
        offers when the location record does not), None when there is none. `fresh`: asked of
        the server, not the client's caches."""
        location_id = self.state.location_id or location.id
        if not self.merchant_slug or location.methods_status is not None:
            return None
        merchant: Merchant | None
        try:
            client = self._client_for(location_id)
            merchant = await client.get_merchant(self.merchant_slug, fresh=fresh)
        except Exception:  # the listing is a fallback: without it, pickup is offered
            merchant = None
        keys = {location_id, location.id, location.restaurant_slug}
        return next((m for m in (merchant.locations if merchant else []) if m.id in keys), None)

    # ------------------------------------------------------------------ reads

    async def menus(self) -> MenusResponse:
        """The menus for the order's time (its later slot, else now). When nothing is served
        now, the server is asked whether it takes an order for now at all (2.0's readiness,
        one read): closed, the order is set to the first later slot (said once, see
        `scheduled_first`) and the menus are those of that slot."""
        order_date, order_time = self.menu_slot()
        location = self.state.location_id or ""
        menus = await self.client.get_menus(location, order_date or None, order_time or None)
        self.drinks = drink_ids(menus)
        if order_date or not menus.menus or any(m.is_active for m in menus.menus):
            return menus
        if self.asap_refused is None and self.state.cart_id is not None:
            self.asap_refused = await self._why_not_now(location)
        if self.asap_refused is None or await self.schedule_if_required() is None:
            return menus
        order_date, order_time = self.menu_slot()
        menus = await self.client.get_menus(location, order_date or None, order_time or None)
        self.drinks = drink_ids(menus)
        return menus

    async def _why_not_now(self, location: str) -> str | None:
        """Nothing on the menus is served now: why no order is taken for now (the server's
        reason, "" without one), None when the server takes one (readiness says ready, or this
        dialect cannot say). A 2.0 server whose readiness cannot be read (the vendor's SDK does
        not list it) leaves the menus' word: nothing served now, nothing to order for now."""
        method = self.state.fulfillment_method or "pickup"
        try:
            ready = await self.client.ordering_readiness(location, method)
        except StorefrontError:
            log.info("readiness not read: the menus say nothing is served now", exc_info=True)
            return ""
        if ready is None or ready.ready:
            return None
        return ready.reason or ""

    def menu_slot(self) -> tuple[str, str]:
        """The later slot the cart is for, ("", "") when ASAP."""
        cart = self.state.cart
        if cart is not None and (cart.pickup_type or "").upper() == "LATER":
            return (cart.order_date or "", cart.order_time or "")
        return ("", "")

    async def product(self, product_id: str) -> ProductDetail:
        detail = await self.client.get_product(self.state.location_id or "", product_id)
        self._learn_names(detail.modifiers)
        return detail

    async def picture(self, url: str) -> bytes:
        """A product picture's bytes, through the client (size and type checked, cached); a
        failure raises the client's error, and the screen then shows no picture."""
        return await self.client.get_image(url)

    def _learn_names(self, groups: Sequence[ModifierGroup]) -> None:
        """Remember option and group names from a product detail: a server that echoes only
        ids in cart lines (2.0) still reads as names on screen (`option_names`)."""
        for group in groups:
            if group.name:
                self.option_names.setdefault(group.id, group.name)
            for option in group.items:
                if option.name:
                    self.option_names.setdefault(option.id, option.name)
                self._learn_names([c.group for c in option.child_groups if c.group is not None])

    async def tip_settings(self) -> TipSettings:
        return await self.client.get_gratuity(self.state.location_id or "")

    async def time_intervals(self, *, fresh: bool = False) -> TimeIntervals:
        """The location's slots (the client keeps them a while; `fresh`: asked of the server),
        published in VisitState.slots."""
        slots = await self.client.get_time_intervals(self.state.location_id or "", fresh=fresh)
        self._set(slots=slots)
        return slots

    async def schedule_if_required(self) -> tuple[str, str] | None:
        """A location that takes orders for later only (time-intervals' requireScheduledOrders):
        an order still set for as soon as possible is set to the first slot, which the customer
        is then told of. Returns (the day's label, the time) when it set one, else None."""
        cart = self.state.cart
        if cart is not None and (cart.pickup_type or "").upper() == "LATER":
            return None
        slots = await self.time_intervals()
        later_only = slots.require_scheduled_orders or self.asap_refused is not None
        first = slots.first_slot() if later_only else None
        if first is None:
            return None
        day, at = first
        await self.set_order_time_later(day.value, at)
        self.scheduled_first = (day.label or day.value, at)
        return self.scheduled_first

    async def cross_sell(self) -> list[MenuProduct]:
        """Suggestions for the cart: read once a cart (the first add's suggestion reads them, the
        cart screen shows the same answer), none when the rate budget runs low (an optional read:
        the order's requests come first). The answer may predate the cart's last lines: whoever
        shows it leaves out what is in the cart now (issue 22: one recommendation read an order,
        not one for each change of the cart's contents)."""
        cart = self.state.cart
        if cart is None:
            return []
        memo = self._cross_sell_memo
        if memo is None or memo[0] != cart.id:
            if self.client.rate_budget.is_low:
                return []
            memo = (cart.id, await self.client.cross_sell(self.state.location_id or "", cart.id))
            self._cross_sell_memo = memo
        return list(memo[1])

    async def suggestion(self) -> MenuProduct | None:
        """One product to suggest after an add: the first of the cart's recommendations (the
        cross-sell the cart screen shows, one read a cart) that is available, not in the cart
        and not suggested before in this visit, and no drink for an order that has one (where the
        menu says what a drink is: kiosk.ordering.pairing). None when there is none, or the read
        fails (an optional extra: the order goes on)."""
        cart = self.state.cart
        try:
            products = await self.cross_sell()
        except StorefrontError:
            log.info("no suggestion: the recommendations could not be read", exc_info=True)
            return None
        in_cart = {i.product_id for i in cart.items} if cart is not None else set()
        has_drink = not in_cart.isdisjoint(self.drinks)
        for product in products:
            if product.id in in_cart or product.id in self._suggested:
                continue
            if has_drink and product.id in self.drinks:
                continue
            if not product.is_available:
                continue
            self._suggested.add(product.id)
            return product
        return None

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
        store = self._need_store()
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
            self._sync_store()
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
        """`start` from the welcome screen's form fields (method key and its details)."""
        from kiosk.api.models import DeliveryAddress

        kwargs: dict[str, Any] = {}
        if method == "table_service":
            kwargs["table_number"] = details["table"]
        elif method == "room_service":
            kwargs["room"] = (details["last_name"], details["room"])
        elif method == "delivery":
            location = location or self.state.location
            data = location.address_data if location is not None else None
            address = DeliveryAddress(
                street=details["street"],
                street_optional=details.get("street2") or None,
                city=details["city"],
                state=details["state"],
                zip_code=details["zip"],
                country=(data.country if data is not None else None) or "US",
            )
            kwargs["delivery"] = await self._placed(address, location)
        return await self.start(method, **kwargs)

    def delivery_offer(self) -> DeliveryOffer:
        """Whether delivery can be offered here at all (the welcome screen hides it if not; the
        staff screen says why)."""
        return delivery_offer(self.client.needs_coordinates, self.delivery_zones)

    async def _placed(self, address: DeliveryAddress, location: Location | None) -> DeliveryAddress:
        """The address with the coordinates the API needs, from the merchant's delivery zones,
        and within the location's delivery radius when the server gives one (the API's distance
        operation measures it). Refused at the postal-code field before anything is written."""
        from kiosk.api.errors import InvalidRequestError

        client = self.client
        if not client.needs_coordinates:
            return address
        zone = zone_for(address.zip_code, self.delivery_zones)
        if zone is None:
            raise InvalidRequestError(
                _("We don't deliver to this postal code from here."),
                code="OUT_OF_DELIVERY_AREA",
                field="zipCode",
            )
        placed = address.model_copy(update={"lat": zone.lat, "lng": zone.lng})
        radius = location.delivery_radius_miles if location is not None else None
        miles = await client.distance_miles(self.state.location_id or "", zone.lat, zone.lng)
        log.info("delivery zone %r is %.1f miles away", zone.name, miles)
        if radius is not None and miles > radius:
            raise InvalidRequestError(
                _("This address is {miles} miles away; we deliver up to {radius} miles.").format(
                    miles=f"{miles:.1f}", radius=f"{radius:g}"
                ),
                code="OUT_OF_DELIVERY_AREA",
                field="zipCode",
            )
        return placed

    async def add_item(
        self,
        product_id: str,
        quantity: int,
        selections: SelectionState | Sequence[Mapping[str, Any]] | None = None,
        special_instructions: str | None = None,
    ) -> Cart | None:
        return await self._on_store(
            lambda s: s.add_item(product_id, quantity, selections, special_instructions)
        )

    async def set_quantity(self, item_id: str, quantity: int) -> Cart | None:
        return await self._on_store(lambda s: s.set_quantity(item_id, quantity))

    async def remove_item(self, item_id: str) -> Cart | None:
        return await self._on_store(lambda s: s.remove_item(item_id))

    async def replace_line(
        self,
        item_id: str,
        quantity: int,
        selections: SelectionState | Sequence[Mapping[str, Any]],
    ) -> Cart | None:
        """A cart line edited on the product screen: its choices and quantity replaced.

        The API edits only a line's quantity in place (2.0 contract: "Modifier changes are
        remove-then-add"; v1 has no such route either). So the same choices are a quantity
        change, and changed choices a new line: the new line is ADDED FIRST and the old one
        removed after, so that a failed second write leaves both lines in the order (said, with
        LineKeptError), never neither. Its note goes with the line."""
        from kiosk.api.errors import NotFoundError
        from kiosk.ordering.modifiers import SelectionState

        cart = self.state.cart
        old = next((i for i in cart.items if i.id == item_id), None) if cart else None
        if old is None:
            raise NotFoundError(_("This line is no longer in your order."), status=404)
        wanted = selections.to_request() if isinstance(selections, SelectionState) else selections
        if same_selections(old.selections, wanted):
            if quantity == old.quantity:
                return cart
            return await self.set_quantity(item_id, quantity)
        await self.add_item(old.product_id, quantity, wanted, old.special_instructions)
        try:
            return await self.remove_item(item_id)
        except StorefrontError as exc:
            log.warning("edited line: the old line could not be removed (%s)", exc.code)
            raise LineKeptError(status=exc.status, code=LineKeptError.CODE) from exc

    async def apply_discount(self, code: str) -> Cart | None:
        return await self._on_store(lambda s: s.apply_discount(code))

    async def remove_discount(self) -> Cart | None:
        return await self._on_store(lambda s: s.remove_discount())

    @property
    def can_remove_discount(self) -> bool:
        """False once this location's server showed it cannot remove a code (a legacy server
        without the route): the cart screen hides the button, and F9 starts over without it."""
        location_id = self.state.location_id
        return location_id is None or self._client_for(location_id).offers("remove_discount")

    async def set_tip(
        self, percentage: str | int | None = None, amount_minor: int | None = None
    ) -> Cart | None:
        return await self._on_store(lambda s: s.set_tip(percentage, amount_minor))

    async def set_no_tip(self) -> Cart | None:
        return await self._on_store(lambda s: s.set_no_tip())

    async def set_order_time_asap(self) -> Cart | None:
        cart = await self._on_store(lambda s: s.set_order_time_asap())
        self._set(order_time=OrderTime())
        return cart

    async def set_order_time_later(self, order_date: str, order_time: str) -> Cart | None:
        cart = await self._on_store(lambda s: s.set_order_time_later(order_date, order_time))
        self._set(order_time=OrderTime(order_date, order_time))
        return cart

    async def set_delivery(self, address: DeliveryAddress) -> Cart | None:
        return await self._on_store(lambda s: s.set_delivery(address))

    async def set_table(self, table_number: str) -> Cart | None:
        return await self._on_store(lambda s: s.set_table(table_number))

    async def set_room(self, last_name: str, room_number: str) -> Cart | None:
        return await self._on_store(lambda s: s.set_room(last_name, room_number))

    async def refresh(self) -> Cart | None:
        return await self._on_store(lambda s: s.refresh())

    # ------------------------------------------------------------------ checkout and payment

    def remember_customer(self, name: str, email: str) -> None:
        self._set(customer_name=name, email_address=email)

    async def set_customer(self, name: str, email: str) -> Cart | None:
        self.remember_customer(name, email)
        return await self._on_store(lambda s: s.set_customer(name, email))

    async def validate(self) -> CartValidation:
        return await self._on_store(lambda s: s.validate())

    async def checkout(self, name: str, email: str) -> CheckoutResult:
        """Customer details, validation and, when valid, the payment intent (one cart read)."""
        self.remember_customer(name, email)
        # A later-only location refuses an order for as soon as possible (the cart screen set
        # and said the first slot already; this covers a checkout that came before it could).
        await self.schedule_if_required()
        return await self._on_store(lambda s: s.checkout(name, email))

    async def begin_payment(self) -> PaymentIntent:
        """The payment hand-off: the intent (the cart turns LOCKED) and the cart's checkoutUrl."""
        return await self._on_store(lambda s: s.begin_payment())

    async def poll(self) -> Cart | None:
        return await self._on_store(lambda s: s.poll())

    async def reopen_order(self) -> ReopenResult:
        """Back from payment to the cart with the order intact. A cart being paid for is locked
        and takes no more changes, so the same order is made again in a new cart (the same way
        of ordering, lines, choices, notes, code and time) and the old one deleted, its payment
        hand-off with it. One last look first: a payment that landed meanwhile wins."""
        store = self._need_store()
        cart = await store.last_look()
        if store.phase is Phase.PAID:
            number = store.order.order_number
            return ReopenResult(completed=cart, order_number=number, paid=True)
        if cart is None or not cart.is_locked:
            # Still open (2.0 does not lock a cart on its hand-off): the same cart is the order,
            # and the hand-off stays payable until it expires (kept: a payment there is watched).
            store.back_to_order()
            self._sync_store()
            return ReopenResult(kept_handoff=store.order.checkout_url is not None)
        return await self._order_again(store, cart)

    async def start_again(self) -> ReopenResult:
        """The order's cart expired on the server: a new cart with the same way to order (its
        table, room or address), lines, choices, notes, code and time, as far as the server
        allows; `dropped_lines` names the lines it refused (sold out or gone since)."""
        store = self._need_store()
        if store.phase is not Phase.EXPIRED:
            raise RuntimeError(f"start_again in phase {store.phase}: only an expired order")
        cart = store.cart
        if cart is None:
            with contextlib.suppress(StorefrontError):
                cart = await store.refresh()  # a 2.0 server still answers an expired cart
        if cart is None:
            from kiosk.api.models import Cart

            cart = Cart(id="")  # no longer readable: nothing to copy but the way to order
        return await self._order_again(store, cart)

    async def _order_again(self, store: CartStore, cart: Cart) -> ReopenResult:
        """The same order in a new cart: the old one discarded, a new one started the same way,
        then its lines and extras added one by one; what the server refuses is named, not
        fatal. A refused start (that way is no longer offered) propagates."""
        from kiosk.api.errors import InvalidRequestError, UnprocessableError

        state = self.state
        method = state.fulfillment_method or str(cart.fulfilment_method)
        await _quietly(store.discard())
        self._cross_sell_memo = None
        await self.start(
            method, table_number=state.table_number, delivery=state.delivery, room=state.room
        )
        lines: list[str] = []
        refused = (InvalidRequestError, NotFoundError, UnprocessableError)
        for item in cart.items:
            try:
                await self.add_item(
                    item.product_id,
                    item.quantity,
                    request_selections(item.selections),
                    item.special_instructions,
                )
            except refused:
                lines.append(item.name or item.product_id)  # sold out or gone since
        dropped = list(lines)
        extras: list[tuple[str, Callable[[], Awaitable[Any]]]] = []
        if cart.discount_code:
            code = cart.discount_code
            extras.append((f"code {code}", lambda: self.apply_discount(code)))
        if not state.order_time.is_asap:
            day, at = state.order_time.order_date or "", state.order_time.order_time or ""
            extras.append(("the later time", lambda: self.set_order_time_later(day, at)))
        for name, redo in extras:
            try:
                await redo()
            except refused:
                dropped.append(name)
        if cart.waiter_tip_total:
            dropped.append("the tip (please choose it again)")
        return ReopenResult(dropped=tuple(dropped), dropped_lines=tuple(lines))

    async def confirm_demo_payment(self, card_number: str) -> None:
        from kiosk.api.errors import PaymentDeclinedError

        try:
            await self._on_store(lambda s: s.confirm_demo_payment(card_number))
        except PaymentDeclinedError:
            tell(self.observer, OrderEvent.DECLINED)
            raise

    async def check_payment(self) -> Phase:
        """One look at the payment now ("I have paid", a last look): the phase it leaves."""
        store = self._need_store()
        await self._on_store(lambda s: s.check_payment())
        return store.phase

    async def pay_again(self) -> PaymentIntent:
        """After a decline: a fresh hand-off (a new code) for the same cart."""
        store = self._need_store()
        store.want_new_code()
        try:
            return await self._on_store(lambda s: s.renew_handoff())
        except StorefrontError:
            # Refused (or not asked): back on the order, as after a refused checkout (the store
            # says why the order must change); the old code is kept as it was.
            self._sync_store()
            raise

    def choose_counter(self, at_counter: bool) -> None:
        """The customer pays at the counter (or back to the QR code): the same hand-off, kept in
        the resume file so a restart shows the same choice."""
        self._need_store().choose_counter(at_counter)
        self._sync_store()

    def kept_handoff_seconds_left(self) -> float | None:
        """Back on the order with a hand-off that may still be paid (2.0): seconds until it stops
        working; None when there is none (or it has no known expiry: then it is watched until
        the visit ends)."""
        order = self.state.order
        if order.phase is not Phase.ORDERING or order.checkout_url is None:
            return None
        expires = order.handoff_expires()
        if expires is None:
            return float("inf")
        return expires.timestamp() - self.wall_clock()

    async def watch_kept_handoff(self, *, every: float = 10.0) -> Phase:
        """While the customer is back on the order and the old code may still pay it, look at
        the payment now and then (a slow pace: the customer is choosing, not paying). Ends when
        the order is paid (the app then shows the number), the code has expired, or the phase
        moves on. Returns the phase it leaves."""
        from kiosk.ordering.payment import PLACING_INTERVAL

        store = self._need_store()
        pace = every
        while True:
            left = self.kept_handoff_seconds_left()
            if left is None or left <= 0:
                return self.state.order.phase
            await store.sleep(min(pace, left))
            if self.kept_handoff_seconds_left() is None:
                return self.state.order.phase
            budget = store.client.rate_budget
            if budget.is_low:
                continue  # the customer's own writes come first
            progress = None
            with contextlib.suppress(StorefrontError):
                progress = await self._on_store(lambda s: s.check_payment())
            if store.phase is not Phase.ORDERING:
                return store.phase
            # Paid, the order being placed: its number is one look away.
            placing = progress is not None and progress.state == "order_pending"
            pace = PLACING_INTERVAL if placing else every

    async def wait_for_payment(
        self,
        *,
        timeout: float,  # noqa: ASYNC109 - the payment timer on the injected clock
        on_tick: Callable[[PaymentTick], None] | None = None,
        cancel: asyncio.Event | None = None,
        poll_now: asyncio.Event | None = None,
        every: float | None = None,
        ask_for: float = 0.0,
    ) -> PaymentResult:
        """Wait for the payment (kiosk.ordering.payment.PaymentSession: a frugal schedule on the
        rate budget) until the order completes, `cancel` is set, the cart is gone, or the time
        runs out; with `ask_for`, the time running out asks "Still there?" for that long
        (`keep_paying` answers it) and, unanswered, ends ABANDONED after one last look."""
        from kiosk.ordering.payment import PaymentSession, PollSchedule

        store = self._need_store()
        schedule = PollSchedule(intervals=(every,)) if every else None
        session = PaymentSession(store, timeout=timeout, ask_for=ask_for, schedule=schedule)
        self._payment_session = session
        try:
            return await session.run(on_tick=on_tick, cancel=cancel, poll_now=poll_now)
        finally:
            if self._payment_session is session:
                self._payment_session = None
            self._sync_store()

    def keep_paying(self) -> None:
        """The customer answered "Still there?" on the payment: the time to pay starts again."""
        if self._payment_session is not None:
            self._payment_session.keep()

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
        self._cross_sell_memo = None
        self._suggested.clear()
        self.asap_refused = self.scheduled_first = None
        keep = store if self.fixed_location and store is not None else None
        if keep is None:
            self._use_store(None)
        self._set(
            location_id=self._home(),
            location=self.state.location if self.fixed_location else None,
            fulfillment_method=None,
            table_number=None,
            delivery=None,
            room=None,
            customer_name="",
            email_address="",
            order_time=OrderTime(),
            way_refused=None,
        )
        if store is None:
            done: asyncio.Future[bool] = asyncio.get_running_loop().create_future()
            done.set_result(True)
            return done
        task = asyncio.ensure_future(_quietly(store.discard()))
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
        self._set(location_id=self._home(), location=None)
        return discard

    async def quit(self, *, keep_cart: bool = True) -> None:
        """The kiosk is closing normally. An open order is kept, on the server and in the resume
        file, for the next start (journey 16: a quit is not "start over", the one way an order
        is deleted); `keep_cart=False` deletes it (a caller that chose to clear it)."""
        store = self._store
        if store is not None and store.phase is Phase.PAID:
            # Placed, and its number shown: nothing to come back to (only a crash shows it
            # again). Forgotten, never deleted.
            await _quietly(store.discard())
        elif not keep_cart and store is not None and store.cart_id is not None:
            cart = store.cart
            paying = store.phase in (Phase.AWAITING_PAYMENT, Phase.DECLINED)
            if not (paying or (cart and cart.is_locked)):
                # An order being paid for is kept: the resume file takes the payment up next
                # start (a customer may be paying with its code right now).
                await _quietly(store.discard())
        if self._discards:
            await asyncio.gather(*self._discards, return_exceptions=True)

    # ------------------------------------------------------------------ refusals

    async def location_ways(
        self, location: Location | None = None, *, fresh: bool = False
    ) -> MethodsStatus | None:
        """The ways to order the location offers now, as the server says them: its record's
        methodsStatus, else the merchant listing's (None: neither says). Published in
        VisitState.ways. `fresh`: the location and the listing are asked of the server, not
        the client's caches (the server just refused the order's way)."""
        location_id = self.state.location_id
        if location_id is None:
            raise LookupError("no location chosen yet")
        fresh_reads = self._fresh_ways_reads = self._fresh_ways_reads + fresh
        if location is None or fresh:
            location = await self._client_for(location_id).get_location(location_id, fresh=fresh)
            self.choose_location(location_id, location)
        ways = location.methods_status
        if ways is None:
            listed = await self.merchant_listing(location, fresh=fresh)
            ways = listed.methods_status if listed is not None else None
        if fresh_reads == self._fresh_ways_reads:
            # Not when a fresh read began meanwhile: this answer may predate its refusal.
            self._set(ways=ways)
        return ways

    async def reread_refused(self, exc: StorefrontError) -> None:
        """The server refused something about the order: what the refusal concerns is read again
        from the server and published, so that screens show what the server holds and offer
        what it offers now, never the choice it refused. A time: the slots and the cart. The
        way to order: the location's ways and the cart, and `way_refused` asks the customer to
        choose another (the same cart and lines). Best effort: the refusal itself is what the
        customer is told; a read that fails leaves the last answer."""
        from kiosk.ordering.refusals import Concern, refusal_concerns

        concern = refusal_concerns(exc)
        if concern is None:
            return
        log.info("the server refused the order's %s; reading it again", concern.value)
        with contextlib.suppress(StorefrontError, LookupError):
            if concern is Concern.TIME:
                await self.time_intervals(fresh=True)
            else:
                await self.location_ways(fresh=True)
        store = self._store
        if store is not None and store.cart_id is not None:
            with contextlib.suppress(StorefrontError):
                await store.refresh()
            self._sync_store()
        if concern is Concern.WAY:
            # Last: whoever follows it (the welcome) finds the ways and the cart read already.
            self._set(way_refused=exc.message)

    # ------------------------------------------------------------------ crash resume

    async def resume_saved(self) -> ResumeOutcome:
        """Take up the cart a previous run left open (the resume file). The saved location may be
        an id or a slug, and may differ in kind from how this kiosk names it: the cart is found
        by either. An open cart with no lines is dropped (nothing to come back for). The names
        of its lines' choices are read before it is shown (`learn_option_names`)."""
        outcome = await self._resume_saved()
        if outcome.cart is not None:
            await self.learn_option_names(outcome.cart)
        return outcome

    async def learn_option_names(self, cart: Cart) -> None:
        """Read the product of each line whose choices this kiosk knows only as ids: a cart taken
        up after a restart, from a server that echoes ids without names (2.0), showed
        "opt_size_medium" where the customer had chosen "Medium (16 oz)". Each such product is
        read once, all at once, through the client's caches (the site's disk cache usually holds
        them); a read that fails leaves its line's ids as they were."""
        products = list(
            dict.fromkeys(
                item.product_id
                for item in cart.items
                if unnamed_options(item.selections, self.option_names)
            )
        )

        async def read(product_id: str) -> None:
            with contextlib.suppress(StorefrontError):
                await self.product(product_id)

        await asyncio.gather(*(read(product_id) for product_id in products))

    async def _resume_saved(self) -> ResumeOutcome:
        saved = load_saved_cart(self.cart_id_file)
        if saved is None or self.cart_id_file is None:
            return ResumeOutcome("none")
        location_id = await self._served_location(saved.location_id)
        if location_id is None:
            # The kiosk now serves other locations: that cart is not for this kiosk any more.
            log.info("crash resume: the saved cart is for another location; forgotten")
            with contextlib.suppress(OSError):
                self.cart_id_file.unlink()
            return ResumeOutcome("gone")
        location = self._known(location_id)
        if location is None:
            with contextlib.suppress(StorefrontError):
                location = await self.load_location(location_id)
        self.choose_location(location_id, location)
        store = self._need_store()
        if location is not None:
            store.know_location((saved.location_id, location.id, location.restaurant_slug), None)
        if saved.access:
            store.client.restore_cart_access(saved.cart_id, SecretStr(saved.access))
        order = saved.order
        if order.phase is Phase.IN_DOUBT:
            # Settled by reading the server (below): back to where the doubt began.
            order = replace(order, phase=order.doubt_from or Phase.ORDERING, doubt_from=None)
        if order.phase is not Phase.ORDERING or order.checkout_url is not None:
            # Handed to payment, or back on the order with a code that can still pay it (2.0):
            # where the payment stands is asked first, so a payment made meanwhile is shown.
            outcome = await self._resume_order(store, saved.cart_id, order)
            if outcome is not None:
                return outcome
        else:
            store.restore(saved.cart_id, order)
        way_gone: WayGoneError | None = None
        try:
            cart = await store.resume(saved.cart_id, saved.location_id)
        except WayGoneError as exc:
            way_gone = exc
        except StorefrontError:
            log.warning("crash resume: the server could not be asked; kept for the next start")
            self._abandon_resume()
            return ResumeOutcome("failed")
        finally:
            self._sync_store()
        if way_gone is not None:
            # The location no longer offers the order's way: the same cart and its lines wait
            # for the customer to choose another way (the welcome screen says why). Set after
            # the store's state, which has no such message; the time and name come back too.
            self._set(**resumed_fields(store.order))
            await self.reread_refused(way_gone)  # the ways read again; the refusal said last
            log.info("crash resume: the order's way to order is no longer offered")
            self._order = "open"
            return ResumeOutcome("way_gone", store.cart)
        if cart is not None and not cart.items and not cart.is_locked:
            log.info("crash resume: the saved cart has no lines; dropped")
            await _quietly(store.discard())
            cart = None
        if cart is None:
            log.info("crash resume: the saved cart is no longer open; starting clean")
            self._abandon_resume()
            return ResumeOutcome("gone")
        self._set(**resumed_fields(store.order))
        log.info("crash resume: cart resumed (%s)", "locked" if cart.is_locked else "open")
        # An order a previous run started (and counted): its payment or reset counts here.
        self._order = "paid" if cart.is_completed else "open"
        return ResumeOutcome("locked" if cart.is_locked else "open", cart)

    async def _resume_order(
        self, store: CartStore, cart_id: str, order: OrderSnapshot
    ) -> ResumeOutcome | None:
        """A restart after the order was handed to payment (or paid, or declined): the phase
        comes back as it was, and the server is asked at once where the payment stands, so a
        customer who paid meanwhile sees the number now. None: back to ordering (the hand-off
        was never shown, or a code kept while ordering has not paid it), resumed as an open
        cart."""
        store.restore(cart_id, order)
        store.restore_handoff(order)
        try:
            await store.check_payment()
        except NotFoundError:
            log.info("crash resume: the order's cart is gone")
            self._abandon_resume()
            return ResumeOutcome("gone")
        except StorefrontError:
            log.warning("crash resume: the payment could not be checked; kept for the next start")
            store.cart_id = None
            self._abandon_resume()
            return ResumeOutcome("failed")
        finally:
            self._sync_store()
        phase = store.phase
        if phase is Phase.CHECKING_OUT:
            store.back_to_order()
            return None
        if phase is Phase.ORDERING:
            return None  # not paid: the open cart is resumed as it is
        if phase is Phase.EXPIRED:
            await _quietly(store.discard())
            self._abandon_resume()
            return ResumeOutcome("gone")
        if store.cart is None:
            with contextlib.suppress(StorefrontError):
                await store.refresh()
        self._sync_store()
        cart = store.cart
        self._set(**resumed_fields(store.order))
        kind = {Phase.PAID: "paid", Phase.DECLINED: "declined"}.get(phase, "locked")
        # An order a previous run started (and counted): its payment or reset counts here.
        self._order = "paid" if phase is Phase.PAID else "open"
        log.info("crash resume: the order comes back %s", phase)
        return ResumeOutcome(kind, cart)

    def _abandon_resume(self) -> None:
        if not self.fixed_location:
            self._use_store(None)
            self._set(location_id=None, location=None)

    async def _served_location(self, saved: str) -> str | None:
        """Which of the served locations `saved` (an id or a slug) names, None when none does."""
        if saved in self.location_ids:
            return saved
        for location_id in self.location_ids:
            known = self._known(location_id)
            location: Location | None = known
            if location is None:
                with contextlib.suppress(StorefrontError, LookupError):
                    location = await self.load_location(location_id)
            if location is not None and saved in (location.id, location.restaurant_slug):
                return location_id
        return None


# The kiosk's words for one way to order that 2.0 spells as one: an order eaten here is takeout
# there (kiosk.api.v2.V2_FULFILLMENT), so the record's "dine_in" is not contradicted by the cart.
_SAME_WAY = {"dine_in": "pickup"}


def way_fields(cart: Cart | None, order: OrderSnapshot) -> dict[str, Any]:
    """VisitState's way to order: the server's cart where it says it (its method, its table),
    else the record the terminal kept (the address and room as the customer gave them)."""
    way = order.way
    method = str(cart.fulfilment_method) if cart is not None and cart.fulfilment_method else None
    if way is not None and (method is None or _SAME_WAY.get(way.method, way.method) == method):
        method = way.method
    recorded = way if way is not None and way.method == method else None
    info = cart.table_service_info if cart is not None else None
    table = (info.table_number if info is not None else None) or (
        recorded.table_number if recorded is not None else None
    )
    return {
        "fulfillment_method": method,
        "table_number": table or None,
        "delivery": _address(recorded),
        "room": (
            (recorded.room_last_name or "", recorded.room_number or "")
            if recorded is not None and recorded.room_number
            else None
        ),
    }


def resumed_fields(order: OrderSnapshot) -> dict[str, Any]:
    """What a restart takes from the record besides the way: the time and the name."""
    slot = order.order_time
    return {
        "order_time": OrderTime(*slot) if slot is not None else OrderTime(),
        "customer_name": order.customer_name or "",
    }


def _address(way: WayToOrder | None) -> DeliveryAddress | None:
    if way is None or not way.delivery:
        return None
    from kiosk.api.models import DeliveryAddress

    try:
        return DeliveryAddress.model_validate(dict(way.delivery))
    except ValueError:  # an unreadable record: the cart's own address string still shows
        return None


async def _quietly(awaitable: Awaitable[bool]) -> bool:
    # Deleting an abandoned cart is best effort: the server expires carts anyway.
    try:
        return await awaitable
    except Exception:  # nothing to show: the customer has moved on
        log.warning("could not delete an abandoned cart", exc_info=True)
        return False
