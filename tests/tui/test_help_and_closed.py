"""Help one key away, and the out-of-order screen (issue 34).

Help: F1 on a customer screen says "Someone is coming to help" with the terminal's name; staff see
it on the staff screen (terminal, when, the order in progress) and clear it there; it is counted in
the metrics and logged, and the `help_command` runs once (here it writes a file). Out of order:
staff close the terminal on the staff screen or with `kiosk out-of-order on`; customers see one
screen, no key but Help does anything there (keys in bursts too), the open order is kept, the state
survives a restart, and a metric says it.
"""

from __future__ import annotations

import logging
import shlex
import sys
from pathlib import Path
from typing import Any

import pytest
from textual import events
from textual.pilot import Pilot
from textual.widgets import Static

from kiosk.cli import main
from kiosk.config import Settings
from kiosk.metrics import render
from kiosk.terminal import terminal_dir
from kiosk.tui.screens.attention import HelpDialog, OutOfOrderScreen
from kiosk.tui.screens.attract import AttractScreen
from kiosk.tui.screens.idle import StillThereDialog
from kiosk.tui.screens.location import LocationScreen
from kiosk.tui.screens.menu import MenuScreen
from kiosk.tui.screens.staff import StaffScreen

from .conftest import Kiosk, make_kiosk, settle
from .test_kiosk_mode import PIN, FakeClock, keys, pin_hash, to_menu_with_cookie, type_pin
from .test_staff import choose, staff_ids, staff_text

TERMINAL = "counter-1"


def help_command(out: Path) -> str:
    """A help command that adds a line (its last argument: the terminal id) to `out`."""
    code = "import sys; open(sys.argv[1], 'a').write(sys.argv[2] + '\\n')"
    return shlex.join([sys.executable, "-c", code, str(out)])


def closed_kiosk(tmp_path: Path, **settings: Any) -> Kiosk:
    """A kiosk in kiosk mode whose state folder is its terminal's, where the CLI looks."""
    values: dict[str, Any] = {
        "kiosk_mode": True,
        "staff_pin_hash": pin_hash(),
        "terminal_id": TERMINAL,
        **settings,
    }
    k = make_kiosk(tmp_path, settings=Settings(**values), clock=FakeClock())
    k.services.state_dir = terminal_dir(k.services.settings, TERMINAL)
    k.services.state_dir.mkdir(parents=True, exist_ok=True)
    return k


def shown_text(pilot: Pilot[Any]) -> str:
    return " ".join(str(s.render()) for s in pilot.app.screen.query(Static))


def footer_actions(pilot: Pilot[Any]) -> set[str]:
    return {b.binding.action for b in pilot.app.screen.active_bindings.values() if b.binding.show}


async def burst(pilot: Pilot[Any], *names: str) -> None:
    """Keys as one read from the terminal (a customer hammering the keyboard), then a settle."""
    driver = pilot.app._driver
    assert driver is not None
    for name in names:
        char = name if len(name) == 1 else None
        driver.send_message(events.Key(name, char))
    await settle(pilot)


def wait_for_the_command(app: Any) -> None:
    """The help command runs in a thread of its own (never on the UI): wait until it is done."""
    thread = app.help_thread
    assert thread is not None
    thread.join(timeout=60)
    assert not thread.is_alive()


def metric(k: Kiosk, name: str) -> float:
    for line in render(k.services.metrics).splitlines():  # type: ignore[arg-type]
        if line.startswith(name + "{"):
            return float(line.rsplit(" ", 1)[1])
    raise AssertionError(f"{name} not served")


@pytest.fixture
def state_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("KIOSK_HOME", str(tmp_path / "home"))
    for name in ("KIOSK_STATE_DIR", "KIOSK_CONFIG_DIR", "KIOSK_PROFILE", "KIOSK_TERMINAL_ID"):
        monkeypatch.delenv(name, raising=False)
    return tmp_path / "home"


