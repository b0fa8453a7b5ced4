"""Issue 35, item 4: a payment's client secret is never stored in clear (it is derived from the
database's key, kept beside it, and only its hash is stored); the checkout page that carries it is
kept by no cache and sends no referrer; a database of the older format loses its clear secrets."""

from __future__ import annotations

import sqlite3
import stat
from pathlib import Path

from starlette.testclient import TestClient

from kiosk.demo import create_app
from kiosk.demo.data import DOWNTOWN
from kiosk.demo.store import Store, derive_secret

from .support import DT, Clock

V1 = f"/api/v1/locations/{DT}"
V2 = f"/api/v1/storefront/locations/{DT}"


def _on_disk(db: Path) -> bytes:
    """Every byte SQLite keeps for the database: the file and its write-ahead log."""
    return b"".join(p.read_bytes() for p in db.parent.glob(db.name + "*") if p.is_file())


def _v1_intent(http: TestClient) -> dict[str, str]:
    headers = {"X-API-Key": DOWNTOWN.api_key}
    cart = http.post(
        V1 + "/ordering-sessions", json={"fulfillmentMethod": "pickup"}, headers=headers
    ).json()["cartId"]
    item = {"productId": "prd_cookie", "quantity": 1}
    assert http.post(f"{V1}/carts/{cart}/cart-item", json=item, headers=headers).status_code == 200
    intent = http.post(f"{V1}/carts/{cart}/payment-intent", headers=headers)
    assert intent.status_code == 200, intent.text
    result: dict[str, str] = intent.json()
    return result


def _v2_checkout(http: TestClient) -> str:
    start = http.post(
        V2 + "/ordering-sessions",
        json={"fulfillmentMethod": "takeout"},
        headers={"Idempotency-Key": "secret-test-key-0001"},
    ).json()
    cart, token = start["cart"]["id"], start["cartAccessToken"]
    headers = {"X-Cart-Token": token, "Idempotency-Key": "secret-test-key-0002"}
    item = {"productId": "prd_cookie", "quantity": 1, "itemUnavailableAction": "remove_item"}
    r = http.post(f"{V2}/carts/{cart}/items", json=item, headers=headers | {"If-Match": '"cart-0"'})
    assert r.status_code == 200, r.text
    headers["Idempotency-Key"] = "secret-test-key-0003"
    r = http.post(f"{V2}/carts/{cart}/checkout-handoffs", json={}, headers=headers)
    assert r.status_code == 201, r.text
    url: str = r.json()["checkoutUrl"]
    return url


def test_no_client_secret_is_on_disk_and_each_still_pays(tmp_path: Path) -> None:
    db = tmp_path / "demo.sqlite3"
    app = create_app(db, clock=Clock())
    http = TestClient(app, base_url="http://demo")
    intent = _v1_intent(http)
    checkout = _v2_checkout(http)
    page = http.get(checkout.removeprefix("http://demo"))
    secret_of_page = page.text.split('name="clientSecret" value="')[1].split('"')[0]
    secrets = [intent["clientSecret"], secret_of_page]
    stored = _on_disk(db)
    for secret in secrets:
        assert secret.encode() not in stored
        # The hidden secret part alone is not there either (a column of its own would hold it).
        assert secret.split("_secret_")[1].encode() not in stored
    # The same secret each time it is asked for (the kiosk's resumed hand-off, the page again).
    assert http.get(checkout.removeprefix("http://demo")).text == page.text
    key = tmp_path / "demo.sqlite3.key"
    assert stat.S_IMODE(key.stat().st_mode) == 0o600
    for secret in secrets:
        paid = app.state.backend.confirm_payment(secret, "4242 4242 4242 4242")
        assert paid["status"] == "succeeded"
    app.state.backend.close()
    # Another process on the same file derives the same secrets from the same key.
    again = Store(db)
    assert derive_secret(again.secret_key, intent["paymentIntentId"]) == intent["clientSecret"]
    again.close()


def test_the_checkout_page_is_kept_by_no_cache_and_sends_no_referrer() -> None:
    http = TestClient(create_app(clock=Clock()), base_url="http://demo")
    for path in (_v2_checkout(http).removeprefix("http://demo"), "/demo/checkout/pi_unknown"):
        page = http.get(path)
        assert page.headers["cache-control"] == "no-store", path
        assert page.headers["referrer-policy"] == "no-referrer", path


def test_a_database_of_the_older_format_loses_its_clear_secrets(tmp_path: Path) -> None:
    db = tmp_path / "old.sqlite3"
    app = create_app(db, clock=Clock())
    intent = _v1_intent(TestClient(app, base_url="http://demo"))
    app.state.backend.close()
    # As the older version kept it: the secret itself in a client_secret column.
    old_secret = intent["paymentIntentId"] + "_secret_KEPTinCLEARbyTHEoldVERSION"
    with sqlite3.connect(db) as conn:
        conn.execute("ALTER TABLE payment_intents RENAME COLUMN secret_hash TO client_secret")
        conn.execute("UPDATE payment_intents SET client_secret = ?", (old_secret,))
    conn.close()
    assert old_secret.encode() in _on_disk(db)
    app = create_app(db, clock=Clock())
    assert old_secret.encode() not in _on_disk(db)
    # The payment is taken with the secret the page now carries.
    backend = app.state.backend
    secret = backend.intent_by_id(intent["paymentIntentId"])["clientSecret"]
    assert backend.confirm_payment(secret, "4242424242424242")["status"] == "succeeded"
    backend.close()
