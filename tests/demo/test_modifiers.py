"""Every modifier-selection rule of the contract: the server refuses with 400
INVALID_MODIFIER_SELECTION naming modifierGroupId, and the cart stays as it was."""

from __future__ import annotations

from typing import Any

import httpx
import pytest

from kiosk.demo.backend import Backend

from .support import DT, LATTE_OK, Clock, add, get_cart, new_cart, sel

COMBO_OK = sel(
    "grp_combo",
    "opt_combo_yes",
    opt_combo_yes=[
        sel("grp_combo_side", "opt_cside_fries"),
        sel("grp_combo_drink", "opt_cdrink_icedtea"),
    ],
)
BREAD = sel("grp_bread", "opt_bread_rye")

# (product, modifiers, group the error must name, words the message must contain)
REFUSED: list[tuple[str, str, list[dict[str, Any]], str | None, str]] = [
    ("min: a required group left out", "prd_latte", [LATTE_OK[1]], "grp_drink_size", "Size"),
    (
        "min: required group sent empty",
        "prd_latte",
        [sel("grp_drink_size"), LATTE_OK[1]],
        "grp_drink_size",
        "Choose 1",
    ),
    (
        "max: two choices in a single-choice group",
        "prd_latte",
        [sel("grp_drink_size", "opt_size_small", "opt_size_large"), LATTE_OK[1]],
        "grp_drink_size",
        "Choose 1",
    ),
    (
        "max: option quantities summed over the group's max",
        "prd_latte",
        [*LATTE_OK, sel("grp_syrups", ("opt_syrup_vanilla", 2), ("opt_syrup_caramel", 2))],
        "grp_syrups",
        "between 0 and 3",
    ),
    (
        "per-option quantity above maxQuantity",
        "prd_latte",
        [*LATTE_OK, sel("grp_extra_shots", ("opt_shot_extra", 4))],
        "grp_extra_shots",
        "between 1 and 3",
    ),
    (
        "per-option quantity zero",
        "prd_latte",
        [*LATTE_OK, sel("grp_extra_shots", ("opt_shot_extra", 0))],
        "grp_extra_shots",
        "between 1 and 3",
    ),
    (
        "per-option quantity negative",
        "prd_latte",
        [*LATTE_OK, sel("grp_syrups", ("opt_syrup_vanilla", -1))],
        "grp_syrups",
        "between 1 and 2",
    ),
    (
        "sold-out option (maxQuantity 0)",
        "prd_latte",
        [LATTE_OK[0], sel("grp_milk", "opt_milk_soy")],
        "grp_milk",
        "sold out",
    ),
    (
        "unknown option",
        "prd_latte",
        [LATTE_OK[0], sel("grp_milk", "opt_milk_camel")],
        "grp_milk",
        "no option",
    ),
    ("unknown group", "prd_latte", [*LATTE_OK, sel("grp_nope", "x")], "grp_nope", "unknown"),
    (
        "group of another product",
        "prd_latte",
        [*LATTE_OK, sel("grp_doneness", "opt_done_medium")],
        "grp_doneness",
        "does not belong",
    ),
    (
        "duplicate group",
        "prd_latte",
        [*LATTE_OK, sel("grp_milk", "opt_milk_oat")],
        "grp_milk",
        "twice",
    ),
    (
        "duplicate option",
        "prd_latte",
        [LATTE_OK[0], sel("grp_milk", "opt_milk_oat", "opt_milk_oat")],
        "grp_milk",
        "twice",
    ),
    (
        "orphan child group at the top level",
        "prd_turkey_club",
        [BREAD, sel("grp_combo_side", "opt_cside_fries")],
        "grp_combo_side",
        "does not belong",
    ),
    (
        "child group under an option that has none",
        "prd_turkey_club",
        [
            sel(
                "grp_bread",
                "opt_bread_rye",
                opt_bread_rye=[sel("grp_combo_side", "opt_cside_fries")],
            )
        ],
        "grp_combo_side",
        "does not belong",
    ),
    (
        "chosen parent with a required child group missing",
        "prd_turkey_club",
        [
            BREAD,
            sel(
                "grp_combo",
                "opt_combo_yes",
                opt_combo_yes=[sel("grp_combo_side", "opt_cside_fries")],
            ),
        ],
        "grp_combo_drink",
        "Combo drink",
    ),
    (
        "sold-out option inside a child group",
        "prd_turkey_club",
        [
            BREAD,
            sel(
                "grp_combo",
                "opt_combo_yes",
                opt_combo_yes=[
                    sel("grp_combo_side", "opt_cside_fries"),
                    sel("grp_combo_drink", "opt_cdrink_cola"),
                ],
            ),
        ],
        "grp_combo_drink",
        "sold out",
    ),
    (
        "required multi below its min (quantities count)",
        "prd_power_bowl",
        [sel("grp_bowl_base", "opt_base_rice"), sel("grp_bowl_toppings", "opt_top_edamame")],
        "grp_bowl_toppings",
        "between 2 and 4",
    ),
    (
        "fixed two-of group with three",
        "prd_eggs_your_way",
        [
            sel("grp_egg_style", "opt_egg_fried"),
            sel("grp_two_sides", ("opt_side_toast", 2), "opt_side_fruit"),
        ],
        "grp_two_sides",
        "Choose 2",
    ),
    (
        "quantity as a string",
        "prd_latte",
        [
            *LATTE_OK,
            {
                "groupId": "grp_syrups",
                "selectedOptions": [{"optionId": "opt_syrup_vanilla", "quantity": "2"}],
            },
        ],
        "grp_syrups",
        "whole number",
    ),
    (
        "selectedOptions not a list",
        "prd_latte",
        [*LATTE_OK, {"groupId": "grp_syrups", "selectedOptions": "opt_syrup_vanilla"}],
        "grp_syrups",
        "must be a list",
    ),
    ("selection not an object", "prd_latte", [*LATTE_OK, "grp_syrups"], None, "object"),
    (
        "selection without groupId",
        "prd_latte",
        [*LATTE_OK, {"selectedOptions": []}],
        None,
        "groupId",
    ),
]


