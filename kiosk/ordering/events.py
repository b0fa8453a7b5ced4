"""What an order went through, told to whoever counts (kiosk.metrics): the one observable place;
and `Listeners`, how the ordering core tells its subscribers (the store's cart, the writer's status,
the visit's state).

The Visit calls `OrderObserver.order_event` at each of these moments, once per order. The metrics
count them; nothing here knows Prometheus (or Textual). The words are the label values the fleet's
dashboards group by, so they stay stable.
"""

from __future__ import annotations

import contextlib
import enum
import logging
from collections.abc import Callable
from typing import Generic, Protocol, TypeVar

log = logging.getLogger(__name__)
T = TypeVar("T")


class OrderEvent(enum.StrEnum):
    # A customer's order began: the first cart of a visit (the fulfilment chosen).
    STARTED = "started"
    # The server said the cart is an order (COMPLETED), seen once per order.
    PAID = "paid"
    # The processor declined a card (an order may be declined, then paid).
    DECLINED = "declined"
    # An order left open by an idle timeout: nobody came back for it.
    ABANDONED = "abandoned"
    # An order given up on purpose: the customer's start over, a cancelled payment, staff.
    RESET = "reset"


class OrderObserver(Protocol):
    def order_event(self, event: OrderEvent) -> None: ...


def tell(observer: OrderObserver | None, event: OrderEvent) -> None:
    """Tell `observer` (if any); a counting failure never reaches the customer's order."""
    if observer is None:
        return
    try:
        observer.order_event(event)
    except Exception:
        log.warning("the order observer failed on %s", event, exc_info=True)


class Listeners(Generic[T]):
    """Callbacks told each new value, in the order they subscribed. A listener's bug is logged,
    never raised: it must not break the order."""

    def __init__(self, what: str) -> None:
        self._what = what
        self._callbacks: list[Callable[[T], None]] = []

    def add(self, callback: Callable[[T], None]) -> Callable[[], None]:
        """Subscribe `callback`; returns the unsubscribe."""
        self._callbacks.append(callback)

        def stop() -> None:
            with contextlib.suppress(ValueError):
                self._callbacks.remove(callback)

        return stop

    def tell(self, value: T) -> None:
        for callback in list(self._callbacks):
            try:
                callback(value)
            except Exception:
                logging.getLogger("kiosk.ordering").exception("%s listener failed", self._what)
