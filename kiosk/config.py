"""Settings: one frozen object, built from defaults < TOML file < KIOSK_* env < command-line flags.

This module never imports Textual. The file is `paths.config_dir()/config.toml`:

    profile = "production"          # which [profiles.*] section applies
    location = "downtown"
    kiosk_mode = true

    [profiles.production]
    base_url = "https://api.example.com/api/v1"

A profile section may set any field the top level may; it wins over the top level. The API key never
comes from config.toml: it comes from KIOSK_API_KEY or from a secrets file
(`config_dir()/secrets.toml`, or the file KIOSK_SECRETS_FILE names) only its owner may read (0600):

    api_key = "..."                 # or per profile: [profiles.staging] api_key = "..."
"""

from __future__ import annotations

import math
import os
import re
import stat
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, fields, replace
from pathlib import Path
from typing import Any, Literal
from urllib.parse import urlsplit

from kiosk import paths

PaymentMode = Literal["scan", "counter"]
PAYMENT_MODES: tuple[str, ...] = ("scan", "counter")
API_DIALECTS: tuple[str, ...] = ("v1", "v2")
LOG_LEVELS: tuple[str, ...] = ("DEBUG", "INFO", "WARNING", "ERROR", "CRITICAL")
THEMES: tuple[str, ...] = ("default", "high-contrast")


class Secret:
    """A string that never shows itself: repr and str print stars. The interface of pydantic's
    SecretStr (`get_secret_value()`), without importing pydantic before the first frame."""

    __slots__ = ("_value",)

    def __init__(self, value: str) -> None:
        self._value = value

    def get_secret_value(self) -> str:
        return self._value

    def __repr__(self) -> str:
        return "Secret('**********')"

    def __str__(self) -> str:
        return "**********"

    def __eq__(self, other: object) -> bool:
        if isinstance(other, Secret):
            import hmac

            return hmac.compare_digest(self._value.encode(), other._value.encode())
        return NotImplemented

    def __hash__(self) -> int:
        return hash(self._value)

    def __len__(self) -> int:
        return len(self._value)

    def __deepcopy__(self, memo: dict[int, Any]) -> Secret:
        return self


@dataclass(frozen=True, slots=True)
class DeliveryZone:
    """Where this kiosk delivers, as the merchant lists it: postal codes and one point that stands
    for them (Storefront 2.0 wants coordinates with every delivery address, and a counter kiosk
    has no map). `config.toml`:

        [[delivery_zones]]
        name = "Downtown"
        postal_codes = ["10007", "10038"]
        lat = 40.7128
        lng = -74.0060
    """

    name: str
    postal_codes: tuple[str, ...]
    lat: float
    lng: float


def _zone(raw: Any, index: int) -> DeliveryZone:
    where = f"[{index}]"
    if not isinstance(raw, Mapping):
        raise ValueError(f"{where} must be a table with name, postal_codes, lat and lng")
    unknown = set(raw) - {"name", "postal_codes", "lat", "lng"}
    if unknown:
        raise ValueError(f"{where} has unknown keys {sorted(unknown)}")
    name = raw.get("name")
    if not isinstance(name, str) or not name.strip():
        raise ValueError(f"{where}.name must be a non-empty string")
    codes = raw.get("postal_codes")
    if (
        not isinstance(codes, list | tuple)
        or not codes
        or not all(isinstance(c, str) and c.strip() for c in codes)
    ):
        raise ValueError(f"{where}.postal_codes must be a non-empty list of strings")
    point = []
    for key, bound in (("lat", 90), ("lng", 180)):
        value = raw.get(key)
        if isinstance(value, bool) or not isinstance(value, int | float):
            raise ValueError(f"{where}.{key} must be a number")
        if not math.isfinite(value) or abs(value) > bound:
            raise ValueError(f"{where}.{key} must be between -{bound} and {bound}")
        point.append(float(value))
    normal = tuple(dict.fromkeys(c.strip().upper().replace(" ", "") for c in codes))
    return DeliveryZone(name.strip(), normal, point[0], point[1])


