"""Editing a cart line's choices (Visit.replace_line): the same choices change the quantity in
place; new choices add the new line first and remove the old one after, so a failed second write
leaves both lines, never neither."""

from __future__ import annotations

import pytest

from kiosk.ordering.modifiers import SelectionState
from kiosk.ordering.visit import LineKeptError, same_selections, selection_for_line
from tests.support.ordering_rig import V1_ONLY_FAULT, V1_ONLY_ROUTES, demo_rig

# Each test on the legacy API and on 2.0 (tests/unit/conftest.py).
pytestmark = pytest.mark.usefixtures("rig_dialect")


def _chosen(state: SelectionState) -> list[str]:
    return sorted(o["optionId"] for g in state.to_request() for o in g["selectedOptions"])


@pytest.mark.only_dialect("v1", reason=V1_ONLY_ROUTES)
async def test_new_choices_are_added_before_the_old_line_is_removed() -> None:
    async with demo_rig() as rig:
        visit = rig.visit()
        await visit.start("pickup")
        latte = await visit.product("prd_latte")
        await visit.add_item("prd_latte", 2, SelectionState.for_product(latte))
        assert visit.cart is not None
        old = visit.cart.items[0]
        state = selection_for_line(latte, old)
        assert _chosen(state) == ["opt_milk_whole", "opt_size_medium"]
        large = state.select(("grp_drink_size", "opt_size_large"))
        rig.transport.sent.clear()
        cart = await visit.replace_line(old.id, 3, large)
        assert cart is not None and [(i.quantity, i.id != old.id) for i in cart.items] == [
            (3, True)
        ]
        assert _chosen(selection_for_line(latte, cart.items[0])) == [
            "opt_milk_whole",
            "opt_size_large",
        ]
        writes = [r for r in rig.transport.sent if not r.startswith("GET")]
        assert writes[0].startswith("POST") and writes[0].endswith("/cart-item")
        assert writes[-1].endswith(f"/{old.id}/quantity")


async def test_same_choices_change_the_quantity_in_place() -> None:
    async with demo_rig() as rig:
        visit = rig.visit()
        await visit.start("pickup")
        latte = await visit.product("prd_latte")
        await visit.add_item("prd_latte", 1, SelectionState.for_product(latte))
        assert visit.cart is not None
        old = visit.cart.items[0]
        assert same_selections(old.selections, SelectionState.for_product(latte).to_request())
        rig.transport.sent.clear()
        cart = await visit.replace_line(old.id, 4, selection_for_line(latte, old))
        assert cart is not None and [(i.id, i.quantity) for i in cart.items] == [(old.id, 4)]
        assert not any(r.startswith("POST") for r in rig.transport.sent)


@pytest.mark.only_dialect("v1", reason=V1_ONLY_FAULT)
async def test_a_failed_removal_keeps_both_lines_and_says_so() -> None:
    async with demo_rig() as rig:
        visit = rig.visit()
        await visit.start("pickup")
        latte = await visit.product("prd_latte")
        await visit.add_item("prd_latte", 1, SelectionState.for_product(latte))
        assert visit.cart is not None
        old = visit.cart.items[0]
        oat = selection_for_line(latte, old).select(("grp_milk", "opt_milk_oat"))
        for _ in range(20):  # the removal never gets through
            rig.transport.fail_next("PATCH", "/quantity", when="before")
        with pytest.raises(LineKeptError, match="old line is still in your order"):
            await visit.replace_line(old.id, 1, oat)
        server = rig.server_cart(visit.cart_id or "")
        assert server is not None and len(server["items"]) == 2
        assert visit.cart is not None and len(visit.cart.items) == 2


@pytest.mark.only_dialect("v1", reason=V1_ONLY_FAULT)
async def test_a_failed_add_leaves_the_line_as_it_was() -> None:
    async with demo_rig() as rig:
        visit = rig.visit()
        await visit.start("pickup")
        latte = await visit.product("prd_latte")
        await visit.add_item("prd_latte", 1, SelectionState.for_product(latte))
        assert visit.cart is not None
        old = visit.cart.items[0]
        oat = selection_for_line(latte, old).select(("grp_milk", "opt_milk_oat"))
        for _ in range(20):
            rig.transport.fail_next("POST", "/cart-item", when="before")
        with pytest.raises(Exception):  # noqa: B017 - whichever error the network gave
            await visit.replace_line(old.id, 1, oat)
        server = rig.server_cart(visit.cart_id or "")
        assert server is not None and [i["id"] for i in server["items"]] == [old.id]
