"""A cart line's chosen options in every shape a server echoes them (kiosk.ordering.selections):
listed for the screens, named or left as ids, sent again, compared. Pure. Found untested by the
whole-module mutation run (tools/mutate.py, issue 32 item 8)."""

from __future__ import annotations

from typing import Any

from kiosk.ordering.selections import (
    echoed_name,
    echoed_options,
    request_selections,
    same_selections,
    unnamed_options,
)


def _listed(entries: Any) -> list[tuple[int, str]]:
    return [(depth, entry["optionId"]) for depth, entry in echoed_options(entries)]


def test_every_echo_shape_lists_its_options_in_order_and_skips_what_is_not_an_option() -> None:
    groups = [
        {"groupId": "size", "selectedOptions": [{"optionId": "large"}]},
        {"groupId": "milk", "options": [{"optionId": "oat"}]},
        {"groupId": "extras", "items": [{"optionId": "shot"}, "junk", 7]},
        {"optionId": "flat"},  # a flat option entry, no group around it
        "not an entry",
    ]
    assert _listed(groups) == [(0, "large"), (0, "oat"), (0, "shot"), (0, "flat")]
    assert _listed("not a list") == [] and _listed(None) == []


def test_a_grandchild_choice_is_listed_two_deeper_than_its_grandparent() -> None:
    groups = [
        {
            "groupId": "side",
            "selectedOptions": [
                {
                    "optionId": "fries",
                    "children": [
                        {
                            "groupId": "dip",
                            "selectedOptions": [
                                {
                                    "optionId": "bbq",
                                    "children": [
                                        {
                                            "groupId": "heat",
                                            "selectedOptions": [{"optionId": "hot"}],
                                        }
                                    ],
                                }
                            ],
                        }
                    ],
                },
                {"optionId": "salad"},
            ],
        }
    ]
    assert _listed(groups) == [(0, "fries"), (1, "bbq"), (2, "hot"), (0, "salad")]


def test_an_options_name_is_its_name_or_option_name_never_an_empty_or_odd_value() -> None:
    assert echoed_name({"name": "Oat"}) == "Oat"
    assert echoed_name({"optionName": "Oat milk"}) == "Oat milk"
    assert echoed_name({"name": "Oat", "optionName": "Oat milk"}) == "Oat"
    assert echoed_name({"name": "", "optionName": "Oat milk"}) == "Oat milk"
    assert echoed_name({"name": 7}) is None
    assert echoed_name({"name": ""}) is None
    assert echoed_name({}) is None


def test_only_options_echoed_without_a_name_and_not_learned_are_shown_as_ids() -> None:
    groups = [
        {
            "groupId": "milk",
            "selectedOptions": [
                {"optionId": "oat", "name": "Oat"},
                {"optionId": "soy"},
                {"optionId": "rice"},
                {"name": "No id"},
                {"optionId": 42},
            ],
        }
    ]
    assert unnamed_options(groups, {}) == ["soy", "rice"]
    assert unnamed_options(groups, {"rice": "Rice milk"}) == ["soy"]
    assert unnamed_options([], {}) == []


def test_a_line_is_sent_again_with_its_groups_options_quantities_and_children() -> None:
    echoed = [
        {
            "groupId": "size",
            "name": "Size",
            "selectedOptions": [{"optionId": "large", "name": "Large", "price": "1.00"}],
        },
        {
            "groupId": "extras",
            "selectedOptions": [
                {"optionId": "shot", "quantity": 2},
                {"optionId": 5},
                "junk",
                {
                    "optionId": "syrup",
                    "children": [
                        {"groupId": "flavour", "selectedOptions": [{"optionId": "vanilla"}]}
                    ],
                },
            ],
        },
        {"groupId": "empty", "selectedOptions": [{"name": "no id"}]},
        {"groupId": "none"},
        {"selectedOptions": [{"optionId": "orphan"}]},
        {"groupId": 3, "selectedOptions": [{"optionId": "bad group"}]},
        "junk",
    ]
    assert request_selections(echoed) == [
        {"groupId": "size", "selectedOptions": [{"optionId": "large", "quantity": 1}]},
        {
            "groupId": "extras",
            "selectedOptions": [
                {"optionId": "shot", "quantity": 2},
                {
                    "optionId": "syrup",
                    "quantity": 1,
                    "children": [
                        {
                            "groupId": "flavour",
                            "selectedOptions": [{"optionId": "vanilla", "quantity": 1}],
                        }
                    ],
                },
            ],
        },
    ]
    assert request_selections(None) == [] and request_selections("x") == []


def test_two_lines_are_the_same_choice_in_any_order_and_differ_by_any_option_or_count() -> None:
    a = [
        {"groupId": "size", "selectedOptions": [{"optionId": "large"}]},
        {
            "groupId": "extras",
            "selectedOptions": [{"optionId": "shot", "quantity": 2}, {"optionId": "cream"}],
        },
    ]
    reordered = [
        {
            "groupId": "extras",
            "selectedOptions": [
                {"optionId": "cream", "quantity": 1},
                {"optionId": "shot", "quantity": 2, "name": "Shot"},
            ],
        },
        {"groupId": "size", "selectedOptions": [{"optionId": "large"}]},
    ]
    assert same_selections(a, reordered) is True
    one_shot = [
        a[0],
        {"groupId": "extras", "selectedOptions": [{"optionId": "shot"}, {"optionId": "cream"}]},
    ]
    assert same_selections(a, one_shot) is False
    other_option = [
        a[0],
        {
            "groupId": "extras",
            "selectedOptions": [{"optionId": "shot", "quantity": 2}, {"optionId": "foam"}],
        },
    ]
    assert same_selections(a, other_option) is False
    other_group = [{"groupId": "cup", "selectedOptions": [{"optionId": "large"}]}, a[1]]
    assert same_selections(a, other_group) is False
    assert same_selections(a, []) is False
    assert same_selections([], None) is True


def test_two_lines_differ_when_only_a_child_choice_differs() -> None:
    def syrup(flavour: str) -> list[dict[str, Any]]:
        child = {"groupId": "flavour", "selectedOptions": [{"optionId": flavour}]}
        return [
            {"groupId": "extras", "selectedOptions": [{"optionId": "syrup", "children": [child]}]}
        ]

    assert same_selections(syrup("vanilla"), syrup("vanilla")) is True
    assert same_selections(syrup("vanilla"), syrup("caramel")) is False
