"""How a contract row is made (kiosk/api/endpoints.py's `_row` and `_v2`, which build both tables
at import): a GET is a read and safe to repeat; any other method is a write, repeated only when the
row says so; a row is on the API's base, unrevisioned and unkeyed unless it says otherwise. The
tables themselves are checked against the contracts in test_requests.py and test_v2_dialect.py."""

from __future__ import annotations

from kiosk.api.endpoints import ENDPOINTS, V2_ENDPOINTS, Endpoint, _row, _v2


def test_a_get_row_is_a_read_safe_to_repeat() -> None:
    row = _row(2, "location", "GET", "/locations/{location_id}")
    assert row == Endpoint("location", "GET", "/locations/{location_id}", False, True, 2)
    assert (row.outside_base, row.revisioned, row.keyed) == (False, False, False)


def test_a_write_row_is_repeated_only_when_it_says_so() -> None:
    add = _row(12, "add_item", "POST", "/carts/{cart_id}/cart-item")
    assert add.is_write and not add.idempotent
    delete = _row(11, "delete_cart", "DELETE", "/carts/{cart_id}", idempotent=True)
    assert delete.is_write and delete.idempotent
    odd = _row(None, "odd", "GET", "/odd", idempotent=False)
    assert not odd.is_write and not odd.idempotent


def test_a_row_says_where_it_lives_and_what_it_carries() -> None:
    row = _row(
        None, "demo_confirm", "POST", "/demo", outside_base=True, revisioned=True, keyed=True
    )
    assert (row.outside_base, row.revisioned, row.keyed) == (True, True, True)


def test_a_2_0_row_carries_a_revision_and_a_key_only_when_it_says_so() -> None:
    plain = _v2("cart", "GET", "/locations/{location_id}/carts/{cart_id}")
    assert plain == Endpoint("cart", "GET", plain.path_template, False, True, None)
    assert not plain.revisioned and not plain.keyed and not plain.outside_base
    write = _v2(
        "tip", "PUT", "/locations/{location_id}/carts/{cart_id}/gratuity", match=True, key=True
    )
    assert write.is_write and not write.idempotent and write.revisioned and write.keyed
    keyed = _v2("checkout_handoff", "POST", "/x", key=True)
    assert keyed.keyed and not keyed.revisioned


def test_the_tables_are_made_by_these_rules() -> None:
    for row in [*ENDPOINTS.values(), *V2_ENDPOINTS.values()]:
        assert row.is_write == (row.method != "GET"), row.name
    assert {r.name for r in ENDPOINTS.values() if r.is_write and r.idempotent} == {
        "delete_cart",
        "remove_discount",
        "validate",
    }
