"""3. Menu: categories beside products, prices, tags, sold-out and not-available-now, popular
products,
type-ahead search, and the cart summary always in view."""

from __future__ import annotations

import gc
from bisect import bisect_right
from collections.abc import Hashable, Iterator, Sequence
from dataclasses import dataclass
from datetime import datetime
from functools import lru_cache
from typing import TYPE_CHECKING, Any

from rich.cells import cell_len
from rich.segment import Segment
from rich.style import Style
from rich.text import Text
from textual import events
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.geometry import Region
from textual.strip import Strip
from textual.widgets import Button, Static

from kiosk.i18n import N_, _, language, money_locale
from kiosk.ordering import diet
from kiosk.tui import menu_model
from kiosk.tui.a11y import large_text
from kiosk.tui.cartview import slot_words, total_rows
from kiosk.tui.contract import shop_currency
from kiosk.tui.flow import Step, Wants
from kiosk.tui.menu_model import Header
from kiosk.tui.palette import tone
from kiosk.tui.screens.base import KioskScreen
from kiosk.tui.text import clean
from kiosk.tui.widgets.cart_summary import CartBar, CartPanel
from kiosk.tui.widgets.chrome import FullName
from kiosk.tui.widgets.lists import TextRow, TextRowList, two_columns
from kiosk.tui.widgets.rowlist import RowList

if TYPE_CHECKING:
    from kiosk.api import MenuProduct, MenusResponse
    from kiosk.api.models import Cart


@lru_cache(maxsize=1024)
def _shown(text: str, limit: int) -> str:
    # The rows on screen are drawn again on every search key: their names are cleaned once.
    return clean(text, limit)


def product_name(product: MenuProduct) -> str:
    return _shown(product.name, 120) or _("(unnamed)")


@lru_cache(maxsize=256)
def _match_span(name: str, needle: str) -> tuple[int, int] | None:
    # The rows on screen are drawn again on every frame: each name's match is found once a search.
    return menu_model.match_span(name, needle)


@dataclass(frozen=True, slots=True)
class NameMore:
    """The rest of a product's name on the line under its row (issue 33): a long name wraps
    rather than being cut, its price and marks stay on its first line. The cursor skips it."""

    product: MenuProduct
    text: str
    start: int  # where `text` starts in the name shown (for the search's underline)


# A name wraps to at most this many lines, then ends in "…".
NAME_LINES = 2


def split_name(name: str, room: int, width: int) -> tuple[int, str] | None:
    """Where a name too long for `room` cells breaks (at a word), and its second line, cut
    with "…" when longer than `width`; None when it fits."""
    if cell_len(name) <= room:
        return None
    cut = 0
    for at, char in enumerate(name):
        if char == " ":
            if cell_len(name[:at]) > room:
                break
            cut = at
    if cut == 0:  # one long word: cut inside it
        cut = max(room, 1)
        while cut > 1 and cell_len(name[:cut]) > room:
            cut -= 1
    rest = name[cut:].lstrip()
    if cell_len(rest) > width:
        while rest and cell_len(rest) > width - 1:
            rest = rest[:-1]
        rest = rest.rstrip() + "…"
    return cut, rest


