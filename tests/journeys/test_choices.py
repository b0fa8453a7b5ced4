"""Journeys 7-10 of ../shared/journeys.md, "Choices and input", through the real kiosk on the
strict 2.0 server at 80x24 and 120x40."""

from __future__ import annotations

from tests.journeys.harness import Journey, JourneyFactory


def item_posts(j: Journey) -> int:
    return len([r for r in j.requests() if r[0] == "POST" and r[1].endswith("/items")])


async def test_journey_7_a_required_choice_inside_a_choice_is_required(
    journey: JourneyFactory,
) -> None:
    # Build your bowl: Sauce is optional up to 2 as a group, but the Noodles option's link
    # overrides it to exactly 1 (ModifierChildLink.overrides): required, "choose 1".
    async with journey() as j:
        await j.settle()
        await j.press("1")
        await j.wait_for_screen("MenuScreen")
        await j.walk().open_product("prod_build_bowl")
        await j.press("down", "space")  # Noodles
        text = j.screen_text()
        assert "Sauce  required · choose 1" in text, text
        assert "optional · up to 2" not in text
        posts = item_posts(j)
        await j.press("f2")
        assert "Sauce: choose 1 more." in j.screen_text()
        assert j.screen_name() == "ProductScreen"
        assert item_posts(j) == posts  # refused on the kiosk, before any request
        await j.press("down", "space", "f2")  # Soy glaze, then Add
        await j.wait_for(lambda: j.screen_name() != "ProductScreen", within=10, what="the add")
        (line,) = j.server_cart()["items"]
        groups = {s["groupId"]: s for s in line["selections"]}
        (base,) = groups["grp_base"]["selectedOptions"]
        assert [c["groupId"] for c in base["children"]] == ["grp_sauce"]
        assert j.refusals == []