# A frozen dataclass, not a pydantic model: `kiosk` loads its settings before the first frame, and
# pydantic would add ~70 ms to it (issue 6 measures the first frame). Values are checked here.
@dataclass(frozen=True, kw_only=True)
class Settings:
    profile: str = "demo"
    # None in the demo profile: the kiosk runs the embedded backend in-process.
    base_url: str | None = None
    # The API key never comes from the TOML file: KIOSK_API_KEY or a 0600 secrets file.
    api_key: Secret | None = field(default=None, repr=False)
    location: str | None = None
    merchant: str | None = None

    kiosk_mode: bool = False
    staff_pin_hash: str | None = field(default=None, repr=False)
    idle_timeout: float = 90.0
    idle_countdown: float = 20.0
    payment_timeout: float = 300.0
    # Seconds between two looks at the payment while the rate budget has room (it slows by
    # itself when the budget runs low): kiosk.ordering.payment says why 2 s.
    payment_poll: float = 2.0
    done_timeout: float = 15.0
    payment_mode: PaymentMode = "scan"

    menu_ttl: float = 300.0
    demo_db: Path | None = None
    # The demo's restaurant: a built-in name (kiosk/demo/restaurants) or a restaurant file's path;
    # None: the built-in default.
    demo_menu: str | None = None
    log_level: str = "INFO"
    # Which terminal this kiosk is (its lock and crash-resume file); None: derived from the host
    # and the session (kiosk.terminal).
    terminal_id: str | None = None
    # The Storefront API's version: "v2" (2.0, today's hosted API) or "v1" (legacy API keys);
    # None: read from the base URL (runtime.dialect_for).
    api_dialect: str | None = None
    # Where delivery goes (config.toml [[delivery_zones]], or KIOSK_DELIVERY_ZONES as JSON). Empty
    # on Storefront 2.0: delivery is not offered (2.0 needs coordinates; see DeliveryZone).
    delivery_zones: tuple[DeliveryZone, ...] = ()
    # Requests per 10 minutes the service allows this kiosk's IP (the documented 200). The legacy
    # API's headers override it; on 2.0, which sends none, the kiosk counts against it itself.
    rate_limit: int = 200
    # The customer's language when a visit starts, and again after each order and reset (the
    # welcome screen offers the others: kiosk.i18n.LANGUAGES).
    language: str = "en"
    # Accessibility (issue 13 F): the merchant's colours ("default" or "high-contrast": black and
    # white, one accent, every state marked in text) and whether large text is the starting
    # point for each customer (each may switch it on the welcome screen until the order ends).
    theme: str = "default"
    large_text: bool = False

    # --- Receipt and counter payment (issue 13 C) ---
    # The receipt printer (python-escpos), e.g. "usb:0x04b8:0x0202", "network:192.168.1.50:9100",
    # "file:/dev/usb/lp0", "serial:/dev/ttyUSB0", or "dummy" (tests); None: no printer.
    printer: str | None = None
    # The merchant takes payment at the counter too: the customer chooses QR or counter.
    pay_at_counter: bool = False

    # Product pictures (issue 13): "auto" draws them where the terminal can (textual-image, the
    # `pictures` extra), "off" never. None (not set): auto, except a kiosk-mode counter reached
    # over SSH, where a picture costs the link more than it gives (`pictures_on`).
    pictures: str | None = None

    # Fleet metrics for Prometheus (kiosk.metrics, the `metrics` extra): None (off), a port
    # ("9464": http://127.0.0.1:9464/metrics), or a textfile for node_exporter's textfile
    # collector ("/var/lib/node_exporter/textfile/kiosk-{terminal}.prom": one file a terminal).
    metrics: str | None = None

    # Help (issue 34): a command run when a customer asks for staff, with the terminal id as its
    # last argument (kiosk.help_call), e.g. "notify-staff --channel counters"; None: none is run.
    help_command: str | None = None
    # Speech (issue 34, docs/accessibility.md): each screen, the focused row, what changed, said
    # through `speech_command` (a command line started once, fed one utterance a line on its
    # standard input; None: spd-say in pipe mode, else espeak-ng, whichever is installed).
    speech: bool = False
    speech_command: str | None = None

    def __post_init__(self) -> None:
        for f in fields(self):
            value = getattr(self, f.name)
            try:
                checked = _coerce(f.name, value)
            except ValueError as exc:
                raise ValueError(f"{f.name} {exc}") from None
            if checked is not value:
                object.__setattr__(self, f.name, checked)

    def replace(self, **changes: Any) -> Settings:
        """A copy with some fields changed (checked like any other Settings)."""
        return replace(self, **changes)


