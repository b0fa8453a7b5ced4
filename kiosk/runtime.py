"""The composition root: from Settings to the KioskServices a kiosk (or the doctor) is given.

This is the one place that knows both the client (kiosk.api) and the embedded backend (kiosk.demo).
It imports neither, nor httpx, at import time: the CLI imports this module before the first frame,
and those imports cost about half a second. The `*_factory` functions return an async callable for
the TUI to await after its first paint; the slow imports then run in a thread.
"""

from __future__ import annotations

import asyncio
import importlib
import time
from collections.abc import Awaitable, Callable, Coroutine, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any, TextIO

from kiosk import paths
from kiosk.config import ConfigError, Settings, check_base_url
from kiosk.diskcache import DiskCache, DiskSlot
from kiosk.logs import register_secret
from kiosk.ordering.services import KioskServices

if TYPE_CHECKING:
    from kiosk.api import StorefrontBase
    from kiosk.demo.data import Restaurant
    from kiosk.tui.app import KioskApp

ServicesFactory = Callable[[], Coroutine[Any, Any, KioskServices]]

# The embedded backend has no network address; the client still needs an origin ending in /api/v1.
# It is a loopback name, so it passes the https rule, and nothing ever resolves it.
EMBEDDED_BASE_URL = "http://embedded-demo.localhost/api/v1"
DEMO_DB_NAME = "demo.sqlite3"
DEFAULT_MENU = "lantern"  # kiosk.demo.data.DEFAULT_MENU (not imported here: it is not cheap)

# The longest wait the client may sleep by itself (seconds): a 429 asking for longer is raised at
# once, with retry_after, for a visible countdown. Not 0: today's client measures its 5xx backoff
# (0.5 s, 1 s, 2 s) against the same limit, and 0 would end those retries at the first. A wait of
# a second or less needs no countdown.
CLIENT_MAX_WAIT = 1.0

_CLIENT_MODULES = ("httpx", "kiosk.api")
_DEMO_MODULES = ("kiosk.demo.data", "kiosk.demo")
# What needs the `kiosk[demo]` extra, as its one-line message says (kiosk.install): the embedded
# backend needs Starlette; demo-server (and `serve`, whose sessions run `kiosk demo`) uvicorn too.
DEMO_EXTRA_NEEDS = "the demo backend"
# The last first screen (kiosk.tui.first_screen) is kept this long for the next start's first
# frame; an older one is not shown (the screen it would show is too likely to have changed).
FIRST_SCREEN_TTL = 7 * 24 * 3600.0


def require_demo_extra(*modules: str) -> None:
    """A ConfigError (one line, exit 2) when the `kiosk[demo]` extra is not installed, instead of
    a traceback from deep inside the backend, naming the command that adds it (kiosk.install).
    Found without importing them (cheap)."""
    from kiosk.install import require_extras

    require_extras(DEMO_EXTRA_NEEDS, ["demo"], {"demo": modules or ("starlette",)})


def shared_cache(settings: Settings) -> DiskCache | None:
    """The read cache on disk shared by the kiosks of this site (paths.cache_dir()); None when the
    folder cannot be made (the kiosk then reads everything from the server, as before)."""
    try:
        root = paths.cache_dir()
        paths.private_dir(root)
        return DiskCache(root / "storefront")
    except OSError:
        return None


def default_demo_db(settings: Settings, restaurant: Restaurant | None = None) -> Path:
    """The demo's SQLite file: the setting, else one in the data dir for each restaurant (the
    built-in default's is demo.sqlite3), so another menu never reseeds the default's carts."""
    if settings.demo_db is not None:
        return settings.demo_db
    if restaurant is None or restaurant.source == DEFAULT_MENU:
        return paths.data_dir() / DEMO_DB_NAME
    return paths.data_dir() / f"demo-{restaurant.merchant_slug}.sqlite3"


def demo_restaurant(settings: Settings) -> Restaurant:
    """The demo's restaurant (settings.demo_menu, else the built-in default), checked; a file
    that fails the check is a ConfigError naming the file and each bad value's path."""
    from kiosk.demo import data
    from kiosk.demo.menufile import MenuFileError

    try:
        return data.load(settings.demo_menu)
    except MenuFileError as exc:
        raise ConfigError(str(exc)) from None


def state_dir_for(settings: Settings) -> Path:
    # One folder a profile and a terminal (kiosk.terminal): a demo cart id is never offered to the
    # production backend, and two kiosks of one user never share an open order.
    from kiosk.terminal import terminal_dir, terminal_id_for

    return terminal_dir(settings, terminal_id_for(settings))


