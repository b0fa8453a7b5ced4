"""4. Product: modifier groups (required first) with counters, per-option quantities and nested
child
groups, a live price labelled "preview", the quantity, and Add only when the choice is valid. The
server's refusal is shown at the group it names."""

from __future__ import annotations

from collections.abc import Hashable
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

from rich.text import Text
from textual import events
from textual.app import App, ComposeResult
from textual.binding import ActiveBinding, Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.widgets import Button, Static

from kiosk.i18n import N_, _, money_locale
from kiosk.ordering import diet
from kiosk.tui.a11y import large_text
from kiosk.tui.contract import shop_currency
from kiosk.tui.errors import Failure
from kiosk.tui.palette import tone
from kiosk.tui.screens.base import KioskScreen
from kiosk.tui.text import clean
from kiosk.tui.widgets.chrome import FullName
from kiosk.tui.widgets.dialogs import YesNoDialog
from kiosk.tui.widgets.lists import two_columns
from kiosk.tui.widgets.picture import Picture
from kiosk.tui.widgets.rowlist import RowList

if TYPE_CHECKING:
    from kiosk.api import CartItem, MenuProduct, ProductDetail
    from kiosk.ordering.modifiers import GroupView, OptionView, SelectionState

MAX_QUANTITY = 99


def money(minor: int, currency: str, locale: str | None = None) -> str:
    # The kiosk's one formatter (babel), the same the cart's fallbacks use: "NZ$12.50" on both.
    from kiosk.api.money import format_money

    return format_money(minor, currency, locale)


@dataclass(frozen=True)
class GroupRow:
    group: GroupView


@dataclass(frozen=True)
class OptionRow:
    group: GroupView
    option: OptionView


@dataclass(frozen=True)
class Gap:
    """A blank row before a group in large text: each group set apart (the cursor skips it)."""


ModifierRow = GroupRow | OptionRow | Gap


class ModifierList(RowList[ModifierRow]):
    """Groups and their options in one list; the cursor moves over options only."""

    currency = ""  # set from the location (shop_currency) when the product is loaded
    locale: str | None = None
    # The product and the menu's diet filter, for each option's marks (kiosk.ordering.diet).
    product: ProductDetail | None = None
    diet_filter: diet.DietFilter | None = None

    def row_key(self, row: ModifierRow) -> Hashable | None:
        return row.option.key if isinstance(row, OptionRow) else None

    def row_text(self, row: ModifierRow, width: int, cursor: bool) -> Text:
        if isinstance(row, Gap):
            return Text("")
        if isinstance(row, GroupRow):
            view = row.group
            text = Text("  " * view.depth)
            text.append(clean(view.group.name, 60) or _("Options"), style="bold underline")
            text.append("  ")
            text.append(view.rule_text, style=tone(self.app, "warn") if view.required else "dim")
            text.append(f" · {view.progress_text}", style="dim")
            if view.error:
                text.append(f"  ✗ {clean(view.error, 120)}", style=tone(self.app, "error"))
            elif view.required:
                text.append("  ✓", style=tone(self.app, "ok"))
            return text
        view, option = row.group, row.option
        text = Text("  " * view.depth + "  ")
        # Every mark is five cells wide, so names line up: ( ) (•) radio, [ ] [x] check, [×2] count.
        if option.sold_out:
            mark = "  -  "
        elif view.single:
            mark = " (•) " if option.chosen else " ( ) "
        elif option.quantity > 1:
            mark = f"[×{option.quantity}]"[:5].ljust(5)
        else:
            mark = " [x] " if option.chosen else " [ ] "
        text.append(mark, style="bold" if option.chosen else "")
        text.append(" ")
        text.append(clean(option.item.name, 80), style="dim strike" if option.sold_out else "")
        for label in diet.option_labels(self.diet_filter, option.item, self.product):
            text.append(f" [{label}]", style=tone(self.app, "tag"))
        if option.max_quantity > 1 and not view.single and not option.sold_out:
            text.append("  " + _("up to {n}, +/−").format(n=option.max_quantity), style="dim")
        if option.sold_out:
            right = Text(_("Sold out") + " ", style=tone(self.app, "error"))
        elif option.item.price:
            delta = option.item.price_formatted or money(
                option.item.price, self.currency, self.locale
            )
            if money_locale():
                # Another language than the server's: its formatted twin is not shown.
                delta = money(option.item.price, self.currency, self.locale)
            sign = "" if delta.startswith(("-", "+")) else "+"
            right = Text(f"{sign}{clean(delta, 16)} ")
        else:
            right = Text("")
        return two_columns(text, right, width)


