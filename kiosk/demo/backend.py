"""The demo backend's business rules: one method per contract row, plus the demo processor.

Methods take already-authenticated location records and parsed JSON bodies, and return JSON-able
values or raise ApiError. The Starlette layer (app.py) does HTTP, auth, rate limiting and faults.

The rules live in kiosk.demo.domain, one module per resource; Backend composes them as mixins
(they call one another through `self`, so each method body reads as it did in one class).
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
import time
from collections.abc import Callable
from pathlib import Path
from zoneinfo import ZoneInfo

from kiosk.demo import data
from kiosk.demo.catalog import Catalog
from kiosk.demo.domain.carts import METHOD_ALIASES, CartInspector
from kiosk.demo.domain.checkout import EMAIL_RE
from kiosk.demo.domain.common import iso
from kiosk.demo.domain.discounts import DiscountRules
from kiosk.demo.domain.fulfilment import FulfilmentRules
from kiosk.demo.domain.hours import (
    DATE_RE,
    LEAD_MINUTES,
    SCHEDULE_DAYS,
    SLOT_MINUTES,
    TIME_RE,
)
from kiosk.demo.domain.items import MAX_INSTRUCTIONS, MAX_LINES, MAX_QUANTITY, ItemRules
from kiosk.demo.domain.payments import APPROVE_CARD, DECLINE_CARD, PaymentRules
from kiosk.demo.faults import Faults, RateLimiter, Stats
from kiosk.demo.store import SWEEPER, Store

# The names this module had before the split, for `from kiosk.demo.backend import ...`.
__all__ = [
    "APPROVE_CARD",
    "DATE_RE",
    "DECLINE_CARD",
    "EMAIL_RE",
    "FAILED_AUTH_LIMIT",
    "LEAD_MINUTES",
    "MAX_INSTRUCTIONS",
    "MAX_LINES",
    "MAX_QUANTITY",
    "METHOD_ALIASES",
    "SCHEDULE_DAYS",
    "SLOT_MINUTES",
    "TIME_RE",
    "Backend",
    "CartInspector",
    "iso",
]

# Requests with a missing or wrong key allowed per IP and window (then 429).
FAILED_AUTH_LIMIT = 20


class Backend(PaymentRules, ItemRules, FulfilmentRules, DiscountRules):
    """The one domain both APIs serve: hours, menus, carts, items, fulfilment, discounts,
    checkout and payments (kiosk.demo.domain), over one store, catalog and clock."""

    def __init__(
        self,
        db_path: str = ":memory:",
        *,
        clock: Callable[[], float] | None = None,
        rate_limit: int | None = 200,
        rate_window: float = 600.0,
        extra_products: int = 0,
        public_base_url: str | None = None,
        seed: bool = True,
        synchronous: str = "NORMAL",
        menu: str | Path | data.Restaurant | None = None,
    ) -> None:
        self.clock: Callable[[], float] = clock or time.time
        self.store = Store(db_path, synchronous=synchronous)
        if seed:
            self.store.seed(extra_products, self.clock(), data.load(menu))
        self.catalog = Catalog(self.store.load_catalog())
        self.public_base_url = public_base_url.rstrip("/") if public_base_url else None
        self.faults = Faults()
        self.stats = Stats()
        self.limiter = RateLimiter(rate_limit, rate_window, lambda: self.clock())
        # Requests whose key is refused: their own small window, so they cannot spend the budget.
        self.auth_limiter = RateLimiter(FAILED_AUTH_LIMIT, rate_window, lambda: self.clock())
        self._zones: dict[str, ZoneInfo] = {}
        # The /demo/counter page's token for devices other than this machine (printed at start).
        self.counter_token = secrets.token_urlsafe(16)
        # Expired idempotency records go in a periodic sweep, never on a request's path.
        SWEEPER.register(self.sweep)

    def sweep(self) -> int:
        """Delete expired idempotency records now (the periodic sweep calls this)."""
        return 0 if self.store.closed else self.store.expire_idempotency(self.clock())

    def token_opens(self, cart_id: str, token: str) -> bool:
        """Whether X-Cart-Token `token` opens 2.0 cart `cart_id` (constant-time compare)."""
        stored = self.store.token_hash_of(cart_id) if token else None
        if stored is None:
            return False
        given = hashlib.sha256(token.encode("utf-8", "replace")).hexdigest()
        return hmac.compare_digest(given, stored)

    def set_clock(self, fn: Callable[[], float]) -> None:
        self.clock = fn

    def close(self) -> None:
        self.store.close()
