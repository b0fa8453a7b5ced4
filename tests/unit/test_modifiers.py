"""The modifier selection rules (kiosk.ordering.modifiers), on products parsed by the API models."""

from __future__ import annotations

import json
from typing import Any

import pytest

from kiosk.api.models import ProductDetail
from kiosk.ordering.modifiers import SelectionState
from tests.api.conftest import vendor_fixture


def item(
    id: str,
    price: str = "0.00",
    *,
    max_quantity: int = 1,
    default: bool = False,
    children: list[dict[str, Any]] | None = None,
) -> dict[str, Any]:
    out: dict[str, Any] = {"id": id, "name": id.title(), "price": price}
    out["maxQuantity"] = max_quantity
    if default:
        out["isDefault"] = True
    if children:
        out["childGroups"] = [{"groupId": c["id"], "group": c} for c in children]
    return out


def group(id: str, lo: int, hi: int | None, *items: dict[str, Any]) -> dict[str, Any]:
    return {"id": id, "name": id.title(), "rule": {"min": lo, "max": hi}, "items": list(items)}


def product(*groups: dict[str, Any], price: str = "10.00") -> ProductDetail:
    return ProductDetail.model_validate(
        {"id": "p1", "name": "Burger", "price": price, "modifiers": list(groups)}
    )


SIZE = group("size", 1, 1, item("small"), item("medium", "1.00"), item("large", "2.00"))
SAUCES = group(
    "sauces",
    0,
    2,
    item("ketchup"),
    item("mayo", "0.25"),
    item("bbq", "0.50"),
)
EXTRAS = group("extras", 0, 5, item("cheese", "0.75", max_quantity=3), item("bacon", "1.50"))


def test_a_required_group_is_invalid_until_chosen_and_says_so() -> None:
    state = SelectionState.for_product(product(SAUCES, SIZE))
    assert not state.is_valid
    size = state.group(("size",))
    assert size.required and size.single
    assert size.error == "choose 1 more"
    assert size.rule_text == "required · choose 1"
    assert size.progress_text == "0/1 chosen"
    assert state.first_invalid() is not None and state.first_invalid().key == ("size",)
    chosen = state.toggle(("size", "medium"))
    assert chosen.is_valid
    assert chosen.group(("size",)).progress_text == "1/1 chosen"
    assert chosen.errors == {}


def test_required_groups_come_first_keeping_menu_order_otherwise() -> None:
    extras_required = group("extras", 1, 5, item("cheese"))
    state = SelectionState.for_product(product(SAUCES, SIZE, EXTRAS, extras_required))
    # "extras" appears twice in the menu; both keep their relative order within their class.
    assert [g.id for g in state.groups()] == ["size", "extras", "sauces", "extras"]


def test_radio_group_choice_replaces_the_previous_one() -> None:
    state = SelectionState.for_product(product(SIZE))
    state = state.toggle(("size", "small")).toggle(("size", "large"))
    assert state.quantity(("size", "small")) == 0
    assert state.quantity(("size", "large")) == 1
    assert state.select(("size", "medium")).to_request() == [
        {"groupId": "size", "selectedOptions": [{"optionId": "medium", "quantity": 1}]}
    ]
    # Toggling the chosen option of a required radio group unchooses it (the counter says why).
    assert not state.toggle(("size", "large")).is_valid


def test_a_full_group_refuses_one_more_and_says_how_full_it_is() -> None:
    state = SelectionState.for_product(product(SAUCES))
    state = state.toggle(("sauces", "ketchup")).toggle(("sauces", "mayo"))
    view = state.group(("sauces",))
    assert view.progress_text == "2/2 chosen"
    assert view.rule_text == "optional · up to 2"
    assert not next(o for o in view.options if o.id == "bbq").can_increase
    assert state.toggle(("sauces", "bbq")) is state
    assert state.set_quantity(("sauces", "bbq"), 1) is state
    assert state.is_valid


