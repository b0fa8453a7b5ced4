"""The demo data is what the issue asks for, and consistent with itself."""

from __future__ import annotations

import re
import subprocess
import sys
from zoneinfo import ZoneInfo

from kiosk.demo import data
from kiosk.demo.backend import Backend

from .support import DT


def test_locations_keys_and_methods() -> None:
    assert [loc.id for loc in data.LOCATIONS] == ["loc_downtown", "loc_westside"]
    zones = {loc.timezone for loc in data.LOCATIONS}
    assert zones == {"America/New_York", "America/Los_Angeles"}
    for loc in data.ALL_LOCATIONS:
        ZoneInfo(loc.timezone)  # present on this machine
        assert re.fullmatch(rf"sk_demo_{loc.slug.split('-')[-1]}_[A-Za-z0-9]{{24}}", loc.api_key)
        assert loc.api_key not in repr(loc)
    assert len({loc.api_key for loc in data.ALL_LOCATIONS}) == 3
    methods = {m for loc in data.LOCATIONS for m in loc.methods}
    assert methods == set(data.METHODS)
    assert data.AIRPORT.subscribed is False and data.AIRPORT.hidden is True
    assert data.demo_keys() == {loc.id: loc.api_key for loc in data.LOCATIONS}
    assert data.location_by_key(data.WESTSIDE.api_key) is data.WESTSIDE
    assert data.location_by_key("nope") is None


def test_hours_differ_and_one_location_never_closes() -> None:
    down = data.LOCATION_DETAILS[data.DOWNTOWN.id]["hours"]
    west = data.LOCATION_DETAILS[data.WESTSIDE.id]["hours"]
    assert down != west
    assert all((h["open"], h["close"]) == ("00:00", "23:59") for h in down)
    assert len(down) == len(west) == 7


def test_catalog_size_kinds_and_references() -> None:
    assert 55 <= len(data.PRODUCTS) <= 70
    groups = {g.id: g for g in data.GROUPS}
    assert len({p.id for p in data.PRODUCTS}) == len(data.PRODUCTS)
    options = [o.id for g in data.GROUPS for o in g.options]
    assert len(set(options)) == len(options)
    for p in data.PRODUCTS:
        assert all(g in groups for g in p.modifier_ids), p.id
    for g in data.GROUPS:
        assert 0 <= g.min <= g.max, g.id
        for o in g.options:
            assert all(c in groups for c in o.child_groups), o.id
    kinds = {
        "required single": any(g.min == g.max == 1 for g in data.GROUPS),
        "optional multi with max": any(g.min == 0 and g.max > 1 for g in data.GROUPS),
        "per-option quantity": any(o.max_quantity > 1 for g in data.GROUPS for o in g.options),
        "nested child group": any(o.child_groups for g in data.GROUPS for o in g.options),
        "sold-out option": any(o.max_quantity == 0 for g in data.GROUPS for o in g.options),
        "required multi": any(g.min > 1 for g in data.GROUPS),
    }
    assert all(kinds.values()), kinds
    tags = {t for p in data.PRODUCTS for t in p.tags}
    assert {"vegan", "contains-nuts", "spicy"} <= tags
    assert all(p.calories is not None for p in data.PRODUCTS)
    placed = {pid for m in data.MENUS for _, _, pids in m.categories for pid in pids}
    assert placed == {p.id for p in data.PRODUCTS}
    assert set(data.INITIAL_SOLD_OUT) <= placed
    assert any(m.start is None for m in data.MENUS if m.location_id == DT)


def test_discount_codes() -> None:
    codes = data.DISCOUNT_CODES
    assert set(codes) == {"SAVE10", "FIVEOFF", "WINTER23"}
    assert (codes["SAVE10"].kind, codes["SAVE10"].value) == ("percent", 10)
    assert (codes["FIVEOFF"].kind, codes["FIVEOFF"].value, codes["FIVEOFF"].minimum) == (
        "fixed",
        500,
        2500,
    )
    assert codes["WINTER23"].expires_at is not None and codes["WINTER23"].expires_at < 1.8e9


def test_every_location_fee_exercises_a_total() -> None:
    fees = [data.LOCATION_DETAILS[loc.id]["fees"] for loc in data.LOCATIONS]
    assert any(f["serviceFeeRate"] != "0" for f in fees)
    assert any(f["paymentProcessingFeeRate"] != "0" for f in fees)
    assert any(f["enterpriseFeeRate"] != "0" for f in fees)
    assert any("delivery" in f["methodFees"] for f in fees)


def test_data_module_is_light() -> None:
    code = (
        "import sys, kiosk.demo.data, kiosk.demo; "
        "bad = [m for m in ('starlette', 'sqlite3', 'uvicorn', 'httpx') if m in sys.modules]; "
        "print(bad)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_cart_inspector(backend: Backend) -> None:
    loc = backend.location(DT)
    assert loc is not None
    cart_id = backend.start_session(loc, {"fulfillmentMethod": "pickup"})["cartId"]
    backend.add_item(loc, cart_id, {"productId": "prd_cookie", "quantity": 2})
    assert backend.carts.ids() == [cart_id] and cart_id in backend.carts and len(backend.carts) == 1
    assert backend.carts.ids("loc_westside") == []
    assert backend.carts.get_cart_json(cart_id)["totalQuantity"] == 2
    assert backend.carts.raw(cart_id)["items"][0]["unitPrice"] == 275
