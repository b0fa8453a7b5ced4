"""Issue 34: a whole order by ear on the strict 2.0 server. Every choice is made from what the
kiosk said (tests/tui/by_ear.py), never from the screen; the customer pays on the phone when the
payment screen says how, and the number said twice is the server's."""

from __future__ import annotations

from kiosk.speech import MemorySpeaker
from tests.journeys.harness import JourneyFactory
from tests.tui.by_ear import Ear, number_heard, order_by_ear


async def test_a_whole_order_by_ear_on_the_strict_server(journey: JourneyFactory) -> None:
    speaker = MemorySpeaker()
    async with journey(app_options={"speaker": speaker}) as j:
        ear = Ear(j.app, speaker, j.press, j.settle)
        # One location: the kiosk opens on its welcome, which names the restaurant.
        said = await order_by_ear(ear, location=None, method="Pickup")
        assert "Scan the code with your phone" in said, said
        j.pay()  # the phone pays; the customer listens for the number

        def heard_number() -> bool:
            assert j.app.announcer is not None
            j.app.announcer.flush_now()
            return any("Your order number is" in h for h in speaker.heard)

        await j.wait_for(heard_number, within=60, what="the number said")
        said = await ear.listen()
        (order,) = j.orders()
        assert number_heard(said) == order["shortId"]
        print("\n".join(f"[{k}] {' | '.join(said)}" for k, said in ear.steps))
