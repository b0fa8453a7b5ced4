"""SQLite persistence for the demo backend: the seeded catalog, carts, payment intents and orders.

One connection per Backend, guarded by a lock (sqlite3 calls are short; the event loop can wait).
Several processes may share one file: WAL, a busy timeout, and BEGIN IMMEDIATE around every
read-modify-write so two writers never interleave.
"""

from __future__ import annotations

import json
import os
import sqlite3
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import asdict
from pathlib import Path
from typing import Any

from kiosk.demo import data

SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS catalog (
    kind TEXT NOT NULL, id TEXT NOT NULL, doc TEXT NOT NULL, PRIMARY KEY (kind, id)
);
CREATE TABLE IF NOT EXISTS sold_out (item_id TEXT PRIMARY KEY);
CREATE TABLE IF NOT EXISTS carts (
    id TEXT PRIMARY KEY,
    location_id TEXT NOT NULL,
    status TEXT NOT NULL,
    doc TEXT NOT NULL,
    created_at REAL NOT NULL,
    updated_at REAL NOT NULL
);
CREATE TABLE IF NOT EXISTS payment_intents (
    id TEXT PRIMARY KEY,
    cart_id TEXT NOT NULL,
    client_secret TEXT NOT NULL UNIQUE,
    amount INTEGER NOT NULL,
    currency TEXT NOT NULL,
    status TEXT NOT NULL,
    created_at REAL NOT NULL
);
CREATE INDEX IF NOT EXISTS payment_intents_cart ON payment_intents (cart_id);
CREATE TABLE IF NOT EXISTS orders (
    id TEXT PRIMARY KEY,
    cart_id TEXT NOT NULL,
    location_id TEXT NOT NULL,
    number TEXT NOT NULL,
    amount INTEGER NOT NULL,
    created_at REAL NOT NULL,
    doc TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS counters (name TEXT PRIMARY KEY, value INTEGER NOT NULL);
CREATE TABLE IF NOT EXISTS idempotency (
    scope TEXT NOT NULL,
    key TEXT NOT NULL,
    request_hash TEXT NOT NULL,
    state TEXT NOT NULL,
    status INTEGER,
    body TEXT,
    created_at REAL NOT NULL,
    PRIMARY KEY (scope, key)
);
"""


SYNCHRONOUS = ("FULL", "NORMAL")
# How long a stored outcome is replayed for its Idempotency-Key (the vendor states no retention).
IDEMPOTENCY_TTL = 24 * 3600.0
# A request still "running" after this long belongs to a process that died.
ABANDONED_AFTER = 60.0


def _private_file(path: Path) -> None:
    """Create the database file and any missing folders so only this user can read them: carts hold
    customers' names, emails and addresses. SQLite gives its -wal and -shm files the same mode."""
    missing = [p for p in (path.parent, *path.parent.parents) if not p.exists()]
    for folder in reversed(missing):
        folder.mkdir(mode=0o700)
    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o600)
    os.close(fd)


# The cart revision a 2.0 write was made against (If-Match), for Store.put_cart; None: unchecked.
EXPECTED_REVISION: ContextVar[int | None] = ContextVar("expected_revision", default=None)


class RevisionConflict(Exception):
    """The cart changed since the revision the write named (If-Match): nothing was written."""

    def __init__(self, current: int) -> None:
        super().__init__(f"the cart is at revision {current}")
        self.current = current


class IdempotencyConflict(Exception):
    """The key was used before with another request, or its first request is still running."""

    def __init__(self, code: str) -> None:
        super().__init__(code)
        self.code = code  # IDEMPOTENCY_KEY_REUSED or IDEMPOTENCY_IN_PROGRESS


