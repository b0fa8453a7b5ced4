"""5. Cart: lines with their choices, quantity and remove (with Undo), discount apply/remove with
the server's reason, cross-sell suggestions, and every total that applies from the server's
formatted strings. The tip and the time are CartOptions' (cart_options.py)."""

from __future__ import annotations

from collections.abc import Hashable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from rich.segment import Segment
from rich.style import Style
from rich.text import Text
from textual import events
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.geometry import Region
from textual.strip import Strip
from textual.widgets import Button, Input, Select, Static

from kiosk.i18n import N_, _, language, money_locale
from kiosk.ordering.clock import human_moment
from kiosk.tui.a11y import large_text
from kiosk.tui.contract import kiosk_of, shop_currency
from kiosk.tui.errors import Failure
from kiosk.tui.flow import Step, Wants
from kiosk.tui.labels import method_label
from kiosk.tui.palette import tone
from kiosk.tui.screens.base import KioskScreen
from kiosk.tui.screens.cart_options import CartOptions, TipButton, TipRow
from kiosk.tui.text import clean
from kiosk.tui.widgets.cart_summary import TotalsPanel
from kiosk.tui.widgets.chrome import FieldError, FullName
from kiosk.tui.widgets.fields import TextField
from kiosk.tui.widgets.line_controls import LineControls, UndoNote
from kiosk.tui.widgets.lists import TextRow, TextRowList, two_columns
from kiosk.tui.widgets.rowlist import RowList
from kiosk.tui.widgets.scroll import ControlsScroll

__all__ = ["CartLines", "CartScreen", "CrossSell", "LineRow", "TipButton", "TipRow"]

if TYPE_CHECKING:
    from kiosk.api import Cart, MenuProduct
    from kiosk.api.models import CartItem, TimeIntervals, TipSettings
    from kiosk.ordering.visit import ReopenResult


@dataclass(frozen=True)
class LineRow:
    item_id: str | None  # None: a detail line (a choice) under its item
    text: Text
    right: Text | None = None


# Each line's own touch targets (issue 33 item 4), at the right end of its row: what a finger
# presses on that line, not on the highlighted one. Three cells each, a cell apart, the last a
# cell from the edge.
LINE_TARGETS = (("−", "less"), ("+", "more"), ("✕", "remove"))
TARGET_CELLS = 3
TARGETS_WIDTH = len(LINE_TARGETS) * (TARGET_CELLS + 1)
# Narrower than this (a list squeezed by large text), the row keeps its words and the targets go;
# LineControls under the list still acts on the highlighted line.
MIN_WIDTH_FOR_TARGETS = 30


class CartLines(RowList[LineRow]):
    """The cart's lines, drawn from `app.cart` (watched): no copy of the cart is kept here. Each
    line's row ends with its own −, + and ✕ (`LINE_TARGETS`), drawn in the controls' colours
    (cartlines--target) and pressed by a click there."""

    KEEP_PLACE = True  # after Del, the highlight stays on the neighbouring line
    COMPONENT_CLASSES = RowList.COMPONENT_CLASSES | {"cartlines--target"}
    DEFAULT_CSS = """
    CartLines > .cartlines--target {
        background: $panel-lighten-2;
        color: $foreground;
        text-style: bold;
    }
    """
    _frame_target: Style | None = None

    BINDINGS = [
        Binding("plus,equals_sign,right", "change(1)", N_("More"), show=False),
        Binding("minus,left", "change(-1)", N_("Less"), show=False),
        # No letters: a letter typed on this screen goes to the code field (CartScreen.on_key).
        Binding("delete,backspace", "remove", N_("Remove"), key_display="Del"),
        Binding("f3", "edit", N_("Change choices")),
    ]

    def row_key(self, row: LineRow) -> Hashable | None:
        return row.item_id

    def row_text(self, row: LineRow, width: int, cursor: bool) -> Text:
        if row.right is not None:
            if self._targets_shown(width):
                # The targets are drawn over the blank end (render_line).
                out = two_columns(row.text, row.right, width - TARGETS_WIDTH)
                out.append(" " * TARGETS_WIDTH)
                return out
            return two_columns(row.text, row.right, width)
        return row.text.copy()

    # Each line's targets --------------------------------------------------------------------------
    def _targets_shown(self, width: int) -> bool:
        screen = self.screen if self.is_attached else None
        expired = isinstance(screen, CartScreen) and screen.expired
        return width >= MIN_WIDTH_FOR_TARGETS and not expired

    def target_region(self, index: int, action: str) -> Region | None:
        """Where `action`'s target ("less", "more", "remove") of the row at `index` is, in this
        widget's content (x from its left, y the row's line in view); None when not drawn."""
        width = self.scrollable_content_region.width
        if not self._selectable(index) or not self._targets_shown(width):
            return None
        x = width - TARGETS_WIDTH
        for _label, name in LINE_TARGETS:
            if name == action:
                return Region(x, index - round(self.scroll_y), TARGET_CELLS, 1)
            x += TARGET_CELLS + 1
        return None

    def target_at(self, index: int, x: int) -> str | None:
        for _label, name in LINE_TARGETS:
            region = self.target_region(index, name)
            if region is not None and region.x <= x < region.right:
                return name
        return None

    def render_lines(self, crop: Region) -> list[Strip]:
        self._frame_target = self.get_component_rich_style("cartlines--target")
        try:
            return super().render_lines(crop)
        finally:
            self._frame_target = None

    def render_line(self, y: int) -> Strip:
        strip = super().render_line(y)
        index = round(self.scroll_y) + y
        width = strip.cell_length
        if not self._selectable(index) or not self._targets_shown(width):
            return strip
        base, row_style, cursor = self._frame_styles or self._read_styles()
        gap = base + (cursor if index == self.cursor else row_style)
        gap = Style(bgcolor=gap.bgcolor)
        target = self._frame_target or self.get_component_rich_style("cartlines--target")
        segments: list[Segment] = []
        for label, _name in LINE_TARGETS:
            segments.append(Segment(f" {label} ", target))
            segments.append(Segment(" ", gap))
        start = width - TARGETS_WIDTH
        return Strip.join([strip.crop(0, start), Strip(segments, TARGETS_WIDTH)])

    async def _on_click(self, event: events.Click) -> None:
        # On a line's target: that line's action, not the row's (opening it to change).
        offset = event.get_content_offset(self)
        if offset is None:
            return
        index = round(self.scroll_y) + offset.y
        action = self.target_at(index, offset.x)
        screen = self.screen
        if action is None or not isinstance(screen, CartScreen):
            return
        event.prevent_default()  # RowList._on_click would open the line
        event.stop()
        key = str(self.key_at(index))
        self._move_to(index, announce=True)
        if action == "remove":
            screen.remove_line(key)
        else:
            screen.change_line(key, 1 if action == "more" else -1)

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


