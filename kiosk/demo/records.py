"""The demo restaurant's record types (what kiosk.demo.menufile builds from a restaurant file and
the backend seeds), and the generated menu for benchmarks. Plain dataclasses: cheap to import.

Money is integer minor units.
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

DAYS = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")
WEEKDAYS = DAYS[:5]
WEEKEND = DAYS[5:]

# Canonical fulfillment methods, as requests send them.
METHODS = ("pickup", "dine_in", "table_service", "delivery", "room_service")


@dataclass(frozen=True)
class DemoLocation:
    id: str
    slug: str
    name: str
    timezone: str
    api_key: str
    methods: tuple[str, ...]
    subscribed: bool = True
    hidden: bool = False

    def __repr__(self) -> str:
        # The key is a (demo) secret: keep it out of reprs and therefore out of logs.
        return f"DemoLocation(id={self.id!r}, slug={self.slug!r}, name={self.name!r})"


@dataclass(frozen=True)
class DemoDiscount:
    code: str
    kind: str  # "percent" or "fixed"
    value: int  # percent (10 = 10 %) or minor units
    minimum: int = 0  # minimum subTotalWithoutDiscount, minor units
    expires_at: float | None = None  # Unix seconds; None = never
    description: str = ""


# Modifier groups. Option deltas are minor units; maxQuantity 0 means sold out.


@dataclass(frozen=True)
class Option:
    id: str
    name: str
    price: int = 0
    max_quantity: int = 1
    is_default: bool = False
    child_groups: tuple[str, ...] = ()
    tags: tuple[str, ...] = ()  # what the option changes of its product's diet ("meat", "vegan")


@dataclass(frozen=True)
class Group:
    id: str
    name: str
    min: int
    max: int
    options: tuple[Option, ...]
    description: str = ""


@dataclass(frozen=True)
class Product:
    id: str
    name: str
    description: str
    price: int
    tags: tuple[str, ...] = ()
    calories: int | None = None
    modifier_ids: tuple[str, ...] = ()
    picture: bool = False  # served at kiosk.demo.pictures.path_for(id), drawn in code


# Menus: per location, each with a window of local time (None = all day) and days.


@dataclass(frozen=True)
class Menu:
    id: str
    name: str
    location_id: str
    start: str | None  # "HH:MM" local; None = all day
    end: str | None
    categories: tuple[tuple[str, str, tuple[str, ...]], ...]  # (category id, name, product ids)
    days: tuple[str, ...] = DAYS


@dataclass
class Catalog:
    """The demo catalog as plain data (what the seeder writes to SQLite)."""

    products: list[Product] = field(default_factory=list)
    groups: list[Group] = field(default_factory=list)
    menus: list[Menu] = field(default_factory=list)


@dataclass(frozen=True, eq=False)
class Restaurant:
    """One demo restaurant, as its file describes it (built by kiosk.demo.menufile)."""

    source: str  # the built-in name or the file's path
    merchant_id: str
    merchant_slug: str
    merchant_name: str
    currency: str  # lowercase ISO 4217, two decimals
    locations: tuple[DemoLocation, ...]  # every location, hidden ones included
    # Location id -> the record GET /locations/{id} is built from (address, hours, fees, tips).
    details: Mapping[str, dict[str, Any]]
    discounts: Mapping[str, DemoDiscount]  # by upper-case code
    groups: tuple[Group, ...]
    products: tuple[Product, ...]
    menus: tuple[Menu, ...]
    popular: Mapping[str, tuple[str, ...]]  # location id -> product ids
    cross_sell: Mapping[str, tuple[str, ...]]
    # Sold out when the database is first seeded (tests and /demo/sold-out change this at run time).
    initial_sold_out: tuple[str, ...]

    @property
    def visible_locations(self) -> list[DemoLocation]:
        """The locations the merchant listing shows (the kiosk offers these)."""
        return [loc for loc in self.locations if not loc.hidden]

    def location(self, ident: str) -> DemoLocation | None:
        """A location by id or slug."""
        return next((loc for loc in self.locations if ident in (loc.id, loc.slug)), None)

    def demo_keys(self) -> dict[str, str]:
        """Location id -> API key, for the visible locations."""
        return {loc.id: loc.api_key for loc in self.visible_locations}

    def location_by_key(self, key: str) -> DemoLocation | None:
        return next((loc for loc in self.locations if loc.api_key == key), None)

    def build_catalog(self, extra_products: int = 0) -> Catalog:
        cat = Catalog(list(self.products), list(self.groups), list(self.menus))
        if extra_products > 0:
            size = "grp_drink_size" if any(g.id == "grp_drink_size" for g in self.groups) else None
            products, menu = extra_menu(
                extra_products, self.visible_locations[0].id, size_group=size
            )
            cat.products.extend(products)
            cat.menus.append(menu)
        return cat


# --------------------------------------------------------------------------------------------------
# The large generated menu for benchmarks.

_ADJ = (
    "Smoky",
    "Golden",
    "Crispy",
    "Maple",
    "Garden",
    "Harbor",
    "Lemon",
    "Spiced",
    "Roasted",
    "Wild",
)
_NOUN = (
    "Sandwich",
    "Salad",
    "Bowl",
    "Taco",
    "Wrap",
    "Soup",
    "Flatbread",
    "Tart",
    "Latte",
    "Skewer",
)
_TAGS = ("vegan", "vegetarian", "spicy", "contains-nuts", "gluten-free")


def extra_menu(
    n: int, location_id: str = "loc_downtown", *, size_group: str | None = "grp_drink_size"
) -> tuple[list[Product], Menu]:
    """A deterministic menu of n generated products in categories of 100 (for benchmarks);
    every 10th product has `size_group` when one is given."""
    rng = random.Random(n)
    products: list[Product] = []
    cats: list[tuple[str, str, tuple[str, ...]]] = []
    for i in range(n):
        name = f"{rng.choice(_ADJ)} {rng.choice(_NOUN)} No. {i + 1}"
        mods = (size_group,) if i % 10 == 0 and size_group else ()
        tags = (rng.choice(_TAGS),) if i % 3 == 0 else ()
        price = rng.randrange(100, 3000, 5)
        products.append(
            Product(f"xp_{i + 1:05d}", name, "Generated for benchmarks", price, tags, None, mods)
        )
    for c in range(0, n, 100):
        ids = tuple(p.id for p in products[c : c + 100])
        cats.append((f"cat_xp_{c // 100 + 1:03d}", f"Big category {c // 100 + 1}", ids))
    menu = Menu("menu_xp_big", "Everything (generated)", location_id, None, None, tuple(cats))
    return products, menu
