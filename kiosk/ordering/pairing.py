"""What pairs with an order: the menu's own word for a drink.

A suggestion after an add is not a second drink for an order that has one (issue 33). The API has
no "drink" field, so the menu says it the way a merchant writes a menu: a product in a category
named for drinks ("Drinks", "Coffee & espresso", "Tea, juice & more", "Bebidas"), or a product
tagged `drink` or `beverage`. A menu that says neither leaves every suggestion as it was.
"""

from __future__ import annotations

import re
from typing import Any

# Words a category of drinks is named with (folded), in the kiosk's languages. One word of the
# name is enough: "Tea, juice & more" is drinks; "Small plates" is not.
DRINK_WORDS = frozenset(
    {
        "drink", "drinks", "beverage", "beverages", "coffee", "coffees", "espresso", "tea",
        "teas", "juice", "juices", "smoothie", "smoothies", "soda", "sodas", "shakes", "wine",
        "wines", "beer", "beers", "cocktails", "bebidas", "café", "cafés", "refrescos", "jugos",
        "zumos",
    }
)  # fmt: skip
DRINK_TAGS = frozenset({"drink", "beverage"})
_WORD = re.compile(r"[^\W\d_]+")


def is_drink_category(name: str) -> bool:
    return any(w in DRINK_WORDS for w in _WORD.findall(name.casefold()))


def drink_ids(menus: Any) -> frozenset[str]:
    """The ids of the products the menus say are drinks (see the module)."""
    out: set[str] = set()
    for menu in getattr(menus, "menus", None) or ():
        for category in menu.categories:
            drinks = is_drink_category(str(category.name or ""))
            for product in category.products:
                tags = {str(t).casefold() for t in (product.tags or ())}
                if drinks or tags & DRINK_TAGS:
                    out.add(product.id)
    return frozenset(out)
