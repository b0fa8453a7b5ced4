"""5. Cart: lines with their choices, quantity and remove, discount apply/remove with the server's
reason,
tip presets plus custom and an equally prominent "No tip", ASAP or a later slot, cross-sell
suggestions,
and every total that applies from the server's formatted strings."""

from __future__ import annotations

from collections.abc import Hashable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from rich.text import Text
from textual import events
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.widgets import Button, Input, Select, Static

from kiosk.i18n import N_, _, language, money_locale
from kiosk.ordering.clock import human_moment
from kiosk.ordering.lifecycle import Phase
from kiosk.ordering.tips import TipRefused, chosen_tip, parse_custom_tip, tip_choices
from kiosk.tui.a11y import large_text
from kiosk.tui.contract import kiosk_of, shop_currency
from kiosk.tui.errors import Failure
from kiosk.tui.flow import Step, Wants
from kiosk.tui.labels import method_label
from kiosk.tui.palette import tone
from kiosk.tui.screens.base import KioskScreen
from kiosk.tui.text import clean
from kiosk.tui.widgets.cart_summary import TotalsPanel
from kiosk.tui.widgets.chrome import FieldError, FullName
from kiosk.tui.widgets.fields import TextField
from kiosk.tui.widgets.lists import TextRow, TextRowList, two_columns
from kiosk.tui.widgets.rowlist import RowList
from kiosk.tui.widgets.scroll import ControlsScroll

if TYPE_CHECKING:
    from kiosk.api import Cart, MenuProduct, TimeIntervals, TipSettings
    from kiosk.ordering.visit import ReopenResult


@dataclass(frozen=True)
class LineRow:
    item_id: str | None  # None: a detail line (a choice) under its item
    text: Text
    right: Text | None = None


class CartLines(RowList[LineRow]):
    """The cart's lines, drawn from `app.cart` (watched): no copy of the cart is kept here."""

    KEEP_PLACE = True  # after Del, the highlight stays on the neighbouring line

    BINDINGS = [
        Binding("plus,equals_sign,right", "change(1)", N_("More"), show=False),
        Binding("minus,left", "change(-1)", N_("Less"), show=False),
        Binding("delete,backspace,x", "remove", N_("Remove"), key_display="Del"),
        Binding("e", "edit", N_("Change choices")),
    ]

    def row_key(self, row: LineRow) -> Hashable | None:
        return row.item_id

    def row_text(self, row: LineRow, width: int, cursor: bool) -> Text:
        if row.right is not None:
            return two_columns(row.text, row.right, width)
        return row.text.copy()

    def on_mount(self) -> None:
        super().on_mount()
        self.watch(self.app, "cart", self.show_cart)

    def show_cart(self, cart: Cart | None) -> None:
        from kiosk.api.models import unavailable_lines
        from kiosk.tui.cartview import choice_lines, line_amount

        rows: list[LineRow] = []
        spaced = large_text(self.app)
        unavailable = set(unavailable_lines(cart))
        for item in cart.items if cart is not None else ():
            if spaced and rows:
                rows.append(LineRow(None, Text("")))  # large text: a blank row between items
            text = Text(f" {item.quantity} × ", style="bold")
            text.append(clean(item.name, 100))
            right = Text(line_amount(item, cart.currency if cart else None) + " ")
            if item.id in unavailable:
                # Marked on the line itself; Del removes it (the checkout says the same).
                right = Text(_("Sold out") + "  ", style=tone(self.app, "error")) + right
            rows.append(LineRow(item.id, text, right))
            choices = choice_lines(item, kiosk_of(self.app).visit.option_names)
            rows.extend(LineRow(None, Text("      " + c, style="dim")) for c in choices)
        self.set_rows(rows)
        self.styles.height = max(min(len(rows), 12), 1)

    def action_change(self, step: int) -> None:
        screen = self.screen
        if isinstance(screen, CartScreen) and self.cursor_key is not None:
            screen.change_line(str(self.cursor_key), step)

    def action_remove(self) -> None:
        screen = self.screen
        if isinstance(screen, CartScreen) and self.cursor_key is not None:
            screen.remove_line(str(self.cursor_key))

    def action_edit(self) -> None:
        screen = self.screen
        if isinstance(screen, CartScreen) and self.cursor_key is not None:
            screen.edit_line(str(self.cursor_key))


