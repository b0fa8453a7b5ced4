"""A counter's install, as the README says it (issue 23): the built wheel installed with only what
a counter needs (no extras: no demo backend, no textual-serve) into a fresh virtual environment,
then `kiosk --version`, `kiosk config show`, `kiosk install-files` and `kiosk doctor --test-order`
against a local Storefront 2.0 server that is not ours (tests/conformance/vendor_server.py under
uvicorn on 127.0.0.1).

Offline: the wheel is built without build isolation (as tests/unit/test_wheel.py does) and
installed with `pip install --no-index --no-deps`; its dependencies are the test environment's own
installed copies of exactly the closure of the kiosk's core requirements (no extras), copied into
the fresh environment, and `pip check` then proves that closure complete. Nothing is fetched.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import time
from collections.abc import Iterator
from importlib import metadata
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
LOCATION_ID = "66a1f0c2b3d4e5f60718293a"
PIP = (sys.executable, "-m", "pip")

# The module's first test builds the wheel and a fresh venv (its install alone may take 600 s).
pytestmark = [pytest.mark.slow, pytest.mark.timeout(900)]


def core_closure() -> list[metadata.Distribution]:
    """The installed distributions the kiosk needs without any extra, recursively."""
    from packaging.requirements import Requirement

    found: dict[str, metadata.Distribution] = {}
    todo = [Requirement(r) for r in metadata.requires("kiosk") or []]
    while todo:
        req = todo.pop()
        if req.marker is not None and not req.marker.evaluate({"extra": ""}):
            continue
        name = req.name.lower().replace("_", "-")
        if name in found:
            continue
        dist = metadata.distribution(req.name)
        found[name] = dist
        todo += [Requirement(r) for r in dist.requires or []]
    return list(found.values())


def copy_installed(dist: metadata.Distribution, site: Path) -> None:
    root = Path(str(dist.locate_file("")))
    for file in dist.files or []:
        if file.parts and file.parts[0] == "..":  # scripts outside site-packages
            continue
        source = root / file
        if source.is_file():
            target = site / file
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(source, target)


@pytest.fixture(scope="module")
def counter_venv(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Path, float]]:
    started = time.monotonic()
    work = tmp_path_factory.mktemp("install")
    subprocess.run(
        [*PIP, "wheel", "--no-deps", "--no-build-isolation", "-q", "-w", str(work), str(ROOT)],
        check=True,
        capture_output=True,
    )
    (wheel,) = work.glob("kiosk-*.whl")
    venv = work / "counter"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    python = str(venv / "bin" / "python")
    site = Path(
        subprocess.run(
            [python, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
            capture_output=True,
            text=True,
            check=True,
        ).stdout.strip()
    )
    for dist in core_closure():
        copy_installed(dist, site)
    env = {**os.environ, "PIP_CONFIG_FILE": os.devnull, "PIP_NO_INDEX": "1"}
    env.pop("PIP_FIND_LINKS", None)
    done = subprocess.run(
        [python, "-m", "pip", "install", "-q", "--no-index", "--no-deps", str(wheel)],
        capture_output=True,
        text=True,
        env=env,
        timeout=600,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    # Every requirement of the installed kiosk is met by what was copied: nothing missing.
    checked = subprocess.run([python, "-m", "pip", "check"], capture_output=True, text=True)
    assert checked.returncode == 0, checked.stdout + checked.stderr
    yield venv, time.monotonic() - started


def kiosk(venv: Path, home: Path, *argv: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("KIOSK_", "PYTHON"))}
    env["KIOSK_HOME"] = str(home)
    return subprocess.run(
        [str(venv / "bin" / "kiosk"), *argv],
        capture_output=True,
        text=True,
        env=env,
        cwd=home,
        timeout=120,
    )


@pytest.mark.clock_bound(seconds=12)
def test_a_counter_install_from_the_wheel(counter_venv: tuple[Path, float], tmp_path: Path) -> None:
    venv, install_seconds = counter_venv
    print(f"\nthe wheel built and installed into a fresh venv in {install_seconds:.1f} s")
    home = tmp_path / "home"
    home.mkdir()
    from kiosk import __version__

    version = kiosk(venv, home, "--version")
    assert version.returncode == 0 and version.stdout.strip() == f"kiosk {__version__}"

    # Only what a counter needs: the demo backend and textual-serve are not installed.
    python = str(venv / "bin" / "python")
    probe = (
        "import importlib.util as u; print([m for m in ('starlette', 'uvicorn', "
        "'textual_serve', 'textual', 'httpx') if u.find_spec(m)])"
    )
    found = subprocess.run([python, "-c", probe], capture_output=True, text=True, cwd=home)
    assert found.stdout.strip() == "['textual', 'httpx']", found.stderr

    shown = kiosk(venv, home, "config", "show")
    assert shown.returncode == 0, shown.stderr
    assert "terminal_id" in shown.stdout and "kiosk_mode" in shown.stdout
    assert str(home) in shown.stdout  # the config file under KIOSK_HOME

    files = kiosk(venv, home, "install-files")
    assert files.returncode == 0 and "ForceCommand" in files.stdout and "[Service]" in files.stdout


def test_the_installed_counter_places_a_test_order_on_a_2_0_server(
    counter_venv: tuple[Path, float], tmp_path: Path
) -> None:
    from tests.conformance.serving import UvicornThread
    from tests.conformance.vendor_server import make_vendor_app

    venv, _ = counter_venv
    home = tmp_path / "home"
    home.mkdir()
    app = make_vendor_app(test_payment=False)  # as the hosted service: no test payment
    with UvicornThread(app) as server:
        base_url = server.url + "/api/v1/storefront"
        done = kiosk(
            venv,
            home,
            *("--profile", "production", "doctor", "--test-order", "--api", "v2"),
            *("--base-url", base_url, "--location", LOCATION_ID),
        )
    out = done.stdout + done.stderr
    assert done.returncode == 0, out
    assert "the test order PASSED" in done.stdout
    assert app.state.violations == [], out
    carts = list(app.state.store.carts.values())
    assert [c.status for c in carts] == ["EXPIRED"] and carts[0].lines