def test_option_quantities_are_clamped_to_max_quantity_and_to_the_group_max() -> None:
    state = SelectionState.for_product(product(EXTRAS))
    state = state.set_quantity(("extras", "cheese"), 10)
    assert state.quantity(("extras", "cheese")) == 3  # its maxQuantity
    state = state.set_quantity(("extras", "bacon"), 5)
    assert state.quantity(("extras", "bacon")) == 1  # its maxQuantity is 1
    state = state.decrement(("extras", "cheese"))
    assert state.quantity(("extras", "cheese")) == 2
    state = state.increment(("extras", "cheese")).increment(("extras", "cheese"))
    assert state.quantity(("extras", "cheese")) == 3
    assert state.group(("extras",)).chosen_count == 4
    assert state.set_quantity(("extras", "cheese"), 0).quantity(("extras", "cheese")) == 0


def test_group_max_caps_the_sum_of_quantities() -> None:
    two = group("extras", 0, 2, item("cheese", max_quantity=3), item("onion", max_quantity=3))
    state = SelectionState.for_product(product(two)).set_quantity(("extras", "cheese"), 2)
    assert state.increment(("extras", "onion")) is state  # 2 + 1 > max 2
    state = state.decrement(("extras", "cheese")).increment(("extras", "onion"))
    assert state.group(("extras",)).chosen_count == 2


def test_choose_exactly_two_of_three() -> None:
    pick2 = group("sides", 2, 2, item("fries"), item("salad"), item("slaw"))
    state = SelectionState.for_product(product(pick2))
    view = state.group(("sides",))
    assert view.rule_text == "choose 2 of 3"
    assert view.error == "choose 2 more"
    state = state.toggle(("sides", "fries"))
    assert state.group(("sides",)).error == "choose 1 more"
    state = state.toggle(("sides", "slaw"))
    assert state.is_valid
    assert state.group(("sides",)).status_text == "choose 2 of 3 · 2/2 chosen"


def test_a_sold_out_option_cannot_be_chosen_and_is_not_a_default() -> None:
    sized = group(
        "size",
        1,
        1,
        item("small", max_quantity=0, default=True),
        item("large", "2.00"),
    )
    state = SelectionState.for_product(product(sized))
    small = state.group(("size",)).options[0]
    assert small.sold_out and not small.can_increase and small.max_quantity == 0
    # The sold-out default is not pre-selected; the only selectable option is filled in instead.
    assert state.quantity(("size", "small")) == 0
    assert state.quantity(("size", "large")) == 1
    assert state.toggle(("size", "small")) == state.set_quantity(("size", "small"), 0)
    assert state.select(("size", "small")) is state
    assert state.set_quantity(("size", "small"), 1) is state


def test_a_sold_out_option_in_a_state_is_reported_as_an_error() -> None:
    # A state built with a choice that became sold out (e.g. the product detail was re-read).
    sold = product(group("size", 1, 1, item("small", max_quantity=0)))
    state = SelectionState(sold, {("size", "small"): 1})
    assert not state.is_valid
    assert state.group(("size",)).error == "Small is sold out"


def test_defaults_are_preselected_within_the_group_max() -> None:
    many = group(
        "sauces",
        0,
        2,
        item("ketchup", default=True),
        item("mayo", default=True),
        item("bbq", default=True),
    )
    radio = group("size", 1, 1, item("small", default=True), item("large", default=True))
    state = SelectionState.for_product(product(many, radio))
    assert state.quantity(("sauces", "ketchup")) == 1
    assert state.quantity(("sauces", "mayo")) == 1
    assert state.quantity(("sauces", "bbq")) == 0
    assert state.quantity(("size", "small")) == 1
    assert state.quantity(("size", "large")) == 0
    assert state.is_valid


def _combo() -> ProductDetail:
    dip = group("dip", 1, 1, item("ranch", default=True), item("blue", "0.50"))
    drink_size = group("drink_size", 1, 1, item("reg"), item("big", "1.00"))
    ice = group("ice", 0, 1, item("no_ice"), item("extra_ice"))
    sizes = [item("reg", children=[ice]), item("big", "1.00")]
    drink_size_with_ice = {**drink_size, "items": sizes}
    main = group(
        "main",
        1,
        1,
        item("wings", "2.00", children=[dip]),
        item("tenders", "1.00", children=[dip]),
        item("plain"),
    )
    drink = group("drink", 0, 1, item("cola", "1.50", children=[drink_size_with_ice]))
    return product(drink, main)


