"""SQLite persistence for the demo backend: the seeded catalog, carts, payment intents and orders.

One connection per Backend, guarded by a lock (sqlite3 calls are short; the event loop can wait).
Several processes may share one file: WAL, a busy timeout, and BEGIN IMMEDIATE around every
read-modify-write so two writers never interleave. A write inside a write is a SAVEPOINT: it rolls
back alone when it fails, and commits with the outer one (the idempotency record and the change it
guards are one transaction: no crash can come between them).
"""

from __future__ import annotations

import base64
import contextlib
import hashlib
import hmac
import json
import logging
import os
import secrets
import sqlite3
import tempfile
import threading
import time
import weakref
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import asdict
from pathlib import Path
from typing import Any

from kiosk.demo import data

# The code staff find a payment by at the counter: the cart id's last 6 characters in capitals
# (kiosk.demo.app.counter_code). Indexed over the payments not made yet, so a search by code finds
# any of them however many there are; a query must say it in these very words to use the index.
COUNTER_CODE_SQL = "upper(substr(cart_id, -6))"
SCHEMA = f"""
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
    secret_hash TEXT NOT NULL UNIQUE,
    amount INTEGER NOT NULL,
    currency TEXT NOT NULL,
    status TEXT NOT NULL,
    created_at REAL NOT NULL,
    expires_at REAL
);
CREATE INDEX IF NOT EXISTS payment_intents_cart ON payment_intents (cart_id);
CREATE INDEX IF NOT EXISTS payment_intents_counter_code ON payment_intents ({COUNTER_CODE_SQL})
    WHERE status = 'requires_payment_method';
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
# Added after the first release: a database made before gets them at its next start.
LATER_SCHEMA = (
    ("payment_intents", "expires_at", "ALTER TABLE payment_intents ADD COLUMN expires_at REAL"),
)
# One row per (scope, key), found by `id`, the SHA-256 of both (a small index: random keys insert
# into it cheaply), rows appended in rowid order, expired by the index on created_at. Format 3:
# neither the key nor a secret of an answer is kept in clear (see Store.idempotent).
IDEMPOTENCY_SCHEMA = """
CREATE TABLE IF NOT EXISTS idempotency (
    id BLOB NOT NULL UNIQUE,
    request_hash TEXT NOT NULL,
    state TEXT NOT NULL,
    status INTEGER,
    body TEXT,
    created_at REAL NOT NULL
);
CREATE INDEX IF NOT EXISTS idempotency_created ON idempotency (created_at);
"""
IDEMPOTENCY_FORMAT = "3"
# Members of an answer that are secrets: never stored in clear (the cart token, a payment's secret).
SECRET_MEMBERS = frozenset({"cartAccessToken", "clientSecret"})

log = logging.getLogger("kiosk.demo")


SYNCHRONOUS = ("FULL", "NORMAL")
# How long a stored outcome is replayed for its Idempotency-Key (the vendor states no retention).
IDEMPOTENCY_TTL = 24 * 3600.0
# Expired outcomes are deleted off the request path, by a periodic sweep, this many at a time.
SWEEP_INTERVAL = 60.0
SWEEP_BATCH = 500


def _private_file(path: Path) -> None:
    """Create the database file and any missing folders so only this user can read them: carts hold
    customers' names, emails and addresses. SQLite gives its -wal and -shm files the same mode."""
    missing = [p for p in (path.parent, *path.parent.parents) if not p.exists()]
    for folder in reversed(missing):
        with contextlib.suppress(FileExistsError):  # another process made it meanwhile
            folder.mkdir(mode=0o700)
            folder.chmod(0o700)  # mkdir's mode is masked by the umask
    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o600)
    os.close(fd)


KEY_BYTES = 32


def derive_secret(key: bytes, intent_id: str) -> str:
    """A payment's client secret, derived from the database's key and its id (never stored):
    the checkout page and the kiosk get the same one each time they ask."""
    mac = hmac.new(key, intent_id.encode("utf-8"), hashlib.sha256).digest()[:18]
    return f"{intent_id}_secret_{base64.urlsafe_b64encode(mac).decode('ascii')}"


