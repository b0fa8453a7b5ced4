"""A line's chosen options as the server echoes them (kiosk.ordering.selections), children
included: a child choice is listed one deeper, and two lines differ when only a child differs."""

from __future__ import annotations

from kiosk.ordering.selections import (
    echoed_options,
    request_selections,
    same_selections,
    unnamed_options,
)

MILK = {
    "groupId": "grp_milk",
    "selectedOptions": [
        {
            "optionId": "opt_oat",
            "name": "Oat",
            "quantity": 1,
            "children": [
                {"groupId": "grp_foam", "selectedOptions": [{"optionId": "opt_extra_foam"}]}
            ],
        }
    ],
}


def test_a_child_choice_is_listed_one_deeper_than_its_parent() -> None:
    listed = [(depth, entry["optionId"]) for depth, entry in echoed_options([MILK])]
    assert listed == [(0, "opt_oat"), (1, "opt_extra_foam")]
    assert unnamed_options([MILK], {}) == ["opt_extra_foam"]
    assert unnamed_options([MILK], {"opt_extra_foam": "Extra foam"}) == []


def test_children_are_sent_again_and_compared() -> None:
    [group] = request_selections([MILK])
    assert group["selectedOptions"][0]["children"] == [
        {"groupId": "grp_foam", "selectedOptions": [{"optionId": "opt_extra_foam", "quantity": 1}]}
    ]
    no_foam = {
        "groupId": "grp_milk",
        "selectedOptions": [{"optionId": "opt_oat", "quantity": 1}],
    }
    assert not same_selections([MILK], [no_foam])
    assert same_selections([MILK], [group])
