"""The demo restaurants mark the 14 major allergens where they apply (issue 33, item 2): each mark
the kiosk knows (kiosk.ordering.diet), read from the files and through the wire in both dialects."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from kiosk.demo import menufile
from kiosk.i18n import _, set_language
from kiosk.ordering import diet
from tests.support.ordering_rig import demo_rig

RESTAURANTS = Path(diet.__file__).parents[1] / "demo" / "restaurants"

# What a dish's name or description says -> the allergen it must be marked with. Read as a
# customer reads the menu: a latte has milk, noodles and buns have gluten, edamame are soy.
SAYS = {
    diet.GLUTEN: ("noodle", "bread", "bagel", "croissant", "burger", "pasta", "pancake", "toast",
                  "muffin", "cookie", "brownie", "cheesecake", "pie", "pita", "dumpling", "wrap",
                  "burrito", "roll", "club", "reuben", "croutons", "granola", "oatmeal"),
    diet.DAIRY: ("latte", "cappuccino", "flat white", "mocha", "hot chocolate", "cheese", "butter",
                 "yogurt", "gelato", "parmesan", "swiss", "cream"),
    diet.EGG: ("egg", "shakshuka", "pancake", "croissant", "muffin", "cookie", "brownie",
               "cheesecake", "caesar"),
    diet.FISH: ("salmon", "lox", "caesar"),
    diet.CRUSTACEANS: ("prawn", "shrimp"),
    diet.SOY: ("tofu", "miso", "edamame", "soy"),
    diet.SESAME: ("sesame", "tahini", "hummus", "falafel"),
    diet.PEANUTS: ("peanut",),
    diet.NUTS: ("almond", "walnut", "pistachio", "pecan", "hazelnut", "nuts"),
    diet.SULPHITES: ("wine",),
    diet.CELERY: ("chicken noodle soup",),
    diet.MUSTARD: ("mustard",),
}  # fmt: skip


def _marked(tags: tuple[str, ...]) -> frozenset[str]:
    return diet.marks(type("P", (), {"tags": tags, "model_extra": None})()).allergens


@pytest.mark.parametrize("name", ["lantern", "kowhai"])
def test_every_dish_is_marked_with_what_its_words_say(name: str) -> None:
    restaurant = menufile.load_file(RESTAURANTS / f"{name}.toml")
    groups = {g.id: g for g in restaurant.groups}
    unmarked = []
    for product in restaurant.products:
        words = f"{product.name} {product.description}".casefold()
        # What the dish offers as an extra is the extra's mark ("add a soft egg from the extras");
        # rice noodles are not wheat.
        words = re.sub(r"add [^.;,]*", "", words)
        if "rice noodles" in words:
            words = words.replace("noodles", "")
        # A choice made by default (the sandwich's bread, the bowl's noodles) carries its own mark.
        marked = set(_marked(product.tags))
        for group_id in product.modifier_ids:
            for option in groups[group_id].options:
                if option.is_default:
                    marked |= _marked(option.tags)
        for allergen, said in SAYS.items():
            hits = [w for w in said if re.search(rf"\b{w}", words)]
            if allergen == diet.NUTS and hits == ["nuts"] and diet.PEANUTS in marked:
                hits = []
            if allergen == diet.DAIRY and "vegan" in words:
                hits = []
            if hits and allergen not in marked:
                unmarked.append((product.name, allergen, hits))
    assert not unmarked, unmarked


def test_the_14_allergens_have_a_code_and_words_in_both_languages() -> None:
    assert len(diet.ALLERGEN_ORDER) == 14
    for language in ("en", "es"):
        set_language(language)
        codes = [_(diet.MARK_CODE[a]) for a in diet.ALLERGEN_ORDER]
        words = [_(diet.MARK_WORDS[a]) for a in diet.ALLERGEN_ORDER]
        others = [_(diet.MARK_CODE[d]) for d in (diet.VEGAN, diet.VEGETARIAN, diet.GLUTEN_FREE)]
        assert len(set(codes + others)) == 17, (language, codes)  # no two marks alike
        assert all(words), language
        if language == "es":
            assert _(diet.MARK_WORDS[diet.EGG]) == "huevo"
    set_language("en")
    for spelling, mark in (("contains-gluten", diet.GLUTEN), ("Crustaceans", diet.CRUSTACEANS),
                           ("eggs", diet.EGG), ("soya", diet.SOY), ("sulfites", diet.SULPHITES),
                           ("peanut", diet.PEANUTS), ("milk", diet.DAIRY), ("lupine", diet.LUPIN),
                           ("mollusks", diet.MOLLUSCS), ("celery", diet.CELERY)):  # fmt: skip
        assert _marked((spelling,)) == {mark}, spelling


def test_no_nuts_keeps_out_peanuts_too() -> None:
    no_nuts = diet.BY_KEY["no-nuts"]
    peanut = type("P", (), {"tags": ("contains-peanuts",), "model_extra": None})()
    assert not diet.keeps(no_nuts, peanut)
    assert diet.available([peanut]) == (no_nuts,)


@pytest.mark.usefixtures("rig_dialect")
async def test_the_marks_reach_the_kiosk_through_the_api() -> None:
    async with demo_rig() as rig:
        visit = rig.visit()
        await visit.start("pickup")
        menus = await visit.menus()
        found = {p.id: p for m in menus.menus for c in m.categories for p in c.products}
        assert diet.DAIRY in diet.marks(found["prd_latte"]).allergens
        assert {diet.GLUTEN, diet.EGG, diet.DAIRY} <= diet.marks(found["prd_cookie"]).allergens
        assert {diet.PEANUTS, diet.SOY} <= diet.marks(found["prd_peanut_noodles"]).allergens
