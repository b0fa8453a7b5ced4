"""`kiosk doctor`: check, step by step, that this kiosk can take orders on its backend.

Each step prints one line, "OK   ..." or "FAIL ... the precise reason and what to do"; a step that
cannot run because an earlier one failed prints "SKIP". Steps, per location the kiosk serves: the
backend answers and the key is accepted, the location is readable, the menus are readable
(products counted), the rate budget left (from the X-RateLimit-* headers), and a cart can be
created and deleted.
No secret is ever printed: the key is named by its source, never shown.
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING, TextIO

if TYPE_CHECKING:
    from kiosk.api import StorefrontClient
    from kiosk.ordering.services import KioskServices


class _Report:
    def __init__(self, out: TextIO) -> None:
        self.out = out
        self.failed = False

    def ok(self, text: str) -> None:
        self._line("OK  ", text)

    def fail(self, text: str) -> None:
        self.failed = True
        self._line("FAIL", text)

    def skip(self, text: str) -> None:
        self._line("SKIP", text)

    def info(self, text: str) -> None:
        self.out.write(f"     {text}\n")
        self.out.flush()

    def _line(self, tag: str, text: str) -> None:
        self.out.write(f"{tag} {text}\n")
        self.out.flush()


def explain(exc: BaseException, base_url: str, location_id: str) -> str:
    """A precise, actionable reason for a failed request. Never includes the key."""
    from kiosk.api import (
        AmbiguousWriteError,
        APIConnectionError,
        APITimeoutError,
        AuthenticationError,
        NotFoundError,
        PermissionDeniedError,
        RateLimitedError,
        ResponseFormatError,
        ServerError,
        StorefrontError,
    )

    if isinstance(exc, AmbiguousWriteError) and exc.cause is not None:
        exc = exc.cause
    if isinstance(exc, AuthenticationError):
        return (
            "the API key was refused (HTTP 401): it is missing, mistyped or revoked. Check "
            "KIOSK_API_KEY or the secrets file (`kiosk config show` says which one is used)"
        )
    if isinstance(exc, PermissionDeniedError):
        detail = f" [{exc.code}]" if exc.code else ""
        return (
            f"the API key is not allowed here (HTTP 403{detail}): it belongs to another location "
            f"than {location_id!r}, or the merchant's subscription is not active"
        )
    if isinstance(exc, APITimeoutError):
        return f"no answer from {base_url} in time: the server is down or the network is slow"
    if isinstance(exc, APIConnectionError):
        cause = exc.details.get("cause")
        why = f" ({cause})" if cause else ""
        return (
            f"cannot reach {base_url}{why}: check the base URL, the network, DNS and any firewall"
        )
    if isinstance(exc, NotFoundError):
        return (
            f"not found (HTTP 404) at {base_url}: check the location id {location_id!r} and that "
            "the base URL ends with /api/v1"
        )
    if isinstance(exc, RateLimitedError):
        wait = f"; retry in {exc.retry_after:.0f} s" if exc.retry_after else ""
        return f"rate limited (HTTP 429): this IP used its request budget{wait}"
    if isinstance(exc, ServerError):
        return f"the server failed (HTTP {exc.status}): try again later, or tell the provider"
    if isinstance(exc, ResponseFormatError):
        return f"the reply was not the Storefront API's JSON: is {base_url} the right base URL?"
    if isinstance(exc, StorefrontError):
        parts = [f"HTTP {exc.status}" if exc.status else None, exc.code, exc.server_message]
        return "refused: " + ", ".join(p for p in parts if p)
    return f"unexpected error: {type(exc).__name__}"


def _budget_text(client: StorefrontClient) -> tuple[bool, str]:
    budget = client.rate_budget
    left = budget.remaining
    if left is None:
        return True, "rate budget: the server sent no X-RateLimit-Remaining header (unknown)"
    reset = budget.seconds_until_reset()
    # Said as what is left to use, not as a countdown: a reset time alone reads as if it were spent.
    when = f" (the full {budget.limit} again in {reset:.0f} s)" if reset is not None else ""
    text = f"rate budget: {left} of {budget.limit} requests still available{when}"
    if left == 0:
        return False, text + ": the kiosk cannot make requests until then"
    if budget.is_low:
        return True, text + " (low: the kiosk will poll more slowly)"
    return True, text


async def _check_location(
    report: _Report, client: StorefrontClient, location_id: str, key_source: str
) -> None:
    from kiosk.api import StorefrontError

    base_url = client.base_url
    # A fresh answer, not one cached by a running kiosk.
    client.invalidate(location_id)
    started = time.perf_counter()
    try:
        location = await client.get_location(location_id)
    except StorefrontError as exc:
        report.fail(f"location {location_id}: {explain(exc, base_url, location_id)}")
        report.skip("menus, rate budget and cart (they need the steps above)")
        return
    ms = (time.perf_counter() - started) * 1000
    report.ok(f"backend {base_url} answered in {ms:.0f} ms; the API key ({key_source}) is accepted")
    state = "ordering allowed" if location.is_ordering_allowed is not False else "ordering OFF"
    tz = f", {location.timezone}" if location.timezone else ""
    report.ok(f"location {location_id} readable: {location.restaurant_display_name!r}{tz}, {state}")
    if location.is_ordering_allowed is False:
        report.info("the location does not allow ordering now (closed or paused by the merchant)")

    try:
        menus = await client.get_menus(location_id)
    except StorefrontError as exc:
        report.fail(f"menus of {location_id}: {explain(exc, base_url, location_id)}")
    else:
        products = {p.id for m in menus.menus for c in m.categories for p in c.products}
        categories = sum(len(m.categories) for m in menus.menus)
        text = (
            f"menus readable: {len(menus.menus)} menu(s), {categories} categories, "
            f"{len(products)} products"
        )
        if products:
            report.ok(text)
        else:
            report.fail(text + ": there is nothing a customer could order")

    fine, text = _budget_text(client)
    (report.ok if fine else report.fail)(text)

    try:
        cart_id = await client.create_or_resume_cart(location_id, "")
    except StorefrontError as exc:
        report.fail(f"create a cart: {explain(exc, base_url, location_id)}")
        return
    try:
        await client.get_cart(location_id, cart_id)
        await client.delete_cart(location_id, cart_id)
    except StorefrontError as exc:
        report.fail(
            f"cart {cart_id} created but not read or deleted: {explain(exc, base_url, location_id)}"
        )
        return
    report.ok(f"created cart {cart_id} and deleted it")


def _backend_text(services: KioskServices) -> str:
    """Which backend is checked, named as it is: in-process, a demo server, or a real one."""
    if services.demo_backend is not None:
        return "the embedded demo backend (in this process)"
    urls = sorted({c.base_url for c in services.clients.values()}) if services.clients else []
    where = ", ".join(urls) or "no backend"
    if services.demo:
        return f"the demo server at {where}"
    # "demo" is only the default profile's name here: naming it would say this is a demo.
    profile = services.settings.profile
    return f"the backend at {where}" + (f" (profile {profile})" if profile != "demo" else "")


async def run_doctor(services: KioskServices, out: TextIO, *, key_source: str = "") -> bool:
    """Run every check for every location of `services`, printing to `out`. True when all passed."""
    report = _Report(out)
    report.info(
        f"kiosk doctor: {_backend_text(services)}, {len(services.location_ids)} location(s)"
    )
    if not services.location_ids:
        report.fail("no location configured: pass --location ID or set KIOSK_LOCATION")
    for location_id in services.location_ids:
        try:
            client = services.client_for(location_id)
        except LookupError as exc:
            report.fail(str(exc))
            continue
        await _check_location(report, client, location_id, key_source or "the configured key")
    report.info("all checks passed" if not report.failed else "some checks FAILED (see above)")
    return not report.failed
