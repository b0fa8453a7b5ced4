"""Hostile data from the API: the kiosk draws it as the characters it holds and the order completes.

The embedded backend keeps the state (carts, prices, payment); a transport in front of it rewrites
every answer the way a careless or hostile menu editor could have written it: Rich markup
(`[bold]x[/]`, `[link=...]`), ANSI escape sequences, a 10,000-character name, wide (CJK, emoji)
and right-to-left text with bidi overrides, nulls where strings were expected, unknown fields,
missing optional fields, and both money forms (decimal major units and integer minor units).

The standard order is walked through the TUI with Pilot (tests/bench/tui_walk.py) at 120x40 and
80x24; at every step the screen as composed (the strips the terminal would get) is checked: the
markup shows as its characters, no escape or other control character and no bidi override reaches
the screen, nothing became a hyperlink; and at the end the server holds the intended cart.
"""

from __future__ import annotations

import copy
import json
import re
import unicodedata
from itertools import cycle
from pathlib import Path
from typing import Any

import httpx
import pytest
from rich.segment import Segment
from textual.screen import Screen

from kiosk.api import Cart, StorefrontClient
from kiosk.config import Settings
from kiosk.demo import create_app
from kiosk.demo.data import DOWNTOWN
from kiosk.runtime import build_demo_services, make_app
from kiosk.tui.app import KioskApp
from tests.bench.tui_walk import INTENDED, LATTE, Walk, quick_pilot
from tests.contract import SPEC_CART_TOTALS

BASE_URL = "http://demo.test/api/v1"

MARKUP = "[bold]x[/]"
LINK = "[link=https://evil.example]click[/link]"
ANSI = "\x1b[31mRED\x1b[0m\x1b[2J\x07"
LONG = "L" * 10_000
WIDE = "牛肉麵🍜🍔"
RTL = "شاورما דג"
BIDI = "\u202eevil\u202c"
UNBALANCED = "[/] [red on red]hidden"

# The standard order's products get the worst names; every other product one of the rest.
NAMES = {
    LATTE: f"{MARKUP} Latte",
    "prd_cookie": f"{LINK} Cookie",
    "prd_orange_juice": f"{ANSI} Juice",
    "prd_hummus": LONG,
}
OTHERS = (WIDE, RTL, BIDI, UNBALANCED, None, f"{WIDE} {RTL}", "[b]" * 50)
UNKNOWN = {"zzUnknown": {"nested": [1, "[bold]", None], "x": None}}
TOTALS = SPEC_CART_TOTALS
# What the screens must show literally (ANSI's ESC and BEL are dropped, the rest stays visible).
LITERALS = {LATTE: MARKUP, "prd_cookie": LINK, "prd_orange_juice": "[31mRED[0m[2J"}


