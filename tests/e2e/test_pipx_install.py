"""The README's counter install with pipx, as written (issue 36): pipx (a dev dependency, so in the
test environment's own venv, never the system's) installs the built wheel with PIPX_HOME and
PIPX_BIN_DIR in a folder of the test's own and `--python /usr/bin/python3`; then another user runs
`kiosk --version`, and `kiosk install-files` as root does not warn. (Without `--python`, pipx
builds the venv on its own interpreter; where that is under root's home, as on the test machine,
the other user gets "Permission denied" and this test fails: that is what `--python` is for.)

Offline: pip (run by pipx) finds no index (PIP_NO_INDEX) and takes the kiosk's dependencies from a
folder of wheels packed from the test environment's own installed copies of exactly the kiosk's
core requirements (and the extras those ask for); pipx's upgrade of its own pip is
switched off (PIPX_DISABLE_SHARED_LIBS_AUTO_UPGRADE). Running as another user needs root: a user
is made with useradd (and removed) only then; elsewhere the test is skipped, with the reason.
"""

from __future__ import annotations

import base64
import csv
import hashlib
import io
import os
import pwd
import shlex
import shutil
import subprocess
import sys
import tempfile
import zipfile
from collections.abc import Iterator
from importlib import metadata
from pathlib import Path
from typing import Any

import pytest

from kiosk import __version__

ROOT = Path(__file__).resolve().parents[2]
SYSTEM_PYTHON = Path("/usr/bin/python3")
PIPX = Path(sys.executable).with_name("pipx")
OTHER_USER = "kiosk-pipx-test"

pytestmark = pytest.mark.slow


def install_closure() -> list[metadata.Distribution]:
    """The installed distributions pip needs for the kiosk without extras: the core requirements,
    theirs, and those of the extras they ask for (textual asks markdown-it-py[linkify])."""
    from packaging.requirements import Requirement

    found: dict[str, metadata.Distribution] = {}
    seen: set[tuple[str, str]] = set()
    todo = [
        r for r in map(Requirement, metadata.requires("kiosk") or []) if _wanted(r, frozenset())
    ]
    while todo:
        req = todo.pop()
        name = req.name.lower().replace("_", "-")
        extras = frozenset(req.extras)
        if all((name, e) in seen for e in {"", *extras}):
            continue
        seen.update((name, e) for e in {"", *extras})
        dist = found.setdefault(name, metadata.distribution(req.name))
        todo += [r for r in map(Requirement, dist.requires or []) if _wanted(r, extras)]
    return list(found.values())


def _wanted(req: Any, extras: frozenset[str]) -> bool:
    return req.marker is None or any(req.marker.evaluate({"extra": e}) for e in {"", *extras})


def _record_hash(data: bytes) -> str:
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
    return f"sha256={digest}"


def pack_installed(dist: metadata.Distribution, folder: Path) -> Path:
    """A wheel of an installed distribution, from its own files (its tag from its WHEEL file)."""
    root = Path(str(dist.locate_file("")))
    files = [f for f in dist.files or [] if f.parts and f.parts[0] != ".." and f.suffix != ".pyc"]
    info = next(f.parts[0] for f in files if f.parts[0].endswith(".dist-info"))
    wheel_file = (root / info / "WHEEL").read_text()
    # The filename's tag set: every Tag line's parts, each joined with "." (py2.py3-none-any).
    tags = [
        line.split(":", 1)[1].strip().split("-")
        for line in wheel_file.splitlines()
        if line.startswith("Tag:")
    ]
    tag = "-".join(".".join(sorted({t[i] for t in tags})) for i in range(3))
    name = dist.metadata["Name"].replace("-", "_").replace(".", "_")
    target = folder / f"{name}-{dist.version}-{tag}.whl"
    record = io.StringIO()
    rows = csv.writer(record, lineterminator="\n")
    skip = {"RECORD", "INSTALLER", "REQUESTED", "direct_url.json"}
    with zipfile.ZipFile(target, "w", zipfile.ZIP_DEFLATED) as zipped:
        for file in files:
            source = root / file
            if (file.parts[0] == info and file.name in skip) or not source.is_file():
                continue
            data = source.read_bytes()
            zipped.writestr(str(file), data)
            rows.writerow([str(file), _record_hash(data), len(data)])
        rows.writerow([f"{info}/RECORD", "", ""])
        zipped.writestr(f"{info}/RECORD", record.getvalue())
    return target


