"""What the visit's location offers, read from its server: the location's record and the
merchant's listing, the ways to order, menus' readiness, products and the names of their
choices, pictures, tips, slots and suggestions.

Reads only: nothing here changes the order. The Visit publishes what a screen shows (the slots
and the ways land in VisitState through `publish`); the client's caches keep most answers a
while, and `fresh` asks the server itself (after it refused something these reads concern).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

from kiosk.api.errors import StorefrontError
from kiosk.ordering.selections import unnamed_options

if TYPE_CHECKING:
    from kiosk.api import StorefrontBase
    from kiosk.api.models import (
        Cart,
        Location,
        MenuProduct,
        Merchant,
        MethodsStatus,
        ModifierGroup,
        ProductDetail,
        TimeIntervals,
        TipSettings,
    )
    from kiosk.ordering.refusals import Concern
    from kiosk.ordering.visit_state import VisitState

__all__ = ["Catalogue"]

log = logging.getLogger("kiosk.ordering")


class Catalogue:
    """The reads of one visit. `state()` is the visit's published state (its location and cart);
    `publish(**fields)` publishes what was read; `choose_location` takes a location record read
    afresh."""

    def __init__(
        self,
        client_for: Callable[[str], StorefrontBase],
        state: Callable[[], VisitState],
        publish: Callable[..., None],
        choose_location: Callable[[str, Location], None],
        merchant_slug: str | None = None,
    ) -> None:
        self._client_for = client_for
        self._state = state
        self._publish = publish
        self._choose_location = choose_location
        self.merchant_slug = merchant_slug
        # Option and group id -> name, from the product details read during this run.
        self.option_names: dict[str, str] = {}
        # The cart's recommendations (cart id, answer): read once a cart (cross_sell).
        self._cross_sell_memo: tuple[str, list[MenuProduct]] | None = None
        # Products suggested after an add in this visit: none is suggested twice.
        self._suggested: set[str] = set()
        # What the last menus read say is a drink (kiosk.ordering.pairing): a suggestion after an
        # add is not a second drink.
        self.drinks: frozenset[str] = frozenset()
        # Reads of the location's ways asked of the server after a refusal (location_ways).
        self._fresh_ways_reads = 0

    @property
    def _client(self) -> StorefrontBase:
        location_id = self._state().location_id
        if location_id is None:
            raise LookupError("no location chosen yet")
        return self._client_for(location_id)

    def new_visit(self) -> None:
        """A new customer: nothing read for the last one is suggested from (the memo is per
        cart id; a new cart reads its own recommendations)."""
        self._cross_sell_memo = None
        self._suggested.clear()

    async def load_location(self, location_id: str | None = None) -> Location:
        """The location record (cached by the client)."""
        location_id = location_id or self._state().location_id
        if location_id is None:
            raise LookupError("no location chosen yet")
        return await self._client_for(location_id).get_location(location_id)

    async def merchant_listing(self, location: Location, *, fresh: bool = False) -> Any:
        """The merchant listing's entry for `location` (it says which methods the location
        offers when the location record does not), None when there is none. `fresh`: asked of
        the server, not the client's caches."""
        location_id = self._state().location_id or location.id
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

    async def why_not_now(self, location: str) -> str | None:
        """Nothing on the menus is served now: why no order is taken for now (the server's
        reason, "" without one), None when the server takes one (readiness says ready, or this
        dialect cannot say). A 2.0 server whose readiness cannot be read (the vendor's SDK does
        not list it) leaves the menus' word: nothing served now, nothing to order for now."""
        method = self._state().fulfillment_method or "pickup"
        try:
            ready = await self._client.ordering_readiness(location, method)
        except StorefrontError:
            log.info("readiness not read: the menus say nothing is served now", exc_info=True)
            return ""
        if ready is None or ready.ready:
            return None
        return ready.reason or ""

    async def product(self, product_id: str) -> ProductDetail:
        detail = await self._client.get_product(self._state().location_id or "", product_id)
        self._learn_names(detail.modifiers)
        return detail

    async def picture(self, url: str) -> bytes:
        """A product picture's bytes, through the client (size and type checked, cached); a
        failure raises the client's error, and the screen then shows no picture."""
        return await self._client.get_image(url)

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
        return await self._client.get_gratuity(self._state().location_id or "")

    async def time_intervals(self, *, fresh: bool = False) -> TimeIntervals:
        """The location's slots (the client keeps them a while; `fresh`: asked of the server),
        published in VisitState.slots."""
        slots = await self._client.get_time_intervals(self._state().location_id or "", fresh=fresh)
        self._publish(slots=slots)
        return slots

    async def cross_sell(self) -> list[MenuProduct]:
        """Suggestions for the cart: read once a cart (the first add's suggestion reads them, the
        cart screen shows the same answer), none when the rate budget runs low (an optional read:
        the order's requests come first). The answer may predate the cart's last lines: whoever
        shows it leaves out what is in the cart now (issue 22: one recommendation read an order,
        not one for each change of the cart's contents). What pairs only: no drink for an order
        that has one, where the menu says what a drink is (kiosk.ordering.pairing)."""
        cart = self._state().cart
        if cart is None:
            return []
        memo = self._cross_sell_memo
        if memo is None or memo[0] != cart.id:
            if self._client.rate_budget.is_low:
                return []
            location_id = self._state().location_id or ""
            memo = (cart.id, await self._client.cross_sell(location_id, cart.id))
            self._cross_sell_memo = memo
        if self.drinks.isdisjoint(i.product_id for i in cart.items):
            return list(memo[1])
        return [p for p in memo[1] if p.id not in self.drinks]

    async def suggestion(self) -> MenuProduct | None:
        """One product to suggest after an add: the first of the cart's recommendations (the
        cross-sell the cart screen shows, one read a cart) that is available, not in the cart
        and not suggested before in this visit (what pairs: see cross_sell). None when there is
        none, or the read fails (an optional extra: the order goes on)."""
        cart = self._state().cart
        try:
            products = await self.cross_sell()
        except StorefrontError:
            log.info("no suggestion: the recommendations could not be read", exc_info=True)
            return None
        in_cart = {i.product_id for i in cart.items} if cart is not None else set()
        for product in products:
            if product.id in in_cart or product.id in self._suggested:
                continue
            if not product.is_available:
                continue
            self._suggested.add(product.id)
            return product
        return None

    async def location_ways(
        self, location: Location | None = None, *, fresh: bool = False
    ) -> MethodsStatus | None:
        """The ways to order the location offers now, as the server says them: its record's
        methodsStatus, else the merchant listing's (None: neither says). Published in
        VisitState.ways. `fresh`: the location and the listing are asked of the server, not
        the client's caches (the server just refused the order's way)."""
        location_id = self._state().location_id
        if location_id is None:
            raise LookupError("no location chosen yet")
        fresh_reads = self._fresh_ways_reads = self._fresh_ways_reads + fresh
        if location is None or fresh:
            location = await self._client_for(location_id).get_location(location_id, fresh=fresh)
            self._choose_location(location_id, location)
        ways = location.methods_status
        if ways is None:
            listed = await self.merchant_listing(location, fresh=fresh)
            ways = listed.methods_status if listed is not None else None
        if fresh_reads == self._fresh_ways_reads:
            # Not when a fresh read began meanwhile: this answer may predate its refusal.
            self._publish(ways=ways)
        return ways

    async def reread(self, exc: StorefrontError) -> Concern | None:
        """What a refusal concerns, read again from the server (a time: the slots; the way to
        order: the location's ways), best effort. Returns the concern, None for another."""
        from kiosk.ordering.refusals import Concern, refusal_concerns

        concern = refusal_concerns(exc)
        if concern is None:
            return None
        log.info("the server refused the order's %s; reading it again", concern.value)
        with contextlib.suppress(StorefrontError, LookupError):
            if concern is Concern.TIME:
                await self.time_intervals(fresh=True)
            else:
                await self.location_ways(fresh=True)
        return concern

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
