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

Why a table of our own rather than python-statemachine or transitions: the table is twenty rows of
data, printable and checkable as it is; the kiosk's cold start pays for every import on a counter
terminal; and neither library's extras (callbacks by name, diagrams through graphviz) are needed.
"""

from __future__ import annotations

import contextlib
import enum
import logging
from collections.abc import Callable, Mapping
from dataclasses import asdict, dataclass, replace
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
    RETRY = "retry"  # after a decline: pay again (a fresh hand-off)
    BACK = "back"  # the customer went back to the order
    EXPIRED = "expired"  # the cart is gone or expired on the server
    CANCELLED = "cancelled"  # start over, cancel payment, idle reset
    WRITE_LOST = "write_lost"  # a write's answer was lost or late
    SETTLED = "settled"  # the server was read: back to where the doubt began


P, E = Phase, Event
_LIVE = (P.ORDERING, P.CHECKING_OUT, P.AWAITING_PAYMENT, P.DECLINED)

# (phase, event) -> next phase. IN_DOUBT's SETTLED goes back to the phase the doubt began in
# (`OrderSnapshot.doubt_from`); it is listed as IN_DOUBT here and resolved in `Lifecycle.fire`.
TRANSITIONS: Mapping[tuple[Phase, Event], Phase] = {
    (P.ORDERING, E.CHECKOUT): P.CHECKING_OUT,
    (P.CHECKING_OUT, E.REFUSED): P.ORDERING,
    (P.CHECKING_OUT, E.BACK): P.ORDERING,
    (P.CHECKING_OUT, E.HANDED_OFF): P.AWAITING_PAYMENT,
    (P.AWAITING_PAYMENT, E.HANDED_OFF): P.AWAITING_PAYMENT,  # a renewed hand-off
    (P.AWAITING_PAYMENT, E.DECLINED): P.DECLINED,
    (P.AWAITING_PAYMENT, E.BACK): P.ORDERING,
    (P.DECLINED, E.RETRY): P.CHECKING_OUT,
    (P.DECLINED, E.HANDED_OFF): P.AWAITING_PAYMENT,  # pay at the counter: the same hand-off
    (P.DECLINED, E.BACK): P.ORDERING,
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
}
TERMINAL = frozenset({P.PAID, P.EXPIRED, P.CANCELLED})


class IllegalTransition(RuntimeError):
    """An event the table has no row for in the current phase (a bug in the caller)."""


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

    def handoff_expires(self) -> datetime | None:
        """`handoff_expires_at` read back (None when absent or unreadable)."""
        if not self.handoff_expires_at:
            return None
        with contextlib.suppress(ValueError):
            return datetime.fromisoformat(self.handoff_expires_at)
        return None

    def to_json(self) -> dict[str, Any]:
        data = asdict(self)
        return {k: (str(v) if isinstance(v, Phase) else v) for k, v in data.items()}

    @classmethod
    def from_json(cls, data: Any) -> OrderSnapshot:
        """Lenient: an unreadable or older file gives the ORDERING default, never an error."""
        if not isinstance(data, dict):
            return cls()

        def phase(value: Any) -> Phase | None:
            with contextlib.suppress(ValueError):
                return Phase(value)
            return None

        def text(value: Any) -> str | None:
            return value if isinstance(value, str) and value else None

        return cls(
            phase=phase(data.get("phase")) or P.ORDERING,
            order_number=text(data.get("order_number")),
            failure_code=text(data.get("failure_code")),
            checkout_url=text(data.get("checkout_url")),
            handoff_expires_at=text(data.get("handoff_expires_at")),
            at_counter=data.get("at_counter") is True,
            doubt_from=phase(data.get("doubt_from")),
        )


Persist = Callable[[OrderSnapshot], None]
Listener = Callable[[OrderSnapshot], None]


class Lifecycle:
    """One order's phase and what the server said of it. `persist` is called with every new
    snapshot before the listeners are."""

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
        """Move on `event`, recording `data` (OrderSnapshot's fields) with it."""
        current = self.snapshot
        target = TRANSITIONS.get((current.phase, event))
        if target is None:
            raise IllegalTransition(f"{event} in phase {current.phase}")
        changes = dict(data)
        if event is E.WRITE_LOST and current.phase is not P.IN_DOUBT:
            changes["doubt_from"] = current.phase
        elif event is E.SETTLED:
            target = current.doubt_from or P.ORDERING
            changes["doubt_from"] = None
        elif target is not P.IN_DOUBT:
            changes.setdefault("doubt_from", None)
        if target is P.DECLINED or target is P.PAID:
            changes.setdefault("at_counter", current.at_counter)
        snapshot = replace(current, phase=target, **changes)
        self.set(snapshot, why=str(event))
        return snapshot

    def set(self, snapshot: OrderSnapshot, *, why: str = "restored") -> None:
        """Take `snapshot` as it is (a restart's resume file, a new cart): persisted, then told."""
        before = self.snapshot
        self.snapshot = snapshot
        if snapshot != before:
            log.info("order: %s -> %s (%s)", before.phase, snapshot.phase, why)
        if self.persist is not None:
            self.persist(snapshot)
        for callback in list(self._listeners):
            try:
                callback(snapshot)
            except Exception:  # a listener's bug must not break the order
                log.exception("lifecycle listener failed")

    def update(self, **data: Any) -> None:
        """Record what the server said without a change of phase (a new attempt under way, the
        counter chosen instead of the QR code)."""
        self.set(replace(self.snapshot, **data), why="update")

    def fire_if(self, event: Event, **data: Any) -> bool:
        """`fire` when the table allows it here; False (and nothing changes) when it does not.
        For events the server may repeat (the same "completed" on two polls)."""
        if not self.can(event):
            return False
        self.fire(event, **data)
        return True


def describe() -> str:
    """The transition table as text: one line a phase, its events and where each leads."""
    lines = []
    for phase in Phase:
        rows = [(e, t) for (p, e), t in TRANSITIONS.items() if p is phase]
        if not rows:
            lines.append(f"{phase}: (final)")
            continue
        said = ", ".join(
            f"{e} -> {'<where the doubt began>' if e is E.SETTLED else t}" for e, t in rows
        )
        lines.append(f"{phase}: {said}")
    return "\n".join(lines)


if __name__ == "__main__":  # python -m kiosk.ordering.lifecycle: the table, for a reader
    print(describe())
