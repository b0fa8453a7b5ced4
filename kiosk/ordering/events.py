"""What an order went through, told to whoever counts (kiosk.metrics): the one observable place.

The Visit calls `OrderObserver.order_event` at each of these moments, once per order. The metrics
count them; nothing here knows Prometheus (or Textual). The words are the label values the fleet's
dashboards group by, so they stay stable.
"""

from __future__ import annotations

import enum
import logging
from typing import Protocol

log = logging.getLogger(__name__)


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
