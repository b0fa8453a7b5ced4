"""What every kiosk screen shares: the frame, background calls with a loading indicator, failures.

A screen never talks to httpx nor to the client: it sends intents and reads to the Visit
(kiosk.ordering.visit; cart writes are serialised there) through `self.call(...)`, which runs the
call in a worker of a named group, shows a loading indicator on the widget that waits, and turns any
failure into a message with a way forward (R retries). A read refused by the rate limit is not a
failure to the customer: it waits with a countdown and goes again by itself (RateLimitWait); cart
writes wait in the Visit (its CartStore)."""

from __future__ import annotations

import inspect
import math
from collections.abc import Awaitable, Callable
from dataclasses import replace
from typing import TYPE_CHECKING, Any, ClassVar, TypeVar

from textual import events, on
from textual.actions import SkipAction
from textual.app import ComposeResult
from textual.binding import ActiveBinding, Binding
from textual.containers import ScrollableContainer
from textual.screen import Screen
from textual.widget import Widget
from textual.widgets import Button, Input, Select
from textual.worker import Worker

from kiosk.i18n import N_, _, language
from kiosk.tui.contract import Kiosk, kiosk_of
from kiosk.tui.errors import Failure, describe, rate_limit_wait
from kiosk.tui.labels import offered_by, offered_methods
from kiosk.tui.widgets.chrome import Banner, FullName, KioskFooter, KioskHeader, StatusLine
from kiosk.tui.widgets.rowlist import RowList

if TYPE_CHECKING:
    from textual.timer import Timer

    from kiosk.api import Location
    from kiosk.api.models import MethodsStatus


T = TypeVar("T")


def translated_bindings(active: dict[str, ActiveBinding]) -> dict[str, ActiveBinding]:
    """The footer's words in the customer's language (bindings are class-level English)."""
    if language() == "en":
        return active
    return {
        key: found._replace(
            binding=replace(found.binding, description=_(found.binding.description))
        )
        for key, found in active.items()
    }


