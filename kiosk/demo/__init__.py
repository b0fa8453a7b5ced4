"""The embedded Storefront backend: the kiosk's default for demos, training and tests.

Another party: it implements ../shared/storefront-contract.md and never imports the client
(kiosk.api), the kiosk's logic (kiosk.ordering) or the TUI. `kiosk.demo.data` is cheap to import;
`create_app` pulls in Starlette and SQLite only when it is first used.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from kiosk.demo.app import create_app

__all__ = ["create_app"]


def __getattr__(name: str) -> Any:
    if name == "create_app":
        from kiosk.demo.app import create_app

        return create_app
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
