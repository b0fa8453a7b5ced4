"""The receipt as data (kiosk/receipt.py) and on an ESC/POS printer (kiosk/printing.py), against
python-escpos's Dummy printer: no hardware, the bytes it would have sent."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from kiosk.api import Cart
from kiosk.printing import PrintError, PrinterSpec, parse_printer, print_receipt
from kiosk.receipt import build_receipt

pytest.importorskip("escpos")


def _order(**extra: Any) -> Cart:
    return Cart.model_validate(
        {
            "id": "c1",
            "currency": "usd",
            "restaurantDisplayName": "Lantern Kitchen",
            # The table, the address or "counter": never the order's number.
            "fulfillmentIdentifier": "counter",
            "pickupType": "LATER",
            "orderDate": "2026-03-10",
            "orderTime": "18:30",
            "items": [
                {
                    "id": "i1",
                    "productId": "p1",
                    "name": "Flat white",
                    "quantity": 2,
                    "totalFormatted": "$9.00",
                    "selections": [
                        {"groupId": "g", "selectedOptions": [{"optionId": "o1", "quantity": 1}]}
                    ],
                },
                {
                    "id": "i2",
                    "productId": "p2",
                    "name": "Brownie",
                    "quantity": 1,
                    "totalFormatted": "$3.50",
                },
            ],
            "subTotal": "1125",
            "subTotalFormatted": "$11.25",
            "subTotalWithoutDiscount": "1250",
            "subTotalWithoutDiscountFormatted": "$12.50",
            "discountTotal": "125",
            "discountTotalFormatted": "$1.25",
            "discountCode": "SAVE10",
            "taxTotal": "100",
            "taxTotalFormatted": "$1.00",
            "waiterTipTotal": "200",
            "waiterTipTotalFormatted": "$2.00",
            "orderTotal": "1425",
            "orderTotalFormatted": "$14.25",
            "orderTotalWithServiceFee": "1450",
            "orderTotalWithServiceFeeFormatted": "$14.50",
            **extra,
        }
    )


def test_the_receipt_is_built_once_as_data() -> None:
    receipt = build_receipt(_order(), option_names={"o1": "Oat milk"}, order_number="A-417")
    assert receipt.restaurant == "Lantern Kitchen"
    assert receipt.order_number == "A-417"
    assert receipt.when == "for 2026-03-10 18:30"
    texts = [(r.text, r.amount, r.kind) for r in receipt.rows]
    assert ("2 × Flat white", "$9.00", "line") in texts
    assert ("   Oat milk", "", "choice") in texts
    assert ("Discount (SAVE10)", "-$1.25", "discount") in texts
    assert ("Tip", "$2.00", "") in texts
    assert texts[-1] == ("Total", "$14.50", "total")
    assert receipt.paid_line == "Paid $14.50"


def test_the_dummy_printer_gets_every_part_of_the_receipt() -> None:
    receipt = build_receipt(_order(), option_names={"o1": "Oat milk"}, order_number="A-417")
    device = print_receipt(parse_printer("dummy"), receipt)
    out: bytes = device.output
    for part in (
        b"Lantern Kitchen",
        b"A-417",
        b"2026-03-10 18:30",
        b"Flat white",
        b"Oat milk",
        b"Brownie",
        b"$3.50",
        b"Discount (SAVE10)",
        b"Tip",
        b"$14.50",
    ):
        assert part in out, part
    # The order number is printed double width and height (ESC ! 0x30) just before it.
    assert out.index(b"\x1b!0") < out.index(b"A-417") < out.index(b"Flat white")
    assert out.rstrip().endswith(b"\x1dV\x00")  # and the paper is cut


def test_text_from_the_api_cannot_send_printer_commands() -> None:
    # An ESC in a name (ESC p: open the cash drawer) is data: dropped, never sent to the printer.
    order = _order(restaurantDisplayName="Evil\x1bp\x00\x19\xfaName")
    device = print_receipt(PrinterSpec("dummy"), build_receipt(order))
    assert b"\x1bp" not in device.output
    assert b"Evilp" in device.output


@pytest.mark.parametrize(
    ("text", "spec"),
    [
        ("dummy", PrinterSpec("dummy")),
        ("usb:0x04b8:0x0202", PrinterSpec("usb", "0x04b8:0x0202")),
        ("usb:04b8:0202", PrinterSpec("usb", "0x04b8:0x0202")),
        ("network:192.168.1.50:9100", PrinterSpec("network", "192.168.1.50", 9100)),
        ("network:printer.local", PrinterSpec("network", "printer.local", 9100)),
        ("file:/dev/usb/lp0", PrinterSpec("file", "/dev/usb/lp0")),
        ("serial:/dev/ttyUSB0", PrinterSpec("serial", "/dev/ttyUSB0")),
    ],
)
def test_printer_settings_are_read(text: str, spec: PrinterSpec) -> None:
    assert parse_printer(text) == spec


@pytest.mark.parametrize(
    ("text", "said"),
    [
        ("usb:zz:0202", "usb:VENDOR:PRODUCT"),
        ("usb:0x04b8", "usb:VENDOR:PRODUCT"),
        ("network:host:99999", "network:HOST:PORT"),
        ("network:", "network:HOST"),
        ("file:", "file:PATH"),
        ("lpt1", "serial:PATH"),
        ("", "dummy"),
    ],
)
def test_a_bad_printer_setting_says_what_is_accepted(text: str, said: str) -> None:
    with pytest.raises(ValueError, match=said):
        parse_printer(text)


def test_a_printer_that_fails_raises_a_print_error_for_staff(tmp_path: Path) -> None:
    missing = tmp_path / "no-such-dir" / "lp0"
    with pytest.raises(PrintError, match="file printer") as caught:
        print_receipt(parse_printer(f"file:{missing}"), build_receipt(_order()))
    assert "DeviceNotFoundError" in str(caught.value)


def test_a_printer_that_fails_mid_receipt_raises_a_print_error() -> None:
    class PaperOut:
        profile = None

        def __getattr__(self, name: str) -> Any:
            def fail(*_: Any, **__: Any) -> None:
                raise OSError("paper out")

            return fail

    with pytest.raises(PrintError, match="paper out"):
        print_receipt(PrinterSpec("network", "10.0.0.9"), build_receipt(_order()), PaperOut())


def test_the_printer_setting_is_checked_and_shown(tmp_path: Path) -> None:
    from kiosk.config import Settings, load_settings_with_sources

    assert Settings().printer is None and Settings().pay_at_counter is False
    loaded = load_settings_with_sources(
        env={"KIOSK_PRINTER": "network:10.0.0.9:9100", "KIOSK_PAY_AT_COUNTER": "yes"},
        config_file=tmp_path / "none.toml",
    )
    assert loaded.settings.printer == "network:10.0.0.9:9100"
    assert loaded.sources["printer"] == "KIOSK_PRINTER"
    assert loaded.settings.pay_at_counter is True
    with pytest.raises(ValueError, match="printer"):
        Settings(printer="lpt1")
