"""The client's caches: reads kept in memory, reads in flight shared, the site's disk cache.

`MemoryCache` keeps each read for its TTL and lets concurrent callers of the same read share one
request; `fresh` asks again whatever it holds. `DiskReads` puts the reads every terminal makes the
same (DISK_KINDS) through the site's shared cache on disk (kiosk.diskcache): a fresh entry is used
without a request, a stale one revalidated, and served a little longer when the server cannot be
reached. Neither sends anything itself: the client gives them the request to make.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Awaitable, Callable, Hashable, Iterator
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

from kiosk.diskcache import DiskCache, DiskEntry, DiskHead

from .errors import (
    APIConnectionError,
    APITimeoutError,
    RateLimitedError,
    ServerError,
    StorefrontError,
)
from .sender import NOT_MODIFIED, ClientStats

__all__ = ["DISK_KINDS", "STALE_RETRY_TTL", "DiskReads", "MemoryCache", "Timed", "cache_rules"]

log = logging.getLogger("kiosk.api")

T = TypeVar("T")
Key = tuple[Hashable, ...]

# What the site's shared cache on disk may keep (kiosk.diskcache): what every terminal reads the
# same. Never a cart, cross-sell (it depends on a cart), validation, time slots, an ordering session
# or a payment: those carry a token or are one customer's.
DISK_KINDS = frozenset({"location", "merchant", "menus", "products", "product", "gratuity"})
# How long stale data from disk is served when its revalidation failed (seconds), before the next
# try goes to the server again.
STALE_RETRY_TTL = 30.0
# Entries kept in memory before the expired ones are swept.
MEMORY_SIZE = 256


def cache_rules(cache_control: str | None, ttl: float) -> tuple[float, bool]:
    """(seconds to keep, whether the shared disk may keep it) under the server's Cache-Control.

    `no-store` and `private` keep it off the disk shared by the terminals (a shared cache by HTTP's
    rules); `no-cache` keeps it but asks again (with the ETag) at every use; `s-maxage`, else
    `max-age`, shortens our own TTL (it never lengthens it: the menu TTL is the spec's rule)."""
    if not cache_control:
        return ttl, True
    directives: dict[str, str] = {}
    for part in cache_control.lower().split(","):
        name, _, value = part.strip().partition("=")
        directives[name.strip()] = value.strip().strip('"')
    if "no-store" in directives or "private" in directives:
        return 0.0, False
    if "no-cache" in directives:
        return 0.0, True
    for name in ("s-maxage", "max-age"):
        if name in directives:
            with contextlib.suppress(ValueError):
                return max(0.0, min(ttl, float(directives[name]))), True
    return ttl, True


@dataclass
class _Entry:
    value: Any
    expires_at: float


@dataclass
class Timed(Generic[T]):
    """A fetch's value with its own TTL (what is left of a disk entry's, or the server's)."""

    value: T
    ttl: float


class MemoryCache:
    """Reads kept in memory for their TTL; one request for concurrent callers of the same read."""

    def __init__(self, clock: Callable[[], float], stats: ClientStats) -> None:
        self._clock = clock
        self._stats = stats
        self._entries: dict[Key, _Entry] = {}
        self._inflight: dict[Key, asyncio.Future[Any]] = {}

    def keys(self) -> Iterator[Key]:
        return iter(list(self._entries))

    def clear(self) -> None:
        """Forget every kept read (reads in flight finish but are not stored)."""
        self._entries.clear()
        self._inflight.clear()

    def close(self) -> None:
        """Cancel the reads in flight (the client is closing)."""
        for task in list(self._inflight.values()):
            task.cancel()
        self._inflight.clear()

    def invalidate(self, match: Callable[[Key], bool]) -> int:
        """Forget the kept reads `match` accepts; returns how many went. Matching reads in flight
        finish for their waiters but are not stored."""
        gone = [k for k in self._entries if match(k)]
        for key in gone:
            del self._entries[key]
        for key in [k for k in self._inflight if match(k)]:
            del self._inflight[key]
        return len(gone)

    async def read(
        self,
        key: Key,
        ttl: float,
        fetch: Callable[[], Awaitable[Timed[T]]],
        *,
        fresh: bool = False,
    ) -> T:
        """The kept value of `key`, else the one read in flight, else `fetch()`'s (kept for the
        TTL it says). `fresh`: whatever is kept or in flight is forgotten first."""
        if fresh:
            # Asked of the server now (after it refused what a cached answer offered): a kept
            # entry or a read already in flight may predate the refusal.
            self._entries.pop(key, None)
            self._inflight.pop(key, None)
        entry = self._entries.get(key)
        if entry is not None:
            if entry.expires_at > self._clock():
                self._stats.cache_hits += 1
                return entry.value
            del self._entries[key]
        flight = self._inflight.get(key)
        if flight is None:
            self._stats.cache_misses += 1
            flight = asyncio.ensure_future(self._fill(key, fetch))
            self._inflight[key] = flight
            flight.add_done_callback(lambda done: self._landed(key, done))
        else:
            self._stats.shared_flights += 1
        # Shielded: one waiter giving up (a screen closed) does not cancel the read for the others.
        return await asyncio.shield(flight)

    async def _fill(self, key: Key, fetch: Callable[[], Awaitable[Timed[T]]]) -> T:
        timed = await fetch()
        value, ttl = timed.value, timed.ttl
        # Stored only if still the registered flight: invalidate() unregisters stale ones.
        if ttl > 0 and self._inflight.get(key) is asyncio.current_task():
            now = self._clock()
            if len(self._entries) >= MEMORY_SIZE:
                for stale in [k for k, e in self._entries.items() if e.expires_at <= now]:
                    del self._entries[stale]
            self._entries[key] = _Entry(value, now + ttl)
        return value

    def _landed(self, key: Key, done: asyncio.Future[Any]) -> None:
        if self._inflight.get(key) is done:
            del self._inflight[key]
        if not done.cancelled():
            done.exception()  # mark retrieved: every waiter may have gone away


# Sends the read: (ETag for If-None-Match or None, meta to fill) -> the answer's data.
Call = Callable[[str | None, dict[str, Any] | None], Awaitable[Any]]


class DiskReads:
    """The site's shared cache on disk for the reads every terminal makes the same.

    `identity` starts every key: the dialect, the base URL, the backend (namespace) and the key's
    identity (never the key)."""

    def __init__(
        self,
        disk: DiskCache | None,
        clock: Callable[[], float],
        stats: ClientStats,
        identity: tuple[str, ...],
    ) -> None:
        self.disk = disk
        self._clock = clock
        self._stats = stats
        self._identity = identity
        # Since when reads are answered from stale data on disk because the server could not be
        # reached (for staff: the health line and the staff screen); None when all is fresh.
        self.stale_since: float | None = None

    def key(self, kind: str, scope: str, extra: tuple[Hashable, ...] = ()) -> tuple[str, ...]:
        return (*self._identity, kind, scope, *(str(part) for part in extra))

    async def fetch(
        self,
        kind: str,
        scope: str,
        extra: tuple[Hashable, ...],
        ttl: float,
        call: Call,
        parse: Callable[[Any], T],
        *,
        kept: Callable[[Any], None],
        fresh: bool = False,
    ) -> Timed[T]:
        """A cacheable GET through the disk: a fresh entry is used as it is (no request: another
        terminal may have just read it); a stale one is revalidated (If-None-Match when it has an
        ETag) and, when the server cannot be reached, served for STALE_RETRY_TTL more with
        `stale_since` set for staff. Only what parses is kept. `kept` is told the data of an
        answer taken from disk (what the dialect would have learnt from the server). `fresh`: a
        fresh entry is revalidated too (the server is asked)."""
        disk = self.disk
        if disk is None or kind not in DISK_KINDS:
            return Timed(parse(await call(None, None)), ttl)
        key = self.key(kind, scope, extra)
        # An entry's data is read from disk only when it is used: a stale one's stays on disk while
        # the server is asked (a new answer does not need it), so one menu is in memory at a time.
        now = self._clock()
        found = await asyncio.to_thread(disk.read, key, now)
        head = found if isinstance(found, DiskHead) else None
        if isinstance(found, DiskEntry):
            parsed = _parse_kept(found, parse)
            if parsed is not None and found.fresh(now) and not fresh:
                self._stats.disk_hits += 1
                kept(found.data)
                return Timed(parsed[0], found.expires_at - now)
        meta: dict[str, Any] = {}
        try:
            data = await call(head.etag if head is not None else None, meta)
        except (APIConnectionError, APITimeoutError, ServerError, RateLimitedError) as exc:
            stale = await self._stale(key, head, parse, kept, f"{kind} {scope}", exc, now)
            if stale is None:
                raise
            return stale
        self.stale_since = None
        keep, shareable = cache_rules(meta.get("cache-control"), ttl)
        if data is NOT_MODIFIED:
            entry = await asyncio.to_thread(disk.get, key)
            parsed = _parse_kept(entry, parse)
            if entry is not None and parsed is not None:
                self._stats.revalidated += 1
                kept(entry.data)
                await asyncio.to_thread(disk.refresh, key, ttl=keep)
                return Timed(parsed[0], keep)
            # Not what was asked: read it again, unconditionally.
            entry = parsed = None
            data = await call(None, meta)
        value = parse(data)  # what does not parse is never kept
        if shareable:
            body = meta.get("body")
            if isinstance(body, bytes):
                # The body as it came (it just parsed), not the parsed answer serialised again: the
                # answer is let go first, so the disk's write holds no second copy of it.
                data = None
                await asyncio.to_thread(disk.put_json, key, body, ttl=keep, etag=meta.get("etag"))
            else:
                await asyncio.to_thread(disk.put, key, data, ttl=keep, etag=meta.get("etag"))
        return Timed(value, keep)

    async def _stale(
        self,
        key: tuple[str, ...],
        head: DiskHead | None,
        parse: Callable[[Any], T],
        kept: Callable[[Any], None],
        what: str,
        exc: StorefrontError,
        now: float,
    ) -> Timed[T] | None:
        """What was kept on disk, served for STALE_RETRY_TTL while the server cannot be reached;
        None when nothing usable was kept (the failure is raised)."""
        assert self.disk is not None
        entry = await asyncio.to_thread(self.disk.get, key) if head is not None else None
        parsed = _parse_kept(entry, parse)
        if entry is None or parsed is None:
            return None
        self._stats.stale_served += 1
        if self.stale_since is None:
            self.stale_since = now
        log.warning(
            "%s: %s; showing what was kept at %s",
            what,
            type(exc).__name__,
            time.strftime("%H:%M:%S", time.localtime(entry.stored_at)),
        )
        kept(entry.data)
        return Timed(parsed[0], STALE_RETRY_TTL)


def _parse_kept(entry: DiskEntry | None, parse: Callable[[Any], T]) -> tuple[T] | None:
    """A disk entry parsed as a fresh answer would be; None if it no longer parses (an entry from
    another kiosk version is then read again from the server)."""
    if entry is None:
        return None
    try:
        return (parse(entry.data),)
    except StorefrontError:
        return None