class KioskScreen(Screen[Any]):
    """Base of the ordering screens."""

    # Whether the idle reset may fire on this screen (issue 5): never during payment.
    IDLE_RESET: ClassVar[bool] = True
    TITLE: ClassVar[str] = ""

    BINDINGS = [
        Binding("escape", "back", N_("Back")),
        # Arrows walk through the screen's controls (issue 13): a list uses ↑↓ inside itself and
        # hands the key on past its first or last row; an input keeps ←→ for its text. The footer
        # names them all once (KioskFooter).
        Binding("down", "move(1)", N_("Move"), show=False),
        Binding("up", "move(-1)", N_("Move"), show=False),
        Binding("right", "move(1)", N_("Move"), show=False),
        Binding("left", "move(-1)", N_("Move"), show=False),
        # From a text field, ↑↓ are taken before the keys after them are routed (a priority
        # binding): in a burst ("Ann", ↓, "ann@example.com") the email then goes to the email
        # field, not after the name. Anywhere else they are passed on (a list moves inside).
        Binding("down", "leave_field(1)", show=False, priority=True),
        Binding("up", "leave_field(-1)", show=False, priority=True),
        # Enter in a text field moves on by a message (Input.Submitted) that reaches the screen
        # after the keys typed on were routed: in "Ann", Enter, "ann@example.com" read at once,
        # the email went after the name. The keys after Enter wait until the screen has handled
        # it (on_input_submitted below).
        Binding("enter", "submit_field", show=False, priority=True),
        Binding("f5", "retry", N_("Retry"), show=False),
        Binding("r", "retry", N_("Retry"), show=False),
    ]

    def __init__(self) -> None:
        super().__init__()
        self._retry: Callable[[], object] | None = None
        self.rate_wait = RateLimitWait(self)
        # The hold of an Enter in a field whose Submitted has not reached this screen yet.
        self._submitting: int | None = None

    @property
    def kiosk(self) -> Kiosk:
        return kiosk_of(self.app)

    # Frame ----------------------------------------------------------------------------------------
    def compose(self) -> ComposeResult:
        yield KioskHeader(self.header_title(), subtitle=self.header_subtitle())
        yield from self.compose_body()
        yield Banner(id="banner")
        yield KioskFooter()

    def compose_body(self) -> ComposeResult:
        yield from ()

    def header_title(self) -> str:
        location = self.kiosk.location
        return location.restaurant_display_name if location is not None else _("Welcome")

    def header_subtitle(self) -> str:
        return _(self.TITLE)

    def main_key(self) -> tuple[str, str] | None:
        """The screen's main action as the footer's first key: (key, words). A key the screen
        binds and shows moves to the front; another (a list's Enter) is named there. None: the
        footer's own ranking (F2, F4 first)."""
        return None

    @property
    def active_bindings(self) -> dict[str, ActiveBinding]:
        return translated_bindings(super().active_bindings)

    @property
    def banner(self) -> Banner:
        return self.query_one("#banner", Banner)

    # Density: bordered inputs and buttons (3 lines each) when there is room, one-line at 80x24.
    COMPACT_BELOW_HEIGHT: ClassVar[int] = 32

    @property
    def compact(self) -> bool:
        return self.app.size.height < self.COMPACT_BELOW_HEIGHT

    def on_mount(self) -> None:
        # Before the first frame (a resize comes after it): drawn at one density and redrawn at
        # the other, the rows below jumped, and a tap in between landed on the wrong row.
        self.apply_density()

    def on_compose(self) -> None:
        # The screen's density class before its children are mounted and styled (Textual calls
        # this before its own handler, which composes): added after (on_mount), it restyled
        # every node of the screen once more.
        self.set_class(self.compact, "-compact", update=False)

    @on(events.ScreenResume)
    def _status_lines_catch_up(self) -> None:
        for line in self.query(StatusLine):
            line.catch_up()

    def on_resize(self, event: events.Resize) -> None:
        self.apply_density(event.size.height < self.COMPACT_BELOW_HEIGHT)

    def apply_density(self, compact: bool | None = None) -> None:
        """Make every input, button and select compact (or not); call after mounting more."""
        if compact is None:
            compact = self.compact
        self.set_class(compact, "-compact")
        for widget in self.query("Input, Button, Select"):
            if isinstance(widget, Input | Button | Select):
                widget.compact = compact

    # Calls ----------------------------------------------------------------------------------------
    def call(
        self,
        work: Callable[[], Awaitable[T]],
        *,
        group: str,
        done: Callable[[T], object] | None = None,
        failed: Callable[[Failure], object] | None = None,
        busy: Widget | None = None,
        exclusive: bool = False,
        clear_banner: bool = True,
        read: bool = False,
        leads_on: bool = False,
    ) -> Worker[None]:
        """Run `work()` in a worker; `done(result)` on success. On failure the banner says what
        happened and how to go on; R runs the same call again when that may help.

        `read`: the call only reads (menus, a product, slots), so it may be sent again unasked.
        Refused by the rate limit, it waits out the server's retryAfter with a countdown in the
        banner and goes again at zero (see RateLimitWait); when `failed` handles the failure
        (returns True: an optional extra), the wait is silent.

        `leads_on`: `done` opens the next screen (returning the push's awaitable). The keys that
        come meanwhile (typed on with the one that started the call, in the same read) are held
        for the screen on top when it is over (KioskApp.hold_keys): the next one, else this."""

        def again() -> object:
            return self.call(
                work,
                group=group,
                done=done,
                failed=failed,
                busy=busy,
                exclusive=exclusive,
                clear_banner=clear_banner,
                read=read,
                leads_on=leads_on,
            )

        async def job() -> None:
            try:
                await run()
            finally:
                if leads_on:
                    # After the keys still queued on this screen's controls and the screen, on
                    # their way back to the app (which holds them): released before, they were
                    # lost or came after later keys. A key bubbles up: each control's queue is
                    # passed before its container's (reversed pre-order).
                    queues: list[Widget] = list(self.walk_children(Widget, with_self=True))
                    assert hold is not None
                    self._release_through(queues[::-1], hold)

        async def run() -> None:
            waiting = busy
            # The busy cover disables what it covers, and Textual then moves the focus away:
            # given back when the cover goes, so the customer's next key (an arrow right after
            # choosing a tip) acts where they left it. What `done` or `failed` do after may move
            # it on.
            had_focus = self.focused
            if had_focus is not None and not (
                waiting is not None and (had_focus is waiting or waiting in had_focus.ancestors)
            ):
                had_focus = None
            if waiting is not None:
                waiting.loading = True
            caught: Exception | None = None
            try:
                result = await work()
            except Exception as error:
                caught = error
            finally:
                if waiting is not None:
                    waiting.loading = False
                    if had_focus is not None and had_focus.is_attached:
                        self.set_focus(had_focus)
            if caught is not None:
                wait = rate_limit_wait(caught) if read else None
                failure = replace(describe(caught, retry_key=self.retry_key), again_in=wait)
                self._retry = again if failure.retryable and wait is None else None
                handled = failed(failure) if failed is not None else None
                if wait is not None:
                    self.rate_wait.add(wait, again, quiet=handled is True, busy=busy)
                elif handled is not True:
                    self.show_failure(failure)
                return
            self._retry = None
            banner = self._banner()
            if clear_banner and banner is not None:
                banner.clear()
            if done is not None:
                outcome = done(result)
                if inspect.isawaitable(outcome):
                    await outcome

        hold = self.kiosk.hold_keys() if leads_on else None
        return self.run_worker(job(), group=group, exclusive=exclusive, exit_on_error=False)

    def _release_through(self, queues: list[Widget], hold: int) -> None:
        """`hold` released once each of `queues` (in turn) has handled what it holds."""
        live = [q for q in queues if q.is_attached]
        if not live:
            self.kiosk.release_keys(hold)
            return
        live[0].call_later(self._release_through, live[1:], hold)

    def _banner(self) -> Banner | None:
        # None once the screen has gone (a worker may finish after its screen was popped).
        banners = self.query("#banner")
        return banners.first(Banner) if banners else None

    def show_failure(self, failure: Failure) -> None:
        banner = self._banner()
        if banner is not None:
            banner.show(failure.message, hint=failure.hint)

    def say(self, message: str, *, kind: str = "info", hint: str = "") -> None:
        banner = self._banner()
        if banner is not None:
            banner.show(message, hint=hint, kind=kind)

    def refocus(self, field: Input) -> None:
        """The cursor back at the end of `field` after a refusal, ready for typing on: focused
        now, and again after the next refresh (the loading indicator that covered the form
        while the call ran is removed then, and may take the focus with it)."""

        def focus() -> None:
            if field.is_attached and not field.disabled:
                field.focus()
                field.cursor_position = len(field.value)

        focus()
        self.call_after_refresh(focus)

    @property
    def retry_key(self) -> str:
        """The key to name in "Press … to try again": R, unless typing would swallow it (a screen
        with inputs, or the menu's type-ahead search); F5 always works."""
        return "F5" if self.TYPE_AHEAD or self.query(Input) else "R"

    TYPE_AHEAD: ClassVar[bool] = False

    # Actions --------------------------------------------------------------------------------------
    def action_retry(self) -> None:
        retry, self._retry = self._retry, None
        if retry is not None:
            self.banner.clear()
            retry()

    def action_back(self) -> None:
        self.dismiss(None)

    # Arrow navigation -----------------------------------------------------------------------------
    def controls(self) -> list[Widget]:
        """The focusable controls in focus order. A scrolling container that holds controls of
        its own is left out: focused, it would keep the arrows to scroll itself (it scrolls to
        whichever of its controls has focus anyway)."""
        chain = self.focus_chain
        inside: set[Widget] = set()
        for widget in chain:
            inside.update(a for a in widget.ancestors_with_self[1:] if isinstance(a, Widget))
        return [w for w in chain if not (isinstance(w, ScrollableContainer) and w in inside)]

    async def on_event(self, event: events.Event) -> None:
        # A key that reaches this screen after another came on top of it was queued here before
        # the step away was taken (a burst read at once: 1, then "cookie" on the welcome while
        # it starts the order): it was meant for the screen on top, and goes there (held with
        # the others while keys are held), not to a handler of this screen.
        stack = self.app.screen_stack if self.is_attached else []
        if isinstance(event, events.Key) and stack and stack[-1] is not self:
            self.kiosk.pass_key_on(event)
            return
        await super().on_event(event)

    def action_submit_field(self) -> None:
        field = self.focused
        waiting = self._submitting
        if not isinstance(field, Input) or (waiting is not None and self.kiosk.holds(waiting)):
            raise SkipAction()
        # An earlier Enter's Submitted that never came (its hold ended at HOLD_LIMIT) is
        # forgotten: this Enter holds the keys after it again.
        self._submitting = self.kiosk.hold_keys()
        # In the field's own queue: after the keys typed before the Enter, so the value is whole.
        field.call_later(field.action_submit)

    def on_input_submitted(self, event: Input.Submitted) -> None:
        # After the screen's own handler (Textual calls each class's handler, the subclass's
        # first): the field the keys go to is chosen, so the held keys go on to it.
        hold, self._submitting = self._submitting, None
        if hold is not None:
            self.kiosk.release_keys(hold)

    def action_leave_field(self, step: int) -> None:
        if not isinstance(self.focused, Input):
            raise SkipAction()
        self.action_move(step)

    def action_move(self, step: int) -> None:
        """Focus the control after (step 1) or before (-1) the focused one; none past the ends."""
        controls = self.controls()
        if not controls:
            return
        focused = self.focused
        if focused in controls:
            index = controls.index(focused) + step
        else:
            # Focus on something left out (a scrolling container): from its place in the chain.
            chain = self.focus_chain
            position = chain.index(focused) if focused in chain else -1
            after = [i for i, w in enumerate(controls) if chain.index(w) > position]
            index = (
                (after[0] if after else len(controls))
                if step > 0
                else ((after[0] if after else len(controls)) - 1)
            )
        if 0 <= index < len(controls):
            # Now, not after this frame (Widget.focus defers it): the next key of a burst (two ↓
            # in one read, a code typed right after) is routed from the new focus (issue 20).
            self.set_focus(controls[index])

    # Long names ----------------------------------------------------------------------------------
    def show_whole_name(
        self, line_id: str, rowlist: RowList[Any], name: str, *, again: bool = True
    ) -> None:
        """Show `name` (the cursor row's, cleaned) in full on the FullName line `line_id` when
        the list draws it cut short; clear the line when it fits."""
        lines = self.query(f"#{line_id}")
        if not lines:
            return
        line = lines.first(FullName)
        row = rowlist.cursor_row
        width = rowlist.scrollable_content_region.width
        if width <= 0 and again:
            # Filled before its first layout (the cart's lines on mount): once it has a width.
            self.call_after_refresh(self.show_whole_name, line_id, rowlist, name, again=False)
            return
        if row is None or not name or width <= 0:
            line.show("")
            return
        drawn = rowlist.text_at(rowlist.cursor or 0, width, True)
        drawn.truncate(width, overflow="ellipsis")
        line.show("" if name in drawn.plain else name)

    # One rule for the ways to order, shared by the location list and the welcome screen --------
    def orderable_methods(
        self,
        location: Location,
        listed: Any = None,
        *,
        location_id: str | None = None,
        ways: MethodsStatus | None = None,
    ) -> list[str]:
        """What the location offers that this kiosk can take: delivery only where the kiosk can
        place an address (2.0 needs the merchant's delivery zones; the staff screen says why).
        `location_id`: the kiosk's name for it (default: the chosen location's). `ways`: what the
        server says the location offers now (VisitState.ways), before the record's own."""
        key = location_id or self.kiosk.location_id or location.id
        offer = self.kiosk.visit.state.abilities_at(key).delivery
        methods = offered_by(ways) if ways is not None else offered_methods(location, listed)
        return [m for m in methods if m != "delivery" or offer.offered]

    def closed_for_orders(self, location: Location) -> str | None:
        """Why no order can start now, or None: closed, and the location takes no orders for
        later (an order would be refused, or worse, taken for a time nobody will cook it)."""
        if location.is_ordering_allowed is False:
            return _("Sorry, this restaurant is not taking orders right now.")
        if location.is_scheduled_order_allowed is False:
            status = self.kiosk.visit.opening(location)
            if status.known and status.is_open is False:
                when = status.opens_when
                said = _("Sorry, we're closed now and take no orders for later.")
                # "We open tomorrow at 11:00."
                return said + (" " + _("We open {when}.").format(when=when) if when else "")
        return None


