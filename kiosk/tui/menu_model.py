"""The menu as one flat list of rows (category headers and products), and a fast filter over it.

The products are the client's own lean records (`kiosk.api.MenuProduct`), shared with its cache,
not copied: a row is a `Header` or a product, and a product's category is the header above it.
What the screen adds per category is small: a search key per product (its name and tags, lower
case, so a keystroke filters 5,000 products in about a millisecond) and the few products that are
not available at the menu's moment (sold out, not now), by id.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import TYPE_CHECKING, Any

from kiosk.tui.text import clean

if TYPE_CHECKING:
    from typing import TypeAlias

    from kiosk.api import MenuProduct

POPULAR_ID = "__popular__"

# A product's state on the menu.
AVAILABLE = "available"
SOLD_OUT = "sold_out"
NOT_NOW = "not_now"
_SERVED = (AVAILABLE, "")


@dataclass(frozen=True, slots=True)
class Header:
    category_id: str
    name: str
    count: int


if TYPE_CHECKING:
    Row: TypeAlias = Header | MenuProduct


@dataclass(frozen=True, slots=True)
class Category:
    id: str
    name: str
    products: tuple[MenuProduct, ...]  # the client's records, the same objects
    # (state, when) of the products that cannot be ordered now; every other one is available.
    unavailable: Mapping[str, tuple[str, str]] = field(default_factory=dict)
    keys: tuple[str, ...] = field(default=(), repr=False)  # search keys, one a product

    def state(self, product: MenuProduct) -> tuple[str, str]:
        """(state, when): "when" is "06:00–11:00" for a product that is not available now."""
        return self.unavailable.get(product.id, _SERVED)


_DAY_NAMES = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")


def _minutes(value: str | None) -> int | None:
    if not value or ":" not in value:
        return None
    hour, _, minute = value.partition(":")
    if not (hour.strip().isdigit() and minute[:2].isdigit()):
        return None
    return int(hour) * 60 + int(minute[:2])


def _day_matches(days: Sequence[str], weekday: int) -> bool:
    if not days:
        return True
    name = _DAY_NAMES[weekday]
    return any(str(d).strip().lower()[:3] == name[:3] for d in days)


def availability(product: Any, now: datetime | None) -> tuple[str, str]:
    """(state, when): sold out by `availability`, not available now by `availableTimes` at `now`."""
    if not product.is_available:
        return SOLD_OUT, ""
    windows = list(product.available_times or ())
    if not windows or now is None:
        return AVAILABLE, ""
    minute = now.hour * 60 + now.minute
    texts = []
    for window in windows:
        start, end = _minutes(window.start), _minutes(window.end)
        if start is None or end is None:
            return AVAILABLE, ""  # a window we cannot read: let the server decide
        texts.append(f"{window.start}–{window.end}")
        if not _day_matches(window.days, now.weekday()):
            continue
        inside = start <= minute < end if start < end else (minute >= start or minute < end)
        if inside:
            return AVAILABLE, ""
    return NOT_NOW, ", ".join(texts)


def search_key(product: MenuProduct) -> str:
    if not product.tags:
        return product.name.casefold()
    return f"{product.name} {' '.join(product.tags)}".casefold()


def category(
    id: str, name: str, products: tuple[MenuProduct, ...], now: datetime | None, inactive: bool
) -> Category:
    unavailable: dict[str, tuple[str, str]] = {}
    for product in products:
        state, when = availability(product, now)
        if inactive and state == AVAILABLE:
            state = NOT_NOW
        if state != AVAILABLE:
            unavailable[product.id] = (state, when)
    return Category(id, name, products, unavailable, tuple(search_key(p) for p in products))


def build(menus: Any, now: datetime | None) -> list[Category]:
    """Categories in display order: popular first, then each active menu's, then inactive menus'."""
    categories: list[Category] = []
    popular = tuple(getattr(menus, "popular_products", None) or ())
    if popular:
        categories.append(category(POPULAR_ID, "★ Popular", popular, now, False))
    ordered = sorted(menus.menus or (), key=lambda m: not m.is_active)
    seen: set[str] = set()
    for menu in ordered:
        for group in menu.categories or ():
            if group.id in seen:
                continue
            seen.add(group.id)
            name = clean(group.name, 60) or "Menu"
            if not menu.is_active:
                name = f"{name} (later)"
            products = tuple(group.products or ())
            categories.append(category(group.id, name, products, now, not menu.is_active))
    return categories


def rows(categories: Iterable[Category], query: str = "") -> list[Row]:
    """Header + products of each category; with a query, only matching products (each once)."""
    out: list[Row] = []
    needle = query.casefold().strip()
    if not needle:
        for group in categories:
            if group.products:
                out.append(Header(group.id, group.name, len(group.products)))
                out.extend(group.products)
        return out
    seen: set[str] = set()
    for group in categories:
        if group.id == POPULAR_ID:
            continue
        matches = [
            p
            for p, key in zip(group.products, group.keys, strict=True)
            if needle in key and p.id not in seen
        ]
        if matches:
            seen.update(p.id for p in matches)
            out.append(Header(group.id, group.name, len(matches)))
            out.extend(matches)
    return out


def keep_only(categories: Iterable[Category], keep: Callable[[Any], bool]) -> list[Category]:
    """The categories with only the products `keep` accepts, empty ones dropped (the diet
    filter: hidden products are not rows, so the cursor, the counts and search skip them)."""
    out: list[Category] = []
    for group in categories:
        kept = [(p, k) for p, k in zip(group.products, group.keys, strict=True) if keep(p)]
        if kept:
            products = tuple(p for p, _ in kept)
            unavailable = {
                p.id: group.unavailable[p.id] for p in products if p.id in group.unavailable
            }
            out.append(
                Category(group.id, group.name, products, unavailable, tuple(k for _, k in kept))
            )
    return out
