"""`kiosk doctor`: check, step by step, that this kiosk can take orders on its backend.

Each step prints one line, "OK   ..." or "FAIL ... the precise reason and what to do"; a step that
cannot run because an earlier one failed prints "SKIP". Steps, per location the kiosk serves: the
backend answers and the key is accepted, the location is readable, the menus are readable
(products counted), the rate budget left (from the X-RateLimit-* headers), and a cart can be
created and deleted.
No secret is ever printed: the key is named by its source, never shown.
"""

from __future__ import annotations

import logging
import time
from typing import TYPE_CHECKING, Any, TextIO

if TYPE_CHECKING:
    from collections.abc import Awaitable, Callable

    from kiosk.api import StorefrontBase
    from kiosk.ordering.services import KioskServices

log = logging.getLogger(__name__)


class NonsenseError(Exception):
    """A reply that parsed but cannot be true of an order (a negative total, a paid order with no
    number): said in one line naming the server, never passed."""


def _unusable(exc: BaseException, base_url: str) -> str:
    """One line for an answer the kiosk could not use at all (what would otherwise be a
    traceback); the traceback goes to the log file."""
    log.error("kiosk doctor: unusable answer from %s", base_url, exc_info=exc)
    return (
        f"the server at {base_url} gave an answer the kiosk cannot use ({type(exc).__name__}; "
        "the details are in the log file): is it a Storefront server?"
    )


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
        self._line("    ", text)

    def _line(self, tag: str, text: str) -> None:
        from kiosk.logs import REDACTOR

        # Lines quote the server's words: whatever a server echoes, a registered secret (the
        # key, a cart token) is never printed.
        self.out.write(f"{tag} {REDACTOR.redact(text)}\n")
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
        what = f" to {exc.endpoint}" if exc.endpoint else ""
        why = str(exc.details.get("errors") or "")[:160]
        return (
            f"the server at {base_url} answered{what} with something that is not a Storefront "
            f"reply{f' ({why})' if why else ''}: is {base_url} the right base URL?"
        )
    if isinstance(exc, StorefrontError):
        parts = [f"HTTP {exc.status}" if exc.status else None, exc.code, exc.server_message]
        return "refused: " + ", ".join(p for p in parts if p)
    return f"unexpected error: {type(exc).__name__}"


def _budget_text(client: StorefrontBase) -> tuple[bool, str]:
    budget = client.rate_budget
    left = budget.remaining
    if left is None:
        return True, "rate budget: the server sent no X-RateLimit-Remaining header (unknown)"
    reset = budget.seconds_until_reset()
    # Said as what is left to use, not as a countdown: a reset time alone reads as if it were spent.
    when = f" (the full {budget.limit} again in {reset:.0f} s)" if reset is not None else ""
    text = f"rate budget: {left} of {budget.limit} requests still available{when}"
    if budget.self_counted and budget.updated_at is None:
        # 2.0 sends no X-RateLimit-* headers: the figure is the kiosk's own count.
        text += ", as counted by this kiosk"
    if left == 0:
        return False, text + ": the kiosk cannot make requests until then"
    if budget.is_low:
        return True, text + " (low: the kiosk will poll more slowly)"
    return True, text


