"""The modifier rules a customer meets choosing a product's options (kiosk.ordering.modifiers):
what each group's rule says in words, which key may add one more, what a choice costs and how a
choice read back from a resume or a re-read menu is judged. Found untested by the whole-module
mutation run (tools/mutate.py, issue 32 item 8); builders from tests/unit/test_modifiers.py."""

from __future__ import annotations

from types import SimpleNamespace

from kiosk.ordering.modifiers import OptionView, SelectionState
from tests.unit.test_modifiers import EXTRAS, SAUCES, SIZE, group, item, product


def _option(state: SelectionState, key: tuple[str, ...]) -> OptionView:
    return next(o for o in state.group(key[:-1]).options if o.key == key)


# -- the rule in words --------------------------------------------------------------------------


def test_each_kind_of_rule_is_said_in_its_own_words() -> None:
    two_to_three = group("sides", 2, 3, item("fries"), item("salad"), item("slaw"), item("rice"))
    at_least_one = group("toppings", 1, None, item("onion"), item("pickle"))
    exactly_two_of_two = group("buns", 2, 2, item("top"), item("bottom"))
    state = SelectionState.for_product(product(two_to_three, at_least_one, exactly_two_of_two))
    assert state.group(("sides",)).rule_text == "choose 2 to 3"
    assert state.group(("toppings",)).rule_text == "required · choose at least 1"
    # Choosing all of them needs no "of 2".
    assert state.group(("buns",)).rule_text == "choose 2"


def test_a_sold_out_option_is_not_counted_among_those_to_choose_from() -> None:
    sides = group("sides", 2, 2, item("fries"), item("salad"), item("slaw", max_quantity=0))
    state = SelectionState.for_product(product(sides))
    assert state.group(("sides",)).rule_text == "choose 2"


def test_a_group_header_says_what_is_wrong_after_the_rule_and_the_counter() -> None:
    state = SelectionState.for_product(product(SIZE))
    assert state.group(("size",)).status_text == "required · choose 1 · 0/1 chosen · choose 1 more"


def test_an_optional_group_is_not_required_and_a_required_one_is() -> None:
    state = SelectionState.for_product(product(SIZE, SAUCES))
    assert state.group(("size",)).required
    assert not state.group(("sauces",)).required


# -- starting choices ---------------------------------------------------------------------------


def test_an_optional_group_with_one_option_starts_empty() -> None:
    state = SelectionState.for_product(product(group("straw", 0, 1, item("paper"))))
    assert state.quantity(("straw", "paper")) == 0
    assert state.to_request() == []


def test_a_default_options_child_defaults_are_chosen_from_the_start() -> None:
    ice = group("ice", 0, 1, item("no_ice", default=True), item("extra_ice"))
    size = group("drink_size", 1, 1, item("reg", default=True, children=[ice]), item("big"))
    drink = group("drink", 0, 1, item("cola", default=True, children=[size]))
    state = SelectionState.for_product(product(drink))
    assert state.quantity(("drink", "cola", "drink_size", "reg")) == 1
    assert state.quantity(("drink", "cola", "drink_size", "reg", "ice", "no_ice")) == 1
    assert state.describe() == ["Cola", "Reg", "No_Ice"]


def test_the_state_names_its_product() -> None:
    burger = product(SIZE)
    assert SelectionState.for_product(burger).product is burger


# -- one more of an option ----------------------------------------------------------------------


def test_in_a_radio_group_a_chosen_option_cannot_go_higher_and_the_others_can_replace_it() -> None:
    # "large" may be ordered twice on its own, but the group holds one option at quantity one.
    size = group("size", 1, 1, item("small"), item("large", max_quantity=2))
    state = SelectionState.for_product(product(size)).select(("size", "large"))
    assert not _option(state, ("size", "large")).can_increase
    assert _option(state, ("size", "small")).can_increase
    assert state.increment(("size", "large")).quantity(("size", "large")) == 1


def test_in_a_group_of_several_a_chosen_option_can_go_up_to_its_own_limit() -> None:
    two = group("extras", 0, 2, item("cheese", max_quantity=3), item("onion", max_quantity=3))
    state = SelectionState.for_product(product(two)).toggle(("extras", "cheese"))
    assert _option(state, ("extras", "cheese")).can_increase
    state = state.increment(("extras", "cheese"))
    assert not _option(state, ("extras", "cheese")).can_increase  # the group is full


