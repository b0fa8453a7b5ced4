"""The visit's reads (kiosk.ordering.catalogue) through Catalogue's public methods, on a stand-in
server that records what it was asked: the merchant listing, whether an order is taken now, and
what a refusal makes the kiosk read again (and that it asks the server itself, not a cache).
Found untested by the whole-module mutation run of catalogue.py (tools/mutate.py,
docs/mutation.md, issue 32 item 8)."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

import pytest

from kiosk.api.errors import InvalidRequestError, StorefrontError
from kiosk.api.models import (
    Cart,
    Location,
    Merchant,
    MethodsStatus,
    ProductDetail,
    Readiness,
    TimeIntervals,
    TipSettings,
)
from kiosk.ordering.catalogue import Catalogue
from kiosk.ordering.refusals import Concern
from kiosk.ordering.visit_state import VisitState

HERE = Location.model_validate({"id": "loc1", "restaurantSlug": "the-diner-downtown"})
LISTING = Merchant.model_validate(
    {
        "id": "m1",
        "locations": [
            {"id": "loc0", "methodsStatus": {"delivery": True}},
            {"id": "loc1", "methodsStatus": {"pickup": True, "table": True}},
        ],
    }
)


class _Server:
    """What the catalogue asks a location's server, answered and recorded."""

    def __init__(self, *, ready: Readiness | Exception | None = None) -> None:
        self.ready = ready
        self.asked: list[tuple[Any, ...]] = []

    async def get_merchant(self, slug: str, *, fresh: bool = False) -> Merchant:
        self.asked.append(("merchant", slug, fresh))
        return LISTING

    async def ordering_readiness(self, location_id: str, method: str) -> Readiness | None:
        self.asked.append(("readiness", location_id, method))
        if isinstance(self.ready, Exception):
            raise self.ready
        return self.ready

    async def get_location(self, location_id: str, *, fresh: bool = False) -> Location:
        self.asked.append(("location", location_id, fresh))
        return HERE

    async def get_time_intervals(self, location_id: str, *, fresh: bool = False) -> TimeIntervals:
        self.asked.append(("slots", location_id, fresh))
        return TimeIntervals.model_validate({"orderDays": [{"value": "2026-03-03"}]})


PRODUCT = ProductDetail.model_validate(
    {
        "id": "prd_latte",
        "name": "Latte",
        "price": "4.00",
        "modifiers": [
            {
                "id": "grp_size",
                "name": "Size",
                "items": [
                    {
                        "id": "opt_large",
                        "name": "Large (16 oz)",
                        "childGroups": [
                            {
                                "groupId": "grp_milk",
                                "group": {
                                    "id": "grp_milk",
                                    "name": "Milk",
                                    "items": [{"id": "opt_oat", "name": "Oat milk"}],
                                },
                            }
                        ],
                    }
                ],
            }
        ],
    }
)


class _Shop(_Server):
    """A server with a product, pictures, tips and recommendations; `low`: its rate budget is
    running low."""

    def __init__(self, *, low: bool = False) -> None:
        super().__init__()
        self.rate_budget = SimpleNamespace(is_low=low)

    async def get_product(self, location_id: str, product_id: str) -> ProductDetail:
        self.asked.append(("product", location_id, product_id))
        return PRODUCT

    async def get_image(self, url: str) -> bytes:
        self.asked.append(("image", url))
        return b"\x89PNG"

    async def get_gratuity(self, location_id: str) -> TipSettings:
        self.asked.append(("tips", location_id))
        return TipSettings(enabled=True)

    async def cross_sell(self, location_id: str, cart_id: str) -> list[Any]:
        self.asked.append(("cross_sell", location_id, cart_id))
        return []