PICTURES = ("auto", "off")


def pictures_on(settings: Settings, environ: Mapping[str, str]) -> bool:
    """Whether product pictures are drawn: the merchant's setting, else on unless this is a
    kiosk-mode counter over SSH (SSH_CONNECTION set)."""
    if settings.pictures is not None:
        return settings.pictures == "auto"
    return not (settings.kiosk_mode and environ.get("SSH_CONNECTION"))


SETTING_NAMES: tuple[str, ...] = tuple(f.name for f in fields(Settings))
_FLOATS = {
    "idle_timeout",
    "idle_countdown",
    "payment_timeout",
    "payment_poll",
    "done_timeout",
    "menu_ttl",
}
_OPTIONAL_STRINGS = {"base_url", "location", "merchant", "staff_pin_hash", "demo_menu"}
# A terminal id names files (lock, resume): nothing a path could be made of.
_TERMINAL_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,63}")
_TRUE = {"1", "true", "yes", "on"}
_FALSE = {"0", "false", "no", "off"}


def _coerce(name: str, value: Any) -> Any:
    """Check one setting and convert what text (env, flags) or TOML gives to its type.

    Raises ValueError with a message that never quotes the API key.
    """
    coerce = _COERCERS.get(name)
    if coerce is None:
        raise ValueError("is not a setting")
    return coerce(value)


def _coerce_seconds(value: Any) -> float:
    if isinstance(value, str):
        try:
            value = float(value.strip())
        except ValueError:
            raise ValueError(f"must be a number of seconds (got {value!r})") from None
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise ValueError(f"must be a number of seconds (got {value!r})")
    if not math.isfinite(value) or value <= 0:
        raise ValueError(f"must be a positive number of seconds (got {value!r})")
    return float(value)


def _coerce_bool(value: Any) -> bool:
    if isinstance(value, str) and value.strip().lower() in _TRUE | _FALSE:
        return value.strip().lower() in _TRUE
    if not isinstance(value, bool):
        raise ValueError(f"must be true or false (got {value!r})")
    return value


def _one_of(choices: tuple[str, ...], *, optional: bool = False) -> Callable[[Any], str | None]:
    """A choice named in any case and spacing, stored in lower case; None too if `optional`."""

    def coerce(value: Any) -> str | None:
        if value is None and optional:
            return None
        if not isinstance(value, str) or value.strip().lower() not in choices:
            raise ValueError(f"must be one of {', '.join(choices)} (got {value!r})")
        return str(value.strip().lower())

    return coerce


def _coerce_string(*, optional: bool) -> Callable[[Any], str | None]:
    def coerce(value: Any) -> str | None:
        if value is None and optional:
            return None
        if not isinstance(value, str) or not value.strip():
            raise ValueError(f"must be a non-empty string (got {value!r})")
        return value.strip()

    return coerce


def _coerce_api_key(value: Any) -> Secret | None:
    if value is None or isinstance(value, Secret):
        return value
    if hasattr(value, "get_secret_value"):  # pydantic's SecretStr
        value = value.get_secret_value()
    if not isinstance(value, str) or not value.strip():
        raise ValueError("must be a non-empty string")
    return Secret(value.strip())


def _coerce_path(value: Any) -> Path | None:
    if value is None or isinstance(value, Path):
        return value
    if not isinstance(value, str) or not value:
        raise ValueError(f"must be a file path (got {value!r})")
    return Path(value).expanduser()


def _coerce_payment_mode(value: Any) -> str:
    if value not in PAYMENT_MODES:
        raise ValueError(f"must be one of {', '.join(PAYMENT_MODES)} (got {value!r})")
    return str(value)


def _coerce_log_level(value: Any) -> str:
    if not isinstance(value, str) or value.upper() not in LOG_LEVELS:
        raise ValueError(f"must be one of {', '.join(LOG_LEVELS)} (got {value!r})")
    return value.upper()


def _coerce_rate_limit(value: Any) -> int:
    if isinstance(value, str) and value.strip().isdigit():
        value = int(value.strip())
    if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= 100_000:
        raise ValueError(f"must be a whole number of requests, 1 or more (got {value!r})")
    return value


