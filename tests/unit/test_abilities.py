"""What a dialect can do is a value in VisitState (kiosk.ordering.abilities): the screens read it
there and never reach the client through the visit."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from kiosk.config import DeliveryZone
from kiosk.ordering.abilities import Abilities
from tests.support.ordering_rig import demo_rig

pytestmark = pytest.mark.usefixtures("rig_dialect")

KIOSK = Path(__file__).resolve().parents[2] / "kiosk"


async def test_the_visit_publishes_what_its_locations_server_can_do() -> None:
    async with demo_rig() as rig:
        visit = rig.visit()
        abilities = visit.state.abilities
        assert isinstance(abilities, Abilities)
        v1 = rig.dialect == "v1"
        assert abilities.email_required is v1  # 2.0's schema asks a name only
        assert abilities.intent_locks_cart is v1  # a 2.0 hand-off keeps the cart open
        # 2.0 needs coordinates with an address: without zones, delivery is not offered.
        assert abilities.delivery.offered is v1
        assert visit.state.abilities_at(rig.location.id) == abilities
        assert visit.state.abilities_at("somewhere-else") == Abilities()


async def test_delivery_zones_make_delivery_an_ability_on_both_dialects() -> None:
    async with demo_rig() as rig:
        from kiosk.ordering.visit import Visit

        zone = DeliveryZone(name="Centre", postal_codes=("10001",), lat=40.75, lng=-73.99)
        visit = Visit(lambda _key: rig.client, [rig.location.id], delivery_zones=[zone])
        assert visit.state.abilities.delivery.offered
        assert visit.delivery_offer() == visit.state.abilities.delivery


def _reads_client_of_the_visit(node: ast.Attribute) -> bool:
    """`visit.client`, `self.kiosk.visit.client_for(...)`, ...: the client reached through the
    visit (by a name or an attribute called visit)."""
    if node.attr not in ("client", "client_for"):
        return False
    owner = node.value
    name = owner.id if isinstance(owner, ast.Name) else getattr(owner, "attr", None)
    return name in ("visit", "_visit")


@pytest.mark.only_dialect("v1", reason="reads the code, no server")
def test_no_screen_reads_the_client_of_the_visit() -> None:
    doors = []
    for path in sorted((KIOSK / "tui").rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.Attribute) and _reads_client_of_the_visit(node):
                doors.append(f"{path.relative_to(KIOSK).as_posix()}:{node.lineno}")
    assert not doors, doors
