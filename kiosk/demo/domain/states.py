"""The cart's one state machine: what every cart operation does in each state, on both dialects.

`TABLE[op][state]` is the rule; `check(op, state)` is the one place it is applied, inside each
operation's own transaction, before anything is written (kiosk.demo.domain.carts `_guarded`,
`_mutate`; payments). A refusal is raised in the legacy words (`CART_LOCKED`...) and said in 2.0's
by kiosk.demo.storefront.errors (`CART_IMMUTABLE`). `print(table_markdown())` shows the table; it
is the one in kiosk/demo/README.md (a test keeps the two the same).

Two clocks end a payment's chance: a cart expires `CART_TTL` after it was made (2.0's required
`expiresAt`), and a 2.0 hand-off `expiresAt` after it was given (a new hand-off on the same cart
renews it). A v1 payment intent has no expiry of its own (the legacy contract states none): it
lives as long as its cart stays LOCKED.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

from kiosk.demo.errors import ApiError, not_found

CART_TTL = timedelta(days=7)


class State(enum.StrEnum):
    OPEN = "OPEN"
    LOCKED = "LOCKED"
    COMPLETED = "COMPLETED"
    EXPIRED = "EXPIRED"
    DELETED = "deleted"  # no cart by that id (v1's DELETE removes it; an id never made)


class Op(enum.StrEnum):
    READ = "read"  # GET the cart, validate, cross-sell, order-result
    EDIT = "edit"  # every write to the cart: lines, discount, time, tip, place, customer, PATCH
    RESUME = "resume"  # an ordering session (or v1 POST /carts) naming an existing cart
    HANDOFF = "hand-off"  # 2.0 checkout-handoffs, v1 payment-intent: the payment starts
    PAY = "pay"  # the demo processor approves the payment
    DECLINE = "decline"  # the demo processor declines it
    DELETE_V1 = "delete (v1)"
    DELETE_V2 = "delete (2.0)"
    EXPIRE = "expire"  # the cart's expiresAt passes


@dataclass(frozen=True)
class Rule:
    """What an operation does in one state: `to` the state after it (None: refused with
    `status`/`code`), `note` what else the reader should know."""

    to: State | None
    status: int = 0
    code: str = ""
    note: str = ""

    def cell(self) -> str:
        text = f"{self.status} `{self.code}`" if self.to is None else f"→ {self.to.value}"
        return f"{text}: {self.note}" if self.note else text


def _to(state: State, note: str = "") -> Rule:
    return Rule(state, note=note)


def _no(status: int, code: str, note: str = "") -> Rule:
    return Rule(None, status, code, note)


def _row(*rules: Rule) -> dict[State, Rule]:
    """One operation's rules, in the order of State: OPEN, LOCKED, COMPLETED, EXPIRED, deleted."""
    return dict(zip(State, rules, strict=True))


GONE = _no(404, "NOT_FOUND")
# A payment on a cart that is no longer waiting for it (deleted, expired, or never locked by it).
CANCELED = _no(409, "PAYMENT_CANCELED")
REPLAY = "the same order number again (one order per cart)"

TABLE: dict[Op, dict[State, Rule]] = {
    Op.READ: _row(
        _to(State.OPEN), _to(State.LOCKED), _to(State.COMPLETED), _to(State.EXPIRED), GONE
    ),
    Op.EDIT: _row(
        _to(State.OPEN),
        _no(409, "CART_LOCKED"),
        _no(409, "CART_LOCKED"),
        _no(409, "CART_EXPIRED"),
        GONE,
    ),
    Op.RESUME: _row(
        _to(State.OPEN, "the same cart"),
        _to(State.LOCKED, "the same cart, with errorMessage"),
        _to(State.COMPLETED, "a new cart instead"),
        _to(State.EXPIRED, "a new cart instead"),
        _to(State.DELETED, "a new cart instead"),
    ),
    Op.HANDOFF: _row(
        _to(
            State.LOCKED, "a new payment, if the cart can be paid (else its first problem: 400/422)"
        ),
        _to(
            State.LOCKED,
            "the same payment; a declined attempt starts again; a hand-off's expiry renewed",
        ),
        _no(409, "CART_COMPLETED"),
        _no(409, "CART_EXPIRED"),
        GONE,
    ),
    Op.PAY: _row(
        CANCELED,
        _to(
            State.COMPLETED,
            "the payment locking it, before its expiry (else 409 `PAYMENT_EXPIRED`, or"
            " `PAYMENT_CANCELED` for another payment); the order gets its number",
        ),
        _to(State.COMPLETED, REPLAY),
        CANCELED,
        CANCELED,
    ),
    Op.DECLINE: _row(
        CANCELED,
        _to(State.LOCKED, "as pay; the payment can be tried again"),
        _to(State.COMPLETED, REPLAY),
        CANCELED,
        CANCELED,
    ),
    Op.DELETE_V1: _row(
        _to(State.DELETED, "its payment canceled"),
        _to(State.DELETED, "its payment canceled"),
        _to(State.DELETED, "the order and its payment stay"),
        _to(State.DELETED),
        GONE,
    ),
    Op.DELETE_V2: _row(
        _to(State.EXPIRED, "its payment canceled"),
        _to(State.EXPIRED, "its payment canceled"),
        _no(409, "CART_COMPLETED", "an order's cart is kept"),
        _to(State.EXPIRED, "nothing changes"),
        GONE,
    ),
    Op.EXPIRE: _row(
        _to(State.EXPIRED, "its payment canceled"),
        _to(State.EXPIRED, "its payment canceled"),
        _to(State.COMPLETED),
        _to(State.EXPIRED),
        _to(State.DELETED),
    ),
}

