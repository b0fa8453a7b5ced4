"""Journeys through the real kiosk against the strict Storefront 2.0 server, in-process.

The real KioskApp (kiosk.runtime.make_app over build_remote_services, as the CLI builds it for a
2.0 base URL) talks through httpx.ASGITransport to tests/conformance/vendor_server.py: no
network, no demo. One virtual clock (`ManualClock`) is the server's clock, the client's (rate
budget, caches, retry sleeps), the CartStore's (payment polls, countdowns, hand-off expiry) and the
Visit's wall clock: time moves only when the journey says so (`advance`, `wait_for`), so a 5-minute
payment wait costs no real time and the screen can be read at any moment of it.

The app's own `clock` (idle prompt, rate-limit countdowns of reads, the done screen's return to the
start, PIN lockout) is the same virtual clock. Textual drives those checks with real-time interval
timers; whenever the journey moves the clock, the kiosk's own timers (callbacks in kiosk.*) are
fired once, as their next tick would, so what they show follows virtual time.

Usage (see tests/journeys/test_example.py):

    async def test_something(journey: JourneyFactory) -> None:
        async with journey(size=(80, 24)) as j:
            await j.press("1")                      # takeout on the welcome screen
            ...
            j.pay()                                  # the phone pays the current cart
            await j.wait_for(lambda: j.screen_name() == "DoneScreen", within=30)
            assert "H101" in j.screen_text()
        # on leaving: the server recorded no contract breach (app.state.violations == [])

Server-side events, in the middle of an order (tests/conformance/vendor_server.py's docstring
gives each refusal's status, code and message; `location` defaults to the kiosk's location):

    j.pay() / j.decline() / j.fail(code)     # the hosted page, by cart or `handoff_id=` (an
                                             # earlier hand-off stays payable until it expires)
    j.expire_cart(cart_id=None)              # the cart expires now (409 CART_IMMUTABLE after)
    j.sell_out(product_id)                   # sold out: adds and hand-offs refused
    j.restock(product_id)
    j.switch_off(way) / j.switch_on(way)     # way: takeout | table_side | delivery | room_service
    j.take_slots(*times, day=None, after=None)  # -> the day's slots left
    j.add_code(code, percent_off, minimum=None)  # BIG100 is seeded (10% off from 100.00)

Each but `expire_cart` also takes `location=` (keyword; an id or slug).

A second location with other rules (Sydney, AUD, table and delivery only, tips off, a 2-to-3
choice, BIG100): `start_journey(tmp_path, location=BONDI_LOCATION_ID)` (its seed by default),
or `seed_with(at=BONDI_LOCATION_ID, **changes)`.
"""

from __future__ import annotations

import asyncio
import heapq
import inspect
import io
import itertools
import shutil
from collections.abc import AsyncIterator, Callable, Iterable
from contextlib import AsyncExitStack, asynccontextmanager
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime, timedelta
from decimal import Decimal
from pathlib import Path
from typing import Any

import httpx
from rich.console import Console
from textual.pilot import Pilot

from kiosk.config import Settings
from kiosk.ordering.services import KioskServices
from kiosk.runtime import build_remote_services, make_app
from kiosk.tui.app import KioskApp, resume_file
from tests.conformance.vendor_server import (
    BONDI_LOCATION_ID,
    Faults,
    Seed,
    harbour_and_bondi,
    harbour_noodles,
    make_vendor_app,
)

BASE_URL = "http://127.0.0.1/api/v1/storefront"
LOCATION_ID = "66a1f0c2b3d4e5f60718293a"  # the strict server's seed location (Harbour Noodles)
# Monday 2 March 2026, 16:00 UTC (16:00 in Bristol: the seed location is open around the clock).
START = datetime(2026, 3, 2, 16, 0, tzinfo=UTC).timestamp()
SIZES = ((80, 24), (120, 40))
# Workers that run as long as the customer may take: never waited for as a whole.
LONG_RUNNING = frozenset({"payment-wait", "reset"})


# ---------------------------------------------------------------------------------------------
# Time


