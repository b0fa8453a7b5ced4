"""The staff health line: is the API reachable, the last error, what is left of the rate budget.

Read from each StorefrontClient (`last_success_at`, `last_error`, `last_error_at`, `rate_budget`),
which record every request they send: the line costs no request of its own. Error text is the
error's code, status and customer-safe message: never a key, a client secret or a URL.

A quiet counter (issue 23): at rest nothing is written to the terminal, since every byte crosses
the counter's SSH link (and constant output hides a frozen client from sshd's
ClientAliveInterval). So times are clock times ("last ok 10:42:07", kiosk/clocktime.py), not
ages that change every second, and a line is redrawn only when its text changes. In kiosk mode
customers see only a status mark (`status_mark`); the words are for staff (the staff screen, or
the full line when staff switch it on).
"""

from __future__ import annotations

import time
from typing import Any

from rich.text import Text
from textual.screen import Screen
from textual.widgets import Static

from kiosk.clocktime import clock_time
from kiosk.tui.contract import Kiosk, kiosk_of
from kiosk.tui.palette import tone
from kiosk.tui.text import clean


def reachability(client: Any) -> tuple[str, str]:
    """("ok" | "failing" | "unknown", words)."""
    ok_at = getattr(client, "last_success_at", None)
    error_at = getattr(client, "last_error_at", None)
    if ok_at is None and error_at is None:
        return "unknown", "API not used yet"
    if error_at is not None and (ok_at is None or error_at >= ok_at):
        return "failing", "API failing"
    return "ok", "API reachable"


def describe_error(error: Any) -> str:
    if error is None:
        return "none"
    parts = [str(p) for p in (getattr(error, "status", None), getattr(error, "code", None)) if p]
    if not parts:
        parts.append(type(error).__name__)
    message = clean(getattr(error, "message", ""), 60)
    return " ".join(parts) + (f" {message}" if message else "")


def budget_text(client: Any, now: float | None = None) -> str:
    budget = getattr(client, "rate_budget", None)
    if budget is None:
        return "budget unknown"
    remaining = budget.remaining
    if remaining is None:
        return f"budget ?/{budget.limit}"
    text = f"budget {remaining}/{budget.limit}"
    reset = budget.seconds_until_reset()
    if reset:
        now = time.time() if now is None else now
        text += f" (resets at {clock_time(now + reset)})"
    return text


# Each state's colour by its role in the theme's palette (kiosk/tui/palette.py): the terminal's
# own green was lime in high contrast, whose text is white and one accent.
STATE_TONES = {"ok": "ok", "failing": "error", "unknown": "warn"}


def client_health(
    client: Any,
    *,
    now: float | None = None,
    name: str = "",
    staff: bool = False,
    app: object = None,
) -> Text:
    """One line for one client: reachable, last error (and when), rate budget left. `staff`
    adds the last error's requestId (2.0), which only staff see: what the service's support asks
    for. `app`: whose theme colours it (the default theme's without one)."""
    now = time.time() if now is None else now
    state, words = reachability(client)
    style = tone(app, STATE_TONES[state])
    text = Text()
    if name:
        text.append(clean(name, 40) + ": ", style="bold")
    text.append("● ", style=style)
    text.append(words, style=style)
    ok_at = getattr(client, "last_success_at", None)
    if ok_at is not None:
        text.append(f" (last ok {clock_time(ok_at)})", style="dim")
    stale_since = getattr(client, "stale_since", None)
    if isinstance(stale_since, int | float):
        # Menus and locations from the site's disk cache (issue 14): ordering still needs the API.
        since = clock_time(stale_since)
        text.append(f" · showing saved menus (no answer since {since})", style=tone(app, "warn"))
    text.append(" · last error: ")
    error = getattr(client, "last_error", None)
    text.append(describe_error(error), style=tone(app, "error") if error is not None else "")
    error_at = getattr(client, "last_error_at", None)
    if error is not None and error_at is not None:
        text.append(f" at {clock_time(error_at)}", style="dim")
    request_id = getattr(error, "request_id", None) if staff else None
    if request_id:
        text.append(f" (requestId {clean(request_id, 48)})", style="dim")
    text.append(" · " + budget_text(client, now))
    return text


def current_client(app: Kiosk) -> tuple[str, Any] | None:
    services = app.services_or_none
    if services is None or not services.clients:
        return None
    location_id = app.location_id
    if location_id is not None and location_id in services.clients:
        return location_id, services.clients[location_id]
    first = next(iter(services.clients))
    return first, services.clients[first]


# The customer's mark in kiosk mode: a shape for each state (not colour alone).
MARKS = {"ok": "●", "failing": "▲", "unknown": "○"}


def status_mark(client: Any, app: object = None) -> Text:
    """What customers see of the API's health in kiosk mode: one mark, no words."""
    state, _ = reachability(client)
    return Text(MARKS[state], style=tone(app, STATE_TONES[state]))


class HealthLine(Static):
    """The health of the current location's client, shown on every ordering screen in kiosk mode
    (only the status mark) or when staff switch it on (the whole line). Looked at every second,
    redrawn only when what it shows has changed."""

    DEFAULT_CSS = """
    HealthLine {
        /* Just above the Footer (docked widgets on one edge overlap; the margin reserves both). */
        dock: bottom;
        margin-bottom: 1;
        height: 1;
        padding: 0 1;
        background: $panel;
        color: $text-muted;
        text-wrap: nowrap;
        text-overflow: ellipsis;
    }
    """

    def __init__(self) -> None:
        super().__init__()
        self._shown: Text | None = None

    def on_mount(self) -> None:
        self.tick()
        self.set_interval(1.0, self.tick)

    def wanted(self) -> Text:
        app = kiosk_of(self.app)
        found = current_client(app)
        if found is None:
            return Text("API: starting…") if app.health_line_words else Text("○")
        _, client = found
        if app.health_line_words:
            return client_health(client, app=self.app)
        return status_mark(client, self.app)

    def tick(self) -> None:
        app = kiosk_of(self.app)
        shown = app.health_line_shown
        if self.display != shown:
            self.display = shown
        if not shown:
            return
        text = self.wanted()
        if text != self._shown:
            # Only a change is drawn: at rest the counter's terminal gets nothing.
            self._shown = text
            self.update(text)


def attach_health_line(screen: Screen[Any]) -> None:
    """Give an ordering screen its health line (once); it hides itself when not wanted."""
    from kiosk.tui.screens.base import KioskScreen

    if not isinstance(screen, KioskScreen) or not screen.is_attached:
        return
    if not kiosk_of(screen.app).health_line_shown:
        # Not mounted at all when not wanted: the customer's screens stay exactly as designed.
        return
    if screen.query(HealthLine):
        return
    screen.mount(HealthLine())
