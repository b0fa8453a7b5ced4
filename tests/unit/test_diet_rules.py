"""The diet filter and the allergen marks a customer relies on (kiosk.ordering.diet): which words
a product detail of either dialect carries, which option stays within a diet, the marks beside an
option, and the preselected choices swapped for a vegan who presses Add at once. Found untested
by the whole-module mutation run (tools/mutate.py, issue 32 item 8); builders from
tests/unit/test_diet.py."""

from __future__ import annotations

from typing import Any

from kiosk.api import ProductDetail
from kiosk.ordering import diet
from kiosk.ordering.modifiers import SelectionState
from tests.unit.test_diet import GLUTEN_FREE, NO_NUTS, VEGAN, VEGETARIAN, detail, product


def option(id: str, name: str, *tags: str, **extra: Any) -> dict[str, Any]:
    out: dict[str, Any] = {"id": id, "name": name, **extra}
    if tags:
        out["tags"] = list(tags)
    return out


def one_of(id: str, *items: dict[str, Any], lo: int = 1) -> dict[str, Any]:
    return {"id": id, "name": id.title(), "rule": {"min": lo, "max": 1}, "items": list(items)}


def dish(*groups: dict[str, Any], tags: list[str] | None = None, **extra: Any) -> ProductDetail:
    return ProductDetail.model_validate(
        {"id": "p", "name": "Dish", "tags": tags or [], "modifiers": list(groups), **extra}
    )


def items(product: ProductDetail, group: int = 0) -> list[Any]:
    return list(product.modifiers[group].items)


# -- what a record carries ----------------------------------------------------------------------


def test_a_product_detail_of_2_0_carries_its_diet_and_allergen_words() -> None:
    bowl = dish(
        nutrition={"dietaryPreferences": ["Vegan"]},
        allergens=["Sesame", {"code": "x"}, None, ["soy"]],
    )
    m = diet.marks(bowl)
    assert m.diets == {"vegan", "vegetarian"}
    assert m.allergens == {"sesame"}
    assert m.labels() == ["vegan", "sesame"]
    assert diet.verdict(NO_NUTS, bowl) == "no nuts mark"


def test_an_options_allergens_are_marked_beside_it() -> None:
    burger = dish(one_of("bun", option("brioche", "Brioche", allergens=["egg", "Milk"])))
    assert diet.option_labels(None, items(burger)[0], burger) == ["egg", "dairy"]


def test_an_option_with_an_empty_tag_list_has_no_marks() -> None:
    burger = dish(one_of("bun", option("plain", "Plain", tags=[])))
    assert diet.option_labels(VEGAN, items(burger)[0], burger) == []


def test_a_word_said_twice_or_empty_is_one_mark_or_none() -> None:
    m = diet.marks(product(["Spicy", "spicy", "", "House special", "house_special"]))
    assert m.labels() == ["spicy", "house-special"]


def test_a_spicy_mark_has_its_code_and_a_long_house_word_is_cut_to_sixteen() -> None:
    m = diet.marks(product(["spicy", "house-special-of-the-day"]))
    assert m.codes() == [("HOT", "spicy"), ("house-special-of", "")]


# -- which products and options stay within a diet -----------------------------------------------


def test_a_vegan_option_is_a_vegetarian_choice_too() -> None:
    burger = detail([], [option("beef", "Beef", "meat"), option("plant", "Plant patty", "vegan")])
    assert diet.verdict(VEGETARIAN, burger) == "has a vegetarian choice"
    assert diet.option_fits(VEGETARIAN, items(burger)[1], burger)


def test_a_product_whose_options_all_leave_the_diet_offers_no_choice_of_it() -> None:
    burger = detail([], [option("beef", "Beef", "meat"), option("cheese", "Cheese", "dairy")])
    assert diet.verdict(VEGAN, burger) is None
    assert diet.verdict(VEGETARIAN, burger) is None


def test_a_vegan_choice_nested_under_another_option_counts() -> None:
    patty = one_of("patty", option("beef", "Beef", "meat"), option("plant", "Plant", "vegan"))
    burger = dish(one_of("kind", option("classic", "Classic", childGroups=[{"group": patty}])))
    assert diet.verdict(VEGAN, burger) == "has a vegan choice"
    beef = burger.modifiers[0].items[0].child_groups[0].group.items[0]  # type: ignore[union-attr]
    # Beside a vegan patty, an untagged one is the other way, nested as on top.
    unmarked = patty | {"items": [option("beef", "Beef"), option("plant", "Plant", "vegan")]}
    nested = dish(one_of("kind", option("classic", "Classic", childGroups=[{"group": unmarked}])))
    plain_beef = nested.modifiers[0].items[0].child_groups[0].group.items[0]  # type: ignore[union-attr]
    assert not diet.option_fits(VEGAN, beef, burger)
    assert not diet.option_fits(VEGAN, plain_beef, nested)