class Store:
    def __init__(self, db_path: str | Path = ":memory:", *, synchronous: str = "NORMAL") -> None:
        """synchronous: FULL acknowledges only what survives a power cut (`kiosk demo-server`);
        NORMAL may lose the last writes on power loss, never corrupts (in-process demos, tests)."""
        if synchronous.upper() not in SYNCHRONOUS:
            raise ValueError(f"synchronous must be one of {SYNCHRONOUS}")
        self.path = str(db_path)
        if self.path != ":memory:":
            _private_file(Path(self.path))
        # isolation_level=None: we issue BEGIN/COMMIT ourselves.
        self._conn = sqlite3.connect(
            self.path, timeout=10.0, isolation_level=None, check_same_thread=False
        )
        self._lock = threading.RLock()
        with self._lock:
            self._conn.execute("PRAGMA busy_timeout = 10000")
            if self.path != ":memory:":
                self._conn.execute("PRAGMA journal_mode = WAL")
                self._conn.execute(f"PRAGMA synchronous = {synchronous.upper()}")
            self._conn.executescript(SCHEMA)

    def close(self) -> None:
        with self._lock:
            self._conn.close()

    @contextmanager
    def read(self) -> Iterator[sqlite3.Connection]:
        with self._lock:
            yield self._conn

    @contextmanager
    def write(self) -> Iterator[sqlite3.Connection]:
        """A BEGIN IMMEDIATE transaction; any exception rolls it back (the cart stays unchanged)."""
        with self._lock:
            self._conn.execute("BEGIN IMMEDIATE")
            try:
                yield self._conn
            except BaseException:
                self._conn.execute("ROLLBACK")
                raise
            self._conn.execute("COMMIT")

    # -- seeding -------------------------------------------------------------------------------

    def seed(
        self, extra_products: int, now: float, restaurant: data.Restaurant | None = None
    ) -> None:
        """Write the restaurant's catalog (default: the built-in default restaurant). Idempotent:
        rows are keyed; a second start replaces, never adds.

        The initial sold-out flags are written only once, so run-time changes survive restarts.
        """
        r = restaurant if restaurant is not None else data.default()
        cat = r.build_catalog(extra_products)
        docs: list[tuple[str, str, str]] = []
        merchant = {
            "id": r.merchant_id,
            "slug": r.merchant_slug,
            "name": r.merchant_name,
            "currency": r.currency,
        }
        docs.append(("merchant", r.merchant_id, json.dumps(merchant)))
        for loc in r.locations:
            doc = asdict(loc) | {"details": r.details[loc.id]}
            doc["popular"] = list(r.popular.get(loc.id, ()))
            doc["crossSell"] = list(r.cross_sell.get(loc.id, ()))
            docs.append(("location", loc.id, json.dumps(doc)))
        docs.extend(("product", p.id, json.dumps(asdict(p))) for p in cat.products)
        docs.extend(("group", g.id, json.dumps(asdict(g))) for g in cat.groups)
        docs.extend(("menu", m.id, json.dumps(asdict(m))) for m in cat.menus)
        docs.extend(("discount", d.code, json.dumps(asdict(d))) for d in r.discounts.values())
        with self.write() as conn:
            conn.execute("DELETE FROM catalog")
            conn.executemany("INSERT INTO catalog (kind, id, doc) VALUES (?, ?, ?)", docs)
            seeded = conn.execute("SELECT value FROM meta WHERE key = 'seeded_at'").fetchone()
            if seeded is None:
                conn.executemany(
                    "INSERT OR IGNORE INTO sold_out (item_id) VALUES (?)",
                    [(i,) for i in r.initial_sold_out],
                )
                conn.execute("INSERT INTO meta (key, value) VALUES ('seeded_at', ?)", (str(now),))

    def load_catalog(self) -> dict[str, dict[str, Any]]:
        out: dict[str, dict[str, Any]] = {}
        with self.read() as conn:
            for kind, id_, doc in conn.execute("SELECT kind, id, doc FROM catalog"):
                out.setdefault(kind, {})[id_] = json.loads(doc)
        return out

    # -- sold out ------------------------------------------------------------------------------

    def sold_out(self) -> set[str]:
        with self.read() as conn:
            return {r[0] for r in conn.execute("SELECT item_id FROM sold_out")}

    def set_sold_out(self, item_id: str, sold_out: bool) -> None:
        with self.write() as conn:
            if sold_out:
                conn.execute("INSERT OR IGNORE INTO sold_out (item_id) VALUES (?)", (item_id,))
            else:
                conn.execute("DELETE FROM sold_out WHERE item_id = ?", (item_id,))

    # -- carts ---------------------------------------------------------------------------------

    @staticmethod
    def get_cart(conn: sqlite3.Connection, cart_id: str) -> dict[str, Any] | None:
        row = conn.execute("SELECT doc FROM carts WHERE id = ?", (cart_id,)).fetchone()
        return None if row is None else json.loads(row[0])

    @staticmethod
    def put_cart(conn: sqlite3.Connection, cart: dict[str, Any], now: float) -> None:
        # Every stored change is a new revision (Storefront 2.0's ETag "cart-N"). A 2.0 write names
        # the revision it was made against (If-Match); it is checked here, inside the write's
        # transaction, so two writes against one revision can never both land.
        expected = EXPECTED_REVISION.get()
        if expected is not None and int(cart.get("revision", 0)) != expected:
            raise RevisionConflict(int(cart.get("revision", 0)))
        cart["revision"] = int(cart["revision"]) + 1 if "revision" in cart else 0
        conn.execute(
            "INSERT INTO carts (id, location_id, status, doc, created_at, updated_at)"
            " VALUES (?, ?, ?, ?, ?, ?)"
            " ON CONFLICT(id) DO UPDATE SET status = excluded.status, doc = excluded.doc,"
            " updated_at = excluded.updated_at",
            (cart["id"], cart["locationId"], cart["status"], json.dumps(cart), now, now),
        )

    @staticmethod
    def next_counter(conn: sqlite3.Connection, name: str) -> int:
        conn.execute(
            "INSERT INTO counters (name, value) VALUES (?, 1)"
            " ON CONFLICT(name) DO UPDATE SET value = value + 1",
            (name,),
        )
        return int(conn.execute("SELECT value FROM counters WHERE name = ?", (name,)).fetchone()[0])

    # -- idempotency ---------------------------------------------------------------------------

    def idempotent(
        self,
        scope: str,
        key: str,
        request_hash: str,
        now: float,
        run: Callable[[], tuple[int, Any]],
    ) -> tuple[int, Any]:
        """Run a write once per (scope, key): its outcome is stored and replayed to a retry.

        The same key with another request raises IdempotencyConflict("IDEMPOTENCY_KEY_REUSED");
        while the first request runs, IdempotencyConflict("IDEMPOTENCY_IN_PROGRESS"). A 5xx outcome
        is not stored: the write did not happen, so a retry runs it again. `run` returns
        (status, JSON body) and does its own transaction.
        """
        with self.write() as conn:
            conn.execute("DELETE FROM idempotency WHERE created_at < ?", (now - IDEMPOTENCY_TTL,))
            row = conn.execute(
                "SELECT request_hash, state, status, body, created_at FROM idempotency "
                "WHERE scope = ? AND key = ?",
                (scope, key),
            ).fetchone()
            if row is not None:
                stored_hash, state, status, body, created = row
                if stored_hash != request_hash:
                    raise IdempotencyConflict("IDEMPOTENCY_KEY_REUSED")
                if state == "done":
                    return int(status), json.loads(body)
                if created > now - ABANDONED_AFTER:
                    raise IdempotencyConflict("IDEMPOTENCY_IN_PROGRESS")
                # Its process died mid-request (the write's own transaction rolled back): run again.
                conn.execute("DELETE FROM idempotency WHERE scope = ? AND key = ?", (scope, key))
            conn.execute(
                "INSERT INTO idempotency (scope, key, request_hash, state, created_at) "
                "VALUES (?, ?, ?, 'running', ?)",
                (scope, key, request_hash, now),
            )
        try:
            status, body = run()
        except BaseException:
            self._forget(scope, key)
            raise
        if status >= 500:
            self._forget(scope, key)
            return status, body
        with self.write() as conn:
            conn.execute(
                "UPDATE idempotency SET state = 'done', status = ?, body = ? "
                "WHERE scope = ? AND key = ?",
                (status, json.dumps(body), scope, key),
            )
        return status, body

    def _forget(self, scope: str, key: str) -> None:
        with self.write() as conn:
            conn.execute("DELETE FROM idempotency WHERE scope = ? AND key = ?", (scope, key))
