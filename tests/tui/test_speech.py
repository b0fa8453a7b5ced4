"""Issue 34: speech. A whole order by ear on the demo backend (every choice made from what was
said, tests/tui/by_ear.py), the words in Spanish, the keys that repeat and read the order, and
what the kiosk says of errors, waits and changes."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from kiosk.config import Settings
from kiosk.speech import MemorySpeaker

from .by_ear import Ear, number_heard, order_by_ear
from .conftest import Kiosk, make_kiosk, settle


def ear_for(k: Kiosk, pilot: Any, speaker: MemorySpeaker) -> Ear:
    async def press(key: str) -> None:
        await pilot.press(key)

    async def wait() -> None:
        await settle(pilot)

    return Ear(k.app, speaker, press, wait)


async def test_a_whole_order_by_ear_on_the_demo(tmp_path: Path) -> None:
    speaker = MemorySpeaker()
    k = make_kiosk(tmp_path, speaker=speaker)
    async with k.app.run_test(size=(80, 24)) as pilot:
        ear = ear_for(k, pilot, speaker)
        said = await order_by_ear(ear, location="Lantern Downtown", method="Pickup")
        assert "press A to pay" in said or "A approves" in said, said
        said = await ear.press("a")
        number = number_heard(said)
        server = k.server_cart()
        assert server["status"] == "COMPLETED"
        assert number == server["fulfillmentIdentifier"].upper()
        print("\n".join(ear.transcript))
        print(f"keys: {len(ear.keys)}")