def test_a_size_adds_nothing_that_leaves_the_diet_on_a_product_with_a_vegan_choice() -> None:
    latte = dish(
        one_of("size", option("regular", "Regular"), option("large", "Large")),
        one_of("protein", option("beef", "Beef"), option("plant", "Plant", "vegan")),
    )
    regular, large = items(latte, 0)
    beef, plant = items(latte, 1)
    assert diet.option_fits(VEGAN, large, latte)
    assert diet.option_fits(VEGAN, regular, latte)
    assert not diet.option_fits(VEGAN, beef, latte)
    assert diet.option_fits(VEGAN, plant, latte)
    # An option the product does not list has no siblings to say otherwise.
    assert diet.option_fits(VEGAN, large, dish())


def test_without_a_filter_every_option_fits_and_no_nuts_judges_each_options_own_marks() -> None:
    bowl = detail(
        [], [option("tofu", "Tofu"), option("almond", "Almonds", "contains-nuts", "vegan")]
    )
    tofu, almond = items(bowl)
    assert diet.option_fits(None, almond, bowl) is True
    assert diet.option_fits(NO_NUTS, tofu, bowl) is True
    assert not diet.option_fits(NO_NUTS, almond, bowl)


# -- the marks beside an option -------------------------------------------------------------------


def test_an_options_diet_comes_before_its_allergens_and_not_of_the_diet_before_all() -> None:
    bowl = detail(
        [],
        [
            option("cashew", "Cashew cream", "vegan", "contains-nuts"),
            option("beef", "Beef", "meat", "sesame"),
            option("omelette", "Omelette", "vegetarian", "egg"),
        ],
    )
    cashew, beef, omelette = items(bowl)
    assert diet.option_labels(None, cashew, bowl) == ["vegan", "contains nuts"]
    assert diet.option_labels(VEGAN, beef, bowl) == ["not vegan", "sesame"]
    assert diet.option_labels(None, omelette, bowl) == ["vegetarian", "egg"]
    assert diet.option_labels(GLUTEN_FREE, omelette, bowl) == ["vegetarian", "egg"]


def test_a_mark_the_options_name_already_says_is_not_said_twice() -> None:
    bowl = detail([], [option("pecan", "Pecans (contains nuts)", "contains-nuts")])
    assert diet.option_labels(None, items(bowl)[0], bowl) == []


# -- preselected choices for a diet ---------------------------------------------------------------


def _latte() -> ProductDetail:
    return dish(
        one_of(
            "milk",
            option("whole", "Whole milk", "dairy", isDefault=True),
            option("oat", "Oat milk", "vegan"),
        ),
        one_of("shot", option("single", "Single"), option("double", "Double"), lo=0),
        one_of(
            "sweet",
            option("honey", "Honey", "honey", isDefault=True),
            option("agave", "Agave", "vegan"),
        ),
        {
            "id": "extras",
            "name": "Extras",
            "rule": {"min": 0, "max": 2},
            "items": [option("cream", "Cream", "dairy", isDefault=True), option("cocoa", "Cocoa")],
        },
        tags=["vegan-option"],
    )


def test_a_vegan_pressing_add_at_once_gets_every_one_of_choice_swapped_to_a_fitting_one() -> None:
    latte = _latte()
    start = SelectionState.for_product(latte)
    state, swaps = diet.fitting_choices(VEGAN, start, latte)
    assert swaps == [("Whole milk", "Oat milk"), ("Honey", "Agave")]
    assert state.quantity(("milk", "oat")) == 1 and state.quantity(("milk", "whole")) == 0
    assert state.quantity(("sweet", "agave")) == 1
    # Only one-of choices are swapped: a chosen extra is the customer's to remove.
    assert state.quantity(("extras", "cream")) == 1
    assert state.quantity(("shot", "single")) == 0 and state.quantity(("shot", "double")) == 0


def test_without_a_filter_or_a_fitting_option_nothing_is_swapped() -> None:
    latte = _latte()
    start = SelectionState.for_product(latte)
    assert diet.fitting_choices(None, start, latte) == (start, [])
    nothing_fits = dish(
        one_of(
            "milk",
            option("whole", "Whole milk", "dairy", isDefault=True),
            option("skim", "Skim milk", "dairy"),
        )
    )
    start = SelectionState.for_product(nothing_fits)
    assert diet.fitting_choices(VEGAN, start, nothing_fits) == (start, [])


def test_a_sold_out_fitting_option_is_passed_over() -> None:
    latte = dish(
        one_of(
            "milk",
            option("whole", "Whole milk", "dairy", isDefault=True),
            option("soy", "Soy milk", "vegan", maxQuantity=0),
            option("oat", "Oat milk", "vegan"),
        ),
        tags=["vegan-option"],
    )
    state, swaps = diet.fitting_choices(VEGAN, SelectionState.for_product(latte), latte)
    assert swaps == [("Whole milk", "Oat milk")]
    assert state.quantity(("milk", "oat")) == 1
