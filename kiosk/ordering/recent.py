"""The last order's number, kept for "Missed your order number?" (kiosk.tui.widgets.recall).

A payment can land while nobody reads the screen: the phone paid after the customer walked away,
the counter's link froze on the payment screen, a new session took the terminal over, the kiosk
restarted. The number is recorded when the order's lifecycle says PAID (whoever heard it), in the
terminal's state folder with the wall-clock time, so the next process or session on this terminal
offers it too, for RECALL_WINDOW seconds.
"""

from __future__ import annotations

import json
import logging
import time
from collections.abc import Callable
from pathlib import Path

from kiosk.paths import atomic_write

__all__ = ["RECALL_WINDOW", "RECENT_FILE", "RecentNumber"]

log = logging.getLogger("kiosk.ordering")

# Seconds after an order during which its number can be shown again: about a kitchen's wait,
# short enough that the line is not offered to the customer after next.
RECALL_WINDOW = 300.0
# Its file in the terminal's state folder, beside the resume file: not an order to resume, so a
# browser tab's folder still goes with its tab (kiosk.serve.forget_if_done).
RECENT_FILE = "recent-number.json"
# The longest a number may be: anything longer in the file is not ours.
_MAX_NUMBER = 64


class RecentNumber:
    """The last order's number and when it was paid (wall clock), kept in `path` when given."""

    def __init__(self, path: Path | None = None, clock: Callable[[], float] = time.time) -> None:
        self.path = path
        self.clock = clock
        self._number: str | None = None
        self._at = 0.0
        self._load()

    def _load(self) -> None:
        if self.path is None:
            return
        try:
            data = json.loads(self.path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return
        if not isinstance(data, dict):
            return
        number, at = data.get("number"), data.get("at")
        if isinstance(number, str) and 0 < len(number) <= _MAX_NUMBER and isinstance(at, float):
            self._number, self._at = number, at

    def remember(self, number: str | None) -> None:
        if not number or (number == self._number and self.remaining() > 0):
            return
        self._number, self._at = number, self.clock()
        if self.path is not None:
            try:
                atomic_write(self.path, json.dumps({"number": number, "at": self._at}))
            except OSError:
                log.warning("could not keep the order number for recall", exc_info=True)

    def get(self) -> str | None:
        return self._number if self.remaining() > 0 else None

    def remaining(self) -> float:
        """Seconds the number may still be shown (0 when there is none)."""
        if self._number is None:
            return 0.0
        return max(RECALL_WINDOW - (self.clock() - self._at), 0.0)
