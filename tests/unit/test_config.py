"""The settings loader: precedence, profiles, the key's two homes, the refusals, the staff PIN."""

from __future__ import annotations

import dataclasses
import os
from pathlib import Path
from typing import Any

import pytest

from kiosk import paths
from kiosk.config import (
    ConfigError,
    Settings,
    check_base_url,
    hash_pin,
    load_settings,
    load_settings_with_sources,
    redacted_key,
    verify_pin,
    write_pin_hash,
)

KEY = "sk_test_0123456789abcdefSECRET"


def _write(path: Path, text: str, mode: int = 0o644) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    os.chmod(path, mode)
    return path


@pytest.fixture
def config_file(kiosk_home: Path) -> Path:
    return paths.config_dir() / "config.toml"


@pytest.fixture
def secrets_file(kiosk_home: Path) -> Path:
    return paths.config_dir() / "secrets.toml"


def test_defaults_without_any_file_or_env() -> None:
    settings = load_settings(env={})
    assert settings == Settings()
    assert settings.profile == "demo"
    assert settings.base_url is None
    assert settings.api_key is None


def test_the_default_file_is_in_the_config_dir(config_file: Path) -> None:
    _write(config_file, "idle_timeout = 42\n")
    assert load_settings(env={}).idle_timeout == 42.0


# Each field with a value for each layer; every layer must win over the one below it.
LAYERED: list[tuple[str, str, str, str, Any, Any, Any]] = [
    # field, toml literal, env value, flag value, expected(file), expected(env), expected(flag)
    ("idle_timeout", "10", "20", "30", 10.0, 20.0, 30.0),
    ("idle_countdown", "1.5", "2.5", "3.5", 1.5, 2.5, 3.5),
    ("payment_timeout", "100", "200", "400", 100.0, 200.0, 400.0),
    ("done_timeout", "4", "5", "6", 4.0, 5.0, 6.0),
    ("menu_ttl", "60", "120", "240", 60.0, 120.0, 240.0),
    ("kiosk_mode", "true", "false", "true", True, False, True),
    ("location", '"loc-file"', "loc-env", "loc-flag", "loc-file", "loc-env", "loc-flag"),
    ("merchant", '"m-file"', "m-env", "m-flag", "m-file", "m-env", "m-flag"),
    ("payment_mode", '"counter"', "scan", "counter", "counter", "scan", "counter"),
    ("log_level", '"warning"', "debug", "error", "WARNING", "DEBUG", "ERROR"),
    ("demo_db", '"/f.db"', "/e.db", "/g.db", Path("/f.db"), Path("/e.db"), Path("/g.db")),
    ("demo_menu", '"kowhai"', "/e.toml", "/g.toml", "kowhai", "/e.toml", "/g.toml"),
    ("speech", "true", "false", "true", True, False, True),
    (
        "speech_command",
        '"espeak-ng -s 140"',
        "spd-say --pipe-mode -r 20",
        "cat",
        "espeak-ng -s 140",
        "spd-say --pipe-mode -r 20",
        "cat",
    ),
    (
        "base_url",
        '"https://file.example/api/v1"',
        "https://env.example/api/v1",
        "https://flag.example/api/v1",
        "https://file.example/api/v1",
        "https://env.example/api/v1",
        "https://flag.example/api/v1",
    ),
]


@pytest.mark.parametrize(("field", "toml", "env", "flag", "by_file", "by_env", "by_flag"), LAYERED)
def test_precedence_per_field(
    config_file: Path,
    field: str,
    toml: str,
    env: str,
    flag: str,
    by_file: Any,
    by_env: Any,
    by_flag: Any,
) -> None:
    default = getattr(Settings(), field)
    # Each layer differs from the one below it, so that a layer silently ignored would show.
    assert default != by_file and by_file != by_env and by_env != by_flag
    assert getattr(load_settings(env={}), field) == default

    _write(config_file, f"{field} = {toml}\n")
    assert getattr(load_settings(env={}), field) == by_file

    env_map = {f"KIOSK_{field.upper()}": env}
    loaded = load_settings_with_sources(env=env_map)
    assert getattr(loaded.settings, field) == by_env
    assert loaded.sources[field] == f"KIOSK_{field.upper()}"

    flagged = load_settings_with_sources(env=env_map, flags={field: flag})
    assert getattr(flagged.settings, field) == by_flag
    assert flagged.sources[field] == "command line"


