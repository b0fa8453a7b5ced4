"""SQLite persistence for the demo backend: the seeded catalog, carts, payment intents and orders.

One connection per Backend, guarded by a lock (sqlite3 calls are short; the event loop can wait).
Several processes may share one file: WAL, a busy timeout, and BEGIN IMMEDIATE around every
read-modify-write so two writers never interleave.
"""

from __future__ import annotations

import json
import sqlite3
import threading
from collections.abc import Iterator
from contextlib import contextmanager
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
"""


class Store:
    def __init__(self, db_path: str | Path = ":memory:") -> None:
        self.path = str(db_path)
        if self.path != ":memory:":
            Path(self.path).parent.mkdir(parents=True, exist_ok=True)
        # isolation_level=None: we issue BEGIN/COMMIT ourselves.
        self._conn = sqlite3.connect(
            self.path, timeout=10.0, isolation_level=None, check_same_thread=False
        )
        self._lock = threading.RLock()
        with self._lock:
            self._conn.execute("PRAGMA busy_timeout = 10000")
            if self.path != ":memory:":
                self._conn.execute("PRAGMA journal_mode = WAL")
                self._conn.execute("PRAGMA synchronous = NORMAL")
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

    def seed(self, extra_products: int, now: float) -> None:
        """Write the demo catalog. Idempotent: rows are keyed; a second start replaces, never adds.

        The initial sold-out flags are written only once, so run-time changes survive restarts.
        """
        cat = data.build_catalog(extra_products)
        docs: list[tuple[str, str, str]] = []
        merchant = {"id": data.MERCHANT_ID, "slug": data.MERCHANT_SLUG, "name": data.MERCHANT_NAME}
        docs.append(("merchant", data.MERCHANT_ID, json.dumps(merchant)))
        for loc in data.ALL_LOCATIONS:
            doc = asdict(loc) | {"details": data.LOCATION_DETAILS[loc.id]}
            doc["popular"] = list(data.POPULAR.get(loc.id, ()))
            doc["crossSell"] = list(data.CROSS_SELL.get(loc.id, ()))
            docs.append(("location", loc.id, json.dumps(doc)))
        docs.extend(("product", p.id, json.dumps(asdict(p))) for p in cat.products)
        docs.extend(("group", g.id, json.dumps(asdict(g))) for g in cat.groups)
        docs.extend(("menu", m.id, json.dumps(asdict(m))) for m in cat.menus)
        docs.extend(
            ("discount", d.code, json.dumps(asdict(d))) for d in data.DISCOUNT_CODES.values()
        )
        with self.write() as conn:
            conn.execute("DELETE FROM catalog")
            conn.executemany("INSERT INTO catalog (kind, id, doc) VALUES (?, ?, ?)", docs)
            seeded = conn.execute("SELECT value FROM meta WHERE key = 'seeded_at'").fetchone()
            if seeded is None:
                conn.executemany(
                    "INSERT OR IGNORE INTO sold_out (item_id) VALUES (?)",
                    [(i,) for i in data.INITIAL_SOLD_OUT],
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
