"""How this kiosk was installed, and what a counter's install needs next (issue 36).

- Which tool installed it (pipx, uv's tools, or pip) and so the words that add an optional part
  (an extra of pyproject.toml) to it: `pipx inject`, `uv tool install --with`, `pip install
  'kiosk[...]'`. A command that needs several extras names them all in one message.
- Whether other users can run the interpreter behind it: pipx and uv build the kiosk's venv on an
  interpreter they are given (or their own), and one under root's home gives the kiosk user
  "Permission denied".
- A second (third...) counter over SSH: its Match block and the steps for its user, keys, settings
  and metrics port (`kiosk install-files --counter NAME`).

Nothing here is imported before the first frame of a kiosk; each function reads what it needs.
"""

from __future__ import annotations

import importlib.util
import os
import re
import shlex
import stat
import sys
from collections.abc import Iterable, Sequence
from pathlib import Path

# The extras of pyproject.toml a command may need, by the modules that show they are installed.
EXTRA_MODULES: dict[str, tuple[str, ...]] = {
    "demo": ("starlette", "uvicorn"),
    "serve": ("textual_serve",),
    "metrics": ("prometheus_client",),
    "printer": ("escpos",),
    "pictures": ("textual_image",),
}

# Where the README installs the kiosk (the shipped sshd block and systemd unit name it).
KIOSK_BIN = "/opt/kiosk/bin/kiosk"
FIRST_METRICS_PORT = 9464


def _found(module: str) -> bool:
    try:
        return importlib.util.find_spec(module) is not None
    except (ImportError, ValueError):  # ValueError: sys.modules[name] is None
        return False


def missing_extras(
    extras: Iterable[str], modules: dict[str, Sequence[str]] | None = None
) -> list[str]:
    """The extras among `extras` that are not installed, in the order given. `modules` narrows
    what an extra must provide for this command (e.g. the demo's Starlette without uvicorn)."""
    modules = modules or {}
    return [
        extra
        for extra in extras
        if not all(_found(m) for m in modules.get(extra, EXTRA_MODULES[extra]))
    ]


def installer(prefix: str | Path | None = None) -> str:
    """'pipx', 'uv' (a uv tool) or 'pip': what made the environment this kiosk runs in. Each
    leaves its mark in the venv: pipx's metadata file, uv's receipt."""
    root = Path(prefix if prefix is not None else sys.prefix)
    if (root / "pipx_metadata.json").is_file():
        return "pipx"
    if (root / "uv-receipt.toml").is_file():
        return "uv"
    return "pip"


def extra_requirements(extra: str) -> list[str]:
    """The requirements an extra adds, as the installed kiosk's metadata lists them."""
    from importlib import metadata

    try:
        lines = metadata.requires("kiosk") or []
    except metadata.PackageNotFoundError:
        lines = []
    marker = re.compile(r"extra\s*==\s*[\"']" + re.escape(extra) + r"[\"']")
    found = [line.split(";")[0].strip() for line in lines if marker.search(line)]
    # Only the packages: an extra that names other extras (kiosk[...]) adds nothing of its own.
    return [req for req in found if not req.startswith("kiosk")]


def _uv_receipt(prefix: Path) -> tuple[str, list[str], str | None]:
    """From uv's receipt: what the kiosk was installed from, what was added with it, and the
    interpreter it was given (so a reinstall keeps them)."""
    import tomllib

    source, python = "kiosk", None
    extra: list[str] = []
    try:
        tool = tomllib.loads((prefix / "uv-receipt.toml").read_text(encoding="utf-8"))["tool"]
    except (OSError, ValueError, KeyError):
        return source, extra, python
    for req in tool.get("requirements", []):
        if not isinstance(req, dict):
            continue
        spec = str(req.get("path") or req.get("url") or req.get("name", ""))
        if req.get("name") == "kiosk":
            source = spec or source
        elif spec:
            extra.append(spec + str(req.get("specifier", "")))
    python = tool.get("python") if isinstance(tool.get("python"), str) else None
    return source, extra, python


def add_extras_command(extras: Sequence[str], prefix: str | Path | None = None) -> str:
    """The command that adds `extras` to this kiosk, in the words of the tool that installed it."""
    root = Path(prefix if prefix is not None else sys.prefix)
    how = installer(root)
    sudo = "" if os.access(root, os.W_OK) else "sudo "
    packages = [req for extra in extras for req in extra_requirements(extra)]
    if how == "pipx" and packages:
        # pipx keeps its venvs in PIPX_HOME/venvs/NAME; without PIPX_HOME it looks in root's own.
        home = root.parent.parent if root.parent.name == "venvs" else None
        env = f"PIPX_HOME={shlex.quote(str(home))} " if home is not None else ""
        return f"{sudo}{env}pipx inject kiosk {shlex.join(packages)}"
    if how == "uv" and packages:
        source, added, python = _uv_receipt(root)
        env = f"UV_TOOL_DIR={shlex.quote(str(root.parent))} "
        withs = " ".join(f"--with {shlex.quote(req)}" for req in [*added, *packages])
        py = f" --python {shlex.quote(python)}" if python else ""
        return f"{sudo}{env}uv tool install{py} {withs} {shlex.quote(source)}"
    return f"pip install {shlex.quote('kiosk[' + ','.join(extras) + ']')}"


