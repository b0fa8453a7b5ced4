"""What the kiosk says, and when (issue 34): the one module that turns screens into words.

The Announcer listens where the app already publishes what changes: a new screen on top
(Textual's screen-change signal), the focus and a list's cursor (RowList and the app's focus
events), the banner and field errors (kiosk.tui.widgets.chrome), and the Visit's published state
(the cart, the waits). What one step of the customer's causes (a key, an answer from the server)
is gathered for a moment (`DEBOUNCE`) and said as ONE utterance: what changed and every message
first, then the screen's title and what to do on it, then the focused row. A speech command that
cancels its last text for the next (spd-say) would otherwise cut each part short by the next.

Words are in the customer's language (kiosk.i18n); names and amounts are the server's, as on
screen. The speaker (kiosk.speech) is written and forgotten: nothing here waits for it, and with
speech off there is no Announcer at all (the app's hooks find None and return).
"""

from __future__ import annotations

import re
import weakref
from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, Any

from rich.text import Text
from textual.widget import Widget

from kiosk.i18n import _, ngettext
from kiosk.tui.text import clean

if TYPE_CHECKING:
    from textual.timer import Timer

    from kiosk.api import Cart
    from kiosk.speech import Speaker

# Seconds one step's parts are gathered before they are said together.
DEBOUNCE = 0.12
# A screen whose data is still loading is said when it comes; after this many steps without it
# (a failed read), its title and the focus are said instead of waiting on.
MAX_WAITS = 3
_DIGITS = re.compile(r"\d+")


# Words ------------------------------------------------------------------------------------------
def plain(widget: Any) -> str:
    """The text a Static (or Label, Button) shows, as plain characters."""
    content: Any = getattr(widget, "content", None)
    if content is None:
        content = getattr(widget, "label", "")
    if isinstance(content, Text):
        return content.plain
    if hasattr(content, "plain"):
        return str(content.plain)
    return str(content or "")


def sentence(text: str) -> str:
    """`text` cleaned, ending as a sentence does (a full stop added where none is)."""
    words = " ".join(clean(text, 600).split())
    if words and words[-1] not in ".?!:…":
        words += "."
    return words


def spell(number: str) -> str:
    """An order number character by character: "A 1 0 1" -> "A, 1, 0, 1"."""
    return ", ".join(c for c in clean(number, 20) if not c.isspace())


def number_words(number: str) -> str:
    """The order number, spelled, twice."""
    spelled = spell(number)
    return _("Your order number is {number}. Again: {number}.").format(number=spelled)


def mark_words(item: Any) -> list[str]:
    """A product's or option's diet and allergen marks in words ("vegan", "contains nuts")."""
    from kiosk.ordering import diet

    marks = diet.marks(item)
    shown = (
        (diet.VEGAN, diet.GLUTEN_FREE)
        if diet.VEGAN in marks.diets
        else (
            diet.VEGETARIAN,
            diet.GLUTEN_FREE,
        )
    )
    out = [_(diet.MARK_WORDS[d]) for d in shown if d in marks.diets]
    out.extend(_(diet.OPTION_WORDS[d]) for d in (diet.VEGAN, diet.VEGETARIAN) if d in marks.choices)
    out.extend(
        _("contains {allergen}").format(allergen=_(diet.MARK_WORDS[a]))
        for a in diet.ALLERGEN_ORDER
        if a in marks.allergens
    )
    out.extend(_(diet.MARK_WORDS[o]) if o in diet.MARK_WORDS else o for o in marks.others)
    return out


def join(parts: Iterable[str]) -> str:
    return ", ".join(p for p in parts if p)


def cart_total(cart: Cart) -> str:
    from kiosk.tui.cartview import pay_total

    return pay_total(cart)