class _Reads:
    """A catalogue over one stand-in server, with the visit's state and what it published."""

    def __init__(self, state: VisitState, server: _Server, slug: str | None = "the-diner") -> None:
        self.state = state
        self.server = server
        self.clients: list[str] = []
        self.published: list[dict[str, Any]] = []
        self.chosen: list[tuple[str, Location]] = []

        def client_for(location_id: str) -> Any:
            self.clients.append(location_id)
            return server

        self.catalogue = Catalogue(
            client_for,
            lambda: self.state,
            lambda **fields: self.published.append(fields),
            lambda location_id, location: self.chosen.append((location_id, location)),
            merchant_slug=slug,
        )


async def test_the_merchant_listing_gives_this_locations_entry() -> None:
    for state in (VisitState(), VisitState(location_id="loc1")):
        reads = _Reads(state, _Server())
        entry = await reads.catalogue.merchant_listing(HERE)
        assert entry is not None and entry.id == "loc1"
        assert entry.methods_status == MethodsStatus(pickup=True, table=True)
        # Asked of the location's own server: the visit's, else the record's.
        assert reads.clients == ["loc1"]
    fresh = _Reads(VisitState(location_id="loc1"), _Server())
    await fresh.catalogue.merchant_listing(HERE)
    await fresh.catalogue.merchant_listing(HERE, fresh=True)
    assert fresh.server.asked == [("merchant", "the-diner", False), ("merchant", "the-diner", True)]


async def test_without_a_merchant_slug_no_listing_is_read() -> None:
    reads = _Reads(VisitState(location_id="loc1"), _Server(), slug=None)
    assert await reads.catalogue.merchant_listing(HERE) is None
    assert reads.server.asked == []


async def test_a_location_missing_from_the_listing_has_no_entry() -> None:
    elsewhere = Location.model_validate({"id": "loc9"})
    reads = _Reads(VisitState(location_id="loc9"), _Server())
    assert await reads.catalogue.merchant_listing(elsewhere) is None


@pytest.mark.parametrize(
    ("ready", "why"),
    [
        (Readiness(ready=True), None),
        (None, None),  # this dialect cannot say: an order for now is taken
        (Readiness(ready=False, reason="Closed until 17:00"), "Closed until 17:00"),
        (Readiness(ready=False), ""),
        (StorefrontError("not read"), ""),  # the menus' word stands: nothing for now
    ],
)
async def test_why_no_order_is_taken_for_now(
    ready: Readiness | Exception | None, why: str | None
) -> None:
    reads = _Reads(VisitState(location_id="loc1"), _Server(ready=ready))
    assert await reads.catalogue.why_not_now("loc1") == why


async def test_readiness_is_asked_for_the_orders_way_else_for_pickup() -> None:
    server = _Server(ready=Readiness(ready=True))
    await _Reads(VisitState(location_id="loc1"), server).catalogue.why_not_now("loc1")
    at_table = VisitState(location_id="loc1", fulfillment_method="table_service")
    await _Reads(at_table, server).catalogue.why_not_now("loc1")
    assert server.asked == [("readiness", "loc1", "pickup"), ("readiness", "loc1", "table_service")]


async def test_a_refused_time_reads_the_slots_again_from_the_server() -> None:
    reads = _Reads(VisitState(location_id="loc1"), _Server())
    refusal = InvalidRequestError("That time is taken.", code="SLOT_UNAVAILABLE")
    assert await reads.catalogue.reread(refusal) is Concern.TIME
    assert reads.server.asked == [("slots", "loc1", True)]
    assert [list(p) for p in reads.published] == [["slots"]]


async def test_a_refused_way_reads_the_locations_ways_again_from_the_server() -> None:
    reads = _Reads(VisitState(location_id="loc1"), _Server())
    refusal = InvalidRequestError("Not here.", field="fulfillmentMethod")
    assert await reads.catalogue.reread(refusal) is Concern.WAY
    # The record says no ways: the listing's, both asked of the server itself.
    assert reads.server.asked == [("location", "loc1", True), ("merchant", "the-diner", True)]
    assert reads.chosen == [("loc1", HERE)]
    assert reads.published == [{"ways": MethodsStatus(pickup=True, table=True)}]