def test_a_none_flag_means_not_given(config_file: Path) -> None:
    _write(config_file, 'location = "from-file"\n')
    assert load_settings(env={}, flags={"location": None}).location == "from-file"


def test_empty_env_counts_as_unset(config_file: Path) -> None:
    _write(config_file, 'location = "from-file"\n')
    assert load_settings(env={"KIOSK_LOCATION": ""}).location == "from-file"


def test_explicit_config_file_argument(tmp_path: Path) -> None:
    other = _write(tmp_path / "elsewhere.toml", 'merchant = "elsewhere"\n')
    assert load_settings(env={}, config_file=other).merchant == "elsewhere"


PROFILES = """
profile = "production"
location = "top-level"

[profiles.production]
base_url = "https://api.example.com/api/v1"
location = "prod-loc"

[profiles.staging]
base_url = "https://staging.example.com/api/v1"

[profiles.lab]
base_url = "http://127.0.0.1:8765/api/v1"
"""


def test_profile_from_file_selects_its_section(config_file: Path) -> None:
    _write(config_file, PROFILES)
    settings = load_settings(env={})
    assert settings.profile == "production"
    assert settings.base_url == "https://api.example.com/api/v1"
    # The profile section wins over the top level.
    assert settings.location == "prod-loc"


def test_profile_from_env_and_flag(config_file: Path) -> None:
    _write(config_file, PROFILES)
    staging = load_settings(env={"KIOSK_PROFILE": "staging"})
    assert (staging.profile, staging.base_url) == ("staging", "https://staging.example.com/api/v1")
    # Staging has no location of its own: the top level applies.
    assert staging.location == "top-level"
    lab = load_settings(env={"KIOSK_PROFILE": "staging"}, flags={"profile": "lab"})
    assert (lab.profile, lab.base_url) == ("lab", "http://127.0.0.1:8765/api/v1")


def test_demo_profile_has_no_base_url(config_file: Path) -> None:
    _write(config_file, PROFILES)
    demo = load_settings(env={}, flags={"profile": "demo"})
    assert demo.profile == "demo"
    assert demo.base_url is None


def test_builtin_production_profile_has_no_url_until_the_merchant_sets_one() -> None:
    assert load_settings(env={}, flags={"profile": "production"}).base_url is None


def test_env_base_url_beats_the_profile_section(config_file: Path) -> None:
    _write(config_file, PROFILES)
    settings = load_settings(env={"KIOSK_BASE_URL": "https://override.example/api/v1"})
    assert settings.base_url == "https://override.example/api/v1"


def test_unknown_profile_is_refused_with_the_known_names(config_file: Path) -> None:
    _write(config_file, PROFILES)
    with pytest.raises(ConfigError) as info:
        load_settings(env={}, flags={"profile": "prod"})
    message = str(info.value)
    assert "'prod'" in message
    assert "lab" in message and "production" in message and "staging" in message


def test_unknown_setting_in_file_is_refused(config_file: Path) -> None:
    _write(config_file, "idle_timout = 3\n")
    with pytest.raises(ConfigError, match="idle_timout"):
        load_settings(env={})


def test_invalid_toml_is_refused_with_the_path(config_file: Path) -> None:
    _write(config_file, "idle_timeout = = 3\n")
    with pytest.raises(ConfigError, match="not valid TOML"):
        load_settings(env={})


def test_bad_value_names_its_source() -> None:
    with pytest.raises(ConfigError) as info:
        load_settings(env={"KIOSK_IDLE_TIMEOUT": "soon"})
    assert "idle_timeout" in str(info.value)
    assert "KIOSK_IDLE_TIMEOUT" in str(info.value)