class ProductList(RowList["menu_model.Row | NameMore"]):
    """Every product of the menu in one line-API list: headers are skipped by the cursor.

    The rows are the client's product records under their categories' headers (menu_model); a
    product's category, hence its key (category id, product id) and its state, is the header
    above it, found by bisection."""

    keeps_scrollbar = True  # the search filters it: no layout of the screen for a key

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self._headers: list[int] = []  # indexes of the header rows, ascending
        self.categories: dict[str, menu_model.Category] = {}
        self.needle = ""  # the search, folded (menu_model.fold): its match is underlined
        self._source: Sequence[menu_model.Row] = ()  # the model's rows, before names wrap
        self._wrapped_width = 0  # the width the names were wrapped at
        self._first: dict[int, int] = {}  # a wrapped product row: how much of its name is on it

    def set_rows(self, rows: Sequence[Any], *, keep_key: Hashable | None = None) -> None:
        if keep_key is None:
            keep_key = self.cursor_key  # read with the old rows' headers
        self._source = rows
        shown = self._wrap(rows)
        self._headers = [i for i, row in enumerate(shown) if isinstance(row, Header)]
        super().set_rows(shown, keep_key=keep_key)

    def _wrap(self, rows: Sequence[menu_model.Row]) -> list[Any]:
        """The rows with a `NameMore` under each product whose name does not fit beside its
        marks and price."""
        width = self.scrollable_content_region.width if self.is_mounted else 0
        self._wrapped_width = width
        self._first = {}
        cache = self._split_cache(width) if width > 0 else {}
        out: list[Any] = []
        group: menu_model.Category | None = None
        for row in rows:
            out.append(row)
            if isinstance(row, Header):
                group = self.categories.get(row.category_id)
                continue
            if width <= 0:
                continue
            # Most names fit by far: only a long one is measured, and each once for this width
            # (a search key wraps its rows again: 5,000 of them measured each key doubled its
            # time).
            raw = row.name or ""
            if len(raw) * (1 if raw.isascii() else 2) + 48 < width:
                continue
            key = (group.id if group else "", row.id)
            found = cache.get(key, False)
            if found is False:
                found = cache[key] = self._split(row, group, width)
            if found is None:
                continue
            cut, rest, start = found
            self._first[len(out) - 1] = cut
            out.append(NameMore(row, rest, start))
        return out

    def _split(
        self, row: MenuProduct, group: menu_model.Category | None, width: int
    ) -> tuple[int, str, int] | None:
        """Where `row`'s name breaks at `width` (see `split_name`), and where its second line
        starts in it; None when it fits (or the list is too narrow to wrap)."""
        name, _style, _span, marks, right, _right_style = self._line_parts(row, group)
        room = width - cell_len(right) - 2 - 2 - (1 + cell_len(marks) if marks else 0)
        if room < 8:
            return None  # too narrow to be worth a second line: cut (text_at)
        found = split_name(name, room, width - 2)
        if found is None:
            return None
        cut, rest = found
        return cut, rest, len(name) - len(name[cut:].lstrip())

    # The splits measured, for (width, the categories, the language, large text): a search key
    # reuses them.
    _splits: tuple[object, dict[tuple[str, str], Any]] | None = None
    _split_for: object = None

    def _split_cache(self, width: int) -> dict[tuple[str, str], Any]:
        valid = (width, language(), large_text(self.app))
        if (
            self._splits is None
            or self._splits[0] != valid
            or self._split_for is not self.categories
        ):
            self._splits, self._split_for = (valid, {}), self.categories
        return self._splits[1]

    def rewrap(self) -> None:
        """Wrap the names again for the list's width now (a resize, a scrollbar come or gone)."""
        if self.is_mounted and self.scrollable_content_region.width != self._wrapped_width:
            self.set_rows(self._source)

    def on_resize(self, event: events.Resize) -> None:
        # RowList's on_resize runs after this one (Textual calls each class's handler).
        self.rewrap()

    def render_lines(self, crop: Region) -> list[Strip]:
        if self.scrollable_content_region.width != self._wrapped_width:
            self.call_after_refresh(self.rewrap)
        return super().render_lines(crop)

    def cursor_lines(self, index: int) -> range:
        # The cursor covers a wrapped name's second line too.
        end = index + 1
        rows = self.rows
        while end < len(rows) and isinstance(rows[end], NameMore):
            end += 1
        return range(index, end)

    def room_below(self) -> int:
        # A category chosen in the sidebar puts its heading at the top of the list (issue 33):
        # the last ones too, which needs room to scroll past the end of a long list.
        view = self.container_size.height
        if not self._headers or len(self.rows) <= view:
            return 0
        return max(0, view - (len(self.rows) - self._headers[-1]))

    def header_of(self, index: int) -> Header | None:
        at = bisect_right(self._headers, index) - 1
        if at < 0:
            return None
        header = self.rows[self._headers[at]]
        return header if isinstance(header, Header) else None

    def entry_at(self, index: int) -> tuple[menu_model.Category, MenuProduct] | None:
        """The category and product of a product row (None for a header)."""
        if not 0 <= index < len(self.rows):
            return None
        row = self.rows[index]
        header = self.header_of(index)
        if isinstance(row, Header | NameMore) or header is None:
            return None
        return self.categories[header.category_id], row

    def entries(self) -> Iterator[tuple[menu_model.Category, MenuProduct]]:
        """Every product row, with its category."""
        for index in range(len(self.rows)):
            found = self.entry_at(index)
            if found is not None:
                yield found

    _labels: dict[str, list[str]] | None = None
    _marks: dict[str, list[tuple[str, str]]] | None = None

    def labels(self, product: Any) -> list[str]:
        """A product's diet and allergen marks as words, worked out once per product."""
        if self._labels is None:
            self._labels = {}
        found = self._labels.get(product.id)
        if found is None:
            found = self._labels[product.id] = diet.marks(product).labels()
        return found

    def marks(self, product: Any) -> list[tuple[str, str]]:
        """A product's compact marks with their legend words, worked out once per product."""
        if self._marks is None:
            self._marks = {}
        found = self._marks.get(product.id)
        if found is None:
            found = self._marks[product.id] = diet.marks(product).codes()
        return found

    def legend(self, categories: Sequence[menu_model.Category]) -> Text:
        """What the marks shown on these categories' products mean: "VG vegan · N contains
        nuts"; empty when none has a mark."""
        return Text("   ".join(self.legend_entries(categories)))

    def legend_entries(self, categories: Sequence[menu_model.Category]) -> list[str]:
        """The legend's entries, "GL gluten", each once, in the order first seen."""
        seen: dict[str, str] = {}
        for category in categories:
            for product in category.products:
                for code, words in self.marks(product):
                    if words:
                        seen.setdefault(code, words)
        return [f"{code} {words}" for code, words in seen.items()]

    def key_at(self, index: int) -> Hashable | None:
        row = self.rows[index]
        if isinstance(row, Header | NameMore):
            return None
        header = self.header_of(index)
        return None if header is None else (header.category_id, row.id)

    def index_of(self, key: Hashable) -> int | None:
        if not isinstance(key, tuple) or len(key) != 2:
            return None
        category_id, product_id = key
        rows = self.rows
        for at, start in enumerate(self._headers):
            header = rows[start]
            if isinstance(header, Header) and header.category_id == category_id:
                # To the next header: wrapped names add rows to a category's count.
                end = self._headers[at + 1] if at + 1 < len(self._headers) else len(rows)
                for i in range(start + 1, end):
                    row = rows[i]
                    if not isinstance(row, Header | NameMore) and row.id == product_id:
                        return i
                return None
        return None

    def _row_parts(
        self, row: MenuProduct, index: int
    ) -> tuple[str, str, Any, str | None, str, str]:
        """What a product row shows, for `text_at` and `strip_at` alike: (name, its style, the
        match's span in it or None, the marks or None, the right-hand words, their style)."""
        found = self.entry_at(index)
        parts = self._line_parts(row, found[0] if found else None)
        cut = self._first.get(index)
        if cut is None:
            return parts
        # Its name wraps: the first part here, the rest on the NameMore row under it.
        name, name_style, span, marks, right, right_style = parts
        if span is not None and span[1] > cut:
            span = None
        return name[:cut], name_style, span, marks, right, right_style

    def _line_parts(
        self, row: MenuProduct, group: menu_model.Category | None
    ) -> tuple[str, str, Any, str | None, str, str]:
        """`_row_parts` for a product in `group`, its whole name."""
        state = group.state(row)[0] if group else menu_model.AVAILABLE
        large = large_text(self.app)  # large text: the name in bold
        name = product_name(row)
        name_style = ("bold" if large else "") if state == menu_model.AVAILABLE else "dim"
        span = _match_span(name, self.needle) if self.needle else None
        # Every mark, in large text too: an allergen mark is never the part that is left out.
        codes = self.marks(row)
        # Compact marks, explained by the legend under the list (#mark-legend).
        marks = " ".join(clean(code, 16) for code, _words in codes) if codes else None
        if state == menu_model.SOLD_OUT:
            return name, name_style, span, marks, _("Sold out"), tone(self.app, "error")
        price = _shown(row.price_text(shop_currency(self.app), money_locale()), 20)
        if state == menu_model.NOT_NOW:
            words = _("Not available now {price}").format(price=price)
            return name, name_style, span, marks, words, tone(self.app, "warn")
        return name, name_style, span, marks, price, "bold"

    def text_at(self, index: int, width: int, cursor: bool) -> Text:
        row = self.rows[index]
        if isinstance(row, NameMore):
            return self._more_text(row, index)
        if isinstance(row, Header):
            header = Text(f" {row.name} ", style="bold reverse")
            if row.count == 0:
                header.append("  " + _("Nothing here right now."), style="dim")
            return header
        name, name_style, span, marks, right, right_style = self._row_parts(row, index)
        right_text = Text(right, style=right_style) + Text(" ")
        if marks is not None:
            # A name too long for the row is cut before the marks are: the allergens stay in
            # view ("Dan Dan Noodles with Sich… SE HOT"), the whole name is read under the list.
            room = width - right_text.cell_len - 1 - 2 - (1 + cell_len(marks))
            if cell_len(name) > room:
                name = name[: max(room - 1, 4)] + "…"
                if span is not None and span[1] > len(name) - 1:
                    span = None
        left = Text("  ")
        left.append(name, style=name_style)
        if span is not None:
            # Underlined, not coloured: it reads the same in every theme and without colour.
            left.stylize("underline", 2 + span[0], 2 + span[1])
        if marks is not None:
            left.append(" " + marks, style=tone(self.app, "tag"))
        return two_columns(left, right_text, width)

    def _more_text(self, more: NameMore, index: int) -> Text:
        """A wrapped name's second line, under its first, in the name's style."""
        header = self.header_of(index)
        group = self.categories.get(header.category_id) if header else None
        _name, name_style, span, *_rest = self._line_parts(more.product, group)
        line = Text("  ")
        line.append(more.text, style=name_style)
        if span is not None:
            start = max(span[0] - more.start, 0)
            end = min(span[1] - more.start, len(more.text))
            if end > start:
                line.stylize("underline", 2 + start, 2 + end)
        return line

    def strip_at(
        self, index: int, width: int, cursor: bool, style: Style, over: Style | None
    ) -> Strip | None:
        """A product row as segments, without building a Text: the Text path's rows were half of
        a type-ahead key's drawing. The same cells and styles as `text_at` drawn by RowList; a
        row that must be cut short (a long name, a narrow list) is left to the Text path."""
        row = self.rows[index]
        if isinstance(row, Header | NameMore):
            return None
        name, name_style, span, marks, right, right_style = self._row_parts(row, index)
        right += " "
        room = width - cell_len(right) - 1
        used = 2 + cell_len(name) + (1 + cell_len(marks) if marks is not None else 0)
        if room < 1 or used > room:
            return None
        get_style = self.app.console.get_style

        def styled(*parts: str) -> Style:
            # As Rich combines a Text's spans: the line's style, then each part's, the cursor's
            # last.
            out = style
            for part in parts:
                if part:
                    out += get_style(part)
            return out if over is None else out + over

        texts: list[str] = []
        styles: list[Style] = []

        def add(text: str, style: Style) -> None:
            # Joined to the one before when they look the same, as Rich's render joins them: one
            # style sequence to the terminal, not two.
            if not text:
                return
            if styles and styles[-1] == style:
                texts[-1] += text
            else:
                texts.append(text)
                styles.append(style)

        plain = styled()
        named = styled(name_style)
        add("  ", plain)
        if span is None:
            add(name, named)
        else:
            start, end = span
            add(name[:start], named)
            add(name[start:end], styled(name_style, "underline"))
            add(name[end:], named)
        if marks is not None:
            add(" " + marks, styled(tone(self.app, "tag")))
        # The padding to the right-hand column and the space before it.
        add(" " * (room - used + 1), plain)
        add(right, styled(right_style))
        return Strip(map(Segment, texts, styles), width)


