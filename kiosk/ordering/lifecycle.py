"""The order's lifecycle: one explicit state machine, decided in one place.

An order's fate used to be inferred from flags spread over the Visit, the CartStore, the payment
poll and the screens (a locked cart meant "paying", a completed cart's `fulfillmentIdentifier`
meant "the number"). Here it is a transition table that can be printed (`describe()`) and tested.

Rules:
- The server decides every outcome. A phase changes only on what the server said (order-result,
  the cart's status, a refused write) or on what the customer chose (checkout, back, cancel);
  the kiosk never assumes a payment landed or failed.
- Every transition is persisted (the `persist` callback writes the terminal's resume file,
  atomically) BEFORE listeners hear of it, so a screen never shows a phase a restart would not
  come back to.
- A transition the table does not list raises `IllegalTransition`: a bug, never silently ignored.
  Events the server may repeat (the same "completed" on two looks) are rows of their own that
  keep the phase; there is no "fire if allowed".
- The table is the only door: the facts a restart needs (the way to order and its table, room or
  address, the time, the name, the counter choice, a new payment attempt) are recorded by named
  rows too, and a new or restored order is a row (NEW_ORDER, RESTORED), not an assignment.

Why a table of our own rather than python-statemachine or transitions: the table is rows of data,
printable and checkable as it is; the kiosk's cold start pays for every import on a counter
terminal; and neither library's extras (callbacks by name, diagrams through graphviz) are needed.
"""

from __future__ import annotations

import contextlib
import enum
import logging
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from datetime import datetime
from typing import Any

__all__ = [
    "TERMINAL",
    "TRANSITIONS",
    "Event",
    "IllegalTransition",
    "Lifecycle",
    "OrderSnapshot",
    "Phase",
    "WayToOrder",
    "describe",
]

log = logging.getLogger("kiosk.ordering")


class Phase(enum.StrEnum):
    ORDERING = "ordering"  # an open cart: the customer is choosing
    CHECKING_OUT = "checking_out"  # details and validation sent; the hand-off is being made
    AWAITING_PAYMENT = "awaiting_payment"  # a live hand-off (QR code) or a counter code
    PAID = "paid"  # the server said the order exists: its number is known
    DECLINED = "declined"  # the server said the payment failed (its code kept)
    EXPIRED = "expired"  # the server says the cart is gone or expired: nothing will be paid
    CANCELLED = "cancelled"  # the customer (or staff, or the idle reset) ended the order
    IN_DOUBT = "in_doubt"  # a write's answer was lost or late: settled by reading the server


class Event(enum.StrEnum):
    CHECKOUT = "checkout"  # the customer asked to pay
    REFUSED = "refused"  # the server refused the checkout (validation, a field): back to ordering
    HANDED_OFF = "handed_off"  # the server gave a checkout hand-off (URL, expiry)
    PAID = "paid"  # order-result "completed" (2.0) / the cart COMPLETED (v1)
    DECLINED = "declined"  # order-result "failed"
    RETRY = "retry"  # pay again with a new code (after a decline, or a code that ran out)
    BACK = "back"  # the customer went back to the order
    EXPIRED = "expired"  # the cart is gone or expired on the server
    CANCELLED = "cancelled"  # start over, cancel payment, idle reset
    WRITE_LOST = "write_lost"  # a write's answer was lost or late
    SETTLED = "settled"  # the server was read: back to where the doubt began
    # Recorded facts: the phase stays, the resume file learns what the order is.
    NEW_ORDER = "new_order"  # a new cart (or none): the old order's record is dropped
    RESTORED = "restored"  # a restart: the order as the resume file kept it, then the server read
    WAY_CHOSEN = "way_chosen"  # the way to order and its table, room or address
    TIME_CHOSEN = "time_chosen"  # as soon as possible, or a later slot
    NAMED = "named"  # the customer's name, sent with the checkout
    COUNTER = "counter"  # pay at the counter instead of the QR code (or back to the code)
    NEW_ATTEMPT = "new_attempt"  # the server says a new payment attempt is under way


P, E = Phase, Event
_LIVE = (P.ORDERING, P.CHECKING_OUT, P.AWAITING_PAYMENT, P.DECLINED)
_PAYING = (P.AWAITING_PAYMENT, P.DECLINED)