class SuggestionDialog(YesNoDialog):
    """One suggestion after an add: Enter or Y adds it, Escape or N says no thanks."""

    BINDINGS = [
        Binding("escape,n", "answer(False)", N_("No thanks")),
        Binding("y", "answer(True)", N_("Add it")),
        Binding("left,right", "switch", show=False),
    ]
    FIRST = "yes"

    def __init__(self, product: MenuProduct, price: str) -> None:
        super().__init__(classes="suggestion")
        self.product = product
        self.price = price

    def compose(self) -> ComposeResult:
        with Vertical(id="dialog"):
            yield Static(Text(_("You might also like"), style="bold"), id="dialog-question")
            line = Text(clean(self.product.name, 80), style="bold")
            line.append(f"  {clean(self.price, 20)}")
            if self.product.description:
                line.append("\n")
                line.append(clean(self.product.description, 160), style="dim")
            yield Static(line, id="dialog-detail")
            with Horizontal(id="dialog-buttons"):
                yield Button(_("Add it (Y)"), id="yes", variant="primary")
                yield Button(_("No thanks (N)"), id="no")


def offer_suggestion(app: App[Any], product: MenuProduct) -> None:
    """Show one suggestion over the screen below; adding it opens its product screen when it has
    options to choose, else adds one at once."""
    from kiosk.tui.contract import kiosk_of

    kiosk = kiosk_of(app)
    price = product.price_text(shop_currency(app), money_locale())
    name = clean(product.name, 60)

    def answered(yes: bool | None) -> None:
        below = app.screen
        if not yes or not isinstance(below, KioskScreen):
            return

        def closed(message: str | None) -> None:
            if message:
                below.say(message, kind="ok", hint=_("F4 shows your order."))

        if product.modifier_ids:
            screen = ProductScreen(product.id, name, product, suggest=False)
            app.push_screen(screen, closed)
            return
        visit = kiosk.visit

        async def add() -> Any:
            return await visit.add_item(product.id, 1)

        added = _("Added {n} × {name} to your order.").format(n=1, name=name)
        below.call(add, group="cart", done=lambda _result: closed(added))

    app.push_screen(SuggestionDialog(product, price), answered)


