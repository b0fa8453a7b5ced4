"""A fuzz by class (issue 21): for each class of bad input a hostile list used, Hypothesis draws
a write route of either API (every one of test_fuzz_writes and test_fuzz_writes_v2) and a value of
that class, and the invariants are counted over every request:

- content types: a plausible body under any label (form, text, JSON with another charset, none...);
- header values: If-Match, Idempotency-Key, X-Cart-Token, X-API-Key of any printable kind and size
  (a 5,000-digit revision among them);
- nesting: bodies nested from 1 to 40,000 deep, in arrays and objects;
- numbers: huge, tiny, non-finite, long-digit numbers in every member the route reads;
- strings: text of every kind (lone surrogates, NUL, ESC) in every member and as keys.

Counted: requests, 5xx, carts unreadable afterwards (the API's read or the stored document), and
half-commits (a refused request that changed the stored cart). All must be 0. Derandomized,
EXAMPLES per class: a small budget in the default run, the full one (120) in CI
(tests/conftest.py BUDGETS); longer:
    KIOSK_FUZZ_CLASS_EXAMPLES=1000 ./dev test tests/demo/test_fuzz_by_class.py -s
"""

from __future__ import annotations

import json
import os
import secrets
from collections import Counter
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from starlette.testclient import TestClient

from kiosk.demo import create_app
from kiosk.demo.data import DOWNTOWN

from .support import DT, WED_AFTERNOON
from .test_fuzz_writes import WRITES as V1_WRITES
from .test_fuzz_writes import json_values, numbers, text
from .test_fuzz_writes_v2 import WRITES as V2_WRITES