def secret_hash(secret: str) -> str:
    """What is stored of a client secret, to find its payment by it."""
    return hashlib.sha256(secret.encode("utf-8", "replace")).hexdigest()


def _database_key(db_path: str) -> bytes:
    """The key payment secrets are derived from (kiosk.demo.domain.payments): beside the database
    in `<file>.key` (0600), made once and shared by every process on that file; a copy of the
    database alone derives nothing. An in-memory database has a key of its own."""
    if db_path == ":memory:":
        return secrets.token_bytes(KEY_BYTES)
    path = Path(db_path + ".key")
    for _ in range(3):
        try:
            key = path.read_bytes()
        except FileNotFoundError:
            key = b""
        if len(key) == KEY_BYTES:
            return key
        if key:  # damaged: a new key (the payments not made yet are given new secrets)
            path.unlink(missing_ok=True)
        # Written whole under another name, then linked into place: a second process either
        # finds no key or the whole key, never half of one.
        fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
        try:
            os.write(fd, secrets.token_bytes(KEY_BYTES))
            os.fsync(fd)
            os.close(fd)
            try:
                os.link(tmp, path)
            except FileExistsError:
                pass  # another process was first: its key is read next
            except OSError:  # a file system without hard links
                if not path.exists():
                    os.replace(tmp, path)
        finally:
            Path(tmp).unlink(missing_ok=True)
    raise OSError(f"cannot make the key file {path}")