def test_child_groups_show_and_count_only_under_a_chosen_parent() -> None:
    state = SelectionState.for_product(_combo())
    assert [g.key for g in state.groups()] == [("main",), ("drink",)]
    assert not state.is_valid  # main is required
    state = state.toggle(("main", "plain"))
    assert state.is_valid
    state = state.toggle(("drink", "cola"))
    # The drink's size group is required, but only now that cola is chosen.
    keys = [g.key for g in state.groups()]
    assert keys == [("main",), ("drink",), ("drink", "cola", "drink_size")]
    child = state.group(("drink", "cola", "drink_size"))
    assert child.depth == 1 and child.parent == ("drink", "cola")
    assert not state.is_valid
    state = state.toggle(("drink", "cola", "drink_size", "reg"))
    assert state.is_valid
    # A grandchild group (optional) under the chosen regular size.
    assert ("drink", "cola", "drink_size", "reg", "ice") in [g.key for g in state.groups()]


def test_choosing_a_parent_preselects_its_childrens_defaults() -> None:
    state = SelectionState.for_product(_combo()).toggle(("main", "wings"))
    view = state.group(("main", "wings", "dip"))
    assert view.required and view.is_valid
    assert state.quantity(("main", "wings", "dip", "ranch")) == 1
    assert state.is_valid
    # Re-choosing the option it already has changes nothing.
    assert state.select(("main", "wings")).quantity(("main", "wings", "dip", "ranch")) == 1


def test_deselecting_a_parent_clears_its_children_at_every_depth() -> None:
    state = SelectionState.for_product(_combo()).toggle(("main", "plain"))
    state = state.toggle(("drink", "cola")).toggle(("drink", "cola", "drink_size", "reg"))
    state = state.toggle(("drink", "cola", "drink_size", "reg", "ice", "extra_ice"))
    assert state.quantity(("drink", "cola", "drink_size", "reg", "ice", "extra_ice")) == 1
    cleared = state.toggle(("drink", "cola"))
    assert cleared.quantity(("drink", "cola", "drink_size", "reg")) == 0
    assert cleared.quantity(("drink", "cola", "drink_size", "reg", "ice", "extra_ice")) == 0
    assert [g.key for g in cleared.groups()] == [("main",), ("drink",)]
    # Choosing cola again starts its children afresh.
    again = cleared.toggle(("drink", "cola"))
    assert again.quantity(("drink", "cola", "drink_size", "reg")) == 0
    # Switching the regular size to big drops the ice choice under regular.
    switched = state.select(("drink", "cola", "drink_size", "big"))
    assert switched.quantity(("drink", "cola", "drink_size", "reg", "ice", "extra_ice")) == 0


def test_the_same_child_group_under_two_options_is_two_separate_instances() -> None:
    state = SelectionState.for_product(_combo()).toggle(("main", "wings"))
    state = state.select(("main", "wings", "dip", "blue"))
    moved = state.select(("main", "tenders"))
    # The dip chosen under wings does not follow to tenders.
    assert moved.quantity(("main", "tenders", "dip", "blue")) == 0
    assert moved.quantity(("main", "tenders", "dip", "ranch")) == 1  # its own default
    assert moved.quantity(("main", "wings", "dip", "blue")) == 0
    assert moved.is_valid


def test_options_in_a_hidden_child_group_cannot_be_set() -> None:
    state = SelectionState.for_product(_combo())
    with pytest.raises(KeyError):
        state.toggle(("drink", "cola", "drink_size", "reg"))
    with pytest.raises(KeyError):
        state.toggle(("main", "nonexistent"))
    with pytest.raises(KeyError):
        state.group(("nope",))