MESSAGES = {
    "CART_LOCKED": "The cart is locked for payment and cannot be changed",
    "CART_COMPLETED": "The order for this cart is already paid",
    "CART_EXPIRED": "This cart has expired or was deleted; start a new order",
    "PAYMENT_CANCELED": "This payment was canceled",
    "PAYMENT_EXPIRED": "This payment link has expired; ask the kiosk for a new one",
    "NOT_FOUND": "Cart not found",
}
# Payment refusals name the secret the processor was given; the others the cart.
_FIELD = {"PAYMENT_CANCELED": "clientSecret", "PAYMENT_EXPIRED": "clientSecret"}


def refusal(code: str, status: int = 409) -> ApiError:
    if status == 404:
        return not_found(MESSAGES["NOT_FOUND"])
    return ApiError(status, code, MESSAGES[code], field=_FIELD.get(code, "cartId"))


def state_of(cart: dict[str, Any] | None) -> State:
    return State.DELETED if cart is None else State(cart["status"])


def check(op: Op, cart: dict[str, Any] | None) -> Rule:
    """The rule of `op` for the cart as it is (None: no such cart); raises its refusal."""
    rule = TABLE[op][state_of(cart)]
    if rule.to is None:
        raise refusal(rule.code, rule.status)
    return rule


@dataclass(frozen=True)
class Payment:
    """A payment intent as the table needs it: its id, stored status and expiry (None: none)."""

    id: str
    status: str
    expires_at: float | None


def payable(op: Op, cart: dict[str, Any] | None, payment: Payment, now: float) -> Rule:
    """check() for Op.PAY and Op.DECLINE, with what the table's cells say of the payment: only
    the payment that locked the cart, before its expiry, is taken; a completed cart answers the
    payment that completed it again."""
    rule = check(op, cart)
    assert cart is not None  # check() refuses a payment of no cart
    mine = cart.get("paymentIntentId") == payment.id
    if cart["status"] == State.COMPLETED:
        if not (mine and payment.status == "succeeded"):
            raise refusal("PAYMENT_CANCELED")
    elif not mine or payment.status == "canceled":
        raise refusal("PAYMENT_CANCELED")
    elif payment.expires_at is not None and now >= payment.expires_at:
        raise refusal("PAYMENT_EXPIRED")
    return rule


def expires_at(cart: dict[str, Any]) -> float:
    """When the cart expires (Unix seconds): CART_TTL after it was made."""
    created = datetime.fromisoformat(str(cart["createdAt"]).replace("Z", "+00:00"))
    return (created.astimezone(UTC) + CART_TTL).timestamp()


def as_of(cart: dict[str, Any] | None, now: float) -> dict[str, Any] | None:
    """The cart as it is at `now`: one past its expiresAt has expired (Op.EXPIRE). Applied to every
    cart the domain reads (kiosk.demo.domain.carts `_cart_at`), so no operation sees it otherwise
    and no sweep is needed; its payment can no longer be made (Op.PAY on EXPIRED)."""
    if cart is not None and now >= expires_at(cart):
        rule = TABLE[Op.EXPIRE][state_of(cart)]
        if rule.to is not None and rule.to.value != cart["status"]:
            cart["status"] = rule.to.value
    return cart


def table_markdown() -> str:
    """The table as kiosk/demo/README.md shows it: one row an operation, one column a state."""
    states = list(State)
    lines = [
        "| operation | " + " | ".join(s.value for s in states) + " |",
        "|---|" + "---|" * len(states),
    ]
    for op, row in TABLE.items():
        lines.append(f"| {op.value} | " + " | ".join(row[s].cell() for s in states) + " |")
    return "\n".join(lines)


if __name__ == "__main__":  # python -m kiosk.demo.domain.states
    print(table_markdown())
