"""The `kiosk` command.

    kiosk [run] [--base-url URL] [--location ID]   the kiosk on the configured backend
    kiosk demo [--location ID] [--db PATH] [--server URL] [--menu NAME|FILE]
    (both take --terminal-id NAME: which terminal this is; one kiosk a terminal, see kiosk.terminal)
    kiosk demo-server [--host H] [--port N] [--db PATH] [--menu NAME|FILE] [--allow-remote]
    kiosk doctor [--demo | --server URL] [--test-order] [--probe-all]
                                               check key, location, menus, rate budget, a cart
    kiosk config path|show                     where the config is; what is in effect (key redacted)
    kiosk set-pin [--stdin]                    set the staff PIN (stored hashed)
    kiosk serve [--port N] [--public-url URL]  `kiosk demo` in a browser (textual-serve, 127.0.0.1)
    kiosk install-files [--write DIR]          the sshd block and systemd unit of a counter
    kiosk out-of-order on|off|status [--terminal-id NAME | --all]
                                               close a terminal to customers, or open it again

Common flags: --profile NAME, --log-level LEVEL; run, demo and serve also take --kiosk. Exit
status: 0 ok, 1 a failed check or run, 2 a usage or configuration error (one line on stderr, no
traceback).

Imports here stay cheap: Textual, httpx and the demo backend load only when a command needs them.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any, NoReturn

if TYPE_CHECKING:
    from kiosk.config import LoadedSettings, Settings
    from kiosk.ordering.services import KioskServices
    from kiosk.runtime import ServicesFactory

PROG = "kiosk"
DEFAULT_DEMO_PORT = 8765
DEFAULT_SERVE_PORT = 8000


class UsageError(Exception):
    """A command-line mistake: printed as one line, exit status 2."""


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:
        # One line, no usage dump: staff read it on a counter terminal.
        self.exit(2, f"{self.prog}: error: {message} (see {self.prog} --help)\n")


def _common(parser: argparse.ArgumentParser) -> None:
    # SUPPRESS: a subcommand's parser must not overwrite what was given before the subcommand.
    s = argparse.SUPPRESS
    parser.add_argument("--profile", metavar="NAME", default=s, help="config profile to use")
    parser.add_argument(
        "--log-level",
        metavar="LEVEL",
        default=s,
        type=str.upper,
        choices=["DEBUG", "INFO", "WARNING", "ERROR", "CRITICAL"],
        help="log file level (default INFO)",
    )


def _terminal(parser: argparse.ArgumentParser) -> None:
    # Only the commands that run a kiosk have kiosk mode and a terminal.
    parser.add_argument(
        "--kiosk",
        dest="kiosk_mode",
        action="store_true",
        default=argparse.SUPPRESS,
        help="kiosk mode: quit/suspend keys are disabled; staff leave with the PIN",
    )
    parser.add_argument(
        "--terminal-id",
        metavar="NAME",
        default=argparse.SUPPRESS,
        help="which terminal this kiosk is (its lock and crash-resume file); default: derived "
        "from the host and the session",
    )
    # Accessibility (issue 13 F): the colours, and large text as each customer's starting point.
    parser.add_argument(
        "--theme",
        choices=["default", "high-contrast"],
        default=argparse.SUPPRESS,
        help="colours: default, or high-contrast (black and white, states marked in text)",
    )
    parser.add_argument(
        "--large-text",
        dest="large_text",
        action="store_true",
        default=argparse.SUPPRESS,
        help="start each order in large-text mode (customers can switch it on the welcome screen)",
    )
    parser.add_argument(
        "--help-command",
        metavar="COMMAND",
        default=argparse.SUPPRESS,
        help="run when a customer asks for help (F1), with the terminal id as its last argument",
    )
    parser.add_argument(
        "--speech",
        action="store_true",
        default=argparse.SUPPRESS,
        help="speak each screen, the focused row and what changed (speech_command; "
        "docs/accessibility.md)",
    )


def _api(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--api",
        dest="api_dialect",
        choices=["v1", "v2"],
        default=argparse.SUPPRESS,
        help="Storefront API version: v2 (2.0, the hosted API today) or v1 (legacy API keys); "
        "default: what the base URL says (/api/v1/storefront is 2.0)",
    )


def _backend(parser: argparse.ArgumentParser) -> None:
    _api(parser)
    s = argparse.SUPPRESS
    parser.add_argument(
        "--base-url", metavar="URL", default=s, help="Storefront base URL (/api/v1)"
    )
    parser.add_argument("--location", metavar="ID", default=s, help="location id or slug")


# Every command's --help ends with examples: staff copy them.
EXAMPLES = {
    None: """examples:
  kiosk demo                                   try it on the embedded demo backend
  kiosk --base-url https://storefront.example/api/v1/storefront --location my-location --kiosk
  kiosk doctor                                 check this kiosk before opening