class Hostile:
    """Rewrites the backend's JSON answers; the backend's state stays as it was."""

    def __init__(self, slot_labels: bool = False) -> None:
        # Hostile labels of the order-time slots: see the xfail test at the end.
        self.slot_labels = slot_labels
        self.other_names: dict[str, str | None] = {}
        self._others = cycle(OTHERS)
        self.flip = 0

    def name_of(self, product_id: str) -> str | None:
        if product_id in NAMES:
            return NAMES[product_id]
        if product_id not in self.other_names:
            self.other_names[product_id] = next(self._others)
        return self.other_names[product_id]

    def product(self, p: dict[str, Any]) -> dict[str, Any]:
        p = {**p, **UNKNOWN}
        self.flip += 1
        p["name"] = self.name_of(str(p.get("id")))
        p["description"] = (None, LONG, f"{ANSI}{MARKUP}")[self.flip % 3]
        p["tags"] = [*(p.get("tags") or []), "[bold]tag[/]", RTL]
        p.pop("images", None)  # a missing optional field
        price = p.get("price")
        if self.flip % 2 and isinstance(price, str) and "." in price:
            # The other money form: integer minor units, and no display twin to lean on.
            p["price"] = str(round(float(price) * 100))
            p["displayPrice"] = None
        if "modifiers" in p:
            p["modifiers"] = [self.group(g) for g in p["modifiers"] or []]
        return p

    def group(self, g: dict[str, Any]) -> dict[str, Any]:
        g = {**g, **UNKNOWN, "name": f"[bold]{g.get('name')}[/]", "description": None}
        items = []
        for n, item in enumerate(g.get("items") or []):
            item = {
                **item,
                "name": (f"{ANSI}{item.get('name')}", f"{WIDE}{item.get('name')}")[n % 2],
            }
            for child in item.get("childGroups") or []:
                if isinstance(child.get("group"), dict):
                    child["group"] = self.group(child["group"])
            items.append(item)
        g["items"] = items
        return g

    def cart(self, c: dict[str, Any]) -> dict[str, Any]:
        c = {**copy.deepcopy(c), **UNKNOWN}
        c["restaurantDisplayName"] = f"[bold]Lantern[/] {ANSI}"
        c["statementDescriptor"] = MARKUP
        c["metadata"] = {"[bold]": "[/]", "null": None}
        for n, key in enumerate(TOTALS):
            value = c.get(key)
            if isinstance(value, str) and "." not in value and n % 2:
                minor = int(value)
                c[key] = "0.00" if minor == 0 else f"{minor // 100}.{minor % 100:02d}"
        for item in c.get("items") or []:
            item["name"] = self.name_of(str(item.get("productId")))
            item["description"] = None
            item["imageUrl"] = None
            for selection in item.get("selections") or []:
                selection["name"] = f"[bold]{selection.get('name')}[/]"
                for option in selection.get("selectedOptions") or []:
                    option["name"] = f"{ANSI}{LINK}{option.get('name')}"
        if c.get("fulfillmentIdentifier"):
            c["fulfillmentIdentifier"] = f"[b]{c['fulfillmentIdentifier']}[/b]"
        return c

    def location(self, loc: dict[str, Any]) -> dict[str, Any]:
        loc = {**loc, **UNKNOWN}
        loc["restaurantDisplayName"] = f"[bold]Lantern[/] {ANSI}"
        loc["restaurantBio"] = LONG
        loc["addressString"] = f"{RTL} {BIDI}"
        loc["phone"] = None
        return loc

    def rewrite(self, path: str, data: Any) -> Any:
        tail = re.sub(r"^/api/v1/locations/[^/]+", "", path)
        if tail == "":
            return self.location(data)
        if tail == "/menus":
            for menu in data.get("menus") or []:
                menu["name"] = f"{MARKUP}{menu.get('name')}"
                for category in menu.get("categories") or []:
                    category["name"] = (f"[link=x]{category.get('name')}[/link]", None)[
                        len(category.get("products") or []) % 2
                    ]
                    category["products"] = [self.product(p) for p in category["products"] or []]
            data["popularProducts"] = [self.product(p) for p in data.get("popularProducts") or []]
            return {**data, **UNKNOWN}
        if re.fullmatch(r"/products/[^/]+", tail):
            return self.product(data)
        if tail.endswith("/products"):
            return [self.product(p) for p in data]
        if tail == "/time-intervals":
            for day in data.get("orderDays") or []:
                day["label"] = f"[bold]{day.get('label')}[/] {WIDE}" if self.slot_labels else None
            return {**data, **UNKNOWN}
        if tail == "/gratuity":
            return {**data, **UNKNOWN}
        if isinstance(data, dict) and isinstance(data.get("cart"), dict):
            return {**data, "cart": self.cart(data["cart"])}
        if isinstance(data, dict) and "items" in data and "id" in data:
            return self.cart(data)
        return data


class HostileTransport(httpx.AsyncBaseTransport):
    def __init__(self, inner: httpx.AsyncBaseTransport, hostile: Hostile) -> None:
        self.inner = inner
        self.hostile = hostile

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        response = await self.inner.handle_async_request(request)
        body = await response.aread()
        if response.status_code >= 300 or not body:
            return httpx.Response(response.status_code, headers=response.headers, content=body)
        data = self.hostile.rewrite(request.url.path, json.loads(body))
        headers = [(k, v) for k, v in response.headers.items() if k.lower() != "content-length"]
        return httpx.Response(response.status_code, headers=headers, json=data)


# --------------------------------------------------------------------------------------------------
# What the screen holds


def drawn(screen: Screen[Any]) -> tuple[str, list[Segment]]:
    """The screen as composed for the terminal: its text (lines joined by newlines) and segments."""
    segments: list[Segment] = []
    lines = []
    for strip in screen._compositor.render_strips():
        strip_segments = list(strip)
        segments += strip_segments
        lines.append("".join(s.text for s in strip_segments))
    return "\n".join(lines), segments


def is_control(ch: str) -> bool:
    return (
        unicodedata.category(ch) == "Cc"
        or ch in "\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069"
    )


def check_segments(step: str, segments: list[Segment]) -> None:
    bad = sorted({repr(ch) for s in segments for ch in s.text if is_control(ch)})
    assert not bad, f"{step}: control characters reached the screen: {bad}"
    links = [s.text for s in segments if s.style is not None and s.style.link]
    assert not links, f"{step}: API text became a hyperlink: {links}"


def check_screen(step: str, screen: Screen[Any]) -> str:
    text, segments = drawn(screen)
    check_segments(step, segments)
    assert "Traceback" not in text, f"{step}: a traceback on screen"
    return text


def test_the_screen_check_sees_escapes_bidi_overrides_and_links() -> None:
    """The check above can fail: an ESC, a bidi override or a hyperlink in a segment is caught."""
    from rich.style import Style

    for segment in (
        Segment("a\x1b[31mb"),
        Segment("x\u202ey"),
        Segment("click", Style(link="https://evil.example")),
    ):
        with pytest.raises(AssertionError):
            check_segments("self-test", [Segment("fine"), segment])
    check_segments("self-test", [Segment(MARKUP), Segment(WIDE), Segment(RTL)])