def order_words(cart: Cart | None, option_names: Any = None) -> str:
    """The whole order: each line with its choices and amount, then the total."""
    from kiosk.tui.cartview import choice_lines, line_amount

    if cart is None or not cart.items:
        return _("Your order is empty.")
    count = sum(item.quantity for item in cart.items)
    parts = [ngettext("Your order: {n} item.", "Your order: {n} items.", count).format(n=count)]
    for item in cart.items:
        choices = choice_lines(item, option_names or {})
        parts.append(
            sentence(
                join(
                    [
                        f"{item.quantity} × {clean(item.name, 100)}",
                        *choices,
                        line_amount(item, cart.currency),
                    ]
                )
            )
        )
    parts.append(sentence(_("Total {total}").format(total=cart_total(cart))))
    return " ".join(parts)


def cart_changes(before: Cart | None, after: Cart | None) -> list[str]:
    """What changed between two carts the server sent: lines added, removed, or of another
    quantity, then the new total. Empty when no line changed."""
    if after is None:
        return []
    old = {item.id: item for item in (before.items if before is not None else ())}
    new = {item.id: item for item in after.items}
    said: list[str] = []
    for item_id, item in new.items():
        name = clean(item.name, 100)
        was = old.get(item_id)
        if was is None:
            said.append(_("Added {n} × {name}.").format(n=item.quantity, name=name))
        elif was.quantity != item.quantity:
            said.append(_("{name}: now {n}.").format(name=name, n=item.quantity))
    for item_id, item in old.items():
        if item_id not in new:
            said.append(_("Removed {name}.").format(name=clean(item.name, 100)))
    if said:
        said.append(sentence(_("Total {total}").format(total=cart_total(after))))
    return said


# What to do on each screen: its title first, then the keys (said in every language the same).
def _intro_location(screen: Any) -> str | None:
    count = len(getattr(screen, "locations", {}) or {})
    if not count:
        return None  # still loading: said when the list comes
    return " ".join(
        [
            sentence(_("Choose a restaurant")),
            ngettext("{n} restaurant.", "{n} restaurants.", count).format(n=count),
            _("Up and down arrows move, Enter chooses."),
        ]
    )


def _intro_welcome(screen: Any) -> str | None:
    if not getattr(screen, "methods", None):
        return None
    location = screen.kiosk.location
    name = clean(location.restaurant_display_name, 100) if location is not None else ""
    return " ".join(
        p
        for p in (
            sentence(name) if name else "",
            sentence(_("Welcome")),
            _("How would you like your order?"),
            _("Up and down arrows move, Enter chooses. F3 changes the language."),
        )
        if p
    )


def _intro_menu(screen: Any) -> str | None:
    return " ".join(
        [
            sentence(_("Menu")),
            _(
                "Type to search. Up and down arrows move, Enter opens a product. "
                "F4 is your order, F8 says it."
            ),
        ]
    )


def _intro_product(screen: Any) -> str | None:
    product = getattr(screen, "product", None)
    if product is None:
        return None  # still loading: said when it is shown
    from kiosk.i18n import money_locale
    from kiosk.tui.contract import shop_currency

    currency = shop_currency(screen.app) or product.currency or ""
    parts = [
        sentence(
            join(
                [
                    clean(product.name, 200),
                    clean(product.price_text(currency, money_locale()), 20),
                    *mark_words(product),
                ]
            )
        )
    ]
    if product.description:
        parts.append(sentence(clean(product.description, 300)))
    if product.modifiers:
        parts.append(
            _(
                "Up and down arrows move through the choices, Space chooses. "
                "F2 adds it to your order, Escape goes back to the menu."
            )
        )
    else:
        parts.append(
            _("No choices to make. F2 adds it to your order, Escape goes back to the menu.")
        )
    return " ".join(parts)


def _intro_cart(screen: Any) -> str:
    cart = screen.kiosk.cart
    return " ".join(
        [
            sentence(_("Your order")),
            order_words(cart, screen.kiosk.visit.option_names),
            _(
                "Up and down arrows move, plus and minus change how many, Delete removes. "
                "F2 checks out, Escape goes back to the menu."
            ),
        ]
    )


def _intro_checkout(screen: Any) -> str:
    return " ".join(
        [
            sentence(_("Checkout")),
            _("Type your name, then Enter; then your email, then Enter. F2 goes on to payment."),
        ]
    )


