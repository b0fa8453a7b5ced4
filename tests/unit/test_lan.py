"""`kiosk demo --lan`: which address the demo's checkout page (and so the QR code) names, found
without sending anything, and the server that serves it."""

from __future__ import annotations

import ipaddress
import socket
from pathlib import Path
from typing import Any

import httpx
import pytest

from kiosk import demo_control
from kiosk.demo_control import lan_address, lan_reachable, phone_reachable


class FakeUdp:
    """A UDP socket that records what it is asked; `routes` maps a probe to the local address
    the kernel would choose (absent: no route, OSError)."""

    calls: list[tuple[str, Any]] = []

    def __init__(self, routes: dict[str, str]) -> None:
        self.routes = routes
        self.local = "0.0.0.0"

    def __call__(self, family: int, kind: int) -> FakeUdp:
        assert (family, kind) == (socket.AF_INET, socket.SOCK_DGRAM)
        return self

    def __enter__(self) -> FakeUdp:
        return self

    def __exit__(self, *_: object) -> None:
        return None

    def connect(self, address: tuple[str, int]) -> None:
        self.calls.append(("connect", address))
        if address[0] not in self.routes:
            raise OSError("Network is unreachable")
        self.local = self.routes[address[0]]

    def getsockname(self) -> tuple[str, int]:
        return (self.local, 40000)

    def send(self, *_: object) -> None:  # pragma: no cover - would be a bug
        self.calls.append(("send", None))


@pytest.fixture
def udp(monkeypatch: pytest.MonkeyPatch) -> Any:
    def install(routes: dict[str, str]) -> FakeUdp:
        FakeUdp.calls = []
        fake = FakeUdp(routes)
        monkeypatch.setattr(demo_control.socket, "socket", fake)
        return fake

    return install


def test_the_lan_address_is_the_local_end_of_a_route_to_a_private_network(udp: Any) -> None:
    fake = udp({"10.255.255.255": "192.168.1.23"})
    assert lan_address() == "192.168.1.23"
    # Only private addresses are asked about, and nothing is sent.
    assert all(kind == "connect" for kind, _ in fake.calls)
    assert all(ipaddress.ip_address(addr[0]).is_private for _, addr in fake.calls)


def test_the_next_private_network_is_tried_when_one_has_no_route(udp: Any) -> None:
    udp({"192.168.255.255": "192.168.50.7"})
    assert lan_address() == "192.168.50.7"


@pytest.mark.parametrize("local", ["127.0.0.1", "0.0.0.0", "169.254.3.4"])
def test_no_address_a_phone_can_reach_means_none(udp: Any, local: str) -> None:
    udp(dict.fromkeys(demo_control.LAN_PROBES, local))
    assert lan_address() is None


def test_no_network_at_all_means_none(udp: Any) -> None:
    udp({})
    assert lan_address() is None


@pytest.mark.parametrize(
    ("host", "reachable"),
    [
        ("192.168.1.23", True),
        ("10.0.0.5", True),
        ("127.0.0.1", False),
        ("0.0.0.0", False),
        ("169.254.1.1", False),
        ("embedded-demo.localhost", False),
    ],
)
def test_which_hosts_a_phone_can_reach(host: str, reachable: bool) -> None:
    assert lan_reachable(host) is reachable


def test_a_checkout_url_is_phone_reachable_only_on_the_lan_origin() -> None:
    origin = "http://192.168.1.23:41234"
    assert phone_reachable(origin + "/demo/checkout/pi_1", origin)
    assert not phone_reachable("http://embedded-demo.localhost/demo/checkout/pi_1", origin)
    assert not phone_reachable("http://192.168.1.23:41234.evil/x", origin)
    assert not phone_reachable(origin + "/demo/checkout/pi_1", None)
    assert not phone_reachable(None, origin)


async def test_serve_demo_on_lan_names_the_lan_address_in_checkout_urls(tmp_path: Path) -> None:
    from kiosk.cli import serve_demo_on_lan
    from kiosk.config import Settings

    # Loopback in a test (never every interface); the address to name is given.
    lan = serve_demo_on_lan(
        Settings(demo_db=tmp_path / "demo.sqlite3"), host="127.0.0.1", address="192.0.2.10"
    )
    try:
        port = lan.server.port
        assert lan.origin == f"http://192.0.2.10:{port}"
        assert lan.kiosk_url == f"http://127.0.0.1:{port}/api/v1"
        assert lan.backend.public_base_url == lan.origin
        async with httpx.AsyncClient() as http:
            health = await http.get(f"http://127.0.0.1:{port}/demo/health")
        assert health.status_code == 200

        class Services:
            phone_origin: str | None = None

        async def factory() -> Any:
            return Services()

        services = await lan.wrap(factory)()
        assert services.phone_origin == lan.origin
    finally:
        lan.stop()


def test_lan_without_a_lan_address_is_a_clear_usage_error(udp: Any, tmp_path: Path) -> None:
    from kiosk.cli import UsageError, serve_demo_on_lan
    from kiosk.config import Settings

    udp({})
    with pytest.raises(UsageError, match="no network address but loopback"):
        serve_demo_on_lan(Settings(demo_db=tmp_path / "demo.sqlite3"), host="127.0.0.1")
