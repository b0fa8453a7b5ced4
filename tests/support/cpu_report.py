"""`--cpu-report N`: the suite's CPU time by test file and folder, the N costliest files first.

pytest's `--durations` gives wall time, which on a shared or busy machine says how loaded it was
as much as what a test costs; this counts the CPU time of the test process (all its threads, not
its child processes) from a test's setup to the end of its teardown, and the wall time beside
it: a file with much more wall than CPU waits on a clock, a child process or the network. With
xdist each worker measures its own tests and the figures travel in the reports.
"""

from __future__ import annotations

import time
from collections import defaultdict

import pytest

_STARTED = pytest.StashKey[tuple[float, float]]()


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        "--cpu-report",
        type=int,
        default=0,
        metavar="N",
        help="print the CPU time by test file (the N costliest) and by folder",
    )


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_setup(item: pytest.Item) -> None:
    if item.config.getoption("--cpu-report"):
        item.stash[_STARTED] = (time.process_time(), time.monotonic())


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]):  # type: ignore[no-untyped-def]
    outcome = yield
    if call.when != "teardown" or _STARTED not in item.stash:
        return
    cpu, wall = item.stash[_STARTED]
    report = outcome.get_result()
    report.user_properties.append(("cpu_s", time.process_time() - cpu))
    report.user_properties.append(("wall_s", time.monotonic() - wall))


def pytest_terminal_summary(
    terminalreporter: pytest.TerminalReporter, config: pytest.Config
) -> None:
    shown = config.getoption("--cpu-report")
    if not shown:
        return
    cpu: dict[str, float] = defaultdict(float)
    wall: dict[str, float] = defaultdict(float)
    tests: dict[str, int] = defaultdict(int)
    for reports in terminalreporter.stats.values():
        for report in reports:
            if getattr(report, "when", None) != "teardown":
                continue
            figures = dict(getattr(report, "user_properties", ()))
            if "cpu_s" not in figures:
                continue
            path = report.nodeid.split("::")[0]
            cpu[path] += figures["cpu_s"]
            wall[path] += figures["wall_s"]
            tests[path] += 1
    folders: dict[str, float] = defaultdict(float)
    for path, seconds in cpu.items():
        folders[path.split("/")[1] if path.count("/") > 1 else path] += seconds
    write = terminalreporter.write_line
    terminalreporter.section("CPU time by test file")
    write(f"all tests: {sum(cpu.values()):.0f} s of CPU, {sum(wall.values()):.0f} s of wall")
    write(
        "by folder: "
        + ", ".join(f"{k} {v:.0f} s" for k, v in sorted(folders.items(), key=lambda kv: -kv[1]))
    )
    write(f"{'CPU s':>7} {'wall s':>7} {'tests':>5}  file")
    for path in sorted(cpu, key=lambda p: -cpu[p])[:shown]:
        write(f"{cpu[path]:7.1f} {wall[path]:7.1f} {tests[path]:5d}  {path}")