def _coerce_zones(value: Any) -> tuple[DeliveryZone, ...]:
    if isinstance(value, str):
        import json

        try:
            value = json.loads(value)
        except ValueError:
            raise ValueError("must be a JSON list of zones (as in config.toml)") from None
    if isinstance(value, tuple) and all(isinstance(z, DeliveryZone) for z in value):
        return value
    if not isinstance(value, list | tuple):
        raise ValueError("must be a list of [[delivery_zones]] tables")
    return tuple(_zone(raw, i) for i, raw in enumerate(value))


def _coerce_terminal_id(value: Any) -> str | None:
    if value is None:
        return value
    if not isinstance(value, str) or not _TERMINAL_ID.fullmatch(value.strip()):
        raise ValueError(
            "must be 1-64 letters, digits, '.', '_' or '-', starting with a letter or digit "
            f"(got {value!r})"
        )
    return value.strip()


def _coerce_language(value: Any) -> str:
    from kiosk.i18n import LANGUAGES  # late: the catalogues are not needed to read a config

    code = value.strip().lower() if isinstance(value, str) else value
    if code not in LANGUAGES:
        raise ValueError(f"must be one of {', '.join(LANGUAGES)} (got {value!r})")
    return str(code)


def _coerce_metrics(value: Any) -> str | None:
    if value is None or (isinstance(value, str) and value.strip().lower() in ("", "off")):
        return None
    if isinstance(value, int) and not isinstance(value, bool):
        value = str(value)
    if not isinstance(value, str):
        raise ValueError(f"must be a port (9464), a .prom file path, or off (got {value!r})")
    text = value.strip()
    if text.isdigit():
        if not 1 <= int(text) <= 65535:
            raise ValueError(f"must be a port from 1 to 65535 (got {value!r})")
        return str(int(text))
    if text.endswith(".prom") and ("/" in text or "\\" in text):
        return text
    # Only a port: the endpoint listens on 127.0.0.1 alone (a scraper on the host, or a tunnel).
    raise ValueError(
        "must be a port (9464: http://127.0.0.1:9464/metrics), a path ending in .prom (a "
        f"textfile for node_exporter), or off (got {value!r})"
    )


def _coerce_command(value: Any) -> str | None:
    """A command line, split as a shell would split it (no shell runs it): the program first."""
    if value is None or (isinstance(value, str) and not value.strip()):
        return None
    if not isinstance(value, str):
        raise ValueError(f"must be a command line, e.g. 'notify-staff --room 4' (got {value!r})")
    import shlex

    try:
        words = shlex.split(value)
    except ValueError as exc:
        raise ValueError(f"is not a command line ({exc}): {value!r}") from None
    if not words:
        raise ValueError(f"must name a program (got {value!r})")
    return value.strip()


def _coerce_receipt(name: str, value: Any) -> Any:
    """The receipt and counter-payment settings (issue 13 C)."""
    if name == "pay_at_counter":
        if isinstance(value, str) and value.strip().lower() in _TRUE | _FALSE:
            return value.strip().lower() in _TRUE
        if not isinstance(value, bool):
            raise ValueError(f"must be true or false (got {value!r})")
        return value
    if value is None:
        return value
    from kiosk.printing import parse_printer

    if not isinstance(value, str):
        raise ValueError(f"must be a printer such as usb:0x04b8:0x0202 (got {value!r})")
    parse_printer(value)  # raises ValueError with the accepted forms
    return value.strip()


# Each setting's check and conversion (see _coerce); a setting missing here is refused.
_COERCERS: dict[str, Callable[[Any], Any]] = {
    **dict.fromkeys(_FLOATS, _coerce_seconds),
    **dict.fromkeys(("kiosk_mode", "large_text", "speech"), _coerce_bool),
    **dict.fromkeys(_OPTIONAL_STRINGS, _coerce_string(optional=True)),
    "profile": _coerce_string(optional=False),
    "printer": lambda value: _coerce_receipt("printer", value),
    "pay_at_counter": lambda value: _coerce_receipt("pay_at_counter", value),
    "theme": _one_of(THEMES),
    "api_dialect": _one_of(API_DIALECTS, optional=True),
    "pictures": _one_of(PICTURES, optional=True),
    "api_key": _coerce_api_key,
    "demo_db": _coerce_path,
    "payment_mode": _coerce_payment_mode,
    "log_level": _coerce_log_level,
    "rate_limit": _coerce_rate_limit,
    "delivery_zones": _coerce_zones,
    "metrics": _coerce_metrics,
    "help_command": _coerce_command,
    "speech_command": _coerce_command,
    "terminal_id": _coerce_terminal_id,
    "language": _coerce_language,
}