def test_bad_log_level_is_refused() -> None:
    with pytest.raises(ConfigError, match="log_level"):
        load_settings(env={}, flags={"log_level": "loud"})


# --- the API key ----------------------------------------------------------------------------------


def test_key_from_env() -> None:
    loaded = load_settings_with_sources(env={"KIOSK_API_KEY": KEY})
    assert loaded.settings.api_key is not None
    assert loaded.settings.api_key.get_secret_value() == KEY
    assert loaded.sources["api_key"] == "KIOSK_API_KEY"


def test_key_from_a_0600_secrets_file(secrets_file: Path) -> None:
    _write(secrets_file, f'api_key = "{KEY}"\n', mode=0o600)
    loaded = load_settings_with_sources(env={})
    assert loaded.settings.api_key is not None
    assert loaded.settings.api_key.get_secret_value() == KEY
    assert loaded.sources["api_key"] == str(secrets_file)


def test_secrets_file_named_by_env(tmp_path: Path) -> None:
    named = _write(tmp_path / "keys" / "kiosk.toml", f'api_key = "{KEY}"\n', mode=0o600)
    settings = load_settings(env={"KIOSK_SECRETS_FILE": str(named)})
    assert settings.api_key is not None
    assert settings.api_key.get_secret_value() == KEY


def test_secrets_file_per_profile_key(secrets_file: Path, config_file: Path) -> None:
    _write(config_file, PROFILES)
    _write(
        secrets_file,
        f'api_key = "top"\n[profiles.staging]\napi_key = "{KEY}"\n',
        mode=0o600,
    )
    staging = load_settings(env={}, flags={"profile": "staging"})
    production = load_settings(env={})
    assert staging.api_key is not None and staging.api_key.get_secret_value() == KEY
    assert production.api_key is not None and production.api_key.get_secret_value() == "top"


def test_env_key_wins_over_the_secrets_file(secrets_file: Path) -> None:
    _write(secrets_file, 'api_key = "from-file"\n', mode=0o600)
    settings = load_settings(env={"KIOSK_API_KEY": KEY})
    assert settings.api_key is not None
    assert settings.api_key.get_secret_value() == KEY


@pytest.mark.parametrize("mode", [0o644, 0o640, 0o604, 0o660, 0o606])
def test_a_secrets_file_others_can_read_is_refused(secrets_file: Path, mode: int) -> None:
    _write(secrets_file, f'api_key = "{KEY}"\n', mode=mode)
    with pytest.raises(ConfigError) as info:
        load_settings(env={})
    message = str(info.value)
    assert str(secrets_file) in message
    assert f"{mode:04o}" in message
    assert "chmod 600" in message
    assert KEY not in message


def test_a_broken_secrets_file_never_echoes_its_content(secrets_file: Path) -> None:
    _write(secrets_file, f'api_key = "{KEY}\n', mode=0o600)  # unterminated string
    with pytest.raises(ConfigError) as info:
        load_settings(env={})
    assert KEY not in str(info.value)
    assert "not valid TOML" in str(info.value)


def test_an_api_key_in_config_toml_is_refused(config_file: Path) -> None:
    _write(config_file, f'api_key = "{KEY}"\n')
    with pytest.raises(ConfigError) as info:
        load_settings(env={"KIOSK_API_KEY": KEY})
    message = str(info.value)
    assert "KIOSK_API_KEY" in message and "secrets.toml" in message
    assert KEY not in message


def test_an_api_key_in_a_profile_section_is_refused(config_file: Path) -> None:
    _write(config_file, f'[profiles.production]\napi_key = "{KEY}"\n')
    with pytest.raises(ConfigError, match="api_key"):
        load_settings(env={})


