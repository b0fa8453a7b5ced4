"""The kiosk's CSS parsed once per test process, not once per app (issue 36, item 7).

Every app a test starts parsed the same stylesheets again: the kiosk's and every widget's
DEFAULT_CSS, with the same theme variables (about 57 of the 160 ms of CPU an app takes to reach
its first screen; the suite starts well over a thousand apps). Textual keeps a parse cache per
stylesheet, so per app; this one is shared by all the apps of the process and keyed like
Textual's own (the CSS text, where it was read from, default or not, tie breaker, scope) plus the
variables the rules were parsed with. Parsed rules are not changed after parsing (Textual builds
new ones on a reparse), so sharing them is safe. A counter runs one app per process: the product
gains nothing from this, which is why it lives here.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from textual.css.stylesheet import Stylesheet

_PARSED: dict[tuple[Any, ...], Any] = {}
_TEXTUALS = Stylesheet._parse_rules


def _parse_rules_once(
    self: Stylesheet,
    css: str,
    read_from: Any,
    is_default_rules: bool = False,
    tie_breaker: int = 0,
    scope: str = "",
) -> Any:
    key = (
        css,
        read_from,
        is_default_rules,
        tie_breaker,
        scope,
        tuple(sorted(self._variables.items())),
    )
    try:
        return _PARSED[key]
    except KeyError:
        # An error is raised here as in Textual and not kept: the next app meets it again.
        rules = _PARSED[key] = _TEXTUALS(self, css, read_from, is_default_rules, tie_breaker, scope)
        return rules


@contextmanager
def css_parsed_once() -> Iterator[None]:
    Stylesheet._parse_rules = _parse_rules_once  # type: ignore[method-assign]
    try:
        yield
    finally:
        Stylesheet._parse_rules = _TEXTUALS  # type: ignore[method-assign]