def _texts(screen: Any, *selectors: str) -> list[str]:
    out = []
    for selector in selectors:
        for widget in screen.query(selector):
            if widget.display:
                said = plain(widget)
                if said.strip():
                    out.append(sentence(said))
    return out


def _intro_payment(screen: Any) -> str | None:
    if getattr(screen, "intent", None) is None and not getattr(screen, "declined", False):
        return None  # the code is on its way: said when it is shown
    return " ".join(
        [
            sentence(_("Payment")),
            *_texts(screen, "#pay-title", "#pay-amount", "#pay-steps", "#pay-demo"),
            _("F2 when you have paid; Escape goes back to your order."),
        ]
    )


def _intro_done(screen: Any) -> str:
    number = getattr(screen, "order_number", None) or ""
    parts = [sentence(_("Thank you"))]
    if number:
        parts.append(number_words(number))
    parts.append(_("Press Enter for a new order."))
    return " ".join(parts)


def _intro_dialog(screen: Any) -> str:
    said = _texts(screen, "Static")
    if any(cls.__name__ == "YesNoDialog" for cls in type(screen).__mro__):
        said.append(_("Y for yes, N for no."))
    return " ".join(said)


INTROS: dict[str, Callable[[Any], str | None]] = {
    "LocationScreen": _intro_location,
    "WelcomeScreen": _intro_welcome,
    "MenuScreen": _intro_menu,
    "ProductScreen": _intro_product,
    "CartScreen": _intro_cart,
    "CheckoutScreen": _intro_checkout,
    "PaymentScreen": _intro_payment,
    "DoneScreen": _intro_done,
}


def screen_intro(screen: Any) -> str | None:
    """The screen's title and what to do on it; None while it is not ready to be said (its
    data still loading)."""
    from textual.screen import ModalScreen

    for cls in type(screen).__mro__:
        intro = INTROS.get(cls.__name__)
        if intro is not None:
            return intro(screen)
    if isinstance(screen, ModalScreen):
        return _intro_dialog(screen)
    return title_words(screen)


def title_words(screen: Any) -> str:
    title = getattr(screen, "TITLE", "")
    return sentence(_(title)) if title else ""


# The focused control -----------------------------------------------------------------------------
def _product_row(rowlist: Any, index: int) -> str:
    from kiosk.tui import menu_model

    found = rowlist.entry_at(index)
    if found is None:
        return ""
    category, product = found
    state, when = category.state(product)
    app = rowlist.app
    from kiosk.i18n import money_locale
    from kiosk.tui.contract import shop_currency

    parts = [clean(product.name, 100)]
    above = rowlist.rows[index - 1] if index > 0 else None
    if isinstance(above, menu_model.Header):
        # The first of its category: the category is said first, as the list shows it above.
        parts[0] = f"{clean(above.name, 60).lstrip('★ ')}: {parts[0]}"
    if state == menu_model.SOLD_OUT:
        parts.append(_("sold out"))
    else:
        parts.append(clean(product.price_text(shop_currency(app), money_locale()), 20))
        if state == menu_model.NOT_NOW:
            parts.append(_("not available now, only {when}").format(when=when))
    if getattr(product, "modifier_ids", None):
        parts.append(_("with choices"))
    cart = getattr(app, "cart", None)
    chosen = sum(i.quantity for i in cart.items if i.product_id == product.id) if cart else 0
    if chosen:
        parts.append(_("{n} in your order").format(n=chosen))
    parts.extend(mark_words(product))
    return join(parts)


def group_words(view: Any) -> str:
    """A choice group's rule and how far the customer is: "Broth: required, 1 more to choose"."""
    name = clean(view.group.name, 60) or _("Options")
    parts = [name + ":", view.rule_text.replace(" · ", ", ")]
    more = max(view.min - view.chosen_count, 0)
    if more:
        parts.append(ngettext("{n} more to choose", "{n} more to choose", more).format(n=more))
    elif view.required:
        parts.append(_("done"))
    if view.error and not more:  # "choose 1 more" is said already
        parts.append(clean(view.error, 120))
    return " ".join(parts[:1]) + " " + join(parts[1:])


