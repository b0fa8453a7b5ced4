"""The menu as one flat list of rows (category headers and products), and a fast filter over it.

The products are the client's own lean records (`kiosk.api.MenuProduct`), shared with its cache,
not copied: a row is a `Header` or a product, and a product's category is the header above it.
What the screen adds per category is small: a search key per product (its name and tags folded by
`fold`, built once, so a keystroke is one pass of `in` over 5,000 strings, about a millisecond) and
the few products that are not available at the menu's moment (sold out, not now), by id.
"""

from __future__ import annotations

import re
import unicodedata
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


# A run of letters or digits (any script): a word. Everything between two words is one space.
_WORD = re.compile(r"[^\W_]+")


def fold_char(char: str) -> str:
    """One character as search compares it: case folded (ß -> ss), decomposed (NFKD: ﬁ -> fi,
    é -> e + accent) and its accents dropped."""
    if char.isascii():
        return char.lower()
    decomposed = unicodedata.normalize("NFKD", char.casefold())
    return "".join(c for c in decomposed if not unicodedata.combining(c))


def fold(text: str) -> str:
    """Text as search compares it: each character by `fold_char`, the words joined by one space
    ("Crème Brûlée" -> "creme brulee", "No. 42" -> "no 42")."""
    if text.isascii():
        folded = text.lower()
    else:
        decomposed = unicodedata.normalize("NFKD", text.casefold())
        folded = "".join(c for c in decomposed if not unicodedata.combining(c))
    return " ".join(_WORD.findall(folded))


def search_key(product: MenuProduct) -> str:
    """The product's name and tags folded, after a space: `" " + needle in key` is a word start."""
    if not product.tags:
        return " " + fold(product.name)
    return f" {fold(product.name)} {fold(' '.join(product.tags))}"


# How well a product matches: its name starts with the search, a word does, or inside a word.
NAME_START, WORD_START, INSIDE = 0, 1, 2


def match_span(name: str, needle: str) -> tuple[int, int] | None:
    """Where a folded `needle` is in `name` as shown (start, end of its characters), a word start
    preferred; None when it is not in the name (a tag matched). Worked out for the rows on screen
    only, so the index keeps no character map."""
    if not needle:
        return None
    folded: list[str] = [" "]
    where: list[int] = [0]  # the index in `name` of each folded character
    for i, char in enumerate(name):
        part = fold_char(char)
        for c in part:  # a lone combining accent folds to nothing
            if c.isalnum():
                folded.append(c)
                where.append(i)
            elif folded[-1] != " ":
                folded.append(" ")
                where.append(i)
    text = "".join(folded)
    start = text.find(" " + needle)
    start = start + 1 if start >= 0 else text.find(needle)
    if start <= 0:
        return None
    end = start + len(needle) - 1
    if end >= len(where):
        return None
    return where[start], where[end] + 1


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
    """Header + products of each category (an empty one: its header alone); with a query, only
    matching products (each once), word starts first: within a category by `rank`, and the
    categories by their best match (a category holding a name that starts with the query comes
    before one that holds it only inside a word: "lat" shows Latte before Hot Chocolate)."""
    return Search().rows(categories, query)


# The products of one category a search looks among: (category, products, their search keys).
_Pool = tuple[Category, "Sequence[MenuProduct]", Sequence[str]]


class Search:
    """`rows` for a search typed a key at a time. A query that goes on from the last one (folded,
    "lat" then "latt") can only match what the last one matched: it looks among those matches,
    not the whole menu again. Kept by the menu screen for the categories it shows."""

    def __init__(self) -> None:
        self._categories: object = None
        self._needle = ""
        self._matched: list[_Pool] = []

    def rows(self, categories: Iterable[Category], query: str = "") -> list[Row]:
        needle = fold(query)
        if not needle:
            self._categories, self._needle, self._matched = None, "", []
            out: list[Row] = []
            for group in categories:
                # An empty category keeps its header (drawn as empty): without it the sidebar's
                # move to it showed the next category's products under its name.
                out.append(Header(group.id, group.name, len(group.products)))
                out.extend(group.products)
            return out
        pools: Iterable[_Pool]
        if self._categories is categories and self._needle and needle.startswith(self._needle):
            pools = self._matched
        else:
            pools = (
                (g, g.products, g.keys)
                for g in categories
                if g.id != POPULAR_ID  # its products are in their own categories too
            )
        found, matched = _matches(pools, needle)
        self._categories, self._needle, self._matched = categories, needle, matched
        found.sort(key=lambda f: (f[0], f[1]))
        out = []
        for _best, _order, group, matches in found:
            out.append(Header(group.id, group.name, len(matches)))
            out.extend(matches)
        return out


def _matches(
    pools: Iterable[_Pool], needle: str
) -> tuple[list[tuple[int, int, Category, list[MenuProduct]]], list[_Pool]]:
    """(best tier, order, category, its matches by tier) of each category with a match, and the
    matches as pools for the next, longer query."""
    seen: set[str] = set()
    found: list[tuple[int, int, Category, list[MenuProduct]]] = []
    matched: list[_Pool] = []
    word = " " + needle
    for group, products, keys in pools:
        # One pass of `in` over the prebuilt keys; the rank only for the (few) matches.
        tiers: tuple[list[MenuProduct], list[MenuProduct], list[MenuProduct]] = ([], [], [])
        kept: list[MenuProduct] = []
        kept_keys: list[str] = []
        for p, key in zip(products, keys, strict=True):
            if needle in key and p.id not in seen:
                seen.add(p.id)
                kept.append(p)
                kept_keys.append(key)
                if key.startswith(needle, 1):
                    tiers[NAME_START].append(p)
                elif word in key:
                    tiers[WORD_START].append(p)
                else:
                    tiers[INSIDE].append(p)
        if kept:
            matched.append((group, kept, kept_keys))
            best = next(t for t, tier in enumerate(tiers) if tier)
            found.append((best, len(found), group, tiers[0] + tiers[1] + tiers[2]))
    return found, matched


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
