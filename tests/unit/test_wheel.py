"""The built wheel carries the styles and starts the app: what a counter terminal installs."""

from __future__ import annotations

import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PIP = (sys.executable, "-m", "pip")

# Import the installed copy: the wheel's directory first on sys.path, before the checkout.
PROBE = """
import asyncio, sys
sys.path.insert(0, sys.argv[1])
import kiosk, kiosk.paths
assert kiosk.__file__.startswith(sys.argv[1]), kiosk.__file__
styles = kiosk.paths.styles_dir()
assert str(styles).startswith(sys.argv[1]), styles
from kiosk.config import Settings
from kiosk.ordering.services import KioskServices
from kiosk.tui.app import KioskApp

async def main() -> None:
    app = KioskApp(KioskServices(settings=Settings(), clients={}, location_ids=[]))
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        print("sheets", len(app.stylesheet.source))

asyncio.run(main())
print("styles", styles)
"""


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("dist")
    subprocess.run(
        [*PIP, "wheel", "--no-deps", "--no-build-isolation", "-q", "-w", str(out), str(ROOT)],
        check=True,
        capture_output=True,
    )
    (built,) = out.glob("kiosk-*.whl")
    return built


def test_the_wheel_carries_every_stylesheet(wheel: Path) -> None:
    names = set(zipfile.ZipFile(wheel).namelist())
    sources = sorted(p.name for p in (ROOT / "styles").glob("*.tcss"))
    assert sources, "no stylesheets in styles/"
    assert {f"kiosk/styles/{name}" for name in sources} <= names
    assert "kiosk/tui/app.py" in names and "kiosk/demo/app.py" in names


def test_the_wheel_carries_the_builtin_restaurants(wheel: Path) -> None:
    names = set(zipfile.ZipFile(wheel).namelist())
    sources = sorted(p.name for p in (ROOT / "kiosk" / "demo" / "restaurants").glob("*.toml"))
    assert "lantern.toml" in sources
    assert {f"kiosk/demo/restaurants/{name}" for name in sources} <= names


def test_the_installed_wheel_starts_the_app_with_its_styles(wheel: Path, tmp_path: Path) -> None:
    target = tmp_path / "site"
    subprocess.run(
        [*PIP, "install", "--no-deps", "-q", "--target", str(target), str(wheel)],
        check=True,
        capture_output=True,
    )
    done = subprocess.run(
        [sys.executable, "-c", PROBE, str(target)],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    assert f"styles {target / 'kiosk' / 'styles'}" in done.stdout
    sheets = int(done.stdout.split("sheets ", 1)[1].split()[0])
    assert sheets >= len(list((ROOT / "styles").glob("*.tcss")))
