"""A cart line's chosen options as the server echoes them.

The shape is left open by the v1 spec and differs by server: the contract's Selection (groups
holding `selectedOptions`), flat option entries, `options` or `items` lists, children under an
option; a name (`name`, `optionName`) or, on 2.0, only the option's id. Read here once: for the
screens (kiosk.tui.cartview), for the Visit, which learns the names a line echoes only as ids, and
to send a line's choices again (an edited line, a line carried into a new cart).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

__all__ = [
    "echoed_name",
    "echoed_options",
    "request_selections",
    "same_selections",
    "unnamed_options",
]


def echoed_options(entries: Any, depth: int = 0) -> Iterator[tuple[int, dict[str, Any]]]:
    """Each chosen option (a dict) with its depth, a child choice one deeper than its parent, in
    the order a screen lists them; anything not of a known shape is skipped."""
    for entry in entries if isinstance(entries, list) else ():
        if not isinstance(entry, dict):
            continue
        options = entry.get("selectedOptions") or entry.get("options") or entry.get("items")
        if isinstance(options, list):
            yield from echoed_options(options, depth)
            continue
        yield depth, entry
        yield from echoed_options(entry.get("children"), depth + 1)


def echoed_name(entry: Mapping[str, Any]) -> str | None:
    """The option's name as the server sent it, if it did."""
    name = entry.get("name") or entry.get("optionName")
    return name if isinstance(name, str) and name else None


def unnamed_options(entries: Any, known: Mapping[str, str]) -> list[str]:
    """The option ids a screen could show only as ids: no name echoed, none learned (`known`)."""
    return [
        option_id
        for _, entry in echoed_options(entries)
        if echoed_name(entry) is None
        and isinstance(option_id := entry.get("optionId"), str)
        and option_id not in known
    ]


def request_selections(entries: Any) -> list[dict[str, Any]]:
    """A cart line's selections (as the server echoes them, with names and prices) in the shape an
    add-item request takes: groupId, selectedOptions [optionId, quantity, children]."""
    out: list[dict[str, Any]] = []
    for group in entries if isinstance(entries, list) else ():
        if not isinstance(group, dict) or not isinstance(group.get("groupId"), str):
            continue
        chosen = []
        for option in group.get("selectedOptions") or ():
            if not isinstance(option, dict) or not isinstance(option.get("optionId"), str):
                continue
            entry: dict[str, Any] = {
                "optionId": option["optionId"],
                "quantity": option.get("quantity", 1),
            }
            children = request_selections(option.get("children"))
            if children:
                entry["children"] = children
            chosen.append(entry)
        if chosen:
            out.append({"groupId": group["groupId"], "selectedOptions": chosen})
    return out


def _canonical(selections: Any) -> str:
    import json

    def norm(groups: Any) -> list[Any]:
        out = []
        for group in request_selections(list(groups or ())):
            options = sorted(
                (o["optionId"], int(o.get("quantity", 1)), norm(o.get("children")))
                for o in group["selectedOptions"]
            )
            out.append((group["groupId"], options))
        return sorted(out)

    return json.dumps(norm(selections))


def same_selections(a: Any, b: Any) -> bool:
    """Whether two selection lists (a line's echo, a request) choose the same options, in any
    order, names and prices aside."""
    return _canonical(a) == _canonical(b)
