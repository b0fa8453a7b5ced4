"""Help requests and the out-of-order state, without the UI (issue 34): kiosk.help_call,
kiosk.out_of_order, the `help_command` setting, and the metrics they feed."""

from __future__ import annotations

import logging
import shlex
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from kiosk import out_of_order
from kiosk.config import ConfigError, Settings, load_settings
from kiosk.help_call import HELP_FILE, HelpDesk, command_line
from kiosk.metrics import FleetMetrics, render


def samples(metrics: FleetMetrics) -> dict[str, float]:
    out = {}
    for line in render(metrics).splitlines():
        if line.startswith("kiosk_") and "{" in line:
            out[line.split("{", 1)[0]] = float(line.rsplit(" ", 1)[1])
    return out


def test_help_and_out_of_order_metrics_are_served_from_the_start() -> None:
    metrics = FleetMetrics("counter-1")
    served = samples(metrics)
    assert served["kiosk_help_requests_total"] == 0
    assert served["kiosk_help_waiting"] == 0
    assert served["kiosk_out_of_order"] == 0
    metrics.set_out_of_order(True)
    assert samples(metrics)["kiosk_out_of_order"] == 1


class Runs:
    """A stand-in for subprocess.run that records each call and answers as told."""

    def __init__(self, answer: Any = 0) -> None:
        self.calls: list[list[str]] = []
        self.answer = answer

    def __call__(self, argv: list[str], **kwargs: Any) -> subprocess.CompletedProcess[bytes]:
        self.calls.append(argv)
        assert kwargs["stdin"] is subprocess.DEVNULL and kwargs["capture_output"]
        assert kwargs["timeout"] > 0  # never waits for ever
        if isinstance(self.answer, BaseException):
            raise self.answer
        return subprocess.CompletedProcess(argv, self.answer, b"", b"pager: no route\n")


def test_a_request_is_sent_once_kept_across_a_restart_and_cleared(tmp_path: Path) -> None:
    metrics = FleetMetrics("counter-1")
    runs = Runs()
    now = [1000.0]
    desk = HelpDesk(
        "counter-1",
        folder=tmp_path,
        command="notify-staff --room 'front desk'",
        metrics=metrics,
        clock=lambda: now[0],
        run=runs,
    )
    assert desk.ask("cart_1") is True
    assert desk.call_staff() is True
    assert runs.calls == [["notify-staff", "--room", "front desk", "counter-1"]]
    now[0] += 30
    assert desk.ask("cart_1") is False  # still waiting: nobody is called twice
    assert samples(metrics)["kiosk_help_requests_total"] == 1
    assert samples(metrics)["kiosk_help_waiting"] == 1

    # A restart: the request still waits (staff have not answered), counted as waiting, not new.
    again_metrics = FleetMetrics("counter-1")
    again = HelpDesk("counter-1", folder=tmp_path, metrics=again_metrics, run=runs)
    assert again.waiting is not None and again.waiting.at == 1000.0
    assert again.waiting.cart_id == "cart_1"
    assert samples(again_metrics)["kiosk_help_waiting"] == 1
    assert samples(again_metrics)["kiosk_help_requests_total"] == 0
    assert again.clear() is True and again.clear() is False
    assert not (tmp_path / HELP_FILE).exists()
    assert samples(again_metrics)["kiosk_help_waiting"] == 0


@pytest.mark.parametrize(
    ("answer", "logged"),
    [
        (2, "failed (exit status 2): pager: no route"),
        (subprocess.TimeoutExpired("notify-staff", 30), "did not finish in 30 s"),
        (FileNotFoundError(2, "No such file or directory"), "could not run: No such file"),
    ],
)
def test_a_failing_command_is_logged(
    answer: Any, logged: str, caplog: pytest.LogCaptureFixture
) -> None:
    desk = HelpDesk("counter-1", command="notify-staff", run=Runs(answer))
    with caplog.at_level(logging.WARNING, logger="kiosk.help"):
        assert desk.ask(None) is True
        assert desk.call_staff() is False
    assert any(logged in r.getMessage() for r in caplog.records), caplog.text
    assert desk.waiting is not None  # the request stands: staff see it on the staff screen


def test_a_real_command_gets_the_terminal_id(tmp_path: Path) -> None:
    out = tmp_path / "called"
    code = "import sys; open(sys.argv[1], 'w').write(sys.argv[2])"
    desk = HelpDesk("till-2", command=shlex.join([sys.executable, "-c", code, str(out)]))
    desk.ask(None)
    assert desk.call_staff() is True
    assert out.read_text() == "till-2"
    assert command_line("a 'b c'", "t") == ["a", "b c", "t"]


def test_the_help_command_setting(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    assert Settings().help_command is None
    assert Settings(help_command="  ").help_command is None
    with pytest.raises(ValueError, match="help_command is not a command line"):
        Settings(help_command="notify 'unclosed")
    config = tmp_path / "config.toml"
    config.write_text('help_command = "from-file"\n')
    assert load_settings(env={}, config_file=config).help_command == "from-file"
    env = {"KIOSK_HELP_COMMAND": "from-env"}
    assert load_settings(env=env, config_file=config).help_command == "from-env"
    flags = {"help_command": "from-flag"}
    assert load_settings(flags=flags, env=env, config_file=config).help_command == "from-flag"
    with pytest.raises(ConfigError, match="KIOSK_HELP_COMMAND"):
        load_settings(env={"KIOSK_HELP_COMMAND": '"'}, config_file=config)


def test_the_out_of_order_file_and_its_watch(tmp_path: Path) -> None:
    watch = out_of_order.Watch(tmp_path)
    assert watch.changed() is True  # the first look
    assert watch.changed() is False
    assert out_of_order.read(tmp_path) is None
    assert out_of_order.set_out_of_order(tmp_path, True, by="staff screen", now=50.0) is True
    assert out_of_order.set_out_of_order(tmp_path, True, by="command line") is False
    assert out_of_order.read(tmp_path) == out_of_order.Closed(50.0, "staff screen")
    assert watch.changed() is True and watch.changed() is False
    # A file edited by hand into nonsense still means closed: someone meant to close it.
    (tmp_path / out_of_order.OUT_OF_ORDER_FILE).write_text("closed!")
    assert watch.changed() is True
    assert out_of_order.read(tmp_path) == out_of_order.Closed(None, "unknown")
    assert out_of_order.set_out_of_order(tmp_path, False, by="command line") is True
    assert out_of_order.set_out_of_order(tmp_path, False, by="command line") is False
    assert out_of_order.read(tmp_path) is None
    assert watch.changed() is True
