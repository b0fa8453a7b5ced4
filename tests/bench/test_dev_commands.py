"""Benchmark 15 ("15 demo", "15 suite"): what a developer waits for, the README's two commands.

- `./dev demo` on a fresh clone: from the command to the kiosk's first screen (the demo's
  locations listed), in a real pseudo-terminal, the virtual environment made from nothing. The
  clone is of the committed HEAD. The installer's download cache is this machine's (a newcomer's
  first install also downloads the packages), and so is the uv that ./dev fetches once into the
  user's cache (noted when it was fetched in this run). Noted: the installer, the packages
  installed, the environment's size and whether the install's progress reached the terminal.
- `./dev test`: the whole suite as the README runs it, wall time and the tests that ran. It takes
  about ten minutes, so it runs only when asked (BENCH_SUITE=1); otherwise its last figure
  stays in results.json and in the table, with its date.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import time
from pathlib import Path

import pytest

from tests.bench.conftest import Figures
from tests.bench.pty_run import PtyApp, visible_text
from tests.bench.test_terminal import DEMO_READY

ROOT = Path(__file__).resolve().parents[2]
DEMO_GOAL = 10.0  # seconds, issue 36 (20 in issue 22)
SUITE_GOAL = 300.0
# pip's and uv's words when the package index cannot be reached: the bench then measures nothing.
OFFLINE = re.compile(
    r"No matching distribution|Could not find a version|Temporary failure in name resolution|"
    r"Network is unreachable|Failed to establish a new connection|Failed to fetch|"
    r"No solution found"
)
# What pip and uv write only when they are not quiet (./dev passes --quiet unless a terminal
# watches): the install's progress.
PROGRESS = re.compile(r"Installing collected packages|Installed \d+ packages|Prepared \d+ packages")


def _clone(to: Path) -> Path:
    subprocess.run(["git", "clone", "--quiet", str(ROOT), str(to)], check=True)
    return to


def _dir_bytes(path: Path) -> int:
    return sum(p.stat().st_size for p in path.rglob("*") if p.is_file() and not p.is_symlink())


def test_dev_demo_on_a_fresh_clone(figures: Figures, tmp_path: Path) -> None:
    clone = _clone(tmp_path / "clone")
    home = tmp_path / "home"
    env = {"KIOSK_HOME": str(home), "PYTHONPATH": "", "VIRTUAL_ENV": ""}
    with PtyApp(
        [shutil.which("bash") or "/bin/bash", "./dev", "demo"], env=env, cwd=str(clone)
    ) as app:
        try:
            seconds = app.wait_for_text(DEMO_READY, timeout=600)
        except TimeoutError:
            shown = visible_text(bytes(app.output))
            if OFFLINE.search(shown):
                pytest.skip("the package index cannot be reached: nothing to install from")
            raise
        shown = visible_text(bytes(app.output))
    progress = bool(PROGRESS.search(shown))
    installer = "uv" if "Installed" in shown or "Prepared" in shown else "pip"
    fetched_uv = "fetching uv" in shown
    venv = clone / ".venv"
    # What the demo's install brought: not the kiosk itself, nor a venv's own pip and setuptools
    # (a venv ./dev makes for uv has none; one for pip has them).
    listed = subprocess.run(
        [
            str(venv / "bin/python"),
            "-c",
            "import importlib.metadata as m; print(*sorted({d.metadata['Name'] for d in "
            "m.distributions()}))",
        ],
        check=True,
        capture_output=True,
        text=True,
    ).stdout.split()
    packages = [p for p in listed if p.lower() not in {"pip", "setuptools", "kiosk"}]
    size_mb = _dir_bytes(venv) / 1e6
    assert (venv / "bin/kiosk").exists()
    figures.add(
        "15 demo",
        "`./dev demo` on a fresh clone to the first screen (venv made, pty)",
        seconds,
        "s",
        goal=f"<= {DEMO_GOAL:g} s, progress shown",
        passed=seconds <= DEMO_GOAL and progress,
        note=f"{installer}; {len(packages)} packages, {size_mb:.0f} MB; progress on the terminal: "
        f"{'yes' if progress else 'no'}; download cache warm; "
        + ("uv fetched into the user's cache in this run" if fetched_uv else "uv already there"),
    )


def test_dev_test_whole_suite(figures: Figures) -> None:
    if os.environ.get("BENCH_SUITE") != "1":
        pytest.skip(
            "the whole suite takes about ten minutes: "
            "BENCH_SUITE=1 ./dev bench tests/bench/test_dev_commands.py"
        )
    env = {k: v for k, v in os.environ.items() if k != "BENCH_SUITE"}
    started = time.perf_counter()
    done = subprocess.run(
        ["./dev", "test"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
    )
    seconds = time.perf_counter() - started
    summary = done.stdout.strip().splitlines()[-1] if done.stdout.strip() else done.stderr[-500:]
    counts = {
        word: int(n) for n, word in re.findall(r"(\d+) (passed|failed|errors?|skipped)", summary)
    }
    failed = [line for line in done.stdout.splitlines() if line.startswith(("FAILED", "ERROR"))]
    assert done.returncode == 0, "\n".join([summary, *failed])
    workers = re.search(r"(\d+) workers", done.stdout)
    # The interpreter ./dev made the venv from (the system's Python where it can: ./dev).
    python = subprocess.run(
        [
            str(ROOT / ".venv/bin/python"),
            "-c",
            "import sys; print(sys.base_prefix, sys.version.split()[0])",
        ],
        capture_output=True,
        text=True,
    ).stdout.strip()
    figures.add(
        "15 suite",
        "`./dev test`, the whole suite, wall time",
        seconds,
        "s",
        goal=f"<= {SUITE_GOAL:g} s",
        passed=seconds <= SUITE_GOAL,
        note=f"{counts.get('passed', 0)} passed, {counts.get('skipped', 0)} skipped; "
        f"{workers.group(1) if workers else '?'} workers on {os.cpu_count()} CPUs; "
        f"Python {python}",
    )
