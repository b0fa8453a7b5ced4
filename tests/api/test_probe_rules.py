"""The doctor's probe at its edges (kiosk/api/probe.py): one try per version within 8 s, whatever
failed; its connections closed when it is done; the base URL kept as given but for its trailing
slashes."""

from __future__ import annotations

import httpx
import pytest

from kiosk.api.probe import dialect_base, probe_dialects
from kiosk.api.v2 import StorefrontClientV2

ORIGIN = "https://api.example.com"
LOCATION = {"id": "loc_1", "restaurantDisplayName": "Harbour", "timezone": "UTC"}


class Wire(httpx.MockTransport):
    """A connection that fails once per version and then would answer; counts its closes."""

    def __init__(self) -> None:
        self.paths: list[str] = []
        self.timeouts: list[float] = []
        self.closed = 0
        super().__init__(self.handle)

    def handle(self, request: httpx.Request) -> httpx.Response:
        self.timeouts.append(request.extensions["timeout"]["read"])
        if request.url.path not in self.paths:
            self.paths.append(request.url.path)
            raise httpx.ConnectError("refused", request=request)
        self.paths.append(request.url.path)
        return httpx.Response(200, json=LOCATION)

    async def aclose(self) -> None:
        self.closed += 1


async def test_a_version_that_cannot_be_reached_is_tried_once_and_said_unreachable() -> None:
    wire = Wire()
    client = StorefrontClientV2(ORIGIN + "/api/v1/storefront", transport=wire)
    answers = await probe_dialects(client, "loc_1")
    assert [(a.dialect, a.speaks) for a in answers] == [("v2", False), ("v1", False)]
    assert all(a.detail.startswith("unreachable") for a in answers)
    assert wire.paths == ["/api/v1/storefront/locations/loc_1", "/api/v1/locations/loc_1"]
    assert wire.closed == 2  # each version's client closed when its answer is in
    assert wire.timeouts == pytest.approx([8.0, 8.0], abs=0.5)  # a diagnosis wants it prompt
    await client.aclose()


def test_the_base_url_is_kept_as_given_but_for_its_trailing_slashes() -> None:
    assert dialect_base("http://KIOSK-BOX//", "v1") == "http://KIOSK-BOX"
    assert dialect_base("http://KIOSK-BOX/", "v2") == "http://KIOSK-BOX/storefront"
