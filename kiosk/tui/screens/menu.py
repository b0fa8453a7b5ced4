"""3. Menu: categories beside products, prices, tags, sold-out and not-available-now, popular
products,
type-ahead search, and the cart summary always in view."""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Hashable, Iterator, Sequence
from datetime import datetime
from functools import lru_cache
from typing import TYPE_CHECKING

from rich.text import Text
from textual import events
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.widgets import Static

from kiosk.i18n import N_, _, money_locale
from kiosk.tui import menu_model
from kiosk.tui.a11y import large_text
from kiosk.tui.menu_model import Header
from kiosk.tui.screens.base import KioskScreen
from kiosk.tui.text import clean
from kiosk.tui.widgets.cart_summary import CartBar, CartPanel
from kiosk.tui.widgets.chrome import FullName
from kiosk.tui.widgets.lists import TextRow, TextRowList, two_columns
from kiosk.tui.widgets.rowlist import RowList

if TYPE_CHECKING:
    from kiosk.api import MenuProduct, MenusResponse


@lru_cache(maxsize=1024)
def _shown(text: str, limit: int) -> str:
    # The rows on screen are drawn again on every search key: their names are cleaned once.
    return clean(text, limit)


def product_name(product: MenuProduct) -> str:
    return _shown(product.name, 120) or _("(unnamed)")


class ProductList(RowList["menu_model.Row"]):
    """Every product of the menu in one line-API list: headers are skipped by the cursor.

    The rows are the client's product records under their categories' headers (menu_model); a
    product's category, hence its key (category id, product id) and its state, is the header
    above it, found by bisection."""

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self._headers: list[int] = []  # indexes of the header rows, ascending
        self.categories: dict[str, menu_model.Category] = {}

    def set_rows(self, rows: Sequence[menu_model.Row], *, keep_key: Hashable | None = None) -> None:
        if keep_key is None:
            keep_key = self.cursor_key  # read with the old rows' headers
        self._headers = [i for i, row in enumerate(rows) if isinstance(row, Header)]
        super().set_rows(rows, keep_key=keep_key)

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
        if isinstance(row, Header) or header is None:
            return None
        return self.categories[header.category_id], row

    def entries(self) -> Iterator[tuple[menu_model.Category, MenuProduct]]:
        """Every product row, with its category."""
        for index in range(len(self.rows)):
            found = self.entry_at(index)
            if found is not None:
                yield found

    def key_at(self, index: int) -> Hashable | None:
        row = self.rows[index]
        if isinstance(row, Header):
            return None
        header = self.header_of(index)
        return None if header is None else (header.category_id, row.id)

    def index_of(self, key: Hashable) -> int | None:
        if not isinstance(key, tuple) or len(key) != 2:
            return None
        category_id, product_id = key
        rows = self.rows
        for start in self._headers:
            header = rows[start]
            if isinstance(header, Header) and header.category_id == category_id:
                for i in range(start + 1, start + 1 + header.count):
                    row = rows[i]
                    if not isinstance(row, Header) and row.id == product_id:
                        return i
                return None
        return None

    def text_at(self, index: int, width: int, cursor: bool) -> Text:
        row = self.rows[index]
        if isinstance(row, Header):
            return Text(f" {row.name} ", style="bold reverse")
        found = self.entry_at(index)
        state = found[0].state(row)[0] if found else menu_model.AVAILABLE
        left = Text("  ")
        large = large_text(self.app)  # large text: the name in bold, no secondary tags
        left.append(
            product_name(row),
            style=("bold" if large else "") if state == menu_model.AVAILABLE else "dim",
        )
        for tag in () if large else row.tags[:3]:
            left.append(" ")
            left.append(f"[{_shown(tag, 20)}]", style="italic cyan")
        if state == menu_model.SOLD_OUT:
            right = Text(_("Sold out"), style="bold red")
        elif state == menu_model.NOT_NOW:
            price = _shown(row.price_text(locale=money_locale()), 20)
            right = Text(_("Not available now {price}").format(price=price), style="yellow")
        else:
            right = Text(_shown(row.price_text(locale=money_locale()), 20), style="bold")
        return two_columns(left, right + Text(" "), width)


class CategoryList(TextRowList):
    pass


class MenuScreen(KioskScreen):
    TITLE = N_("Menu")
    # Letters go to the search, so retrying is F5 here.
    TYPE_AHEAD = True
    BINDINGS = [
        Binding("f4", "view_cart", N_("Your order")),
        Binding("escape", "back", N_("Back")),
        Binding("left", "focus_categories", show=False),
        Binding("right", "focus_products", show=False),
    ]

    def __init__(self) -> None:
        super().__init__()
        self.categories: list[menu_model.Category] = []
        self.query_text = ""
        self.loaded_for: tuple[str, str] | None = None
        self._no_match_shown = False

    def compose_body(self) -> ComposeResult:
        with Horizontal(id="menu-body"):
            yield CategoryList(id="categories")
            with Vertical(id="products-column"):
                yield Static(id="search")
                yield ProductList(id="products")
                yield FullName(id="product-full-name")
            yield CartPanel(id="cart-panel")
        yield CartBar(id="cart-bar")

    def on_mount(self) -> None:
        self._show_search()
        self.load()
        message = self.kiosk.visit.state.session_message
        if message:
            # What the server said about this order, e.g. "closed now; scheduled for 08:00".
            self.say(message, kind="info")

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
        cats = self.query_one("#categories", CategoryList)
        cats.set_rows([TextRow(c.id, Text(" " + c.name)) for c in self.categories])
        products = self.query_one("#products", ProductList)
        products.categories = {c.id: c for c in self.categories}
        # Each list follows the other in the same frame, and without announcing it, so the two
        # never chase each other.
        cats.follow = self._category_moved
        products.follow = self._product_moved
        self._refilter()
        products.focus()
        if not self.categories:
            self.say(_("The menu is empty right now."), hint=_("Please ask a member of staff."))

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

    def _refilter(self) -> None:
        products = self.query_one("#products", ProductList)
        products.set_rows(menu_model.rows(self.categories, self.query_text))
        self._show_search()
        if self.query_text and not products.rows:
            self.say(
                _("Nothing on the menu matches “{text}”.").format(text=clean(self.query_text, 40)),
                kind="info",
            )
            self._no_match_shown = True
        elif self._no_match_shown:
            self._no_match_shown = False
            self.banner.clear()

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
            self.query_one("#products", ProductList).focus()

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
        self.dismiss(None)

    # Navigation -----------------------------------------------------------------------------------
    def action_focus_categories(self) -> None:
        categories = self.query_one("#categories", CategoryList)
        # Large text hides the sidebar (styles/large.tcss): focus stays where the customer sees it.
        if categories.display:
            categories.focus()

    def action_focus_products(self) -> None:
        self.query_one("#products", ProductList).focus()

    def action_view_cart(self) -> None:
        from kiosk.tui.screens.cart import CartScreen

        # A search does not outlive the customer leaving the menu.
        self.clear_search()
        self.app.push_screen(CartScreen())

    def _category_moved(self, _list: RowList, _index: int, key: Hashable) -> None:
        products = self.query_one("#products", ProductList)
        for index in products._headers:
            row = products.rows[index]
            if isinstance(row, Header) and row.category_id == key:
                products.move_to_index(index, top=True, announce=False)
                break

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
        self.app.push_screen(ProductScreen(product.id, name, product), closed)
