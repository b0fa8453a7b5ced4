"""The kiosk's text field: Textual's Input, with its own keys acting in the order typed.

Textual inserts a letter in the field as the key arrives, but runs the field's key bindings
(Backspace, Delete, ←→, Home, End, Ctrl+W…) only once the key has bubbled up to the app, a few
message queues later. Two keys read at once ("Backspace z", what a fast typist or an SSH link
delivers) were then done out of order: z was inserted, then Backspace deleted it, and the letter
meant to go stayed (issue 20: keys that arrive together each act where they were meant to).
Here the field runs its own bindings where it receives the key, in its own queue, in order.
Priority bindings (the screen's Enter and ↑↓, kiosk/tui/screens/base.py) still run first, before
the key reaches the field.
"""

from __future__ import annotations

from textual import events
from textual.widgets import Input


class TextField(Input):
    async def _on_key(self, event: events.Key) -> None:
        # The field's own bindings only (Input.BINDINGS), not its ancestors': those keep
        # Textual's route, after the field has declined the key.
        for binding in self._bindings.key_to_bindings.get(event.key, ()):
            if binding.priority:
                continue
            if await self.app.run_action(binding.action, self):
                event.stop()
                event.prevent_default()
                return
        await super()._on_key(event)
