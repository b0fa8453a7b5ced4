"""The last order's number, kept for "show my number again" (kiosk.tui.widgets.recall)."""

from __future__ import annotations

__all__ = ["RECALL_WINDOW", "RecentNumber"]

# Seconds after an order during which its number can be shown again: about a kitchen's wait,
# short enough that the line is not offered to the customer after next.
RECALL_WINDOW = 300.0


class RecentNumber:
    """The last order's number and when it was shown (the app's monotonic clock)."""

    def __init__(self) -> None:
        self._number: str | None = None
        self._at = 0.0

    def remember(self, number: str | None, now: float) -> None:
        if number:
            self._number, self._at = number, now

    def get(self, now: float) -> str | None:
        return self._number if self.remaining(now) > 0 else None

    def remaining(self, now: float) -> float:
        """Seconds the number may still be shown (0 when there is none)."""
        if self._number is None:
            return 0.0
        return max(RECALL_WINDOW - (now - self._at), 0.0)
