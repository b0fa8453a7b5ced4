"""Idle handling: after `idle_timeout` seconds without a key or a touch, "Still there?" with a
countdown of `idle_countdown` seconds; any key keeps the order; at zero the session resets fully
(the cart deleted on the server, every screen and field cleared) and the attract screen shows.

It never fires while a screen in the stack says `IDLE_RESET = False`: payment (which has its own,
longer timer, settings.payment_timeout), the order-number screen (which returns by itself) and the
attract screen. Time comes from the app's injected monotonic clock; one interval timer calls
`check()`, which tests may also call directly after moving their clock.
"""

from __future__ import annotations

import logging
import math
from typing import TYPE_CHECKING, Any

from kiosk.tui.contract import kiosk_of

if TYPE_CHECKING:
    from textual.app import App
    from textual.timer import Timer

    from kiosk.tui.screens.idle import StillThereDialog

log = logging.getLogger("kiosk.tui")


class IdleWatcher:
    def __init__(self, app: App[Any]) -> None:
        self.app = app
        self.kiosk = kiosk_of(app)
        self.last_activity: float | None = None
        self.prompt: StillThereDialog | None = None
        self.deadline: float = 0.0
        self.resetting = False
        self.resets = 0
        self._timer: Timer | None = None

    # Inputs ---------------------------------------------------------------------------------------
    def start(self, interval: float) -> None:
        self.last_activity = self._now()
        self._timer = self.app.set_interval(interval, self.check, name="idle")

    def activity(self) -> None:
        """A key or a touch: the quiet time starts again (the prompt answers keys itself)."""
        self.last_activity = self._now()

    def keep(self) -> None:
        """Close the prompt, keeping the session (the customer answered)."""
        prompt = self.prompt
        self.prompt = None
        self.last_activity = self._now()
        if prompt is not None and prompt.is_attached and prompt is self.app.screen:
            prompt.dismiss(True)

    # The clock ------------------------------------------------------------------------------------
    def _now(self) -> float:
        return float(self.kiosk.clock())

    def _settings(self) -> Any:
        return self.kiosk.kiosk_settings

    @property
    def seconds_left(self) -> int:
        return max(0, math.ceil(self.deadline - self._now()))

    # Rules ----------------------------------------------------------------------------------------
    def applies(self) -> bool:
        """Whether the idle reset may fire now: never while payment (or any screen that says so)
        is anywhere in the stack, nor before the kiosk has started."""
        app = self.app
        if self.kiosk.services_or_none is None:
            return False
        stack = app.screen_stack
        if len(stack) < 2:
            return False
        return all(getattr(screen, "IDLE_RESET", True) for screen in stack[1:])

    def nothing_to_keep(self) -> bool:
        """On the first screen with no order and nothing chosen: no need to ask."""
        app = self.app
        if self.kiosk.visit.state.has_order:
            return False
        return len(app.screen_stack) <= 2 and getattr(app.screen, "method", None) is None

    # The tick -------------------------------------------------------------------------------------
    def check(self) -> None:
        now = self._now()
        if self.last_activity is None:
            self.last_activity = now
        if self.resetting or getattr(self.app, "left_terminal", None) is not None:
            # A kiosk leaving its terminal keeps the order for the next session: no reset.
            return
        prompt = self.prompt
        if prompt is not None:
            if prompt not in self.app.screen_stack:
                # Answered (or closed by a reset from elsewhere).
                self.prompt = None
                self.last_activity = now
                return
            left = self.deadline - now
            prompt.show_seconds(max(0, math.ceil(left)))
            if left <= 0:
                self.expire()
            return
        if not self.applies():
            # The quiet time counts from when the screen that forbids the reset has gone.
            self.last_activity = now
            return
        settings = self._settings()
        if settings is None or now - self.last_activity < float(settings.idle_timeout):
            return
        if self.nothing_to_keep():
            self.last_activity = now
            self._show_attract()
            return
        self.ask(now, float(settings.idle_countdown))

    def ask(self, now: float, countdown: float) -> None:
        from kiosk.tui.screens.idle import StillThereDialog

        self.deadline = now + countdown
        prompt = StillThereDialog(math.ceil(countdown))
        self.prompt = prompt

        def answered(keep: bool | None) -> None:
            if self.prompt is prompt:
                self.prompt = None
            self.last_activity = self._now()

        self.app.push_screen(prompt, answered)

    def walked_away(self) -> None:
        """A screen that asked "Still there?" itself (the payment, on its own clock) got no
        answer and has settled its order: the same end as the idle countdown's."""
        self.expire()

    def expire(self) -> None:
        """The countdown reached zero: reset the session fully, then the attract screen. Not
        for a kiosk whose terminal has gone (a dropped link is not a customer who walked away):
        it leaves, keeping the order for the session that takes the terminal over."""
        self.prompt = None
        lost = getattr(self.app, "terminal_lost", None)
        if lost is not None and lost():
            self.app.leave_terminal("hung up")  # type: ignore[attr-defined]
            return
        self.resetting = True
        self.app.run_worker(self._reset(), group="idle-reset", exit_on_error=False)

    async def _reset(self) -> None:
        try:
            answers = getattr(self.app, "terminal_answers", None)
            if answers is not None and not await answers():
                # Nobody answered because nothing is there: a link that dropped (no FIN) before
                # sshd noticed. Keep the order for the counter's next login.
                log.info("idle: the terminal does not answer; leaving, the order is kept")
                self.app.leave_terminal("not answering")  # type: ignore[attr-defined]
                return
            log.info("idle: no answer, the session is reset")
            await self.kiosk.go_home(abandoned=True)
            self.resets += 1
            await self._push_attract()
        finally:
            self.resetting = False
            self.last_activity = self._now()

    def _show_attract(self) -> None:
        self.app.run_worker(self._push_attract(), group="idle-reset", exit_on_error=False)

    async def _push_attract(self) -> None:
        from kiosk.tui.screens.attract import AttractScreen

        if not isinstance(self.app.screen, AttractScreen):
            await self.app.push_screen(AttractScreen())
