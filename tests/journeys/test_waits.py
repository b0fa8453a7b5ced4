"""Journeys 11 and 12 of ../shared/journeys.md, "Waits and doubt", through the real kiosk on the
strict 2.0 server (its 429 bursts and its stalled writes) at 80x24 and 120x40."""

from __future__ import annotations

import re

from tests.journeys.harness import Journey, JourneyFactory
from tests.journeys.test_choices import flat, to_cart
from tests.journeys.test_paying import MERCHANT


def gyoza_quantity(j: Journey) -> int:
    return sum(i["quantity"] for i in j.server_cart()["items"] if i["productId"] == "prod_gyoza")


async def test_journey_11_a_burst_of_429s_is_a_wait_said_and_counted_down(
    journey: JourneyFactory,
) -> None:
    async with journey(settings=MERCHANT) as j:
        await to_cart(j)
        j.auto_advance = 0  # watch the wait second by second
        j.set_faults(rate_limited=15)
        await j.press("plus")
        said: list[str] = []
        for _ in range(40):
            if gyoza_quantity(j) == 2:
                break
            found = re.search(r"sending in (\d+) s", flat(j))
            said.append(found.group(0) if found else flat(j))
            await j.advance(1)
        assert gyoza_quantity(j) == 2
        # Every second of the wait says why and how long, in seconds: never a silent
        # "Working…" (each bare 429 of a burst is a one-second wait, said as such).
        assert len(said) >= 10, said
        assert all(re.fullmatch(r"sending in \d+ s", line) for line in said), said
        assert "Working" not in flat(j)


async def test_journey_12_a_write_answered_late_is_settled_by_reading_the_cart(
    journey: JourneyFactory,
) -> None:
    async with journey(settings=MERCHANT) as j:
        await to_cart(j)
        j.set_faults(script=["stall"], stall_seconds=6)
        await j.press("plus")  # answered after the client's timeout; the kiosk reads the cart
        await j.wait_for(lambda: gyoza_quantity(j) == 2, within=60, what="the late write")
        await j.wait_for(
            lambda: j.server_cart()["orderTotalWithServiceFeeFormatted"] in j.screen_text(),
            within=30,
            what="the server's total on screen",
        )
        text = flat(j).lower()
        for wrong in ("failed", "elsewhere", "idempotency", "try again"):
            assert wrong not in text, wrong
        assert gyoza_quantity(j) == 2  # once, never doubled
        # The next write goes through on the revision the late one made: nothing "elsewhere".
        await j.press("plus")
        await j.wait_for(lambda: gyoza_quantity(j) == 3, within=30, what="the next write")
        assert "elsewhere" not in flat(j).lower()
