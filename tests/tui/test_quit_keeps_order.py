"""Journey 16: Ctrl+Q outside kiosk mode keeps the open order; the next start takes it up again.
Only "start over" deletes an order (before: a quit deleted the cart without asking)."""

from __future__ import annotations

from pathlib import Path

from kiosk.tui.screens.menu import MenuScreen
from tests.e2e.test_crash_resume_inprocess import Rig, _Stub, banner_text
from tests.support.tui import settle
from tests.tui.test_kiosk_mode import to_menu_with_cookie


async def test_ctrl_q_keeps_the_open_order_for_the_next_start(tmp_path: Path) -> None:
    rig = Rig(tmp_path)
    app = rig.app()
    async with app.run_test(size=(100, 30)) as pilot:
        cart_id = await to_menu_with_cookie(_Stub(rig, app), pilot)  # type: ignore[arg-type]
        await pilot.press("ctrl+q")
        await pilot.pause()
    assert not app.is_running and app.return_code == 0
    # Kept on the server, open, and named in the resume file.
    assert rig.server_cart(cart_id)["status"] == "OPEN"
    assert rig.cart_file.exists()

    again = rig.app()
    async with again.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        assert isinstance(again.screen, MenuScreen)
        assert "we kept your order" in banner_text(again).lower()
        assert again.cart is not None and again.cart.id == cart_id
        assert [i.product_id for i in again.cart.items] == ["prd_cookie"]
    assert rig.backend.carts.ids() == [cart_id]