class ProductScreen(KioskScreen):
    TITLE = N_("Choose")
    BINDINGS = [
        Binding("f2", "add", N_("Add to order")),
        Binding("escape", "back", N_("Back to menu")),
        Binding("space", "choose", N_("Choose")),
        Binding("plus,equals_sign,right", "more", N_("More"), show=False),
        Binding("minus,left", "less", N_("Less"), show=False),
    ]

    def __init__(
        self,
        product_id: str,
        name: str,
        listed: MenuProduct | None = None,
        *,
        editing: CartItem | None = None,
        suggest: bool = True,
    ) -> None:
        """`listed` is the menu's record of the product: when it names no modifier groups, it is
        all this screen needs and the detail is not fetched (one request less per simple item).
        `editing` is a cart line: its choices and quantity come selected, and confirming
        replaces that line (Escape leaves it as it was)."""
        super().__init__()
        self.product_id = product_id
        self.product_name = name
        self.listed = listed
        self.editing = editing
        # One suggestion after an add (not after an edit, nor after adding a suggestion).
        self.suggest = suggest and editing is None
        # Keys seen here, and where the add began among them: a key pressed after the add (a
        # burst: F2 then keys meant for the menu) means no suggestion, which would take them.
        self._keys_seen = 0
        self._f2_at: int | None = None
        self._add_from = 0
        self.product: ProductDetail | None = None
        self.state: SelectionState | None = None
        self.quantity = 1
        # True while an add is on its way (a second F2 must not add again, nor leave twice).
        self._adding = False
        # The menu's diet filter when this product was opened (its choices are marked against it).
        self.diet_filter: diet.DietFilter | None = None

    def header_subtitle(self) -> str:
        return self.product_name

    def compose_body(self) -> ComposeResult:
        with Vertical(id="product-body"):
            with Horizontal(id="product-head"):
                yield Picture(id="product-picture")
                with VerticalScroll(id="product-info-box"):
                    yield Static(id="product-info")
            yield ModifierList(id="modifiers")
            yield FullName(id="option-full-name")
            yield Static(
                Text(
                    _("↑↓ move · Space/Enter choose · +/− amount · 1-9 how many · F2 update")
                    if self.editing is not None
                    else _("↑↓ move · Space/Enter choose · +/− amount · 1-9 how many · F2 add"),
                    style="dim",
                ),
                id="product-help",
            )
            with Horizontal(id="product-bar"):
                yield Button("−", id="qty-less", classes="stepper")
                yield Static("1", id="quantity")
                yield Button("+", id="qty-more", classes="stepper")
                yield Static(id="preview")
                yield Button(
                    _("Add to order"),
                    id="add",
                    variant="primary",
                    disabled=True,
                    classes="main-action",
                )

    def on_mount(self) -> None:
        self.load()

    @property
    def active_bindings(self) -> dict[str, ActiveBinding]:
        found = super().active_bindings
        if self.editing is None:
            return found
        # Editing a line: the footer says what the button says, and where Esc goes back to.
        words = {"add": _("Update my order"), "back": _("Back to your order")}
        return {
            key: active._replace(
                binding=replace(active.binding, description=words[active.binding.action])
            )
            if active.binding.action in words
            else active
            for key, active in found.items()
        }

    def load(self) -> None:
        kiosk = self.kiosk
        listed = self.listed
        if listed is not None and not listed.modifier_ids:
            from kiosk.api import ProductDetail

            self._loaded(ProductDetail.from_listed(listed))
            return

        async def fetch() -> ProductDetail:
            return await kiosk.visit.product(self.product_id)

        self.call(
            fetch,
            group="product",
            done=self._loaded,
            busy=self.query_one("#product-body"),
            read=True,
        )

    def _loaded(self, product: ProductDetail) -> None:
        from kiosk.ordering.modifiers import SelectionState

        self.product = product
        # The location's currency (as every amount on screen), else the product's own.
        currency = shop_currency(self.app) or product.currency or ""
        modifiers = self.query_one("#modifiers", ModifierList)
        modifiers.currency = currency
        modifiers.locale = self.kiosk.visit.locale
        modifiers.product, modifiers.diet_filter = product, self.diet_filter
        swaps: list[tuple[str, str]] = []
        if self.editing is not None:
            from kiosk.ordering.visit import selection_for_line

            state = selection_for_line(product, self.editing)
        else:
            state, swaps = diet.fitting_choices(
                self.diet_filter, SelectionState.for_product(product), product
            )
        info = Text(clean(product.name, 200), style="bold")
        info.append("  ")
        base = clean(product.price_text(currency, money_locale()), 20)
        opening = state.preview_unit_price_minor()
        if opening != product.price and self.editing is None:
            # The price it opens at, its preselected choices priced by the server's option
            # prices ("$5.25 with Medium"), and the menu's price as where it starts from.
            info.append(money(opening, currency, modifiers.locale), style="bold")
            info.append(" " + _("(from {price})").format(price=base), style="dim")
        else:
            info.append(base, style="bold")
        if product.calories:
            info.append(f"  {product.calories} kcal", style="dim")
        for label in diet.marks(product).labels()[:5]:
            info.append(f" [{clean(label, 20)}]", style=tone(self.app, "tag"))
        why = diet.verdict(self.diet_filter, product) if self.diet_filter else None
        if why and self.diet_filter:
            info.append("  " + _("Fits your filter: {why}").format(why=why), style="bold")
        if product.description:
            info.append("\n")
            # Whole: an allergen sentence at its end is read too (the box scrolls).
            info.append(clean(product.description, 4000, one_line=False), style="dim")
        self.query_one("#product-info", Static).update(info)
        self.query_one(Picture).load(product, self.kiosk.visit.picture, self.kiosk.settings)
        if self.editing is not None:
            self.quantity = max(1, min(self.editing.quantity, MAX_QUANTITY))
            self.set_state(state)
        else:
            self.set_state(state)
            if swaps and self.diet_filter is not None:
                # Said, not done silently: the customer sees why the choice is not the usual one.
                done = "; ".join(
                    _("{new} chosen instead of {old}").format(
                        new=clean(new, 40), old=clean(old, 40)
                    )
                    for old, new in swaps
                )
                self.say(
                    _("{filter} filter: {swaps}.").format(
                        filter=_(self.diet_filter.label), swaps=done
                    ),
                    kind="info",
                )
        if not product.modifiers:
            # Nothing to choose: say so, and what is left to do (the page was empty but for
            # the name).
            modifiers.display = False
            self.query_one("#product-help", Static).update(
                Text.assemble(
                    (_("No choices to make.") + " ", "bold"),
                    (
                        _("How many: 1-9 or +/− · F2 updates your order")
                        if self.editing is not None
                        else _("How many: 1-9 or +/− · F2 adds it to your order"),
                        "dim",
                    ),
                )
            )
            self.query_one("#add", Button).focus()
        else:
            modifiers.focus()

    # State ----------------------------------------------------------------------------------------
    def set_state(self, state: SelectionState, *, focus_group: str | None = None) -> None:
        self.state = state
        rows: list[ModifierRow] = []
        spaced = large_text(self.app)
        for view in state.groups():
            if spaced and rows:
                rows.append(Gap())
            rows.append(GroupRow(view))
            rows.extend(OptionRow(view, option) for option in view.options)
        modifiers = self.query_one("#modifiers", ModifierList)
        modifiers.set_rows(rows)
        if focus_group is not None:
            for index, row in enumerate(rows):
                if isinstance(row, GroupRow) and row.group.id == focus_group:
                    modifiers.move_to_index(index, announce=False)
                    modifiers.scroll_to(y=index, animate=False)
                    break
        self._update_bar()

    def _update_bar(self) -> None:
        state = self.state
        self.query_one("#quantity", Static).update(Text(f" {self.quantity} ", style="bold"))
        preview = self.query_one("#preview", Static)
        add = self.query_one("#add", Button)
        if state is None or self.product is None:
            preview.update("")
            add.disabled = True
            return
        modifiers = self.query_one("#modifiers", ModifierList)
        currency, locale = modifiers.currency, modifiers.locale
        unit = state.preview_unit_price_minor()
        text = Text(_("Preview") + " ", style="dim")
        text.append(money(unit * self.quantity, currency, locale), style="bold")
        if self.quantity > 1:
            each = money(unit, currency, locale)
            text.append(f" ({self.quantity} × {each})", style="dim")
        preview.update(text)
        add.disabled = not state.is_valid
        if self.editing is not None:
            add.label = _("Update my order")
        else:
            add.label = (
                _("Add {n} to order").format(n=self.quantity)
                if self.quantity > 1
                else _("Add to order")
            )

    def _cursor_option(self) -> OptionRow | None:
        row = self.query_one("#modifiers", ModifierList).cursor_row
        return row if isinstance(row, OptionRow) else None

    def on_row_list_selected(self, event: RowList.Selected) -> None:
        event.stop()
        self.action_choose()

    def on_row_list_highlighted(self, event: RowList.Highlighted) -> None:
        # A long option name cut at 80x24 is read in full under the list.
        row = event.rowlist.cursor_row
        name = clean(row.option.item.name, 300) if isinstance(row, OptionRow) else ""
        self.show_whole_name("option-full-name", event.rowlist, name)

    def action_choose(self) -> None:
        row = self._cursor_option()
        if row is None or self.state is None:
            return
        if row.option.sold_out:
            name = clean(row.option.item.name, 60)
            self.say(_("Sorry, {name} is sold out.").format(name=name), kind="info")
            return
        if row.group.single:
            self.set_state(self.state.select(row.option.key))
        else:
            before = self.state
            after = before.toggle(row.option.key)
            if after == before and not row.option.chosen:
                self.say(
                    f"{clean(row.group.group.name, 60)}: {row.group.progress_text}. "
                    + _("Remove one to choose another."),
                    kind="info",
                )
            self.set_state(after)

    def action_more(self) -> None:
        if isinstance(self.focused, Button) or self.state is None:
            self.change_quantity(1)
            return
        row = self._cursor_option()
        if row is not None:
            if row.group.single:
                self.set_state(self.state.select(row.option.key))
            else:
                self.set_state(self.state.increment(row.option.key))

    def action_less(self) -> None:
        if isinstance(self.focused, Button) or self.state is None:
            self.change_quantity(-1)
            return
        row = self._cursor_option()
        if row is not None:
            self.set_state(self.state.decrement(row.option.key))

    def change_quantity(self, step: int) -> None:
        self.quantity = min(max(self.quantity + step, 1), MAX_QUANTITY)
        self._update_bar()

    @property
    def _hurried(self) -> bool:
        return self._keys_seen > self._add_from

    def on_key(self, event: events.Key) -> None:
        # Counted as they reach the screen: the F2 binding runs only after the keys queued
        # behind it have been seen here.
        if event.key == "f2" and self._f2_at is None:
            self._f2_at = self._keys_seen
        self._keys_seen += 1
        if event.character and event.character.isdigit() and event.character != "0":
            event.stop()
            self.quantity = int(event.character)
            self._update_bar()

    def on_button_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        if event.button.id == "qty-less":
            self.change_quantity(-1)
        elif event.button.id == "qty-more":
            self.change_quantity(1)
        elif event.button.id == "add":
            self.action_add()

    # Adding ---------------------------------------------------------------------------------------
    def action_add(self) -> None:
        state, product = self.state, self.product
        if state is None or product is None:
            return
        if self._adding:
            # A second press while the first add is on its way: one line, and the customer is
            # told so (the first add leaves this screen when it lands).
            self.say(_("Adding to your order…"), kind="info")
            return
        invalid = state.first_invalid()
        if invalid is not None:
            self._f2_at = None  # no add began at that F2
            self.set_state(state, focus_group=invalid.id)
            self.say(f"{clean(invalid.group.name, 60)}: {invalid.error}.", kind="info")
            return
        visit = self.kiosk.visit
        quantity = self.quantity
        selections = state.to_request()
        name = clean(product.name, 60)

        editing = self.editing

        suggest = self.suggest
        # The add began at its F2 (the key itself not counted), or now for a click.
        self._add_from = self._keys_seen if self._f2_at is None else self._f2_at + 1
        self._f2_at = None

        async def add() -> MenuProduct | None:
            if editing is not None:
                await visit.replace_line(editing.id, quantity, selections)
                return None
            await visit.add_item(product.id, quantity, selections)
            # Read while this screen still shows (busy), so the suggestion comes up in the same
            # step that leaves it: no key meant for the menu can land in between.
            return await visit.suggestion() if suggest and not self._hurried else None

        def failed(failure: Failure) -> bool:
            self._adding = False
            if failure.modifier_group_id and self.state is not None:
                refused = self.state.with_server_error(failure.modifier_group_id, failure.message)
                self.set_state(refused, focus_group=failure.modifier_group_id)
                group = refused.find_group(failure.modifier_group_id)
                where = f"{clean(group.group.name, 60)}: " if group is not None else ""
                # This screen's own way forward, where the words give none (describe's hint).
                hint = _("Please change your choice.") if failure.hint else ""
                self.say(f"{where}{failure.message}", hint=hint)
                return True
            if failure.code == "LINE_KEPT":
                # Both lines are in the order now: back to it, where the customer removes one.
                self.dismiss(_(failure.message))
                return True
            return False

        def added(suggestion: MenuProduct | None) -> None:
            if editing is not None:
                self.dismiss(_("{name} updated: {n} in your order.").format(name=name, n=quantity))
                return
            self.dismiss(_("Added {n} × {name} to your order.").format(n=quantity, name=name))
            if suggestion is not None and not self._hurried:
                offer_suggestion(self.app, suggestion)

        self._adding = True
        self.call(add, group="cart", done=added, failed=failed, busy=self.query_one("#product-bar"))
