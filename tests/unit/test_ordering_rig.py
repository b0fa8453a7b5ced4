"""The ordering rig (tests/support/ordering_rig.py) checks itself."""

from __future__ import annotations

import pytest

from tests.support.ordering_rig import V1_ONLY_ROUTES, FakeClock, demo_rig

# Each test on the legacy API and on 2.0 (tests/unit/conftest.py).
pytestmark = pytest.mark.usefixtures("rig_dialect")


@pytest.mark.only_dialect("v1", reason=V1_ONLY_ROUTES)
async def test_the_rig_counts_what_the_backend_counts() -> None:
    async with demo_rig() as rig:
        await rig.client.get_location(rig.location_id)
        assert rig.total() == 1
        assert rig.requests() == {"GET ": 1}
        rig.transport.fail_next("GET", f"/locations/{rig.location_id}", when="before")
        rig.client.clear_cache()
        await rig.client.get_location(rig.location_id)  # a read: retried by the client
        assert rig.total() == 2  # the failed attempt never reached the backend


async def test_the_fake_clock_runs_due_actions_inside_a_sleep() -> None:
    clock = FakeClock(100.0)
    seen: list[float] = []

    async def note() -> None:
        seen.append(clock())

    clock.call_later(5, note)
    await clock.sleep(3)
    assert seen == [] and clock() == 103.0
    await clock.sleep(10)
    assert seen == [105.0] and clock() == 113.0