def dialect_for(settings: Settings, base_url: str | None = None, api_key: str | None = None) -> str:
    """Which Storefront API version to speak; the one place that decides it.

    The setting (`--api`, KIOSK_API_DIALECT) wins. Without it 2.0 is the default, as the hosted
    service speaks it; only a base URL at the legacy root (`.../api/v1`) together with a location
    API key (`api_key`, else the settings') means a merchant still on the legacy API.
    (`kiosk doctor` probes which version a server actually speaks and says whether it matches.)
    """
    if settings.api_dialect is not None:
        return settings.api_dialect
    url = (base_url or settings.base_url or "").rstrip("/")
    if url.endswith("/api/v1") and (api_key or settings.api_key is not None):
        return "v1"
    return "v2"


def demo_dialect(settings: Settings) -> Settings:
    """The demo shows merchants what their kiosk speaks: Storefront 2.0, unless `--api v1` asked
    for the legacy API (`kiosk demo` and `kiosk doctor` on the demo)."""
    return settings if settings.api_dialect is not None else settings.replace(api_dialect="v2")


def _client(
    base_url: str,
    api_key: str,
    settings: Settings,
    transport: Any = None,
    options: Mapping[str, Any] | None = None,
    disk_cache: DiskCache | None = None,
    cache_namespace: str = "",
) -> StorefrontBase:
    from kiosk.api import StorefrontClient

    # The client does not sleep through a rate limit: the Visit (writes) and the screen (reads)
    # wait where the customer sees the countdown from the first second.
    kwargs: dict[str, Any] = {
        "transport": transport,
        "menu_ttl": settings.menu_ttl,
        "max_wait": CLIENT_MAX_WAIT,
        "rate_limit": settings.rate_limit,
        **dict(options or {}),
    }
    if disk_cache is not None:
        kwargs.update(disk_cache=disk_cache, cache_namespace=cache_namespace)
    if dialect_for(settings, base_url, api_key) == "v2":
        from kiosk.api.probe import dialect_base
        from kiosk.api.v2 import StorefrontClientV2

        return StorefrontClientV2(dialect_base(base_url, "v2"), **kwargs)
    register_secret(api_key)
    return StorefrontClient(base_url, api_key, **kwargs)


def _demo_location_ids(
    settings: Settings, location: str | None, restaurant: Restaurant
) -> list[str]:
    wanted = location or settings.location
    visible = restaurant.visible_locations
    if not wanted:
        return [loc.id for loc in visible]
    found = restaurant.location(wanted)
    if found is not None:
        return [found.id]
    known = ", ".join(f"{loc.id} ({loc.slug})" for loc in visible)
    raise ConfigError(f"the demo has no location {wanted!r}; its locations are: {known}")


def build_demo_services(
    settings: Settings,
    *,
    db_path: Path | None = None,
    base_url: str | None = None,
    location: str | None = None,
    client_options: Mapping[str, Any] | None = None,
    backend_app: Any = None,
    wrap_transport: Callable[[Any], Any] | None = None,
    location_ids: list[str] | None = None,
    state_dir: Path | None = None,
    restaurant: Restaurant | None = None,
    disk_cache: DiskCache | None = None,
) -> KioskServices:
    """The kiosk on the demo backend: every demo location, each with its own client and key.

    Without `base_url` the backend runs in-process (httpx.ASGITransport over kiosk.demo.create_app,
    its SQLite file in the data dir unless `db_path`/settings.demo_db say otherwise). With
    `base_url` (a `kiosk demo-server`, e.g. http://127.0.0.1:8765/api/v1) the same over HTTP.

    Overrides (tests and benches build through here too): `backend_app`, an in-process backend
    (kiosk.demo.create_app) to use instead of one on disk (the caller closes it; `base_url` is then
    only the origin the client names);
    `wrap_transport(transport)`, a transport in front of it (faults, counts); `location_ids`;
    `state_dir` for the crash-resume file; and `restaurant` (default: demo_restaurant(settings)),
    whose keys and merchant the kiosk uses and which an in-process backend serves;
    `disk_cache`, the site's shared read cache (the CLI's; tests and benches go without).
    """
    if restaurant is None:
        restaurant = demo_restaurant(settings)
    if location_ids is None:
        location_ids = _demo_location_ids(settings, location, restaurant)
    keys = {loc.id: loc.api_key for loc in restaurant.locations}
    closers: list[Callable[[], Awaitable[None]]] = []
    transport: Any = None
    backend: Any = None
    # What names the backend where the URL does not: the embedded one's database file.
    namespace = ""
    if backend_app is not None:
        import httpx

        transport = httpx.ASGITransport(app=backend_app)
        url = base_url or EMBEDDED_BASE_URL
        backend = backend_app.state.backend
    elif base_url is None:
        require_demo_extra("starlette")
        import httpx

        from kiosk.demo import create_app

        db = db_path if db_path is not None else default_demo_db(settings, restaurant)
        paths.private_dir(db.parent)
        namespace = f"embedded:{db.resolve()}"
        app = create_app(db, menu=restaurant)
        transport = httpx.ASGITransport(app=app)
        url = EMBEDDED_BASE_URL
        backend = app.state.backend

        async def close_backend() -> None:
            backend.close()

        # Closers run last-first: the clients close before the backend they talk to.
        closers.append(close_backend)
    else:
        url = check_base_url(base_url)
    if wrap_transport is not None:
        transport = wrap_transport(transport)

    clients: dict[str, StorefrontBase] = {}
    for location_id in location_ids:
        client = _client(
            url, keys[location_id], settings, transport, client_options, disk_cache, namespace
        )
        clients[location_id] = client
        closers.append(client.aclose)
    services = KioskServices(
        settings=settings,
        clients=clients,
        location_ids=location_ids,
        merchant_slug=restaurant.merchant_slug,
        demo=True,
        state_dir=state_dir if state_dir is not None else state_dir_for(settings),
        closers=closers,
        demo_backend=backend,
    )
    from kiosk.demo_control import DemoFaults

    services.demo_controls = DemoFaults(services)
    return watched(_with_checks(services))