# (phase, event) -> next phase. Two targets depend on the record, not the row: IN_DOUBT's SETTLED
# goes back to the phase the doubt began in (`OrderSnapshot.doubt_from`) and RESTORED goes to the
# phase the resume file kept (`OrderSnapshot.phase` of the restored record); both are listed with
# a placeholder target here and resolved in `Lifecycle.fire`.
TRANSITIONS: Mapping[tuple[Phase, Event], Phase] = {
    (P.ORDERING, E.CHECKOUT): P.CHECKING_OUT,
    (P.CHECKING_OUT, E.REFUSED): P.ORDERING,
    (P.CHECKING_OUT, E.BACK): P.ORDERING,
    (P.CHECKING_OUT, E.HANDED_OFF): P.AWAITING_PAYMENT,
    (P.AWAITING_PAYMENT, E.HANDED_OFF): P.AWAITING_PAYMENT,  # a renewed hand-off
    (P.AWAITING_PAYMENT, E.DECLINED): P.DECLINED,
    (P.AWAITING_PAYMENT, E.BACK): P.ORDERING,
    (P.AWAITING_PAYMENT, E.RETRY): P.CHECKING_OUT,  # a new code asked for while waiting
    (P.DECLINED, E.RETRY): P.CHECKING_OUT,
    (P.DECLINED, E.HANDED_OFF): P.AWAITING_PAYMENT,  # pay at the counter: the same hand-off
    (P.DECLINED, E.BACK): P.ORDERING,
    # Back when the order is already open (2.0 does not lock a cart on its hand-off): nothing moves.
    (P.ORDERING, E.BACK): P.ORDERING,
    # A payment can land in every live phase: the hosted page of an earlier hand-off stays
    # payable after the customer goes back (2.0 does not lock the cart on a hand-off).
    **{(live, E.PAID): P.PAID for live in _LIVE},
    **{(live, E.EXPIRED): P.EXPIRED for live in _LIVE},
    **{(live, E.CANCELLED): P.CANCELLED for live in _LIVE},
    **{(live, E.WRITE_LOST): P.IN_DOUBT for live in _LIVE},
    (P.IN_DOUBT, E.SETTLED): P.IN_DOUBT,
    (P.IN_DOUBT, E.WRITE_LOST): P.IN_DOUBT,
    (P.IN_DOUBT, E.PAID): P.PAID,
    (P.IN_DOUBT, E.EXPIRED): P.EXPIRED,
    (P.IN_DOUBT, E.CANCELLED): P.CANCELLED,
    # The end of an order is final, and the server may say it again: the same "completed" on two
    # looks, a paid order's cart deleted or expired afterwards (the order stands), an expired
    # cart discarded. These rows keep the phase; the server's "completed" wins over an end the
    # kiosk recorded first (the customer paid on the phone after the cart was given up).
    (P.PAID, E.PAID): P.PAID,
    (P.PAID, E.EXPIRED): P.PAID,
    (P.PAID, E.CANCELLED): P.PAID,
    (P.EXPIRED, E.EXPIRED): P.EXPIRED,
    (P.EXPIRED, E.CANCELLED): P.EXPIRED,
    (P.EXPIRED, E.BACK): P.EXPIRED,  # back from a payment whose cart expired: still expired
    (P.EXPIRED, E.PAID): P.PAID,
    (P.CANCELLED, E.CANCELLED): P.CANCELLED,
    (P.CANCELLED, E.EXPIRED): P.CANCELLED,
    (P.CANCELLED, E.PAID): P.PAID,
    # A new order: from a fresh start, or once the last one has ended.
    **{(done, E.NEW_ORDER): P.ORDERING for done in (P.ORDERING, P.PAID, P.EXPIRED, P.CANCELLED)},
    # A restart takes up the kept record; only a lifecycle that has recorded nothing yet.
    (P.ORDERING, E.RESTORED): P.ORDERING,
    # Facts the customer chose while ordering (the name also while checking out).
    (P.ORDERING, E.WAY_CHOSEN): P.ORDERING,
    (P.ORDERING, E.TIME_CHOSEN): P.ORDERING,
    (P.ORDERING, E.NAMED): P.ORDERING,
    (P.CHECKING_OUT, E.NAMED): P.CHECKING_OUT,
    **{(paying, E.COUNTER): paying for paying in _PAYING},
    (P.AWAITING_PAYMENT, E.NEW_ATTEMPT): P.AWAITING_PAYMENT,
}
TERMINAL = frozenset({P.PAID, P.EXPIRED, P.CANCELLED})
# Where a row's target is read from the record, not the table (see TRANSITIONS).
_TARGET_FROM_RECORD = {E.SETTLED: "<where the doubt began>", E.RESTORED: "<the restored phase>"}
# The facts each recording row may write; any other field raises (a row records what it names).
_RECORDS: Mapping[Event, frozenset[str]] = {
    E.WAY_CHOSEN: frozenset({"way"}),
    E.TIME_CHOSEN: frozenset({"order_time"}),
    E.NAMED: frozenset({"customer_name"}),
    E.COUNTER: frozenset({"at_counter"}),
    E.NEW_ATTEMPT: frozenset({"failure_code"}),
}


