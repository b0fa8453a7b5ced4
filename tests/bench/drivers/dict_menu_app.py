"""The memory peer of the kiosk's menu: a Textual app that imports httpx and pydantic, reads the
same 5,000-product menu from the same server, and holds its products as plain dicts (the JSON as
parsed) behind an OptionList of their names.

    python -m tests.bench.drivers.dict_menu_app BASE_URL LOCATION_ID API_KEY
"""

from __future__ import annotations

import sys
from typing import Any

import httpx
import pydantic  # noqa: F401  (imported as the kiosk's client imports it: the peer's cost)
from textual.app import App, ComposeResult
from textual.widgets import OptionList, Static


class DictMenu(App[None]):
    def __init__(self, base_url: str, location_id: str, api_key: str) -> None:
        super().__init__()
        menus = httpx.get(
            f"{base_url}/locations/{location_id}/menus",
            headers={"X-API-Key": api_key},
            timeout=60,
        ).json()
        self.products: list[dict[str, Any]] = [
            product
            for menu in menus["menus"]
            for category in menu["categories"]
            for product in category["products"]
        ]

    def compose(self) -> ComposeResult:
        yield Static(f"Dict menu app ready: {len(self.products)} products")
        yield OptionList(*(str(p["name"]) for p in self.products))


if __name__ == "__main__":
    DictMenu(*sys.argv[1:4]).run()