def _with_checks(services: KioskServices) -> KioskServices:
    """The staff screen's "run the checks": `kiosk doctor` on these services (imported when
    run; the screens never import the doctor)."""

    async def checks(out: TextIO) -> bool:
        from kiosk.doctor import run_doctor

        return await run_doctor(services, out)

    services.checks = checks
    return services


def build_remote_services(
    settings: Settings,
    *,
    client_options: Mapping[str, Any] | None = None,
    transport: Any = None,
    disk_cache: DiskCache | None = None,
) -> KioskServices:
    """The kiosk on a real Storefront backend: one location, the key from the settings."""
    check_remote_settings(settings)
    assert settings.base_url is not None and settings.location is not None
    client = _client(
        settings.base_url,
        settings.api_key.get_secret_value() if settings.api_key is not None else "",
        settings,
        transport,
        client_options,
        disk_cache,
    )
    return watched(
        _with_checks(
            KioskServices(
                settings=settings,
                clients={settings.location: client},
                location_ids=[settings.location],
                merchant_slug=settings.merchant,
                demo=False,
                state_dir=state_dir_for(settings),
                closers=[client.aclose],
            )
        )
    )


def watched(services: KioskServices) -> KioskServices:
    """The services with this terminal's counters (kiosk.metrics) wired in: each client tells
    them every request's time and outcome; the Visit is given them by the app (its observer).
    Published for Prometheus only when the `metrics` setting says where (prometheus_client is
    imported then, not before); the exporter stops when the services close."""
    from kiosk.metrics import FleetMetrics, metrics_target, start_export
    from kiosk.terminal import terminal_id_for

    settings = services.settings
    terminal = terminal_id_for(settings)
    # The clients' own clock: the last success is stamped as their answers are.
    clock = next((c.clock for c in services.clients.values()), time.time)
    metrics = FleetMetrics(terminal, clock=clock)
    metrics.watch(services.clients)
    services.metrics = metrics
    target = metrics_target(settings, terminal)
    if target is not None:
        stop = start_export(metrics, target)

        async def stop_export() -> None:
            stop()

        # Closers run last-first: the exporter stops before the clients it reads.
        services.closers.append(stop_export)
    return services


def check_remote_settings(settings: Settings) -> None:
    """What a real backend needs, each missing piece named with where to set it."""
    if settings.base_url is None:
        raise ConfigError(no_backend_message(settings))
    check_base_url(settings.base_url)
    if settings.api_key is None and dialect_for(settings) == "v1":
        raise ConfigError(
            "no API key (the legacy API needs one; Storefront 2.0 does not: --api v2): set "
            "KIOSK_API_KEY, or put api_key in the secrets file "
            "(`kiosk config show` prints where it is) with mode 0600"
        )
    if not settings.location:
        raise ConfigError(
            "no location: pass --location ID, set KIOSK_LOCATION, or set location in config.toml "
            "(keys are location-specific, so the kiosk serves the one location its key is for)"
        )


def no_backend_message(settings: Settings) -> str:
    """The one line a kiosk with no server configured says (exit 2): never the demo instead."""
    # "demo" is the default profile's name, not a choice: naming it would read as the demo.
    where = f" for profile {settings.profile!r}" if settings.profile != "demo" else ""
    return (
        f"no base URL (no backend configured{where}): `kiosk demo` starts the demo; for a "
        "Storefront pass --base-url URL --location ID, set KIOSK_BASE_URL, or set base_url in "
        "config.toml (`kiosk config path` prints where it is)"
    )


