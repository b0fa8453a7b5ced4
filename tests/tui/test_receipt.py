"""The receipt printed when a printer is configured (python-escpos's Dummy), a printer that fails,
and the one order-number widget."""

from __future__ import annotations

from pathlib import Path

from textual.widgets import Static

from kiosk.config import Settings
from kiosk.tui.screens.done import DoneScreen
from kiosk.tui.widgets.order_number import OrderNumber

from .conftest import make_kiosk, settle
from .test_flow import add_simple, checkout_and_pay, open_menu


async def test_the_receipt_is_printed_on_the_configured_printer(tmp_path: Path) -> None:
    k = make_kiosk(tmp_path, settings=Settings(printer="dummy"))
    app = k.app
    async with app.run_test(size=(120, 40)) as pilot:
        await open_menu(pilot, "1", "1")
        await add_simple(pilot, "espresso", "2")
        server = await checkout_and_pay(k, pilot)
        screen = app.screen
        assert isinstance(screen, DoneScreen)
        await settle(pilot)
        assert screen.print_error is None
        out: bytes = screen.printed.output
        number = server["fulfillmentIdentifier"]
        total = server["orderTotalWithServiceFeeFormatted"] or server["orderTotalFormatted"]
        assert number.encode() in out
        assert [i["quantity"] for i in server["items"]] == [2]
        for item in server["items"]:
            # "2 × Espresso": the × goes out in the printer's code page, the rest as ASCII.
            assert item["name"].encode() in out and b"2 " in out.split(item["name"].encode())[0]
            assert item["totalFormatted"].encode() in out
        assert total.encode() in out
        assert server["restaurantDisplayName"].encode() in out
        # Printed: the screen says nothing about the printer.
        assert not screen.query_one("#done-print").display
        # One widget draws the number, large.
        widget = screen.query_one(OrderNumber)
        assert widget.drawn_large and widget.value == number.upper()


async def test_a_printer_that_fails_says_the_number_and_keeps_the_order(tmp_path: Path) -> None:
    printer = f"file:{tmp_path / 'unplugged' / 'lp0'}"
    k = make_kiosk(tmp_path, settings=Settings(printer=printer, done_timeout=15))
    app = k.app
    async with app.run_test(size=(80, 24)) as pilot:
        await open_menu(pilot, "1", "1")
        await add_simple(pilot, "espresso")
        server = await checkout_and_pay(k, pilot)
        screen = app.screen
        assert isinstance(screen, DoneScreen)
        await settle(pilot)
        number = server["fulfillmentIdentifier"]
        assert screen.print_error is not None and "file printer" in screen.print_error
        said = str(screen.query_one("#done-print", Static).render())
        assert f"Your receipt could not be printed: your order number is {number}" in said
        assert "Staff:" in said and "did not print" in said
        assert screen.query_one("#done-print").display
        # The order is placed all the same, and the customer gets more time to note the number.
        assert k.backend.get_cart_json(server["id"])["status"] == "COMPLETED"
        assert screen.deadline - app.clock() > 15
        # And staff see it on the staff screen's health (services.printer_problem).
        assert k.services.printer_problem == screen.print_error


async def test_staff_see_the_printer_and_its_last_failure(tmp_path: Path) -> None:
    from kiosk.tui.screens.staff import StaffScreen

    from .test_kiosk_mode import PIN, keys, kiosk_with, pin_hash, type_pin

    k, _ = kiosk_with(tmp_path, kiosk_mode=True, staff_pin_hash=pin_hash(), printer="dummy")
    app = k.app
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        await keys(pilot, "f12")
        await type_pin(pilot, PIN)
        assert isinstance(app.screen, StaffScreen)
        health = str(app.screen.query_one("#staff-health", Static).render())
        assert "Receipt printer dummy: no failure seen" in health
        k.services.printer_problem = "The dummy printer did not print (OSError: paper out)"
        app.screen.show_health()
        health = str(app.screen.query_one("#staff-health", Static).render())
        said = "Receipt printer dummy: The dummy printer did not print (OSError: paper out)"
        assert said in health