def test_toggling_an_option_chooses_one_and_plus_adds_one() -> None:
    state = SelectionState.for_product(product(EXTRAS)).toggle(("extras", "cheese"))
    assert state.quantity(("extras", "cheese")) == 1
    assert state.increment(("extras", "cheese")).quantity(("extras", "cheese")) == 2


# -- a choice read back (a resume, a menu re-read) -----------------------------------------------


def test_a_choice_over_the_groups_max_says_how_many_to_remove() -> None:
    chosen = {("sauces", "ketchup"): 1, ("sauces", "mayo"): 1, ("sauces", "bbq"): 1}
    state = SelectionState(product(SAUCES), chosen)
    assert not state.is_valid
    assert state.group(("sauces",)).error == "too many: remove 1"


def test_an_option_over_its_own_limit_says_the_limit() -> None:
    state = SelectionState(product(EXTRAS), {("extras", "cheese"): 4})
    assert state.errors == {("extras",): "at most 3 × Cheese"}


def test_an_option_at_quantity_zero_is_no_choice() -> None:
    burger = product(SIZE, EXTRAS)
    assert SelectionState(burger, {("extras", "cheese"): 0}) == SelectionState(burger)
    assert SelectionState(burger, {("extras", "cheese"): 0}).to_request() == []


def test_choosing_the_chosen_option_again_changes_nothing_and_keeps_the_servers_word() -> None:
    state = SelectionState.for_product(product(SIZE)).select(("size", "small"))
    refused = state.with_server_error("size", "Small is no longer offered")
    again = refused.set_quantity(("size", "small"), 1)
    assert again.group(("size",)).error == "Small is no longer offered"
    assert again == refused


def test_a_radio_group_holding_two_keeps_only_the_one_chosen_again() -> None:
    # Read back from a menu whose size group became a radio group.
    state = SelectionState(product(SIZE), {("size", "small"): 1, ("size", "large"): 1})
    assert state.group(("size",)).error == "too many: remove 1"
    state = state.set_quantity(("size", "large"), 1)
    assert state.quantity(("size", "small")) == 0
    assert state.quantity(("size", "large")) == 1
    assert state.is_valid


def test_a_server_refusal_is_found_by_its_group_id() -> None:
    state = SelectionState.for_product(product(SIZE, SAUCES))
    found = state.find_group("sauces")
    assert found is not None and found.key == ("sauces",)
    assert state.find_group("drinks") is None


# -- the preview price --------------------------------------------------------------------------


def test_no_line_costs_nothing() -> None:
    state = SelectionState.for_product(product(SIZE)).select(("size", "large"))
    assert state.preview_line_total_minor(2) == 2 * 1200
    assert state.preview_line_total_minor(0) == 0
    assert state.preview_line_total_minor(-1) == 0


# -- any menu shape -------------------------------------------------------------------------------


def test_a_menu_with_fields_left_out_reads_as_the_contracts_defaults() -> None:
    # No rule: optional, no bound; no maxQuantity: at most one; no isDefault: not chosen; no
    # price: free; a child link without its group: nothing under the option.
    plain = SimpleNamespace(id="pickle", name="Pickle", child_groups=[SimpleNamespace()])
    nulled = SimpleNamespace(
        id="onion", name="Onion", price=50, max_quantity=None, is_default=False, child_groups=[]
    )
    toppings = SimpleNamespace(id="toppings", name="Toppings", rule=None, items=[plain, nulled])
    burger = SimpleNamespace(price=1000, modifiers=[toppings])
    state = SelectionState.for_product(burger)
    assert state.is_valid and state.to_request() == []
    view = state.group(("toppings",))
    assert (view.min, view.max, view.required) == (0, None, False)
    assert [o.max_quantity for o in view.options] == [1, 1]
    state = state.set_quantity(("toppings", "pickle"), 5).set_quantity(("toppings", "onion"), 5)
    assert state.quantity(("toppings", "pickle")) == 1
    assert state.quantity(("toppings", "onion")) == 1
    assert state.preview_unit_price_minor() == 1050
    assert [g.key for g in state.groups()] == [("toppings",)]


# -- states as values ---------------------------------------------------------------------------


def test_equal_choices_are_one_value_and_say_what_is_chosen() -> None:
    burger = product(SIZE, EXTRAS)
    a = SelectionState.for_product(burger).select(("size", "large"))
    b = SelectionState(burger, {("size", "large"): 1})
    assert len({a, b}) == 1
    both = b.set_quantity(("extras", "cheese"), 2)
    assert repr(both) == "SelectionState(extras/cheese=2, size/large=1)"