# Which backend a command runs on is decided here and nowhere else: the demo only when the
# command asks for it (`kiosk demo`, `kiosk doctor --demo`, `--server URL` of either), never
# inferred from the settings. A base URL, loopback or not, with or without a key, is the server
# the staff member named (a local 2.0 server, a tunnel to staging): the kiosk talks to it.
def build_services(
    settings: Settings,
    *,
    demo: bool = False,
    server: str | None = None,
    client_options: Mapping[str, Any] | None = None,
) -> KioskServices:
    """The demo (`demo`, or a demo-server at `server`) or the configured remote backend."""
    if demo or server is not None:
        if server is not None:
            check_base_url(server)
        return build_demo_services(
            demo_dialect(settings.replace(base_url=server)),
            base_url=server,
            client_options=client_options,
        )
    return build_remote_services(settings, client_options=client_options)


def make_app(
    settings: Settings | None = None,
    *,
    services: KioskServices | None = None,
    factory: ServicesFactory | None = None,
    **app_options: Any,
) -> KioskApp:
    """The one way to build the kiosk app (the CLI, `serve`'s sessions, benches and tests).

    Give ready `services` (tests: built with build_demo_services and its overrides), or a
    `factory` the app awaits after its first frame (the CLI); with neither, the factory of the
    configured backend. `app_options` go to KioskApp (injected clocks, store options)."""
    from kiosk.tui.app import KioskApp

    if settings is None:
        settings = services.settings if services is not None else Settings()
    if services is None and factory is None:
        factory = services_factory(settings)
    return KioskApp(services, services_factory=factory, settings=settings, **app_options)


def _preload(modules: tuple[str, ...]) -> None:
    for name in modules:
        importlib.import_module(name)


def services_factory(
    settings: Settings,
    *,
    demo: bool = False,
    db_path: Path | None = None,
    base_url: str | None = None,
    location: str | None = None,
) -> ServicesFactory:
    """An async callable building the services, for the TUI to await after its first frame.

    The slow imports (httpx, pydantic models, Starlette, SQLite) run in a thread so the event loop
    keeps drawing; the objects are then built on the loop's thread. Configuration problems found
    cheaply (a missing key, URL or location) are raised now, before any UI appears.
    `demo` (the command asked for the demo; see build_services) with `base_url`, a demo-server.
    """
    use_demo = demo
    if not use_demo:
        check_remote_settings(settings)
    elif base_url is not None:
        check_base_url(base_url)
    if use_demo and base_url is None:
        # Before any UI: the embedded backend runs on Starlette (a demo-server elsewhere does not
        # need it here).
        require_demo_extra("starlette")
    # A merchant's own menu is read and checked now: a bad file stops the demo before any UI.
    # (The built-in default is loaded later, with the other slow imports.)
    restaurant = demo_restaurant(settings) if use_demo and settings.demo_menu else None
    disk = shared_cache(settings)

    async def factory() -> KioskServices:
        modules = _CLIENT_MODULES + (_DEMO_MODULES if use_demo else ())
        await asyncio.to_thread(_preload, modules)
        if use_demo:
            # Reading and checking the restaurant file is slow too (pydantic, TOML).
            chosen = restaurant or await asyncio.to_thread(demo_restaurant, settings)
            return build_demo_services(
                settings,
                db_path=db_path,
                base_url=base_url,
                location=location,
                restaurant=chosen,
                disk_cache=disk,
            )
        return build_remote_services(settings, disk_cache=disk)

    slot = None
    if disk is not None:
        # The last first screen of a kiosk set up like this one: which backend (URL, dialect,
        # embedded database, menu), which location(s). Shown in the next start's first frame.
        key = (
            "first-screen",
            settings.profile,
            dialect_for(settings, base_url or settings.base_url),
            (base_url or settings.base_url or EMBEDDED_BASE_URL)
            if use_demo
            else str(settings.base_url),
            str(db_path or settings.demo_db or "") if use_demo else "",
            str(settings.demo_menu or "") if use_demo else "",
            str(location or settings.location or ""),
        )
        slot = DiskSlot(disk, key, ttl=FIRST_SCREEN_TTL)
    return StartingFactory(factory, slot)


class StartingFactory:
    """The services factory the CLI hands the app, with where its first screen is kept
    (`first_screen`, a DiskSlot, or None): the app reads it for its first frame."""

    def __init__(
        self,
        factory: Callable[[], Awaitable[KioskServices]],
        first_screen: DiskSlot | None = None,
    ) -> None:
        self._factory = factory
        self.first_screen = first_screen

    def __call__(self) -> Coroutine[Any, Any, KioskServices]:
        async def build() -> KioskServices:
            return await self._factory()

        return build()