def _option_row(rowlist: Any, index: int) -> str:
    row = rowlist.rows[index]
    option, view = getattr(row, "option", None), getattr(row, "group", None)
    if option is None or view is None:
        return ""
    parts = [clean(option.item.name, 100)]
    if option.sold_out:
        parts.append(_("sold out"))
    elif option.quantity > 1:
        parts.append(_("chosen, {n}").format(n=option.quantity))
    else:
        parts.append(_("chosen") if option.chosen else _("not chosen"))
    if option.item.price and not option.sold_out:
        from kiosk.api.money import format_money

        parts.append("+" + format_money(option.item.price, rowlist.currency, rowlist.locale))
    # Its own marks in words, in the customer's language; not what its name says already.
    name = clean(option.item.name, 100).casefold()
    parts.extend(w for w in mark_words(option.item) if w.casefold() not in name)
    return sentence(join(parts)) + " " + sentence(group_words(view))


def _cart_row(rowlist: Any, index: int) -> str:
    from kiosk.tui.cartview import choice_lines, line_amount

    key = rowlist.key_at(index)
    cart = getattr(rowlist.app, "cart", None)
    item = next((i for i in cart.items if i.id == key), None) if cart is not None else None
    if item is None:
        return ""
    names = rowlist.app.visit.option_names
    return join(
        [
            f"{item.quantity} × {clean(item.name, 100)}",
            *choice_lines(item, names),
            line_amount(item, cart.currency if cart else None),
        ]
    )


def _text_row(rowlist: Any, index: int) -> str:
    rows = rowlist.rows
    parts = []
    for at in range(index, len(rows)):
        row = rows[at]
        if at > index and row.key is not None:
            break  # the next choice: the details under this one end here
        parts.append(row.text.plain.strip())
        if row.right is not None:
            parts.append(row.right.plain.strip())
    return join(parts)


ROWS: dict[str, Callable[[Any, int], str]] = {
    "ProductList": _product_row,
    "ModifierList": _option_row,
    "CartLines": _cart_row,
    "TextRowList": _text_row,
}


def row_words(rowlist: Any) -> str:
    index = rowlist.cursor
    if index is None or not 0 <= index < len(rowlist.rows):
        return str(getattr(getattr(rowlist, "empty_text", None), "plain", "") or "")
    for cls in type(rowlist).__mro__:
        words = ROWS.get(cls.__name__)
        if words is not None:
            return words(rowlist, index)
    return str(rowlist.text_at(index, 200, False).plain.strip())


def focus_words(widget: Widget | None) -> str:
    """The focused control in words: a list's row, a button, a text field."""
    from textual.widgets import Button, Input, Label

    from kiosk.tui.widgets.rowlist import RowList

    if widget is None:
        return ""
    if isinstance(widget, RowList):
        return row_words(widget)
    if isinstance(widget, Button):
        label = " ".join(plain(widget).split())
        return join([label, _("button"), _("not available now") if widget.disabled else ""])
    if isinstance(widget, Input):
        label = ""
        parent = widget.parent
        if parent is not None:
            before = parent.children[: parent.children.index(widget)]
            labels = [w for w in before if isinstance(w, Label)]
            label = plain(labels[-1]) if labels else ""
        value = widget.value if not widget.password else ""
        return join(
            [
                label or widget.placeholder,
                _("text field"),
                clean(value, 100) if value else _("empty"),
            ]
        )
    return ""