class ConfigError(Exception):
    """A configuration problem, worded so that the person at the terminal can fix it."""


CONFIG_FILE_NAME = "config.toml"
SECRETS_FILE_NAME = "secrets.toml"
ENV_PREFIX = "KIOSK_"

# The built-in profiles. Production and staging have no URL until the merchant sets one in
# config.toml (or --base-url / KIOSK_BASE_URL); the demo profile has none on purpose: it means the
# embedded backend.
BUILTIN_PROFILES: dict[str, dict[str, Any]] = {
    "production": {"base_url": None},
    "staging": {"base_url": None},
    "demo": {"base_url": None},
}

_FIELDS = SETTING_NAMES


def config_file_path() -> Path:
    return paths.config_dir() / CONFIG_FILE_NAME


def secrets_file_path(env: Mapping[str, str] | None = None) -> Path:
    env = os.environ if env is None else env
    named = env.get("KIOSK_SECRETS_FILE")
    return Path(named) if named else paths.config_dir() / SECRETS_FILE_NAME


# --- loading -------------------------------------------------------------------------------------


class LoadedSettings:
    """Settings plus where each value came from (for `kiosk config show`)."""

    def __init__(self, settings: Settings, sources: dict[str, str]) -> None:
        self.settings = settings
        self.sources = sources


def load_settings(
    *,
    flags: Mapping[str, object] | None = None,
    env: Mapping[str, str] | None = None,
    config_file: Path | None = None,
) -> Settings:
    """Build Settings: defaults < config.toml (top level < profile section) < KIOSK_* env < flags.

    `flags` holds the options the user actually gave (None values are ignored). Raises ConfigError.
    """
    return load_settings_with_sources(flags=flags, env=env, config_file=config_file).settings


def load_settings_with_sources(
    *,
    flags: Mapping[str, object] | None = None,
    env: Mapping[str, str] | None = None,
    config_file: Path | None = None,
) -> LoadedSettings:
    env = os.environ if env is None else env
    flags = {k: v for k, v in (flags or {}).items() if v is not None}
    path = config_file if config_file is not None else config_file_path()
    data = _read_config_file(path)

    file_profiles = data.pop("profiles", {})
    if not isinstance(file_profiles, dict) or not all(
        isinstance(v, dict) for v in file_profiles.values()
    ):
        raise ConfigError(f"{path}: 'profiles' must be tables such as [profiles.production]")
    _check_keys(data, f"{path}")
    for name, section in file_profiles.items():
        if "profile" in section:
            raise ConfigError(f"{path}: [profiles.{name}] cannot set 'profile'")
        _check_keys(section, f"{path} [profiles.{name}]")

    env_values = _env_values(env)

    # Which profile applies: flag > env > file > default.
    profile: str = "demo"
    profile_source = "default"
    choices: list[tuple[str, Mapping[str, object]]] = [
        ("config.toml", data),
        ("KIOSK_PROFILE", env_values),
        ("--profile", flags),
    ]
    for source_name, values in choices:
        if "profile" in values:
            profile = str(values["profile"])
            profile_source = source_name
    known = {**{k: {} for k in BUILTIN_PROFILES}, **file_profiles}
    if profile not in known:
        names = ", ".join(sorted(known))
        raise ConfigError(
            f"unknown profile {profile!r} (from {profile_source}); known profiles: {names}. "
            f"Add a [profiles.{profile}] section to {path} to define it."
        )

    merged: dict[str, Any] = {}
    sources: dict[str, str] = {name: "default" for name in _FIELDS}
    layers: list[tuple[str, Mapping[str, Any]]] = [
        (f"built-in profile {profile}", BUILTIN_PROFILES.get(profile, {})),
        (str(path), data),
        (f"{path} [profiles.{profile}]", file_profiles.get(profile, {})),
        ("env", env_values),
        ("flag", flags),
    ]
    for source_name, values in layers:
        for key, value in values.items():
            if key not in _FIELDS:
                raise ConfigError(
                    f"unknown setting {key!r} (from {source_name}){did_you_mean(key)}"
                )
            if value is None and source_name.startswith("built-in"):
                continue
            merged[key] = value
            sources[key] = _source_label(source_name, key)
    merged["profile"] = profile
    sources["profile"] = profile_source

    if "api_key" not in merged:
        secret, secret_source = _read_secrets_file(secrets_file_path(env), profile)
        if secret is not None:
            merged["api_key"] = secret
            sources["api_key"] = secret_source

    settings = _validate(merged, sources)
    if settings.base_url is not None:
        check_base_url(settings.base_url)
    return LoadedSettings(settings, sources)


