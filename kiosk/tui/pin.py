"""The staff PIN's throttle: a few free tries, then lockouts that double."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

__all__ = ["PinThrottle"]


@dataclass
class PinThrottle:
    """Wrong staff PINs: `free_attempts` tries, then a lockout that doubles with every further
    wrong PIN (30 s, 60 s, 120 s... up to `max_lockout`). A right PIN clears it. The clock is
    injected (the app's monotonic clock), so tests move time without sleeping."""

    clock: Callable[[], float]
    free_attempts: int = 3
    first_lockout: float = 30.0
    max_lockout: float = 900.0
    failures: int = 0
    locked_until: float = 0.0

    def seconds_left(self) -> float:
        """How long until the next attempt is allowed (0: now)."""
        return max(0.0, self.locked_until - self.clock())

    @property
    def locked(self) -> bool:
        return self.seconds_left() > 0

    @property
    def attempts_before_lockout(self) -> int:
        return max(0, self.free_attempts - self.failures)

    def failed(self) -> float:
        """Count a wrong PIN; returns the lockout it starts (0 when none)."""
        self.failures += 1
        if self.failures < self.free_attempts:
            return 0.0
        lockout = min(
            self.max_lockout, self.first_lockout * 2 ** (self.failures - self.free_attempts)
        )
        self.locked_until = self.clock() + lockout
        return lockout

    def succeeded(self) -> None:
        self.failures = 0
        self.locked_until = 0.0