class IllegalTransition(RuntimeError):
    """An event the table has no row for in the current phase (a bug in the caller)."""


@dataclass(frozen=True, slots=True)
class WayToOrder:
    """How the order reaches the customer, as the customer chose it: the method (the kiosk's
    word, `kiosk.api.models.FulfillmentMethod`) and its table, room or delivery address. Kept in
    the resume file so that a restart asks the server for this way, never for a default."""

    method: str
    table_number: str | None = None
    room_last_name: str | None = field(default=None, repr=False)
    room_number: str | None = None
    # The delivery address's fields as the client's DeliveryAddress dumps them (personal data).
    delivery: Mapping[str, Any] | None = field(default=None, repr=False)

    def to_json(self) -> dict[str, Any]:
        return {
            "method": self.method,
            "table_number": self.table_number,
            "room_last_name": self.room_last_name,
            "room_number": self.room_number,
            "delivery": dict(self.delivery) if self.delivery is not None else None,
        }

    @classmethod
    def from_json(cls, data: Any) -> WayToOrder | None:
        if not isinstance(data, dict) or not isinstance(data.get("method"), str):
            return None
        delivery = data.get("delivery")
        return cls(
            method=data["method"],
            table_number=_text(data.get("table_number")),
            room_last_name=_text(data.get("room_last_name")),
            room_number=_text(data.get("room_number")),
            delivery=delivery if isinstance(delivery, dict) else None,
        )


def _text(value: Any) -> str | None:
    return value if isinstance(value, str) and value else None


@dataclass(frozen=True, slots=True)
class OrderSnapshot:
    """What the resume file keeps of the order besides the cart's id and token."""

    phase: Phase = P.ORDERING
    # The server's order number: 2.0's order-result `order.shortId`; v1's completed cart's
    # `fulfillmentIdentifier` (an A-tagged guess of the legacy contract).
    order_number: str | None = None
    # order-result's failure code after a decline (e.g. PAYMENT_DECLINED), for staff and the log.
    failure_code: str | None = None
    # The hand-off the customer may pay with (the QR code's URL) and when it stops working
    # (ISO 8601). Kept after BACK on 2.0: that page stays payable until it expires.
    checkout_url: str | None = None
    handoff_expires_at: str | None = None
    at_counter: bool = False
    # IN_DOUBT only: the phase to go back to once the server has been read.
    doubt_from: Phase | None = None
    # What the customer chose (recorded by WAY_CHOSEN, TIME_CHOSEN and NAMED): a restart asks the
    # server for this way to order and shows this time and name where the server's cart is silent.
    way: WayToOrder | None = None
    # A later slot as (date, time) as the server offered it; None: as soon as possible.
    order_time: tuple[str, str] | None = None
    customer_name: str | None = field(default=None, repr=False)

    def handoff_expires(self) -> datetime | None:
        """`handoff_expires_at` read back (None when absent or unreadable)."""
        if not self.handoff_expires_at:
            return None
        with contextlib.suppress(ValueError):
            return datetime.fromisoformat(self.handoff_expires_at)
        return None

    def to_json(self) -> dict[str, Any]:
        data: dict[str, Any] = {}
        for name in self.__dataclass_fields__:
            value = getattr(self, name)
            if isinstance(value, Phase):
                value = str(value)
            elif isinstance(value, WayToOrder):
                value = value.to_json()
            elif isinstance(value, tuple):
                value = list(value)
            data[name] = value
        return data

    @classmethod
    def from_json(cls, data: Any) -> OrderSnapshot:
        """Lenient: an unreadable or older file gives the ORDERING default, never an error."""
        if not isinstance(data, dict):
            return cls()

        def phase(value: Any) -> Phase | None:
            with contextlib.suppress(ValueError):
                return Phase(value)
            return None

        slot = data.get("order_time")
        order_time = None
        if isinstance(slot, list) and len(slot) == 2 and all(_text(part) for part in slot):
            order_time = (slot[0], slot[1])
        return cls(
            phase=phase(data.get("phase")) or P.ORDERING,
            order_number=_text(data.get("order_number")),
            failure_code=_text(data.get("failure_code")),
            checkout_url=_text(data.get("checkout_url")),
            handoff_expires_at=_text(data.get("handoff_expires_at")),
            at_counter=data.get("at_counter") is True,
            doubt_from=phase(data.get("doubt_from")),
            way=WayToOrder.from_json(data.get("way")),
            order_time=order_time,
            customer_name=_text(data.get("customer_name")),
        )