# When --------------------------------------------------------------------------------------------
class Announcer:
    """Gathers what one step changed and says it as one utterance (see the module docstring).
    `app` is the KioskApp; `speaker` a kiosk.speech Speaker."""

    def __init__(self, app: Any, speaker: Speaker) -> None:
        self.app = app
        self.speaker = speaker
        self.last = ""  # the last utterance, for the "say again" key
        self._changes: list[str] = []
        self._messages: list[str] = []
        self._intro_for: Any = None  # the screen whose title is still to be said
        self._introduced: Any = None
        self._focus_said = ""
        self._wait_said = ""
        self._waited = 0  # flushes the screen's intro waited for its data
        self._timer: Timer | None = None
        self._seen: weakref.WeakSet[Any] = weakref.WeakSet()

    # What happened ---------------------------------------------------------------------------
    def poke(self) -> None:
        """Something on screen may have changed: say it once the step is over."""
        if self._timer is None and self.app.is_running:
            self._timer = self.app.set_timer(DEBOUNCE, self.flush, name="speech")

    @property
    def pending(self) -> bool:
        """Whether something is gathered to be said (its short delay running)."""
        return self._timer is not None

    def screen_changed(self, screen: Any) -> None:
        if screen is not self._introduced:
            self._intro_for, self._waited = screen, 0
        self.poke()

    def relanguage(self) -> None:
        """The customer chose another language: the screen is said again, in it."""
        self._seen = weakref.WeakSet()
        self._intro_for, self._focus_said = self.app.screen, ""
        self.poke()

    def message(self, text: str, kind: str = "info", hint: str = "") -> None:
        """A banner or a field's error, and its way forward: said as it is (a wait once, not
        every second)."""
        said = " ".join(p for p in (sentence(text), sentence(hint)) if p)
        if not said:
            return
        if kind == "wait":
            shape = _DIGITS.sub("#", said)
            if shape == self._wait_said:
                return
            self._wait_said = shape
        else:
            self._wait_said = ""
        if kind == "ok" and self._changes:
            return  # "Added 1 × Tea to your order": the cart's change says it already
        if said not in self._messages:
            self._messages.append(said)
        self.poke()

    def visit_changed(self, before: Any, after: Any, status_text: str = "") -> None:
        """The Visit published a new state: what changed in the cart, a wait that began
        (`status_text`: the header's words for it, with its seconds)."""
        changes = cart_changes(getattr(before, "cart", None), after.cart)
        self._changes.extend(changes)
        status = after.status
        waiting = getattr(status, "kind", None) == "waiting"
        was_waiting = getattr(getattr(before, "status", None), "kind", None) == "waiting"
        if waiting and not was_waiting and status_text:
            self.message(status_text, "wait")
        if changes:
            self.poke()

    # Saying ----------------------------------------------------------------------------------
    def flush(self) -> None:
        self._timer = None
        if not self.app.screen_stack:
            return  # the app is on its way out
        screen = self.app.screen
        parts = [*self._changes, *self._messages]
        self._changes, self._messages = [], []
        keep = False
        if self._intro_for is not None and self._intro_for is screen:
            # Back on a screen said before (the menu after a product): its title is enough.
            intro = screen_intro(screen) if screen not in self._seen else title_words(screen)
            self._waited += 1
            if intro is None and self._waited > MAX_WAITS:
                intro = title_words(screen)  # its data never came: the title, and the focus
            if intro is not None:
                self._waited = 0
                parts.append(intro)
                self._introduced, self._intro_for = screen, None
                self._seen.add(screen)
                self._focus_said = ""  # the focus is said again on a new screen
                keep = type(screen).__name__ == "DoneScreen"
        elif self._intro_for is not None and not self._intro_for.is_attached:
            self._intro_for = None
        if self._intro_for is None:
            focus = focus_words(screen.focused)
            if focus and focus != self._focus_said:
                parts.append(sentence(focus))
            self._focus_said = focus
        text = " ".join(p for p in parts if p)
        if text:
            self.last = text
            self.speaker.say(text, keep=keep)

    def flush_now(self) -> None:
        """Say what is gathered at once (tests, and before the app stops)."""
        if self._timer is not None:
            self._timer.stop()
        self.flush()

    def repeat(self) -> None:
        if self.last:
            self.speaker.say(self.last)

    def say_order(self) -> None:
        cart = self.app.cart
        text = order_words(cart, self.app.visit.option_names if cart is not None else None)
        self.last = text
        self.speaker.say(text)
