"""The gettext catalogues (kiosk/locale) against the code: every customer string extracted by the
project's own babel.cfg has a translation in every language the kiosk offers, with the same
{placeholders}; and each committed .mo says exactly what its .po says (a .po edited without
`pybabel compile` fails here)."""

from __future__ import annotations

import gettext
import re
import string
from pathlib import Path

import pytest
from babel.messages.catalog import Catalog
from babel.messages.extract import extract_from_dir
from babel.messages.frontend import parse_mapping_cfg
from babel.messages.pofile import read_po

from kiosk import i18n

ROOT = Path(__file__).resolve().parents[2]
OTHER_LANGUAGES = [code for code in i18n.LANGUAGES if code != i18n.DEFAULT_LANGUAGE]


def extracted() -> dict[str, tuple[str, ...]]:
    """msgid -> every form (singular, plural) of each string marked in the code."""
    with (ROOT / "babel.cfg").open() as cfg:
        method_map, options_map = parse_mapping_cfg(cfg)
    found: dict[str, tuple[str, ...]] = {}
    for _file, _line, message, _comments, _context in extract_from_dir(
        ROOT, method_map, options_map, keywords={"_": None, "ngettext": (1, 2), "N_": None}
    ):
        forms = message if isinstance(message, tuple) else (message,)
        found[forms[0]] = forms
    return found


def po_of(code: str) -> Catalog:
    path = i18n.LOCALE_DIR / code / "LC_MESSAGES" / f"{i18n.DOMAIN}.po"
    with path.open("rb") as f:
        return read_po(f, locale=code)


def fields(text: str) -> set[str]:
    return {name for _, name, _, _ in string.Formatter().parse(text) if name is not None}


def test_the_customer_screens_are_marked() -> None:
    # The extraction sees the screens: a broken babel.cfg must not pass as "nothing to translate".
    found = extracted()
    assert len(found) > 150
    for sample in ("How would you like your order?", "Your order", "Sold out", "Still there?"):
        assert sample in found


@pytest.mark.parametrize("code", OTHER_LANGUAGES)
def test_every_customer_string_is_translated(code: str) -> None:
    catalog = po_of(code)
    missing, fuzzy, wrong_fields = [], [], []
    for msgid, forms in extracted().items():
        message = catalog.get(msgid)
        strings = message.string if message is not None else None
        translations = strings if isinstance(strings, tuple) else (strings,)
        if message is None or not all(translations):
            missing.append(msgid)
            continue
        if message.fuzzy:
            fuzzy.append(msgid)
        for translation in translations:
            if fields(translation or "") != fields(forms[-1]):
                wrong_fields.append(msgid)
    assert not missing, f"{code}: no translation for {missing}"
    assert not fuzzy, f"{code}: fuzzy (unchecked) translations {fuzzy}"
    assert not wrong_fields, f"{code}: placeholders differ in {wrong_fields}"


@pytest.mark.parametrize("code", OTHER_LANGUAGES)
def test_the_compiled_catalogue_is_not_stale(code: str) -> None:
    mo = i18n.LOCALE_DIR / code / "LC_MESSAGES" / f"{i18n.DOMAIN}.mo"
    with mo.open("rb") as f:
        compiled = gettext.GNUTranslations(f)._catalog  # type: ignore[attr-defined]
    expected: dict[object, str] = {}
    for message in po_of(code):
        if not message.id or message.fuzzy:
            continue
        if isinstance(message.id, tuple):
            for n, text in enumerate(message.string):
                if text:
                    expected[(message.id[0], n)] = text
        elif message.string:
            expected[message.id] = message.string
    compiled = {k: v for k, v in compiled.items() if k != ""}  # the header
    assert compiled == expected, "run: pybabel compile -d kiosk/locale -D kiosk"


def test_the_catalogue_is_found_and_the_language_switches() -> None:
    try:
        assert i18n.set_language("es") == "es"
        assert i18n._("Your order") == "Tu pedido"
        assert i18n.ngettext("{count} item", "{count} items", 1) == "{count} artículo"
        assert i18n.ngettext("{count} item", "{count} items", 3) == "{count} artículos"
        assert i18n.money_locale() == "es"
        # A language the kiosk does not offer (a typo in a setting) is English, not a crash.
        assert i18n.set_language("xx") == "en"
        assert i18n._("Your order") == "Your order"
        assert i18n.money_locale() is None
    finally:
        i18n.set_language(i18n.DEFAULT_LANGUAGE)


def test_money_in_a_locale_uses_the_one_formatter() -> None:
    from kiosk.api.money import format_money

    # Without a locale: unchanged (the server's twin is preferred; this is the fallback).
    assert format_money(123450, "usd") == "$1,234.50"
    assert re.fullmatch(r"1\.234,50\s?US\$", format_money(123450, "usd", "es"))
    assert re.fullmatch(r"-5,00\s?€", format_money(-500, "eur", "es"))
    assert re.fullmatch(r"12,50\s?NZ\$", format_money(1250, "nzd", "es"))


def test_the_language_setting_is_checked() -> None:
    from kiosk.config import Settings

    assert Settings().language == "en"
    assert Settings(language=" ES ").language == "es"
    with pytest.raises(ValueError, match="language must be one of en, es"):
        Settings(language="klingon")


def test_the_core_speaks_the_customers_language() -> None:
    """The headless core's customer words (a cart changed elsewhere, a modifier rule, opening
    hours) follow kiosk.i18n too."""
    from kiosk.api.models import Cart
    from kiosk.ordering.cart_changes import cart_changes
    from kiosk.ordering.hours import OpeningStatus

    def cart(*items: tuple[str, str, int]) -> Cart:
        lines = [{"id": i, "name": n, "quantity": q, "productId": "p_" + i} for i, n, q in items]
        return Cart.model_validate({"id": "c1", "items": lines})

    unknown = OpeningStatus(False, None, (), None, None, None)
    try:
        i18n.set_language("es")
        changes = cart_changes(cart(("a", "Cookie", 2)), cart(("a", "Cookie", 3), ("b", "Tea", 1)))
        assert changes == ["Cookie ahora ×3 (antes ×2)", "Tea ×1 añadido"]
        assert unknown.summary == "Horario desconocido"
    finally:
        i18n.set_language(i18n.DEFAULT_LANGUAGE)
    assert unknown.summary == "Hours unknown"


def test_the_order_time_in_a_locale() -> None:
    from kiosk.tui.cartview import local_moment

    assert local_moment("2026-03-10", "13:30", "es") == "10 mar 2026 13:30"
    # What cannot be read is shown as sent (cleaned), never an error.
    assert local_moment("next week", "soon\x1b[2J", "es") == "next week soon…"
