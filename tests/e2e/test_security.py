"""A whole order through the TUI (Pilot) with every logger at DEBUG: the API key and the payment's
client secret appear in no log file, on no screen, in no exception and in no repr.

The kiosk is built by the real composition root (kiosk.runtime.build_demo_services: the embedded
backend, the key registered with the log redaction) and walked through the standard order
(tests/bench/tui_walk.py), with a refused discount code on the way and a declined card before the
approved one, so that errors carrying server text and the client secret's request happen too.
- Logs: the kiosk's own handler (with its redaction filter) and a raw handler without any filter,
  both at DEBUG, including httpx, httpcore and the demo backend's loggers.
- Screens: at every step, the composed screen's text and its SVG screenshot; the QR code's data.
- Exceptions: every error the screens turned into a message (kiosk.tui.errors.describe), with its
  str, repr, message, server text, details, chained causes and formatted traceback; plus a request
  with a wrong key.
- Reprs: the services, client, store, session, cart, payment intent and settings.
A planted marker shows that each check can find what it looks for.
"""

from __future__ import annotations

import logging
import logging.handlers
import traceback
import uuid
from pathlib import Path
from typing import Any

import pytest
from textual.screen import Screen

from kiosk.api import AuthenticationError, StorefrontClient
from kiosk.config import load_settings
from kiosk.demo.data import DOWNTOWN
from kiosk.runtime import EMBEDDED_BASE_URL, build_demo_services, make_app
from kiosk.tui import errors as tui_errors
from kiosk.tui.screens import base as screens_base
from kiosk.tui.screens import payment as screens_payment
from tests.bench.tui_walk import Walk, quick_pilot
from tests.e2e.test_hostile_data import drawn


def exception_texts(error: BaseException) -> list[str]:
    """Everything an exception can say about itself, its causes included."""
    texts = ["".join(traceback.format_exception(error))]
    seen: set[int] = set()
    current: BaseException | None = error
    while current is not None and id(current) not in seen:
        seen.add(id(current))
        texts += [str(current), repr(current), repr(current.args)]
        for attr in ("message", "server_message", "details", "field", "code"):
            texts.append(repr(getattr(current, attr, None)))
        current = current.__cause__ or current.__context__
    return texts


def read_logs(directory: Path) -> dict[str, str]:
    return {p.name: p.read_text("utf-8", "replace") for p in directory.rglob("*") if p.is_file()}


def find(needles: dict[str, str], texts: dict[str, str]) -> list[tuple[str, str]]:
    return [
        (where, name) for where, text in texts.items() for name, n in needles.items() if n in text
    ]


async def test_no_key_or_client_secret_in_logs_screens_exceptions_or_reprs(
    log_dir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    settings = load_settings(env={}, flags={"location": DOWNTOWN.id, "log_level": "DEBUG"})
    services = build_demo_services(settings, db_path=tmp_path / "demo.sqlite3")
    client = services.client_for(DOWNTOWN.id)
    app = make_app(services=services)

    errors: list[BaseException] = []
    original = tui_errors.describe

    def recording(error: BaseException, **kw: Any) -> tui_errors.Failure:
        errors.append(error)
        return original(error, **kw)

    monkeypatch.setattr(screens_base, "describe", recording)
    monkeypatch.setattr(screens_payment, "describe", recording)

    screens: dict[str, str] = {}

    def on_screen(step: str, screen: Screen[Any]) -> None:
        text, _ = drawn(screen)
        screens[f"{step}: text"] = text
        screens[f"{step}: svg"] = app.export_screenshot()

    async def decline_then_approve() -> None:
        payment = app.screen
        await walk.pilot.press("d")
        # The payment's one note says what happened (issue 33: no bottom toast on a payment).
        note = payment.query_one("#pay-note")
        await walk.until("the decline", lambda: "declined" in str(note.render()).lower())
        on_screen("payment declined", payment)
        qr = payment.query_one("#qr")
        screens["qr data"] = str(qr.data)  # type: ignore[attr-defined]
        await walk.pilot.press("a")

    with quick_pilot():
        async with app.run_test(size=(120, 40)) as pilot:
            walk = Walk(app, pilot, on_screen=on_screen)
            await walk.start()
            await walk.fill_cart()
            await walk.pilot.press("f4")
            cart_screen = await walk.at("CartScreen", "cart")
            # A refused code: the server's reason, at the field.
            await walk.type_into("#discount", "NOT-A-CODE")
            await walk.until(
                "the refusal", lambda: bool(cart_screen.query_one("#discount-error").message)
            )
            on_screen("discount refused", cart_screen)
            await walk.pilot.press("escape")
            await walk.edit_cart()
            await walk.checkout()
            done = await walk.pay(decline_then_approve)
            store = app.visit
            assert store.payment_intent is not None
            intent = store.payment_intent
            secret = intent.client_secret.get_secret_value()
            reprs = {
                "services": repr(services),
                "client": repr(client),
                "store": repr(store),
                "visit state": repr(app.visit.state),
                "cart": repr(done.order),  # type: ignore[attr-defined]
                "intent": repr(intent),
                "intent dump": repr(intent.model_dump()),
                "settings": repr(settings),
                "budget": repr(client.rate_budget),
            }
            await walk.finish()

    # A request with a wrong key, and its exception logged with a traceback.
    wrong = "sk_demo_WRONG_" + uuid.uuid4().hex
    async with StorefrontClient(EMBEDDED_BASE_URL, wrong, transport=client._http._transport) as bad:
        with pytest.raises(AuthenticationError) as refused:
            await bad.get_location(DOWNTOWN.id)
    errors.append(refused.value)
    logging.getLogger("kiosk.test").error("refused", exc_info=refused.value)
    await services.aclose()

    # The flow did what it should: both refusals were shown, the payment went through.
    kinds = {type(e).__name__ for e in errors}
    assert {"InvalidRequestError", "PaymentDeclinedError", "AuthenticationError"} <= kinds, kinds
    assert secret.startswith("pi_") and "_secret_" in secret

    needles = {
        "api key": DOWNTOWN.api_key,
        "wrong key": wrong,
        "client secret": secret,
        "client secret's tail": secret.split("_secret_", 1)[1],
    }
    marker = f"PLANTED-{uuid.uuid4().hex}"
    logging.getLogger("kiosk.test").warning("%s", marker)
    for handler in logging.getLogger().handlers:
        handler.flush()
    files = read_logs(log_dir)
    assert {"raw.log", "kiosk.log"} <= set(files), files.keys()
    # The checks can see: the marker is in every log file, and the raw log has the DEBUG traffic.
    assert all(marker in text for text in files.values())
    assert "payment-intent" in files["raw.log"] and "DEBUG" in files["raw.log"]
    assert find({"marker": marker}, {"planted": f"..{marker}.."}) == [("planted", "marker")]

    assert find(needles, files) == [], "a secret in a log file"
    assert find(needles, screens) == [], "a secret on a screen"
    exceptions = {
        f"{type(e).__name__} #{n}": "\n".join(exception_texts(e)) for n, e in enumerate(errors)
    }
    assert find(needles, exceptions) == [], "a secret in an exception"
    assert find(needles, reprs) == [], "a secret in a repr"