class ManualClock:
    """Virtual epoch seconds shared by the server and the kiosk. `sleep(s)` waits until the
    journey moves the clock past now + s (`Journey.advance`); nothing else moves it."""

    def __init__(self, start: float = START) -> None:
        self.now = start
        self._sleepers: list[tuple[float, int, asyncio.Future[None]]] = []
        self._seq = itertools.count()

    def __call__(self) -> float:
        return self.now

    def utc(self) -> datetime:
        return datetime.fromtimestamp(self.now, UTC)

    async def sleep(self, seconds: float) -> None:
        if seconds <= 0:
            await asyncio.sleep(0)
            return
        future: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        heapq.heappush(self._sleepers, (self.now + seconds, next(self._seq), future))
        await future

    def next_deadline(self) -> float | None:
        """When the earliest sleeper still waiting wakes (None: nobody sleeps)."""
        while self._sleepers and self._sleepers[0][2].done():
            heapq.heappop(self._sleepers)  # cancelled (its task ended)
        return self._sleepers[0][0] if self._sleepers else None

    @property
    def sleeping(self) -> int:
        return sum(1 for *_, f in self._sleepers if not f.done())

    def wake_due(self) -> int:
        """Wake every sleeper due by now; how many."""
        woken = 0
        while (deadline := self.next_deadline()) is not None and deadline <= self.now:
            _, _, future = heapq.heappop(self._sleepers)
            future.set_result(None)
            woken += 1
        return woken


# ---------------------------------------------------------------------------------------------
# A process that can be killed


class KillableTransport(httpx.AsyncBaseTransport):
    """The kiosk process's network: after `kill()` nothing it sends reaches the server (a dead
    process sends nothing), so the app's shutdown cannot tidy up behind the test's back."""

    def __init__(self, inner: httpx.AsyncBaseTransport) -> None:
        self.inner = inner
        self.killed = False
        self.sent: list[str] = []

    def kill(self) -> None:
        self.killed = True

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        if self.killed:
            raise httpx.ConnectError("the kiosk process was killed", request=request)
        self.sent.append(f"{request.method} {request.url.path}")
        return await self.inner.handle_async_request(request)


def _snapshot(folder: Path) -> dict[Path, bytes]:
    if not folder.exists():
        return {}
    return {p: p.read_bytes() for p in folder.rglob("*") if p.is_file()}


def _restore(folder: Path, files: dict[Path, bytes]) -> None:
    """The folder exactly as it was at the kill (what a shutdown wrote there is undone)."""
    if folder.exists():
        shutil.rmtree(folder)
    for path, data in files.items():
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)


# ---------------------------------------------------------------------------------------------
# The journey


class JourneyError(AssertionError):
    """The journey could not go on (a screen or a state did not come in the time allowed)."""