@pytest.mark.parametrize(
    ("product", "modifiers", "group", "words"),
    [pytest.param(*case[1:], id=case[0]) for case in REFUSED],
)
async def test_refused_selection(
    dt: httpx.AsyncClient,
    product: str,
    modifiers: list[dict[str, Any]],
    group: str | None,
    words: str,
) -> None:
    cart_id = await new_cart(dt)
    assert (await add(dt, cart_id, "prd_cookie")).status_code == 200
    before = await get_cart(dt, cart_id)
    r = await add(dt, cart_id, product, 1, modifiers)
    assert r.status_code == 400, r.text
    body = r.json()
    assert body["error"] == "validation_error"
    assert body["code"] == "INVALID_MODIFIER_SELECTION"
    assert body["details"]["code"] == "INVALID_MODIFIER_SELECTION"
    assert body["details"]["field"] == "modifiers"
    assert body.get("modifierGroupId") == group
    assert body["details"].get("modifierGroupId") == group
    assert words in body["message"]
    assert await get_cart(dt, cart_id) == before


async def test_modifiers_not_a_list(dt: httpx.AsyncClient) -> None:
    cart_id = await new_cart(dt)
    r = await add(dt, cart_id, "prd_latte", 1, {"groupId": "grp_milk"})  # type: ignore[arg-type]
    assert r.status_code == 400
    assert r.json()["code"] == "INVALID_MODIFIER_SELECTION"


ACCEPTED: list[tuple[str, str, list[dict[str, Any]], int]] = [
    ("latte, plain", "prd_latte", LATTE_OK, 475),
    (
        "per-option quantities within max",
        "prd_latte",
        [
            *LATTE_OK,
            sel("grp_extra_shots", ("opt_shot_extra", 3)),
            sel("grp_syrups", ("opt_syrup_vanilla", 2), "opt_syrup_hazelnut"),
        ],
        475 + 270 + 180,
    ),
    ("optional combo not chosen: its children are not required", "prd_turkey_club", [BREAD], 1200),
    ("combo chosen with both children", "prd_turkey_club", [BREAD, COMBO_OK], 1200 + 450),
    (
        "combo with a priced child option",
        "prd_turkey_club",
        [
            BREAD,
            sel(
                "grp_combo",
                "opt_combo_yes",
                opt_combo_yes=[
                    sel("grp_combo_side", "opt_cside_sweet"),
                    sel("grp_combo_drink", "opt_cdrink_lemonade"),
                ],
            ),
        ],
        1200 + 450 + 100,
    ),
    (
        "required multi met by one option twice",
        "prd_power_bowl",
        [sel("grp_bowl_base", "opt_base_rice"), sel("grp_bowl_toppings", ("opt_top_avocado", 2))],
        1200 + 300,
    ),
    (
        "fixed two-of group with the same side twice",
        "prd_eggs_your_way",
        [sel("grp_egg_style", "opt_egg_whites"), sel("grp_two_sides", ("opt_side_bacon", 2))],
        850 + 100 + 200,
    ),
    ("empty optional group", "prd_latte", [*LATTE_OK, sel("grp_syrups")], 475),
    ("product without modifiers", "prd_cookie", [], 275),
]


