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


# The rules that apply to a node, matched once per process -----------------------------------------
#
# Textual matches the rules against a node each time its styles are updated (a mount, a focus, a
# class, a screen resumed): it first walks every rule of the stylesheet to keep those that may
# apply, then checks each against the node's path. That was about a fifth of a tui test's CPU,
# and the same nodes in the same states recur in every app of a test process. What the match
# yields depends only on the stylesheet's rules and, for each node from the app down, its type,
# id, classes and the pseudo-classes those rules mention: that is the key here. A miss is
# Textual's own apply, storing its result through the cache it takes for one walk over the nodes;
# a hit does what Textual's cache hit does. Nodes whose rules use the positional pseudo-classes
# (first-child, odd, …) are left to Textual, as its own cache leaves them.

_TEXTUAL_APPLY = Stylesheet.apply
_POSITIONAL = Stylesheet._EXCLUDE_PSEUDO_CLASSES_FROM_CACHE
_ORDER = {"first-of-type", "last-of-type", "first-child", "last-child", "empty"}
_MATCHED: dict[tuple[Any, ...], Any] = {}
# The rules of a stylesheet (their ids) -> its number, what each kind of node needs, the rules.
_SHEETS: dict[tuple[int, ...], tuple[int, dict[Any, Any], list[Any]]] = {}


def _sheet(stylesheet: Stylesheet) -> tuple[int, dict[Any, Any]]:
    """A number for the stylesheet's rules (the same parsed rules, the same number, whichever
    app), and its table of what each kind of node (type, id, classes) needs."""
    rules_map = stylesheet.rules_map
    known = stylesheet.__dict__.get("_kiosk_sheet")
    if known is not None and known[0] is rules_map:
        return known[1], known[2]
    rules = stylesheet.rules
    ids = tuple(map(id, rules))
    entry = _SHEETS.get(ids)
    if entry is None:
        # The rules stay alive with their number, so no other rules come to have these ids.
        entry = _SHEETS[ids] = (len(_SHEETS), {}, list(rules))
    stylesheet.__dict__["_kiosk_sheet"] = (rules_map, entry[0], entry[1])
    return entry[0], entry[1]


def _kind(stylesheet: Stylesheet, node: Any) -> tuple[tuple[str, ...], bool, tuple[bool, ...]]:
    """For a node's type, id and classes: the pseudo-classes of the rules that may apply to it,
    whether one is positional, and the flags Textual sets from them."""
    rules_map = stylesheet.rules_map
    rules = {rule for name in rules_map.keys() & node._selector_names for rule in rules_map[name]}
    pseudo: set[str] = set().union(*(rule.pseudo_classes for rule in rules))
    flags = (
        "hover" in pseudo,
        "focus-within" in pseudo,
        not pseudo.isdisjoint(_ORDER),
        "odd" in pseudo or "even" in pseudo,
    )
    return tuple(sorted(pseudo)), not pseudo.isdisjoint(_POSITIONAL), flags


class _Matched(dict):  # type: ignore[type-arg]
    """Textual's cache for one walk, standing in on a miss: its result is kept under our key."""

    __slots__ = ("key",)

    def __init__(self, key: tuple[Any, ...]) -> None:
        super().__init__()
        self.key = key

    def get(self, _textuals_key: Any, default: Any = None) -> Any:
        return None

    def __setitem__(self, _textuals_key: Any, rules: Any) -> None:
        _MATCHED[self.key] = rules


def _apply_matched_once(
    self: Stylesheet, node: Any, *, animate: bool = False, cache: Any = None
) -> None:
    sheet, kinds = _sheet(self)
    classes = frozenset(node._classes)
    kind_key = (type(node), node._id, classes)
    kind = kinds.get(kind_key)
    if kind is None:
        kind = kinds[kind_key] = _kind(self, node)
    pseudo, positional, flags = kind
    if positional:
        _TEXTUAL_APPLY(self, node, animate=animate, cache=cache)
        return
    key = (
        sheet,
        *[
            (
                type(step),
                step._id,
                frozenset(step._classes),
                tuple(p for p in pseudo if step.has_pseudo_class(p)) if pseudo else (),
            )
            for step in node.css_path_nodes
        ],
    )
    rules = _MATCHED.get(key)
    if rules is None:
        _TEXTUAL_APPLY(self, node, animate=animate, cache=_Matched(key))
        return
    (
        node._has_hover_style,
        node._has_focus_within,
        node._has_order_style,
        node._has_odd_or_even,
    ) = flags
    self.replace_rules(node, rules, animate=animate)
    self._process_component_classes(node)


@contextmanager
def css_parsed_once() -> Iterator[None]:
    """The CSS parsed, and each node's rules matched, once per test process."""
    Stylesheet._parse_rules = _parse_rules_once  # type: ignore[method-assign]
    Stylesheet.apply = _apply_matched_once  # type: ignore[method-assign]
    try:
        yield
    finally:
        Stylesheet._parse_rules = _TEXTUALS  # type: ignore[method-assign]
        Stylesheet.apply = _TEXTUAL_APPLY  # type: ignore[method-assign]