def _source_label(layer: str, key: str) -> str:
    if layer == "env":
        return ENV_PREFIX + key.upper()
    if layer == "flag":
        return "command line"
    return layer


def _read_config_file(path: Path) -> dict[str, Any]:
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        return {}
    except OSError as exc:
        raise ConfigError(f"cannot read {path}: {exc.strerror}") from None
    # Imported only when there is a file to parse: most kiosks have none, and it is ~2 ms of
    # `kiosk`'s start.
    import tomllib

    try:
        data = tomllib.loads(raw.decode("utf-8"))
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        raise ConfigError(f"{path} is not valid TOML: {exc}") from None
    return data


def did_you_mean(name: str) -> str:
    """'; did you mean 'kiosk_mode'?' for a setting close to a known one, else ''."""
    import difflib

    close = difflib.get_close_matches(name.lower().replace("-", "_"), sorted(_FIELDS), n=1)
    return f"; did you mean {close[0]!r}?" if close else ""


def _check_keys(values: Mapping[str, Any], where: str) -> None:
    if "api_key" in values:
        raise ConfigError(
            f"{where} contains api_key: the API key must not be kept in config.toml. Remove it, "
            f"then put it in KIOSK_API_KEY or in {secrets_file_path()} (chmod 600)."
        )
    for key in values:
        if key not in _FIELDS:
            raise ConfigError(f"{where}: unknown setting {key!r}{did_you_mean(key)}")


def _env_values(env: Mapping[str, str]) -> dict[str, str]:
    found: dict[str, str] = {}
    for name in _FIELDS:
        value = env.get(ENV_PREFIX + name.upper())
        # An empty variable counts as unset, as shells make that easy to do by accident.
        if value is not None and value != "":
            found[name] = value
    return found


def _read_secrets_file(path: Path, profile: str) -> tuple[str | None, str]:
    try:
        info = path.stat()
    except FileNotFoundError:
        return None, ""
    except OSError as exc:
        raise ConfigError(f"cannot read the secrets file {path}: {exc.strerror}") from None
    if os.name == "posix" and info.st_mode & (stat.S_IRWXG | stat.S_IRWXO):
        mode = stat.S_IMODE(info.st_mode)
        raise ConfigError(
            f"the secrets file {path} can be read by other users (mode {mode:04o}); "
            f"it must be 0600: run  chmod 600 {path}"
        )
    import tomllib

    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except (tomllib.TOMLDecodeError, UnicodeDecodeError):
        # Never echo the parser's message: it may quote the line holding the key.
        raise ConfigError(f"the secrets file {path} is not valid TOML") from None
    except OSError as exc:
        raise ConfigError(f"cannot read the secrets file {path}: {exc.strerror}") from None
    profiles = data.get("profiles")
    section = profiles.get(profile, {}) if isinstance(profiles, dict) else {}
    key = section.get("api_key") if isinstance(section, dict) else None
    if key is None:
        key = data.get("api_key")
    if key is None:
        return None, ""
    if not isinstance(key, str) or not key.strip():
        raise ConfigError(f"the secrets file {path}: api_key must be a non-empty string")
    return key.strip(), str(path)


def _validate(merged: dict[str, Any], sources: Mapping[str, str]) -> Settings:
    for name, value in merged.items():
        try:
            merged[name] = _coerce(name, value)
        except ValueError as exc:
            raise ConfigError(f"setting {name} from {sources.get(name, '?')} {exc}") from None
    return Settings(**merged)


# --- rules on values ------------------------------------------------------------------------------