@dataclass
class Journey:
    """One kiosk (restartable) on one strict 2.0 server, on one virtual clock."""

    tmp_path: Path
    size: tuple[int, int]
    server: Any  # the Starlette app of tests/conformance/vendor_server.py
    clock: ManualClock
    location: str = LOCATION_ID
    settings_changes: dict[str, Any] = field(default_factory=dict)
    # Settle moves the clock by itself (up to this many seconds a call) while a worker the
    # customer waits on is asleep on it (a retry's back-off, a rate-limit wait). Set 0 to watch
    # a wait second by second with `advance`.
    auto_advance: float = 30.0
    check_violations: bool = True
    app: KioskApp = field(init=False)
    pilot: Pilot[Any] = field(init=False)
    services: KioskServices = field(init=False)
    transport: KillableTransport = field(init=False)
    runs: int = field(init=False, default=0)
    _ticked_at: float = field(init=False, default=0.0)
    _stack: AsyncExitStack = field(init=False)

    # -- the kiosk process ------------------------------------------------------------------------

    @property
    def state_dir(self) -> Path:
        """This terminal's state folder (the resume file lives here), kept across restarts."""
        return self.tmp_path / "state"

    @property
    def resume_file(self) -> Path:
        path = resume_file(self.state_dir)
        assert path is not None
        return path

    def _build(self) -> KioskApp:
        settings = Settings(
            profile="production",
            api_dialect="v2",
            base_url=BASE_URL,
            location=self.location,
            **self.settings_changes,
        )
        self.transport = KillableTransport(httpx.ASGITransport(app=self.server))
        self.services = build_remote_services(
            settings,
            client_options={"clock": self.clock, "sleep": self.clock.sleep},
            transport=self.transport,
        )
        self.services.state_dir = self.state_dir
        return make_app(
            services=self.services,
            clock=self.clock,
            wall_clock=self.clock,
            store_options={"sleep": self.clock.sleep},
        )

    async def _launch(self) -> None:
        self._stack = AsyncExitStack()
        self.app = self._build()
        self.pilot = await self._stack.enter_async_context(self.app.run_test(size=self.size))
        self.runs += 1
        await self.settle()

    async def _stop(self) -> None:
        await self._stack.aclose()
        await self.services.aclose()

    async def restart(self) -> None:
        """kill -9 and start again: the running kiosk sends nothing more, its state folder is
        kept exactly as it was at the kill (nothing a shutdown would write), and a new KioskApp
        starts on the same folder (the same resume file) and the same server."""
        kept = _snapshot(self.state_dir)
        self.transport.kill()
        self.app.keep_cart_on_quit = True  # a crash never runs the quit
        await self._stop()
        _restore(self.state_dir, kept)
        await self._launch()

    # -- waiting ----------------------------------------------------------------------------------

    def _busy(self) -> list[Any]:
        return [w for w in self.app.workers if not w.is_finished and w.group not in LONG_RUNNING]

    def _signature(self) -> tuple[Any, ...]:
        server = self.server.state.server
        return (
            len(server.log),
            self.clock.sleeping,
            self.clock.now,
            len(self.app.screen_stack),
            type(self.app.screen).__name__,
            tuple(id(w) for w in self._busy()),
        )

    async def _tick_kiosk_timers(self) -> None:
        """The clock moved: fire each running interval timer the kiosk set (idle check, a
        countdown, a rate-limit wait), as its next real tick would. They read the clock."""
        if self.clock.now == self._ticked_at:
            return
        self._ticked_at = self.clock.now
        pumps: list[Any] = [self.app]
        for screen in self.app.screen_stack:
            pumps += [screen, *screen.walk_children(with_self=False)]
        for pump in pumps:
            for timer in list(getattr(pump, "_timers", ())):
                callback = timer._callback
                module = getattr(callback, "__module__", "") or ""
                if timer._repeat is None and module.startswith("kiosk.") and timer._active.is_set():
                    result = callback()
                    if inspect.isawaitable(result):
                        await result

    async def settle(self, rounds: int = 400) -> None:
        """Until the kiosk is quiet: its messages handled, its workers finished or asleep on the
        virtual clock. Asleep with a customer waiting (not the payment wait): the clock moves to
        the next wake-up, up to `auto_advance` seconds in all."""
        quiet = 0
        moved = 0.0
        previous = None
        await self._tick_kiosk_timers()
        await self.pilot.pause(0)
        for _ in range(rounds):
            # Plain yields (a Pilot pause walks every widget and redraws: 10x the cost).
            await asyncio.sleep(0.001)
            signature = self._signature()
            quiet = quiet + 1 if signature == previous else 0
            previous = signature
            busy = self._busy()
            if quiet < (10 if busy else 3):
                continue
            if not busy:
                await self.pilot.pause(0)  # the screen drawn as it now is
                if self._signature() == previous:
                    return
                quiet = 0
                continue
            deadline = self.clock.next_deadline()
            if deadline is None or moved + (deadline - self.clock.now) > self.auto_advance:
                await self.pilot.pause(0)
                return  # waiting on something else (a dialog?): the journey decides
            moved += deadline - self.clock.now
            self.clock.now = deadline
            self.clock.wake_due()
            await self._tick_kiosk_timers()
            quiet = 0
        raise JourneyError(f"the kiosk did not settle; busy: {[w.group for w in self._busy()]}")

    async def advance(self, seconds: float) -> None:
        """Move the virtual clock on by `seconds`, waking each sleeper at its own moment (so a
        poll every 2 s over 10 s is five polls) and letting the kiosk act after each."""
        target = self.clock.now + seconds
        while (deadline := self.clock.next_deadline()) is not None and deadline <= target:
            self.clock.now = max(self.clock.now, deadline)
            self.clock.wake_due()
            await self.settle()
        self.clock.now = target
        await self.settle()

    async def wait_for(
        self, test: Callable[[], bool], *, within: float = 60.0, what: str = ""
    ) -> float:
        """Move the clock on, one wake-up at a time, until `test()` holds; at most `within`
        virtual seconds. Returns the virtual seconds it took."""
        started = self.clock.now
        await self.settle()
        while not test():
            if self.clock.now - started >= within:
                raise JourneyError(
                    f"waited {within:g} virtual s for {what or test}; on {self.screen_name()}:\n"
                    + self.screen_text()
                )
            deadline = self.clock.next_deadline()
            step = 1.0 if deadline is None else max(0.0, deadline - self.clock.now)
            await self.advance(min(step, started + within - self.clock.now) or 0.001)
        return self.clock.now - started

    async def wait_for_screen(self, name: str, *, within: float = 60.0) -> float:
        return await self.wait_for(
            lambda: self.screen_name() == name, within=within, what=f"screen {name}"
        )

    async def wait_for_text(self, text: str, *, within: float = 60.0) -> float:
        return await self.wait_for(
            lambda: text in self.screen_text(), within=within, what=repr(text)
        )

    # -- the customer -----------------------------------------------------------------------------

    async def press(self, *keys: str) -> None:
        """Keys in one burst, then settle."""
        await self.pilot.press(*keys)
        await self.settle()

    async def type(self, selector: str, text: str, then: str | None = None) -> None:
        """Text into an input as a paste would put it (one Changed message), then `then`."""
        from textual.widgets import Input

        field_ = self.app.screen.query_one(selector, Input)
        field_.focus()
        field_.value = ""
        field_.insert_text_at_cursor(text)
        await self.settle()
        if then:
            await self.press(then)

    def screen_name(self) -> str:
        return type(self.app.screen).__name__

    def screen_text(self) -> str:
        """What the terminal shows now (the top screen over what shows through from below), as
        plain text, one line a row: what the customer reads."""
        width, height = self.app.size
        console = Console(
            width=width,
            height=height,
            file=io.StringIO(),
            force_terminal=True,
            color_system="truecolor",
            record=True,
            legacy_windows=False,
            safe_box=False,
        )
        render = self.app.screen._compositor.render_update(
            full=True, screen_stack=self.app._background_screens
        )
        console.print(render)
        return console.export_text()

    def walk(self, *, within: float = 60.0, **options: Any) -> Any:
        """The benches' key-driven walk (tests/bench/tui_walk.py: start, add_line, fill_cart,
        edit_cart, checkout, ...) on this kiosk, with the strict server's standard order, its
        waits in virtual time: a step waits up to `within` virtual seconds, moving the clock
        one wake-up at a time (a retry's back-off, a rate-limit wait). For paying use `pay` +
        `wait_for_screen("DoneScreen")`, not Walk.pay."""
        from tests.bench.test_tui_requests_foreign import HARBOUR_PLAN
        from tests.bench.tui_walk import Walk

        journey = self

        class JourneyWalk(Walk):
            async def settle(self) -> None:
                await journey.settle()

            async def until(self, what: str, test: Callable[[], bool]) -> None:
                await journey.wait_for(test, within=within, what=what)

        return JourneyWalk(self.app, self.pilot, plan=options.pop("plan", HARBOUR_PLAN), **options)

    # -- the server -------------------------------------------------------------------------------

    @property
    def store(self) -> Any:
        return self.server.state.store

    @property
    def faults(self) -> Faults:
        return self.server.state.server.faults  # type: ignore[no-any-return]

    def set_faults(
        self,
        *,
        script: Iterable[str] = (),
        rate_limited: int | None = None,
        **rates: float,
    ) -> Faults:
        """Faults from now on: `script` forces the next cart writes' outcomes (ok | error | drop
        | stall); `rate_limited=N` answers the next N requests 429; other keywords set
        Faults' fields (error_rate, drop_rate, stall_rate, stall_seconds, stall_delay)."""
        faults = self.faults
        for name, value in rates.items():
            if not hasattr(faults, name):
                raise TypeError(f"Faults has no {name}")
            setattr(faults, name, value)
        faults.add_script(*script)
        if rate_limited is not None:
            faults.rate_limited = rate_limited
        return faults

    @property
    def cart_id(self) -> str:
        """The cart the kiosk is on now."""
        cart_id = self.app.visit.state.cart_id
        if cart_id is None:
            raise JourneyError(f"the kiosk has no cart (on {self.screen_name()})")
        return cart_id

    def server_cart(self, cart_id: str | None = None) -> dict[str, Any]:
        """The cart as the server answers it (GET shape), the kiosk's current one by default."""
        from tests.conformance.vendor_server import cart_body

        cart = self.store.cart(cart_id or self.cart_id)
        if cart is None:
            raise JourneyError(f"the server has no cart {cart_id}")
        return cart_body(cart)

    def order_result(self, cart_id: str | None = None) -> dict[str, Any]:
        """What order-result would answer now, without placing the order (unlike a poll)."""
        cart = self.store.cart(cart_id or self.cart_id)
        if cart.result == "completed":
            return {"state": "completed", "order": cart.order}
        if cart.result == "failed":
            return {"state": "failed", "code": cart.failure_code}
        return {"state": cart.result}

    def orders(self) -> list[dict[str, Any]]:
        """Every order the server placed, oldest first."""
        return list(self.store.orders.values())

    def handoffs(self, cart_id: str | None = None) -> list[Any]:
        """The cart's hand-offs (id, url, expires_at), oldest first."""
        return list(self.store.handoffs_of(cart_id or self.cart_id))

    def pay(self, cart_id: str | None = None, *, handoff_id: str | None = None) -> None:
        """The customer's phone pays on the hosted page: by `handoff_id`, else the cart's newest
        hand-off (the kiosk's current cart by default). Refused (PaymentRefused) as the server
        refuses it: an expired hand-off, a deleted or expired cart, a cart already paid."""
        self._payment("pay", cart_id, handoff_id)

    def decline(self, cart_id: str | None = None, *, handoff_id: str | None = None) -> None:
        """The card is declined: order-result says failed / PAYMENT_DECLINED."""
        self._payment("decline", cart_id, handoff_id)

    def fail(self, code: str, cart_id: str | None = None, *, handoff_id: str | None = None) -> None:
        """The payment fails with `code`: order-result says failed / code."""
        self._payment("fail", cart_id, handoff_id, code)

    def _payment(
        self, action: str, cart_id: str | None, handoff_id: str | None, code: str = ""
    ) -> None:
        store = self.store
        if handoff_id is not None:
            handoff = store.handoffs[handoff_id]
            cart_id = handoff.cart_id
        else:
            cart_id = cart_id or self.cart_id
            handoff = store.latest_handoff(cart_id)
        if action == "pay":
            store.pay(cart_id, handoff)
        elif action == "decline":
            store.decline(cart_id, handoff)
        else:
            store.fail_payment(cart_id, code, handoff)

    # -- server-side events -------------------------------------------------------------------

    def _location_id(self, location: str | None) -> str:
        found = self.store.location_by_slug_or_id(location or self.location)
        if found is None:
            raise JourneyError(f"the server has no location {location or self.location}")
        return str(found.id)

    def expire_cart(self, cart_id: str | None = None) -> None:
        """The cart (the kiosk's current one by default) expires now on the server."""
        self.store.expire_cart(cart_id or self.cart_id)

    def sell_out(self, product_id: str, *, location: str | None = None) -> None:
        """The product sells out at the location (the kiosk's by default)."""
        self.store.sell_out(product_id, self._location_id(location))

    def restock(self, product_id: str, *, location: str | None = None) -> None:
        self.store.restock(product_id, self._location_id(location))

    def switch_off(self, way: str, *, location: str | None = None) -> None:
        """A way to order (the API's word: takeout, table_side, delivery, room_service) is
        switched off at the location."""
        self.store.switch(way, False, self._location_id(location))

    def switch_on(self, way: str, *, location: str | None = None) -> None:
        self.store.switch(way, True, self._location_id(location))

    def take_slots(
        self,
        *times: str,
        day: str | None = None,
        after: str | None = None,
        location: str | None = None,
    ) -> list[str]:
        """Slots ("HH:MM") of `day` (ISO date; today at the location by default) are taken,
        and with `after` every slot later than it that day. Returns the day's slots left."""
        return list(
            self.store.take_slots(
                times, day=day, after=after, location_id=self._location_id(location)
            )
        )

    def add_code(
        self,
        code: str,
        percent_off: float | str,
        minimum: str | None = None,
        *,
        location: str | None = None,
    ) -> None:
        """A discount code `percent_off` off the subtotal, valid from a subtotal of `minimum`
        (a decimal string in major units, e.g. "100.00")."""
        self.store.add_code(
            code,
            Decimal(str(percent_off)) / 100,
            Decimal(minimum) if minimum is not None else None,
            self._location_id(location),
        )

    @property
    def violations(self) -> list[str]:
        """The contract breaches the server recorded (must be empty at the end of a journey)."""
        return list(self.server.state.violations)

    @property
    def refusals(self) -> list[str]:
        """Business refusals (documented errors a client may meet)."""
        return list(self.server.state.refusals)

    def requests(self) -> list[tuple[str, str, int]]:
        """(method, path, status) of every answer the server gave (-1 dropped, -2 stalled)."""
        return list(self.server.state.server.log)