Persist = Callable[[OrderSnapshot], None]
Listener = Callable[[OrderSnapshot], None]


class Lifecycle:
    """One order's phase and what the server said of it. `persist` is called with every new
    snapshot before the listeners are. The table is the only door: `fire` is the one way the
    record changes."""

    def __init__(self, snapshot: OrderSnapshot | None = None, persist: Persist | None = None):
        self.snapshot = snapshot or OrderSnapshot()
        self.persist = persist
        self._listeners: list[Listener] = []

    @property
    def phase(self) -> Phase:
        return self.snapshot.phase

    def subscribe(self, callback: Listener) -> Callable[[], None]:
        self._listeners.append(callback)

        def stop() -> None:
            with contextlib.suppress(ValueError):
                self._listeners.remove(callback)

        return stop

    def can(self, event: Event) -> bool:
        return (self.phase, event) in TRANSITIONS

    def fire(self, event: Event, **data: Any) -> OrderSnapshot:
        """Move on `event`, recording `data` (OrderSnapshot's fields) with it. RESTORED takes
        the whole kept record as `snapshot=`; NEW_ORDER drops the record."""
        current = self.snapshot
        target = TRANSITIONS.get((current.phase, event))
        if target is None:
            raise IllegalTransition(f"{event} in phase {current.phase}")
        allowed = _RECORDS.get(event)
        if allowed is not None and not set(data) <= allowed:
            raise IllegalTransition(f"{event} records {sorted(allowed)}, not {sorted(data)}")
        if event is E.RESTORED:
            if current != OrderSnapshot():
                raise IllegalTransition("restored over a record that is not empty")
            snapshot: OrderSnapshot = data["snapshot"]
        elif event is E.NEW_ORDER:
            snapshot = OrderSnapshot(**data)
        else:
            changes = dict(data)
            if event is E.WRITE_LOST and current.phase is not P.IN_DOUBT:
                changes["doubt_from"] = current.phase
            elif event is E.SETTLED:
                target = current.doubt_from or P.ORDERING
                changes["doubt_from"] = None
            elif target is not P.IN_DOUBT:
                changes.setdefault("doubt_from", None)
            snapshot = replace(current, phase=target, **changes)
        self._take(snapshot, why=str(event))
        return snapshot

    def _take(self, snapshot: OrderSnapshot, *, why: str) -> None:
        before = self.snapshot
        self.snapshot = snapshot
        if snapshot.phase is not before.phase:
            log.info("order: %s -> %s (%s)", before.phase, snapshot.phase, why)
        if self.persist is not None:
            self.persist(snapshot)
        for callback in list(self._listeners):
            try:
                callback(snapshot)
            except Exception:  # a listener's bug must not break the order
                log.exception("lifecycle listener failed")


def describe() -> str:
    """The transition table as text: one line a phase, its events and where each leads."""
    lines = []
    for phase in Phase:
        rows = [(e, t) for (p, e), t in TRANSITIONS.items() if p is phase]
        if not rows:
            lines.append(f"{phase}: (final)")
            continue
        said = ", ".join(f"{e} -> {_TARGET_FROM_RECORD.get(e, t)}" for e, t in rows)
        lines.append(f"{phase}: {said}")
    return "\n".join(lines)


if __name__ == "__main__":  # python -m kiosk.ordering.lifecycle: the table, for a reader
    print(describe())
