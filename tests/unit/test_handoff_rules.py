"""A look at the payment that finds the cart gone (kiosk.ordering.handoff), a rule the
whole-module mutation run showed untested (docs/mutation.md, issue 32 item 8)."""

from __future__ import annotations

from typing import Any

import pytest

from kiosk.api.errors import NotFoundError
from kiosk.ordering.lifecycle import OrderSnapshot, Phase
from tests.support.ordering_rig import demo_rig

# Each test on the legacy API and on 2.0 (tests/unit/conftest.py).
pytestmark = pytest.mark.usefixtures("rig_dialect")


async def test_a_look_that_finds_the_cart_gone_ends_the_order_as_expired() -> None:
    async with demo_rig() as rig:
        store = rig.store()
        await store.start("pickup")
        await store.add_item("prd_cookie", 1)
        await store.begin_payment()
        told: list[Phase] = []
        store.subscribe_order(lambda order: told.append(order.phase))

        async def gone(*_: Any) -> None:
            raise NotFoundError(status=404, server_message="No such cart")

        # The server no longer knows the cart (its payment poll answers 404).
        store.client.order_progress = gone  # type: ignore[method-assign]
        with pytest.raises(NotFoundError):
            await store.check_payment()
        assert Phase.EXPIRED in told
        assert store.cart_id is None and store.cart is None
        assert store.order == OrderSnapshot()  # a new visit's empty record