@pytest.fixture(scope="module")
def other_user() -> Iterator[str]:
    if os.geteuid() != 0:
        pytest.skip("running the kiosk as another user needs root (CI runs as root)")
    if shutil.which("useradd") is None:
        pytest.skip("useradd is not installed")
    made = False
    try:
        pwd.getpwnam(OTHER_USER)
    except KeyError:
        subprocess.run(
            ["useradd", "--system", "--no-create-home", "--shell", "/usr/sbin/nologin", OTHER_USER],
            check=True,
        )
        made = True
    try:
        yield OTHER_USER
    finally:
        if made:
            subprocess.run(["userdel", OTHER_USER], check=False)


@pytest.fixture(scope="module")
def wheels() -> Iterator[tuple[Path, Path]]:
    """A folder every user may enter, holding the kiosk's wheel and its dependencies' wheels."""
    if not PIPX.exists():
        pytest.skip("pipx is not in the test environment (the dev extra installs it)")
    if not os.access(SYSTEM_PYTHON, os.X_OK):
        pytest.skip(f"{SYSTEM_PYTHON} is not here: the README's line names it")
    version = subprocess.run(
        [str(SYSTEM_PYTHON), "-c", "import sys; print(sys.version_info[:2])"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    if version != str(sys.version_info[:2]):
        pytest.skip(f"{SYSTEM_PYTHON} is {version}: this environment's packages are for another")
    folder = Path(tempfile.mkdtemp(prefix="kiosk-pipx-"))
    folder.chmod(0o755)
    try:
        links = folder / "wheels"
        links.mkdir()
        subprocess.run(
            [
                *(sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation"),
                *("-q", "-w", str(folder), str(ROOT)),
            ],
            check=True,
            capture_output=True,
        )
        for dist in install_closure():
            pack_installed(dist, links)
        (wheel,) = folder.glob("kiosk-*.whl")
        yield wheel, links
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def readme_pipx_arguments(wheel: Path) -> list[str]:
    """pipx's arguments as the README's install line gives them, the wheel named there replaced
    by the one built here (and its sudo and folders by the test's own, see pipx_install)."""
    readme = (ROOT / "README.md").read_text()
    line = next(
        line
        for line in readme.splitlines()
        if line.startswith("sudo ") and " pipx install " in line
    )
    words = shlex.split(line)
    after = words[words.index("pipx") + 1 :]
    assert [w for w in words if "=" in w and w.split("=")[0].isupper()] == [
        "PIPX_HOME=/opt/kiosk/pipx",
        "PIPX_BIN_DIR=/opt/kiosk/bin",
    ], line
    return [str(wheel) if word.endswith(".whl") else word for word in after]


def pipx_install(wheel: Path, links: Path, home: Path) -> subprocess.CompletedProcess[str]:
    """The README's line, with PIPX_HOME and PIPX_BIN_DIR in the test's folder."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PIP_", "PIPX_", "KIOSK_"))}
    env |= {
        "PIPX_HOME": str(home / "pipx"),
        "PIPX_BIN_DIR": str(home / "bin"),
        # Offline: the dependencies from the folder of wheels, pipx's own pip as it is.
        "PIP_NO_INDEX": "1",
        "PIP_FIND_LINKS": str(links),
        "PIP_CONFIG_FILE": os.devnull,
        "PIPX_DISABLE_SHARED_LIBS_AUTO_UPGRADE": "1",
        "PIP_NO_COMPILE": "1",  # the test runs the kiosk once: compiling every module costs ~10 s
    }
    return subprocess.run(
        [str(PIPX), *readme_pipx_arguments(wheel)],
        capture_output=True,
        text=True,
        env=env,
        timeout=600,
    )


def as_user(user: str, *argv: str) -> subprocess.CompletedProcess[str]:
    env = {"PATH": "/usr/bin:/bin", "HOME": "/nonexistent", "LANG": "C.UTF-8"}
    return subprocess.run(
        list(argv), capture_output=True, text=True, env=env, cwd="/", user=user, timeout=120
    )


@pytest.mark.clock_bound(seconds=14)
def test_the_readme_pipx_line_gives_a_kiosk_every_user_can_run(
    wheels: tuple[Path, Path], other_user: str
) -> None:
    wheel, links = wheels
    home = wheel.parent / "with-python"
    assert "--python" in readme_pipx_arguments(wheel)  # the point of issue 36
    done = pipx_install(wheel, links, home)
    assert done.returncode == 0, done.stdout + done.stderr
    kiosk = home / "bin" / "kiosk"
    version = as_user(other_user, str(kiosk), "--version")
    assert version.returncode == 0, version.stderr
    assert version.stdout.strip() == f"kiosk {__version__}"
    files = subprocess.run([str(kiosk), "install-files"], capture_output=True, text=True)
    assert files.returncode == 0 and "ForceCommand" in files.stdout
    assert "warning" not in files.stderr, files.stderr
    print(f"\npipx install --python {SYSTEM_PYTHON}: {other_user} ran `kiosk --version`")