EXPECTED: dict[str, tuple[str, ...]] = {
    "welcome": ("[bold]Lantern[/]",),
    # A long name wraps to a second row on the menu, its marks kept on the first (issue 33): its
    # markup as typed on both rows.
    "menu": (MARKUP, WIDE, RTL, "evil", "(unnamed)", "[/] [red"),
    f"product {LATTE}": (MARKUP, "[bold]"),
    "product prd_cookie": (LINK,),
    "product prd_orange_juice": (LITERALS["prd_orange_juice"],),
    "product prd_hummus": ("LLLLLLLLLL…",),
    "cart edited": (MARKUP, "LLLLLLLLLL"),
    "checkout": (),
    "done": ("[b]",),
}


def hostile_kiosk(hostile: Hostile, tmp_path: Path) -> tuple[KioskApp, Any]:
    backend = create_app(":memory:")
    services = build_demo_services(
        Settings(),
        backend_app=backend,
        base_url=BASE_URL,
        wrap_transport=lambda inner: HostileTransport(inner, hostile),
        location_ids=[DOWNTOWN.id],
        state_dir=tmp_path / "state",
    )
    services.merchant_slug = None  # as before: no merchant-listing fallback
    return make_app(services=services), backend


@pytest.mark.parametrize("size", [(120, 40), (80, 24)])
async def test_hostile_menu_is_drawn_literally_and_the_order_completes(
    size: tuple[int, int], tmp_path: Path
) -> None:
    app, backend = hostile_kiosk(Hostile(), tmp_path)
    seen: dict[str, str] = {}

    def on_screen(step: str, screen: Screen[Any]) -> None:
        seen[step] = seen.get(step, "") + "\n" + check_screen(step, screen)

    with quick_pilot():
        async with app.run_test(size=size) as pilot:
            walk = Walk(app, pilot, on_screen=on_screen)
            await walk.standard_order()
            done = app.screen
            order: Cart = done.order  # type: ignore[attr-defined]
            # Every hostile name was drawn somewhere on the way.
            everything = "\n".join(seen.values())
            for product_id, literal in LITERALS.items():
                assert literal in everything, f"{product_id}: {literal!r} never drawn literally"
    backend_state = backend.state.backend
    server = backend_state.get_cart_json(order.id)
    backend_state.close()

    for step, literals in EXPECTED.items():
        if size[0] < 100 and step == "cart edited":
            continue  # at 80x24 the cart's names are cut before the markup's end
        for literal in literals:
            assert literal in seen.get(step, ""), (
                f"{step}: {literal!r} not drawn; got {seen.get(step)!r}"
            )
    # The flow completed: the server holds the intended order, paid.
    assert server["status"] == "COMPLETED"
    assert [(i["productId"], i["quantity"]) for i in server["items"]] == INTENDED
    assert order.fulfillment_identifier and order.fulfillment_identifier.startswith("[b]")


async def test_a_null_inside_a_list_of_strings_does_not_sink_the_whole_menu() -> None:
    """One product's tags [null, "vegan"] (a null where a string was expected, inside a list)."""
    backend = create_app(":memory:")

    class NullTag(Hostile):
        def rewrite(self, path: str, data: Any) -> Any:
            if path.endswith("/menus"):
                data["menus"][0]["categories"][0]["products"][0]["tags"] = [None, "vegan"]
            return data

    client = StorefrontClient(
        BASE_URL,
        DOWNTOWN.api_key,
        transport=HostileTransport(httpx.ASGITransport(app=backend), NullTag()),
    )
    try:
        menus = await client.get_menus(DOWNTOWN.id)
        assert sum(len(c.products) for m in menus.menus for c in m.categories) > 10
        assert menus.menus[0].categories[0].products[0].tags == ("vegan",)
    finally:
        await client.aclose()
        backend.state.backend.close()


async def test_hostile_order_time_labels_are_drawn_literally(tmp_path: Path) -> None:
    """The slot labels come from the API too; a Select prompt given as str is parsed as markup
    (a cut label such as '[bold]Today[/… 11:30' used to raise MarkupError and end the app)."""
    app, backend = hostile_kiosk(Hostile(slot_labels=True), tmp_path)
    seen: dict[str, str] = {}
    with quick_pilot():
        async with app.run_test(size=(120, 40)) as pilot:
            walk = Walk(app, pilot, on_screen=lambda step, screen: None)
            await walk.start()
            await walk.add_line("prd_cookie")
            await walk.pilot.press("f4")
            cart = await walk.at("CartScreen", "cart")
            first_label = cart.slots.order_days[0].label.split("[/]")[0].removeprefix("[bold]")
            cart.query_one("#later").focus()
            await pilot.press("enter")
            await pilot.pause()
            seen["open"] = check_screen("slots open", app.screen)
            await pilot.press("down", "enter")
            await walk.until(
                "the later time", lambda: bool(app.cart and app.cart.pickup_type == "LATER")
            )
            seen["chosen"] = check_screen("slot chosen", app.screen)
    backend.state.backend.close()
    # The first day's label, drawn as its characters in the open list (not as bold text).
    assert f"[bold]{first_label}" in seen["open"]
