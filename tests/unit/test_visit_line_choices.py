"""An edited cart line starts from the choices it was ordered with (Visit's selection_for_line),
child choices and odd quantities included; pure (no server). Found untested by the whole-module
mutation run of kiosk/ordering/visit.py (tools/mutate.py, issue 32 item 8)."""

from __future__ import annotations

from typing import Any

from kiosk.api.models import CartItem, ProductDetail
from kiosk.ordering.visit import selection_for_line


def _item(
    id: str, *, children: list[dict[str, Any]] | None = None, most: int = 3
) -> dict[str, Any]:
    out: dict[str, Any] = {"id": id, "name": id.title(), "price": "0.50", "maxQuantity": most}
    if children:
        out["childGroups"] = [{"groupId": c["id"], "group": c} for c in children]
    return out


def _group(id: str, *items: dict[str, Any]) -> dict[str, Any]:
    return {"id": id, "name": id.title(), "rule": {"min": 0, "max": 5}, "items": list(items)}


DIP = _group("dip", _item("ranch"), _item("bbq"))
MEAL = ProductDetail.model_validate(
    {
        "id": "p1",
        "name": "Wings",
        "price": "8.00",
        "modifiers": [_group("side", _item("fries", children=[DIP]), _item("salad"))],
    }
)


def _line(*options: dict[str, Any]) -> CartItem:
    return CartItem.model_validate(
        {
            "id": "line1",
            "productId": "p1",
            "quantity": 1,
            "selections": [{"groupId": "side", "selectedOptions": list(options)}],
        }
    )


def test_an_edited_line_keeps_the_choices_made_under_a_chosen_option() -> None:
    line = _line(
        {
            "optionId": "fries",
            "quantity": 1,
            "children": [
                {"groupId": "dip", "selectedOptions": [{"optionId": "bbq", "quantity": 2}]}
            ],
        }
    )
    state = selection_for_line(MEAL, line)
    assert state.quantity(("side", "fries")) == 1
    assert state.quantity(("side", "fries", "dip", "bbq")) == 2
    assert state.quantity(("side", "fries", "dip", "ranch")) == 0
    assert state.quantity(("side", "salad")) == 0


def test_an_edited_line_counts_an_option_echoed_without_a_usable_quantity_once() -> None:
    # No quantity, zero, a negative one or one that is not a whole number: chosen once.
    for quantity in (None, 0, -2, "2", 1.5):
        option: dict[str, Any] = {"optionId": "salad"}
        if quantity is not None:
            option["quantity"] = quantity
        state = selection_for_line(MEAL, _line(option))
        assert state.quantity(("side", "salad")) == 1, quantity
    assert (
        selection_for_line(MEAL, _line({"optionId": "salad", "quantity": 3})).quantity(
            ("side", "salad")
        )
        == 3
    )
