"""Waits for Textual's Pilot."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator


@contextlib.contextmanager
def quick_pilot(granularity: float = 0.004) -> Iterator[None]:
    """Pilot waits for the app to go idle in steps of 20 ms, about 60 ms a key press; the tests
    wait for what they need explicitly (screens, workers, the cart), so finer steps lose nothing
    and make a walk take about 3 s instead of 8."""
    import textual._wait as wait

    before = wait.SLEEP_GRANULARITY
    wait.SLEEP_GRANULARITY = granularity
    try:
        yield
    finally:
        wait.SLEEP_GRANULARITY = before
