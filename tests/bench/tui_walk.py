"""The standard order walked through the real TUI with Pilot, keys first, as a customer would.

Used by benchmark 1 (requests the TUI makes per order), the hostile-data test and the security test.
Each step waits for the kiosk's workers, then hands the screen to `on_screen` (the tests assert on
what is drawn there). The standard order (issue 6): 4 lines (one with modifiers), one quantity
change, a tip, a later order time, a discount, customer details, validate, pay.

The cart lines are chosen by product id, the modifier options by their keys and the cursor is moved
there with arrow keys, so the walk works with any product names (the hostile menu's too).
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Hashable
from dataclasses import dataclass, field
from typing import Any

from textual.pilot import Pilot
from textual.screen import Screen
from textual.widgets import Input, Select

from kiosk.tui.app import KioskApp
from kiosk.tui.widgets.rowlist import RowList
from tests.support.pilot import quick_pilot

__all__ = ["INTENDED", "LATTE", "Plan", "Walk", "quick_pilot"]

Choice = tuple[str, str, str]  # (group id, option id, the key that chooses it)


@dataclass(frozen=True)
class Plan:
    """The standard order on one menu: the lines (product id, its choices), the line whose
    quantity goes up by one "+", the tip preset's button id and the discount code."""

    lines: tuple[tuple[str, tuple[Choice, ...]], ...]
    quantity_change: tuple[str, int]  # (product id, the quantity after one "+")
    tip: str
    discount: str

    @property
    def intended(self) -> list[tuple[str, int]]:
        """The final cart (product id, quantity), in the order the lines were added."""
        changed, quantity = self.quantity_change
        return [(p, quantity if p == changed else 1) for p, _ in self.lines]


# The standard order on the demo's menu.
LATTE = "prd_latte"
LATTE_CHOICES = (
    ("grp_drink_size", "opt_size_large", "space"),
    ("grp_milk", "opt_milk_oat", "space"),
    ("grp_extra_shots", "opt_shot_extra", "plus"),
)
DEMO_PLAN = Plan(
    lines=(
        (LATTE, LATTE_CHOICES),
        ("prd_cookie", ()),
        ("prd_orange_juice", ()),
        ("prd_hummus", ()),
    ),
    quantity_change=("prd_cookie", 2),
    tip="tip-18",
    discount="SAVE10",
)
NAME, EMAIL = "Ada Lovelace", "ada@example.com"
INTENDED = DEMO_PLAN.intended

OnScreen = Callable[[str, Screen[Any]], Awaitable[None] | None]


class WalkError(AssertionError):
    """The walk could not go on: the screen it expected did not come."""