# Help ---------------------------------------------------------------------------------------------
async def test_help_calls_staff_once_and_staff_clear_it(
    tmp_path: Path, state_home: Path, caplog: pytest.LogCaptureFixture
) -> None:
    called = tmp_path / "called.txt"
    k = closed_kiosk(tmp_path, help_command=help_command(called))
    app = k.app
    caplog.set_level(logging.INFO, logger="kiosk.help")
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        # Both counters are served from the start, at 0.
        assert metric(k, "kiosk_help_requests_total") == 0
        assert metric(k, "kiosk_help_waiting") == 0
        # The key is in the footer of a customer screen.
        assert isinstance(app.screen, LocationScreen)
        assert "help" in footer_actions(pilot)
        cart_id = await to_menu_with_cookie(k, pilot)
        assert "help" in footer_actions(pilot)

        await keys(pilot, "f1")
        assert isinstance(app.screen, HelpDialog)
        wait_for_the_command(app)
        said = shown_text(pilot)
        assert "Someone is coming to help" in said and TERMINAL in said
        # The command ran (in a thread) with the terminal id; counted, waiting, logged.
        assert called.read_text() == f"{TERMINAL}\n"
        assert metric(k, "kiosk_help_requests_total") == 1
        assert metric(k, "kiosk_help_waiting") == 1
        assert any(
            "help requested on terminal counter-1" in r.getMessage() and cart_id in r.getMessage()
            for r in caplog.records
        )

        # Back to the order, intact; Help again tells the customer again but calls nobody twice.
        await keys(pilot, "escape")
        assert isinstance(app.screen, MenuScreen)
        await keys(pilot, "f1")
        assert isinstance(app.screen, HelpDialog)
        await keys(pilot, "f1", "enter")
        assert isinstance(app.screen, MenuScreen)
        assert called.read_text() == f"{TERMINAL}\n"
        assert metric(k, "kiosk_help_requests_total") == 1
        assert [i["productId"] for i in k.server_cart()["items"]] == ["prd_cookie"]

        # Staff see it first: which terminal, when, the order in progress; and clear it.
        await keys(pilot, "f12")
        await type_pin(pilot, PIN)
        assert isinstance(app.screen, StaffScreen)
        assert "help" not in footer_actions(pilot)  # staff's screen: no Help key
        health = staff_text(pilot, "#staff-health")
        assert health.startswith(f"HELP REQUESTED on terminal {TERMINAL} at ")
        # The order by what it holds and its total, not its id (issue 33).
        assert "Order in progress: 1 × Chocolate Chip Cookie · total $" in health, health
        assert cart_id not in health
        assert staff_ids(pilot)[:2] == ["back", "help-clear"]
        await choose(pilot, "help-clear")
        assert "HELP REQUESTED" not in staff_text(pilot, "#staff-health")
        assert "help-clear" not in staff_ids(pilot)
        assert metric(k, "kiosk_help_waiting") == 0
        assert metric(k, "kiosk_help_requests_total") == 1

        # Once cleared, Help calls staff again.
        await keys(pilot, "escape", "f1")
        assert isinstance(app.screen, HelpDialog)
        wait_for_the_command(app)
        assert called.read_text() == f"{TERMINAL}\n{TERMINAL}\n"
        assert metric(k, "kiosk_help_requests_total") == 2


async def test_help_answers_still_there_and_works_on_the_attract_screen(
    tmp_path: Path, state_home: Path
) -> None:
    # Screens that take every key still let Help through: "Still there?" is answered by it (the
    # order is kept), and the attract screen stays under the help message.
    k = closed_kiosk(tmp_path, idle_timeout=60.0, idle_countdown=10.0)
    app = k.app
    clock = app.clock
    assert isinstance(clock, FakeClock)
    async with app.run_test(size=(100, 30)) as pilot:
        cart_id = await to_menu_with_cookie(k, pilot)
        clock.advance(61)
        app.idle.check()
        await settle(pilot)
        assert isinstance(app.screen, StillThereDialog)
        await keys(pilot, "f1")
        assert isinstance(app.screen, HelpDialog)
        await keys(pilot, "escape")
        # While staff are on their way the order is never reset for being idle.
        for _ in range(3):
            clock.advance(3600)
            app.idle.check()
            await settle(pilot)
        assert isinstance(app.screen, MenuScreen)
        assert app.visit.state.cart_id == cart_id and cart_id in k.backend.carts.ids()
        assert app.clear_help()
        clock.advance(61)  # cleared: the idle rules are back
        app.idle.check()
        await settle(pilot)
        assert isinstance(app.screen, StillThereDialog)
        await keys(pilot, "space")

        await app.go_home()
        await settle(pilot)
        clock.advance(61)
        app.idle.check()
        await settle(pilot)
        assert isinstance(app.screen, AttractScreen)
        await keys(pilot, "f1")
        assert isinstance(app.screen, HelpDialog)
        await keys(pilot, "enter")
        assert isinstance(app.screen, AttractScreen)


