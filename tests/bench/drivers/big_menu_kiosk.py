"""The kiosk with a menu of N generated products, for the pty benchmarks.

    python -m tests.bench.drivers.big_menu_kiosk N STATE_DIR [BASE_URL]

Without BASE_URL the demo backend runs in this process (as `kiosk demo` runs it), seeded with N
extra products; with it (a demo server seeded by the benchmark) this process holds only the kiosk.
"""

from __future__ import annotations

import sys
from pathlib import Path


def main() -> None:
    count, state_dir = int(sys.argv[1]), Path(sys.argv[2])
    base_url = sys.argv[3] if len(sys.argv) > 3 else None

    from kiosk.tui.app import KioskApp

    async def services():  # type: ignore[no-untyped-def]
        import httpx

        from kiosk.api import StorefrontClient
        from kiosk.config import Settings
        from kiosk.demo.data import DOWNTOWN
        from kiosk.ordering.services import KioskServices

        closers = []
        if base_url is None:
            from kiosk.demo import create_app

            backend = create_app(":memory:", extra_products=count)
            transport = httpx.ASGITransport(app=backend)
            url = "http://embedded-demo.localhost/api/v1"
        else:
            transport, url = None, base_url
        client = StorefrontClient(url, DOWNTOWN.api_key, transport=transport)
        closers.append(client.aclose)
        return KioskServices(
            settings=Settings(),
            clients={DOWNTOWN.id: client},
            location_ids=[DOWNTOWN.id],
            demo=True,
            state_dir=state_dir,
            closers=closers,
        )

    KioskApp(services_factory=services).run()


if __name__ == "__main__":
    main()
