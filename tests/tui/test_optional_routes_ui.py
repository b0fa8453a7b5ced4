"""A legacy server without the A-tagged remove-discount route (issue 10): the cart screen hides
"Remove code" once the server showed it has none, says how to order without the code, and the
order itself is untouched."""

from __future__ import annotations

from pathlib import Path

import httpx

from kiosk.tui.screens.cart import CartScreen
from kiosk.tui.widgets.chrome import FieldError

from .conftest import make_kiosk, settle
from .test_flow import banner, fill, keys, open_menu


class NoRemoveDiscount(httpx.AsyncBaseTransport):
    """The demo backend, except that DELETE .../discount is a route it does not have."""

    def __init__(self, inner: httpx.AsyncBaseTransport) -> None:
        self.inner = inner
        self.refused = 0

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        if request.method == "DELETE" and request.url.path.endswith("/discount"):
            self.refused += 1
            return httpx.Response(405, json={"message": "Method Not Allowed"})
        return await self.inner.handle_async_request(request)


async def test_remove_code_is_hidden_once_the_server_has_no_such_route(tmp_path: Path) -> None:
    wrappers: list[NoRemoveDiscount] = []

    def wrap(inner: httpx.AsyncBaseTransport) -> httpx.AsyncBaseTransport:
        wrappers.append(NoRemoveDiscount(inner))
        return wrappers[0]

    k = make_kiosk(tmp_path, wrap_transport=wrap)
    app = k.app
    async with app.run_test(size=(100, 32)) as pilot:
        await open_menu(pilot, "1", "1")
        await app.visit.add_item("prd_sparkling", 1)
        await keys(pilot, "f4")
        screen = app.screen
        assert isinstance(screen, CartScreen), banner(pilot)
        await pilot.click("#discount")
        await fill(pilot, "SAVE10")
        await keys(pilot, "enter")
        await settle(pilot)
        assert k.server_cart()["discountCode"] == "SAVE10"
        remove = screen.query_one("#remove-discount")
        assert remove.display  # offered until the server shows it has no such route

        await pilot.click("#remove-discount")
        await settle(pilot)
        assert wrappers[0].refused == 1
        assert not remove.display
        error = screen.query_one("#discount-error", FieldError)
        assert error.message is not None and "start over (F9)" in error.message
        # Nothing was lost: the code and the line are still on the order.
        server = k.server_cart()
        assert server["discountCode"] == "SAVE10" and len(server["items"]) == 1
        # A later redraw (any cart change) keeps the button hidden.
        first = server["items"][0]["id"]
        await app.visit.set_quantity(first, 2)
        await settle(pilot)
        assert not remove.display