async def test_a_slow_help_command_never_holds_up_the_screen(
    tmp_path: Path, state_home: Path
) -> None:
    import subprocess
    import threading

    from kiosk.help_call import HelpDesk

    release = threading.Event()
    ran: list[list[str]] = []

    def slow_run(argv: list[str], **_: Any) -> subprocess.CompletedProcess[bytes]:
        ran.append(argv)
        assert release.wait(timeout=60)  # a pager's API that takes its time
        return subprocess.CompletedProcess(argv, 0, b"", b"")

    k = closed_kiosk(tmp_path)
    app = k.app
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        app._help_desk = HelpDesk(TERMINAL, command="page-staff", run=slow_run)
        await keys(pilot, "f1")
        # The customer is told at once, and the kiosk goes on while the command still runs.
        assert isinstance(app.screen, HelpDialog)
        assert app.help_thread is not None and app.help_thread.is_alive()
        await keys(pilot, "escape", "1")
        assert not isinstance(app.screen, (HelpDialog, LocationScreen))
        release.set()
        wait_for_the_command(app)
        assert ran == [["page-staff", TERMINAL]]


async def test_a_failing_help_command_is_logged_not_shown(
    tmp_path: Path, state_home: Path, caplog: pytest.LogCaptureFixture
) -> None:
    k = closed_kiosk(tmp_path, help_command=shlex.join([sys.executable, "-c", "exit(3)"]))
    app = k.app
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        await keys(pilot, "f1")
        assert isinstance(app.screen, HelpDialog)
        assert "Someone is coming to help" in shown_text(pilot)
        assert "exit" not in shown_text(pilot) and "failed" not in shown_text(pilot)
        wait_for_the_command(app)
    assert any("failed (exit status 3)" in r.getMessage() for r in caplog.records)


# Out of order -------------------------------------------------------------------------------------
CUSTOMER_KEYS = (
    "1", "2", "enter", "escape", "f2", "f3", "f4", "f5", "f6", "f9", "c", "o", "k", "r", "n",
    "a", "y", "down", "up", "left", "right", "tab", "space", "plus", "minus", "delete", "ctrl+q",
    "ctrl+c", "ctrl+p", "ctrl+z",
)  # fmt: skip


async def test_out_of_order_from_the_staff_screen_refuses_customer_keys_and_keeps_the_order(
    tmp_path: Path, state_home: Path
) -> None:
    k = closed_kiosk(tmp_path)
    app = k.app
    async with app.run_test(size=(100, 30)) as pilot:
        cart_id = await to_menu_with_cookie(k, pilot)
        assert metric(k, "kiosk_out_of_order") == 0
        await keys(pilot, "f12")
        await type_pin(pilot, PIN)
        await choose(pilot, "closed")
        assert "OUT OF ORDER" in staff_text(pilot, "#staff-health")
        assert metric(k, "kiosk_out_of_order") == 1
        await keys(pilot, "escape")
        closed = app.screen
        assert isinstance(closed, OutOfOrderScreen)
        said = shown_text(pilot)
        assert "This kiosk is closed." in said and "Please order at the counter." in said
        # The other language too, for whoever walks up.
        assert "Este quiosco está cerrado." in said
        # Only Help is offered.
        assert footer_actions(pilot) == {"help"}
        stack = list(app.screen_stack)

        # Keys one by one, then in bursts: nothing moves, nothing of the order changes.
        await keys(pilot, *CUSTOMER_KEYS)
        assert app.screen is closed and list(app.screen_stack) == stack
        await burst(pilot, *CUSTOMER_KEYS)
        await burst(pilot, "1", "enter", "c", "o", "o", "k", "i", "e", "enter", "f2", "f4", "f2")
        assert app.screen is closed and list(app.screen_stack) == stack
        assert app.is_running
        cart = k.server_cart()
        assert cart["id"] == cart_id and [i["productId"] for i in cart["items"]] == ["prd_cookie"]
        # The order is in the resume file, for a restart while closed.
        assert cart_id in (k.services.state_dir / "open-cart.json").read_text()
        # No idle reset while closed.
        app.clock.advance(3600)  # type: ignore[attr-defined]
        app.idle.check()
        await settle(pilot)
        assert app.screen is closed and k.server_cart()["id"] == cart_id

        # Help works here.
        await keys(pilot, "f1")
        assert isinstance(app.screen, HelpDialog)
        await keys(pilot, "escape")
        assert app.screen is closed

        # Staff open it again: the customer's order is where it was.
        await keys(pilot, "f12")
        await type_pin(pilot, PIN)
        await choose(pilot, "closed")
        assert metric(k, "kiosk_out_of_order") == 0
        await keys(pilot, "escape")
        assert isinstance(app.screen, MenuScreen)
        assert app.visit.state.cart_id == cart_id