def test_the_key_never_shows_in_repr_or_str() -> None:
    settings = load_settings(env={"KIOSK_API_KEY": KEY})
    assert KEY not in repr(settings)
    assert KEY not in str(settings)
    assert KEY not in str(dataclasses.asdict(settings))
    assert KEY not in str(settings.api_key) and KEY not in repr(settings.api_key)


def test_a_bad_key_value_error_does_not_quote_it() -> None:
    with pytest.raises(ConfigError) as info:
        load_settings(env={}, flags={"api_key": ["not", KEY]})
    assert KEY not in str(info.value)


# --- base URLs ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "url",
    [
        "http://api.example.com/api/v1",
        "http://10.0.0.5:8000/api/v1",
        "http://192.168.1.10/api/v1",
        "http://[2001:db8::1]/api/v1",
        "http://localhost.example.com/api/v1",
        "http://127.0.0.1.nip.io/api/v1",
    ],
)
def test_plain_http_to_a_remote_host_is_refused(url: str) -> None:
    with pytest.raises(ConfigError, match="https"):
        check_base_url(url)
    with pytest.raises(ConfigError, match="https"):
        load_settings(env={"KIOSK_BASE_URL": url})


@pytest.mark.parametrize(
    "url",
    [
        "http://127.0.0.1:8000/api/v1",
        "http://127.3.4.5/api/v1",
        "http://localhost:8000/api/v1",
        "http://LOCALHOST/api/v1",
        "http://[::1]:8000/api/v1",
        "https://api.example.com/api/v1",
        "https://10.0.0.5/api/v1",
    ],
)
def test_https_anywhere_and_plain_http_to_this_machine_are_allowed(url: str) -> None:
    assert check_base_url(url) == url
    assert load_settings(env={}, flags={"base_url": url}).base_url == url


@pytest.mark.parametrize(
    "url", ["ftp://example.com/api/v1", "example.com/api/v1", "https://u:p@example.com/api/v1"]
)
def test_other_malformed_urls_are_refused(url: str) -> None:
    with pytest.raises(ConfigError):
        check_base_url(url)


# --- redaction ------------------------------------------------------------------------------------


def test_redacted_key_shows_prefix_only() -> None:
    shown = redacted_key(KEY)
    assert shown == "sk_…(redacted)"
    assert "0123" not in shown
    assert redacted_key(None) == "not set"
    assert redacted_key(KEY, "KIOSK_API_KEY").endswith("set (from KIOSK_API_KEY)")
    assert "abcdef" not in redacted_key("abcdefghijklmnop")


# --- the staff PIN --------------------------------------------------------------------------------


def test_pin_hash_verifies_and_a_wrong_pin_fails() -> None:
    stored = hash_pin("4821")
    assert "4821" not in stored
    assert stored.startswith("scrypt$")
    assert verify_pin("4821", stored)
    assert not verify_pin("4822", stored)
    assert not verify_pin("", stored)
    assert not verify_pin("48210", stored)


def test_pin_hash_is_salted() -> None:
    assert hash_pin("4821") != hash_pin("4821")


@pytest.mark.parametrize("stored", [None, "", "plain4821", "scrypt$1$2$3", "md5$a$b$c$d$e"])
def test_no_or_malformed_hash_matches_nothing(stored: str | None) -> None:
    assert not verify_pin("4821", stored)


@pytest.mark.parametrize("pin", ["123", "12ab", "", "1234567890123", "12 34"])
def test_pin_format_is_checked(pin: str) -> None:
    with pytest.raises(ConfigError, match="digits"):
        hash_pin(pin)


def test_write_pin_hash_keeps_the_file_and_loads_back(config_file: Path) -> None:
    _write(
        config_file,
        '# my kiosk\nlocation = "downtown"\n\n[profiles.production]\nbase_url = '
        '"https://api.example.com/api/v1"\n',
    )
    stored = hash_pin("2468")
    write_pin_hash(stored)
    text = config_file.read_text()
    assert text.startswith("# my kiosk\n")
    assert text.index("staff_pin_hash") < text.index("[profiles.production]")
    settings = load_settings(env={}, flags={"profile": "production"})
    assert settings.location == "downtown"
    assert settings.base_url == "https://api.example.com/api/v1"
    assert verify_pin("2468", settings.staff_pin_hash)

    # Setting it again replaces the line instead of adding a second one (which TOML would refuse).
    write_pin_hash(hash_pin("1357"))
    settings = load_settings(env={})
    assert config_file.read_text().count("staff_pin_hash") == 1
    assert verify_pin("1357", settings.staff_pin_hash)
    assert not verify_pin("2468", settings.staff_pin_hash)


