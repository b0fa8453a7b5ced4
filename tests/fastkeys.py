"""Pilot.press without its idle heuristic, for the suite's speed.

Textual's Pilot.press sends each key as a terminal would (the same Key event, through the driver)
and then waits for "CPU idle" twice: at least 20 ms a key each time, and up to a second while a
timer keeps the process busy. Here the key goes the same way, and the wait is for what the key
started: the app's and the screen's queues drained (twice: a key may bubble back to the app's
bindings), animations done, the queues drained again. Installed for
the whole run by tests/conftest.py; `burst` (tests/tui/test_bursts.py) still queues keys without
waiting at all."""

from __future__ import annotations

import asyncio
import contextlib
import unicodedata
from typing import Any

from textual import events
from textual.app import _character_to_key, _get_unicode_name_from_key
from textual.keys import REPLACED_KEYS
from textual.pilot import Pilot


def key_event(key: str) -> events.Key:
    """The Key event Pilot.press makes for `key` (a name or a character)."""
    if len(key) == 1 and not key.isalnum():
        key = _character_to_key(key)
    original = REPLACED_KEYS.get(key, key)
    char: str | None
    try:
        char = unicodedata.lookup(_get_unicode_name_from_key(original))
    except KeyError:
        char = key if len(key) == 1 else None
    return events.Key(key, char)


async def press(self: Pilot[Any], *keys: str) -> None:
    app = self.app
    driver = app._driver
    assert driver is not None
    for key in keys:
        if key.startswith("wait:"):
            await asyncio.sleep(float(key.split(":")[1]) / 1000)
            continue
        event = key_event(key)
        event.set_sender(app)
        driver.send_message(event)
        # The key goes through the app's queue, then the focused widget's and up again (to the
        # app for the bindings): each hop waited for, twice over, then the animations.
        for _ in range(2):
            await app_handled(app)
            if app._exit:
                return
            await self._wait_for_screen()
        await app._animator.wait_until_complete()
        await app_handled(app)
        if not app._exit:
            await self._wait_for_screen()


async def app_handled(app: Any) -> None:
    """Return once the app has handled what was in its queue when called, or has begun to quit
    (a key may end the app: its queue is then never handled)."""
    done = asyncio.Event()
    app.call_later(done.set)
    while not done.is_set():
        if app._exit or app._closing or app._closed or not app.is_running:
            return
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(done.wait(), 0.05)


def install() -> None:
    Pilot.press = press  # type: ignore[method-assign]
