"""Widgets that show the cart. Each watches `app.cart` and redraws as one widget; none keeps a
copy."""

from __future__ import annotations

from typing import TYPE_CHECKING

from rich.console import Group, RenderableType
from rich.rule import Rule
from rich.table import Table
from rich.text import Text
from textual import events
from textual.widgets import Static

from kiosk.i18n import _, ngettext
from kiosk.tui.a11y import large_text
from kiosk.tui.cartview import choice_lines, line_amount, total_rows
from kiosk.tui.contract import kiosk_of
from kiosk.tui.palette import tone
from kiosk.tui.text import clean

if TYPE_CHECKING:
    from kiosk.api.models import Cart


class CartWatcher(Static):
    """Base: calls `show_cart` with every new cart the app publishes."""

    def on_mount(self) -> None:
        self.watch(self.app, "cart", self._cart_changed)

    def _cart_changed(self, cart: Cart | None) -> None:
        self.update(self.render_cart(cart))

    def render_cart(self, cart: Cart | None) -> RenderableType:
        raise NotImplementedError

    async def on_click(self, event: events.Click) -> None:
        # A touch on the order opens it, as F4 does (counter terminals are often touchscreens).
        event.stop()
        if hasattr(self.screen, "action_view_cart"):
            await self.screen.run_action("view_cart")


class CartBar(CartWatcher):
    """One line, always visible: how many items and the total, and the key that opens the cart."""

    def render_cart(self, cart: Cart | None) -> Text:
        text = Text()
        count = cart.item_count if cart is not None else 0
        text.append(" " + _("Your order:") + " ", style="bold")
        if count == 0 or cart is None:
            text.append(_("empty"))
        else:
            text.append(ngettext("{count} item", "{count} items", count).format(count=count))
            text.append("  ·  ")
            text.append(total_rows(cart)[-1][1], style="bold")
        return text


class CartPanel(CartWatcher):
    """The cart beside the menu on wide screens: lines with their choices, then every total row
    the server sent (subtotal, discount, tax, fees, tip, total), so that they add up."""

    # Choices shown under a line; past this many, one line fewer and "+N more".
    CHOICES = 6

    def render_cart(self, cart: Cart | None) -> Text | Table:
        if cart is None or not cart.items:
            # Wrapped, not cut: the panel is narrower than the sentence.
            text = Text(_("Your order"), style="bold")
            text.append("\n" + _("Nothing yet. Choose something from the menu."))
            return text
        table = Table.grid(expand=True, padding=(0, 1))
        table.add_column(ratio=1, overflow="ellipsis", no_wrap=True)
        table.add_column(justify="right", no_wrap=True)
        table.add_row(Text(_("Your order"), style="bold"), Text(""))
        names = kiosk_of(self.app).visit.option_names
        for item in cart.items:
            table.add_row(
                Text(f"{item.quantity} × {clean(item.name, 80)}"),
                Text(line_amount(item, cart.currency)),
            )
            choices = choice_lines(item, names)
            shown = choices if len(choices) <= self.CHOICES else choices[: self.CHOICES - 1]
            for line in shown:
                table.add_row(Text("   " + line, style="dim"), "")
            if len(shown) < len(choices):
                more = len(choices) - len(shown)
                table.add_row(
                    Text("   " + ngettext("+{n} more", "+{n} more", more).format(n=more)), ""
                )
        table.add_row("", "")
        for label, amount, kind in total_rows(cart):
            style = "bold" if kind == "total" else ""
            table.add_row(Text(label, style=style), Text(clean(amount, 30), style=style))
        return table


class TotalsPanel(CartWatcher):
    """Every total that applies, from the server's formatted strings."""

    def render_cart(self, cart: Cart | None) -> RenderableType:
        def grid() -> Table:
            table = Table.grid(expand=True, padding=(0, 1))
            table.add_column(ratio=1, no_wrap=True, overflow="ellipsis")
            table.add_column(justify="right", no_wrap=True)
            return table

        table = grid()
        if cart is None:
            return table
        # Large text: the total set apart under a rule, as on a receipt (the panel is bold there,
        # so weight alone no longer tells it from the rows above).
        apart = large_text(self.app)
        parts: list[RenderableType] = [table]
        for label, amount, kind in total_rows(cart):
            style = (
                "bold" if kind == "total" else (tone(self.app, "ok") if kind == "discount" else "")
            )
            if kind == "total" and apart:
                table = grid()
                parts += [Rule(style="none"), table]
            table.add_row(Text(label, style=style), Text(clean(amount, 30), style=style))
        return parts[0] if len(parts) == 1 else Group(*parts)