def test_request_shape_nests_children_and_leaves_out_empty_groups() -> None:
    state = SelectionState.for_product(_combo()).toggle(("main", "wings"))
    state = state.select(("main", "wings", "dip", "blue"))
    state = state.toggle(("drink", "cola")).toggle(("drink", "cola", "drink_size", "big"))
    assert state.to_request() == [
        {
            "groupId": "main",
            "selectedOptions": [
                {
                    "optionId": "wings",
                    "quantity": 1,
                    "children": [
                        {"groupId": "dip", "selectedOptions": [{"optionId": "blue", "quantity": 1}]}
                    ],
                }
            ],
        },
        {
            "groupId": "drink",
            "selectedOptions": [
                {
                    "optionId": "cola",
                    "quantity": 1,
                    "children": [
                        {
                            "groupId": "drink_size",
                            "selectedOptions": [{"optionId": "big", "quantity": 1}],
                        }
                    ],
                }
            ],
        },
    ]
    assert json.loads(json.dumps(state.to_request())) == state.to_request()
    assert SelectionState.for_product(product(SAUCES)).to_request() == []


def test_preview_price_adds_every_chosen_delta_times_its_quantity() -> None:
    state = SelectionState.for_product(product(SIZE, EXTRAS, price="10.00"))
    assert state.preview_unit_price_minor() == 1000
    state = state.select(("size", "large")).set_quantity(("extras", "cheese"), 2)
    assert state.preview_unit_price_minor() == 1000 + 200 + 2 * 75
    assert state.preview_line_total_minor(3) == 3 * 1350
    nested = SelectionState.for_product(_combo()).toggle(("main", "wings"))
    nested = nested.select(("main", "wings", "dip", "blue"))
    assert nested.preview_unit_price_minor() == 1000 + 200 + 50
    assert state.describe() == ["Large", "2 × Cheese"]


def test_a_server_refusal_sits_at_its_group_until_that_group_changes() -> None:
    state = SelectionState.for_product(product(SIZE, SAUCES)).select(("size", "small"))
    refused = state.with_server_error("sauces", "Mayo is not available today")
    assert not refused.is_valid
    assert refused.find_group("sauces") is not None
    assert refused.group(("sauces",)).error == "Mayo is not available today"
    # Changing another group keeps the message; changing this one clears it.
    assert refused.select(("size", "large")).group(("sauces",)).error is not None
    assert refused.toggle(("sauces", "ketchup")).is_valid
    assert state.with_server_error(None, "x") is state


def test_states_are_immutable() -> None:
    start = SelectionState.for_product(product(SIZE, EXTRAS))
    changed = start.select(("size", "small")).increment(("extras", "cheese"))
    assert start.quantity(("size", "small")) == 0
    assert start.quantity(("extras", "cheese")) == 0
    assert changed != start
    assert start.select(("size", "small")) == start.select(("size", "small"))


def test_no_upper_bound_when_the_rule_has_no_max() -> None:
    legacy = {
        "id": "toppings",
        "name": "Toppings",
        "required": False,
        "quantity": 0,  # legacy: 0 means no limit
        "items": [item(f"t{i}") for i in range(8)],
    }
    state = SelectionState.for_product(product(legacy))
    for i in range(8):
        state = state.toggle(("toppings", f"t{i}"))
    view = state.group(("toppings",))
    assert view.max is None and view.chosen_count == 8 and view.is_valid
    assert view.progress_text == "8 chosen"
    assert view.rule_text == "optional"


def test_legacy_fixed_group_means_exactly_n() -> None:
    legacy = {
        "id": "pick",
        "name": "Pick",
        "required": True,
        "quantity": 2,
        "isFixed": True,
        "items": [item("a"), item("b"), item("c")],
    }
    state = SelectionState.for_product(product(legacy)).toggle(("pick", "a"))
    assert state.group(("pick",)).error == "choose 1 more"
    assert state.toggle(("pick", "b")).is_valid


def test_a_product_without_modifiers_is_valid_and_sends_nothing() -> None:
    state = SelectionState.for_product(product())
    assert state.is_valid and state.groups() == [] and state.to_request() == []
    assert state.preview_unit_price_minor() == 1000


def test_the_vendor_fixture_product_is_ready_to_add() -> None:
    detail = ProductDetail.model_validate(vendor_fixture("product.json"))
    state = SelectionState.for_product(detail)
    # Its one required group has one option: filled in for the customer.
    assert state.is_valid
    assert state.to_request() == [
        {"groupId": "modifier_01", "selectedOptions": [{"optionId": "option_01", "quantity": 1}]}
    ]
    assert state.preview_unit_price_minor() == 500
