"""Kiosk mode, the staff key, idle handling and crash resume: what makes KioskApp a counter kiosk.

`KioskMode` is a mixin KioskApp composes (`class KioskApp(KioskMode, App)`), not a base class the
app depends on: it declares what it needs of its host (Textual's App, typed through `_Host`, and the
kiosk's `contract.Kiosk`), and reaches nothing by getattr. Its key bindings are
`KIOSK_MODE_BINDINGS`, which the app lists (Textual merges bindings of DOM classes only). It keeps
these concerns out of the ordering flow:
- Kiosk mode (settings.kiosk_mode, `--kiosk`): the actions that leave or suspend the app (quit,
  Ctrl+C's quit hint, the command palette, suspend) are refused by `check_action`, and on a real
  terminal SIGINT, SIGQUIT and SIGTSTP are ignored (Textual already reads Ctrl+C, Ctrl+\\ and Ctrl+Z
  as keys, unless TEXTUAL_ALLOW_SIGNALS is set, which kiosk mode clears).
- The staff key (F12, or Ctrl+S where F12 is taken, e.g. a browser): a PIN (hashed in the settings,
  attempts throttled by `PinThrottle`) opens the staff screen.
- Idle handling (`kiosk.tui.idle.IdleWatcher`), ticked by one interval timer.
- Crash resume (`kiosk.tui.resume`), started once the first screen shows.
- The health line on every screen in kiosk mode (or when staff switch it on).
- The terminal (issue 23): twice a second the kiosk looks whether another session asked for its
  terminal (kiosk.terminal's takeover request) and whether its own terminal has hung up; either
  way it leaves at once and keeps the order (the cart on the server, its id in the resume file)
  for the session that takes over. A watchdog ends the process if leaving blocks on a dead
  terminal. The idle reset never runs for a kiosk whose terminal has gone.
- Help and out of order (issue 34): the Help key (F1, and the footer's Help) on every customer
  screen calls staff once (kiosk.help_call.HelpDesk) and says "Someone is coming to help"; a
  terminal staff closed (kiosk.out_of_order: the staff screen, or `kiosk out-of-order on`) shows
  OutOfOrderScreen over whatever a customer had, on every screen change, until it opens again.
  The command line's change is seen on the terminal's clock above (one stat twice a second).
- Over SSH the kiosk also asks its terminal on its own clock (issue 36): after
  `TERMINAL_PROBE_QUIET` seconds with nothing from the terminal it asks where the cursor is, and a
  terminal that does not answer within `TERMINAL_PROBE_WAIT` is left, keeping the order. A frozen
  client or a dropped link that sshd has not noticed (OpenSSH 9.2 does not count a client as
  silent while the screen keeps changing) is so left within 60 s, whatever the screen.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import signal
import sys
import threading
import time
from typing import TYPE_CHECKING, Any, ClassVar, cast

from textual import events
from textual.app import App
from textual.binding import Binding
from textual.screen import Screen

from kiosk.i18n import N_
from kiosk.tui.idle import IdleWatcher
from kiosk.tui.pin import PinThrottle

if TYPE_CHECKING:
    from kiosk.config import Settings
    from kiosk.help_call import HelpDesk
    from kiosk.out_of_order import Watch
    from kiosk.tui.contract import Kiosk

log = logging.getLogger("kiosk.tui")

# The exit status of a kiosk that gave its terminal to another session (kiosk.cli says so).
LEFT_FOR_ANOTHER_SESSION = 75
# Seconds a leaving kiosk has before the watchdog ends it (its terminal may block every write).
LEAVE_GRACE = 3.0
# Seconds a terminal has to answer "where is your cursor?" before the idle reset (over SSH a reply
# crosses the link twice).
TERMINAL_ANSWER_WAIT = 5.0
# Over SSH: nothing from the terminal for this long, and the kiosk asks it; no answer within the
# wait, and it leaves. Worst case 20 + 20 s (plus a check's 5 s), within the 60 s docs/ssh.md says;
# the wait is long because a slow link is not a dead one. A key or a click counts as an answer, so
# a customer at work is never asked; an idle counter sends 4 bytes and gets ~8 back every 20 s.
TERMINAL_PROBE_QUIET = 20.0
TERMINAL_PROBE_WAIT = 20.0
TERMINAL_PROBE_CHECK = 5.0

# Keys: F12 is passed by every terminal and SSH client; Ctrl+S too (Textual turns off XON/XOFF),
# and it is the one to use where F12 is taken (a browser's developer tools under textual-serve).
STAFF_KEYS = "f12,ctrl+s"
# F1: the usual help key, free on every screen; it types nothing, so a search or a field never
# takes it.
HELP_KEY = "f1"

# The actions that leave or suspend the app: refused in kiosk mode.
LOCKED_ACTIONS = frozenset({"quit", "help_quit", "command_palette", "suspend_process"})

# Signals a terminal can send from the keyboard (when ISIG is on) or that a stray `kill` sends.
KIOSK_IGNORED_SIGNALS = tuple(
    sig for sig in (getattr(signal, n, None) for n in ("SIGINT", "SIGQUIT", "SIGTSTP")) if sig
)


KIOSK_MODE_BINDINGS = [
    Binding(STAFF_KEYS, "staff", "Staff", show=False, priority=True),
    # Help on every customer screen (issue 34). A priority binding: read before a screen that
    # takes every key (the attract screen, "Still there?", the out-of-order screen).
    Binding(HELP_KEY, "help", N_("Help"), priority=True),
    # The shell's usual key outside kiosk mode (Textual binds none); refused in kiosk mode.
    Binding("ctrl+z", "suspend_process", show=False),
]

if TYPE_CHECKING:
    # For the type checker the mixin is an App (its host); at run time a plain mixin.
    _Host = App[None]
else:
    _Host = object


class KioskMode(_Host):
    """Kiosk mode, staff, idle, resume and the health line, mixed into KioskApp (see the module
    docstring). Needs of its host: Textual's App, and `clock` and `services_or_none` (Kiosk)."""

    # How often the idle watcher looks at the clock (and the countdown redraws).
    IDLE_CHECK_INTERVAL: ClassVar[float] = 0.5
    # How often the kiosk looks for a takeover request and at its terminal.
    TERMINAL_CHECK_INTERVAL: ClassVar[float] = 0.5
    TERMINAL_ANSWER_WAIT: ClassVar[float] = TERMINAL_ANSWER_WAIT
    TERMINAL_PROBE_QUIET: ClassVar[float] = TERMINAL_PROBE_QUIET
    TERMINAL_PROBE_WAIT: ClassVar[float] = TERMINAL_PROBE_WAIT

    def __init__(self, *, settings: Settings | None = None, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        from kiosk.tui import escape_keys

        # An Esc then a key at once is an Esc and a key, not Alt+key (kiosk.tui.escape_keys).
        escape_keys.install()
        # The settings known before the services exist (the CLI's), so that kiosk mode holds on
        # the boot screen too; the services' settings take over once they are built.
        self._early_settings = settings
        self.pin_throttle = PinThrottle(self._monotonic)
        self.idle = IdleWatcher(self)
        # None: the health line follows kiosk mode; True/False: staff switched it.
        self.health_line_choice: bool | None = None
        self._saved_signals: dict[int, Any] = {}
        self._resume_started = False
        # Set when the kiosk leaves its terminal (another session took it, or it hung up).
        self.left_terminal: str | None = None
        # Help and out of order (issue 34): built once the services exist (kiosk_started).
        self._help_desk: HelpDesk | None = None
        self._closed_watch: Watch | None = None
        self.out_of_order = False
        # The last help command's thread (tests wait for it).
        self.help_thread: threading.Thread | None = None
        # Each question "where is your cursor?" waiting for its answer (the idle reset's, the
        # probe's): one answer answers them all.
        self._cursor_waiters: set[asyncio.Event] = set()
        # When something last came from the terminal (a key, a click, an answer): real time.
        self._terminal_heard = time.monotonic()
        self._probing = False
        if settings is not None and settings.kiosk_mode:
            # Textual leaves the terminal's signal keys on when this is set: not in a kiosk.
            os.environ.pop("TEXTUAL_ALLOW_SIGNALS", None)

    # Helpers --------------------------------------------------------------------------------------
    @property
    def _kiosk(self) -> Kiosk:
        return cast("Kiosk", self)

    def _monotonic(self) -> float:
        return self._kiosk.clock()

    @property
    def kiosk_settings(self) -> Settings | None:
        services = self._kiosk.services_or_none
        if services is not None:
            return services.settings
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

    @property
    def health_line_words(self) -> bool:
        """The whole line (staff switched it on) rather than the customer's status mark."""
        return self.health_line_choice is True

    # Kiosk mode -----------------------------------------------------------------------------------
    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "help":
            # Customers' screens only: not while booting, nor on staff's screens (OFFERS_HELP).
            return (
                self._kiosk.services_or_none is not None
                and self.left_terminal is None
                and getattr(self.screen, "OFFERS_HELP", True)
            )
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
        if isinstance(event, events.CursorPosition):
            for waiter in self._cursor_waiters:
                waiter.set()
        if isinstance(
            event, events.Key | events.MouseEvent | events.Paste | events.CursorPosition
        ) and not getattr(event, "is_forwarded", False):
            self._terminal_heard = time.monotonic()
        if isinstance(
            event,
            events.Key
            | events.MouseDown
            | events.MouseScrollDown
            | events.MouseScrollUp
            | events.Paste,
        ) and not getattr(event, "is_forwarded", False):
            self.idle.activity()
            if isinstance(event, events.Key | events.MouseDown):
                self._customer_acted()
        await super().on_event(event)

    def _customer_acted(self) -> None:
        """A key or a click: a passing message (information, a confirmation) has been seen and
        goes, before the key does its work (which may say something new). An error stays until
        it is dealt with: it names the way forward."""
        from kiosk.tui.widgets.chrome import Banner

        for banner in self.screen.query(Banner):
            passing = banner.has_class("-info") or banner.has_class("-ok")
            if passing and not banner.has_class("-wait"):
                banner.clear()

    # Start ----------------------------------------------------------------------------------------
    def on_mount(self) -> None:
        self.idle.start(self.IDLE_CHECK_INTERVAL)
        self.set_interval(self.TERMINAL_CHECK_INTERVAL, self.watch_terminal, name="terminal")
        from kiosk.terminal import over_ssh

        if not self.is_headless and over_ssh():
            self.set_interval(TERMINAL_PROBE_CHECK, self.probe_terminal, name="terminal-probe")
        self._guard_signals()
        self.screen_change_signal.subscribe(self, self._screen_changed)
        # The first screen may have been pushed before the subscription.
        self.call_after_refresh(self._screen_changed, self.screen)

    def kiosk_started(self) -> None:
        """Called by KioskApp once the services exist and the first screen is up."""
        self._guard_signals()
        self.refresh_bindings()
        self.idle.activity()
        services = self._kiosk.services_or_none
        if services is not None and self._closed_watch is None:
            from kiosk.out_of_order import Watch

            # A terminal closed before a restart is closed from its first screen on.
            self._closed_watch = Watch(services.state_dir)
            self.look_out_of_order()
            # Built now: a request from before a restart is counted as waiting from the start.
            desk = self.help_desk
            if desk is not None and desk.waiting is not None:
                log.warning("help requested before the restart still waits: see the staff screen")
        if not self._resume_started:
            self._resume_started = True
            from kiosk.tui.resume import resume_saved_cart

            self.run_worker(resume_saved_cart(self._kiosk), group="resume", exit_on_error=False)

    async def on_unmount(self) -> None:
        self._release_signals()

    def _screen_changed(self, screen: Screen[Any]) -> None:
        from kiosk.tui.health import attach_health_line

        attach_health_line(screen)
        if self.out_of_order:
            # After the step that brought it is over (a worker's push, a reset's swap).
            self.call_later(self._close_over_top)

    def show_health_line(self, shown: bool | None) -> None:
        """Staff's switch (None: follow kiosk mode); ordering screens get the line at once."""
        from kiosk.tui.health import attach_health_line

        self.health_line_choice = shown
        for screen in self.screen_stack:
            attach_health_line(screen)

    # The terminal ---------------------------------------------------------------------------------
    def terminal_lost(self) -> bool:
        """Whether this kiosk's terminal has hung up (never in a headless run)."""
        if self.is_headless or self.left_terminal == "hung up":
            return self.left_terminal == "hung up"
        from kiosk.terminal import tty_gone

        try:
            fd = sys.__stdin__.fileno() if sys.__stdin__ is not None else -1
        except (OSError, ValueError):
            return True
        return fd < 0 or tty_gone(fd)

    async def terminal_answers(self, wait: float | None = None) -> bool:
        """Whether a terminal is still at the other end: it is asked where its cursor is (DSR,
        CSI 6n), which every terminal answers by itself. A frozen client or a dropped link whose
        server has not hung up yet does not answer: the idle reset then keeps the order."""
        if self.is_headless:
            return True
        if self.terminal_lost():
            return False
        driver = self._driver
        if driver is None:
            return True
        answered = asyncio.Event()
        self._cursor_waiters.add(answered)
        try:
            driver.write("\x1b[6n")
            driver.flush()
            await asyncio.wait_for(answered.wait(), wait or self.TERMINAL_ANSWER_WAIT)
        except (TimeoutError, OSError):
            return False
        finally:
            self._cursor_waiters.discard(answered)
        return True

    def probe_terminal(self) -> None:
        """Over SSH, on the kiosk's own clock: a terminal silent for TERMINAL_PROBE_QUIET s is
        asked whether it is there (see the module docstring)."""
        if self.left_terminal is not None or self._probing:
            return
        if time.monotonic() - self._terminal_heard < self.TERMINAL_PROBE_QUIET:
            return
        self._probing = True
        self.run_worker(self._probe(), group="terminal-probe", exit_on_error=False)

    async def _probe(self) -> None:
        try:
            answered = await self.terminal_answers(self.TERMINAL_PROBE_WAIT)
        finally:
            self._probing = False
        if answered:
            self._terminal_heard = time.monotonic()
        elif self.left_terminal is None:
            log.info(
                "the terminal did not answer in %.0f s; leaving, the order is kept",
                self.TERMINAL_PROBE_WAIT,
            )
            self.leave_terminal("not answering")

    def watch_terminal(self) -> None:
        if self.left_terminal is not None:
            return
        services = self._kiosk.services_or_none
        folder = services.state_dir if services is not None else None
        from kiosk.terminal import takeover_requested

        if folder is not None and takeover_requested(folder):
            self.leave_terminal("taken over")
        elif self.terminal_lost():
            self.leave_terminal("hung up")
        else:
            self.look_out_of_order()

    def leave_terminal(self, why: str) -> None:
        """Leave now, keeping the order for whoever opens this terminal next."""
        log.info("terminal %s: leaving, the open order is kept for the next session", why)
        self.left_terminal = why
        self._kiosk.keep_cart_on_quit = True
        if not self.is_headless:
            # Leaving writes to the terminal, which may block for ever on a dead link.
            watchdog = threading.Timer(LEAVE_GRACE, os._exit, args=(LEFT_FOR_ANOTHER_SESSION,))
            watchdog.daemon = True
            watchdog.start()
        self.exit(return_code=LEFT_FOR_ANOTHER_SESSION)

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
        if not pin_hash and not self.kiosk_mode and not getattr(self, "browser_session", False):
            # A developer's kiosk without a PIN: nothing to protect (a browser tab is a counter).
            self.push_screen(StaffScreen())
            return

        def answered(ok: bool | None) -> None:
            if ok:
                self.push_screen(StaffScreen())

        self.push_screen(PinDialog(pin_hash, self.pin_throttle), answered)

    # Help (issue 34) ------------------------------------------------------------------------------
    @property
    def help_desk(self) -> HelpDesk | None:
        """This terminal's help requests (None until the services exist)."""
        if self._help_desk is None:
            services = self._kiosk.services_or_none
            if services is None:
                return None
            from kiosk.help_call import HelpDesk
            from kiosk.terminal import terminal_id_for

            settings = services.settings
            self._help_desk = HelpDesk(
                terminal_id_for(settings),
                folder=services.state_dir,
                command=settings.help_command,
                metrics=services.metrics,
                clock=self._kiosk.wall_clock,
            )
        return self._help_desk

    def action_help(self) -> None:
        """The Help key: staff are called once (again while waiting calls nobody twice), and
        the customer is told someone is coming, on which terminal."""
        from kiosk.tui.screens.attention import HelpDialog

        desk = self.help_desk
        if desk is None or isinstance(self.screen, HelpDialog):
            return
        # A "Still there?" prompt is answered by Help: someone is here.
        self.idle.keep()
        visit_state = self._kiosk.visit.state
        if desk.ask(visit_state.cart_id) and desk.command:
            # The command may take seconds (a pager's API): in a thread, never on the UI; a
            # daemon, so that leaving the kiosk never waits for it.
            thread = threading.Thread(target=desk.call_staff, name="help-command", daemon=True)
            thread.start()
            self.help_thread = thread
        assert desk.waiting is not None
        self.push_screen(HelpDialog(desk.terminal_id, desk.waiting.at))

    def clear_help(self) -> bool:
        """Staff answered the request (the staff screen). Returns whether one was waiting."""
        desk = self.help_desk
        return desk is not None and desk.clear()

    # Out of order (issue 34) ----------------------------------------------------------------------
    def look_out_of_order(self) -> None:
        """Whether the state file changed (one stat); if so, read it and follow it."""
        watch = self._closed_watch
        if watch is None or not watch.changed():
            return
        from kiosk.out_of_order import read

        self._follow_out_of_order(read(watch.folder) is not None)

    def set_out_of_order(self, on: bool) -> None:
        """Staff's switch on the staff screen: written for restarts and `kiosk out-of-order`."""
        services = self._kiosk.services_or_none
        if services is not None and services.state_dir is not None:
            from kiosk.out_of_order import set_out_of_order

            try:
                set_out_of_order(services.state_dir, on, by="staff screen")
            except OSError as exc:  # still switched now; only a restart would forget it
                log.warning("out of order: cannot write the state file (%s)", exc.strerror)
        self._follow_out_of_order(on)

    def _follow_out_of_order(self, on: bool) -> None:
        if on == self.out_of_order:
            return
        self.out_of_order = on
        services = self._kiosk.services_or_none
        if services is not None and services.metrics is not None:
            services.metrics.set_out_of_order(on)
        if on:
            log.warning("out of order: customers see the closed screen (open orders are kept)")
            self._close_over_top()
        else:
            log.info("out of order: open again")
            from kiosk.tui.screens.attention import OutOfOrderScreen

            # Only the one on top goes now; one under the staff screen goes when it is seen.
            if isinstance(self.screen, OutOfOrderScreen):
                self.screen.dismiss(None)
        self.refresh_bindings()

    def _close_over_top(self) -> None:
        """The closed screen over the screen on top, unless that one may show while closed: the
        closed screen itself, "Someone is coming to help", and staff's screens."""
        if not self.out_of_order or self._kiosk.services_or_none is None:
            return
        from kiosk.tui.screens.attention import HelpDialog, OutOfOrderScreen
        from kiosk.tui.screens.boot import BootScreen
        from kiosk.tui.screens.staff import LocationChoice, PinDialog, StaffScreen

        allowed = (OutOfOrderScreen, HelpDialog, StaffScreen, PinDialog, LocationChoice, BootScreen)
        if isinstance(self.screen, allowed):
            return
        # A "Still there?" prompt has nothing left to ask: the order waits under the closed
        # screen.
        self.idle.keep()
        self.push_screen(OutOfOrderScreen())
