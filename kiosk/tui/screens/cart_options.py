"""The order screen's options, apart from its lines: the tip (presets, custom, an equally prominent
"No tip"), the time (as soon as possible or a later slot), and the one way every part of the order
screen changes the cart (`_store_call`, always through the CartStore). CartScreen builds on it."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from rich.text import Text
from textual import events
from textual.binding import Binding
from textual.containers import Horizontal
from textual.widgets import Button, Input, Select

from kiosk.i18n import N_, _, money_locale
from kiosk.ordering.lifecycle import Phase
from kiosk.ordering.tips import TipRefused, chosen_tip, parse_custom_tip, tip_choices
from kiosk.tui.cartview import slot_words
from kiosk.tui.contract import shop_currency
from kiosk.tui.errors import Failure
from kiosk.tui.screens.base import KioskScreen
from kiosk.tui.widgets.chrome import FieldError

if TYPE_CHECKING:
    from kiosk.api import Cart, TimeIntervals, TipSettings


class TipButton(Button):
    """One tip choice; the arrows move along the row (up/down leave it at its ends)."""

    BINDINGS = [
        Binding("left", "step(-1)", N_("Previous tip"), key_display="←"),
        Binding("right", "step(1)", N_("Next tip"), key_display="→"),
        Binding("up", "step(-1, True)", N_("Previous"), show=False),
        Binding("down", "step(1, True)", N_("Next"), show=False),
    ]

    def __init__(self, key: str, *, compact: bool = False) -> None:
        super().__init__(
            _("No tip") if key == "none" else key,
            id=f"tip-{key.replace('.', '_')}",
            classes="tip",
            compact=compact,
        )
        self.key = key

    def action_step(self, step: int, leave: bool = False) -> None:
        row = [b for b in self.screen.query(TipButton) if b.display]
        at = row.index(self) + step if self in row else -1
        if 0 <= at < len(row):
            self.screen.set_focus(row[at])  # now: the next key of a burst starts from it
        elif leave:
            # Past either end, up/down go on to the control before or after the tips.
            if step < 0:
                self.screen.focus_previous()
            else:
                self.screen.focus_next()


class TipRow(Horizontal):
    """The tip choices. Whether their amounts fit on one line depends on this row's width, known
    once it is laid out (the section appears when the tips load): chosen again at each size."""

    def on_resize(self, _event: events.Resize) -> None:
        screen = self.screen
        if isinstance(screen, CartOptions):
            screen._mark_tip(screen.kiosk.cart)


class CartOptions(KioskScreen):
    """The tip and time sections of the order screen, and how its writes go."""

    tips: TipSettings | None = None
    slots: TimeIntervals | None = None
    slot_values: set[str]

    def _follow_slots(self, state: Any) -> None:
        # The Visit read the slots again (the server refused a time): the list offered is the
        # server's current one.
        slots = getattr(state, "slots", None)
        if slots is not None and self.slots is not None and slots != self.slots:
            self._slots_loaded(slots)

    @property
    def expired(self) -> bool:
        """The server says this order's cart has expired: nothing of it can be checked out."""
        return self.kiosk.visit.state.order.phase is Phase.EXPIRED

    async def _tips_loaded(self, tips: TipSettings) -> None:
        self.tips = tips
        section = self.query_one("#tip-section")
        if not tips.enabled:
            section.display = False
            return
        row = self.query_one("#tip-row", Horizontal)
        await row.remove_children()
        # "No tip" first and styled exactly like the presets: an equal choice, not a hidden one.
        compact = self.compact
        choices = tip_choices(self.kiosk.cart, tips, money_locale() or self.kiosk.visit.locale)
        buttons = [TipButton(c.key, compact=compact) for c in choices]
        row.styles.grid_size_columns = len(buttons)
        await row.mount_all(buttons)
        section.display = True
        self._mark_tip(self.kiosk.cart)  # and again at the row's first size (TipRow)

    def _slots_loaded(self, slots: TimeIntervals) -> None:
        self.slots = slots
        # Prompts are Text: a str prompt would be parsed as markup, and labels come from the API.
        options: list[tuple[Text, str]] = []
        for day in slots.order_days:
            for at in day.intervals:
                label = slot_words(day.label or day.value, at)
                options.append((Text(label), f"{day.value} {at}"))
        # Later only: the location says so, or it takes no order for now (closed: readiness).
        later_only = slots.require_scheduled_orders or self.kiosk.visit.asap_refused is not None
        if not (slots.schedule_allowed or later_only) or not options:
            return
        # Orders for later only: "as soon as possible" is not offered, the first slot is set.
        self.query_one("#asap", Button).display = not later_only
        if later_only:
            self._schedule_first_slot()
        select = self.query_one("#later", Select)
        options = options[:500]
        self.slot_values = {value for _, value in options}
        select.set_options(options)
        self.query_one("#time-section").display = True
        self._mark_time(self.kiosk.cart)

    def _schedule_first_slot(self) -> None:
        visit = self.kiosk.visit

        async def schedule() -> tuple[str, str] | None:
            return await visit.schedule_if_required()

        def scheduled(slot: tuple[str, str] | None) -> None:
            if slot is None:
                return
            day, at = slot
            self.say(
                _("This restaurant takes orders for later only.")
                + " "
                + _("Your order is for {when}; you can choose another time below.").format(
                    when=slot_words(day, at)
                ),
                kind="info",
            )

        self.call(
            schedule, group="cart-schedule", done=scheduled, busy=self.query_one("#time-section")
        )

    def _mark_tip(self, cart: Cart | None) -> None:
        if self.tips is None or cart is None:
            return
        current = chosen_tip(cart)
        # Each choice with its amount for this cart, on one line when every one fits its button
        # (the grid gives all the same width), else the amount on a second line.
        choices = {
            c.key: c
            for c in tip_choices(cart, self.tips, money_locale() or self.kiosk.visit.locale)
        }
        buttons = list(self.query("#tip-row TipButton").results(TipButton))
        row = self.query_one("#tip-row", Horizontal)
        width = row.content_size.width

        # A button's edges: the space either side of its label, and the high-contrast theme's
        # side bars (from its styles, known before it is laid out).
        edges = 2 + max((b.styles.gutter.width for b in buttons), default=0)

        def room(columns: int) -> int:
            # A button's text width with `columns` buttons a row (gutter 1).
            return (width - columns + 1) // max(columns, 1) - edges

        # On one line "No tip" needs no "· $0.00"; on two, its zero keeps the row's height even.
        one = {k: c.label if k == "none" else c.text for k, c in choices.items()}
        wide = room(len(buttons)) > 0 and all(len(t) <= room(len(buttons)) for t in one.values())
        # On two lines no word may be broken and an amount is one word ("A$10.94", "4,70 US$"):
        # fewer buttons a row when the longest does not fit (issue 20: "A$10.9" / "4").
        units = [w for c in choices.values() for w in (*c.label.split(), c.amount or "")]
        longest = max((len(u) for u in units), default=0)
        columns = len(buttons)
        while not wide and columns > 1 and room(columns) < longest:
            columns -= 1
        if width > 0:
            # As many rows as that takes (the stylesheet's grid is 5 x 1).
            row.styles.grid_size_columns = max(columns, 1)
            row.styles.grid_size_rows = -(-len(buttons) // max(columns, 1))
        for button in buttons:
            choice = choices.get(button.key)
            if choice is not None:
                two = f"{choice.label}\n{choice.amount}" if choice.amount else choice.label
                button.label = Text(one[button.key] if wide else two)
            chosen = button.key == current
            button.variant = "primary" if chosen else "default"
            button.set_class(chosen, "-chosen")

    def _mark_time(self, cart: Cart | None) -> None:
        if cart is None or not self.query_one("#time-section").display:
            return
        later = (cart.pickup_type or "").upper() == "LATER"
        self.query_one("#asap", Button).variant = "default" if later else "primary"
        select = self.query_one("#later", Select)
        value = f"{cart.order_date} {cart.order_time}"
        with select.prevent(Select.Changed):
            if later and value in self.slot_values:
                select.value = value
            else:  # as soon as possible, or a time no longer listed: never a choice refused
                select.clear()

    def _store_call(
        self,
        work: Any,
        *,
        busy: Any = None,
        failed: Any = None,
        done: Any = None,
    ) -> None:
        visit = self.kiosk.visit
        if not visit.state.has_order:
            self.say(_("Your order has not started."), hint=_("Press F9 to start over."))
            return
        if self.expired:
            self.query_one("#start-again", Button).focus()  # the one way on
            return

        async def run() -> Any:
            return await work(visit)

        def refused(failure: Failure) -> bool | None:
            handled = failed(failure) if failed is not None else None
            # The order expired: the screen says so itself, once (_follow_order).
            return True if self.expired else handled

        self.call(run, group="cart", busy=busy, failed=refused, done=done)

    def set_tip(self, button_id: str) -> None:
        error = self.query_one("#tip-error", FieldError)
        error.show(None)
        busy = self.query_one("#tip-section")

        def refused(failure: Failure) -> bool:
            error.show(_("Tip not set: {reason}").format(reason=failure.message))
            return not failure.retryable

        if button_id == "tip-none":
            self.query_one("#custom-tip-row").display = False
            self._store_call(lambda s: s.set_no_tip(), busy=busy, failed=refused)
        elif button_id == "tip-custom":
            self.query_one("#custom-tip-row").display = True
            self.query_one("#custom-tip", Input).focus()
        else:
            self.query_one("#custom-tip-row").display = False
            pct = button_id.removeprefix("tip-").replace("_", ".")
            self._store_call(lambda s: s.set_tip(percentage=pct), busy=busy, failed=refused)

    def set_custom_tip(self) -> None:
        error = self.query_one("#tip-error", FieldError)
        currency = shop_currency(self.app)
        try:
            minor = parse_custom_tip(
                self.query_one("#custom-tip", Input).value, currency, self.kiosk.visit.locale
            )
        except TipRefused as refusal:
            error.show(str(refusal))
            return
        error.show(None)

        field = self.query_one("#custom-tip", Input)

        def refused(failure: Failure) -> bool:
            # The server's reason, at the field, and the cursor back in it (once the busy cover
            # is gone); the tip the cart had stays (and stays marked).
            error.show(_("Tip not set: {reason}").format(reason=failure.message))
            field.focus()
            self.call_after_refresh(field.focus)
            return not failure.retryable

        self._store_call(
            lambda s: s.set_tip(amount_minor=minor),
            busy=self.query_one("#tip-section"),
            failed=refused,
        )

    def set_asap(self) -> None:
        self._store_call(lambda s: s.set_order_time_asap(), busy=self.query_one("#time-section"))

    def set_later(self, value: str) -> None:
        day, _, at = value.partition(" ")

        def refused(failure: Failure) -> bool:
            # The select shows the server's time again, not the one it refused (the slots and
            # the cart were read again: _follow_slots); the banner says why.
            self._mark_time(self.kiosk.cart)
            return False

        self._store_call(
            lambda s: s.set_order_time_later(day, at),
            busy=self.query_one("#time-section"),
            failed=refused,
        )
