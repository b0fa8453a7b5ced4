"""The demo fault switches of the staff screen (demo only): slow network, server errors, dropped
answers, a burst of 429s. Not UI code (the TUI never imports httpx): the staff screen uses this.
Also where `kiosk demo --lan` finds this machine's LAN address for the demo's checkout page
(`lan_address`), and whether a checkout URL is one a phone can reach (`phone_reachable`).

The in-process demo's backend is switched directly (services.demo_backend); a `kiosk demo
--server` kiosk uses the demo server's own control endpoint, /demo/faults, which answers loopback
callers only. That endpoint is the demo's control surface, not a Storefront API path, so it lives
here and not in kiosk.api's endpoint table.
"""

from __future__ import annotations

import ipaddress
import socket
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

# The demo backend's control endpoint (kiosk/demo/README.md), on the server's origin.
FAULTS_PATH = "/demo/faults"
FAULTS_RESET_PATH = "/demo/faults/reset"


@dataclass(frozen=True)
class FaultSwitch:
    key: str
    label: str
    field: str
    on: float
    off: float = 0.0

    def is_on(self, faults: dict[str, Any]) -> bool:
        value = faults.get(self.field) or 0
        return bool(value and value != self.off)


SWITCHES: tuple[FaultSwitch, ...] = (
    FaultSwitch("latency", "Slow network: 2 s on every request", "latency_s", 2.0),
    FaultSwitch("errors", "Server errors: 30 % of requests answered 500", "error_rate", 0.3),
    FaultSwitch(
        "drops",
        "Dropped answers: 30 % of writes lose their response",
        "drop_after_commit_rate",
        0.3,
    ),
    FaultSwitch("burst", "Rate limit: the next 5 requests get 429", "burst_429", 5),
)


class DemoFaults:
    """Read and switch the demo backend's faults, in-process or over loopback HTTP; and whether a
    phone can open its checkout page. The DemoControls (kiosk.ordering.services) that the
    composition root gives a demo kiosk's services."""

    switches: tuple[FaultSwitch, ...] = SWITCHES

    def __init__(self, services: Any) -> None:
        self.services = services
        self.origin: str | None = None
        if getattr(services, "demo", False) and services.clients:
            client = next(iter(services.clients.values()))
            # The demo-server's origin, from either dialect's root (2.0 below /storefront).
            base = str(getattr(client, "base_url", "")).removesuffix("/storefront")
            host = urlsplit(base).hostname or ""
            from kiosk.config import is_loopback_host

            if base.endswith("/api/v1") and is_loopback_host(host):
                self.origin = base[: -len("/api/v1")]

    def phone_can_open(self, checkout_url: str | None) -> bool:
        # Read when asked: `kiosk demo --lan` sets the services' phone_origin after building.
        return phone_reachable(checkout_url, getattr(self.services, "phone_origin", None))

    @property
    def backend(self) -> Any:
        # Read when used: the in-process backend is the services' (tests hand it over later).
        return getattr(self.services, "demo_backend", None)

    @property
    def available(self) -> bool:
        return self.backend is not None or self.origin is not None

    async def get(self) -> dict[str, Any]:
        if self.backend is not None:
            return dict(self.backend.faults.as_dict())
        return await self._http("GET", FAULTS_PATH)

    async def set(self, values: dict[str, Any]) -> dict[str, Any]:
        if self.backend is not None:
            self.backend.faults.update(values)
            return dict(self.backend.faults.as_dict())
        return await self._http("POST", FAULTS_PATH, values)

    async def toggle(self, switch: FaultSwitch) -> dict[str, Any]:
        current = await self.get()
        value = switch.off if switch.is_on(current) else switch.on
        return await self.set({switch.field: value})

    async def reset(self) -> dict[str, Any]:
        if self.backend is not None:
            self.backend.faults.reset()
            return dict(self.backend.faults.as_dict())
        return await self._http("POST", FAULTS_RESET_PATH)

    async def _http(
        self, method: str, path: str, body: dict[str, Any] | None = None
    ) -> dict[str, Any]:
        import httpx

        if self.origin is None:
            raise RuntimeError("no demo backend to switch")
        async with httpx.AsyncClient(timeout=5.0) as http:
            response = await http.request(method, self.origin + path, json=body)
            response.raise_for_status()
            data = response.json()
        return dict(data) if isinstance(data, dict) else {}


# --- kiosk demo --lan --------------------------------------------------------------------------

# Where the LAN-address probe "connects": a private address, over UDP. connect() on a UDP socket
# only asks the kernel for a route and sends no packet, so nothing leaves this machine; the
# socket's own address is then the one this machine uses on that network.
LAN_PROBES: tuple[str, ...] = ("10.255.255.255", "192.168.255.255", "172.31.255.255")


def lan_address(probes: tuple[str, ...] = LAN_PROBES) -> str | None:
    """This machine's IPv4 address on its local network, or None (no network but loopback).

    No packet is sent and no name is resolved (see LAN_PROBES); an address a phone cannot reach
    (loopback, unspecified, link-local) is not an answer."""
    for probe in probes:
        with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as udp:
            try:
                udp.connect((probe, 9))
                found = udp.getsockname()[0]
            except OSError:
                continue
        if lan_reachable(found):
            return str(found)
    return None


def lan_reachable(host: str) -> bool:
    """True for an address a phone on the same network could reach (not loopback, unspecified,
    link-local or multicast)."""
    try:
        ip = ipaddress.ip_address(host)
    except ValueError:
        return False
    return not (ip.is_loopback or ip.is_unspecified or ip.is_link_local or ip.is_multicast)


def phone_reachable(checkout_url: str | None, phone_origin: str | None) -> bool:
    """Whether a demo's checkout URL is served where a phone can open it: only when the demo
    serves its pages on the LAN (`kiosk demo --lan`, `phone_origin`) and the URL is there."""
    if not checkout_url or not phone_origin:
        return False
    return checkout_url.startswith(phone_origin.rstrip("/") + "/")
