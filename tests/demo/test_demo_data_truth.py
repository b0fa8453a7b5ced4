"""Every built-in demo restaurant is true to its tags (issue 13), judged by the kiosk's own diet
rules (kiosk.ordering.diet) over the products as the API would send them: a dish tagged vegan
offers nothing from an animal unless that option says so in its tags, its defaults are vegan, and
anything whose name or description names a nut carries the nuts mark."""

from __future__ import annotations

import re
from typing import Any

import pytest

from kiosk.api import ProductDetail
from kiosk.demo import data
from kiosk.ordering import diet

ANIMAL = re.compile(
    r"chicken|beef|salmon|prawn|shrimp|bacon|pork|turkey|tuna|chorizo|patty|\bham\b|"
    r"cheese|feta|milk|butter|cream|egg|honey|aioli|mayo",
    re.IGNORECASE,
)
MEAT = re.compile(
    r"chicken|beef|salmon|prawn|shrimp|bacon|pork|turkey|tuna|chorizo|patty|\bham\b",
    re.IGNORECASE,
)
# Tree nuts and peanuts are two of the 14 major allergens, each with its own mark.
NUT = re.compile(
    r"almond|cashew|walnut|pecan|hazelnut|pistachio|(?<!contains )\bnuts?\b", re.IGNORECASE
)
PEANUT = re.compile(r"peanut", re.IGNORECASE)
VEGAN = diet.BY_KEY["vegan"]
VEGETARIAN = diet.BY_KEY["vegetarian"]


def restaurants() -> list[data.Restaurant]:
    return [data.load(name) for name in data.builtin_menus()]


def group_json(groups: dict[str, data.Group], gid: str) -> dict[str, Any]:
    group = groups[gid]
    items = [
        {
            "id": o.id,
            "name": o.name,
            "isDefault": o.is_default,
            "tags": list(o.tags),
            "childGroups": [{"groupId": c, "group": group_json(groups, c)} for c in o.child_groups],
        }
        for o in group.options
    ]
    return {
        "id": gid,
        "name": group.name,
        "rule": {"min": group.min, "max": group.max},
        "items": items,
    }


def details(r: data.Restaurant) -> list[ProductDetail]:
    groups = {g.id: g for g in r.groups}
    return [
        ProductDetail.model_validate(
            {
                "id": p.id,
                "name": p.name,
                "description": p.description,
                "tags": list(p.tags),
                "modifiers": [group_json(groups, g) for g in p.modifier_ids],
            }
        )
        for p in r.products
    ]


def options(product: ProductDetail) -> list[tuple[Any, Any]]:
    """(group, option) of every option, nested ones too."""
    out = []
    stack = list(product.modifiers)
    while stack:
        group = stack.pop()
        for item in group.items:
            out.append((group, item))
            stack.extend(c.group for c in item.child_groups if c.group is not None)
    return out


CASES = [(r.source, p) for r in restaurants() for p in details(r)]
IDS = [f"{source}:{p.id}" for source, p in CASES]


def test_both_builtins_are_checked() -> None:
    assert {"lantern", "kowhai"} <= set(data.builtin_menus())
    assert len(CASES) > 60


@pytest.mark.parametrize(("source", "product"), CASES, ids=IDS)
def test_a_vegan_or_vegetarian_dish_says_which_options_are_not(
    source: str, product: ProductDetail
) -> None:
    for wanted, words in ((VEGAN, ANIMAL), (VEGETARIAN, MEAT)):
        if wanted.needs not in diet.marks(product).diets:
            continue
        untagged = [
            o.name
            for _, o in options(product)
            if words.search(o.name)
            and diet.option_fits(wanted, o, product)
            and not re.search(r"vegan|oat|soy|almond", o.name, re.IGNORECASE)
        ]
        assert untagged == [], f"{wanted.key} {product.name} offers {untagged} untagged"


@pytest.mark.parametrize(("source", "product"), CASES, ids=IDS)
def test_a_dish_is_its_diet_as_it_comes(source: str, product: ProductDetail) -> None:
    """Its default options keep the diet, and every required group has an option that does."""
    for wanted in (VEGAN, VEGETARIAN):
        if wanted.needs not in diet.marks(product).diets:
            continue
        for _, option in options(product):
            if option.is_default:
                assert diet.option_fits(wanted, option, product), (product.name, option.name)
        for group in product.modifiers:
            if group.is_required:
                assert any(diet.option_fits(wanted, o, product) for o in group.items), group.name


@pytest.mark.parametrize(("source", "product"), CASES, ids=IDS)
def test_a_dish_offering_a_vegan_choice_has_one(source: str, product: ProductDetail) -> None:
    if VEGAN.needs in diet.marks(product).choices:
        assert any(diet.option_fits(VEGAN, o, product) for _, o in options(product))
        assert diet.verdict(VEGAN, product) == "has a vegan choice"


@pytest.mark.parametrize(("source", "product"), CASES, ids=IDS)
def test_nuts_always_carry_the_nuts_mark(source: str, product: ProductDetail) -> None:
    for words, mark in ((NUT, diet.NUTS), (PEANUT, diet.PEANUTS)):
        if words.search(f"{product.name} {product.description or ''}"):
            assert mark in diet.marks(product).allergens, product.name
        for _, option in options(product):
            if words.search(option.name):
                assert mark in diet.marks(option).allergens, option.name


def test_the_vegan_filter_keeps_no_meat_or_fish_choice() -> None:
    """What the issue saw: a [vegan] bowl offering chicken and salmon. With the filter on, the
    choices that stay are free of them on every product the filter keeps."""
    kept = [(s, p) for s, p in CASES if diet.keeps(VEGAN, p)]
    assert len(kept) > 15
    for _, product in kept:
        fitting = [o.name for _, o in options(product) if diet.option_fits(VEGAN, o, product)]
        assert not [n for n in fitting if MEAT.search(n)], product.name