class CategoryList(TextRowList):
    pass


class MarkLegend(Static):
    """The legend under the list, packed a whole entry at a time: a mark is never parted from
    its words ("GL" / "gluten" at a line's end, with the 14 allergens marked)."""

    entries: list[str] = []

    def show(self, entries: list[str], style: str) -> None:
        self.entries, self._style = entries, style
        self.display = bool(entries)
        self._pack()

    def on_resize(self) -> None:
        self._pack()

    def _pack(self) -> None:
        width = max(self.content_size.width, 20) if self.content_size.width else 76
        lines: list[str] = []
        for entry in self.entries:
            if lines and cell_len(lines[-1]) + 3 + cell_len(entry) <= width:
                lines[-1] += "   " + entry
            else:
                lines.append(entry)
        self.update(Text("\n".join(lines), style=getattr(self, "_style", "")))
        # Its height is its lines, set with them: left to `auto`, a legend packed again for a
        # wider list (a terminal grown, a slow first layout) could keep the height of the
        # narrower packing, a blank row where the list had one more product.
        self.styles.height = max(len(lines), 1)


class DietBar(Static):
    """The diet filter's line: which filter is on (in words), the key that changes it; a click
    changes it too. Hidden on a menu whose data marks no diet nor allergen."""

    def show(self, chosen: diet.DietFilter | None, offered: tuple[diet.DietFilter, ...]) -> None:
        self.display = bool(offered)
        if chosen is None:
            text = Text(_("F6 diet: all") + " ", style="dim")
        else:
            # In words, reversed: the filter is on (not colour alone).
            text = Text(_("F6 diet:") + " ", style="dim")
            text.append(
                " " + _("{diet} only").format(diet=chosen.label) + " ", style="bold reverse"
            )
            text.append(" ")
        self.update(text)

    def on_click(self, event: events.Click) -> None:
        event.stop()
        screen = self.screen
        if isinstance(screen, MenuScreen):
            screen.action_diet_filter()


