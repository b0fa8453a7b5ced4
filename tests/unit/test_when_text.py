"""When an order is for, said on the done screen in the cart's words, printed with its date."""

from __future__ import annotations

from datetime import datetime
from types import SimpleNamespace
from typing import Any
from zoneinfo import ZoneInfo

from kiosk.tui.cartview import when_text

NOW = datetime(2026, 11, 26, 9, 15, tzinfo=ZoneInfo("America/New_York"))


def cart(day: str | None, clock: str | None, kind: str = "LATER") -> Any:
    return SimpleNamespace(pickup_type=kind, order_date=day, order_time=clock)


def test_a_later_order_is_said_as_every_screen_says_it() -> None:
    assert when_text(cart("2026-11-26", "14:45"), NOW) == "for Today 14:45"
    assert when_text(cart("2026-11-27", "07:00"), NOW) == "for Tomorrow 07:00"
    assert when_text(cart("2026-11-28", "09:30"), NOW) == "for Saturday 09:30"


def test_a_printed_receipt_keeps_the_date_itself() -> None:
    printed = when_text(cart("2026-11-26", "14:45"))
    assert "Today" not in printed and "14:45" in printed and "26" in printed


def test_now_and_what_cannot_be_read() -> None:
    assert when_text(cart(None, None, "ASAP"), NOW) == "as soon as possible"
    # Shown as sent (cleaned), never an error.
    assert when_text(cart("not-a-date", "14:45"), NOW) == "for not-a-date 14:45"
