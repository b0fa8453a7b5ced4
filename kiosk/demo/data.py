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

from collections.abc import Callable
from functools import cache
from importlib import resources
from pathlib import Path
from typing import TYPE_CHECKING, Any

from kiosk.demo.records import (
    DAYS,
    METHODS,
    WEEKDAYS,
    WEEKEND,
    Catalog,
    DemoDiscount,
    DemoLocation,
    Group,
    Menu,
    Option,
    Product,
    Restaurant,
    extra_menu,
)

__all__ = [
    "DAYS",
    "DEFAULT_MENU",
    "METHODS",
    "WEEKDAYS",
    "WEEKEND",
    "Catalog",
    "DemoDiscount",
    "DemoLocation",
    "Group",
    "Menu",
    "Option",
    "Product",
    "Restaurant",
    "build_catalog",
    "builtin_menus",
    "default",
    "demo_keys",
    "extra_menu",
    "load",
    "location_by_key",
]


DEFAULT_MENU = "lantern"
# The package data folder holding the built-in restaurant files (<name>.toml).
BUILTIN_FOLDER = "restaurants"


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