async def _check_location(
    report: _Report, client: StorefrontBase, location_id: str, key_source: str
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
    credential = (
        f"the API key ({key_source}) is accepted"
        if client.needs_key
        else "anonymous, as Storefront 2.0 reads are"
    )
    report.ok(f"backend {base_url} answered in {ms:.0f} ms; {credential}")
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


async def _check_dialect(
    report: _Report, client: StorefrontBase, location_id: str, *, probe_all: bool = False
) -> None:
    """Whether the server answers the API version this kiosk speaks; with `probe_all`, which
    other version it answers too (by default the other is never asked: a strict 2.0 server
    counts a legacy path as a breach)."""
    from kiosk.api.probe import probe_dialects

    dialects = ("v2", "v1") if probe_all else (client.dialect,)
    answers = await probe_dialects(client, location_id, dialects)
    for answer in answers:
        report.info(f"API {answer.name} at {answer.base_url}: {answer.detail}")
    spoken = [a for a in answers if a.speaks]
    mine = next(a for a in answers if a.dialect == client.dialect)
    if mine.speaks:
        report.ok(f"this kiosk speaks {mine.name} (its setting), which the server answers")
    elif spoken:
        names = " or ".join(a.name for a in spoken)
        flag = " or ".join(f"--api {a.dialect}" for a in spoken)
        report.fail(
            f"this kiosk is set to speak {mine.name}, but the server answers {names}: use {flag} "
            "(or api_dialect in config.toml)"
        )
    elif probe_all:
        # Down, unreachable or wrong URL: the location check below says which, once.
        report.info("which API version this server speaks could not be told (see below)")
    else:
        report.info(
            f"the server did not answer {mine.name} here (see below; --probe-all asks the "
            "other API version too)"
        )


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


def check_speech(report: _Report, settings: Any) -> None:
    """Which speech command the kiosk uses, and whether it answers (it is asked only when speech
    is on: a kiosk without speech has no reason to fail on it)."""
    from kiosk import speech

    command = speech.command_for(settings.speech_command)
    where = "speech_command" if settings.speech_command else "the default"
    if not settings.speech:
        report.skip(f"speech: off (would use {where}: {command})")
        return
    ok, how = speech.check(command)
    if ok:
        report.ok(f"speech: {command} ({where}): {how}")
    else:
        report.fail(f"speech: {command} ({where}) does not answer: {how}")


async def run_doctor(
    services: KioskServices, out: TextIO, *, key_source: str = "", probe_all: bool = False
) -> bool:
    """Run every check for every location of `services`, printing to `out`. True when all passed.
    `probe_all`: ask both API versions, not only the one the kiosk speaks."""
    report = _Report(out)
    report.info(
        f"kiosk doctor: {_backend_text(services)}, {len(services.location_ids)} location(s)"
    )
    check_speech(report, services.settings)
    if not services.location_ids:
        report.fail("no location configured: pass --location ID or set KIOSK_LOCATION")
    for location_id in services.location_ids:
        try:
            client = services.client_for(location_id)
        except LookupError as exc:
            report.fail(str(exc))
            continue
        try:
            await _check_dialect(report, client, location_id, probe_all=probe_all)
            await _check_location(report, client, location_id, key_source or "the configured key")
        except Exception as exc:  # a diagnosis reports, in one line, never a traceback
            report.fail(f"location {location_id}: {_unusable(exc, client.base_url)}")
    report.info("all checks passed" if not report.failed else "some checks FAILED (see above)")
    return not report.failed


# --- kiosk doctor --test-order -------------------------------------------------------------------

TEST_NAME = "Test order"
TEST_EMAIL = "test-order@example.com"
# After the test payment, the order's poll: the server places the order in its own time.
PAID_POLL_PAUSES = (0.0, 0.25, 0.5, 1.0, 1.0, 2.0, 2.0, 3.0, 5.0, 5.0, 10.0)  # 30 s in all
UNPROVEN = (
    "not proven: that a payment completes the order and that the server gives it a number "
    '(a server with a test payment proves both: docs/api.md, "A test payment")'
)


def _satisfied(detail: Any) -> Any:
    """A selection for `detail` that meets every required rule, choosing the first options that
    are not sold out; None when no choice can meet them."""
    from kiosk.ordering.modifiers import SelectionState

    state = SelectionState.for_product(detail)
    for _ in range(100):
        group = state.first_invalid()
        if group is None:
            return state
        option = next((o for o in group.options if not o.sold_out and o.can_increase), None)
        if option is None:
            return None
        if group.single:
            state = state.select(option.key)
        else:
            state = state.set_quantity(option.key, state.quantity(option.key) + 1)
    return None


async def run_test_order(services: KioskServices, out: TextIO) -> bool:
    """A whole order on the kiosk's own ordering code (the Visit the screens use), step by step,
    each with its latency and the requests it cost. On a server with a test payment (docs/api.md,
    "A test payment": the demo, a provider's test server) it pays and prints the order number,
    which must not be empty; elsewhere it says that it stopped before payment and what that
    leaves unproven, and deletes the cart."""
    report = _Report(out)
    location_id = services.location_ids[0] if services.location_ids else None
    if location_id is None:
        report.fail("no location configured: pass --location ID or set KIOSK_LOCATION")
        return False
    order = _TestOrder(services, location_id, report)
    report.info(f"test order: {_backend_text(services)}, location {location_id}, {order.dialect}")
    ok = True
    stopped = ""  # why the test stopped before payment, when it did
    try:
        ok = await order.up_to_payment()
        if ok:
            stopped = await order.why_not_pay()
            if stopped:
                report.skip(f"pay: {stopped}, so the test stopped before payment")
                report.info(UNPROVEN)
            else:
                ok = await order.step("pay with the server's test payment", order.payment)
    finally:
        ok = await order.clean_up() and ok
    report.info(f"{order.requests} requests in all")
    if not ok:
        report.info("the test order FAILED (see above)")
    elif stopped:
        report.info("the test order PASSED up to payment; payment and the order number unproven")
    else:
        report.info("the test order PASSED, paid, with its order number")
    return ok


class _TestOrder:
    """The test order's steps on one Visit, each a method answering the text its line shows."""

    def __init__(self, services: KioskServices, location_id: str, report: _Report) -> None:
        from kiosk.ordering.visit import Visit

        self.location_id = location_id
        self.report = report
        self.client = services.client_for(location_id)
        self.visit = Visit(services.client_for, services.location_ids)
        self.where = f"the server at {self.client.base_url}"
        self.paid = False  # paid for: the cart is the server's order now, never deleted
        self.currency: str | None = None
        self.product_: Any = None
        self.selection: Any = None
        self.line: Any = None
        self.checkout_url = ""  # the hand-off's page; "" when the server gave none

    @property
    def dialect(self) -> str:
        return str(self.client.dialect)

    @property
    def requests(self) -> int:
        return int(self.client.stats.requests)

    async def up_to_payment(self) -> bool:
        steps = [
            ("read the location", self.location),
            ("choose an orderable product", self.product),
            ("start an ordering session", self.start),
            ("add it", self.add),
            ("change the quantity to 2", self.quantity),
            ("order time", self.order_time),
            (f"customer {TEST_NAME!r}, validate, payment hand-off", self.checkout),
        ]
        for name, run in steps:
            if not await self.step(name, run):
                return False
        return True

    async def why_not_pay(self) -> str:
        """Why this server's order cannot be paid by the test; "" when it can."""
        if not self.checkout_url:
            return "the server gave no checkout page to pay"
        if not await self.client.test_payment_offered():
            return f"{self.where} offers no test payment"
        return ""

    async def clean_up(self) -> bool:
        """Never leave a test cart behind on a real server; False if one stays."""
        if self.paid or self.visit.cart_id is None:
            return True
        if await self.visit.reset():
            self.report.ok("the test cart was deleted")
            return True
        self.report.fail("the test cart could not be deleted; it expires on its own")
        return False

    async def step(self, name: str, run: Callable[[], Awaitable[str]]) -> bool:
        """One step's line: its text, latency and requests, or why it failed (never a
        traceback)."""
        before = self.client.stats.requests
        started = time.perf_counter()
        try:
            text = await run()
        except Exception as exc:
            self.report.fail(f"{name}: {self._failure(exc)}")
            return False
        ms = (time.perf_counter() - started) * 1000
        cost = self.client.stats.requests - before
        requests = "1 request" if cost == 1 else f"{cost} requests"
        self.report.ok(f"{name}{': ' + text if text else ''} ({ms:.0f} ms, {requests})")
        return True

    def _failure(self, exc: Exception) -> str:
        from kiosk.api import StorefrontError

        if isinstance(exc, StorefrontError):
            return explain(exc, self.client.base_url, self.location_id)
        if isinstance(exc, NonsenseError):
            return str(exc)
        if isinstance(exc, KeyError | IndexError):  # LookupErrors, but of a shape, not ours
            return _unusable(exc, self.client.base_url)
        if isinstance(exc, LookupError):  # ours: no product to order, no key for the location
            return str(exc)
        return _unusable(exc, self.client.base_url)  # one line naming the server

    async def location(self) -> str:
        loc = await self.visit.load_location(self.location_id)
        self.visit.choose_location(self.location_id, loc)
        self.currency = loc.currency
        return repr(loc.restaurant_display_name)

    async def product(self) -> str:
        menus = await self.visit.menus()
        candidates = [
            p
            for m in menus.menus
            for c in m.categories
            for p in c.products
            if str(getattr(p, "availability", "available") or "available").lower() == "available"
        ]
        for candidate in candidates:
            if not candidate.modifier_ids:
                self.product_, self.selection = candidate, None
                return repr(candidate.name)
            selection = _satisfied(await self.visit.product(candidate.id))
            if selection is not None:
                self.product_, self.selection = candidate, selection
                return repr(candidate.name)
        raise LookupError("no product on the menu can be ordered now")

    async def start(self) -> str:
        await self.visit.start("pickup")
        return f"cart {self.visit.cart_id}"

    def believable(self, cart: Any, quantity: int) -> Any:
        """The cart a write answered, checked for what no real order can be."""
        if cart is None:
            raise NonsenseError(f"{self.where} answered without a cart")
        line = next((i for i in cart.items if i.product_id == self.product_.id), None)
        if line is None or line.quantity != quantity:
            raise NonsenseError(f"{self.where} answered a cart without the line just written")
        for name in ("sub_total", "order_total"):
            if getattr(cart, name) < 0:
                shown = getattr(cart, f"{name}_formatted", None) or getattr(cart, name)
                raise NonsenseError(
                    f"{self.where} says the {name.replace('_', ' ')} is {shown}: "
                    "below zero is no order"
                )
        return cart

    async def add(self) -> str:
        cart = self.believable(await self.visit.add_item(self.product_.id, 1, self.selection), 1)
        self.line = next(i.id for i in cart.items if i.product_id == self.product_.id)
        return ""

    async def quantity(self) -> str:
        from kiosk.api.money import format_money

        cart = self.believable(await self.visit.set_quantity(self.line, 2), 2)
        # In the location's currency, by the kiosk's one formatter (as the screens show it).
        return f"total {format_money(cart.order_total, self.currency or cart.currency)}"

    async def order_time(self) -> str:
        from kiosk.api import StorefrontError

        # A location that takes scheduled orders only refuses "as soon as possible": the kiosk
        # chooses the first slot offered, as the cart screen does, and says which.
        try:
            slots = await self.visit.time_intervals()
        except StorefrontError:
            slots = None  # no slots to read (v1 without them): as soon as possible
        if slots is not None and slots.require_scheduled_orders:
            first = slots.first_slot()
            if first is None:
                raise NonsenseError(f"{self.where} takes scheduled orders only but offers no slot")
            day, at = first
            await self.visit.set_order_time_later(day.value, at)
            return f"scheduled orders only: the first slot, {day.value} {at}"
        await self.visit.set_order_time_asap()
        return "as soon as possible"

    async def checkout(self) -> str:
        result = await self.visit.checkout(TEST_NAME, TEST_EMAIL)
        if not result.validation.valid or result.intent is None:
            problems = ", ".join(e.code or "?" for e in result.validation.errors) or "refused"
            raise LookupError(f"the cart was not accepted for payment ({problems})")
        self.checkout_url = result.intent.checkout_url or ""
        return "the checkout page is ready" if result.intent.checkout_url else ""

    async def payment(self) -> str:
        from kiosk.ordering.lifecycle import Phase

        await self.client.pay_test_order(self.checkout_url)
        self.paid = True
        phase = await self._poll_until_decided()
        order = self.visit.state.order
        if phase is not Phase.PAID:
            code = order.failure_code
            raise LookupError(
                f"the test payment did not complete the order (it is {phase.value}"
                + (f", {code})" if code else ")")
            )
        # The server's order number, as the done screen shows it (the order's lifecycle); a paid
        # order without one is not a passed test order.
        number = (order.order_number or "").strip()
        if not number:
            raise NonsenseError(f"{self.where} says the order is paid but gives no order number")
        return f"order number {number}"

    async def _poll_until_decided(self) -> Any:
        """The order's phase once it leaves awaiting payment, or after the last poll."""
        import asyncio

        from kiosk.api import ResponseFormatError
        from kiosk.ordering.lifecycle import Phase

        phase = self.visit.state.order.phase
        for pause in PAID_POLL_PAUSES:
            await asyncio.sleep(pause)
            try:
                await self.visit.poll()
            except ResponseFormatError as exc:
                if exc.endpoint == "order_result":  # completed, but without its number
                    raise NonsenseError(
                        f"{self.where} says the order is completed but gives no order number"
                    ) from exc
                raise
            # Paid is the order's lifecycle (2.0's order-result, v1's completed cart), not the
            # status of the cart held: on 2.0 that is not read again when the order is the same.
            phase = self.visit.state.order.phase
            if phase is not Phase.AWAITING_PAYMENT:
                break
        return phase
