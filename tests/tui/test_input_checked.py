"""Journey 8 and 9 through the real TUI: typed input is checked against the vendor's schema
before it is sent, said in the customer's words at the field, with the cursor back there and
typing working at once; email is an offer on 2.0."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import httpx
from textual.widgets import Input

from kiosk.config import Settings
from kiosk.tui.screens.cart import CartScreen
from kiosk.tui.screens.checkout import CheckoutScreen
from kiosk.tui.widgets.chrome import FieldError

from .conftest import make_kiosk
from .test_flow import add_simple, fill, keys, open_menu, type_text

JARGON = "The request body does not match the contract [see details.fields]."


class RefusesField(httpx.AsyncBaseTransport):
    """A 2.0 server that refuses one write's field as the vendor's envelope does, after a moment
    (long enough for the form's loading indicator to cover it)."""

    def __init__(self, inner: httpx.AsyncBaseTransport, path_end: str, field: str) -> None:
        self.inner, self.path_end, self.field = inner, path_end, field
        self.refused = 0

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        if request.method != "GET" and request.url.path.endswith(self.path_end):
            self.refused += 1
            await asyncio.sleep(0.05)
            body = {
                "code": "VALIDATION_ERROR",
                "message": JARGON,
                "requestId": "req-12345678",
                "details": {"fields": {self.field: "Invalid"}},
            }
            return httpx.Response(400, content=json.dumps(body).encode())
        return await self.inner.handle_async_request(request)


async def test_a_refused_email_is_said_at_the_field_and_typing_goes_on(tmp_path: Any) -> None:
    k = make_kiosk(tmp_path, settings=Settings(api_dialect="v2"))
    app = k.app
    async with app.run_test(size=(100, 32)) as pilot:
        await open_menu(pilot, "1", "1")
        await add_simple(pilot, "espresso")
        await keys(pilot, "f4", "f2")
        screen = app.screen
        assert isinstance(screen, CheckoutScreen)
        await fill(pilot, "Zoe")
        await keys(pilot, "tab")
        # Passes a quick look, breaks the vendor's pattern (an underscore in the domain).
        await fill(pilot, "zoe@exa_mple.com")
        await keys(pilot, "enter")
        said = screen.query_one("#e-email", FieldError).message
        assert "look right" in said, said
        assert k.server_cart()["status"] == "OPEN"
        email = screen.query_one("#email", Input)
        assert app.focused is email
        # Typing works at once, without a Tab back into the field.
        await pilot.press("backspace", *"x")
        await type_text(pilot, "")
        assert email.value == "zoe@exa_mple.cox", email.value


async def test_the_servers_field_error_goes_to_the_field_in_the_customers_words(
    tmp_path: Any,
) -> None:
    wraps: list[RefusesField] = []

    def wrap(inner: httpx.AsyncBaseTransport) -> httpx.AsyncBaseTransport:
        wraps.append(RefusesField(inner, "/validate-and-update", "emailAddress"))
        return wraps[-1]

    k = make_kiosk(tmp_path, settings=Settings(api_dialect="v2"), wrap_transport=wrap)
    app = k.app
    async with app.run_test(size=(80, 24)) as pilot:
        await open_menu(pilot, "1", "1")
        await add_simple(pilot, "espresso")
        await keys(pilot, "f4", "f2")
        screen = app.screen
        assert isinstance(screen, CheckoutScreen)
        await fill(pilot, "Zoe")
        await keys(pilot, "tab")
        await fill(pilot, "zoe.t@example.com")
        await keys(pilot, "enter")
        assert wraps[0].refused == 1
        said = screen.query_one("#e-email", FieldError).message
        # A well-formed address the server refused: said at the field, without a format rule
        # the kiosk would only be guessing (the kiosk's own check passed it).
        assert said == "That email address wasn't accepted. Please check it.", said
        shown = " ".join(str(w.render()) for w in screen.query("FieldError, Banner"))
        assert "contract" not in shown and "details" not in shown and "emailAddress" not in shown
        email = screen.query_one("#email", Input)
        assert app.focused is email
        await pilot.press("backspace", "backspace", "backspace", *"org")
        await type_text(pilot, "")
        assert email.value == "zoe.t@example.org", email.value


async def test_email_is_an_offer_on_2_0(tmp_path: Any) -> None:
    k = make_kiosk(tmp_path, settings=Settings(api_dialect="v2"))
    app = k.app
    async with app.run_test(size=(80, 24)) as pilot:
        await open_menu(pilot, "1", "1")
        await add_simple(pilot, "espresso")
        await keys(pilot, "f4", "f2")
        screen = app.screen
        assert isinstance(screen, CheckoutScreen)
        labels = " ".join(str(w.render()) for w in screen.query(".field-label"))
        assert "Email me a receipt (optional)" in labels
        await fill(pilot, "Zoe")
        await keys(pilot, "tab", "enter")  # no email
        assert screen.query_one("#e-email", FieldError).message == ""
        assert k.server_cart()["status"] == "LOCKED"  # on to the payment


class Recording(httpx.AsyncBaseTransport):
    def __init__(self, inner: httpx.AsyncBaseTransport) -> None:
        self.inner = inner
        self.sent: list[tuple[str, str]] = []

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        self.sent.append((request.method, request.url.path))
        return await self.inner.handle_async_request(request)


async def test_a_discount_code_is_checked_before_it_is_sent(tmp_path: Any) -> None:
    wraps: list[Recording] = []

    def wrap(inner: httpx.AsyncBaseTransport) -> httpx.AsyncBaseTransport:
        wraps.append(Recording(inner))
        return wraps[-1]

    k = make_kiosk(tmp_path, settings=Settings(api_dialect="v2"), wrap_transport=wrap)
    app = k.app
    async with app.run_test(size=(80, 24)) as pilot:
        await open_menu(pilot, "1", "1")
        await add_simple(pilot, "espresso")
        await keys(pilot, "f4")
        screen = app.screen
        assert isinstance(screen, CartScreen)
        field = screen.query_one("#discount", Input)
        field.focus()
        await type_text(pilot, "ab-1")
        await keys(pilot, "enter")
        said = screen.query_one("#discount-error", FieldError).message
        assert said == "That code has letters and digits only, 6 to 24 of them.", said
        assert not [s for s in wraps[0].sent if s[1].endswith("/discount")]
        assert app.focused is field
        await pilot.press("backspace", "backspace", *"cd12")
        await type_text(pilot, "")
        assert field.value == "abcd12"
        await keys(pilot, "enter")
        assert [s for s in wraps[0].sent if s[1].endswith("/discount")]
