"""The diet and allergen rules of kiosk.ordering.diet, over API models of both dialects."""

from __future__ import annotations

from kiosk.api import MenuProduct, ProductDetail
from kiosk.api.models import validate_as
from kiosk.ordering import diet

VEGAN = diet.BY_KEY["vegan"]
VEGETARIAN = diet.BY_KEY["vegetarian"]
GLUTEN_FREE = diet.BY_KEY["gluten-free"]
NO_NUTS = diet.BY_KEY["no-nuts"]


def product(tags: list[str] | None = None, **extra: object) -> MenuProduct:
    return validate_as(MenuProduct, {"id": "p", "name": "P", "tags": tags or [], **extra})


def detail(tags: list[str], options: list[dict[str, object]]) -> ProductDetail:
    group = {"id": "g", "name": "Protein", "rule": {"min": 0, "max": 1}, "items": options}
    return ProductDetail.model_validate(
        {"id": "p", "name": "Bowl", "tags": tags, "modifiers": [group]}
    )


def test_spellings_become_one_mark() -> None:
    m = diet.marks(product(["Vegan", "GLUTEN_FREE", "contains-nuts", "Spicy", "house special"]))
    assert m.diets == {"vegan", "vegetarian", "gluten-free"}
    assert m.allergens == {"nuts"}
    assert m.labels() == ["vegan", "gluten-free", "contains nuts", "spicy", "house-special"]
    assert diet.marks(product(["vegetarian", "vegan-option"])).labels() == [
        "vegetarian",
        "vegan option",
    ]


def test_v2_dietary_preferences_are_read() -> None:
    p = product(nutrition={"calorieCount": None, "dietaryPreferences": ["vegetarian", None]})
    assert diet.marks(p).diets == {"vegetarian"}
    assert diet.verdict(VEGETARIAN, p) == "vegetarian"
    assert diet.verdict(VEGAN, p) is None


def test_vegan_as_it_comes_or_with_a_vegan_choice() -> None:
    assert diet.verdict(VEGAN, product(["vegan"])) == "vegan"
    assert diet.verdict(VEGAN, product(["vegan-option"])) == "has a vegan choice"
    assert diet.verdict(VEGETARIAN, product(["vegan-option"])) == "has a vegetarian choice"
    assert diet.verdict(VEGAN, product(["vegetarian"])) is None
    assert diet.verdict(VEGAN, product([])) is None


def test_an_option_tagged_vegan_makes_a_vegan_choice() -> None:
    burger = detail(
        [], [{"id": "beef", "name": "Beef"}, {"id": "pl", "name": "Plant patty", "tags": ["vegan"]}]
    )
    assert diet.verdict(VEGAN, burger) == "has a vegan choice"
    beef, plant = burger.modifiers[0].items
    assert not diet.option_fits(VEGAN, beef, burger)
    assert diet.option_fits(VEGAN, plant, burger)
    assert diet.option_labels(None, plant, burger) == ["vegan"]
    assert diet.option_labels(VEGAN, beef, burger) == ["not vegan"]
    assert diet.option_labels(VEGAN, plant, burger) == ["vegan"]


def test_options_inherit_unless_they_say_otherwise() -> None:
    bowl = detail(
        ["vegan", "gluten-free"],
        [
            {"id": "tofu", "name": "Tofu"},
            {"id": "chicken", "name": "Chicken", "tags": ["meat"]},
            {"id": "feta", "name": "Feta", "tags": ["dairy"]},
            {"id": "crouton", "name": "Croutons", "tags": ["gluten"]},
        ],
    )
    tofu, chicken, feta, crouton = bowl.modifiers[0].items
    assert diet.option_fits(VEGAN, tofu, bowl)
    assert not diet.option_fits(VEGAN, chicken, bowl)
    assert not diet.option_fits(VEGETARIAN, chicken, bowl)
    assert not diet.option_fits(VEGAN, feta, bowl)
    assert diet.option_fits(VEGETARIAN, feta, bowl)
    assert diet.option_fits(VEGAN, crouton, bowl)
    assert not diet.option_fits(GLUTEN_FREE, crouton, bowl)
    assert diet.option_labels(None, chicken, bowl) == []
    assert diet.option_labels(VEGETARIAN, chicken, bowl) == ["not vegetarian"]
    nutty = ProductDetail.model_validate({"id": "x", "modifiers": []})
    almonds = bowl.modifiers[0].items[0].model_copy(update={"tags": ["contains-nuts"]})
    assert diet.option_labels(NO_NUTS, almonds, nutty) == ["contains nuts"]


def test_no_nuts_keeps_what_has_no_nut_mark() -> None:
    assert diet.verdict(NO_NUTS, product(["vegan"])) == "no nuts mark"
    assert diet.verdict(NO_NUTS, product(["peanuts"])) is None
    assert diet.keeps(None, product(["peanuts"]))


def test_only_filters_the_data_can_answer() -> None:
    assert diet.available([product(["spicy"])]) == ()
    assert diet.available([product(["vegan"])]) == (VEGAN, VEGETARIAN)
    assert diet.available([product(["vegetarian"]), product(["contains-nuts"])]) == (
        VEGETARIAN,
        NO_NUTS,
    )
    assert diet.available([product(["gf"])]) == (GLUTEN_FREE,)


def test_the_filter_key_cycles_through_the_offered_filters_then_off() -> None:
    offered = (VEGAN, NO_NUTS)
    seen = []
    current = None
    for _ in range(4):
        current = diet.next_filter(current, offered)
        seen.append(current)
    assert seen == [VEGAN, NO_NUTS, None, VEGAN]
    assert diet.next_filter(None, ()) is None
    assert diet.next_filter(GLUTEN_FREE, offered) == VEGAN


def test_odd_tag_values_are_skipped_not_fatal() -> None:
    p = product(["vegan"], allergens=["Peanuts", {"x": 1}, None])
    assert diet.marks(p).allergens == {"peanuts"}


def test_compact_marks_come_with_their_legend_words() -> None:
    """Issue 20: a menu row shows codes ("VG GF N"), the legend under the list says them."""
    m = diet.marks(product(["vegan", "gluten-free", "contains-nuts", "house-special"]))
    assert m.codes() == [
        ("VG", "vegan"),
        ("GF", "gluten-free"),
        ("N", "nuts"),
        ("house-special", ""),
    ]
    assert diet.marks(product(["vegetarian", "vegan-option"])).codes() == [
        ("V", "vegetarian"),
        ("(VG)", "vegan option"),
    ]
