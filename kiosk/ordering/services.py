"""What a running kiosk is given: settings, a Storefront client per location, where to keep state.

Built by `kiosk.runtime` (the composition root) for the CLI and by test fixtures; read by the TUI
and by `kiosk doctor`. Pure data: no Textual, no HTTP here.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from kiosk.config import Settings

if TYPE_CHECKING:
    from kiosk.api import StorefrontClient
    from kiosk.metrics import FleetMetrics


@dataclass
class KioskServices:
    settings: Settings
    # Keys are location-specific (contract: Auth): one client for each location the kiosk serves.
    clients: Mapping[str, StorefrontClient]
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

    def client_for(self, location_id: str) -> StorefrontClient:
        try:
            return self.clients[location_id]
        except KeyError:
            raise LookupError(f"this kiosk has no API key for location {location_id!r}") from None

    async def aclose(self) -> None:
        for close in reversed(self.closers):
            await close()
        self.closers.clear()