class CrossSell(TextRowList):
    pass


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
        if isinstance(screen, CartScreen):
            screen._mark_tip(screen.kiosk.cart)


class CartScreen(KioskScreen):
    TITLE = N_("Your order")
    BINDINGS = [
        Binding("f2", "checkout", N_("Checkout")),
        Binding("escape", "back", N_("Back to menu")),
    ]

    def __init__(self) -> None:
        super().__init__()
        self.tips: TipSettings | None = None
        self.slots: TimeIntervals | None = None
        self.suggestions: list[MenuProduct] = []
        self.slot_values: set[str] = set()
        # Per cart line, the quantity last asked for while writes are on their way.
        self._asked: dict[str, int] = {}
        # Whether the order was shown as expired (None: not shown yet).
        self._expired: bool | None = None

    def compose_body(self) -> ComposeResult:
        with Horizontal(id="cart-body"):
            with ControlsScroll(id="cart-left"):
                yield Static(id="cart-title")
                yield Static(id="expired-note")
                yield CartLines(id="lines")
                yield FullName(id="line-full-name")
                with Horizontal(id="lines-bar"):
                    yield Static(
                        Text(_("E edit · +/− amount · Del remove"), style="dim"),
                        id="lines-help",
                    )
                    yield Button(_("Edit"), id="edit-line", compact=True)
                # What can change in an open order; none of it for an expired one.
                with Vertical(id="cart-extras"):
                    yield Static(Text(_("Discount code"), style="bold"), classes="section")
                    with Horizontal(id="discount-row"):
                        yield TextField(
                            placeholder=_("Enter a code"),
                            id="discount",
                            max_length=40,
                            select_on_focus=False,
                        )
                        yield Button(_("Apply"), id="apply-discount")
                        yield Button(_("Remove code"), id="remove-discount")
                    yield FieldError(id="discount-error")
                    with Vertical(id="tip-section"):
                        yield Static(Text(_("Tip"), style="bold"), classes="section")
                        yield TipRow(id="tip-row")
                        with Horizontal(id="custom-tip-row"):
                            yield TextField(
                                placeholder=_("Amount, e.g. 2.50"), id="custom-tip", max_length=8
                            )
                            yield Button(_("Set tip"), id="set-custom-tip")
                        yield FieldError(id="tip-error")
                    with Vertical(id="time-section"):
                        yield Static(Text(_("When"), style="bold"), classes="section")
                        with Horizontal(id="time-row"):
                            yield Button(_("As soon as possible"), id="asap", classes="time")
                            yield Select[str]([], prompt=_("A later time"), id="later")
                    with Vertical(id="cross-sell-section"):
                        yield Static(
                            Text(_("You might also like"), style="bold"), classes="section"
                        )
                        yield CrossSell(id="cross-sell")
            with Vertical(id="cart-right"):
                yield TotalsPanel(id="totals")
                yield Button(
                    _("Checkout  (F2)"), id="checkout", variant="success", classes="main-action"
                )
                yield Button(
                    _("Start again with the same items"),
                    id="start-again",
                    variant="success",
                    classes="main-action",
                )

    def on_mount(self) -> None:
        self.query_one("#tip-section").display = False
        self.query_one("#custom-tip-row").display = False
        self.query_one("#time-section").display = False
        self.query_one("#cross-sell-section").display = False
        self.watch(self.app, "cart", self.show_cart)
        self.watch(self.app, "visit_state", self._follow_slots, init=False)
        self.query_one("#lines", CartLines).focus()
        self.watch(self.app, "visit_state", self._follow_order)
        self.load_settings()

    def _follow_slots(self, state: Any) -> None:
        # The Visit read the slots again (the server refused a time): the list offered is the
        # server's current one.
        slots = getattr(state, "slots", None)
        if slots is not None and self.slots is not None and slots != self.slots:
            self._slots_loaded(slots)

    # The order's phase ----------------------------------------------------------------------------
    @property
    def expired(self) -> bool:
        """The server says this order's cart has expired: nothing of it can be checked out."""
        return self.kiosk.visit.state.order.phase is Phase.EXPIRED

    def _follow_order(self, _state: object = None) -> None:
        """An expired order shows that, once, and one way on: the same items in a new order.
        Its lines stay in view (what the server holds, and what starting again carries); what
        only an open order offers (checkout, the code, the tip, the time) goes."""
        expired = self.expired
        if expired == self._expired:
            return
        self._expired = expired
        note = self.query_one("#expired-note", Static)
        note.update(
            Text(_("This order has expired."), style=tone(self.app, "error")) if expired else ""
        )
        note.display = expired
        for part in ("#cart-extras", "#lines-bar", "#checkout"):
            self.query_one(part).display = not expired
        again = self.query_one("#start-again", Button)
        again.display = expired
        if expired:
            # Said once, here: a refusal's own words on a banner (this screen's, or the menu's
            # below, where the write was refused) would say it twice.
            for screen in self.app.screen_stack:
                if isinstance(screen, KioskScreen) and (banner := screen._banner()) is not None:
                    banner.clear()
            again.focus()
        self.refresh_bindings()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        # An expired order's lines are not offered for checkout (F2 goes from the footer).
        return not (action == "checkout" and self.expired)

    def start_again(self) -> None:
        """The one action of an expired order: a new one, the same way, with the same items; the
        lines the server no longer sells are named."""
        visit = self.kiosk.visit

        async def again() -> ReopenResult:
            return await visit.start_again()

        def started(result: ReopenResult) -> None:
            self.query_one("#lines", CartLines).focus()
            if result.dropped_lines:
                names = ", ".join(clean(name, 60) for name in result.dropped_lines)
                self.say(_("{names} could not be added: no longer available.").format(names=names))
            else:
                self.say(_("Your new order has the same items."), kind="ok")

        self.call(again, group="cart", done=started, busy=self.query_one("#cart-body"))

    def on_row_list_highlighted(self, event: RowList.Highlighted) -> None:
        if isinstance(event.rowlist, CartLines):
            self._show_line_name()

    def _show_line_name(self) -> None:
        # A long item name cut at 80x24 is read in full under the lines. None once the screen
        # has gone (popped on the router's way past it, to the done screen).
        found = self.query("#lines")
        if not found:
            return
        lines = found.only_one(CartLines)
        cart = self.kiosk.cart
        key = lines.cursor_key
        item = next((i for i in cart.items if i.id == key), None) if cart else None
        name = clean(item.name, 300) if item is not None else ""
        self.show_whole_name("line-full-name", lines, name)

    # Data -----------------------------------------------------------------------------------------
    def load_settings(self) -> None:
        visit = self.kiosk.visit

        async def tips() -> TipSettings:
            return await visit.tip_settings()

        async def slots() -> TimeIntervals:
            return await visit.time_intervals()

        async def cross() -> list[MenuProduct]:
            # Read once a cart (the first add read it already); none when the budget runs low.
            return await visit.cross_sell()

        def quiet(failure: Failure) -> bool:
            # Optional extras: the order goes on without them (the failure is logged).
            return True

        # Reads: refused by the rate limit, each is sent again (quietly) when the wait is over.
        quietly: dict[str, Any] = {"failed": quiet, "clear_banner": False, "read": True}
        self.call(tips, group="cart-tips", done=self._tips_loaded, **quietly)
        self.call(slots, group="cart-slots", done=self._slots_loaded, **quietly)
        self.call(cross, group="cart-cross", done=self._cross_loaded, **quietly)

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
            label = clean(day.label or day.value, 20)
            for at in day.intervals:
                options.append((Text(f"{label} {clean(at, 5)}"), f"{day.value} {at}"))
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
                    when=f"{clean(day, 20)} {clean(at, 5)}"
                ),
                kind="info",
            )

        self.call(
            schedule, group="cart-schedule", done=scheduled, busy=self.query_one("#time-section")
        )

    def _cross_loaded(self, products: list[MenuProduct]) -> None:
        cart = self.kiosk.cart
        in_cart = {i.product_id for i in cart.items} if cart else set()
        self.suggestions = [p for p in products if p.id not in in_cart and p.is_available][:5]
        if not self.suggestions:
            return
        currency = shop_currency(self.app)
        rows = [
            TextRow(
                p.id,
                Text(" + " + clean(p.name, 60)),
                Text(clean(p.price_text(currency, money_locale()), 16) + " "),
            )
            for p in self.suggestions
        ]
        listing = self.query_one("#cross-sell", CrossSell)
        listing.set_rows(rows)
        listing.styles.height = len(rows)
        self.query_one("#cross-sell-section").display = True

    # Drawing from the cart ------------------------------------------------------------------------
    def show_cart(self, cart: Cart | None) -> None:
        # The lines are drawn from the same cart (CartLines watches it too): their cursor's
        # name, once they are.
        self.call_after_refresh(self._show_line_name)
        title = Text(_("Your order"), style="bold")
        if cart is not None:
            title.append(f" · {method_label(cart.fulfilment_method)}")
            if (cart.pickup_type or "").upper() == "LATER" and cart.order_time:
                # "Today 14:45", as the time picker says it (issue 20), in the customer's words.
                moment = human_moment(
                    clean(cart.order_date, 10),
                    clean(cart.order_time, 5),
                    self.kiosk.visit.clock.local_or_utc(),
                    money_locale() or language(),
                )
                title.append(f" · {moment}")
            else:
                title.append(" · " + _("as soon as possible"))
            info = _fulfillment_detail(cart)
            if info:
                title.append(f"\n{info}", style="dim")
        empty = cart is None or not cart.items
        if empty:
            title.append(
                "\n" + _("Your order is empty. Press Esc to go back to the menu."),
                style=tone(self.app, "warn"),
            )
        self.query_one("#cart-title", Static).update(title)
        self.query_one("#checkout", Button).disabled = empty
        self.query_one("#edit-line", Button).display = not empty
        code = cart.discount_code if cart is not None else None
        self.query_one("#remove-discount", Button).display = (
            bool(code) and self.kiosk.visit.can_remove_discount
        )
        self.query_one("#apply-discount", Button).display = not code
        discount = self.query_one("#discount", Input)
        discount.disabled = bool(code)
        if code:
            discount.value = clean(code, 40)
        self._mark_tip(cart)
        self._mark_time(cart)

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

    # Changing the cart (always through the CartStore) ---------------------------------------------
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

    def change_line(self, item_id: str, step: int) -> None:
        cart = self.kiosk.cart
        line = next((i for i in cart.items if i.id == item_id), None) if cart else None
        if line is None:
            return
        # Keys pressed faster than the server answers count from the last one asked for, not
        # from the cart still shown: five quick + are five steps (the writes go in order).
        quantity = max(self._asked.get(item_id, line.quantity) + step, 0)
        self._asked[item_id] = quantity

        def settled(_: Any = None) -> bool:
            if self._asked.get(item_id) == quantity:
                del self._asked[item_id]  # the last one asked for has landed (or failed)
            return False

        self._store_call(
            lambda s: s.set_quantity(item_id, quantity),
            busy=self.query_one("#lines"),
            done=settled,
            failed=settled,
        )

    def edit_line(self, item_id: str) -> None:
        """The product screen with this line's choices and quantity selected; confirming there
        replaces the line (Visit.replace_line), Escape leaves it as it was."""
        cart = self.kiosk.cart
        line = next((i for i in cart.items if i.id == item_id), None) if cart else None
        if line is None or not line.product_id or self.expired:
            return
        from kiosk.tui.screens.product import ProductScreen

        def closed(message: str | None) -> None:
            if message:
                self.say(message, kind="ok")

        screen = ProductScreen(line.product_id, clean(line.name, 80), editing=line)
        self.app.push_screen(screen, closed)

    def remove_line(self, item_id: str) -> None:
        self._store_call(lambda s: s.remove_item(item_id), busy=self.query_one("#lines"))

    def apply_discount(self) -> None:
        code = self.query_one("#discount", Input).value.strip()
        error = self.query_one("#discount-error", FieldError)
        if not code:
            error.show(_("Please enter a code first."))
            return
        error.show(None)

        def refused(failure: Failure) -> bool:
            # The reason at the field, in the customer's words (ours from the vendor's schema:
            # "letters and digits only, 6 to 24 of them"; or the server's: "This code has
            # expired"), and the cursor back there to correct it.
            error.show(failure.message)
            self.refocus(self.query_one("#discount", Input))
            return not failure.retryable

        def applied(_result: Any) -> None:
            self.say(_("Code {code} applied.").format(code=clean(code, 40)), kind="ok")

        self._store_call(
            lambda s: s.apply_discount(code),
            busy=self.query_one("#discount-row"),
            failed=refused,
            done=applied,
        )

    def remove_discount(self) -> None:
        self.query_one("#discount-error", FieldError).show(None)

        def removed(_: Any) -> None:
            self.query_one("#discount", Input).value = ""

        def refused(failure: Failure) -> bool:
            from kiosk.api.errors import UnsupportedOperationError

            if failure.code == UnsupportedOperationError.CODE:
                # This server cannot drop a code; the button goes, the way out is said once.
                self.query_one("#remove-discount", Button).display = False
                self.query_one("#discount-error", FieldError).show(
                    _("This code can't be removed here. To order without it, start over (F9).")
                )
                return True
            return False

        self._store_call(
            lambda s: s.remove_discount(),
            busy=self.query_one("#discount-row"),
            failed=refused,
            done=removed,
        )

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

    # Events ---------------------------------------------------------------------------------------
    def on_button_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        button_id = event.button.id or ""
        if button_id == "apply-discount":
            self.apply_discount()
        elif button_id == "remove-discount":
            self.remove_discount()
        elif button_id.startswith("tip-"):
            self.set_tip(button_id)
        elif button_id == "set-custom-tip":
            self.set_custom_tip()
        elif button_id == "asap":
            self.set_asap()
        elif button_id == "checkout":
            self.action_checkout()
        elif button_id == "start-again":
            self.start_again()
        elif button_id == "edit-line":
            self.query_one("#lines", CartLines).action_edit()

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        if event.input.id == "discount":
            self.apply_discount()
        elif event.input.id == "custom-tip":
            self.set_custom_tip()

    def on_select_changed(self, event: Select.Changed) -> None:
        event.stop()
        if isinstance(event.value, str):
            self.set_later(event.value)

    def on_row_list_selected(self, event: RowList.Selected) -> None:
        event.stop()
        if isinstance(event.rowlist, CartLines) and event.key is not None:
            self.edit_line(str(event.key))
        elif isinstance(event.rowlist, CrossSell):
            product = next((p for p in self.suggestions if p.id == event.key), None)
            if product is not None:
                from kiosk.tui.screens.product import ProductScreen

                def closed(message: str | None) -> None:
                    if message:
                        self.say(message, kind="ok")

                screen = ProductScreen(product.id, clean(product.name, 80), product)
                self.app.push_screen(screen, closed)

    def action_checkout(self) -> None:
        cart = self.kiosk.cart
        if self.expired:
            return
        if cart is None or not cart.items:
            self.say(
                _("Your order is empty."), hint=_("Press Esc to choose something from the menu.")
            )
            return
        self.kiosk.navigate(Wants(Step.CHECKOUT))


def _fulfillment_detail(cart: Cart) -> str:
    if cart.table_service_info and cart.table_service_info.table_number:
        return _("Table {table}").format(table=clean(cart.table_service_info.table_number, 10))
    if cart.room_service_info and cart.room_service_info.room_number:
        name = clean(cart.room_service_info.last_name, 40)
        room = clean(cart.room_service_info.room_number, 10)
        return _("Room {room}").format(room=room) + f" · {name}"
    if cart.delivery_info and cart.delivery_info.address_string:
        return _("Deliver to {address}").format(
            address=clean(cart.delivery_info.address_string, 100)
        )
    return ""
