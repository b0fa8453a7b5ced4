"""Delivery on Storefront 2.0 from a counter kiosk (issue 10): 2.0 needs coordinates with every
address, so delivery is offered only with the merchant's delivery zones; an address outside them,
or beyond the location's radius (the API's distance operation), is refused at the postal-code
field before anything is written."""

from __future__ import annotations

from pathlib import Path

import httpx
import pytest

from kiosk.api.errors import InvalidRequestError
from kiosk.config import ConfigError, DeliveryZone, Settings, load_settings
from kiosk.demo import create_app
from kiosk.demo.data import DOWNTOWN
from kiosk.ordering.visit import Visit
from kiosk.runtime import build_demo_services
from tests.demo.support import WED_AFTERNOON

FIDI = DeliveryZone("Financial District", ("10038", "10007"), 40.7090, -74.0070)
MIDTOWN = DeliveryZone("Midtown", ("10036",), 40.7549, -73.9840)  # 3.4 miles: beyond 3
ADDRESS = {"street": "1 Pearl St", "street2": "", "city": "New York", "state": "NY"}


def _visit(tmp_path: Path, zones: tuple[DeliveryZone, ...]) -> tuple[Visit, object, list[str]]:
    app = create_app(clock=lambda: WED_AFTERNOON)
    sent: list[str] = []

    def record(inner: httpx.AsyncBaseTransport) -> httpx.AsyncBaseTransport:
        class Recording(httpx.AsyncBaseTransport):
            async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
                sent.append(f"{request.method} {request.url.path.rsplit('/', 1)[-1]}")
                if request.url.path.endswith("/set-delivery"):
                    body = request.read().decode()
                    assert '"lat"' in body and '"lng"' in body
                return await inner.handle_async_request(request)

        return Recording()

    services = build_demo_services(
        Settings(api_dialect="v2", delivery_zones=zones),
        backend_app=app,
        state_dir=tmp_path,
        location_ids=[DOWNTOWN.id],
        wrap_transport=record,
    )
    visit = Visit(
        services.client_for,
        services.location_ids,
        wall_clock=lambda: WED_AFTERNOON,
        delivery_zones=services.settings.delivery_zones,  # type: ignore[attr-defined]
    )
    visit.choose_location(DOWNTOWN.id)
    return visit, services, sent


async def test_without_zones_delivery_is_not_offered_and_staff_are_told_why(
    tmp_path: Path,
) -> None:
    visit, services, _ = _visit(tmp_path, ())
    offer = visit.delivery_offer()
    assert not offer.offered
    assert "[[delivery_zones]]" in offer.why
    await services.aclose()  # type: ignore[attr-defined]


async def test_an_address_in_a_zone_is_sent_with_the_zone_s_point(tmp_path: Path) -> None:
    visit, services, sent = _visit(tmp_path, (FIDI, MIDTOWN))
    assert visit.delivery_offer().offered
    location = await visit.load_location(DOWNTOWN.id)
    await visit.start_with_details("delivery", {**ADDRESS, "zip": "10038"}, location)
    assert "POST distance" in sent and "PUT set-delivery" in sent
    cart = visit.cart
    assert cart is None or cart.fulfilment_method == "delivery"
    assert visit.state.fulfillment_method == "delivery"
    assert visit.state.delivery is not None and visit.state.delivery.lat == FIDI.lat
    await services.aclose()  # type: ignore[attr-defined]


@pytest.mark.parametrize(
    ("zip_code", "said"),
    [
        ("90210", "We don't deliver to this postal code from here."),
        ("10036", "3.4 miles away; we deliver up to 3 miles"),
    ],
)
async def test_an_address_outside_is_refused_at_the_field_before_any_write(
    tmp_path: Path, zip_code: str, said: str
) -> None:
    visit, services, sent = _visit(tmp_path, (FIDI, MIDTOWN))
    location = await visit.load_location(DOWNTOWN.id)
    with pytest.raises(InvalidRequestError) as refused:
        await visit.start_with_details("delivery", {**ADDRESS, "zip": zip_code}, location)
    assert refused.value.field == "zipCode"
    assert said in refused.value.message
    assert not any(s.startswith(("PUT", "POST ordering")) for s in sent), sent
    assert visit.state.cart_id is None
    await services.aclose()  # type: ignore[attr-defined]


def test_zones_come_from_config_toml_and_bad_ones_are_named(tmp_path: Path) -> None:
    config = tmp_path / "config.toml"
    config.write_text(
        '[[delivery_zones]]\nname = "FiDi"\npostal_codes = ["10038", "10 007"]\n'
        "lat = 40.709\nlng = -74.007\n"
    )
    settings = load_settings(env={}, config_file=config)
    assert settings.delivery_zones == (DeliveryZone("FiDi", ("10038", "10007"), 40.709, -74.007),)
    config.write_text('[[delivery_zones]]\nname = "FiDi"\npostal_codes = []\nlat = 1\nlng = 2\n')
    with pytest.raises(ConfigError, match=r"delivery_zones .*\[0\]\.postal_codes"):
        load_settings(env={}, config_file=config)
    config.write_text('[[delivery_zones]]\nname = "X"\npostal_codes = ["1"]\nlat = 91\nlng = 0\n')
    with pytest.raises(ConfigError, match=r"\[0\]\.lat must be between -90 and 90"):
        load_settings(env={}, config_file=config)
    env = {"KIOSK_DELIVERY_ZONES": '[{"name": "A", "postal_codes": ["1"], "lat": 0, "lng": 0}]'}
    assert load_settings(env=env, config_file=tmp_path / "none.toml").delivery_zones[0].name == "A"