EXAMPLES = int(os.environ.get("KIOSK_FUZZ_CLASS_EXAMPLES", "120"))
BOUNDED = settings(
    max_examples=EXAMPLES,
    deadline=None,
    derandomize=True,
    database=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
ROUTES = [("v1", name, *spec) for name, spec in sorted(V1_WRITES.items())] + [
    ("v2", name, *spec) for name, spec in sorted(V2_WRITES.items())
]
V1_LOC = f"/api/v1/locations/{DT}"
V2_LOC = f"/api/v1/storefront/locations/{DT}"
printable = st.text(st.characters(min_codepoint=32, max_codepoint=126), max_size=300)


class Rig:
    """One app, a live cart per API (made again when a route locked or deleted it), counters."""

    def __init__(self) -> None:
        self.app = create_app(clock=lambda: WED_AFTERNOON, rate_limit=None)
        self.backend = self.app.state.backend
        self.client = TestClient(self.app, base_url="http://demo")
        self.key = {"X-API-Key": DOWNTOWN.api_key}
        self.counts: Counter[str] = Counter()
        self.v1: tuple[str, str] = ("", "")
        self.v2: tuple[str, str, str] = ("", "", "")

    def fresh(self, version: str) -> None:
        c = self.client
        if version == "v1":
            cart = c.post(
                V1_LOC + "/ordering-sessions",
                json={"fulfillmentMethod": "pickup"},
                headers=self.key,
            ).json()["cartId"]
            c.post(
                V1_LOC + f"/carts/{cart}/cart-item",
                json={"productId": "prd_cookie", "quantity": 1},
                headers=self.key,
            )
            item = self.backend.carts.raw(cart)["items"][0]["id"]
            self.v1 = (cart, item)
            return
        r = c.post(
            V2_LOC + "/ordering-sessions",
            json={"fulfillmentMethod": "takeout"},
            headers={"Idempotency-Key": secrets.token_hex(10)},
        )
        cart, token = r.json()["cart"]["id"], r.json()["cartAccessToken"]
        c.post(
            V2_LOC + f"/carts/{cart}/items",
            json={"productId": "prd_cookie", "quantity": 1, "itemUnavailableAction": "remove_item"},
            headers={
                "X-Cart-Token": token,
                "If-Match": r.headers["etag"],
                "Idempotency-Key": secrets.token_hex(10),
            },
        )
        self.v2 = (cart, token, self.backend.carts.raw(cart)["items"][0]["id"])

    def target(self, version: str) -> tuple[str, str, dict[str, str]]:
        """(cart id, item id, the headers that reach the handler) of an OPEN cart."""
        cart = self.v1[0] if version == "v1" else self.v2[0]
        try:
            live = bool(cart) and self.backend.carts.raw(cart)["status"] == "OPEN"
        except KeyError:  # a v1 delete removes it
            live = False
        if not live:
            self.fresh(version)
        if version == "v1":
            return self.v1[0], self.v1[1], dict(self.key)
        cart, token, item = self.v2
        revision = self.backend.carts.raw(cart)["revision"]
        return (
            cart,
            item,
            {
                "X-Cart-Token": token,
                "If-Match": f'"cart-{revision}"',
                "Idempotency-Key": secrets.token_hex(10),
            },
        )

    def send(
        self,
        route: tuple[str, str, str, str, tuple[str, ...]],
        content: bytes,
        headers: dict[str, str | None],
    ) -> None:
        version, name, method, template, _ = route
        cart, item, base = self.target(version)
        sent = {k: v for k, v in (base | headers).items() if v is not None}
        before = self.backend.carts.raw(cart)
        r = self.client.request(
            method, template.format(cart=cart, item=item), content=content, headers=sent
        )
        self.counts["requests"] += 1
        self.counts[f"status {r.status_code // 100}xx"] += 1
        if r.status_code >= 500:
            self.counts["5xx"] += 1
            print("5xx:", version, name, r.status_code, r.text[:200], repr(content[:120]))
        # The cart reads, through its API and as stored (deleted, by a delete route, is fine).
        try:
            after = self.backend.carts.raw(cart)
            self.backend.carts.get_cart_json(cart)
        except KeyError:
            after = None
        except Exception:  # a stored value no reader can take: the poisoned cart
            self.counts["carts unreadable"] += 1
            after = None
        if after is not None:
            read = (
                self.client.get(V1_LOC + f"/carts/{cart}", headers=self.key)
                if version == "v1"
                else self.client.get(
                    V2_LOC + f"/carts/{cart}", headers={"X-Cart-Token": self.v2[1]}
                )
            )
            if read.status_code != 200:
                self.counts["carts unreadable"] += 1
        if r.status_code >= 400 and after is not None and after != before:
            self.counts["half-commits"] += 1
            print("half-commit:", version, name, r.status_code, r.text[:200])


RIGS: dict[str, Rig] = {}


def rig_for(name: str) -> Rig:
    if name not in RIGS:
        RIGS[name] = Rig()
    return RIGS[name]


routes = st.sampled_from(ROUTES)


def plausible(route: tuple[str, str, str, str, tuple[str, ...]]) -> bytes:
    names = route[4]
    return json.dumps({n: "x" for n in names[:2]}).encode()


def member_body(names: tuple[str, ...], values: st.SearchStrategy[Any]) -> Any:
    keys = st.sampled_from(names) if names else text
    return st.dictionaries(keys, values, min_size=1, max_size=3)


def check(rig: Rig, cls: str) -> None:
    counts = rig.counts
    shown = ["requests", "5xx", "carts unreadable", "half-commits", "status 2xx", "status 4xx"]
    print(f"\nfuzz class {cls}: " + ", ".join(f"{k} {counts[k]}" for k in shown))
    assert counts["requests"] >= EXAMPLES
    assert counts["5xx"] == 0
    assert counts["carts unreadable"] == 0
    assert counts["half-commits"] == 0
    # The class reached the handlers too, not only the edge's refusals.
    assert counts["status 2xx"] + counts["status 4xx"] == counts["requests"]


CONTENT_TYPES = [
    "application/json",
    "application/json; charset=utf-8",
    "application/json; charset=latin-1",
    "application/x-www-form-urlencoded",
    "text/plain",
    "multipart/form-data; boundary=x",
    "application/jsonx",
    "APPLICATION/JSON",
    None,
]


# Bodies a handler takes as they are, so that one poisoned member can reach the store.
VALID: dict[tuple[str, str], dict[str, Any]] = {
    ("v1", "add-item"): {"productId": "prd_cookie", "quantity": 1},
    ("v2", "add-item"): {
        "productId": "prd_cookie",
        "quantity": 1,
        "itemUnavailableAction": "remove_item",
    },
    ("v1", "customer"): {"customerName": "Ada", "emailAddress": "ada@example.com"},
    ("v2", "patch-cart"): {"note": "x"},
    ("v1", "ordering-session"): {"fulfillmentMethod": "pickup"},
    ("v2", "ordering-session"): {"fulfillmentMethod": "takeout"},
}


POISONS = ['"\\ud800"', '"a\\u0000b"', '"\\u001b[2J"', "1e999"]


@pytest.mark.parametrize("content_type", CONTENT_TYPES)
def test_content_types_on_every_route(content_type: str | None) -> None:
    """The whole grid (few enough to send every one): each write of both APIs, a body it would
    take, with every member it reads poisoned in turn, under each label."""
    rig = rig_for("content types")
    for route in ROUTES:
        valid = dict(VALID.get((route[0], route[1]), {}))
        for i, poisoned in enumerate(dict.fromkeys([*route[4], *valid]) or ["x"]):
            poison = POISONS[i % len(POISONS)]
            members = [
                f"{json.dumps(k)}: {json.dumps(v)}" for k, v in valid.items() if k != poisoned
            ]
            raw = "{" + ", ".join([*members, f"{json.dumps(poisoned)}: {poison}"]) + "}"
            rig.send(route, raw.encode(), {"Content-Type": content_type})


@BOUNDED
@given(route=routes, content_type=printable)
def test_content_types_of_any_text(
    route: tuple[str, str, str, str, tuple[str, ...]], content_type: str
) -> None:
    rig = rig_for("content types")
    rig.send(route, plausible(route), {"Content-Type": content_type})


@BOUNDED
@given(
    route=routes,
    header=st.sampled_from(["If-Match", "Idempotency-Key", "X-Cart-Token", "X-API-Key"]),
    value=printable
    | st.integers(1, 6000).map(lambda n: f'"cart-{"9" * n}"')
    | st.integers(0, 400).map(lambda n: "k" * n),
)
def test_header_values(
    route: tuple[str, str, str, str, tuple[str, ...]], header: str, value: str
) -> None:
    rig = rig_for("header values")
    rig.send(route, plausible(route), {header: value, "Content-Type": "application/json"})


@BOUNDED
@given(
    route=routes,
    depth=st.integers(1, 40_000),
    kind=st.sampled_from(["[", "{"]),
    member=st.booleans(),
)
def test_nesting(
    route: tuple[str, str, str, str, tuple[str, ...]], depth: int, kind: str, member: bool
) -> None:
    rig = rig_for("nesting")
    inner = '{"a":' * depth + "1" + "}" * depth if kind == "{" else "[" * depth + "]" * depth
    name = route[4][0] if route[4] else "x"
    raw = (f'{{"{name}": {inner}}}' if member else inner).encode()
    rig.send(route, raw, {"Content-Type": "application/json"})


big_numbers = (
    numbers.map(lambda n: json.dumps(n, allow_nan=True))
    | st.integers(1, 5000).map(lambda n: "9" * n)
    | st.sampled_from(["1e999999", "-1e999999", "1e-999999", "0.0000000000000000000001", "-0"])
)


@BOUNDED
@given(route=routes, data=st.data())
def test_numbers(route: tuple[str, str, str, str, tuple[str, ...]], data: st.DataObject) -> None:
    rig = rig_for("numbers")
    names = route[4] or ("quantity",)
    chosen = data.draw(st.lists(st.sampled_from(names), min_size=1, max_size=3, unique=True))
    raw = "{" + ", ".join(f'"{n}": {data.draw(big_numbers)}' for n in chosen) + "}"
    rig.send(route, raw.encode(), {"Content-Type": "application/json"})


@BOUNDED
@given(route=routes, data=st.data())
def test_strings(route: tuple[str, str, str, str, tuple[str, ...]], data: st.DataObject) -> None:
    rig = rig_for("strings")
    body = data.draw(member_body(route[4], text | json_values))
    raw = json.dumps(body, ensure_ascii=True, allow_nan=True).encode()
    rig.send(route, raw, {"Content-Type": "application/json"})


def _fuzz_again(cls: str) -> None:
    """The class's fuzz, run in this process: under xdist the fuzz above may have run in another
    worker (each worker has its own figures), and a check that skipped then checked nothing."""
    if cls == "content types":
        for content_type in CONTENT_TYPES:
            test_content_types_on_every_route(content_type)
        test_content_types_of_any_text()
    else:
        fuzz = {
            "header values": test_header_values,
            "nesting": test_nesting,
            "numbers": test_numbers,
            "strings": test_strings,
        }[cls]
        fuzz()  # type: ignore[call-arg]  # @given supplies the arguments


@pytest.mark.parametrize("cls", ["content types", "header values", "nesting", "numbers", "strings"])
def test_every_class_counted_zero(cls: str) -> None:
    """Runs after the class's fuzz above (file order) when the same worker ran it; otherwise runs
    that fuzz first. Its figures, all 0 where they must be."""
    if cls not in RIGS:
        _fuzz_again(cls)
    check(RIGS[cls], cls)
