"""The read cache on disk shared by the kiosks of one site (issue 14).

One directory (`paths.cache_dir()`, or a shared folder given as KIOSK_CACHE_DIR) holds one JSON file
an entry: the server's body as it came (not our models, so a new kiosk version reads an old file),
when it expires and its ETag. Several kiosk processes read and write it at once: every write is a
whole-file rename (`paths.atomic_write`), so a reader never sees half a file, and writes take one
OS file lock (kiosk.oslock) so that an older answer never replaces a newer one.

Why our own small file cache and not hishel's SQLite storage: hishel is not installed, it caches
whole HTTP responses (so the allow-list of what may be kept would live in its policy, not here),
and the first frame must read the last screen without importing httpx. This module imports
neither httpx nor pydantic, nor Textual: the client (kiosk.api) and the TUI's first frame both use
it.

What may be kept is the caller's choice (the client keeps menus, products, locations, the
merchant and tip settings; never a cart, an order, a payment or anything carrying a token), and
entries are keyed by whatever the caller names: the client names the base URL, the dialect, the
backend and the location, so two backends never mix.
"""

from __future__ import annotations

import codecs
import contextlib
import hashlib
import json
import os
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from kiosk import paths
from kiosk.oslock import FileLock
from kiosk.paths import atomic_write_parts

FORMAT = 1
LOCK_NAME = ".lock"
# How long a writer waits for another process's write (seconds); past it the write is skipped:
# a cache that could not be written costs a later read, never a failure.
LOCK_TIMEOUT = 2.0
# Every FORMAT 1 file (this writer's, and the one before it, which serialised the whole entry with
# json.dumps) holds the envelope's fields first and its data last: {"format":1,"key":[...],
# "stored_at":...,"expires_at":...,"etag":...,"data":...}. So the fields are read from a file's
# start without parsing its data (the lock's check, a renewal), a renewal copies the data's bytes
# as they are, and a server's body is written as it came, never serialised again.
_DATA = b',"data":'
# How much of a file's start holds its fields, at most (a key and an ETag: well under 1 KiB).
HEAD_MAX = 64 * 1024
_SPACE = b" \t\r\n"


@dataclass(frozen=True)
class DiskHead:
    """An entry's fields without its data: whether it is fresh, and its ETag."""

    key: tuple[str, ...]
    stored_at: float
    expires_at: float
    etag: str | None = None

    def fresh(self, now: float) -> bool:
        return self.expires_at > now


@dataclass(frozen=True)
class DiskEntry:
    key: tuple[str, ...]
    data: Any
    stored_at: float
    expires_at: float
    etag: str | None = None

    def fresh(self, now: float) -> bool:
        return self.expires_at > now


def _fields(key: Sequence[str], raw: Any) -> DiskHead | None:
    # The key is stored whole and compared: a file never answers for another key.
    if not isinstance(raw, dict) or raw.get("format") != FORMAT or raw.get("key") != list(key):
        return None
    etag = raw.get("etag")
    try:
        return DiskHead(
            key=tuple(key),
            stored_at=float(raw["stored_at"]),
            expires_at=float(raw["expires_at"]),
            etag=etag if isinstance(etag, str) else None,
        )
    except (KeyError, TypeError, ValueError):
        return None


def _split(key: Sequence[str], start: bytes) -> tuple[DiskHead, int] | None:
    """The fields from a file's `start`, and where its data begins; None when that start is not
    laid out as above. (`,"data":` is never inside a JSON string: its quotes would be escaped.)"""
    at = start.find(_DATA, 0, HEAD_MAX)
    if at < 0:
        return None
    try:
        head = _fields(key, json.loads(start[:at] + b"}"))
    except ValueError:
        return None
    return None if head is None else (head, at + len(_DATA))


def _envelope(key: Sequence[str], stored_at: float, expires_at: float, etag: str | None) -> bytes:
    """A file's start, up to its data: the data's bytes and a closing brace follow."""
    fields = {
        "format": FORMAT,
        "key": list(key),
        "stored_at": stored_at,
        "expires_at": expires_at,
        "etag": etag,
    }
    return json.dumps(fields, separators=(",", ":"), ensure_ascii=False)[:-1].encode() + _DATA