def extras_message(what: str, extras: Sequence[str], prefix: str | Path | None = None) -> str:
    """One line: what needs which extras, and the one command that adds them all."""
    return f"{what} needs: {add_extras_command(extras, prefix)}"


def require_extras(
    what: str, extras: Sequence[str], modules: dict[str, Sequence[str]] | None = None
) -> None:
    """A ConfigError (one line, exit 2) naming every missing extra at once."""
    missing = missing_extras(extras, modules)
    if missing:
        from kiosk.config import ConfigError

        raise ConfigError(extras_message(what, missing))


# Interpreter -------------------------------------------------------------------------------------
def _blocked_for_others(path: Path) -> Path | None:
    """The first part of `path` other users cannot pass, or None: every folder on the way must
    let them in (x); a folder at the end must also be listed (r, for imports), a file run (x)."""
    try:
        path = path.resolve()
        for folder in reversed(path.parents):
            if not folder.stat().st_mode & stat.S_IXOTH:
                return folder
        mode = path.stat().st_mode
        need = stat.S_IXOTH | (stat.S_IROTH if path.is_dir() else 0)
        if mode & need != need:
            return path
    except OSError:
        return path
    return None


def interpreter_problem() -> str | None:
    """Why other users (the kiosk user) could not run this kiosk, or None. Looked at: the
    interpreter behind the venv, its standard library and the kiosk package."""
    import kiosk

    for path in (Path(sys.executable), Path(os.__file__).parent, Path(kiosk.__file__).parent):
        blocked = _blocked_for_others(path)
        if blocked is not None:
            return (
                f"the interpreter behind this kiosk ({Path(sys.executable).resolve()}) cannot be "
                f"run by other users: {blocked} is closed to them, so the kiosk user gets "
                "'Permission denied'. Install it again on an interpreter every user can run: "
                "pipx uninstall kiosk, then pipx install --python /usr/bin/python3 ... (README, "
                "Install on a counter; pipx ignores --python together with --force)"
            )
    return None


# A second counter --------------------------------------------------------------------------------
def counter_user(name: str) -> str:
    return f"kiosk-{name}"


def counter_metrics_port(name: str) -> int:
    """counter-1 9464, counter-2 9465...: each kiosk on one host needs its own port; a name
    without a number gets the first and the steps say to pick a free one."""
    number = re.search(r"(\d+)$", name)
    return FIRST_METRICS_PORT + max(int(number.group(1)) - 1, 0) if number else FIRST_METRICS_PORT


def counter_block(shipped: str, name: str) -> str:
    """The shipped sshd block for the counter `name`: its own user and terminal id."""
    user = counter_user(name)
    block = shipped.replace("Match User kiosk\n", f"Match User {user}\n")
    block = block.replace("KIOSK_TERMINAL_ID=counter-1", f"KIOSK_TERMINAL_ID={name}")
    block = block.replace("the user `kiosk` logs in", f"the user `{user}` logs in")
    return block


def counter_steps(name: str, block_file: str, *, base_url: str | None, location: str | None) -> str:
    """The steps, as root, that make `name` a counter (after its Match block is written)."""
    user = counter_user(name)
    port = counter_metrics_port(name)
    home = f"/home/{user}"
    url = base_url or "https://storefront.example/api/v1/storefront"
    loc = location or "my-location-slug"
    return f"""\
# Counter {name}: its user, its key, its settings, its PIN, its test order, then sshd (as root).
useradd --create-home {user}
install -d -m 700 -o {user} -g {user} {home}/.ssh
# The counter's public key ({name}.pub; made on the counter with ssh-keygen -t ed25519):
install -m 600 -o {user} -g {user} {name}.pub {home}/.ssh/authorized_keys
# Its settings, in the file `sudo -u {user} {KIOSK_BIN} config path` names:
sudo -u {user} mkdir -p {home}/.config/kiosk
sudo -u {user} tee {home}/.config/kiosk/config.toml >/dev/null <<'EOF'
profile = "production"
location = "{loc}"
kiosk_mode = true
terminal_id = "{name}"
metrics = "{port}"   # a port of its own on this host (counter-1 9464, counter-2 9465...)

[profiles.production]
base_url = "{url}"
EOF
sudo -u {user} {KIOSK_BIN} set-pin
sudo -u {user} {KIOSK_BIN} doctor --test-order
# Its Match block at the end of sshd_config; then check and reload sshd (`sshd` on some systems):
cat {block_file} >> /etc/ssh/sshd_config && sshd -t && systemctl reload ssh
# Prometheus: add 127.0.0.1:{port} to the kiosks' scrape targets (docs/metrics.md).
"""