JourneyFactory = Callable[..., Any]


def seed_with(*, at: str = LOCATION_ID, **location_changes: Any) -> Seed:
    """The strict server's seed with a location changed, e.g.
    `seed_with(require_scheduled=True)` (a scheduled-only location) or
    `seed_with(closed_reason="Closed for a private event")` (closed today). `at=
    BONDI_LOCATION_ID`: the seed with both locations, Bondi changed."""
    seed = harbour_noodles() if at == LOCATION_ID else harbour_and_bondi()
    index = next(i for i, loc in enumerate(seed.locations) if at in (loc.id, loc.slug))
    seed.locations[index] = replace(seed.locations[index], **location_changes)
    return seed


@asynccontextmanager
async def start_journey(
    tmp_path: Path,
    *,
    size: tuple[int, int] = (80, 24),
    seed: Seed | None = None,
    faults: Faults | None = None,
    start: float = START,
    cart_lifetime: timedelta = timedelta(hours=24),
    handoff_lifetime: timedelta = timedelta(minutes=15),
    location: str = LOCATION_ID,
    settings: dict[str, Any] | None = None,
    check_violations: bool = True,
    **server_options: Any,
) -> AsyncIterator[Journey]:
    """A kiosk of `size` on a fresh strict server (its `seed`, `faults`, lifetimes; other
    make_vendor_app keywords pass through), started and settled on its first screen. On leaving,
    the server must have recorded no contract breach and no answer of its own off the document
    (unless `check_violations=False`)."""
    clock = ManualClock(start)
    if seed is None and location == BONDI_LOCATION_ID:
        seed = harbour_and_bondi()  # the seed that has it
    server = make_vendor_app(
        seed,
        faults,
        clock=clock.utc,
        cart_lifetime=cart_lifetime,
        handoff_lifetime=handoff_lifetime,
        **server_options,
    )
    journey = Journey(
        tmp_path,
        size,
        server,
        clock,
        location=location,
        settings_changes=dict(settings or {}),
        check_violations=check_violations,
    )
    await journey._launch()
    try:
        yield journey
    finally:
        await journey._stop()
    if check_violations:
        assert server.state.violations == [], server.state.violations
        assert server.state.answer_errors == [], server.state.answer_errors
