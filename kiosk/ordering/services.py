"""What a running kiosk is given: settings, a Storefront client per location, where to keep state.

Built by `kiosk.runtime` (the composition root) for the CLI and by test fixtures; read by the TUI
and by `kiosk doctor`. Pure data: no Textual, no HTTP here.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol, TextIO

from kiosk.config import Settings

if TYPE_CHECKING:
    from kiosk.api import StorefrontBase
    from kiosk.metrics import FleetMetrics


class DemoControls(Protocol):
    """Our demo backend's own controls, which no Storefront has: its fault switches (the staff
    screen) and whether a phone can open its checkout page (the payment screen). Built by the
    composition root (kiosk.runtime, from kiosk.demo_control) for a demo; None on a real
    backend. Screens see this, never kiosk.demo_control."""

    @property
    def switches(self) -> Sequence[Any]: ...

    @property
    def available(self) -> bool: ...

    async def get(self) -> dict[str, Any]: ...

    async def toggle(self, switch: Any) -> dict[str, Any]: ...

    async def reset(self) -> dict[str, Any]: ...

    def phone_can_open(self, checkout_url: str | None) -> bool: ...


# The kiosk's checks (`kiosk doctor`), written to a text stream; True when all passed.
Checks = Callable[[TextIO], Awaitable[bool]]


@dataclass
class KioskServices:
    settings: Settings
    # Keys are location-specific (contract: Auth): one client for each location the kiosk serves.
    clients: Mapping[str, StorefrontBase]
    # The locations offered on the location screen, in order; one entry means the screen is skipped.
    location_ids: list[str]
    merchant_slug: str | None = None
    # True when the backend is the embedded demo: shows the demo mark and the approve/decline keys.
    demo: bool = False
    # Where the open cart's id is kept for crash resume (None: not kept).
    state_dir: Path | None = None
    # Called once when the app exits (closes clients, stops an in-process backend).
    closers: list[Callable[[], Awaitable[None]]] = field(default_factory=list)
    # The embedded demo backend (in-process demo only): the staff screen switches its faults. A
    # `kiosk demo --server` kiosk reaches the same switches over HTTP (/demo/faults) instead.
    demo_backend: Any = None
    # `kiosk demo --lan`: the origin (http://LAN-ADDRESS:PORT) where the demo serves its checkout
    # pages to phones. None: a demo's checkout URL is not presented as reachable from a phone.
    phone_origin: str | None = None
    # The receipt printer's last failure, for the staff screen (None: none since the last print
    # that worked, or no printer).
    printer_problem: str | None = None
    # This terminal's counters (kiosk.metrics): the Visit and the clients tell it; the staff
    # screen and the Prometheus exporter (when the `metrics` setting is on) read it.
    metrics: FleetMetrics | None = None
    # The demo's own controls (None on a real backend) and the checks the staff screen runs
    # (None: not offered); both set by the composition root.
    demo_controls: DemoControls | None = None
    checks: Checks | None = None

    def client_for(self, location_id: str) -> StorefrontBase:
        try:
            return self.clients[location_id]
        except KeyError:
            raise LookupError(f"this kiosk has no API key for location {location_id!r}") from None

    async def aclose(self) -> None:
        for close in reversed(self.closers):
            await close()
        self.closers.clear()