class RateLimitWait:
    """Reads refused by the rate limit (issue 6): a calm wait, not an error. "We're very busy
    right now. Trying again in N s…" counts down in the banner, and at zero every read that
    waited is sent again (each may wait again if the server still refuses). Esc goes back as
    usual: the timer belongs to the screen and stops with it, so nothing is sent after.

    Time is the app's injected clock (`KioskApp.clock`). A timer on the screen calls `check()`
    once a second; tests move their clock and call `check()` themselves."""

    TICK = 1.0
    # A timer tick a hair early still counts as the deadline (no extra second for a rounding).
    SLACK = 0.05

    def __init__(self, screen: KioskScreen) -> None:
        self.screen = screen
        self.deadline = 0.0
        self.pending: list[tuple[Callable[[], object], bool, Widget | None]] = []
        self.shown = ""  # the banner text this wait last wrote
        self._timer: Timer | None = None

    @property
    def active(self) -> bool:
        return bool(self.pending)

    @property
    def seconds_left(self) -> int:
        return max(0, math.ceil(self.deadline - self._now() - self.SLACK))

    def _now(self) -> float:
        return float(self.screen.kiosk.clock())

    def add(
        self, seconds: float, retry: Callable[[], object], *, quiet: bool, busy: Widget | None
    ) -> None:
        """Send `retry()` again once `seconds` have passed (with the others that wait)."""
        self.deadline = max(self.deadline, self._now() + seconds)
        self.pending.append((retry, quiet, busy))
        if busy is not None and not quiet:
            busy.loading = True
        if self._timer is None:
            self._timer = self.screen.set_interval(self.TICK, self.check, name="rate-limit-wait")
        self.check()

    def check(self) -> None:
        if not self.pending:
            return
        left = self.seconds_left
        if left > 0:
            if not all(quiet for _, quiet, _ in self.pending):
                self._show(left)
            return
        pending, self.pending = self.pending, []
        self._stop_timer()
        banner = self.screen._banner()
        if banner is not None and self.shown and banner.message.startswith(self.shown):
            banner.clear()
        self.shown = ""
        for retry, _quiet, busy in pending:
            if busy is not None:
                busy.loading = False
            retry()

    def _show(self, seconds: int) -> None:
        banner = self.screen._banner()
        if banner is None:
            return
        self.shown = _("We're very busy right now. Trying again in {seconds} s…").format(
            seconds=seconds
        )
        may_go_back = self.screen.check_action("back", ()) is not False
        banner.show(self.shown, hint=_("Esc to go back.") if may_go_back else "", kind="wait")

    def _stop_timer(self) -> None:
        if self._timer is not None:
            self._timer.stop()
            self._timer = None