Without a base URL (flag, KIOSK_BASE_URL or config.toml) `kiosk` says so and exits 2: the demo
runs only from `kiosk demo`.

The API key comes from KIOSK_API_KEY or the secrets file, never from a flag.""",
    "run": """examples:
  kiosk run --base-url https://storefront.example/api/v1 --location my-location
  kiosk run --kiosk --terminal-id counter-1    a counter terminal in kiosk mode""",
    "demo": """examples:
  kiosk demo                                   both demo locations, backend in this process
  kiosk demo --location lantern-westside --kiosk
  kiosk demo --server http://127.0.0.1:8765/api/v1   several terminals on one demo-server
  kiosk demo --menu kowhai                     the other built-in restaurant (NZD, dine-in only)
  kiosk demo --lan                             the payment QR code opens on a phone on this network
  kiosk demo --menu ./my-cafe.toml             a merchant's own menu, for a sales demo

--menu takes a built-in restaurant (lantern, the default; kowhai) or a restaurant file (TOML; the
format is in kiosk/demo/README.md). The file is checked before the demo starts: a bad value is
named with its path, e.g. `my-cafe.toml: products[3].price: Input should be greater than or equal
to 0`, and nothing starts. With --server, give the same --menu as the demo-server (its keys).""",
    "demo-server": """examples:
  kiosk demo-server                            on 127.0.0.1:8765; prints the URL and demo keys
  kiosk demo-server --port 9000 --db /tmp/training.sqlite3
  kiosk demo-server --menu ./my-cafe.toml      serve a merchant's own menu (checked first)

--menu: a built-in restaurant (lantern, the default; kowhai) or a restaurant file (TOML; see
kiosk/demo/README.md). Each restaurant gets its own database unless --db is given.""",
    "doctor": """examples:
  kiosk doctor                                 the configured backend and locations
  kiosk doctor --base-url https://storefront.example/api/v1/storefront --location my-location
  kiosk doctor --test-order --base-url https://storefront.example/api/v1/storefront --location L
  kiosk doctor --demo --test-order --location lantern-downtown   a whole (paid) order on the demo
  kiosk doctor --server http://127.0.0.1:8765/api/v1             a `kiosk demo-server`

Only the API version this kiosk speaks is asked (--probe-all asks the other one too).""",
    "config": """examples:
  kiosk config path                            where config.toml is
  kiosk config show                            every setting in effect and where it came from""",
    "set-pin": """examples:
  kiosk set-pin                                asks twice, stores a salted hash
  echo 2468 | kiosk set-pin --stdin""",
    "install-files": """examples:
  kiosk install-files                          print the sshd block and the systemd unit
  kiosk install-files --write /etc/kiosk       write them there (as root), then follow their notes
  kiosk install-files --counter counter-2 --write /etc/kiosk
                                               a second counter's sshd block, and its steps

sshd_kiosk.conf: the SSH ForceCommand block for remote counters (add it to sshd_config, `sshd -t`).
kiosk-console@.service: the kiosk on a local screen's virtual console, restarted if it stops.""",
    "out-of-order": """examples:
  kiosk out-of-order on --terminal-id counter-1    customers see "This kiosk is closed"
  kiosk out-of-order off --terminal-id counter-1   open again (a kept order is still there)
  kiosk out-of-order status --all                  which terminals of this profile are closed
  kiosk --profile demo out-of-order on --all       every demo terminal

A running kiosk sees the change within a second; a closed terminal stays closed after a restart.
Staff can also switch it on the staff screen (F12, behind the PIN).""",
    "serve": """examples:
  kiosk serve                                  http://127.0.0.1:8000 (reach it over an SSH tunnel)
  kiosk serve --port 8080 --location lantern-downtown""",
}