@pytest.mark.parametrize(
    ("product", "modifiers", "unit"),
    [pytest.param(*case[1:], id=case[0]) for case in ACCEPTED],
)
async def test_accepted_selection(
    dt: httpx.AsyncClient, clock: Clock, product: str, modifiers: list[dict[str, Any]], unit: int
) -> None:
    if product == "prd_eggs_your_way":
        clock.set_utc(2026, 3, 11, 13, 30)  # 09:30 in New York: breakfast is served
    cart_id = await new_cart(dt)
    r = await add(dt, cart_id, product, 2, modifiers)
    assert r.status_code == 200, r.text
    line = r.json()["cart"]["items"][0]
    assert int(line["price"]) == unit
    assert int(line["total"]) == unit * 2


async def test_selections_echo_names_prices_and_children(dt: httpx.AsyncClient) -> None:
    cart_id = await new_cart(dt)
    r = await add(dt, cart_id, "prd_turkey_club", 1, [BREAD, COMBO_OK])
    line = r.json()["cart"]["items"][0]
    combo = next(s for s in line["selections"] if s["groupId"] == "grp_combo")
    assert combo["name"] == "Make it a combo"
    option = combo["selectedOptions"][0]
    assert option["optionId"] == "opt_combo_yes"
    assert (option["price"], option["priceFormatted"], option["quantity"]) == ("4.50", "$4.50", 1)
    assert [c["groupId"] for c in option["children"]] == ["grp_combo_side", "grp_combo_drink"]
    assert option["children"][0]["selectedOptions"][0]["name"] == "Fries"
    assert line["basePrice"] == "12.00"


async def test_option_sold_out_at_run_time(dt: httpx.AsyncClient, backend: Backend) -> None:
    cart_id = await new_cart(dt)
    oat = [LATTE_OK[0], sel("grp_milk", "opt_milk_oat")]
    r = await add(dt, cart_id, "prd_latte", 1, oat)
    assert r.status_code == 200
    item_id = r.json()["cart"]["items"][0]["id"]
    backend.set_sold_out("opt_milk_oat", True)
    detail = (await dt.get(f"/locations/{DT}/products/prd_latte")).json()
    milk = next(g for g in detail["modifiers"] if g["id"] == "grp_milk")
    assert next(i for i in milk["items"] if i["id"] == "opt_milk_oat")["maxQuantity"] == 0
    r = await add(dt, cart_id, "prd_latte", 1, oat)
    assert r.status_code == 400 and r.json()["modifierGroupId"] == "grp_milk"
    # The line added before is flagged before checkout.
    v = (await dt.post(f"/locations/{DT}/carts/{cart_id}/validate")).json()
    assert v["valid"] is False
    assert v["errors"][0].items() >= {"code": "ITEM_SOLD_OUT", "itemId": item_id}.items()
    backend.set_sold_out("opt_milk_oat", False)
    assert (await add(dt, cart_id, "prd_latte", 1, oat)).status_code == 200


async def test_identical_lines_merge_and_different_ones_do_not(dt: httpx.AsyncClient) -> None:
    cart_id = await new_cart(dt)
    await add(dt, cart_id, "prd_latte", 1, LATTE_OK)
    await add(dt, cart_id, "prd_latte", 2, list(reversed(LATTE_OK)))  # same choice, other order
    await add(dt, cart_id, "prd_latte", 1, [LATTE_OK[0], sel("grp_milk", "opt_milk_skim")])
    await add(dt, cart_id, "prd_latte", 1, LATTE_OK, specialInstructions="extra hot")
    cart = await get_cart(dt, cart_id)
    assert [i["quantity"] for i in cart["items"]] == [3, 1, 1]
    assert cart["items"][2]["specialInstructions"] == "extra hot"
    assert cart["totalQuantity"] == 5
