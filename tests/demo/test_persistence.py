"""SQLite persistence: carts survive a restart, seeding is idempotent, writers share a file."""

from __future__ import annotations

import subprocess
import sys
import threading
from pathlib import Path

import httpx
import pytest

from kiosk.demo import create_app
from kiosk.demo.backend import Backend
from kiosk.demo.data import DOWNTOWN
from kiosk.demo.server import default_db_path

from .support import DT, LATTE_OK, Clock, add, get_cart, make_client, new_cart, sel


async def test_carts_survive_a_restart(tmp_path: Path, clock: Clock) -> None:
    db = tmp_path / "demo.sqlite3"
    app = create_app(db, clock=clock)
    async with make_client(app, DOWNTOWN.api_key) as c:
        cart_id = await new_cart(c, method="delivery")
        await add(
            c, cart_id, "prd_latte", 2, [*LATTE_OK, sel("grp_extra_shots", ("opt_shot_extra", 2))]
        )
        await c.put(f"/locations/{DT}/carts/{cart_id}/gratuity", json={"percentage": "20"})
        await c.post(
            f"/locations/{DT}/discounts/apply-discount", json={"code": "SAVE10", "cartId": cart_id}
        )
        before = await get_cart(c, cart_id)
        paid = await new_cart(c)
        await add(c, paid, "prd_cookie")
        await c.post(f"/locations/{DT}/carts/{paid}/payment-intent")
    assert app.state.backend.approve_payment(paid) == "A001"
    app.state.backend.set_sold_out("prd_brownie", True)
    app.state.backend.close()

    again = create_app(db, clock=clock)
    async with make_client(again, DOWNTOWN.api_key) as c:
        assert await get_cart(c, cart_id) == before
        assert (await get_cart(c, paid))["fulfillmentIdentifier"] == "A001"
        assert (await add(c, cart_id, "prd_brownie")).status_code == 400  # still sold out
        third = await new_cart(c)
        await add(c, third, "prd_cookie")
        await c.post(f"/locations/{DT}/carts/{third}/payment-intent")
    assert again.state.backend.approve_payment(third) == "A002"  # the counter continues
    again.state.backend.close()


def _catalog_rows(backend: Backend) -> int:
    with backend.store.read() as conn:
        return int(conn.execute("SELECT COUNT(*) FROM catalog").fetchone()[0])


def test_seeding_is_idempotent(tmp_path: Path) -> None:
    db = tmp_path / "demo.sqlite3"
    first = create_app(db).state.backend
    rows = _catalog_rows(first)
    assert rows > 90
    # An item put back on sale stays on sale: the seed's sold-out flags are written only once.
    first.set_sold_out("prd_cinnamon_roll", False)
    first.close()
    second = create_app(db).state.backend
    assert _catalog_rows(second) == rows
    assert "prd_cinnamon_roll" not in second.sold_out()
    assert "prd_smash_burger" in second.sold_out()
    second.close()
    # A bigger generated menu replaces the rows, a smaller one removes them again.
    big = create_app(db, extra_products=300).state.backend
    assert _catalog_rows(big) == rows + 300 + 1
    big.close()
    back = create_app(db).state.backend
    assert _catalog_rows(back) == rows
    back.close()
    # seed=False serves what the file holds.
    unseeded = create_app(db, seed=False).state.backend
    assert unseeded.location(DT) is not None
    unseeded.close()


def test_an_empty_unseeded_backend_has_no_locations(tmp_path: Path) -> None:
    backend = create_app(tmp_path / "empty.sqlite3", seed=False).state.backend
    assert backend.location(DT) is None and backend.catalog.merchant is None
    backend.close()


def test_two_backends_on_one_file_lose_no_writes(tmp_path: Path) -> None:
    db = tmp_path / "demo.sqlite3"
    a = create_app(db).state.backend
    b = create_app(db).state.backend
    loc = a.location(DT)
    cart_id = a.start_session(loc, {"fulfillmentMethod": "pickup"})["cartId"]

    def writer(backend: Backend) -> None:
        for _ in range(25):
            backend.add_item(loc, cart_id, {"productId": "prd_cookie", "quantity": 1})

    threads = [threading.Thread(target=writer, args=(x,)) for x in (a, b)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert b.get_cart_json(cart_id)["items"][0]["quantity"] == 50
    a.close()
    b.close()


WRITER = """
import sys
from kiosk.demo import create_app
backend = create_app(sys.argv[1]).state.backend
loc = backend.location("loc_downtown")
for _ in range(20):
    backend.add_item(loc, sys.argv[2], {"productId": "prd_cookie", "quantity": 1})
backend.close()
"""


def test_several_processes_share_one_file(tmp_path: Path) -> None:
    db = tmp_path / "demo.sqlite3"
    backend = create_app(db).state.backend
    cart_id = backend.start_session(backend.location(DT), {"fulfillmentMethod": "pickup"})["cartId"]
    procs = [
        subprocess.Popen([sys.executable, "-c", WRITER, str(db), cart_id], stderr=subprocess.PIPE)
        for _ in range(3)
    ]
    for p in procs:
        _, err = p.communicate(timeout=60)
        assert p.returncode == 0, err.decode()
    assert backend.get_cart_json(cart_id)["items"][0]["quantity"] == 60
    backend.close()


def test_default_db_path_honours_the_environment(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("KIOSK_HOME", str(tmp_path / "home"))
    assert default_db_path() == tmp_path / "home" / "data" / "demo.sqlite3"
    monkeypatch.setenv("KIOSK_DATA_DIR", str(tmp_path / "data"))
    assert default_db_path() == tmp_path / "data" / "demo.sqlite3"
    monkeypatch.delenv("KIOSK_DATA_DIR")
    monkeypatch.delenv("KIOSK_HOME")
    assert default_db_path().name == "demo.sqlite3"
    assert "kiosk" in str(default_db_path())


async def test_in_memory_backends_are_separate(clock: Clock) -> None:
    one, two = create_app(clock=clock), create_app(clock=clock)
    async with make_client(one, DOWNTOWN.api_key) as c1, make_client(two, DOWNTOWN.api_key) as c2:
        cart_id = await new_cart(c1)
        assert (await c2.get(f"/locations/{DT}/carts/{cart_id}")).status_code == 404
        assert isinstance(c1, httpx.AsyncClient)
