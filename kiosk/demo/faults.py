"""Run-time faults, request statistics and the per-IP rate limiter of the demo backend."""

from __future__ import annotations

import math
import random
import threading
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field, fields
from typing import Any


@dataclass
class Faults:
    """Faults for /api/v1 requests, all off by default; settable at run time (or /demo/faults).

    latency_s: added before every request is handled.
    error_rate: share of requests answered 5xx (error_status) before being handled (no write).
    drop_after_commit_rate: share of writes (non-GET) committed and then losing their response:
        the connection is cut after the status line (the client sees a dropped connection).
    burst_429: the next N requests get 429 with retryAfter=burst_retry_after_s.
    stall_s: added after a request was handled, before its response is sent (a write that commits
        but whose answer arrives late: client time-outs after commit).
    """

    latency_s: float = 0.0
    error_rate: float = 0.0
    error_status: int = 500
    drop_after_commit_rate: float = 0.0
    burst_429: int = 0
    burst_retry_after_s: int = 1
    stall_s: float = 0.0
    seed: int | None = None
    _rng: random.Random = field(default_factory=random.Random, repr=False, compare=False)
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False, compare=False)

    def as_dict(self) -> dict[str, Any]:
        return {f.name: getattr(self, f.name) for f in fields(self) if not f.name.startswith("_")}

    def update(self, values: dict[str, Any]) -> None:
        """Validate every value first, then apply them all (so a bad request changes nothing)."""
        checked: dict[str, Any] = {}
        for name, value in values.items():
            checked[name] = _check_fault(name, value)
        for name, value in checked.items():
            setattr(self, name, value)
            if name == "seed":
                self._rng.seed(value)

    def reset(self) -> None:
        self.update(
            {
                "latency_s": 0.0,
                "error_rate": 0.0,
                "error_status": 500,
                "drop_after_commit_rate": 0.0,
                "burst_429": 0,
                "burst_retry_after_s": 1,
                "stall_s": 0.0,
            }
        )

    def roll(self, share: float) -> bool:
        if share <= 0:
            return False
        if share >= 1:
            return True
        with self._lock:
            return self._rng.random() < share

    def take_burst(self) -> bool:
        with self._lock:
            if self.burst_429 > 0:
                self.burst_429 -= 1
                return True
            return False


_FAULT_RANGES: dict[str, tuple[type, float, float]] = {
    "latency_s": (float, 0.0, 120.0),
    "error_rate": (float, 0.0, 1.0),
    "error_status": (int, 500, 599),
    "drop_after_commit_rate": (float, 0.0, 1.0),
    "burst_429": (int, 0, 1_000_000),
    "burst_retry_after_s": (int, 0, 3600),
    "stall_s": (float, 0.0, 600.0),
}


def _check_fault(name: str, value: Any) -> Any:
    if name == "seed":
        if value is not None and (isinstance(value, bool) or not isinstance(value, int)):
            raise ValueError("seed must be an integer or null")
        return value
    if name not in _FAULT_RANGES:
        raise ValueError(f"unknown fault {name!r}")
    kind, lo, hi = _FAULT_RANGES[name]
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise ValueError(f"{name} must be a number")
    if kind is int and not float(value).is_integer():
        raise ValueError(f"{name} must be a whole number")
    if not math.isfinite(value) or value < lo or value > hi:
        raise ValueError(f"{name} must be between {lo:g} and {hi:g}")
    return kind(value)


class Stats:
    """Requests to /api/v1 counted in total, per client IP, per path template and per status."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self.total = 0
        self.by_client: Counter[str] = Counter()
        self.by_path: Counter[str] = Counter()
        self.by_status: Counter[int] = Counter()

    def count(self, client: str, template: str) -> None:
        with self._lock:
            self.total += 1
            self.by_client[client] += 1
            self.by_path[template] += 1

    def count_status(self, status: int) -> None:
        with self._lock:
            self.by_status[status] += 1

    def reset(self) -> None:
        with self._lock:
            self.total = 0
            self.by_client.clear()
            self.by_path.clear()
            self.by_status.clear()

    def as_dict(self) -> dict[str, Any]:
        with self._lock:
            return {
                "total": self.total,
                "byClient": dict(self.by_client),
                "byPath": dict(self.by_path),
                "byStatus": {str(k): v for k, v in self.by_status.items()},
            }


class RateLimiter:
    """A fixed window per client IP: `limit` requests per `window` s, from its first request."""

    def __init__(self, limit: int | None, window: float, clock: Callable[[], float]) -> None:
        # limit None: no limit (load tests); every request is allowed.
        self.limit = limit
        self.window = window
        self.clock = clock
        self._lock = threading.Lock()
        self._windows: dict[str, tuple[float, int]] = {}

    def hit(self, client: str) -> tuple[bool, int, int, int]:
        """Count one request: (allowed, remaining, reset Unix seconds, retry-after seconds)."""
        now = self.clock()
        if self.limit is None:
            return True, 0, math.ceil(now + self.window), 0
        with self._lock:
            start, count = self._windows.get(client, (now, 0))
            if now >= start + self.window:
                start, count = now, 0
            allowed = count < self.limit
            if allowed:
                count += 1
            self._windows[client] = (start, count)
        reset = start + self.window
        retry = max(1, math.ceil(reset - now))
        return allowed, max(0, self.limit - count), math.ceil(reset), retry

    def reset(self) -> None:
        with self._lock:
            self._windows.clear()
