"""A customer who cannot see the screen (issue 34): every choice is made from what the kiosk
said, never from the screen. Used on the demo (tests/tui/test_speech.py) and on the strict 2.0
server (tests/journeys/test_by_ear.py).

The kiosk speaks into a MemorySpeaker (kiosk.speech): the utterance stream exactly as a speech
command would be given it, one line an utterance. After each key the customer waits for the
kiosk to settle, lets the announcer say what it gathered (its short gathering delay skipped), and
listens.
"""

from __future__ import annotations

import re
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

from kiosk.speech import MemorySpeaker

# The focused option as said: "Large (16 oz), not chosen, +$0.50. Size: required, ...".
OPTION = re.compile(r"(?:^|\. )([^.]+?), not chosen")
NUMBER = re.compile(r"Your order number is (.+?)\. Again: (.+?)\.")


class NotHeard(AssertionError):
    """The customer could not go on from what was said."""


@dataclass
class Ear:
    """Keys in, utterances out. `press(key)` sends one key and settles; `settle()` waits."""

    app: Any
    speaker: MemorySpeaker
    press_key: Callable[[str], Awaitable[None]]
    settle: Callable[[], Awaitable[None]]
    transcript: list[str] = field(default_factory=list)
    # (the key, or "" for a wait, and what was said after it): the report's transcript
    steps: list[tuple[str, list[str]]] = field(default_factory=list)
    _key: str = ""
    keys: list[str] = field(default_factory=list)
    started: float = field(default_factory=time.perf_counter)

    async def listen(self) -> str:
        """Everything said since the last listen, as one text ("" when nothing was)."""
        await self.settle()
        announcer = self.app.announcer
        assert announcer is not None, "speech is off"
        announcer.flush_now()
        said = self.speaker.heard[:]
        self.speaker.heard.clear()
        self.transcript.extend(said)
        if said:
            self.steps.append((self._key, said))
        self._key = ""
        return " ".join(said)

    async def press(self, key: str) -> str:
        self.keys.append(key)
        self._key = key
        await self.press_key(key)
        return await self.listen()

    async def type(self, text: str) -> str:
        self._key = f"type {text}"
        for char in text:
            self.keys.append(char)
            await self.press_key(char if char.isalnum() else _key_name(char))
        return await self.listen()

    async def move_until(self, wanted: Callable[[str], bool], *, limit: int = 80) -> str:
        """Down until the focused row said is `wanted`; what was said of it."""
        for _ in range(limit):
            said = await self.press("down")
            if wanted(said):
                return said
        raise NotHeard(f"never heard what was wanted; last: {self.transcript[-3:]}")


def _key_name(char: str) -> str:
    from textual.app import _character_to_key

    return _character_to_key(char)


async def order_by_ear(ear: Ear, *, location: str | None, method: str) -> str:
    """A whole order from what was heard: the location named `location` (None: the kiosk serves
    one and says its welcome), the way to order `method`, the first product said to have choices
    whose product screen says a choice is required, one option of that required group chosen
    by hand, the order read back, checkout with a name and an email, the demo's approve key (as
    the payment screen says it) or the phone, and the number said twice. Returns the number."""
    said = await ear.listen()
    if location is not None:
        assert "Choose a restaurant" in said, said
        if location not in said.split(". ")[-1]:
            await ear.move_until(lambda s: location in s)
        said = await ear.press("enter")
    assert "How would you like your order?" in said, said
    if method not in said.split("F3 changes the language.")[-1]:
        await ear.move_until(lambda s: method in s)
    said = await ear.press("enter")
    assert "Menu." in said, said

    # A product with a required choice: rows that say "with choices", opened one by one until
    # the product screen says a group is required.
    for _ in range(40):
        if "with choices" not in said.split(". ")[-1]:
            said = await ear.move_until(lambda s: "with choices" in s)
        product = said.split(". ")[-1].split(",")[0].split(":")[-1].strip()
        said = await ear.press("enter")
        if "required" in said:
            break
        said = await ear.press("escape")
    else:
        raise NotHeard("no product with a required choice")

    # Choose an option of the required group by hand: down to one said "not chosen" in a
    # group said "required", Space, and hear it chosen.
    chosen = ""
    for _ in range(30):
        row = OPTION.search(said)
        if row is not None and "required" in said[row.end() :]:
            said = await ear.press("space")
            assert f"{row.group(1)}, chosen" in said, said
            chosen = row.group(1)
            break
        said = await ear.press("down")
    if not chosen:
        raise NotHeard("no option to choose in a required group")
    # Any group still said to want more: choose until none does.
    for _ in range(20):
        if "more to choose" not in said:
            break
        said = await ear.press("space") if "not chosen" in said else await ear.press("down")
    said = await ear.press("f2")
    if "You might also like" in said:
        said += " " + await ear.press("n")
    assert f"Added 1 × {product}" in said, said
    assert "Total" in said, said

    said = await ear.press("f8")  # the whole order, read back
    assert f"1 × {product}" in said and "Total" in said, said
    said = await ear.press("f4")
    assert "Your order." in said, said
    said = await ear.press("f2")
    assert "Checkout." in said and "text field" in said, said
    said = await ear.type("Ada")
    said = await ear.press("enter")
    assert "text field" in said, said  # the email's
    said = await ear.type("ada@example.com")
    said = await ear.press("enter")
    for _ in range(5):
        if "Payment." in said:
            break
        said = await ear.press("f7")  # say again: the payment screen once its code is there
    assert "Payment." in said, said
    return said


def number_heard(said: str) -> str:
    """The order number as said twice ("A, 1, 0, 1"), both times the same, as characters."""
    found = NUMBER.search(said)
    if found is None:
        raise NotHeard(f"no order number in {said!r}")
    first, again = found.group(1), found.group(2)
    assert first == again, (first, again)
    return first.replace(", ", "")