class CartScreen(CartOptions):
    TITLE = N_("Your order")
    BINDINGS = [
        Binding("f2", "checkout", N_("Checkout")),
        Binding("escape", "back", N_("Back to menu")),
        Binding("ctrl+z", "undo", N_("Undo")),
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
        # The line last removed, while its Undo is offered.
        self._removed: CartItem | None = None

    def compose_body(self) -> ComposeResult:
        with Horizontal(id="cart-body"):
            with ControlsScroll(id="cart-left"):
                yield Static(id="cart-title")
                yield Static(id="expired-note")
                yield CartLines(id="lines")
                yield FullName(id="line-full-name")
                yield LineControls(id="lines-bar")
                yield UndoNote(id="undo-note")
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
        self.query_one("#lines").refresh()  # each line's targets go with an expired order
        if expired:
            self.query_one("#undo-note", UndoNote).withdraw()
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
        # An expired order's lines are not offered for checkout (F2 goes from the footer); Undo
        # only while a removal's note offers it.
        if action == "undo":
            return self._removed is not None and self.query_one("#undo-note", UndoNote).offered
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
        self.query_one("#lines-bar", LineControls).display = not empty and not self.expired
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

    def change_line(self, item_id: str, step: int) -> None:
        cart = self.kiosk.cart
        line = next((i for i in cart.items if i.id == item_id), None) if cart else None
        if line is None:
            return
        # Keys pressed faster than the server answers count from the last one asked for, not
        # from the cart still shown: five quick + are five steps (the writes go in order).
        quantity = max(self._asked.get(item_id, line.quantity) + step, 0)
        if quantity == 0 and item_id not in self._asked:
            self.remove_line(item_id)  # − to none is a removal: said, with its Undo
            return
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
        """Removed at once, and said with an Undo for a while (UndoNote): the same line back."""
        cart = self.kiosk.cart
        line = next((i for i in cart.items if i.id == item_id), None) if cart else None
        if line is None:
            return

        def removed(_cart: Any) -> None:
            self._removed = line
            what = f"{line.quantity} × {clean(line.name, 60)}"
            self.query_one("#undo-note", UndoNote).offer(_("Removed {what}.").format(what=what))
            self.refresh_bindings()

        self._store_call(
            lambda s: s.remove_item(item_id), busy=self.query_one("#lines"), done=removed
        )

    def action_undo(self) -> None:
        """The removed line added again, the same product, choices and quantity, through the
        Visit; the lines then show what the server holds."""
        note = self.query_one("#undo-note", UndoNote)
        line = self._removed
        if line is None or not note.offered:
            note.check()
            return
        self._removed = None
        note.withdraw()
        from kiosk.ordering.selections import request_selections

        selections = request_selections(line.selections)

        def back(_cart: Any) -> None:
            self.say(
                _("{name} is back in your order.").format(name=clean(line.name, 60)), kind="ok"
            )

        self._store_call(
            lambda s: s.add_item(
                line.product_id, line.quantity, selections, line.special_instructions
            ),
            busy=self.query_one("#lines"),
            done=back,
        )

    def on_key(self, event: events.Key) -> None:
        """A letter or digit typed where no text field has the focus starts the discount code,
        so no key of this screen can fire while a code is typed. In a burst (arrows and a code
        in one read) a letter can come back here before an arrow typed ahead of it has moved
        the focus: this key and those after it wait (the app's key hold) until the keys before
        it have acted; then, if the focus is still not in a text field, it goes to the code
        field, and the held keys follow in the order they were typed."""
        char = event.character
        if not (event.is_printable and char and char.isalnum()) or isinstance(self.focused, Input):
            return
        if not self._code_open():
            return
        hold = self.kiosk.hold_keys_from(event)  # this key waits too, in its place

        def start_code() -> None:
            if not isinstance(self.focused, Input) and self._code_open():
                self.set_focus(self.query_one("#discount", Input))
            self.kiosk.release_keys(hold)

        # On the app's queue: behind the keys typed before this one, which reached this screen
        # first and are on their way to the app's bindings (an arrow moves the focus there).
        self.app.call_later(start_code)

    def _code_open(self) -> bool:
        field = self.query_one("#discount", Input)
        return not field.disabled and bool(self.query_one("#cart-extras").display)

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
        elif button_id in ("line-less", "line-more"):
            self.query_one("#lines", CartLines).action_change(1 if button_id == "line-more" else -1)
        elif button_id == "line-remove":
            self.query_one("#lines", CartLines).action_remove()
        elif button_id == "undo":
            self.action_undo()

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
