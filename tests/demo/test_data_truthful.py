"""The demo restaurant is true to its own tags (issue 13): a dish tagged vegan offers nothing from
an animal, and anything with nuts says so, on the dish or on the option."""

from __future__ import annotations

import re

from kiosk.demo.data import GROUPS, PRODUCTS

ANIMAL = re.compile(
    r"chicken|salmon|shrimp|bacon|ham\b|beef|pork|turkey|tuna|egg|cheese|milk|butter|cream|honey",
    re.IGNORECASE,
)
PLANT_MILK = re.compile(r"oat|almond|soy|coconut|vegan", re.IGNORECASE)
NUTS = re.compile(r"almond|walnut|pecan|cashew|hazelnut|peanut|pistachio|\bnuts?\b", re.IGNORECASE)
GROUP_BY_ID = {g.id: g for g in GROUPS}


def options_of(product_modifier_ids: tuple[str, ...]) -> list[tuple[str, str]]:
    seen: list[tuple[str, str]] = []
    for gid in product_modifier_ids:
        for option in GROUP_BY_ID[gid].options:
            seen.append((gid, option.name))
    return seen


def test_vegan_dishes_offer_nothing_from_an_animal() -> None:
    wrong = [
        (p.id, group, name)
        for p in PRODUCTS
        if "vegan" in p.tags
        for group, name in options_of(p.modifier_ids)
        if ANIMAL.search(name) and not PLANT_MILK.search(name)
    ]
    assert wrong == []


MEAT = re.compile(r"chicken|salmon|shrimp|bacon|ham\b|beef|pork|turkey|tuna|patty", re.IGNORECASE)


def test_vegetarian_dishes_offer_no_meat_or_fish() -> None:
    wrong = [
        (p.id, group, name)
        for p in PRODUCTS
        if {"vegan", "vegetarian"} & set(p.tags)
        for group, name in options_of(p.modifier_ids)
        if MEAT.search(name)
    ]
    assert wrong == []


def test_nuts_are_always_marked() -> None:
    unmarked_dishes = [
        p.id
        for p in PRODUCTS
        if NUTS.search(f"{p.name} {p.description}")
        # a tree nut or a peanut: each of the two allergens has its own tag
        and not {"contains-nuts", "contains-peanuts"} & set(p.tags)
    ]
    unmarked_options = [
        (g.id, o.name)
        for g in GROUPS
        for o in g.options
        if NUTS.search(o.name) and "nuts" not in o.name.lower()
    ]
    assert unmarked_dishes == [] and unmarked_options == []
