"""3. Menu: categories beside products, prices, tags, sold-out and not-available-now, popular
products,
type-ahead search, and the cart summary always in view."""

from __future__ import annotations

from collections.abc import Hashable
from datetime import datetime
from typing import TYPE_CHECKING

from rich.text import Text
from textual import events
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.widgets import Static

from kiosk.tui import menu_model
from kiosk.tui.a11y import large_text
from kiosk.tui.menu_model import Entry, Header
from kiosk.tui.screens.base import KioskScreen
from kiosk.tui.text import clean
from kiosk.tui.widgets.cart_summary import CartBar, CartPanel
from kiosk.tui.widgets.lists import TextRow, TextRowList, two_columns
from kiosk.tui.widgets.rowlist import RowList

if TYPE_CHECKING:
    from kiosk.api import MenusResponse


class ProductList(RowList[menu_model.Row]):
    """Every product of the menu in one line-API list: headers are skipped by the cursor."""

    def row_key(self, row: menu_model.Row) -> Hashable | None:
        return row.key if isinstance(row, Entry) else None

    def row_text(self, row: menu_model.Row, width: int, cursor: bool) -> Text:
        if isinstance(row, Header):
            text = Text(f" {row.name} ", style="bold reverse")
            return text
        left = Text("  ")
        large = large_text(self.app)  # large text: the name in bold, no secondary tags
        left.append(
            row.name,
            style=("bold" if large else "") if row.state == menu_model.AVAILABLE else "dim",
        )
        for tag in () if large else row.product.tags[:3]:
            left.append(" ")
            left.append(f"[{clean(tag, 20)}]", style="italic cyan")
        if row.state == menu_model.SOLD_OUT:
            right = Text("Sold out", style="bold red")
        elif row.state == menu_model.NOT_NOW:
            right = Text(f"Not available now {row.product.price_text()}", style="yellow")
        else:
            right = Text(clean(row.product.price_text(), 20), style="bold")
        return two_columns(left, right + Text(" "), width)


class CategoryList(TextRowList):
    pass


class MenuScreen(KioskScreen):
    TITLE = "Menu"
    # Letters go to the search, so retrying is F5 here.
    TYPE_AHEAD = True
    BINDINGS = [
        Binding("f4", "view_cart", "Your order"),
        Binding("escape", "back", "Back / clear search"),
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
        self._refilter()
        products = self.query_one("#products", ProductList)
        products.focus()
        if not self.categories:
            self.say("The menu is empty right now.", hint="Please ask a member of staff.")

    # Search ---------------------------------------------------------------------------------------
    def _show_search(self) -> None:
        search = self.query_one("#search", Static)
        if self.query_text:
            text = Text(" Search: ", style="bold")
            text.append(self.query_text)
            text.append("▏", style="blink")
            text.append("   Esc clears", style="dim")
        else:
            text = Text(" Type to search the menu", style="dim")
        search.update(text)

    def _refilter(self) -> None:
        products = self.query_one("#products", ProductList)
        products.set_rows(menu_model.rows(self.categories, self.query_text))
        self._show_search()
        if self.query_text and not products.rows:
            self.say(f"Nothing on the menu matches “{clean(self.query_text, 40)}”.", kind="info")
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

    def action_back(self) -> None:
        if self.query_text:
            self.query_text = ""
            self._refilter()
            return
        self.kiosk.action_start_over()

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

        self.app.push_screen(CartScreen())

    def on_row_list_highlighted(self, event: RowList.Highlighted) -> None:
        event.stop()
        # Each list follows the other without announcing it, so the two never chase each other.
        if isinstance(event.rowlist, CategoryList):
            products = self.query_one("#products", ProductList)
            for index, row in enumerate(products.rows):
                if isinstance(row, Header) and row.category_id == event.key:
                    products.move_to_index(index, top=True, announce=False)
                    break
        elif isinstance(event.rowlist, ProductList) and isinstance(event.key, tuple):
            self.query_one("#categories", CategoryList).move_to_key(event.key[0], announce=False)

    def on_row_list_selected(self, event: RowList.Selected) -> None:
        event.stop()
        if isinstance(event.rowlist, CategoryList):
            self.action_focus_products()
            return
        row = event.rowlist.cursor_row
        if isinstance(row, Entry):
            self.open_product(row)

    def open_product(self, entry: Entry) -> None:
        if entry.state == menu_model.SOLD_OUT:
            self.say(f"Sorry, {entry.name} is sold out.", hint="Please choose something else.")
            return
        if entry.state == menu_model.NOT_NOW:
            when = f" It is served {entry.when}." if entry.when else ""
            self.say(f"{entry.name} is not available right now.{when}", kind="info")
            return
        from kiosk.tui.screens.product import ProductScreen

        def closed(message: str | None) -> None:
            if message:
                self.say(message, kind="ok", hint="F4 shows your order.")

        self.app.push_screen(ProductScreen(entry.product.id, entry.name, entry.product), closed)
