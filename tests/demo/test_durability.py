"""The demo database is private and durable, a retried session start makes no second cart, and
`kiosk demo-server`'s limiter and durability are set from the command line (issue 11)."""

from __future__ import annotations

import argparse
import stat
from pathlib import Path

import pytest

from kiosk import cli
from kiosk.demo import create_app
from kiosk.demo.data import DOWNTOWN
from kiosk.demo.store import Store

from .support import DT, WED_AFTERNOON, make_client

SESSION = f"/locations/{DT}/ordering-sessions"


def test_database_and_new_folders_are_private(tmp_path: Path) -> None:
    db = tmp_path / "new" / "deeper" / "demo.sqlite3"
    store = Store(db)
    try:
        assert stat.S_IMODE(db.stat().st_mode) == 0o600
        assert stat.S_IMODE(db.parent.stat().st_mode) == 0o700
        assert stat.S_IMODE((tmp_path / "new").stat().st_mode) == 0o700
        with store.write() as conn:
            conn.execute("INSERT INTO meta (key, value) VALUES ('x', 'y')")
        for side in db.parent.glob("demo.sqlite3-*"):  # -wal, -shm
            assert stat.S_IMODE(side.stat().st_mode) & 0o077 == 0, side
    finally:
        store.close()


@pytest.mark.parametrize(("asked", "pragma"), [("FULL", 2), ("NORMAL", 1)])
def test_synchronous_is_what_was_asked(tmp_path: Path, asked: str, pragma: int) -> None:
    store = Store(tmp_path / "demo.sqlite3", synchronous=asked)
    try:
        with store.read() as conn:
            assert conn.execute("PRAGMA synchronous").fetchone()[0] == pragma
    finally:
        store.close()


async def test_a_retried_session_start_returns_the_same_cart() -> None:
    app = create_app(clock=lambda: WED_AFTERNOON)
    backend = app.state.backend
    key = {"Idempotency-Key": "kiosk-start-0123456789abcdef"}
    async with make_client(app, DOWNTOWN.api_key) as c:
        first = await c.post(SESSION, json={"fulfillmentMethod": "pickup"}, headers=key)
        again = await c.post(SESSION, json={"fulfillmentMethod": "pickup"}, headers=key)
        assert first.status_code == again.status_code == 200
        assert first.json()["cartId"] == again.json()["cartId"]
        assert len(backend.carts.ids()) == 1
        # The same key for another request is refused, not replayed and not run.
        other = await c.post(SESSION, json={"fulfillmentMethod": "delivery"}, headers=key)
        assert other.status_code == 409
        assert other.json()["code"] == "IDEMPOTENCY_KEY_REUSED"
        # Without a key, or with a new one, it is a new session.
        fresh = await c.post(
            SESSION,
            json={"fulfillmentMethod": "pickup"},
            headers={"Idempotency-Key": "kiosk-start-fedcba9876543210"},
        )
        assert fresh.json()["cartId"] != first.json()["cartId"]
        bad = await c.post(
            SESSION, json={"fulfillmentMethod": "pickup"}, headers={"Idempotency-Key": "short"}
        )
        assert bad.status_code == 400
    assert len(backend.carts.ids()) == 2


async def test_an_idempotent_refusal_is_replayed_as_refused() -> None:
    app = create_app(clock=lambda: WED_AFTERNOON)
    key = {"Idempotency-Key": "kiosk-add-0123456789abcdef01"}
    async with make_client(app, DOWNTOWN.api_key) as c:
        cart = (await c.post(SESSION, json={"fulfillmentMethod": "pickup"})).json()["cartId"]
        path = f"/locations/{DT}/carts/{cart}/cart-item"
        body = {"productId": "prd_no_such", "quantity": 1}
        one = await c.post(path, json=body, headers=key)
        two = await c.post(path, json=body, headers=key)
    assert one.status_code == two.status_code
    assert one.status_code in (400, 404)
    assert one.json() == two.json()


def test_a_write_still_running_is_reported_in_progress(tmp_path: Path) -> None:
    store = Store(tmp_path / "demo.sqlite3")
    seen: list[object] = []

    def run() -> tuple[int, object]:
        try:
            store.idempotent("s", "k" * 16, "h", 1000.0, lambda: (200, {}))
        except Exception as exc:
            seen.append(exc)
        return 200, {"ok": True}

    try:
        assert store.idempotent("s", "k" * 16, "h", 1000.0, run) == (200, {"ok": True})
        assert [getattr(e, "code", None) for e in seen] == ["IDEMPOTENCY_IN_PROGRESS"]
        # The outcome is replayed, and no "running" mark is left behind for a dead process.
        assert store.idempotent("s", "k" * 16, "h", 1100.0, lambda: (200, {"n": 2})) == (
            200,
            {"ok": True},
        )
        with store.read() as conn:
            states = [r[0] for r in conn.execute("SELECT state FROM idempotency")]
        assert states == ["done"]
    finally:
        store.close()


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("200/10min", (200, 600.0)),
        ("1000/1min", (1000, 60.0)),
        ("50/30s", (50, 30.0)),
        ("5000/1h", (5000, 3600.0)),
        ("off", (None, 600.0)),
    ],
)
def test_rate_limit_flag(text: str, expected: tuple[int | None, float]) -> None:
    assert cli._rate_limit(text) == expected


@pytest.mark.parametrize("text", ["", "200", "0/10min", "10/0min", "ten/10min", "10/10years"])
def test_rate_limit_flag_refuses_nonsense(text: str) -> None:
    with pytest.raises(argparse.ArgumentTypeError):
        cli._rate_limit(text)


def test_demo_server_passes_its_flags_to_the_backend(monkeypatch: pytest.MonkeyPatch) -> None:
    seen: dict[str, object] = {}

    def fake_run(host: str, port: int, db: Path, **kwargs: object) -> None:
        seen.update(kwargs)

    monkeypatch.setattr("kiosk.demo.server.run", fake_run)
    monkeypatch.setattr(cli, "_check_can_listen", lambda host, port: None)
    code = cli.main(["demo-server", "--rate-limit", "off", "--synchronous", "normal"])
    assert code == 0
    assert seen.pop("menu").source == "lantern"  # type: ignore[attr-defined]
    assert seen == {"rate_limit": None, "rate_window": 600.0, "synchronous": "NORMAL"}
    seen.clear()
    assert cli.main(["demo-server", "--menu", "kowhai"]) == 0
    assert seen.pop("menu").source == "kowhai"  # type: ignore[attr-defined]
    assert seen == {"rate_limit": 200, "rate_window": 600.0, "synchronous": "FULL"}
