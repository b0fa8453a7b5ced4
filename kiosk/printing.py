"""The receipt printer: a Receipt (kiosk/receipt.py) as ESC/POS, through python-escpos.

The setting `printer` names the printer:

    usb:0x04b8:0x0202            a USB printer by vendor and product id
    network:192.168.1.50:9100    a network printer (port 9100 when left out)
    file:/dev/usb/lp0            a device file
    serial:/dev/ttyUSB0          a serial port
    dummy                        python-escpos's Dummy, which keeps the bytes (tests)

Printing is blocking I/O: the TUI calls `print_receipt` from a worker thread. Any failure of the
printer (not found, offline, a lost connection) is raised as PrintError, whose message is for
staff; the order is never affected by it. No Textual here.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from kiosk.receipt import Receipt

__all__ = ["PrintError", "PrinterSpec", "parse_printer", "print_receipt", "render"]

FORMS = (
    "usb:VENDOR:PRODUCT (e.g. usb:0x04b8:0x0202), network:HOST[:PORT], file:PATH, "
    "serial:PATH or dummy"
)
# Seconds a network printer has to answer: the worker must not hang on a printer that is off.
NETWORK_TIMEOUT = 10.0


class PrintError(Exception):
    """The receipt could not be printed; the message says why, for staff."""


@dataclass(frozen=True, slots=True)
class PrinterSpec:
    kind: str  # usb, network, file, serial, dummy
    target: str = ""  # the host, path or "vendor:product"
    port: int = 9100

    def describe(self) -> str:
        if self.kind == "dummy":
            return "dummy printer"
        if self.kind == "network":
            return f"network printer {self.target}:{self.port}"
        return f"{self.kind} printer {self.target}"


def _usb_id(text: str) -> int:
    # USB ids are hexadecimal, with or without 0x (as lsusb prints them).
    return int(text.strip(), 16)


def parse_printer(text: str) -> PrinterSpec:
    """The printer a setting names; ValueError (listing the accepted forms) if none."""
    value = text.strip()
    kind, _, rest = value.partition(":")
    kind = kind.lower()
    if kind == "dummy" and not rest:
        return PrinterSpec("dummy")
    if kind == "usb":
        vendor, _, product = rest.partition(":")
        try:
            ids = (_usb_id(vendor), _usb_id(product))
        except ValueError:
            ids = (-1, -1)
        if not all(0 < i <= 0xFFFF for i in ids):
            raise ValueError(
                f"must be usb:VENDOR:PRODUCT in hex, e.g. usb:0x04b8:0x0202 (got {text!r})"
            )
        return PrinterSpec("usb", f"{ids[0]:#06x}:{ids[1]:#06x}")
    if kind == "network" and rest:
        host, sep, port = rest.rpartition(":") if rest.count(":") == 1 else (rest, "", "")
        if not sep:
            host, port = rest, "9100"
        if not host or not port.isdigit() or not 0 < int(port) < 65536:
            raise ValueError(f"must be network:HOST or network:HOST:PORT (got {text!r})")
        return PrinterSpec("network", host, int(port))
    if kind in ("file", "serial") and rest.strip():
        return PrinterSpec(kind, rest.strip())
    raise ValueError(f"must be one of {FORMS} (got {text!r})")


def open_printer(spec: PrinterSpec) -> Any:
    """A python-escpos printer for `spec` (the connection opens on the first write)."""
    from escpos import printer

    if spec.kind == "dummy":
        return printer.Dummy()
    if spec.kind == "network":
        return printer.Network(spec.target, spec.port, timeout=NETWORK_TIMEOUT)
    if spec.kind == "file":
        return printer.File(spec.target)
    if spec.kind == "serial":
        return printer.Serial(spec.target)
    vendor, product = (int(i, 16) for i in spec.target.split(":"))
    return printer.Usb(vendor, product)


def _columns(device: Any) -> int:
    try:
        return int(device.profile.get_columns("a")) or 42
    except Exception:  # an unknown profile: the common 80 mm printer's Font A
        return 42


def _pair(left: str, right: str, width: int) -> str:
    """`left` and `right` on one line of `width` (left wrapped above when too long)."""
    if not right:
        return left[:width] if len(left) <= width else _wrap(left, width)
    room = width - len(right) - 1
    if len(left) <= room:
        return left + " " * (width - len(left) - len(right)) + right
    return _wrap(left, width) + "\n" + right.rjust(width)


def _wrap(text: str, width: int) -> str:
    import textwrap

    indent = " " * (len(text) - len(text.lstrip(" ")))
    return "\n".join(textwrap.wrap(text, width, subsequent_indent=indent + "  ")) or text


def render(device: Any, receipt: Receipt) -> None:
    """Write `receipt` to a python-escpos `device`: the restaurant, the order number large, when,
    each line with its choices, the totals, then a cut."""
    width = _columns(device)
    rule = "-" * width
    device.set(align="center", bold=True)
    if receipt.restaurant:
        device.text(receipt.restaurant + "\n")
    device.set(align="center", bold=False)
    if receipt.address:
        device.text(_wrap(receipt.address, width) + "\n")
    device.text("\nOrder number\n")
    device.set(align="center", bold=True, double_width=True, double_height=True)
    device.text((receipt.order_number or "-") + "\n")
    device.set_with_default(align="center")
    device.text(receipt.when[:1].upper() + receipt.when[1:] + "\n")
    for line in (receipt.customer, receipt.method):
        if line:
            device.text(_wrap(line, width) + "\n")
    device.set_with_default()
    device.text(rule + "\n")
    for row in receipt.rows:
        if row.kind == "total":
            device.text(rule + "\n")
            device.set(bold=True)
        device.text(_pair(row.text, row.amount, width) + "\n")
        if row.kind == "total":
            device.set(bold=False)
    device.text(rule + "\n")
    device.set(align="center")
    device.text(receipt.paid_line + "\n")
    device.set_with_default()
    device.text("\nThank you!\n")
    device.cut()


def print_receipt(spec: PrinterSpec, receipt: Receipt, device: Any = None) -> Any:
    """Print `receipt` on the printer `spec` names (or on `device`, e.g. a Dummy) and return the
    device. Blocking: call it from a worker thread. Raises PrintError on any printer failure."""
    try:
        device = device if device is not None else open_printer(spec)
        try:
            render(device, receipt)
        finally:
            if spec.kind != "dummy":
                device.close()
    except PrintError:
        raise
    except Exception as exc:  # python-escpos raises many kinds (USB, socket, serial, OS errors)
        reason = exc.__class__.__name__
        detail = str(exc).strip().splitlines()[0][:120] if str(exc).strip() else ""
        raise PrintError(
            f"The {spec.describe()} did not print ({reason}{': ' + detail if detail else ''})"
        ) from exc
    return device
