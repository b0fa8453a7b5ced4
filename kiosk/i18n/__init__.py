"""The customer's language: gettext catalogues (kiosk/locale/<lang>/LC_MESSAGES/kiosk.mo).

One language at a time for the whole kiosk (one customer at one terminal): `set_language()` is
called by the welcome screen's language choice and, back to the `language` setting, whenever the
kiosk resets for the next customer. `_()` and `ngettext()` read the current one. No Textual here,
so the core's customer-facing words may use it too.

Start-up stays light: English needs no catalogue (the source strings are English); a catalogue is
read (stdlib gettext, a compiled .mo) on the first switch to its language. Babel is imported only
by the formatting of prices and dates in another language (`money_locale()` callers).

Catalogues, from the repository root (babel.cfg says which files hold strings):
    .venv/bin/pybabel extract -F babel.cfg -k N_ --no-location --sort-output --omit-header \
        -w 100 -o kiosk/locale/kiosk.pot .
    .venv/bin/pybabel update -i kiosk/locale/kiosk.pot -d kiosk/locale -D kiosk
    # translate kiosk/locale/<lang>/LC_MESSAGES/kiosk.po, then:
    .venv/bin/pybabel compile -d kiosk/locale -D kiosk
tests/unit/test_catalogues.py fails when a .mo is stale or a customer string has no translation.
"""

from __future__ import annotations

import gettext
from pathlib import Path

__all__ = [
    "DEFAULT_LANGUAGE",
    "LANGUAGES",
    "LOCALE_DIR",
    "N_",
    "_",
    "catalogue",
    "language",
    "money_locale",
    "ngettext",
    "set_language",
]

DOMAIN = "kiosk"
LOCALE_DIR = Path(__file__).resolve().parent.parent / "locale"
DEFAULT_LANGUAGE = "en"
# Offered on the welcome screen, in this order; each named in its own language.
LANGUAGES: dict[str, str] = {"en": "English", "es": "Español"}

_current = DEFAULT_LANGUAGE
_translations: gettext.NullTranslations = gettext.NullTranslations()
_loaded: dict[str, gettext.NullTranslations] = {}


def catalogue(code: str) -> gettext.NullTranslations:
    """The compiled catalogue of `code` (read once); English is the source text itself."""
    if code == DEFAULT_LANGUAGE:
        return gettext.NullTranslations()
    found = _loaded.get(code)
    if found is None:
        found = gettext.translation(DOMAIN, LOCALE_DIR, languages=[code])
        _loaded[code] = found
    return found


def set_language(code: str) -> str:
    """Make `code` the kiosk's language; an unknown code falls back to English (a typo in the
    settings must not stop the kiosk). Returns the language now in effect."""
    global _current, _translations
    code = (code or DEFAULT_LANGUAGE).strip().lower()
    if code not in LANGUAGES:
        code = DEFAULT_LANGUAGE
    _translations = catalogue(code)
    _current = code
    return code


def language() -> str:
    return _current


def _(message: str) -> str:
    return _translations.gettext(message)


def ngettext(singular: str, plural: str, n: int) -> str:
    return _translations.ngettext(singular, plural, n)


def N_(message: str) -> str:
    """Marks a string for the catalogue where it is defined (a table); `_()` where it is shown."""
    return message


def money_locale() -> str | None:
    """The babel locale prices and dates are formatted in, or None for the default language,
    where the server's own formatted twins ("$12.50") are shown as sent."""
    return None if _current == DEFAULT_LANGUAGE else _current
