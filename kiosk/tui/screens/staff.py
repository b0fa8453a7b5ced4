"""Staff: the PIN prompt and the staff screen (health, reset, switch location, demo faults, exit).

Reached with the staff key (F12 or Ctrl+S, kiosk.tui.kiosk_mode.STAFF_KEYS). In kiosk mode the PIN
is always asked; with no PIN configured the kiosk cannot be left from the keyboard (`kiosk set-pin`
sets one). Wrong PINs are throttled by the app's PinThrottle, which outlives this dialog.
"""

from __future__ import annotations

import asyncio
import io
from typing import TYPE_CHECKING, Any, ClassVar

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical, VerticalScroll
from textual.screen import ModalScreen, Screen
from textual.widgets import Footer, Input, OptionList, Static
from textual.widgets.option_list import Option

from kiosk.clocktime import clock_time
from kiosk.tui.a11y import Accessibility
from kiosk.tui.contract import Kiosk, kiosk_of
from kiosk.tui.health import client_health
from kiosk.tui.text import clean
from kiosk.tui.widgets.chrome import DemoMark
from kiosk.tui.widgets.fields import TextField

if TYPE_CHECKING:
    from collections.abc import Awaitable, Callable

    from kiosk.ordering.services import DemoControls
    from kiosk.tui.pin import PinThrottle


def _kiosk(screen: Screen[Any]) -> Kiosk:
    return kiosk_of(screen.app)


# The PIN ------------------------------------------------------------------------------------------
class PinDialog(ModalScreen[bool]):
    """Asks for the staff PIN; dismissed with True when it is right. Escape cancels."""

    BINDINGS = [Binding("escape", "cancel", "Cancel")]
    # Staff's, not a customer's: no Help key here (kiosk_mode.check_action).
    OFFERS_HELP: ClassVar[bool] = False

    def __init__(self, pin_hash: str | None, throttle: PinThrottle) -> None:
        super().__init__()
        self.pin_hash = pin_hash
        self.throttle = throttle
        self.checking = False
        self.message = ""

    def compose(self) -> ComposeResult:
        with Vertical(id="pin-dialog"):
            yield Static(Text("Staff: enter the PIN", style="bold"), id="pin-title")
            yield TextField(
                password=True,
                restrict=r"[0-9]*",
                max_length=12,
                placeholder="PIN",
                id="pin",
                compact=True,
            )
            yield Static("", id="pin-message")
            yield Static(Text("Enter to confirm · Esc to go back", style="dim"), id="pin-help")

    def on_mount(self) -> None:
        self.query_one("#pin", Input).focus()
        self.refresh_state()
        self.set_interval(1.0, self.refresh_state)

    def _say(self, message: str, *, error: bool = True) -> None:
        self.message = message
        self.query_one("#pin-message", Static).update(
            Text(message, style="bold red" if error else "")
        )

    def refresh_state(self) -> None:
        pin = self.query_one("#pin", Input)
        if not self.pin_hash:
            pin.disabled = True
            self._say("No staff PIN is set on this kiosk. Set one with: kiosk set-pin")
            return
        left = self.throttle.seconds_left()
        if left > 0:
            pin.disabled = True
            self._say(f"Too many wrong PINs. Try again in {left:.0f} s.")
            return
        if pin.disabled:
            pin.disabled = False
            pin.focus()
            self._say("")

    async def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        pin = event.value
        event.input.value = ""
        # One attempt at a time: a second Enter must not skip the count of the first.
        if self.checking or not self.pin_hash or not pin:
            return
        if self.throttle.locked:
            self.refresh_state()
            return
        self.checking = True
        self.run_worker(self._verify(pin), group="pin", exit_on_error=False)

    async def _verify(self, pin: str) -> None:
        from kiosk.config import verify_pin

        try:
            # scrypt takes tens of milliseconds: off the event loop.
            ok = await asyncio.to_thread(verify_pin, pin, self.pin_hash)
        finally:
            self.checking = False
        if ok:
            self.throttle.succeeded()
            self.dismiss(True)
            return
        lockout = self.throttle.failed()
        if lockout:
            self.refresh_state()
        else:
            left = self.throttle.attempts_before_lockout
            self._say(f"Wrong PIN. {left} more {'try' if left == 1 else 'tries'} before a wait.")

    def action_cancel(self) -> None:
        self.dismiss(False)


