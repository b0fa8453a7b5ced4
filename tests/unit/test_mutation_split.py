"""Rules the mutation sample after the split showed untested (docs/mutation.md, issue 32 item 8):
each test breaks if one of the sampled survivors is put back in the code."""

from __future__ import annotations

from typing import Any

import pytest

from kiosk.ordering.visit import Visit
from tests.support.ordering_rig import demo_rig

# Each test on the legacy API and on 2.0 (tests/unit/conftest.py).
pytestmark = pytest.mark.usefixtures("rig_dialect")


class _WithoutRoute:
    """The rig's client, as a server that showed it has no route for `missing` (a legacy
    server answering 404 there): everything else is the real client's."""

    def __init__(self, client: Any, missing: str) -> None:
        self._client = client
        self._missing = missing

    def offers(self, operation: str) -> bool:
        return operation != self._missing and self._client.offers(operation)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._client, name)


async def test_remove_discount_is_offered_only_where_the_server_has_the_route() -> None:
    async with demo_rig() as rig:
        without = _WithoutRoute(rig.client, "remove_discount")
        visit = Visit(
            lambda _location_id: without,
            [rig.location.id],
            wall_clock=rig.clock,
            store_options={"sleep": rig.clock.sleep},
        )
        await visit.start("pickup")
        assert visit.state.location_id == rig.location.id
        assert visit.can_remove_discount is False

        with_route = rig.visit()
        assert with_route.can_remove_discount is True  # no location yet: nothing known
        await with_route.start("pickup")
        assert with_route.can_remove_discount is True


async def test_paying_at_the_counter_is_published_in_the_visit_state() -> None:
    async with demo_rig() as rig:
        visit = rig.visit()
        await visit.start("pickup")
        await visit.add_item("prd_cookie", 1)
        await visit.begin_payment()
        assert not visit.state.order.at_counter
        visit.choose_counter(True)
        assert visit.state.order.at_counter
        visit.choose_counter(False)
        assert not visit.state.order.at_counter


@pytest.mark.parametrize(
    ("field", "named"),
    [("#/emailAddress", ["emailAddress"]), (["#", "code"], ["code"]), ("(root).code", ["code"])],
)
def test_a_json_pointer_fragment_names_the_field_after_it(field: Any, named: list[str]) -> None:
    from kiosk.api.errors import field_names

    assert field_names({"field": field}) == named


def test_a_bad_money_amount_is_repeated_in_the_error_but_cut_when_long() -> None:
    from kiosk.api.money import MoneyError, parse_money

    with pytest.raises(MoneyError, match=r"'12,50'"):
        parse_money("12,50")
    with pytest.raises(MoneyError) as caught:
        parse_money("9" * 100 + "x")
    assert "9" * 37 + "..." in str(caught.value) and "9" * 38 not in str(caught.value)


def test_a_missing_field_is_refused_with_that_fields_limits() -> None:
    from kiosk.api.errors import InvalidRequestError
    from kiosk.api.request_schema import check_body

    with pytest.raises(InvalidRequestError) as caught:
        check_body("POST /locations/{locationId}/carts/{cartId}/discount", {})
    assert caught.value.field == "code"
    assert caught.value.details["minLength"] == 6 and caught.value.details["maxLength"] == 24


def test_a_rate_limit_header_of_zero_does_not_replace_the_known_limit() -> None:
    import httpx

    from kiosk.api.sender import RateBudget

    budget = RateBudget(100, lambda: 1000.0)
    budget.update(httpx.Headers({"x-ratelimit-limit": "0", "x-ratelimit-remaining": "50"}))
    assert budget.limit == 100
    budget.update(httpx.Headers({"x-ratelimit-limit": "60", "x-ratelimit-remaining": "50"}))
    assert budget.limit == 60
