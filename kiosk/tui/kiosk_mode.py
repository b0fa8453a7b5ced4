"""Kiosk mode, the staff key, idle handling and crash resume: what makes KioskApp a counter kiosk.

`KioskModeApp` is KioskApp's base class. It keeps these concerns out of the ordering flow:
- Kiosk mode (settings.kiosk_mode, `--kiosk`): the actions that leave or suspend the app (quit,
  Ctrl+C's quit hint, the command palette, suspend) are refused by `check_action`, and on a real
  terminal SIGINT, SIGQUIT and SIGTSTP are ignored (Textual already reads Ctrl+C, Ctrl+\\ and Ctrl+Z
  as keys, unless TEXTUAL_ALLOW_SIGNALS is set, which kiosk mode clears).
- The staff key (F12, or Ctrl+S where F12 is taken, e.g. a browser): a PIN (hashed in the settings,
  attempts throttled by `PinThrottle`) opens the staff screen.
- Idle handling (`kiosk.tui.idle.IdleWatcher`), ticked by one interval timer.
- Crash resume (`kiosk.tui.resume`), started once the first screen shows.
- The health line on every screen in kiosk mode (or when staff switch it on).
"""

from __future__ import annotations

import contextlib
import os
import signal
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, ClassVar, cast

from textual import events
from textual.app import App
from textual.binding import Binding
from textual.screen import Screen

from kiosk.tui.idle import IdleWatcher

if TYPE_CHECKING:
    from kiosk.config import Settings
    from kiosk.tui.app import KioskApp

# Keys: F12 is passed by every terminal and SSH client; Ctrl+S too (Textual turns off XON/XOFF),
# and it is the one to use where F12 is taken (a browser's developer tools under textual-serve).
STAFF_KEYS = "f12,ctrl+s"

# The actions that leave or suspend the app: refused in kiosk mode.
LOCKED_ACTIONS = frozenset({"quit", "help_quit", "command_palette", "suspend_process"})

# Signals a terminal can send from the keyboard (when ISIG is on) or that a stray `kill` sends.
KIOSK_IGNORED_SIGNALS = tuple(
    sig for sig in (getattr(signal, n, None) for n in ("SIGINT", "SIGQUIT", "SIGTSTP")) if sig
)


@dataclass
class PinThrottle:
    """Wrong staff PINs: `free_attempts` tries, then a lockout that doubles with every further
    wrong PIN (30 s, 60 s, 120 s... up to `max_lockout`). A right PIN clears it. The clock is
    injected (the app's monotonic clock), so tests move time without sleeping."""

    clock: Callable[[], float]
    free_attempts: int = 3
    first_lockout: float = 30.0
    max_lockout: float = 900.0
    failures: int = 0
    locked_until: float = 0.0

    def seconds_left(self) -> float:
        """How long until the next attempt is allowed (0: now)."""
        return max(0.0, self.locked_until - self.clock())

    @property
    def locked(self) -> bool:
        return self.seconds_left() > 0

    @property
    def attempts_before_lockout(self) -> int:
        return max(0, self.free_attempts - self.failures)

    def failed(self) -> float:
        """Count a wrong PIN; returns the lockout it starts (0 when none)."""
        self.failures += 1
        if self.failures < self.free_attempts:
            return 0.0
        lockout = min(
            self.max_lockout, self.first_lockout * 2 ** (self.failures - self.free_attempts)
        )
        self.locked_until = self.clock() + lockout
        return lockout

    def succeeded(self) -> None:
        self.failures = 0
        self.locked_until = 0.0