def test_write_pin_hash_creates_a_private_file(config_file: Path) -> None:
    assert not config_file.exists()
    write_pin_hash(hash_pin("2468"))
    assert (config_file.stat().st_mode & 0o777) == 0o600
    assert verify_pin("2468", load_settings(env={}).staff_pin_hash)


def test_settings_repr_hides_the_pin_hash() -> None:
    stored = hash_pin("2468")
    assert stored not in repr(load_settings(env={"KIOSK_STAFF_PIN_HASH": stored}))


# --- the Settings object itself ---------------------------------------------------------------


def test_settings_checks_what_it_is_given() -> None:
    with pytest.raises(ValueError, match="idle_timeout"):
        Settings(idle_timeout="soon")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="payment_mode"):
        Settings(payment_mode="card")  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        Settings(colour="blue")  # type: ignore[call-arg]
    with pytest.raises(dataclasses.FrozenInstanceError):
        Settings().kiosk_mode = True  # type: ignore[misc]


def test_settings_wraps_the_key() -> None:
    from pydantic import SecretStr

    from kiosk.config import Secret

    for given in (KEY, SecretStr(KEY), Secret(KEY)):
        settings = Settings(api_key=given)  # type: ignore[arg-type]
        assert isinstance(settings.api_key, Secret)
        assert settings.api_key.get_secret_value() == KEY
        assert KEY not in repr(settings) and KEY not in f"{settings.api_key}"
    assert Settings(api_key=KEY) == Settings(api_key=Secret(KEY))  # type: ignore[arg-type]
    assert Settings(api_key=KEY) != Settings(api_key="other-key")  # type: ignore[arg-type]


def test_settings_replace_checks_too() -> None:
    base = Settings(location="a")
    assert base.replace(location="b").location == "b"
    assert base.location == "a"
    with pytest.raises(ValueError):
        base.replace(done_timeout=-1)


@pytest.mark.parametrize(
    ("raw", "expected"), [("yes", True), ("ON", True), ("1", True), ("no", False), ("0", False)]
)
def test_env_booleans(raw: str, expected: bool) -> None:
    assert load_settings(env={"KIOSK_KIOSK_MODE": raw}).kiosk_mode is expected


@pytest.mark.parametrize("raw", ["maybe", "2"])
def test_env_boolean_nonsense_is_refused(raw: str) -> None:
    with pytest.raises(ConfigError, match="KIOSK_KIOSK_MODE"):
        load_settings(env={"KIOSK_KIOSK_MODE": raw})


@pytest.mark.parametrize("raw", ["0", "-5", "nan", "inf"])
def test_timeouts_must_be_positive(raw: str) -> None:
    with pytest.raises(ConfigError, match="idle_timeout"):
        load_settings(env={"KIOSK_IDLE_TIMEOUT": raw})


def test_toml_types_are_checked(config_file: Path) -> None:
    _write(config_file, "location = 5\n")
    with pytest.raises(ConfigError, match="location"):
        load_settings(env={})
    _write(config_file, 'kiosk_mode = "true"\nidle_timeout = 30\n')
    settings = load_settings(env={})
    assert settings.kiosk_mode is True and settings.idle_timeout == 30.0


def test_loading_settings_does_not_import_pydantic() -> None:
    import subprocess
    import sys

    code = (
        "import sys; from kiosk.config import load_settings; load_settings(); "
        "print('pydantic' in sys.modules)"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert done.stdout.strip() == "False", done.stderr
