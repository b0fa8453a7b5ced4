"""A real 2.0 cart with one line, for the schemathesis runs: its id, token and current If-Match go
into every generated cart request, so the write handlers themselves are exercised, not only the
404 of a random id."""

from __future__ import annotations

import os

from schemathesis import checks
from starlette.applications import Starlette
from starlette.testclient import TestClient

from kiosk.demo.data import DOWNTOWN

DT = DOWNTOWN.id
# What every schemathesis run here checks of each answer (the vendor's document or our own).
CHECKS = [
    checks.not_a_server_error,
    checks.status_code_conformance,
    checks.content_type_conformance,
    checks.response_schema_conformance,
    checks.response_headers_conformance,
]


class RealCart:
    """Made through the 2.0 API itself; a new one when a generated request locked or expired it."""

    def __init__(self, app: Starlette) -> None:
        self.client = TestClient(app, base_url="http://demo/api/v1/storefront")
        self.fresh()

    def fresh(self) -> None:
        r = self.client.post(
            f"/locations/{DT}/ordering-sessions",
            json={"fulfillmentMethod": "takeout"},
            headers={"Idempotency-Key": os.urandom(12).hex()},
        )
        assert r.status_code == 201, r.text
        self.id = r.json()["cart"]["id"]
        self.token = r.json()["cartAccessToken"]
        added = self.client.post(
            f"/locations/{DT}/carts/{self.id}/items",
            json={"productId": "prd_cookie", "quantity": 1, "itemUnavailableAction": "remove_item"},
            headers={**self.headers(), "Idempotency-Key": os.urandom(12).hex()},
        )
        assert added.status_code == 200, added.text
        self.item = added.json()["items"][0]["id"]

    def headers(self) -> dict[str, str]:
        r = self.client.get(
            f"/locations/{DT}/carts/{self.id}", headers={"X-Cart-Token": self.token}
        )
        if r.status_code != 200 or r.json()["status"] != "OPEN":
            # A checkout hand-off locked it, or a DELETE expired it: carry on with a new one.
            self.fresh()
            return self.headers()
        return {"X-Cart-Token": self.token, "If-Match": r.headers["etag"]}
