"""Opening hours and order times, in each location's own time zone."""

from __future__ import annotations

import re
from datetime import date, datetime, timedelta
from typing import Any
from zoneinfo import ZoneInfo

from kiosk.demo import data
from kiosk.demo.domain.common import Core
from kiosk.demo.errors import validation

SLOT_MINUTES = 15
SCHEDULE_DAYS = 3  # today and the next two days
LEAD_MINUTES = 15  # the earliest slot today is at least this far ahead
DATE_RE = re.compile(r"^\d{4}-\d{2}-\d{2}$")
TIME_RE = re.compile(r"^([01]\d|2[0-3]):[0-5]\d$")


class HoursRules(Core):
    """Local time, opening hours, the order days and slots."""

    def zone(self, loc: dict[str, Any]) -> ZoneInfo:
        tz = loc["timezone"]
        if tz not in self._zones:
            self._zones[tz] = ZoneInfo(tz)
        return self._zones[tz]

    def local_now(self, loc: dict[str, Any], now: float | None = None) -> datetime:
        return datetime.fromtimestamp(self.clock() if now is None else now, self.zone(loc))

    def hours_on(self, loc: dict[str, Any], day: date) -> tuple[str, str] | None:
        name = data.DAYS[day.weekday()]
        for h in loc["details"]["hours"]:
            if h["day"] == name:
                return h["open"], h["close"]
        return None

    def is_open(self, loc: dict[str, Any], local: datetime) -> bool:
        hours = self.hours_on(loc, local.date())
        if hours is None:
            return False
        return hours[0] <= local.strftime("%H:%M") < hours[1]

    def order_days(self, loc: dict[str, Any]) -> list[dict[str, Any]]:
        now = self.local_now(loc)
        earliest = now + timedelta(minutes=LEAD_MINUTES)
        days = []
        for offset in range(SCHEDULE_DAYS):
            day = now.date() + timedelta(days=offset)
            hours = self.hours_on(loc, day)
            if hours is None:
                continue
            oh, om = map(int, hours[0].split(":"))
            ch, cm = map(int, hours[1].split(":"))
            start = oh * 60 + om
            start += (-start) % SLOT_MINUTES
            intervals = []
            for minute in range(start, ch * 60 + cm, SLOT_MINUTES):
                hhmm = f"{minute // 60:02d}:{minute % 60:02d}"
                if offset == 0:
                    slot = datetime(day.year, day.month, day.day, minute // 60, minute % 60)
                    if slot.replace(tzinfo=now.tzinfo) < earliest:
                        continue
                intervals.append(hhmm)
            if not intervals:
                continue
            label = (
                "Today" if offset == 0 else "Tomorrow" if offset == 1 else day.strftime("%a, %b %d")
            )
            days.append({"value": day.isoformat(), "label": label, "intervals": intervals})
        return days

    def order_moment(self, loc: dict[str, Any], cart: dict[str, Any]) -> datetime:
        """The local time the order is for: now for ASAP (frozen once locked), or the slot."""
        if cart.get("pickupType") == "LATER" and cart.get("orderDate") and cart.get("orderTime"):
            y, m, d = map(int, cart["orderDate"].split("-"))
            hh, mm = map(int, cart["orderTime"].split(":"))
            return datetime(y, m, d, hh, mm, tzinfo=self.zone(loc))
        return self.local_now(loc, cart.get("lockedAtTs"))

    def _parse_when(
        self, loc: dict[str, Any], order_date: str | None, order_time: str | None
    ) -> datetime:
        now = self.local_now(loc)
        if order_date is None and order_time is None:
            return now
        day = now.date()
        if order_date is not None:
            if not DATE_RE.match(order_date):
                raise validation("orderDate must be YYYY-MM-DD", "orderDate")
            try:
                day = date.fromisoformat(order_date)
            except ValueError:
                raise validation("orderDate is not a real date", "orderDate") from None
        hh, mm = now.hour, now.minute
        if order_time is not None:
            if not TIME_RE.match(order_time):
                raise validation("orderTime must be HH:MM (24-hour)", "orderTime")
            hh, mm = map(int, order_time.split(":"))
        return datetime(day.year, day.month, day.day, hh, mm, tzinfo=self.zone(loc))