# True while a legacy v1 request runs: it may not see a 2.0 cart (one with a token), which only its
# X-Cart-Token opens. Checked in get_cart, the one door every cart read goes through.
V1_CALL: ContextVar[bool] = ContextVar("v1_call", default=False)

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
        self._depth = 0  # open write()s on this connection (guarded by the lock)
        self._running: set[bytes] = set()  # idempotent writes under way
        self.closed = False
        with self._lock:
            self._conn.execute("PRAGMA busy_timeout = 10000")
            # 32 MiB of pages: the indexes of a day of keyed writes stay in memory.
            self._conn.execute("PRAGMA cache_size = -32768")
            if self.path != ":memory:":
                self._conn.execute("PRAGMA journal_mode = WAL")
                self._conn.execute(f"PRAGMA synchronous = {synchronous.upper()}")
            self._conn.executescript(SCHEMA)
            self._migrate_schema()
            self._migrate_idempotency()
        # Payment secrets are derived from this key, never stored (kiosk.demo.domain.payments).
        self.secret_key = _database_key(self.path)
        with self._lock:
            self._migrate_payment_secrets()

    def _columns(self, table: str) -> set[str]:
        return {row[1] for row in self._conn.execute(f"PRAGMA table_info({table})")}

    def _migrate_schema(self) -> None:
        for table, column, sql in LATER_SCHEMA:
            if column not in self._columns(table):
                self._conn.execute(sql)
        try:
            # Order numbers are unique per location for the life of the database.
            self._conn.execute(
                "CREATE UNIQUE INDEX IF NOT EXISTS orders_number ON orders (location_id, number)"
            )
        except sqlite3.IntegrityError:
            # An older version reused numbers after 1,000 orders: those stay as they were.
            log.warning("demo backend: repeated order numbers from an older version are kept")

    def _migrate_payment_secrets(self) -> None:
        """An older version kept each payment's client secret in clear (`client_secret`): the
        column becomes the hash of the secret now derived from the key, and the pages that held
        the old values are zeroed (secure_delete) and the WAL emptied."""
        if "client_secret" not in self._columns("payment_intents"):
            return
        self._conn.execute("PRAGMA secure_delete = ON")
        self._conn.execute("BEGIN IMMEDIATE")
        try:
            if "client_secret" in self._columns("payment_intents"):  # another process was first
                self._conn.execute(
                    "ALTER TABLE payment_intents RENAME COLUMN client_secret TO secret_hash"
                )
                ids = [r[0] for r in self._conn.execute("SELECT id FROM payment_intents")]
                self._conn.executemany(
                    "UPDATE payment_intents SET secret_hash = ? WHERE id = ?",
                    [(secret_hash(derive_secret(self.secret_key, i)), i) for i in ids],
                )
            self._conn.execute("COMMIT")
        except BaseException:
            self._conn.execute("ROLLBACK")
            raise
        if self.path != ":memory:":
            self._conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        self._conn.execute("PRAGMA secure_delete = OFF")

    def _migrate_idempotency(self) -> None:
        """Records of an older format held raw keys and cart tokens in clear: dropped (a retry
        of a request made before the upgrade runs again, once)."""
        row = self._conn.execute(
            "SELECT value FROM meta WHERE key = 'idempotency_format'"
        ).fetchone()
        if row is None or row[0] != IDEMPOTENCY_FORMAT:
            self._conn.execute("DROP TABLE IF EXISTS idempotency")
            self._conn.executescript(IDEMPOTENCY_SCHEMA)
            self._conn.execute(
                "INSERT OR REPLACE INTO meta (key, value) VALUES ('idempotency_format', ?)",
                (IDEMPOTENCY_FORMAT,),
            )

    def close(self) -> None:
        with self._lock:
            self.closed = True
            self._conn.close()

    @contextmanager
    def read(self) -> Iterator[sqlite3.Connection]:
        with self._lock:
            yield self._conn

    @contextmanager
    def write(self) -> Iterator[sqlite3.Connection]:
        """A BEGIN IMMEDIATE transaction; any exception rolls it back (the cart stays unchanged).
        Inside another write, a savepoint: an exception rolls back this part only."""
        with self._lock:
            depth = self._depth
            begin, undo, done = (
                ("BEGIN IMMEDIATE", "ROLLBACK", "COMMIT")
                if depth == 0
                else (f"SAVEPOINT w{depth}", f"ROLLBACK TO w{depth}", f"RELEASE w{depth}")
            )
            self._conn.execute(begin)
            self._depth = depth + 1
            try:
                yield self._conn
            except BaseException:
                self._conn.execute(undo)
                if depth:
                    self._conn.execute(done)
                raise
            finally:
                self._depth = depth
            self._conn.execute(done)

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
        cart: dict[str, Any] | None = None if row is None else json.loads(row[0])
        if cart is not None and V1_CALL.get() and cart.get("tokenHash"):
            return None
        return cart

    def token_hash_of(self, cart_id: str) -> str | None:
        """The stored hash of a 2.0 cart's token (None: no such cart, or a v1 cart)."""
        with self.read() as conn:
            row = conn.execute(
                "SELECT json_extract(doc, '$.tokenHash') FROM carts WHERE id = ?", (cart_id,)
            ).fetchone()
        return None if row is None or not isinstance(row[0], str) else row[0]

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

        One transaction: the lookup, `run` (its own writes become savepoints of this one) and the
        record of its outcome commit together or not at all, so a crash can never leave a change
        without its record (a retry would apply it twice) nor a record without its change. The
        same key with another request raises IdempotencyConflict("IDEMPOTENCY_KEY_REUSED"); the
        same key again from inside `run`, "IDEMPOTENCY_IN_PROGRESS" (another process waits for the
        transaction, then finds the outcome). A 5xx outcome is rolled back and not stored: a retry
        runs it again. Kept: the key's SHA-256, and the answer with its secrets masked by the key
        (a reader of the file cannot use them; the client resending the key gets them back).
        """
        key_id = hashlib.sha256(f"{scope}\0{key}".encode()).digest()
        if key_id in self._running:
            raise IdempotencyConflict("IDEMPOTENCY_IN_PROGRESS")
        try:
            with self.write() as conn:
                row = conn.execute(
                    "SELECT request_hash, status, body, created_at FROM idempotency WHERE id = ?",
                    (key_id,),
                ).fetchone()
                if row is not None and row[3] < now - IDEMPOTENCY_TTL:
                    # Expired but not swept yet: as if it were gone.
                    conn.execute("DELETE FROM idempotency WHERE id = ?", (key_id,))
                    row = None
                if row is not None:
                    stored_hash, status, body, _ = row
                    if stored_hash != request_hash:
                        raise IdempotencyConflict("IDEMPOTENCY_KEY_REUSED")
                    return int(status), _mask(json.loads(body), key, scope, reveal=True)
                self._running.add(key_id)
                try:
                    status, body = run()
                finally:
                    self._running.discard(key_id)
                if status >= 500:
                    raise _Undo(status, body)
                conn.execute(
                    "INSERT INTO idempotency (id, request_hash, state, status, body, created_at)"
                    " VALUES (?, ?, 'done', ?, ?, ?)",
                    (key_id, request_hash, status, json.dumps(_mask(body, key, scope)), now),
                )
                return status, body
        except _Undo as undone:
            return undone.status, undone.body

    def expire_idempotency(self, now: float, batch: int = SWEEP_BATCH) -> int:
        """Delete outcomes older than IDEMPOTENCY_TTL, `batch` rows per transaction (requests
        interleave between batches); by the index on created_at. Returns how many went."""
        gone = 0
        while not self.closed:
            with self.write() as conn:
                deleted = conn.execute(
                    "DELETE FROM idempotency WHERE rowid IN (SELECT rowid FROM idempotency"
                    " WHERE created_at < ? LIMIT ?)",
                    (now - IDEMPOTENCY_TTL, batch),
                ).rowcount
            gone += deleted
            if deleted < batch:
                break
        return gone


class _Undo(Exception):
    """Rolls back an idempotent write whose outcome was a 5xx (nothing of it is kept)."""

    def __init__(self, status: int, body: Any) -> None:
        super().__init__(status)
        self.status = status
        self.body = body


def _mask(value: Any, key: str, scope: str, *, reveal: bool = False, path: str = "") -> Any:
    """The answer with every SECRET_MEMBERS string XORed with a stream drawn from the raw
    Idempotency-Key (never stored), the scope and the member's place; `reveal` undoes it."""
    if isinstance(value, dict):
        out: dict[str, Any] = {}
        for name, item in value.items():
            where = f"{path}/{name}"
            if name in SECRET_MEMBERS and reveal and isinstance(item, dict) and "$masked" in item:
                raw = bytes.fromhex(str(item["$masked"]))
                out[name] = _xor(raw, key, scope, where).decode("utf-8")
            elif name in SECRET_MEMBERS and not reveal and isinstance(item, str):
                out[name] = {"$masked": _xor(item.encode("utf-8"), key, scope, where).hex()}
            else:
                out[name] = _mask(item, key, scope, reveal=reveal, path=where)
        return out
    if isinstance(value, list):
        return [
            _mask(v, key, scope, reveal=reveal, path=f"{path}/{i}") for i, v in enumerate(value)
        ]
    return value