# Choosing a location ------------------------------------------------------------------------------
ALL_LOCATIONS = "*"


class LocationChoice(ModalScreen[str | None]):
    """Which location this kiosk serves: one of its keys' locations, or all (customers choose)."""

    BINDINGS = [Binding("escape", "cancel", "Cancel")]
    OFFERS_HELP: ClassVar[bool] = False

    def __init__(self, choices: list[tuple[str, str]]) -> None:
        super().__init__()
        self.choices = choices

    def compose(self) -> ComposeResult:
        with Vertical(id="location-choice"):
            yield Static(Text("Serve which location?", style="bold"), id="choice-title")
            options = [Option(Text(label), id=key) for key, label in self.choices]
            yield OptionList(*options, id="choice-list")

    def on_mount(self) -> None:
        self.query_one(OptionList).focus()

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        self.dismiss(event.option.id)

    def action_cancel(self) -> None:
        self.dismiss(None)


# The staff screen ---------------------------------------------------------------------------------
DEMO_HINTS = (
    "Demo payment: A on the payment screen pays with the test card 4242 4242 4242 4242, D"
    " declines with 4000 0000 0000 0002; for a phone on this network, start the demo with"
    " `kiosk demo --lan`."
)


class StaffScreen(Screen[None]):
    """Health, and what staff may do: reset, switch location, demo faults, exit."""

    BINDINGS = [Binding("escape", "close", "Back to the kiosk")]
    # F9 (the customer's "Start over") is not offered here: "Reset the customer session" is.
    OFFERS_START_OVER: ClassVar[bool] = False
    OFFERS_HELP: ClassVar[bool] = False

    def __init__(self) -> None:
        super().__init__()
        self.faults: dict[str, Any] = {}
        self.fault_control: DemoControls | None = None
        self._health_shown: Text | None = None
        # Each served location's name, by id, once read (the client's cache usually has them).
        self.names: dict[str, str] = {}

    def compose(self) -> ComposeResult:
        kiosk = _kiosk(self)
        services = kiosk.services_or_none
        with Vertical(id="staff-header"):
            yield Static(Text("Staff", style="bold"), id="staff-title")
            if services is not None and services.demo:
                yield DemoMark()
        yield Static("", id="staff-health")
        yield OptionList(id="staff-actions")
        with VerticalScroll(id="staff-output"):
            # In a demo, until an action says something: the developer's hints, kept off the
            # customer's payment screen (issue 33).
            demo = services is not None and services.demo
            yield Static(Text(DEMO_HINTS if demo else ""), id="staff-message")
        yield Footer()

    def on_mount(self) -> None:
        services = _kiosk(self).services_or_none
        control = services.demo_controls if services is not None else None
        if control is not None and control.available:
            self.fault_control = control
        self.build_actions()
        self.show_health()
        self.set_interval(1.0, self.show_health)
        self.query_one(OptionList).focus()
        if self.fault_control is not None:
            self.run_worker(self._load_faults(), group="staff-faults", exit_on_error=False)
        self.run_worker(self._load_names(), group="staff-names", exit_on_error=False)

    async def _load_names(self) -> None:
        """Staff read locations by name (issue 20); an id stays where a name cannot be read."""
        kiosk = _kiosk(self)
        services = kiosk.services_or_none
        if services is None:
            return
        ids = list(services.clients)
        found = await asyncio.gather(
            *(kiosk.visit.load_location(i) for i in ids), return_exceptions=True
        )
        for location_id, location in zip(ids, found, strict=True):
            name = getattr(location, "restaurant_display_name", None)
            if isinstance(name, str) and name.strip():
                self.names[location_id] = clean(name, 40)
        self.show_health()
        self.build_actions()

    def name_of(self, location_id: str) -> str:
        return self.names.get(location_id, location_id)

    # Health ---------------------------------------------------------------------------------------
    def show_health(self) -> None:
        kiosk = _kiosk(self)
        services = kiosk.services_or_none
        text = self.attention_lines()
        settings = kiosk.kiosk_settings
        mode = "on" if kiosk.kiosk_mode else "off"
        pin = "set" if settings is not None and settings.staff_pin_hash else "NOT SET"
        text.append(f"Kiosk mode {mode} · staff PIN {pin}", style="bold")
        if settings is not None:
            text.append(
                f" · idle {settings.idle_timeout:g} s + {settings.idle_countdown:g} s"
                f" · payment {settings.payment_timeout:g} s"
            )
        if services is None:
            text.append("\nThe kiosk has not started: its services are not ready.")
        else:
            now = kiosk.wall_clock()
            for location_id, client in services.clients.items():
                text.append("\n")
                name = self.name_of(location_id)
                text.append_text(
                    client_health(client, now=now, name=name, staff=True, app=self.app)
                )
            if kiosk.location_id is not None:
                text.append("\nDelivery: " + kiosk.visit.delivery_offer().why)
            if settings is not None and settings.printer:
                problem = getattr(services, "printer_problem", None)
                text.append(f"\nReceipt printer {clean(settings.printer, 60)}: ")
                if problem:
                    text.append(clean(problem, 160), style="bold")
                else:
                    text.append("no failure seen")
            if services.metrics is not None:  # kiosk.metrics: what Prometheus scrapes too
                text.append("\n" + services.metrics.summary())
            text.append("\nOrder in progress: " + self.order_words())
        if text != self._health_shown:
            # Only a change is drawn: at rest the counter's terminal gets nothing (issue 23).
            self._health_shown = text
            self.query_one("#staff-health", Static).update(text)

    def attention_lines(self) -> Text:
        """What needs staff first (issue 34): a customer waiting for help (which terminal, since
        when, the order in progress) and whether this terminal is closed. Minutes, not seconds:
        the screen is drawn again only when a line changes (issue 23)."""
        kiosk = _kiosk(self)
        text = Text()
        desk = kiosk.help_desk
        request = desk.waiting if desk is not None else None
        if desk is not None and request is not None:
            minutes = int(max(0.0, kiosk.wall_clock() - request.at) // 60)
            ago = "just now" if minutes < 1 else f"{minutes} min ago"
            text.append(
                f"HELP REQUESTED on terminal {clean(desk.terminal_id, 64)} at "
                f"{clock_time(request.at)} ({ago})",
                style="bold reverse",
            )
            text.append("\nOrder in progress: " + self.order_words() + "\n")
        if kiosk.out_of_order:
            text.append(
                'OUT OF ORDER: customers see "This kiosk is closed" (open orders are kept)\n',
                style="bold",
            )
        return text

    def order_words(self) -> str:
        kiosk = _kiosk(self)
        services = kiosk.services_or_none
        cart_id = kiosk.visit.state.cart_id if services is not None else None
        if not cart_id:
            return "none"
        cart = kiosk.cart
        if cart is None or cart.id != cart_id:
            return clean(cart_id, 40)
        from kiosk.api.money import format_money

        total = cart.order_total_formatted or format_money(cart.order_total, cart.currency)
        # What staff can tell the customer about: the items and the total, not the order's id.
        lines = ", ".join(f"{item.quantity} × {clean(item.name, 40)}" for item in cart.items)
        return f"{lines or 'no items'} · total {clean(total, 20)}"

    def confirm_drop(self, question: str, yes: str, then: Callable[[], object]) -> None:
        """Ask before an open order is dropped (a reset, a switch of location), saying what it
        holds; with no order there is nothing to lose, and `then` runs at once."""
        if not _kiosk(self).visit.state.cart_id:
            then()
            return
        from kiosk.tui.widgets.dialogs import ConfirmDialog

        def answered(yes: bool | None) -> None:
            if yes:
                then()

        self.app.push_screen(
            ConfirmDialog(
                question,
                detail="The order in progress is dropped: " + self.order_words(),
                yes=yes,
                no="Keep the order",
            ),
            answered,
        )

    # Actions --------------------------------------------------------------------------------------
    def build_actions(self) -> None:
        """The actions in groups, a rule between them (issue 20): the way back; the customer's
        order; this terminal; the demo's faults; exit."""
        kiosk = _kiosk(self)
        services = kiosk.services_or_none
        groups: list[list[Option]] = [[Option(Text("Back to the kiosk (Esc)"), id="back")]]
        desk = kiosk.help_desk
        if desk is not None and desk.waiting is not None:
            # First after the way back: the customer is waiting for it.
            groups[0].append(Option(Text("Help given: clear the help request"), id="help-clear"))
        if services is not None:
            groups.append(
                [Option(Text("Reset the customer session (clears the order)"), id="reset")]
            )
            terminal: list[Option] = []
            closed = "on" if kiosk.out_of_order else "off"
            terminal.append(
                Option(Text(f"Out of order (customers see a closed screen): {closed}"), id="closed")
            )
            if len(services.clients) > 1:
                served = ", ".join(self.name_of(i) for i in services.location_ids)
                terminal.append(
                    Option(Text(f"Switch location… (now: {clean(served, 60)})"), id="location")
                )
            # Customers in kiosk mode see a status mark; the words are staff's to switch on.
            shown = "on" if kiosk.health_line_words else "off"
            terminal.append(
                Option(Text(f"Health line in words on every screen: {shown}"), id="health")
            )
            # The theme (issue 13 F), until the kiosk restarts (the setting `theme` is its start).
            contrast = "on" if getattr(self.app, "high_contrast", False) else "off"
            terminal.append(Option(Text(f"High-contrast theme: {contrast}"), id="contrast"))
            if services.checks is not None:
                terminal.append(Option(Text("Run the checks (kiosk doctor)"), id="doctor"))
            groups.append(terminal)
        if self.fault_control is not None:
            faults = []
            for switch in self.fault_control.switches:
                mark = "[x]" if switch.is_on(self.faults) else "[ ]"
                faults.append(Option(Text(f"{mark} Demo fault: {switch.label}"), id=switch.key))
            faults.append(Option(Text("Demo faults: all off"), id="faults-off"))
            groups.append(faults)
        # An exit keeps an open order for the next start; the reset above deletes it.
        groups.append([Option(Text("Exit the kiosk app (an open order is kept)"), id="exit")])
        actions = self.query_one("#staff-actions", OptionList)
        was = actions.highlighted_option.id if actions.highlighted_option is not None else None
        lines: list[Option | None] = []
        for group in groups:
            lines.extend([None, *group] if lines else group)
        actions.set_options(lines)
        ids = [option.id for group in groups for option in group]
        # The cursor stays on the action it was on (a switch flipped is drawn again).
        actions.highlighted = ids.index(was) if was in ids else 0

    def say(self, message: str | Text) -> None:
        text = message if isinstance(message, Text) else Text(message)
        self.query_one("#staff-message", Static).update(text)

    async def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        await self.run_action_id(event.option.id or "")

    async def run_action_id(self, action: str) -> None:
        kiosk = _kiosk(self)
        if action == "back":
            self.action_close()
        elif action == "reset":
            self.confirm_drop("Reset the customer session?", "Reset", kiosk.reset_now)
        elif action == "help-clear":
            if kiosk.clear_help():
                self.say("Help request cleared.")
            self.show_health()
            self.build_actions()
        elif action == "closed":
            kiosk.set_out_of_order(not kiosk.out_of_order)
            self.say(
                "Out of order: customers see the closed screen."
                if kiosk.out_of_order
                else "Open again: customers can order."
            )
            self.show_health()
            self.build_actions()
        elif action == "location":
            self.choose_location()
        elif action == "health":
            kiosk.show_health_line(None if kiosk.health_line_words else True)
            self.build_actions()
        elif action == "contrast":
            if isinstance(self.app, Accessibility):
                self.app.action_toggle_contrast()
            self.build_actions()
        elif action == "doctor":
            self.say("Running the checks…")
            self.run_worker(self._doctor(), group="staff-doctor", exclusive=True)
        elif action == "faults-off":
            self.run_worker(self._reset_faults(), group="staff-faults", exit_on_error=False)
        elif action == "exit":
            self.confirm_exit()
        else:
            switches = self.fault_control.switches if self.fault_control is not None else ()
            switch = next((s for s in switches if s.key == action), None)
            if switch is not None:
                self.run_worker(self._toggle(switch), group="staff-faults", exit_on_error=False)

    def confirm_exit(self) -> None:
        """Exit the app. An open order is kept: the next start resumes it, as after a crash."""
        from kiosk.tui.widgets.dialogs import ConfirmDialog

        def answered(yes: bool | None) -> None:
            if yes:
                self.app.exit()

        self.app.push_screen(
            ConfirmDialog(
                "Exit the kiosk app?",
                detail="The kiosk stops taking orders until it is started again.",
                yes="Exit",
                no="Stay",
            ),
            answered,
        )

    def choose_location(self) -> None:
        kiosk = _kiosk(self)
        services = kiosk.services
        choices = [(ALL_LOCATIONS, "All locations (customers choose)")]
        for location_id in services.clients:
            name = self.name_of(location_id)
            choices.append(
                (location_id, f"{name} ({location_id})" if name != location_id else name)
            )

        def chosen(choice: str | None) -> None:
            if choice is None:
                return
            ids = list(services.clients) if choice == ALL_LOCATIONS else [choice]

            def switch() -> None:
                # An app worker: this screen's own would die with the screens the switch pops.
                self.app.run_worker(kiosk.serve_locations(ids), group="reset", exit_on_error=False)

            self.confirm_drop("Switch location?", "Switch", switch)

        self.app.push_screen(LocationChoice(choices), chosen)

    # Demo faults ----------------------------------------------------------------------------------
    async def _fault_call(self, send: Callable[[DemoControls], Awaitable[Any]], what: str) -> bool:
        """Send one demo-fault request and keep its answer; False (and said so) if it failed."""
        control = self.fault_control
        if control is None:
            return False
        try:
            self.faults = await send(control)
        except Exception as error:  # the demo server may be gone: say so, keep the screen
            self.say(f"Could not {what}: {type(error).__name__}")
            return False
        return True

    async def _load_faults(self) -> None:
        if await self._fault_call(lambda c: c.get(), "read the demo faults"):
            self.build_actions()

    async def _toggle(self, switch: Any) -> None:
        if await self._fault_call(lambda c: c.toggle(switch), "switch the demo fault"):
            state = "on" if switch.is_on(self.faults) else "off"
            self.say(f"Demo fault {state}: {switch.label}")
            self.build_actions()

    async def _reset_faults(self) -> None:
        if await self._fault_call(lambda c: c.reset(), "reset the demo faults"):
            self.say("Demo faults: all off")
            self.build_actions()

    # The doctor -----------------------------------------------------------------------------------
    async def _doctor(self) -> None:
        checks = _kiosk(self).services.checks
        if checks is None:
            return
        out = io.StringIO()
        try:
            ok = await checks(out)
        except Exception as error:
            self.say(f"The checks could not run: {type(error).__name__}")
            return
        text = Text("All checks passed\n" if ok else "Some checks FAILED\n", style="bold")
        text.append(clean(out.getvalue(), 4000, one_line=False))
        self.say(text)

    def action_close(self) -> None:
        self.dismiss(None)