async def test_out_of_order_survives_a_restart(tmp_path: Path, state_home: Path) -> None:
    first = closed_kiosk(tmp_path)
    async with first.app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        first.app.set_out_of_order(True)
        await settle(pilot)
        assert isinstance(first.app.screen, OutOfOrderScreen)

    # Started again (in Spanish this time): closed from the first screen on, in both languages.
    again = closed_kiosk(tmp_path, language="es")
    async with again.app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        assert isinstance(again.app.screen, OutOfOrderScreen)
        assert metric(again, "kiosk_out_of_order") == 1
        title = str(again.app.screen.query_one("#closed-title", Static).render())
        assert title == "Este quiosco está cerrado."
        assert "This kiosk is closed. Please order at the counter." in shown_text(pilot)
        footer = {b.binding.description for b in again.app.screen.active_bindings.values()}
        assert "Ayuda" in footer
        await burst(pilot, "1", "enter", "escape", "f9")
        assert isinstance(again.app.screen, OutOfOrderScreen)


async def test_the_command_line_closes_and_opens_a_running_kiosk(
    tmp_path: Path, state_home: Path
) -> None:
    k = closed_kiosk(tmp_path)
    app = k.app
    async with app.run_test(size=(100, 30)) as pilot:
        cart_id = await to_menu_with_cookie(k, pilot)
        # (What the command prints goes to the app's capture here: the next test reads it.)
        assert main(["out-of-order", "on", "--terminal-id", TERMINAL]) == 0
        assert (k.services.state_dir / "out-of-order.json").exists()
        # The kiosk looks on its terminal clock (twice a second): one tick, here by hand.
        app.watch_terminal()
        await settle(pilot)
        assert isinstance(app.screen, OutOfOrderScreen)
        assert metric(k, "kiosk_out_of_order") == 1
        # A tick without a change does nothing more.
        app.watch_terminal()
        await settle(pilot)
        assert len([s for s in app.screen_stack if isinstance(s, OutOfOrderScreen)]) == 1

        assert main(["out-of-order", "off", "--terminal-id", TERMINAL]) == 0
        app.watch_terminal()
        await settle(pilot)
        assert isinstance(app.screen, MenuScreen)
        assert app.visit.state.cart_id == cart_id
        assert metric(k, "kiosk_out_of_order") == 0


async def test_a_step_under_way_lands_under_the_closed_screen(
    tmp_path: Path, state_home: Path
) -> None:
    # A screen pushed after the terminal closed (a worker's step, a reset to the first screen)
    # gets the closed screen over it again; opened, the stale closed screen goes when seen.
    k = closed_kiosk(tmp_path)
    app = k.app
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        app.set_out_of_order(True)
        await settle(pilot)
        await app.push_screen(MenuScreen())
        await settle(pilot)
        assert isinstance(app.screen, OutOfOrderScreen)
        app.set_out_of_order(False)
        await settle(pilot)
        assert isinstance(app.screen, MenuScreen)
        app.pop_screen()
        await settle(pilot)
        assert isinstance(app.screen, LocationScreen)
        assert not any(isinstance(s, OutOfOrderScreen) for s in app.screen_stack)


def test_the_command_line_names_the_terminals_it_knows(
    tmp_path: Path, state_home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    settings = Settings(terminal_id=TERMINAL)
    terminal_dir(settings, TERMINAL).mkdir(parents=True)
    terminal_dir(settings, "counter-2").mkdir(parents=True)
    assert main(["out-of-order", "on", "--terminal-id", "counter-9"]) == 2
    err = capsys.readouterr().err
    assert "no terminal 'counter-9'" in err and "known: counter-1, counter-2" in err
    assert main(["out-of-order", "on", "--all"]) == 0
    assert main(["out-of-order", "status", "--all"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[-2].startswith("counter-1: out of order since ")
    assert out[-1].startswith("counter-2: out of order since ")
    assert "(set by command line)" in out[-1]
    assert main(["out-of-order", "off", "--terminal-id", "counter-2"]) == 0
    assert capsys.readouterr().out == "counter-2: open\n"