def _xor(data: bytes, key: str, scope: str, where: str) -> bytes:
    seed = "\0".join(("kiosk-demo-idempotency", scope, where, key)).encode("utf-8")
    stream = hashlib.shake_256(seed).digest(len(data))
    return bytes(a ^ b for a, b in zip(data, stream, strict=True))


class _Sweeper:
    """One daemon thread for every store of the process: each SWEEP_INTERVAL s it calls the
    registered expiry functions (held weakly: a backend no one holds is not kept alive)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._targets: list[weakref.WeakMethod[Callable[[], object]]] = []
        self._thread: threading.Thread | None = None

    def register(self, method: Callable[[], object]) -> None:
        with self._lock:
            self._targets.append(weakref.WeakMethod(method))
            if self._thread is None:
                self._thread = threading.Thread(target=self._loop, daemon=True, name="demo-sweep")
                self._thread.start()

    def _loop(self) -> None:
        while True:
            time.sleep(SWEEP_INTERVAL)
            self.sweep_now()

    def sweep_now(self) -> None:
        with self._lock:
            self._targets = [t for t in self._targets if t() is not None]
            targets = list(self._targets)
        for target in targets:
            fn = target()
            if fn is None:
                continue
            try:
                fn()
            except Exception:  # a closed store, a locked file: the next sweep tries again
                log.warning("demo backend: the idempotency sweep failed", exc_info=True)


SWEEPER = _Sweeper()
