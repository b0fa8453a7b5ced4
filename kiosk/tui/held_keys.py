"""Keys held while the kiosk is on its way to another screen, mixed into KioskApp.

A step that leads to another screen (a choice made, a reset) holds the keys typed after the key
that decided it; they are given, in the order they were typed, to the screen on top once every
step holding them is over (issue 20: keys in bursts, over a laggy link too). See hold_keys.
"""

from __future__ import annotations

import logging
import math
from typing import TYPE_CHECKING

from textual import events
from textual.app import App
from textual.widgets import Input

if TYPE_CHECKING:
    from textual.timer import Timer

    _Host = App[None]
else:
    _Host = object

# The longest keys wait for the next screen (KioskApp.hold_keys): longer than a step takes on a
# slow link, short enough that a step that never ends does not leave the kiosk deaf.
HOLD_LIMIT = 10.0

log = logging.getLogger("kiosk.tui")


def key_again(event: events.Key) -> events.Key:
    """A fresh copy of a key that was stopped, to send again. It keeps the time it was typed:
    its place among held keys, and before or after the key that decided a step."""
    again = events.Key(event.key, event.character)
    again.time = event.time
    return again


class HeldKeys(_Host):
    """Holding and replaying keys (hold_keys, release_keys), mixed into KioskApp."""

    # Keys that came while the kiosk was on its way to another screen (hold_keys).
    _held_keys: list[events.Key] | None = None
    _hold_limit: Timer | None = None
    # How many steps hold the keys (hold_keys, release_keys); while held keys are replayed.
    _holders = 0
    _replaying = False
    # While the next customer's first screen replaces every screen: taps are dropped
    # (kiosk.tui.navigation, _show_start).
    _swapping = False
    # Stamped on replayed keys; a new step during a replay makes those behind it wait again.
    _hold_generation = 0
    # Which holds are live: HOLD_LIMIT moves it on, and the holds before it release nothing.
    _hold_epoch = 0
    # Keys typed up to this moment are not held (hold_keys' `after`).
    _hold_after = -math.inf

    def hold_keys(self, after: float | None = None) -> int:
        """Keys wait from now on: the screen on top is on its way out, and what comes next is meant
        for the screen after it. Held from the key that decided the step, not
        from when its worker runs: the keys after it in the same read (a burst over a laggy
        link) are handled before that, and went to the screen on its way out.

        Each call is paired with a `release_keys(hold)` of the hold it returns; the keys go on
        when every step that holds them has released them. `after`: only keys typed after that
        moment (an event's `time`) wait; by default every key still on its way."""
        since = -math.inf if after is None else after
        self._holders += 1
        if self._held_keys is None:
            self._held_keys = []
            self._hold_after = since
        elif self._replaying:
            # A replayed key began a new step: the replayed keys behind it wait for that step.
            self._hold_generation += 1
            self._hold_after = since
        # Should a step never release them (a message that never came), the keys go on after
        # HOLD_LIMIT rather than the kiosk ignoring every key.
        if self._hold_limit is not None:
            self._hold_limit.stop()
        self._hold_limit = self.set_timer(HOLD_LIMIT, self._hold_expired)
        return self._hold_epoch

    def _hold_expired(self) -> None:
        self._hold_limit = None
        if self._held_keys is not None:
            log.warning("keys held for %.0f s: released", HOLD_LIMIT)
            self._holders = 0
            # The steps that held them release nothing now: late, each would end a later hold.
            self._hold_epoch += 1
            self._replay()

    def holds(self, hold: int) -> bool:
        """Whether `hold` (as hold_keys returned it) may still be holding keys."""
        return self._held_keys is not None and hold == self._hold_epoch

    def release_keys(self, hold: int) -> None:
        """One step's hold ends (`hold`, as hold_keys returned it); when none is left, the held
        keys go to the screen now on top. A hold HOLD_LIMIT already ended releases nothing."""
        if self._held_keys is None or hold != self._hold_epoch:
            return
        self._holders = max(self._holders - 1, 0)
        if self._holders == 0 and not self._replaying:
            self._replay()

    def _replay(self) -> None:
        """The held keys to the screen on top, in the order they were typed (a key that came
        back from the screen going out was held after later ones that came straight here).
        Keys that come meanwhile wait their turn: they are held until the held ones have been
        handled (else the 'c' of 'cookie', held, came after 'ookie')."""
        held = self._held_keys or []
        self._held_keys = []
        self._replaying = True
        for key in sorted(held, key=lambda k: k.time):
            key._kiosk_replay = self._hold_generation  # type: ignore[attr-defined]
            self.post_message(key)
        self.call_later(self._released)

    def _released(self) -> None:
        # The replayed keys have been passed on (this call was queued after them).
        self._replaying = False
        if self._holders > 0:
            return  # one of them began a new step: it releases what waits for it
        if self._held_keys:
            self._replay()  # keys that came during the replay follow it
            return
        self._held_keys = None
        if self._hold_limit is not None:
            self._hold_limit.stop()
            self._hold_limit = None

    def _holds(self, event: events.Event) -> bool:
        """Whether `event` waits: keys are held, and it is not a key being replayed for the step
        now under way (a replayed key is held again only by a step that began after it)."""
        if self._held_keys is None:
            return False
        if getattr(event, "time", math.inf) <= self._hold_after:
            return False  # typed before the key that decided the step: it acts where it is
        replayed = getattr(event, "_kiosk_replay", None)
        return replayed is None or replayed < self._hold_generation

    def hold_keys_from(self, event: events.Key) -> int:
        """`hold_keys` from `event` on, `event` itself held in its place: a screen that must act
        before this key and those after it are handled (its `release_keys` lets them go on)."""
        hold = self.hold_keys(after=event.time - 1e-6)
        self._hold(event)
        return hold

    def _hold(self, event: events.Key) -> bool:
        """Keep `event` for the next screen if keys are held (a copy: the event itself has been
        stopped on its way here)."""
        if self._held_keys is None or not self._holds(event):
            return False
        event.stop()
        event.prevent_default()
        self._held_keys.append(key_again(event))
        return True

    def pass_key_on(self, event: events.Key) -> None:
        """`event`, stopped where it was, handled again from the app (held while keys are)."""
        event.stop()
        event.prevent_default()
        self.post_message(key_again(event))

    async def on_event(self, event: events.Event) -> None:
        held = self._held_keys
        if getattr(event, "is_forwarded", False):
            pass
        elif held is not None and isinstance(event, events.Key) and self._holds(event):
            held.append(event)
            return
        elif self._swapping and isinstance(event, events.MouseEvent | events.Paste):
            # Aimed at a screen on its way out while the next customer's first screen comes.
            # Other steps let taps through: the screen a tap lands on is the one drawn (a tap on
            # the menu just opened, while the welcome's keys were still held, was lost).
            return
        await super().on_event(event)

    def on_key(self, event: events.Key) -> None:
        """A printable key that comes back to the app unhandled while an input has focus was
        meant for that input (an input stops every printable key it gets). In a burst (arrows
        and a code in one read) Textual hands every key to the widget focused when it reads
        them; the arrows then move focus to the code field and the letters, queued on the old
        widget, came back here: lost, or run as the screen's keys ("r"; issue 20). They go on
        to the input, in order, before any binding is looked at."""
        # Queued on a widget of the screen going out before the step away was taken (a burst
        # read at once): for the next screen.
        if self._hold(event):
            return
        focused = self.focused
        if isinstance(focused, Input) and event.is_printable and event.character:
            event.stop()
            event.prevent_default()
            focused.post_message(events.Key(event.key, event.character))