@dataclass
class Walk:
    app: KioskApp
    pilot: Pilot[Any]
    on_screen: OnScreen | None = None
    # Settles wait for the workers; a step that waits for a screen gives up after this long.
    timeout: float = 20.0
    steps: list[str] = field(default_factory=list)
    plan: Plan = DEMO_PLAN

    # Waiting -------------------------------------------------------------------------------------
    async def settle(self) -> None:
        """Until no worker is running (except the payment wait, which runs until paid)."""
        app = self.app
        loop = asyncio.get_running_loop()
        ends = loop.time() + self.timeout
        while True:
            await self.pilot.pause()
            busy = [
                w
                for w in app.workers
                if not w.is_finished and w.group not in ("payment-wait", "handoff-watch", "reset")
            ]
            if not busy:
                break
            if loop.time() > ends:
                raise WalkError(f"workers still running: {[w.group for w in busy]}")
            await asyncio.sleep(0.01)
        await self.pilot.pause()

    async def until(self, what: str, test: Callable[[], bool]) -> None:
        loop = asyncio.get_running_loop()
        ends = loop.time() + self.timeout
        while not test():
            if loop.time() > ends:
                screen = type(self.app.screen).__name__
                raise WalkError(f"waited {self.timeout} s for {what}; on {screen}")
            await self.pilot.pause(0.02)
        await self.settle()

    async def at(self, name: str, step: str) -> Screen[Any]:
        await self.until(name, lambda: type(self.app.screen).__name__ == name)
        screen = self.app.screen
        await self.show(step, screen)
        return screen

    async def show(self, step: str, screen: Screen[Any]) -> None:
        """Hand the screen to `on_screen` (the tests look at what is drawn)."""
        self.steps.append(step)
        if self.on_screen is not None:
            result = self.on_screen(step, screen)
            if result is not None:
                await result

    # Keys ----------------------------------------------------------------------------------------
    async def cursor_to(self, rowlist: RowList[Any], test: Callable[[Hashable], bool]) -> None:
        """Move `rowlist`'s cursor with Up/Down to the first row whose key passes `test`."""
        rowlist.focus()
        await self.pilot.pause()
        keys = [rowlist.key_at(i) for i in range(len(rowlist.rows))]
        target = next((i for i, k in enumerate(keys) if k is not None and test(k)), None)
        if target is None:
            raise WalkError(f"no row in #{rowlist.id} passes the test")
        selectable = [i for i, k in enumerate(keys) if k is not None]
        here = selectable.index(rowlist.cursor) if rowlist.cursor in selectable else 0
        steps = selectable.index(target) - here
        await self.pilot.press(*(["down"] * steps if steps > 0 else ["up"] * -steps))
        if rowlist.cursor != target:
            raise WalkError(f"cursor on {rowlist.cursor}, wanted {target}")

    async def press_on(self, selector: str, key: str = "enter") -> None:
        self.app.screen.query_one(selector).focus()
        await self.pilot.press(key)

    async def type_into(self, selector: str, text: str, then: str | None = "enter") -> None:
        """Type `text` into an input. The text goes in whole (as a paste would: the Input gets the
        same Changed message); a key press each costs Pilot about 60 ms."""
        field = self.app.screen.query_one(selector, Input)
        field.focus()
        field.value = ""
        field.insert_text_at_cursor(text)
        await self.pilot.pause()
        if then:
            await self.pilot.press(then)

    # The order -----------------------------------------------------------------------------------
    async def open_product(self, product_id: str) -> Screen[Any]:
        menu = await self.at("MenuScreen", "menu")
        products = menu.query_one("#products", RowList)

        def wanted(key: Hashable) -> bool:
            return isinstance(key, tuple) and key[1] == product_id and key[0] != "__popular__"

        # Like a customer: the category first (a short list), then the product within it.
        keys = (products.key_at(i) for i in range(len(products.rows)))
        category = next(k[0] for k in keys if isinstance(k, tuple) and wanted(k))
        await self.cursor_to(menu.query_one("#categories", RowList), lambda k: k == category)
        await self.pilot.press("enter")
        await self.cursor_to(products, wanted)
        await self.pilot.press("enter")
        return await self.at("ProductScreen", f"product {product_id}")

    async def add_line(self, product_id: str) -> None:
        product = await self.open_product(product_id)
        choices = dict(self.plan.lines).get(product_id, ())
        if choices:
            modifiers = product.query_one("#modifiers", RowList)
            for group, option, key in choices:
                await self.cursor_to(
                    modifiers, lambda k, g=group, o=option: tuple(k)[-2:] == (g, o)
                )
                await self.pilot.press(key)
            await self.settle()
            await self.show("modifiers chosen", product)
        await self.pilot.press("f2")
        await self.until(
            "back on the menu", lambda: type(self.app.screen).__name__ != "ProductScreen"
        )
        if type(self.app.screen).__name__ == "SuggestionDialog":
            # The one suggestion after an add (issue 13): no thanks, one key.
            await self.pilot.press("n")
            await self.until(
                "the suggestion declined",
                lambda: type(self.app.screen).__name__ != "SuggestionDialog",
            )

    async def start(self, method_key: str = "1") -> None:
        await self.at("WelcomeScreen", "welcome")
        await self.pilot.press(method_key)

    async def fill_cart(self) -> None:
        for product_id, _ in self.plan.lines:
            await self.add_line(product_id)
        await self.at("MenuScreen", f"menu with {len(self.plan.lines)} lines")

    async def edit_cart(self) -> Screen[Any]:
        await self.pilot.press("f4")
        cart = await self.at("CartScreen", "cart")
        app = self.app
        # One quantity change: "+" on the cookie line.
        product_id, quantity = self.plan.quantity_change
        items = {i.id: i.product_id for i in app.cart.items} if app.cart else {}
        lines = cart.query_one("#lines", RowList)
        await self.cursor_to(lines, lambda k: items.get(str(k)) == product_id)
        await self.pilot.press("plus")
        await self.until(
            "the quantity change",
            lambda: any(
                i.product_id == product_id and i.quantity == quantity
                for i in (app.cart.items if app.cart else ())
            ),
        )
        # A tip preset.
        await self.press_on(f"#{self.plan.tip}")
        await self.until("the tip", lambda: bool(app.cart and app.cart.waiter_tip_total))
        # A later order time: the first slot offered (keys: open the list, Down, Enter).
        select = cart.query_one("#later", Select)
        select.focus()
        await self.pilot.press("enter", "down", "enter")
        await self.until(
            "the later order time",
            lambda: bool(app.cart and (app.cart.pickup_type or "").upper() == "LATER"),
        )
        # A discount code.
        await self.type_into("#discount", self.plan.discount)
        await self.until("the discount", lambda: bool(app.cart and app.cart.discount_code))
        await self.show("cart edited", cart)
        return cart

    async def checkout(self) -> None:
        await self.pilot.press("f2")
        await self.at("CheckoutScreen", "checkout")
        await self.type_into("#name", NAME, then=None)
        await self.type_into("#email", EMAIL)

    async def pay(self, pay: Callable[[], Awaitable[None]] | None = None) -> Screen[Any]:
        """On the payment screen: `pay()`, else the demo's approve key; then wait for the order
        number. A payment arranged beforehand on virtual time may be over before the payment
        screen is seen: then it is skipped."""

        def screen_is(*names: str) -> bool:
            return type(self.app.screen).__name__ in names

        await self.until("the payment screen", lambda: screen_is("PaymentScreen", "DoneScreen"))
        if screen_is("PaymentScreen"):
            payment = self.app.screen
            await self.show("payment", payment)
            await self.until(
                "the QR code", lambda: bool(payment.query("#qr")) or screen_is("DoneScreen")
            )
            if screen_is("PaymentScreen"):
                await self.show("payment with QR", payment)
            if pay is None:
                await self.pilot.press("a")
        if pay is not None:
            await pay()
        return await self.at("DoneScreen", "done")

    async def finish(self) -> None:
        await self.pilot.press("enter")
        await self.at("WelcomeScreen", "welcome again")

    async def standard_order(self, pay: Callable[[], Awaitable[None]] | None = None) -> None:
        await self.start()
        await self.fill_cart()
        await self.edit_cart()
        await self.checkout()
        await self.pay(pay)