async def test_another_refusal_reads_nothing_again() -> None:
    reads = _Reads(VisitState(location_id="loc1"), _Server())
    assert await reads.catalogue.reread(InvalidRequestError("No.", field="emailAddress")) is None
    assert reads.server.asked == []


async def test_the_ways_of_a_record_given_are_its_own_without_a_read() -> None:
    listed = HERE.model_copy(update={"methods_status": MethodsStatus(delivery=True)})
    reads = _Reads(VisitState(location_id="loc1"), _Server())
    assert await reads.catalogue.location_ways(listed) == MethodsStatus(delivery=True)
    assert reads.server.asked == [] and reads.chosen == []
    assert reads.published == [{"ways": MethodsStatus(delivery=True)}]
    # Without a record the location is read (from the caches) and chosen with it.
    assert await reads.catalogue.location_ways() == MethodsStatus(pickup=True, table=True)
    assert reads.server.asked[0] == ("location", "loc1", False)
    assert reads.chosen == [("loc1", HERE)]


async def test_a_products_choices_are_known_by_name_at_every_depth() -> None:
    reads = _Reads(VisitState(location_id="loc1"), _Shop())
    assert await reads.catalogue.product("prd_latte") is PRODUCT
    assert reads.server.asked == [("product", "loc1", "prd_latte")]
    assert reads.catalogue.option_names == {
        "grp_size": "Size",
        "opt_large": "Large (16 oz)",
        "grp_milk": "Milk",
        "opt_oat": "Oat milk",
    }


async def test_a_taken_up_carts_unnamed_choices_are_read_once_by_product() -> None:
    def line(line_id: str, product_id: str, option: dict[str, Any]) -> dict[str, Any]:
        return {
            "id": line_id,
            "productId": product_id,
            "quantity": 1,
            "selections": [{"groupId": "grp_size", "selectedOptions": [option]}],
        }

    cart = Cart.model_validate(
        {
            "id": "c1",
            "items": [
                line("l1", "prd_latte", {"optionId": "opt_large"}),
                line("l2", "prd_latte", {"optionId": "opt_large"}),
                line("l3", "prd_tea", {"optionId": "opt_small", "name": "Small"}),
            ],
        }
    )
    reads = _Reads(VisitState(location_id="loc1"), _Shop())
    await reads.catalogue.learn_option_names(cart)
    assert reads.server.asked == [("product", "loc1", "prd_latte")]
    assert reads.catalogue.option_names["opt_large"] == "Large (16 oz)"
    await reads.catalogue.learn_option_names(cart)  # now known: nothing read again
    assert len(reads.server.asked) == 1


async def test_pictures_and_tips_are_the_locations_servers() -> None:
    reads = _Reads(VisitState(location_id="loc1"), _Shop())
    assert await reads.catalogue.picture("https://cdn.test/latte.png") == b"\x89PNG"
    assert await reads.catalogue.tip_settings() == TipSettings(enabled=True)
    assert reads.server.asked == [("image", "https://cdn.test/latte.png"), ("tips", "loc1")]


async def test_the_slots_are_read_through_the_caches_and_published() -> None:
    reads = _Reads(VisitState(location_id="loc1"), _Server())
    slots = await reads.catalogue.time_intervals()
    assert slots.order_days[0].value == "2026-03-03"
    assert reads.server.asked == [("slots", "loc1", False)]
    assert reads.published == [{"slots": slots}]


async def test_no_suggestions_without_a_cart_nor_on_a_low_rate_budget() -> None:
    assert await _Reads(VisitState(location_id="loc1"), _Shop()).catalogue.cross_sell() == []
    with_cart = VisitState(location_id="loc1", cart=Cart(id="c1"))
    low = _Reads(with_cart, _Shop(low=True))
    assert await low.catalogue.cross_sell() == []
    assert low.server.asked == []
    ok = _Reads(with_cart, _Shop())
    assert await ok.catalogue.cross_sell() == []
    assert ok.server.asked == [("cross_sell", "loc1", "c1")]