def _sub(sub: Any, name: str, help: str) -> argparse.ArgumentParser:
    parser: argparse.ArgumentParser = sub.add_parser(
        name,
        help=help,
        description=help[:1].upper() + help[1:] + ".",
        epilog=EXAMPLES[name],
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    _common(parser)
    return parser


_WINDOWS = {"s": 1, "sec": 1, "min": 60, "m": 60, "h": 3600, "hour": 3600}


def _rate_limit(text: str) -> tuple[int | None, float]:
    """`N/10min`, `N/1h`, `N/30s`... as (requests, window seconds); `off` as (None, 600)."""
    import re

    if text.strip().lower() == "off":
        return None, 600.0
    match = re.fullmatch(r"\s*(\d+)\s*/\s*(\d*)\s*([a-z]+)\s*", text.lower())
    if match is None or match.group(3) not in _WINDOWS or int(match.group(1)) < 1:
        raise argparse.ArgumentTypeError(f"{text!r} is not N/<window> (e.g. 200/10min) or off")
    window = int(match.group(2) or 1) * _WINDOWS[match.group(3)]
    if window <= 0:
        raise argparse.ArgumentTypeError(f"{text!r}: the window must be longer than 0")
    return int(match.group(1)), float(window)


def _menu(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--menu",
        metavar="NAME|FILE",
        default=argparse.SUPPRESS,
        help="the demo restaurant: a built-in name (lantern, kowhai) or a restaurant file "
        "(TOML), checked before anything starts; default lantern",
    )


def _run_command(sub: Any) -> None:
    """The default command: the kiosk on the configured backend."""
    run = _sub(sub, "run", "run the kiosk on the configured backend (the default command)")
    _backend(run)
    _terminal(run)


def _demo_command(sub: Any) -> None:
    """The kiosk on the embedded demo backend."""
    demo = _sub(sub, "demo", "run the kiosk on the embedded demo backend")
    _terminal(demo)
    _api(demo)
    demo.add_argument(
        "--location",
        metavar="ID",
        default=argparse.SUPPRESS,
        help="one demo location (id or slug); default: the location screen offers both",
    )
    demo.add_argument(
        "--db",
        metavar="PATH",
        default=argparse.SUPPRESS,
        help="the demo's SQLite file (default: one a restaurant, in the data dir)",
    )
    _menu(demo)
    demo.add_argument(
        "--server",
        metavar="URL",
        default=None,
        help="use a `kiosk demo-server` (e.g. http://127.0.0.1:8765/api/v1) instead of in-process",
    )
    demo.add_argument(
        "--lan",
        action="store_true",
        help="serve the demo's checkout page on this machine's LAN address, so that the payment "
        "QR code opens on a phone on the same network (the demo API is then reachable there too)",
    )


def _demo_server_command(sub: Any) -> None:
    """The demo backend over HTTP."""
    server = _sub(sub, "demo-server", "serve the demo backend over HTTP")
    server.add_argument(
        "--host",
        default="127.0.0.1",
        help="address to listen on (default 127.0.0.1: this machine only; another needs "
        "--allow-remote)",
    )
    server.add_argument(
        "--port",
        type=int,
        default=DEFAULT_DEMO_PORT,
        help=f"TCP port to listen on (default {DEFAULT_DEMO_PORT})",
    )
    server.add_argument(
        "--db",
        metavar="PATH",
        default=argparse.SUPPRESS,
        help="the demo's SQLite file (default: one a restaurant, in the data dir; `kiosk config "
        "show` names it)",
    )
    _menu(server)
    server.add_argument(
        "--allow-remote", action="store_true", help="allow a host other than this machine"
    )
    server.add_argument(
        "--rate-limit",
        metavar="N/10min",
        default="200/10min",
        type=_rate_limit,
        help="requests per IP in each window, e.g. 200/10min (the real API's), 1000/1min for a "
        "training room, or off for load tests (default 200/10min)",
    )
    server.add_argument(
        "--synchronous",
        choices=["full", "normal"],
        default="full",
        help="full (default): every acknowledged write survives a power cut; normal: faster, "
        "may lose the last writes on power loss (never corrupts the database)",
    )


def _doctor_command(sub: Any) -> None:
    """The checks, and the test order."""
    doctor = _sub(sub, "doctor", "check that this kiosk can take orders")
    _backend(doctor)
    doctor.add_argument(
        "--demo",
        action="store_true",
        help="check the embedded demo backend (the one `kiosk demo` runs) instead of a server",
    )
    doctor.add_argument(
        "--server",
        metavar="URL",
        default=None,
        help="check a `kiosk demo-server` (e.g. http://127.0.0.1:8765/api/v1) with the demo keys",
    )
    _menu(doctor)  # on the demo, or a demo-server started with --menu: its keys
    doctor.add_argument(
        "--speech",
        action="store_true",
        default=argparse.SUPPRESS,
        help="check the speech command as a kiosk with speech on would use it",
    )
    doctor.add_argument(
        "--probe-all",
        action="store_true",
        help="also ask which other API version the server answers (by default only the version "
        "this kiosk speaks is asked: a strict 2.0 server counts a legacy path as a breach)",
    )
    doctor.add_argument(
        "--test-order",
        action="store_true",
        help="place a whole test order on the ordering code the screens use (paid, its number "
        "read, where the server has a test payment, as the demo has: docs/api.md; elsewhere it "
        "stops before payment, says what that leaves unproven, and deletes the cart)",
    )


def _config_commands(sub: Any) -> None:
    """The config, the PIN and the files a counter installs."""
    config = _sub(sub, "config", "where the config is, and what is in effect")
    config.add_argument("action", choices=["path", "show"])

    pin = _sub(sub, "set-pin", "set the staff PIN (stored hashed in config.toml)")
    pin.add_argument("--stdin", action="store_true", help="read the PIN from stdin (scripts)")

    files = _sub(
        sub, "install-files", "print (or write) the sshd block and systemd unit a counter uses"
    )
    files.add_argument(
        "--write",
        metavar="DIR",
        default=None,
        help="write the files into DIR (made if missing) instead of printing them",
    )
    files.add_argument(
        "--counter",
        metavar="NAME",
        default=None,
        help="a counter over SSH named NAME (e.g. counter-2): its sshd block for the user "
        "kiosk-NAME, and the steps for its user, key, settings and metrics port",
    )


def _out_of_order_command(sub: Any) -> None:
    """Close or open a terminal."""
    closed = _sub(sub, "out-of-order", "close a terminal to customers, or open it again")
    closed.add_argument("state", choices=["on", "off", "status"])
    which = closed.add_mutually_exclusive_group()
    which.add_argument(
        "--terminal-id",
        metavar="NAME",
        default=argparse.SUPPRESS,
        help="the terminal (default: the configured terminal_id, else this session's)",
    )
    which.add_argument(
        "--all", action="store_true", help="every terminal of the profile this kiosk has run as"
    )


def _serve_command(sub: Any) -> None:
    """`kiosk demo` in a browser."""
    serve = _sub(sub, "serve", "publish `kiosk demo` to a browser (textual-serve)")
    serve.add_argument(
        "--kiosk",
        dest="kiosk_mode",
        action="store_true",
        default=argparse.SUPPRESS,
        help="each browser session runs in kiosk mode",
    )
    serve.add_argument(
        "--host",
        default="127.0.0.1",
        help="address to listen on (default 127.0.0.1: this machine only, reach it over an SSH "
        "tunnel; another needs --allow-remote)",
    )
    serve.add_argument(
        "--port",
        type=int,
        default=DEFAULT_SERVE_PORT,
        help=f"TCP port to listen on (default {DEFAULT_SERVE_PORT})",
    )
    serve.add_argument(
        "--public-url",
        metavar="URL",
        default=None,
        help="the address browsers use, when a tunnel or proxy puts the page elsewhere "
        "(e.g. https://demo.example.com); default: wherever the page was loaded from",
    )
    serve.add_argument(
        "--location",
        metavar="ID",
        default=argparse.SUPPRESS,
        help="one demo location (id or slug); default: the location screen offers both",
    )
    _menu(serve)
    serve.add_argument(
        "--allow-remote", action="store_true", help="allow a host other than this machine"
    )


def build_parser() -> argparse.ArgumentParser:
    from kiosk import __version__

    parser = _Parser(
        prog=PROG,
        description="A terminal ordering kiosk for the Storefront API.",
        epilog=EXAMPLES[None],
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--version", action="version", version=f"{PROG} {__version__}")
    _common(parser)
    _backend(parser)
    _terminal(parser)
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)

    _run_command(sub)
    _demo_command(sub)
    _demo_server_command(sub)
    _doctor_command(sub)
    _config_commands(sub)
    _out_of_order_command(sub)
    _serve_command(sub)
    return parser


# --- settings -------------------------------------------------------------------------------------


def _flags(args: argparse.Namespace, *names: str) -> dict[str, object]:
    fields = (
        "profile",
        "kiosk_mode",
        "log_level",
        "terminal_id",
        "api_dialect",
        "base_url",
        "location",
        "theme",
        "large_text",
        "help_command",
        "speech",
        *names,
    )
    return {name: getattr(args, name) for name in fields if getattr(args, name, None) is not None}


def _load(args: argparse.Namespace, **overrides: object) -> LoadedSettings:
    from kiosk.config import load_settings_with_sources

    flags = _flags(args)
    if getattr(args, "db", None) is not None:
        flags["demo_db"] = args.db
    if getattr(args, "menu", None) is not None:
        flags["demo_menu"] = args.menu
    flags.update({k: v for k, v in overrides.items() if v is not None})
    return load_settings_with_sources(flags=flags)


def _start_logging(settings: Settings) -> None:
    from kiosk.logs import register_secret, setup_logging

    if settings.api_key is not None:
        register_secret(settings.api_key.get_secret_value())
    setup_logging(settings.log_level)


# --- commands -------------------------------------------------------------------------------------


def _claimed(settings: Settings) -> Settings:
    """Settings with the terminal id fixed once (a derived `kiosk serve` id is random)."""
    from kiosk.terminal import terminal_id_for

    return settings.replace(terminal_id=terminal_id_for(settings))


def _run_tui(settings: Settings, factory: ServicesFactory) -> int:
    """Run the app as this terminal; a new session takes it over from a kiosk still holding it
    (kiosk.terminal). A session without a terminal is refused before anything is held."""
    from kiosk.terminal import TerminalBusyError, claim_terminal
    from kiosk.tui.kiosk_mode import LEFT_FOR_ANOTHER_SESSION

    require_terminal()
    try:
        with claim_terminal(settings):
            code = _run_app(settings, factory)
    except TerminalBusyError as exc:
        print(f"{PROG}: {exc}", file=sys.stderr)
        return 1
    if code == LEFT_FOR_ANOTHER_SESSION:
        _say_quietly(
            f"{PROG}: this terminal was opened in another session; the order goes on there"
        )
    return code


def _say_quietly(line: str) -> None:
    """One line on stderr, if the terminal is still there to take it."""
    import contextlib

    with contextlib.suppress(OSError, ValueError):
        print(line, file=sys.stderr, flush=True)


def require_terminal(env: Mapping[str, str] | None = None) -> None:
    """The kiosk draws on a terminal and reads its keys: without one (`ssh -T`, a command run
    over SSH, a pipe, cron) refuse in one line rather than spin reading an empty input. A
    `kiosk serve` browser session has no terminal but a web driver."""
    env = os.environ if env is None else env
    if "web_driver" in env.get("TEXTUAL_DRIVER", "") or env.get("KIOSK_NO_TTY_CHECK"):
        return
    streams = (sys.stdin, sys.stdout if sys.stdout.isatty() else sys.stderr)
    for stream in streams:
        try:
            ok = stream is not None and stream.isatty()
        except (OSError, ValueError):
            ok = False
        if not ok:
            raise UsageError(
                "no terminal: the kiosk needs one to draw on and read keys from "
                "(over SSH use `ssh -t`, or a ForceCommand session with a pseudo-terminal)"
            )


def _run_app(settings: Settings, factory: ServicesFactory) -> int:
    import asyncio
    import contextlib

    from kiosk.runtime import make_app

    # The app paints first, then awaits the factory in a worker (fast first frame). It gets the
    # settings too: kiosk mode (and the staff PIN) hold from the first frame.
    app = make_app(settings, factory=factory)
    try:
        app.run()
    finally:
        # AttributeError (so None here) until the factory has run.
        services: KioskServices | None = getattr(app, "services", None)
        if services is not None and services.closers:
            # The app closes its services on exit; this only catches an app that did not.
            # Closing after the app's loop ended is best effort.
            with contextlib.suppress(Exception):
                asyncio.run(services.aclose())
    return int(app.return_code or 0)


def cmd_run(args: argparse.Namespace) -> int:
    from kiosk.runtime import services_factory

    settings = _claimed(_load(args).settings)
    _start_logging(settings)
    # The configured server, whatever it is; nothing configured is one line naming `kiosk demo`
    # (a counter never takes make-believe orders by accident). The demo is `kiosk demo`.
    return _run_tui(settings, services_factory(settings))


def cmd_demo(args: argparse.Namespace) -> int:
    from kiosk.config import check_base_url
    from kiosk.runtime import demo_dialect, services_factory

    server = args.server
    if server is not None:
        if getattr(args, "lan", False):
            raise UsageError(
                "--lan serves the demo backend itself: leave out --server (or run the demo-server "
                "with --host 0.0.0.0 --allow-remote)"
            )
        check_base_url(server)
    # `kiosk demo` is always the demo profile; its base URL is the demo server's or none.
    loaded = _load(args, profile="demo")
    lan: LanDemo | None = None
    if getattr(args, "lan", False):
        lan = serve_demo_on_lan(loaded.settings)
        server = lan.kiosk_url
    settings = demo_dialect(_claimed(loaded.settings.replace(base_url=server)))
    _check_demo_location(settings, getattr(args, "location", None))
    _start_logging(settings)
    factory = services_factory(
        settings,
        demo=True,
        base_url=server,
        location=getattr(args, "location", None),
        db_path=settings.demo_db,
    )
    if lan is None:
        return _run_tui(settings, factory)
    try:
        return _run_tui(settings, lan.wrap(factory))
    finally:
        lan.stop()


def _check_demo_location(settings: Settings, location: str | None) -> None:
    """A location the demo restaurant does not have fails in one line here, before the TUI
    starts (it would otherwise open and ask the customer to press R). Only when one is named:
    reading the restaurant costs the first frame a little."""
    if not (location or settings.location):
        return
    from kiosk.runtime import _demo_location_ids, demo_restaurant

    _demo_location_ids(settings, location, demo_restaurant(settings))


class LanDemo:
    """`kiosk demo --lan`: the demo backend served by uvicorn on every interface, its checkout
    pages named by this machine's LAN address (what the QR code carries); the kiosk itself talks
    to it over loopback, as to a `kiosk demo-server`."""

    def __init__(self, server: Any, backend: Any, origin: str) -> None:
        self.server = server
        self.backend = backend
        self.origin = origin  # http://LAN-ADDRESS:PORT, what a phone opens
        self.kiosk_url = f"http://127.0.0.1:{server.port}/api/v1"

    def wrap(self, factory: ServicesFactory) -> ServicesFactory:
        async def lan_factory() -> KioskServices:
            services = await factory()
            services.phone_origin = self.origin
            return services

        return lan_factory

    def stop(self) -> None:
        self.server.stop()
        self.backend.close()


def serve_demo_on_lan(
    settings: Settings, *, host: str = "0.0.0.0", port: int = 0, address: str | None = None
) -> LanDemo:
    """Start the demo backend for `kiosk demo --lan` (a free port unless `port`); `address` is
    the LAN address to name (default: found with kiosk.demo_control.lan_address)."""
    from kiosk.demo_control import lan_address

    address = address or lan_address()
    if address is None:
        raise UsageError(
            "--lan: this machine has no network address but loopback; connect it to the network "
            "the phones use (or leave out --lan: in the demo, A on the payment screen pays)"
        )
    from kiosk import paths
    from kiosk.demo import create_app
    from kiosk.demo.server import ServerThread
    from kiosk.runtime import default_demo_db, demo_restaurant

    restaurant = demo_restaurant(settings)
    db = settings.demo_db or default_demo_db(settings, restaurant)
    paths.private_dir(db.parent)
    app = create_app(db, menu=restaurant)
    server = ServerThread(app, host=host, port=port).start()
    origin = f"http://{address}:{server.port}"
    # Checkout URLs (the QR code) name the LAN address, not the request's loopback host.
    app.state.backend.public_base_url = origin
    return LanDemo(server, app.state.backend, origin)


def cmd_demo_server(args: argparse.Namespace) -> int:
    from pathlib import Path

    from kiosk.config import is_loopback_host
    from kiosk.runtime import require_demo_extra

    require_demo_extra("starlette", "uvicorn")

    host = _listen_host(
        args,
        "refusing to serve the demo on {host!r}: other machines could reach it; use "
        "127.0.0.1, or add --allow-remote if you mean it",
    )
    if not 0 < args.port < 65536:
        raise UsageError(f"--port {args.port} is not a TCP port (1-65535)")
    _check_can_listen(host, args.port)
    settings = _load(args, profile="demo").settings
    _start_logging(settings)
    from kiosk.demo.server import run
    from kiosk.runtime import default_demo_db, demo_restaurant

    # Checked before anything is printed or created: a bad file starts nothing.
    restaurant = demo_restaurant(settings)
    # The server makes a missing folder itself, 0700 (kiosk.demo.store): not here, with the umask.
    db = Path(args.db) if getattr(args, "db", None) else default_demo_db(settings, restaurant)
    shown_host = f"[{host}]" if ":" in host else host
    base_url = f"http://{shown_host}:{args.port}/api/v1"
    # run() prints the base URL and the demo keys once the backend is built.
    print(f"run the kiosk on it:  {PROG} demo --server {base_url}", flush=True)
    if not is_loopback_host(host):
        print("warning: plain http off this machine sends the demo keys unencrypted", flush=True)
    limit, window = args.rate_limit
    run(
        host,
        args.port,
        db,
        rate_limit=limit,
        rate_window=window,
        synchronous=args.synchronous.upper(),
        menu=restaurant,
    )
    return 0


def _listen_host(args: argparse.Namespace, refusal: str) -> str:
    """--host, if it is this machine or --allow-remote was given; else `refusal` (with {host!r})."""
    from kiosk.config import is_loopback_host

    host: str = args.host
    if not is_loopback_host(host) and not args.allow_remote:
        raise UsageError(refusal.format(host=host))
    return host


def _check_can_listen(host: str, port: int) -> None:
    """A busy port as one line before anything is printed (uvicorn would log and exit 3)."""
    import socket

    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    with socket.socket(family) as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            probe.bind((host, port))
        except OSError as exc:
            raise UsageError(f"cannot listen on {host} port {port}: {exc.strerror}") from None


def cmd_doctor(args: argparse.Namespace) -> int:
    import asyncio

    from kiosk.api import RetryPolicy
    from kiosk.doctor import run_doctor
    from kiosk.runtime import build_services

    if args.server is not None and getattr(args, "base_url", None) is not None:
        raise UsageError("--server names a demo-server and --base-url a Storefront: give one")
    demo = args.demo or args.server is not None
    loaded = _load(args, profile="demo") if demo else _load(args)
    settings = loaded.settings
    _start_logging(settings)
    key_source = "the demo keys" if demo else f"from {loaded.sources.get('api_key', '?')}"
    # A diagnosis wants a prompt answer: one retry, a short deadline.
    options: dict[str, Any] = {"retry": RetryPolicy(max_attempts=2), "deadline": 15.0}
    services = build_services(settings, demo=args.demo, server=args.server, client_options=options)

    async def go() -> bool:
        try:
            if args.test_order:
                from kiosk.doctor import run_test_order

                return await run_test_order(services, sys.stdout)
            return await run_doctor(
                services, sys.stdout, key_source=key_source, probe_all=args.probe_all
            )
        finally:
            await services.aclose()

    return 0 if asyncio.run(go()) else 1


def cmd_config(args: argparse.Namespace) -> int:
    from kiosk import paths
    from kiosk.config import SETTING_NAMES, config_file_path, redacted_key, secrets_file_path

    if args.action == "path":
        print(config_file_path())
        return 0
    loaded = _load(args)
    settings, sources = loaded.settings, loaded.sources
    config_file = config_file_path()
    secrets = secrets_file_path()
    rows: list[tuple[str, str]] = [
        ("config file", f"{config_file} ({'found' if config_file.exists() else 'not found'})"),
        ("secrets file", f"{secrets} ({'found' if secrets.exists() else 'not found'})"),
        ("log dir", str(paths.log_dir())),
        ("state dir", str(paths.state_dir())),
        ("data dir", str(paths.data_dir())),
    ]
    for name in SETTING_NAMES:
        value = getattr(settings, name)
        if name == "api_key":
            shown = redacted_key(settings.api_key, sources.get("api_key"))
            rows.append((name, shown))
            continue
        if name == "staff_pin_hash":
            shown = "set (hashed)" if value else "not set (`kiosk set-pin`)"
        elif name == "terminal_id" and value is None:
            from kiosk.terminal import derive_terminal_id

            shown = f"{derive_terminal_id()} (derived from this session)"
        elif name == "api_dialect":
            # The version this kiosk speaks, as doctor says it: the setting, else the one
            # kiosk.runtime.dialect_for chooses from the base URL and key.
            from kiosk.runtime import dialect_for

            spoken = dialect_for(settings)
            shown = f"{spoken} ({DIALECT_NAMES.get(spoken, spoken)})"
            if value is None:
                shown += ", not set: chosen from the base URL and key"
        elif name == "delivery_zones":
            zones = [f"{z.name} ({', '.join(z.postal_codes)})" for z in value]
            shown = "; ".join(zones) or "none (on Storefront 2.0 delivery is not offered)"
        else:
            shown = "-" if value is None else str(value)
        source = sources.get(name, "default")
        rows.append((name, f"{shown}   [{source}]"))
    width = max(len(name) for name, _ in rows)
    for name, value in rows:
        print(f"{name:<{width}}  {value}")
    return 0


PIN_TRIES = 3
DIALECT_NAMES = {"v2": "Storefront 2.0", "v1": "the legacy API"}


def _ask_pin(ask: Any = None, say: Any = None) -> str:
    """Ask for the PIN twice; a PIN of the wrong form, or two that differ, asks again (up to
    PIN_TRIES times): staff type it at a counter, and a typo should not end the command."""
    import getpass

    from kiosk.config import ConfigError, check_pin_format

    ask = ask or getpass.getpass
    say = say or (lambda line: print(line, file=sys.stderr))
    for _ in range(PIN_TRIES):
        pin = ask("New staff PIN (4-12 digits): ")
        try:
            check_pin_format(pin)
        except ConfigError as exc:
            say(f"{exc}; try again")
            continue
        if ask("The same PIN again: ") == pin:
            return str(pin)
        say("the two PINs differ; try again")
    raise UsageError(f"no PIN set after {PIN_TRIES} tries; nothing was changed")


def cmd_set_pin(args: argparse.Namespace) -> int:
    from kiosk.config import check_pin_format, hash_pin, write_pin_hash

    if args.stdin:
        pin = sys.stdin.readline().strip()
        check_pin_format(pin)
    else:
        pin = _ask_pin()
    path = write_pin_hash(hash_pin(pin))
    print(f"staff PIN set (hashed) in {path}")
    return 0


def cmd_serve(args: argparse.Namespace) -> int:
    import shlex

    host = _listen_host(
        args,
        "refusing to publish the kiosk on {host!r}: anyone who can reach it could use it; "
        "use 127.0.0.1 (and an SSH tunnel), or add --allow-remote if you mean it",
    )
    _check_can_listen(host, args.port)
    from kiosk.install import require_extras

    # Each session runs `kiosk demo` on the embedded backend (Starlette) under textual-serve:
    # every missing extra named at once, in the words of the tool that installed this kiosk.
    require_extras("kiosk serve", ["demo", "serve"], {"demo": ("starlette",)})
    public_url = args.public_url
    if public_url is not None:
        from urllib.parse import urlsplit

        parts = urlsplit(public_url)
        if parts.scheme not in ("http", "https") or not parts.netloc or parts.query:
            raise UsageError(f"--public-url must be an http(s) URL (got {public_url!r})")
    from kiosk import paths
    from kiosk.serve import KioskServer

    # Each browser visitor gets a `kiosk demo` process; it reads the same config and env.
    command = [sys.executable, "-m", "kiosk"]
    if getattr(args, "log_level", None):
        command += ["--log-level", args.log_level]
    command.append("demo")
    if getattr(args, "kiosk_mode", False):
        command.append("--kiosk")
    if getattr(args, "location", None):
        command += ["--location", args.location]
    if getattr(args, "menu", None):
        from pathlib import Path

        # Each session's process may start elsewhere: a file is named by its absolute path.
        menu = args.menu
        command += ["--menu", str(Path(menu).resolve()) if Path(menu).is_file() else menu]
    server = KioskServer(
        shlex.join(command),
        host=host,
        port=args.port,
        title="Kiosk demo",
        public_url=public_url,
        # Where each session's `kiosk demo` (the demo profile) keeps its terminal's folder.
        terminals=paths.state_dir() / "demo" / "terminals",
    )
    where = f" (browsers use {public_url})" if public_url else ""
    print(f"serving `kiosk demo` on http://{host}:{args.port}{where} (Ctrl+C stops)", flush=True)
    server.serve()
    return 0


# The files a counter's install needs, shipped in the package (kiosk/deploy).
INSTALL_FILES = ("sshd_kiosk.conf", "kiosk-console@.service")


def install_file_text(name: str) -> str:
    from importlib.resources import files

    return files("kiosk.deploy").joinpath(name).read_text(encoding="utf-8")


def cmd_install_files(args: argparse.Namespace) -> int:
    import re
    from pathlib import Path

    from kiosk import install

    if os.geteuid() == 0:
        # As root, before the files that name this kiosk: can the kiosk user run it at all?
        problem = install.interpreter_problem()
        if problem:
            print(f"{PROG}: warning: {problem}", file=sys.stderr)
    texts = {name: install_file_text(name) for name in INSTALL_FILES}
    counter = args.counter
    if counter is not None:
        if not re.fullmatch(r"[a-z0-9][a-z0-9-]{0,24}", counter):
            raise UsageError(
                f"--counter {counter!r}: a counter's name is lower-case letters, digits and '-' "
                "(it names the user kiosk-NAME), e.g. counter-2"
            )
        texts = {
            f"sshd_kiosk-{counter}.conf": install.counter_block(texts[INSTALL_FILES[0]], counter)
        }
    written: list[str] = []
    if args.write is None:
        for name, text in texts.items():
            print(f"# ---- {name} ----")
            print(text, end="")
    else:
        folder = Path(args.write)
        try:
            folder.mkdir(parents=True, exist_ok=True)
            for name, text in texts.items():
                (folder / name).write_text(text, encoding="utf-8")
                print(folder / name)
                written.append(str(folder / name))
        except OSError as exc:
            raise UsageError(f"cannot write to {folder}: {exc.strerror}") from None
    if counter is not None:
        settings = _load(args).settings
        block_file = written[0] if written else f"sshd_kiosk-{counter}.conf"
        print()
        print(
            install.counter_steps(
                counter, block_file, base_url=settings.base_url, location=settings.location
            ),
            end="",
        )
    return 0


def cmd_out_of_order(args: argparse.Namespace) -> int:
    """Write (or read) the terminals' out-of-order state (kiosk.out_of_order); a running kiosk
    notices within a second."""
    import time

    from kiosk import out_of_order
    from kiosk.terminal import terminal_dir, terminal_id_for

    settings = _load(args).settings
    # The folder of this profile's terminals (one folder a terminal that has run).
    folder = terminal_dir(settings, "any").parent
    known = sorted(p.name for p in folder.iterdir() if p.is_dir()) if folder.is_dir() else []
    if args.all:
        ids = known
        if not ids:
            raise UsageError(
                f"no terminal of profile {settings.profile!r} has run on this machine yet"
            )
    else:
        terminal_id = terminal_id_for(settings)
        if terminal_id not in known:
            hint = f"; known: {', '.join(known)}" if known else ""
            raise UsageError(
                f"no terminal {terminal_id!r} has run in profile {settings.profile!r}{hint} "
                "(give --terminal-id NAME, or --all)"
            )
        ids = [terminal_id]
    for terminal_id in ids:
        where = terminal_dir(settings, terminal_id)
        if args.state != "status":
            out_of_order.set_out_of_order(where, args.state == "on", by="command line")
        closed = out_of_order.read(where)
        if closed is None:
            print(f"{terminal_id}: open")
        else:
            since = (
                time.strftime(" since %Y-%m-%d %H:%M", time.localtime(closed.since))
                if closed.since is not None
                else ""
            )
            print(f"{terminal_id}: out of order{since} (set by {closed.by})")
    return 0


COMMANDS = {
    None: cmd_run,
    "run": cmd_run,
    "demo": cmd_demo,
    "demo-server": cmd_demo_server,
    "doctor": cmd_doctor,
    "config": cmd_config,
    "set-pin": cmd_set_pin,
    "serve": cmd_serve,
    "install-files": cmd_install_files,
    "out-of-order": cmd_out_of_order,
}


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    command = COMMANDS[args.command]
    from kiosk.config import ConfigError

    try:
        return command(args)
    except (ConfigError, UsageError) as exc:
        print(f"{PROG}: error: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        # `kiosk config show | head`: the reader left; nothing is wrong.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0