class DiskCache:
    """JSON entries in one 0700 directory, files 0600, safe to share between processes."""

    def __init__(self, root: Path, *, clock: Callable[[], float] = time.time) -> None:
        self.root = root
        self._clock = clock
        paths.private_dir(self.root)
        # A folder that was there keeps its mode: this one holds only the cache, made private.
        with contextlib.suppress(OSError):
            os.chmod(self.root, 0o700)

    def path_for(self, key: Sequence[str]) -> Path:
        name = hashlib.sha256(json.dumps(list(key)).encode("utf-8")).hexdigest()[:40]
        return self.root / f"{name}.json"

    def get(self, key: Sequence[str]) -> DiskEntry | None:
        """The entry under `key`, fresh or not; None when missing or unreadable."""
        try:
            raw = json.loads(self.path_for(key).read_bytes())
        except (OSError, ValueError):
            return None
        head = _fields(key, raw)
        if head is None or "data" not in raw:
            return None
        return DiskEntry(head.key, raw["data"], head.stored_at, head.expires_at, head.etag)

    def head(self, key: Sequence[str]) -> DiskHead | None:
        """The fields of the entry under `key`, fresh or not, read without its data; None when
        missing or unreadable."""
        try:
            with self.path_for(key).open("rb") as handle:
                start = handle.read(HEAD_MAX)
        except OSError:
            return None
        split = _split(key, start)
        if split is not None:
            return split[0]
        entry = self.get(key)  # not laid out as this module writes: the whole file, or a miss
        if entry is None:
            return None
        return DiskHead(entry.key, entry.stored_at, entry.expires_at, entry.etag)

    def read(self, key: Sequence[str], now: float) -> DiskEntry | DiskHead | None:
        """The entry under `key` whole when fresh at `now`; when stale only its fields (its data
        stays on disk for a revalidation, which may not need it); None when missing or unreadable.
        One call for the caller's one hop to a thread."""
        head = self.head(key)
        if head is None or not head.fresh(now):
            return head
        return self.get(key)

    def put(self, key: Sequence[str], data: Any, *, ttl: float, etag: str | None = None) -> bool:
        """Keep `data` under `key` for `ttl` seconds. False when another process holds the lock
        too long or the disk refuses (the entry is then simply not kept)."""
        try:
            body = json.dumps(data, separators=(",", ":"), ensure_ascii=False).encode()
        except (TypeError, ValueError):
            return False
        return self.put_json(key, body, ttl=ttl, etag=etag)

    def put_json(
        self, key: Sequence[str], body: bytes, *, ttl: float, etag: str | None = None
    ) -> bool:
        """put() of data already in JSON: `body` must be JSON text that parsed (a server's answer
        as it came). It is written as it is, neither parsed nor copied again: a large answer is in
        memory once, not again as a serialised string."""
        if not body or body.isspace():
            return False
        if body.startswith(codecs.BOM_UTF8) or b"\x00" in body[:4]:
            # Not plain UTF-8 (json.loads reads UTF-16 and -32 too): re-encoded as one file is.
            try:
                return self.put(key, json.loads(body), ttl=ttl, etag=etag)
            except ValueError:
                return False
        now = self._clock()
        try:
            start = _envelope(key, now, now + max(0.0, ttl), etag)
        except (TypeError, ValueError):
            return False
        return self._write(key, now, start, body)

    def refresh(self, key: Sequence[str], *, ttl: float) -> bool:
        """The server said the entry has not changed (304): keep it `ttl` seconds more. Its data's
        bytes are copied as they are, never parsed. False when there is no entry to renew or it
        could not be written."""
        path = self.path_for(key)
        now = self._clock()
        try:
            with self._lock():
                raw = path.read_bytes()
                split = _split(key, raw)
                if split is None:
                    return False  # missing, or not ours: the next read replaces it
                current, begins = split
                if current.stored_at > now:
                    return False  # another terminal stored a newer answer meanwhile: it stays
                ends = len(raw)
                while ends > begins and raw[ends - 1] in _SPACE:
                    ends -= 1
                if raw[ends - 1 : ends] != b"}":
                    return False  # cut short: not a whole file
                start = _envelope(key, now, now + max(0.0, ttl), current.etag)
                atomic_write_parts(path, (start, memoryview(raw)[begins : ends - 1], b"}"))
        except (OSError, TypeError, ValueError):  # LockTimeout is an OSError
            return False
        return True

    def _lock(self) -> FileLock:
        return FileLock(self.root / LOCK_NAME, timeout=LOCK_TIMEOUT, mode=0o600)

    def _write(self, key: Sequence[str], now: float, start: bytes, body: bytes) -> bool:
        path = self.path_for(key)
        try:
            with self._lock():
                current = self.head(key)
                # Another terminal stored a newer answer meanwhile: it stays.
                if current is not None and current.stored_at > now:
                    return False
                atomic_write_parts(path, (start, body, b"}"))
        except OSError:  # LockTimeout among them
            return False
        return True

    def clear(self) -> None:
        for path in self.root.glob("*.json"):
            with contextlib.suppress(OSError):
                path.unlink()


@dataclass(frozen=True)
class DiskSlot:
    """One named entry of a DiskCache kept `ttl` seconds (the last first screen, kiosk.tui)."""

    cache: DiskCache
    key: tuple[str, ...]
    ttl: float

    def read(self) -> Any:
        """The data if still within its TTL, else None."""
        entry = self.cache.get(self.key)
        if entry is None or not entry.fresh(self.cache._clock()):
            return None
        return entry.data

    def write(self, data: Any) -> bool:
        return self.cache.put(self.key, data, ttl=self.ttl)