def is_loopback_host(host: str) -> bool:
    import ipaddress

    host = host.strip("[]").lower()
    if host == "localhost" or host.endswith(".localhost"):
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def check_base_url(url: str) -> str:
    """Refuse what would send the key in clear text: https is required except to this machine."""
    parts = urlsplit(url)
    host = parts.hostname
    if parts.scheme not in ("http", "https") or not host:
        raise ConfigError(
            f"base URL {url!r} is not an http(s) URL; expected e.g. https://api.example.com/api/v1"
        )
    if parts.username or parts.password:
        raise ConfigError("the base URL must not contain a user name or password")
    if parts.scheme == "http" and not is_loopback_host(host):
        raise ConfigError(
            f"base URL {url!r} uses plain http to {host}, which would send the API key "
            "unencrypted; use https (plain http is allowed only for 127.0.0.1, ::1 and localhost)"
        )
    return url


def redacted_key(key: Secret | str | None, source: str | None = None) -> str:
    """How the key may be shown: its kind of prefix and nothing more."""
    if key is None:
        return "not set"
    value = key if isinstance(key, str) else key.get_secret_value()
    prefix = value.split("_", 1)[0] + "_" if "_" in value[:8] else ""
    shown = f"{prefix}…(redacted)"
    return f"{shown}, set (from {source})" if source else shown


# --- the staff PIN --------------------------------------------------------------------------------

_SCRYPT_N, _SCRYPT_R, _SCRYPT_P = 2**14, 8, 1
PIN_MIN, PIN_MAX = 4, 12


def check_pin_format(pin: str) -> None:
    if not pin.isdigit() or not PIN_MIN <= len(pin) <= PIN_MAX:
        raise ConfigError(f"the staff PIN must be {PIN_MIN} to {PIN_MAX} digits")


def hash_pin(pin: str, *, salt: bytes | None = None) -> str:
    """A salted scrypt hash, self-describing: scrypt$n$r$p$salt$hash (base64)."""
    import base64
    import hashlib
    import secrets

    check_pin_format(pin)
    salt = salt if salt is not None else secrets.token_bytes(16)
    digest = hashlib.scrypt(
        pin.encode(), salt=salt, n=_SCRYPT_N, r=_SCRYPT_R, p=_SCRYPT_P, dklen=32
    )
    b64 = base64.b64encode
    return f"scrypt${_SCRYPT_N}${_SCRYPT_R}${_SCRYPT_P}${b64(salt).decode()}${b64(digest).decode()}"


def verify_pin(pin: str, stored: str | None) -> bool:
    """True when `pin` matches the stored hash. A missing or malformed hash matches nothing."""
    import base64
    import hashlib
    import hmac

    if not stored:
        return False
    try:
        scheme, n, r, p, salt_b64, digest_b64 = stored.split("$")
        if scheme != "scrypt":
            return False
        salt = base64.b64decode(salt_b64, validate=True)
        expected = base64.b64decode(digest_b64, validate=True)
        got = hashlib.scrypt(
            pin.encode(), salt=salt, n=int(n), r=int(r), p=int(p), dklen=len(expected)
        )
    except (ValueError, TypeError):
        return False
    return hmac.compare_digest(got, expected)


def write_pin_hash(pin_hash: str, config_file: Path | None = None) -> Path:
    """Set `staff_pin_hash` at the top level of config.toml, keeping the rest of the file as is."""
    path = config_file if config_file is not None else config_file_path()
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        text = ""
    new_line = f'staff_pin_hash = "{pin_hash}"'
    lines = text.splitlines()
    first_table = next(
        (i for i, line in enumerate(lines) if line.lstrip().startswith("[")), len(lines)
    )
    for i in range(first_table):
        if lines[i].split("=", 1)[0].strip() == "staff_pin_hash":
            lines[i] = new_line
            break
    else:
        lines.insert(first_table, new_line)
        if first_table < len(lines) - 1:
            lines.insert(first_table + 1, "")
    new_text = "\n".join(lines) + "\n"
    import tomllib

    try:
        parsed = tomllib.loads(new_text)
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{path} is not valid TOML, fix it first: {exc}") from None
    if parsed.get("staff_pin_hash") != pin_hash:
        raise ConfigError(f"could not set staff_pin_hash in {path}; edit the file by hand")
    try:
        mode = stat.S_IMODE(path.stat().st_mode)
    except FileNotFoundError:
        # The hash of a short PIN can be brute-forced offline: keep a new file private.
        mode = 0o600
    paths.atomic_write(path, new_text, mode)
    return path