class KioskModeApp(App[None]):
    """The base of KioskApp: kiosk mode, staff, idle, resume (see the module docstring)."""

    BINDINGS = [
        Binding(STAFF_KEYS, "staff", "Staff", show=False, priority=True),
        # The shell's usual key outside kiosk mode (Textual binds none); refused in kiosk mode.
        Binding("ctrl+z", "suspend_process", show=False),
    ]

    # How often the idle watcher looks at the clock (and the countdown redraws).
    IDLE_CHECK_INTERVAL: ClassVar[float] = 0.5

    def __init__(self, *, settings: Settings | None = None, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        # The settings known before the services exist (the CLI's), so that kiosk mode holds on
        # the boot screen too; the services' settings take over once they are built.
        self._early_settings = settings
        self.pin_throttle = PinThrottle(self._monotonic)
        self.idle = IdleWatcher(self)
        # None: the health line follows kiosk mode; True/False: staff switched it.
        self.health_line_choice: bool | None = None
        self._saved_signals: dict[int, Any] = {}
        self._resume_started = False
        if settings is not None and settings.kiosk_mode:
            # Textual leaves the terminal's signal keys on when this is set: not in a kiosk.
            os.environ.pop("TEXTUAL_ALLOW_SIGNALS", None)

    # Helpers --------------------------------------------------------------------------------------
    @property
    def _kiosk(self) -> KioskApp:
        return cast("KioskApp", self)

    def _monotonic(self) -> float:
        clock = getattr(self, "clock", None)
        return clock() if clock is not None else time.monotonic()

    @property
    def kiosk_settings(self) -> Settings | None:
        services = getattr(self, "services", None)
        if services is not None:
            return cast("Settings", services.settings)
        return self._early_settings

    @property
    def kiosk_mode(self) -> bool:
        settings = self.kiosk_settings
        return bool(settings is not None and settings.kiosk_mode)

    @property
    def health_line_shown(self) -> bool:
        if self.health_line_choice is not None:
            return self.health_line_choice
        return self.kiosk_mode

    # Kiosk mode -----------------------------------------------------------------------------------
    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        return not (action in LOCKED_ACTIONS and self.kiosk_mode)

    def _guard_signals(self) -> None:
        """On a real terminal in kiosk mode, ignore the signals that would end or stop the app."""
        if self.is_headless or not self.kiosk_mode or self._saved_signals:
            return
        if threading.current_thread() is not threading.main_thread():
            return
        for sig in KIOSK_IGNORED_SIGNALS:
            self._saved_signals[sig] = signal.getsignal(sig)
            signal.signal(sig, signal.SIG_IGN)

    def _release_signals(self) -> None:
        saved, self._saved_signals = self._saved_signals, {}
        for sig, handler in saved.items():
            with contextlib.suppress(TypeError, ValueError):
                signal.signal(sig, handler)

    # Activity (for the idle watcher) --------------------------------------------------------------
    async def on_event(self, event: events.Event) -> None:
        if isinstance(
            event,
            events.Key
            | events.MouseDown
            | events.MouseScrollDown
            | events.MouseScrollUp
            | events.Paste,
        ) and not getattr(event, "is_forwarded", False):
            self.idle.activity()
        await super().on_event(event)

    # Start ----------------------------------------------------------------------------------------
    def on_mount(self) -> None:
        self.idle.start(self.IDLE_CHECK_INTERVAL)
        self._guard_signals()
        self.screen_change_signal.subscribe(self, self._screen_changed)
        # The first screen may have been pushed before the subscription.
        self.call_after_refresh(self._screen_changed, self.screen)

    def kiosk_started(self) -> None:
        """Called by KioskApp once the services exist and the first screen is up."""
        self._guard_signals()
        self.refresh_bindings()
        self.idle.activity()
        if not self._resume_started:
            self._resume_started = True
            from kiosk.tui.resume import resume_saved_cart

            self.run_worker(resume_saved_cart(self._kiosk), group="resume", exit_on_error=False)

    async def on_unmount(self) -> None:
        self._release_signals()

    def _screen_changed(self, screen: Screen[Any]) -> None:
        from kiosk.tui.health import attach_health_line

        attach_health_line(screen)

    def show_health_line(self, shown: bool | None) -> None:
        """Staff's switch (None: follow kiosk mode); ordering screens get the line at once."""
        from kiosk.tui.health import attach_health_line

        self.health_line_choice = shown
        for screen in self.screen_stack:
            attach_health_line(screen)

    # Staff ----------------------------------------------------------------------------------------
    def action_staff(self) -> None:
        """The staff key: the PIN prompt (kiosk mode, or whenever a PIN is set), then the staff
        screen."""
        from kiosk.tui.screens.staff import PinDialog, StaffScreen

        if any(isinstance(s, StaffScreen | PinDialog) for s in self.screen_stack):
            return
        # A "Still there?" prompt is answered by the staff key: someone is here.
        self.idle.keep()
        settings = self.kiosk_settings
        pin_hash = settings.staff_pin_hash if settings is not None else None
        if not pin_hash and not self.kiosk_mode:
            # A developer's kiosk without a PIN: nothing to protect.
            self.push_screen(StaffScreen())
            return

        def answered(ok: bool | None) -> None:
            if ok:
                self.push_screen(StaffScreen())

        self.push_screen(PinDialog(pin_hash, self.pin_throttle), answered)
