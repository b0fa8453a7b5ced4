"""The router: which customer-flow screens stand, for the order as published and what was asked.

Pure decisions, testable without an app (tests/tui/test_router.py):
- `stack_for(where, step)`: the screens, bottom to top, for a request (`kiosk.tui.flow.Wants`);
- `follow(before, now, shown)`: the step the order itself moves to (paid, expired, a way to order
  refused), or None where the screens stay.
`Where` is what of the VisitState these read. The app's applier (kiosk.tui.navigation) makes
Textual's stack match; resume and takeover go through the same decisions.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from kiosk.tui.flow import Step

if TYPE_CHECKING:
    from kiosk.ordering.visit import VisitState

# The flow in order; DONE stands alone on the first screen (nothing under it to go back to).
FLOW = (Step.LOCATION, Step.WELCOME, Step.MENU, Step.ORDER, Step.CHECKOUT, Step.PAYMENT)
# A screen above the flow that belongs to the menu or the order (a product); anything else
# (a dialog, staff, help) is "other" and the order's own moves leave it alone.
PRODUCT = "product"
OTHER = "other"


@dataclass(frozen=True)
class Where:
    """What navigation reads of the published VisitState (phase: lifecycle Phase's value)."""

    single_location: bool
    location_chosen: bool = False
    phase: str = "ordering"
    # The server's words for a refused way to order (VisitState.way_refused), else None.
    way_refused: str | None = None

    @classmethod
    def of(cls, state: VisitState | None, single_location: bool) -> Where:
        if state is None:
            return cls(single_location)
        return cls(
            single_location,
            location_chosen=state.location_id is not None,
            phase=state.order.phase.value,
            way_refused=state.way_refused,
        )


def _first(where: Where) -> tuple[Step, ...]:
    return (Step.WELCOME,) if where.single_location else (Step.LOCATION,)


def start(where: Where) -> tuple[Step, ...]:
    """The next customer's first screen."""
    return _first(where)


def stack_for(where: Where, step: Step) -> tuple[Step, ...]:
    """The screens for `step` asked for in `where`, bottom to top."""
    if where.phase == "paid" or step is Step.DONE:
        # Paid: the number, whatever was asked; Enter there starts the next order.
        return (*_first(where), Step.DONE)
    flow = FLOW[1:] if where.single_location else FLOW
    if not where.single_location and not where.location_chosen:
        return (Step.LOCATION,)
    if where.way_refused or (step is Step.LOCATION and where.single_location):
        step = Step.WELCOME  # the way to order is chosen again, for the same cart
    if where.phase == "expired" and FLOW.index(step) > FLOW.index(Step.ORDER):
        step = Step.ORDER  # the order screen says so, with its one way on
    return flow[: flow.index(step) + 1]


def follow(before: Where | None, now: Where, shown: Sequence[Step | str]) -> Step | None:
    """Where the order's own change takes the customer, given the screens `shown` (bottom to top:
    steps, PRODUCT or OTHER); None: the screens stay (they show the change themselves)."""

    def became(phase: str) -> bool:
        return now.phase == phase and (before is None or before.phase != phase)

    if became("paid") and Step.PAYMENT not in shown and Step.DONE not in shown:
        return Step.DONE  # a kept code paid after the customer went back to the order
    if became("expired") and on_the_menu(shown):
        # The order screen and the payment say it themselves, where they stand.
        return Step.ORDER
    if now.way_refused and (before is None or before.way_refused != now.way_refused):
        return Step.WELCOME
    return None


def on_the_menu(shown: Sequence[Step | str]) -> bool:
    """Whether the customer is choosing: the menu on top, or a product on it."""
    steps = list(shown)
    if Step.MENU not in steps:
        return False
    last = len(steps) - 1 - steps[::-1].index(Step.MENU)
    return all(s == PRODUCT for s in steps[last + 1 :])
