"""Virtual time for asyncio: an event loop whose clock jumps to the next timer instead of waiting.

Every `asyncio.sleep`, `asyncio.wait_for` and `loop.call_later` inside the loop runs on virtual
time, so ten minutes of three kiosks polling and waiting out rate limits take a fraction of a second
of real time, and several concurrent tasks still see one consistent clock (the rig's FakeClock moves
time on each sleep, which is right for one task but not for three).

It only suits code that does no real I/O inside the loop: the embedded backend over
httpx.ASGITransport is all in-loop coroutines. When nothing is ready and no timer is due, the loop
still waits for real events (a thread's call_soon_threadsafe), so nothing deadlocks silently.

    clock = run_virtual(main(), start=START)   # main's clock: asyncio.get_running_loop().time()
"""

from __future__ import annotations

import asyncio
import selectors
from collections.abc import Callable, Coroutine
from typing import Any, TypeVar

T = TypeVar("T")


class _VirtualSelector:
    """Wraps the loop's real selector: a wait for `timeout` seconds moves virtual time instead."""

    def __init__(self, real: selectors.BaseSelector, loop: VirtualTimeLoop) -> None:
        self._real = real
        self._loop = loop

    def select(self, timeout: float | None = None) -> list[Any]:
        ready = self._real.select(0)
        if ready:
            return ready
        if timeout is None:
            # Nothing scheduled: only a real event (another thread) can wake the loop.
            return self._real.select(None)
        if timeout > 0:
            self._loop.advance_to_next(timeout)
        return []

    def __getattr__(self, name: str) -> Any:
        return getattr(self._real, name)


class VirtualTimeLoop(asyncio.SelectorEventLoop):
    """`time()` is virtual (seconds, starting at `start`); waits cost no real time."""

    def __init__(self, start: float = 0.0) -> None:
        super().__init__()
        self._virtual_now = float(start)
        self._selector = _VirtualSelector(self._selector, self)  # type: ignore[has-type]

    def time(self) -> float:
        return self._virtual_now

    def advance_to_next(self, seconds: float) -> None:
        # Exactly onto the next timer's due time: `now + (when - now)` can round below `when`, and
        # the loop would then spin on ever smaller timeouts.
        target = self._virtual_now + seconds
        scheduled = self._scheduled  # type: ignore[attr-defined]
        if scheduled:
            target = max(target, scheduled[0]._when)
        self._virtual_now = target


def run_virtual(main: Coroutine[Any, Any, T], *, start: float = 0.0) -> T:
    """Run `main` to completion on a fresh VirtualTimeLoop starting at `start` (keep it small: a
    Unix time as loop time loses sub-microsecond precision; add the epoch in the clock instead)."""
    loop = VirtualTimeLoop(start)
    try:
        asyncio.set_event_loop(loop)
        return loop.run_until_complete(main)
    finally:
        try:
            loop.run_until_complete(loop.shutdown_asyncgens())
        finally:
            asyncio.set_event_loop(None)
            loop.close()


def loop_clock(epoch: float) -> Callable[[], float]:
    """A wall clock on the running loop's virtual time: `epoch` + loop time."""
    loop = asyncio.get_running_loop()
    return lambda: epoch + loop.time()
