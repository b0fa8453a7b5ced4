"""No API key and no payment client secret in any log file, even at DEBUG.

A short ordering flow runs through the real client (kiosk.api) against the demo backend served by
uvicorn on 127.0.0.1, with every logger at DEBUG (httpx, httpcore, uvicorn, kiosk.*) going to files
under tmp_path: the kiosk's own handler (with its redaction filter) AND a raw handler without any
filter. The raw file proves the first line of defence (nothing logs a secret in the first place);
kiosk.log proves the product's configuration. Then every file in the log dir is grepped.
The grep is shown to work: it finds a planted marker in every file, and the key in a planted file.
"""

from __future__ import annotations

import logging
import logging.handlers
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from kiosk.api import (
    AuthenticationError,
    InvalidRequestError,
    PaymentDeclinedError,
    StorefrontClient,
    StorefrontError,
)
from kiosk.config import load_settings
from kiosk.demo.app import create_app
from kiosk.demo.data import DOWNTOWN
from kiosk.demo.server import ServerThread
from kiosk.runtime import build_demo_services

APPROVE = "4242 4242 4242 4242"
DECLINE = "4000 0000 0000 0002"


def grep(log_dir: Path, needles: dict[str, str]) -> list[tuple[str, str]]:
    """(file name, needle name) for every needle found in every file under log_dir."""
    hits = []
    for path in sorted(p for p in log_dir.rglob("*") if p.is_file()):
        data = path.read_bytes()
        for name, needle in needles.items():
            if needle.encode() in data:
                hits.append((path.name, name))
    return hits


@pytest.fixture
def demo_server(tmp_path: Path) -> Iterator[ServerThread]:
    app = create_app(tmp_path / "demo.sqlite3")
    with ServerThread(app) as server:
        yield server
    app.state.backend.close()


async def _order_flow(client: StorefrontClient, location: str) -> tuple[str, str]:
    """A pickup order paid on the demo processor (declined once, then approved).

    Returns the client secret and the order number.
    """
    await client.get_location(location)
    menus = await client.get_menus(location)
    product = next(
        p
        for m in menus.menus
        for c in m.categories
        for p in c.products
        if p.is_available and not p.modifier_ids
    )
    session = await client.start_ordering_session(location, "pickup")
    cart_id = session.cart_id
    await client.add_item(location, cart_id, product.id, 2)
    with pytest.raises(StorefrontError):
        await client.apply_discount(location, cart_id, "NOT-A-CODE")
    with pytest.raises(InvalidRequestError):
        await client.update_customer(location, cart_id, "Ada Lovelace", "not-an-email")
    await client.update_customer(location, cart_id, "Ada Lovelace", "ada@example.com")
    validation = await client.validate_cart(location, cart_id)
    assert validation.valid, validation
    intent = await client.create_payment_intent(location, cart_id)
    secret = intent.client_secret.get_secret_value()
    with pytest.raises(PaymentDeclinedError):
        await client.confirm_demo_payment(intent.client_secret, DECLINE)
    await client.confirm_demo_payment(intent.client_secret, APPROVE)
    cart = await client.get_cart(location, cart_id)
    assert cart.status == "COMPLETED", cart.status
    assert cart.fulfillment_identifier
    # Everything a crash report might carry: the reprs of what the flow holds.
    logging.getLogger("kiosk.test").debug("intent %r cart %r client %r", intent, cart, client)
    return secret, cart.fulfillment_identifier


async def test_no_key_and_no_client_secret_in_any_log_file(
    log_dir: Path, demo_server: ServerThread
) -> None:
    settings = load_settings(env={}, flags={"location": DOWNTOWN.id, "log_level": "DEBUG"})
    services = build_demo_services(settings, base_url=demo_server.base_url)
    try:
        client = services.client_for(DOWNTOWN.id)
        secret, order_number = await _order_flow(client, DOWNTOWN.id)
        # A request with a wrong key, and an exception logged with its traceback.
        wrong_key = "sk_demo_downtown_WRONGKEY_" + uuid.uuid4().hex
        async with StorefrontClient(demo_server.base_url, wrong_key) as bad:
            with pytest.raises(AuthenticationError) as refused:
                await bad.get_location(DOWNTOWN.id)
        logging.getLogger("kiosk.test").error("refused", exc_info=refused.value)
    finally:
        await services.aclose()

    marker = f"PLANTED-MARKER-{uuid.uuid4().hex}"
    logging.getLogger("kiosk.test").warning("%s order %s", marker, order_number)
    for handler in logging.getLogger().handlers:
        handler.flush()

    _check_files(
        log_dir,
        secrets={
            "api key": DOWNTOWN.api_key,
            "wrong api key": wrong_key,
            "client secret": secret,
            "card number": APPROVE,
        },
        marker=marker,
    )


def _check_files(log_dir: Path, secrets: dict[str, str], marker: str) -> None:
    written = sorted(p.name for p in log_dir.iterdir())
    assert "kiosk.log" in written and "raw.log" in written
    # The flow really was logged, at DEBUG, by the client, httpx and httpcore.
    raw = (log_dir / "raw.log").read_text()
    for expected in (
        "kiosk.api",
        "/payment-intent",
        "httpx",
        "httpcore",
        "/demo/processor/confirm",
    ):
        assert expected in raw, expected

    assert grep(log_dir, secrets) == []
    # The grep sees what is there: the marker in every file written...
    assert grep(log_dir, {"marker": marker}) == [(name, "marker") for name in written]
    # ...and a key or a client secret, had one been written.
    (log_dir / "planted.txt").write_text(f"oops {secrets['api key']} {secrets['client secret']}\n")
    assert grep(log_dir, secrets) == [("planted.txt", "api key"), ("planted.txt", "client secret")]
