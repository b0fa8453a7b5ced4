"""The location's clock: the one place that turns the kiosk's wall clock into time of day.

Time of day is always the location's, in its IANA `timezone`, never the machine's: a kiosk in Lisbon
ordering from a restaurant in New York asks for New York's menu and New York's ASAP slot. Opening
hours (`hours.opening_status` takes its zone from here), the menu's "now", the ASAP order time's
date and time and the location screen all ask this module. Without a known timezone the answers say
so (None) rather than guess; the ASAP fallback then uses UTC, which the server corrects to its own
"now" anyway."""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping
from datetime import UTC, datetime, tzinfo
from typing import Any
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

__all__ = ["LocationClock", "human_moment", "zone_of"]


def zone_of(location: Any) -> ZoneInfo | None:
    """The location's timezone (anything with a `timezone` attribute or key), None when unknown."""
    if isinstance(location, Mapping):
        name = location.get("timezone")
    else:
        name = getattr(location, "timezone", None)
    if not isinstance(name, str) or not name.strip():
        return None
    try:
        return ZoneInfo(name.strip())
    except (ZoneInfoNotFoundError, ValueError, OSError):
        return None


class LocationClock:
    """`wall_clock()` (epoch seconds, injectable) read in `location`'s timezone."""

    def __init__(self, location: Any = None, wall_clock: Callable[[], float] = time.time) -> None:
        self.location = location
        self.wall_clock = wall_clock
        self.zone: ZoneInfo | None = zone_of(location) if location is not None else None

    def utc_now(self) -> datetime:
        return datetime.fromtimestamp(self.wall_clock(), tz=UTC)

    def now(self) -> datetime | None:
        """Now in the location's zone; None when the zone is unknown."""
        return None if self.zone is None else self.utc_now().astimezone(self.zone)

    def local_or_utc(self) -> datetime:
        zone: tzinfo = self.zone if self.zone is not None else UTC
        return self.utc_now().astimezone(zone)

    def date_and_time(self) -> tuple[str, str]:
        """("YYYY-MM-DD", "HH:MM") now at the location (the order-time row's format)."""
        now = self.local_or_utc()
        return f"{now:%Y-%m-%d}", f"{now:%H:%M}"

    def menu_moment(self, order_date: str | None, order_time: str | None) -> datetime | None:
        """The moment a menu is for: the order's later slot (location-local wall time as the
        server lists it), else now at the location; None when neither is known."""
        if order_date and order_time:
            try:
                return datetime.fromisoformat(f"{order_date}T{order_time}")
            except ValueError:
                return None
        return self.now()


def human_moment(
    order_date: str | None, order_time: str | None, today: datetime | None, locale: str | None
) -> str:
    """An order's time as a customer reads it (issue 20), in `locale`'s words: "Today 14:45",
    "Tomorrow 07:00", a weekday within the week ("Thursday 09:30"), else the date ("12 Mar 2026
    09:30"). `today` is now at the location (LocationClock.local_or_utc()); the date and time are
    the server's ("YYYY-MM-DD", "HH:MM"), location-local. What cannot be read is shown as sent.
    For the cart heading and the done screen: every screen says the time the same way."""
    from contextlib import suppress
    from datetime import date
    from datetime import time as day_time

    from babel.dates import format_date, format_time

    from kiosk.i18n import _

    babel_locale = (locale or "en").replace("-", "_")
    shown_time = (order_time or "")[:5]
    with suppress(ValueError):
        shown_time = format_time(day_time.fromisoformat(shown_time), "HH:mm", locale=babel_locale)
    if not order_date:
        return shown_time
    try:
        day = date.fromisoformat(order_date[:10])
    except ValueError:
        return f"{order_date[:10]} {shown_time}".strip()
    days = (day - today.date()).days if today is not None else None
    if days == 0:
        word = _("Today")
    elif days == 1:
        word = _("Tomorrow")
    elif days is not None and 1 < days < 7:
        word = format_date(day, "EEEE", locale=babel_locale)
    else:
        word = format_date(day, "medium", locale=babel_locale)
    return f"{word} {shown_time}".strip()