class MenuScreen(KioskScreen):
    TITLE = N_("Menu")
    # Letters go to the search, so retrying is F5 here.
    TYPE_AHEAD = True
    BINDINGS = [
        # Shown once the order has lines (check_action): then the menu's main action.
        Binding("f2", "checkout", N_("Checkout")),
        Binding("f4", "view_cart", N_("Your order")),
        # Also said on the search line ("F6 diet: ..."): in the footer when it has room.
        Binding("f6", "diet_filter", N_("Diet filter")),
        Binding("escape", "back", N_("Back")),
        Binding("left", "focus_categories", show=False),
        Binding("right", "focus_products", show=False),
    ]

    def __init__(self) -> None:
        super().__init__()
        self.categories: list[menu_model.Category] = []
        self._told_later = False  # "closed now: your order is for …", said once
        self.query_text = ""
        self.loaded_for: tuple[str, str] | None = None
        # The diet filter lives with this screen, and a new visit gets a new menu screen: it is
        # cleared at the end of each visit without anyone having to remember it.
        self.diet_filter: diet.DietFilter | None = None
        self.diet_filters: tuple[diet.DietFilter, ...] = ()
        self.shown: list[menu_model.Category] = []
        # The search a key at a time: a query that goes on from the last looks among its matches.
        self._search = menu_model.Search()

    def compose_body(self) -> ComposeResult:
        with Horizontal(id="menu-body"):
            yield CategoryList(id="categories")
            with Vertical(id="products-column"):
                with Horizontal(id="search-row"):
                    yield Static(id="search")
                    yield DietBar(id="diet-filter")
                yield ProductList(id="products")
                yield FullName(id="product-full-name")
                yield MarkLegend(id="mark-legend")
            # Wide: the order beside the menu with its checkout under it; narrow (and large
            # text): the one-line order bar with its own.
            with Vertical(id="order-column"):
                yield CartPanel(id="cart-panel")
                yield Button("", id="order-checkout", variant="success", classes="main-action")
        with Horizontal(id="order-bar"):
            yield CartBar(id="cart-bar")
            yield Button("", id="bar-checkout", variant="success", compact=True)

    def on_mount(self) -> None:
        self._show_search()
        self.watch(self.app, "cart", self._cart_changed)
        self.load()
        message = self.kiosk.visit.state.session_message
        if message:
            # What the server said about this order, e.g. "closed now; scheduled for 08:00".
            self.say(message, kind="info")

    def on_unmount(self) -> None:
        gc.unfreeze()  # see _loaded

    def apply_density(self, compact: bool | None = None) -> None:
        super().apply_density(compact)
        # The order bar is one line at every size (large text shows it at 120x40 too).
        self.query_one("#bar-checkout", Button).compact = True

    def _cart_changed(self, cart: Cart | None) -> None:
        has_lines = cart is not None and bool(cart.items)
        label = (
            _("Checkout · {total}").format(total=total_rows(cart)[-1][1])
            if cart is not None and has_lines
            else ""
        )
        for button in self.query("#order-checkout, #bar-checkout").results(Button):
            button.label = label
            button.display = has_lines
        self.refresh_bindings()  # F2 comes and goes with the order's lines

    def main_key(self) -> tuple[str, str] | None:
        cart = self.kiosk.cart
        if cart is not None and cart.items:
            return ("f2", _("Checkout"))
        return ("enter", _("Choose"))

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "checkout":
            cart = self.kiosk.cart
            return cart is not None and bool(cart.items)
        return True

    def action_checkout(self) -> None:
        """From the menu straight to checkout; the order screen lies under it, so that Esc
        there goes back to the order (its tip, time and code) as it says."""
        cart = self.kiosk.cart
        if cart is None or not cart.items:
            return
        self.clear_search()
        self.kiosk.navigate(Wants(Step.CHECKOUT))

    def on_button_pressed(self, event: Button.Pressed) -> None:
        if event.button.id in ("order-checkout", "bar-checkout"):
            event.stop()
            self.action_checkout()

    def on_screen_resume(self) -> None:
        # The order time may have changed on the cart screen: the menu depends on it.
        if self.loaded_for is not None and self.loaded_for != self._order_time():
            self.load()

    def _order_time(self) -> tuple[str, str]:
        return self.kiosk.visit.menu_slot()

    def _now(self) -> datetime | None:
        """The moment the menu is for: the order's later slot, else now, in the location's zone."""
        return self.kiosk.visit.clock.menu_moment(*self._order_time())

    def load(self) -> None:
        kiosk = self.kiosk

        async def fetch() -> MenusResponse:
            return await kiosk.visit.menus()

        self.call(
            fetch,
            group="menu",
            done=self._loaded,
            busy=self.query_one("#menu-body"),
            exclusive=True,
            clear_banner=False,
            read=True,
        )

    def _loaded(self, menus: MenusResponse) -> None:
        self.loaded_for = self._order_time()
        self.categories = menu_model.build(menus, self._now())
        self.diet_filters = diet.available(p for c in self.categories for p in c.products)
        if self.diet_filter not in self.diet_filters:
            self.diet_filter = None
        cats = self.query_one("#categories", CategoryList)
        products = self.query_one("#products", ProductList)
        # Each list follows the other in the same frame, and without announcing it, so the two
        # never chase each other.
        cats.follow = self._category_moved
        products.follow = self._product_moved
        self._apply_diet()
        products.focus()
        # The menu (5,000 products: ~200k objects) is read-only while the customer types: out of
        # the collector's sight, a full collection no longer stalls a key by 50-130 ms. Unfrozen
        # when this screen goes, so cycles made meanwhile are collected after all.
        gc.freeze()
        if not self.categories:
            self.say(_("The menu is empty right now."), hint=_("Please ask a member of staff."))
        visit = self.kiosk.visit
        if visit.asap_refused is not None and visit.scheduled_first and not self._told_later:
            # Closed now: the order was set to the first later slot, whose menu this is.
            self._told_later = True
            day, at = visit.scheduled_first
            self.say(
                _("We're closed now: you can order for later and choose the time.")
                + " "
                + _("Your order is for {when}.").format(when=slot_words(day, at)),
                kind="info",
            )

    # Search ---------------------------------------------------------------------------------------
    def _show_search(self) -> None:
        search = self.query_one("#search", Static)
        if self.query_text:
            text = Text(" " + _("Search:") + " ", style="bold")
            text.append(self.query_text)
            text.append("▏", style="blink")
            text.append("   " + _("Esc clears"), style="dim")
        else:
            text = Text(" " + _("Type to search the menu"), style="dim")
        search.update(text, layout=False)  # one line, always: no layout pass for a keystroke

    # Diet filter ----------------------------------------------------------------------------------
    def action_diet_filter(self) -> None:
        """One press, one step: off -> each filter this menu's data can answer -> off."""
        if not self.diet_filters:
            self.say(_("This menu does not mark diets or allergens."), hint=_("Please ask staff."))
            return
        self.diet_filter = diet.next_filter(self.diet_filter, self.diet_filters)
        self._apply_diet()
        if self.diet_filter is not None and self.diet_filter.avoids:
            # The data can only say what is marked: an allergy needs a person's word.
            self.say(
                _("Showing dishes without a nut mark."),
                kind="info",
                hint=_("With an allergy, please ask staff."),
            )

    def _apply_diet(self) -> None:
        chosen = self.diet_filter
        if chosen is None:
            self.shown = self.categories
        else:
            self.shown = menu_model.keep_only(self.categories, lambda p: diet.keeps(chosen, p))
        # The product rows find their category (state, key) by the header above them.
        self.query_one("#products", ProductList).categories = {c.id: c for c in self.shown}
        cats = self.query_one("#categories", CategoryList)
        cats.set_rows(
            [
                TextRow(c.id, Text(" " + c.name), Text(f"{len(c.products)} ", style="dim"))
                if chosen is not None
                else TextRow(c.id, Text(" " + c.name))
                for c in self.shown
            ]
        )
        self.query_one("#diet-filter", DietBar).show(chosen, self.diet_filters)
        entries = self.query_one("#products", ProductList).legend_entries(self.shown)
        # Large text too: a mark is read with what it means.
        self.query_one("#mark-legend", MarkLegend).show(entries, tone(self.app, "tag"))
        self._refilter()

    def _refilter(self) -> None:
        products = self.query_one("#products", ProductList)
        products.needle = menu_model.fold(self.query_text)
        products.empty_text = (
            Text(
                " "
                + _("Nothing on the menu matches “{text}”.").format(text=clean(self.query_text, 40))
            )
            if self.query_text
            else None
        )
        products.set_rows(self._search.rows(self.shown, self.query_text))
        self._show_search()

    def on_key(self, event: events.Key) -> None:
        if event.key == "backspace" and self.query_text:
            event.stop()
            self.query_text = self.query_text[:-1]
            self._refilter()
            return
        char = event.character
        if (
            event.is_printable
            and char
            and ((char.isprintable() and not char.isspace()) or (char == " " and self.query_text))
        ):
            event.stop()
            self.query_text = (self.query_text + char)[:40]
            self._refilter()
            products = self.query_one("#products", ProductList)
            if not products.has_focus:
                # Only when elsewhere: focus() repaints the whole list even when it has focus.
                products.focus()

    def clear_search(self) -> None:
        if self.query_text:
            self.query_text = ""
            self._refilter()

    def action_back(self) -> None:
        """Escape: first clears the search, else back one step to the ways to order, the cart
        kept (starting over is F9's, which asks first)."""
        if self.query_text:
            self.clear_search()
            return
        self.kiosk.navigate(Wants(Step.WELCOME))

    # Navigation -----------------------------------------------------------------------------------
    def action_focus_categories(self) -> None:
        categories = self.query_one("#categories", CategoryList)
        # Large text hides the sidebar (styles/large.tcss): focus stays where the customer sees it.
        if categories.display:
            categories.focus()

    def action_focus_products(self) -> None:
        self.query_one("#products", ProductList).focus()

    def action_view_cart(self) -> None:
        # A search does not outlive the customer leaving the menu.
        self.clear_search()
        self.kiosk.navigate(Wants(Step.ORDER))

    def _category_moved(self, _list: RowList, _index: int, key: Hashable) -> None:
        products = self.query_one("#products", ProductList)
        for index in products._headers:
            row = products.rows[index]
            if isinstance(row, Header) and row.category_id == key:
                if row.count == 0:
                    # Its header in view, saying it is empty; the cursor stays off the next
                    # category's products (they are not this one's).
                    products.scroll_to(y=index, animate=False, immediate=True)
                else:
                    products.move_to_index(index, top=True, announce=False)
                break

    def _empty_category(self, key: Hashable) -> menu_model.Category | None:
        return next((c for c in self.shown if c.id == key and not c.products), None)

    def _product_moved(self, products: RowList, index: int, key: Hashable) -> None:
        # Within the same category the sidebar is already there and repaints nothing.
        if isinstance(key, tuple):
            self.query_one("#categories", CategoryList).move_to_key(key[0], announce=False)
        row = products.rows[index] if 0 <= index < len(products.rows) else None
        name = product_name(row) if row is not None and not isinstance(row, Header) else ""
        self.show_whole_name("product-full-name", products, name)

    def on_row_list_highlighted(self, event: RowList.Highlighted) -> None:
        event.stop()  # followed already (`follow`), in the frame of the move

    def on_row_list_selected(self, event: RowList.Selected) -> None:
        event.stop()
        if isinstance(event.rowlist, CategoryList):
            empty = self._empty_category(event.rowlist.cursor_key)
            if empty is not None:
                self.say(
                    _("{name} has nothing to order right now.").format(name=empty.name),
                    kind="info",
                )
                return
            self.action_focus_products()
            return
        if isinstance(event.rowlist, ProductList):
            found = event.rowlist.entry_at(event.index)
            if found is not None:
                self.open_product(*found)

    def open_product(self, category: menu_model.Category, product: MenuProduct) -> None:
        state, when = category.state(product)
        name = product_name(product)
        if state == menu_model.SOLD_OUT:
            self.say(
                _("Sorry, {name} is sold out.").format(name=name),
                hint=_("Please choose something else."),
            )
            return
        if state == menu_model.NOT_NOW:
            served = " " + _("It is served {when}.").format(when=when) if when else ""
            self.say(
                _("{name} is not available right now.").format(name=name) + served, kind="info"
            )
            return
        from kiosk.tui.screens.product import ProductScreen

        def closed(message: str | None) -> None:
            if message:
                self.say(message, kind="ok", hint=_("F4 shows your order."))

        self.clear_search()
        screen = ProductScreen(product.id, name, product)
        screen.diet_filter = self.diet_filter
        self.app.push_screen(screen, closed)
