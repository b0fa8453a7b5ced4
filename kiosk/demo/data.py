"""The demo restaurants: merchant, locations, keys, menus, modifier groups and discount codes.

A restaurant is a TOML file, checked when it is loaded (kiosk.demo.menufile; the format is in
kiosk/demo/README.md). The built-in ones ship in kiosk/demo/restaurants/: `lantern` (the default:
Lantern Street Kitchen, what the tests and the documentation describe) and `kowhai`. `load(menu)`
takes a built-in name or a merchant's own file, so a sales demo can show the merchant's menu.

The module-level names (MERCHANT_SLUG, DOWNTOWN, LOCATIONS, PRODUCTS, demo_keys(), ...) are the
default restaurant's. They are read on first use: importing this module reads no file and loads
no pydantic, Starlette or SQLite (the kiosk imports it for MERCHANT_SLUG and the keys).
Money is integer minor units.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from functools import cache
from importlib import resources
from pathlib import Path
from typing import TYPE_CHECKING, Any

DAYS = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")
WEEKDAYS = DAYS[:5]
WEEKEND = DAYS[5:]

# Canonical fulfillment methods, as requests send them.
METHODS = ("pickup", "dine_in", "table_service", "delivery", "room_service")

DEFAULT_MENU = "lantern"
# The package data folder holding the built-in restaurant files (<name>.toml).
BUILTIN_FOLDER = "restaurants"


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
# Loading


def builtin_menus() -> list[str]:
    """The names of the restaurants shipped with the kiosk (`kiosk demo --menu NAME`)."""
    folder = resources.files("kiosk.demo") / BUILTIN_FOLDER
    return sorted(
        p.name.removesuffix(".toml") for p in folder.iterdir() if p.name.endswith(".toml")
    )


def load(menu: str | Path | Restaurant | None = None) -> Restaurant:
    """A restaurant: a built-in name, a file's path, or one already loaded; None is the default.

    A file that exists wins over a built-in of the same name. Raises menufile.MenuFileError, whose
    message names the file and each bad value's path.
    """
    if isinstance(menu, Restaurant):
        return menu
    if menu is None:
        return default()
    path = Path(menu)
    if not path.is_file() and str(menu) in builtin_menus():
        return _builtin(str(menu))
    from kiosk.demo import menufile

    if not path.exists():
        known = ", ".join(builtin_menus())
        raise menufile.MenuFileError(str(menu), [("", f"no such file (built-in menus: {known})")])
    return menufile.load_file(path)


@cache
def _builtin(name: str) -> Restaurant:
    from kiosk.demo import menufile

    resource = resources.files("kiosk.demo") / BUILTIN_FOLDER / f"{name}.toml"
    # as_file: a real path even when the package is zipped.
    with resources.as_file(resource) as path:
        return menufile.load_file(path, name=f"{name}.toml", source=name)


def default() -> Restaurant:
    """The built-in default restaurant (loaded and checked once)."""
    return _builtin(DEFAULT_MENU)


# --------------------------------------------------------------------------------------------------
# The default restaurant's records as module attributes (PEP 562), read on first use.

if TYPE_CHECKING:
    MERCHANT_ID: str
    MERCHANT_SLUG: str
    MERCHANT_NAME: str
    CURRENCY: str
    DOWNTOWN: DemoLocation
    WESTSIDE: DemoLocation
    AIRPORT: DemoLocation  # hidden; its subscription lapsed, so every request with its key is 403
    LOCATIONS: list[DemoLocation]
    ALL_LOCATIONS: list[DemoLocation]
    DISCOUNT_CODES: dict[str, DemoDiscount]
    LOCATION_DETAILS: dict[str, dict[str, Any]]
    GROUPS: list[Group]
    PRODUCTS: list[Product]
    MENUS: list[Menu]
    POPULAR: dict[str, tuple[str, ...]]
    CROSS_SELL: dict[str, tuple[str, ...]]
    INITIAL_SOLD_OUT: tuple[str, ...]


def _location(ident: str) -> Callable[[Restaurant], DemoLocation]:
    def get(r: Restaurant) -> DemoLocation:
        loc = r.location(ident)
        assert loc is not None, ident
        return loc

    return get


_DEFAULT_NAMES: dict[str, Callable[[Restaurant], Any]] = {
    "MERCHANT_ID": lambda r: r.merchant_id,
    "MERCHANT_SLUG": lambda r: r.merchant_slug,
    "MERCHANT_NAME": lambda r: r.merchant_name,
    "CURRENCY": lambda r: r.currency,
    "DOWNTOWN": _location("loc_downtown"),
    "WESTSIDE": _location("loc_westside"),
    "AIRPORT": _location("loc_airport"),
    "LOCATIONS": lambda r: r.visible_locations,
    "ALL_LOCATIONS": lambda r: list(r.locations),
    "DISCOUNT_CODES": lambda r: dict(r.discounts),
    "LOCATION_DETAILS": lambda r: dict(r.details),
    "GROUPS": lambda r: list(r.groups),
    "PRODUCTS": lambda r: list(r.products),
    "MENUS": lambda r: list(r.menus),
    "POPULAR": lambda r: dict(r.popular),
    "CROSS_SELL": lambda r: dict(r.cross_sell),
    "INITIAL_SOLD_OUT": lambda r: r.initial_sold_out,
}


def __getattr__(name: str) -> Any:
    get = _DEFAULT_NAMES.get(name)
    if get is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = get(default())
    globals()[name] = value  # later reads skip this function (and see the same object)
    return value


def demo_keys() -> dict[str, str]:
    """Location id -> API key, for the default restaurant's visible locations."""
    return default().demo_keys()


def location_by_key(key: str) -> DemoLocation | None:
    return default().location_by_key(key)


def build_catalog(extra_products: int = 0) -> Catalog:
    return default().build_catalog(extra_products)


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
