"""Help: a customer asks for staff with one key (F1, or the footer's Help), on any customer screen.

`HelpDesk` keeps the one request a terminal can have waiting: asked again while one waits, nothing
is sent again (the customer is told again, staff are not called twice). Staff clear it on the staff
screen. Each request is logged, counted (kiosk.metrics: `kiosk_help_requests_total`, and the
`kiosk_help_waiting` gauge), kept in the terminal's folder (`help.json`: a request outlives a
restart until staff clear it) and, where the `help_command` setting names a command, that command
is run with the terminal id as its last argument (a chain points it at its own alerting: a pager,
a chat message, a light over the counter).

The command runs in a thread the caller gives it (`call_staff`), never on the UI's loop, with no
terminal (its output is captured, its input empty) and a time limit; a failure is logged for staff,
never shown to the customer. No Textual here.
"""

from __future__ import annotations

import contextlib
import json
import logging
import shlex
import subprocess
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

from kiosk import paths

__all__ = ["HELP_FILE", "HelpDesk", "HelpRequest", "command_line"]

log = logging.getLogger("kiosk.help")

HELP_FILE = "help.json"
# Seconds the help command may take before it is given up (and the failure logged).
COMMAND_TIMEOUT = 30.0


class HelpCounters(Protocol):
    """What the desk tells the terminal's metrics (kiosk.metrics.FleetMetrics)."""

    def help_requested(self) -> None: ...

    def help_waiting(self, waiting: bool) -> None: ...


@dataclass(frozen=True, slots=True)
class HelpRequest:
    """One request: when (Unix time) and the order that was open then (a cart id, or None)."""

    at: float
    cart_id: str | None


def command_line(command: str, terminal_id: str) -> list[str]:
    """The help command's argv: the setting split as a shell would (no shell runs it), then the
    terminal id. config.py has checked that the setting splits."""
    return [*shlex.split(command), terminal_id]


def _read(folder: Path | None) -> HelpRequest | None:
    if folder is None:
        return None
    try:
        data = json.loads((folder / HELP_FILE).read_text(encoding="utf-8"))
        cart = data.get("cart_id")
        return HelpRequest(float(data["at"]), str(cart) if cart else None)
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        return None


class HelpDesk:
    def __init__(
        self,
        terminal_id: str,
        *,
        folder: Path | None = None,
        command: str | None = None,
        metrics: HelpCounters | None = None,
        clock: Callable[[], float] = time.time,
        run: Callable[..., subprocess.CompletedProcess[bytes]] = subprocess.run,
    ) -> None:
        self.terminal_id = terminal_id
        self.folder = folder
        self.command = command
        self.metrics = metrics
        self.clock = clock
        self._run = run
        # A request from before a restart is still waiting (staff have not cleared it).
        self.waiting: HelpRequest | None = _read(folder)
        if metrics is not None:
            metrics.help_waiting(self.waiting is not None)

    def ask(self, cart_id: str | None) -> bool:
        """The customer asks. True when this is a new request (the caller then runs
        `call_staff` in a thread); False when one is already waiting: nothing is sent again."""
        if self.waiting is not None:
            log.info("help asked again on terminal %s: still waiting", self.terminal_id)
            return False
        self.waiting = HelpRequest(self.clock(), cart_id)
        log.warning(
            "help requested on terminal %s (order in progress: %s)",
            self.terminal_id,
            cart_id or "none",
        )
        self._keep()
        if self.metrics is not None:
            self.metrics.help_requested()
            self.metrics.help_waiting(True)
        return True

    def clear(self) -> bool:
        """Staff have answered. Returns whether a request was waiting."""
        if self.waiting is None:
            return False
        waited = max(0.0, self.clock() - self.waiting.at)
        self.waiting = None
        log.info("help answered on terminal %s after %.0f s", self.terminal_id, waited)
        self._keep()
        if self.metrics is not None:
            self.metrics.help_waiting(False)
        return True

    def _keep(self) -> None:
        if self.folder is None:
            return
        path = self.folder / HELP_FILE
        try:
            if self.waiting is None:
                with contextlib.suppress(FileNotFoundError):
                    path.unlink()
            else:
                data = {"at": self.waiting.at, "cart_id": self.waiting.cart_id}
                paths.atomic_write(path, json.dumps(data))
        except OSError as exc:  # the request still stands in memory; staff still see it
            log.warning("help: cannot keep the request in %s (%s)", path, exc.strerror)

    def call_staff(self) -> bool:
        """Run the help command, if one is set (blocking: call it from a thread). True when it
        ran and succeeded, or there is none; a failure is logged."""
        if not self.command:
            return True
        argv = command_line(self.command, self.terminal_id)
        try:
            done = self._run(
                argv,
                stdin=subprocess.DEVNULL,
                capture_output=True,
                timeout=COMMAND_TIMEOUT,
                check=False,
            )
        except subprocess.TimeoutExpired:
            log.warning("help_command %s did not finish in %.0f s", argv[0], COMMAND_TIMEOUT)
            return False
        except OSError as exc:
            log.warning("help_command %s could not run: %s", argv[0], exc.strerror or exc)
            return False
        if done.returncode != 0:
            said = (done.stderr or b"").decode("utf-8", "replace").strip().splitlines()
            log.warning(
                "help_command %s failed (exit status %s)%s",
                argv[0],
                done.returncode,
                f": {said[-1][:200]}" if said else "",
            )
            return False
        log.info("help_command %s ran for terminal %s", argv[0], self.terminal_id)
        return True
