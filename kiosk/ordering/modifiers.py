"""Modifier selection rules for one product, pure (no I/O, no UI).

The server enforces these rules (contract, "Selection rules"); the kiosk checks them first so that
"Add" is offered only for a choice the server will accept:
- the sum of option quantities in a group lies in [rule.min, rule.max] (max missing: no bound);
- each chosen option's quantity is 1..maxQuantity; maxQuantity 0 means sold out, never selectable;
- a child group counts only while its parent option is chosen; unchoosing a parent clears its
  children.

A `SelectionState` is immutable: every change returns a new state, so a UI can hold it in a reactive
attribute and redraw on replacement. Options and groups are addressed by *keys*, the path from the
root, because the same child group may hang under several options:
    group key  (group_id,)                          a top-level group
               (group_id, option_id, child_id)      a child group under that option
    option key group key + (option_id,)
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from kiosk.i18n import _

__all__ = [
    "GroupKey",
    "GroupView",
    "OptionKey",
    "OptionView",
    "SelectionState",
]

GroupKey = tuple[str, ...]
OptionKey = tuple[str, ...]


# The shapes this module reads: kiosk.api's pydantic models satisfy them, as do test dataclasses.
class _Item(Protocol):
    @property
    def id(self) -> str: ...
    @property
    def name(self) -> str: ...
    @property
    def price(self) -> int: ...  # the option's delta, minor units
    @property
    def max_quantity(self) -> int: ...
    @property
    def is_default(self) -> bool: ...
    @property
    def child_groups(self) -> Sequence[_ChildRef]: ...


class _ChildRef(Protocol):
    @property
    def group_id(self) -> str: ...
    @property
    def group(self) -> _Group | None: ...


class _Rule(Protocol):
    @property
    def min(self) -> int: ...
    @property
    def max(self) -> int | None: ...


class _Group(Protocol):
    @property
    def id(self) -> str: ...
    @property
    def name(self) -> str: ...
    @property
    def rule(self) -> _Rule: ...
    @property
    def items(self) -> Sequence[_Item]: ...


class _Product(Protocol):
    @property
    def price(self) -> int: ...  # minor units
    @property
    def modifiers(self) -> Sequence[_Group]: ...


@dataclass(frozen=True, slots=True)
class OptionView:
    """One option as the UI shows it."""

    key: OptionKey
    item: Any  # the ModifierItem
    quantity: int
    sold_out: bool
    # Whether one more of this option fits (its maxQuantity and the group's max), for a "+" key.
    can_increase: bool
    # The quantity the option may reach on its own (maxQuantity), for a "1-3" hint; 0 when sold out.
    max_quantity: int

    @property
    def chosen(self) -> bool:
        return self.quantity > 0

    @property
    def id(self) -> str:
        return self.key[-1]


@dataclass(frozen=True, slots=True)
class GroupView:
    """One visible group: its rule, its options, its count and what is wrong with it."""

    key: GroupKey
    group: Any  # the ModifierGroup
    depth: int
    parent: OptionKey | None
    min: int
    max: int | None
    chosen_count: int
    options: tuple[OptionView, ...]
    error: str | None

    @property
    def id(self) -> str:
        return self.key[-1]

    @property
    def required(self) -> bool:
        return self.min > 0

    @property
    def single(self) -> bool:
        """At most one option at quantity one: a radio group (choosing one replaces the other)."""
        return self.max == 1

    @property
    def is_valid(self) -> bool:
        return self.error is None

    @property
    def rule_text(self) -> str:
        """The rule in words: "required · choose 1", "choose 2 of 3", "optional · up to 2"."""
        lo, hi = self.min, self.max
        n = sum(1 for o in self.options if not o.sold_out)
        if hi is not None and lo == hi:
            if lo == 1:
                return _("required · choose 1")
            return (
                _("choose {lo} of {n}").format(lo=lo, n=n)
                if n > lo
                else _("choose {lo}").format(lo=lo)
            )
        if lo == 0:
            return _("optional") if hi is None else _("optional · up to {hi}").format(hi=hi)
        if hi is None:
            return _("required · choose at least {lo}").format(lo=lo)
        return _("choose {lo} to {hi}").format(lo=lo, hi=hi)

    @property
    def progress_text(self) -> str:
        """The counter: "2/3 chosen" (or "2 chosen" without an upper bound)."""
        if self.max is None:
            return _("{count} chosen").format(count=self.chosen_count)
        return _("{count}/{max} chosen").format(count=self.chosen_count, max=self.max)

    @property
    def status_text(self) -> str:
        """Rule, counter and error in one line for a group header."""
        parts = [self.rule_text, self.progress_text]
        if self.error:
            parts.append(self.error)
        return " · ".join(parts)


def _rule(group: _Group) -> tuple[int, int | None]:
    rule = getattr(group, "rule", None)
    lo = getattr(rule, "min", 0) or 0
    hi = getattr(rule, "max", None)
    lo = max(0, int(lo))
    if hi is not None:
        hi = max(0, int(hi))
    return lo, hi


def _max_qty(item: _Item) -> int:
    value = getattr(item, "max_quantity", 1)
    return max(0, int(value)) if value is not None else 1


def _children(item: _Item, index: Mapping[str, _Group]) -> list[_Group]:
    found: list[_Group] = []
    for ref in getattr(item, "child_groups", None) or ():
        group = getattr(ref, "group", None) or index.get(getattr(ref, "group_id", "") or "")
        if group is not None:
            found.append(group)
    return found


def _required_first(groups: Sequence[_Group]) -> list[_Group]:
    # Stable: required groups keep their menu order, then the optional ones keep theirs.
    return sorted(groups, key=lambda g: _rule(g)[0] == 0)


class SelectionState:
    """The customer's modifier choice for one product. Immutable: changes return a new state."""

    __slots__ = ("_chosen", "_index", "_product", "_server_errors")

    def __init__(
        self,
        product: _Product,
        chosen: Mapping[OptionKey, int] | None = None,
        server_errors: Mapping[str, str] | None = None,
    ) -> None:
        self._product = product
        # Top-level groups by id: a child reference carrying only an id is resolved against them.
        self._index: dict[str, _Group] = {g.id: g for g in (product.modifiers or ())}
        self._chosen: dict[OptionKey, int] = {k: v for k, v in (chosen or {}).items() if v > 0}
        self._server_errors: dict[str, str] = dict(server_errors or {})

    # -- construction -----------------------------------------------------------------------------

    @classmethod
    def for_product(cls, product: _Product) -> SelectionState:
        """The starting state: options marked isDefault pre-selected (within each group's max),
        and a required group with exactly one selectable option filled in; recursively for the
        child groups of what is chosen."""
        chosen: dict[OptionKey, int] = {}
        state = cls(product)
        for group in _required_first(list(product.modifiers or ())):
            state._seed(group, (group.id,), chosen)
        return cls(product, chosen)

    def _seed(self, group: _Group, key: GroupKey, chosen: dict[OptionKey, int]) -> None:
        lo, hi = _rule(group)
        items = list(group.items or ())
        selectable = [i for i in items if _max_qty(i) > 0]
        picks: list[tuple[_Item, int]] = []
        total = 0
        for item in selectable:
            if getattr(item, "is_default", False) and (hi is None or total < hi):
                picks.append((item, 1))
                total += 1
        if not picks and lo > 0 and len(selectable) == 1:
            only = selectable[0]
            qty = min(lo, _max_qty(only)) if hi is None else min(lo, hi, _max_qty(only))
            if qty > 0:
                picks.append((only, qty))
        for item, qty in picks:
            okey = (*key, item.id)
            chosen[okey] = qty
            for child in _required_first(_children(item, self._index)):
                self._seed(child, (*okey, child.id), chosen)

    # -- reading ----------------------------------------------------------------------------------

    @property
    def product(self) -> Any:
        return self._product

    def quantity(self, key: OptionKey) -> int:
        return self._chosen.get(tuple(key), 0)

    def groups(self) -> list[GroupView]:
        """Every visible group in display order: required first, each chosen option's child groups
        right after the group that holds it."""
        return list(self._walk(_required_first(list(self._product.modifiers or ())), (), 0, None))

    def _walk(
        self,
        groups: Sequence[_Group],
        prefix: tuple[str, ...],
        depth: int,
        parent: OptionKey | None,
    ) -> Iterator[GroupView]:
        for group in groups:
            key = (*prefix, group.id)
            view = self._view(group, key, depth, parent)
            yield view
            for option in view.options:
                if option.chosen:
                    kids = _required_first(_children(option.item, self._index))
                    yield from self._walk(kids, option.key, depth + 1, option.key)

    def _view(
        self, group: _Group, key: GroupKey, depth: int, parent: OptionKey | None
    ) -> GroupView:
        lo, hi = _rule(group)
        items = list(group.items or ())
        count = sum(self._chosen.get((*key, i.id), 0) for i in items)
        options: list[OptionView] = []
        error: str | None = None
        for item in items:
            okey = (*key, item.id)
            qty = self._chosen.get(okey, 0)
            limit = _max_qty(item)
            # A radio group (max 1) replaces its choice, so it always has room.
            room = hi is None or count < hi or hi == 1
            options.append(
                OptionView(
                    key=okey,
                    item=item,
                    quantity=qty,
                    sold_out=limit == 0,
                    can_increase=limit > qty and room and not (hi == 1 and qty >= 1),
                    max_quantity=limit,
                )
            )
            if qty > 0 and limit == 0:
                error = _("{name} is sold out").format(name=item.name)
            elif qty > limit:
                error = _("at most {limit} × {name}").format(limit=limit, name=item.name)
        if error is None:
            if count < lo:
                error = _("choose {n} more").format(n=lo - count)
            elif hi is not None and count > hi:
                error = _("too many: remove {n}").format(n=count - hi)
        if error is None and group.id in self._server_errors:
            error = self._server_errors[group.id]
        return GroupView(
            key=key,
            group=group,
            depth=depth,
            parent=parent,
            min=lo,
            max=hi,
            chosen_count=count,
            options=tuple(options),
            error=error,
        )

    def group(self, key: GroupKey) -> GroupView:
        for view in self.groups():
            if view.key == tuple(key):
                return view
        raise KeyError(f"no visible modifier group {key!r}")

    def _option(self, key: OptionKey) -> tuple[GroupView, OptionView]:
        key = tuple(key)
        view = self.group(key[:-1])
        for option in view.options:
            if option.key == key:
                return view, option
        raise KeyError(f"no option {key[-1]!r} in group {key[-2]!r}")

    @property
    def is_valid(self) -> bool:
        """True when the server would accept this choice (as far as the kiosk can tell)."""
        return all(view.is_valid for view in self.groups())

    @property
    def errors(self) -> dict[GroupKey, str]:
        return {v.key: v.error for v in self.groups() if v.error is not None}

    def first_invalid(self) -> GroupView | None:
        """The group to move the cursor to when "Add" is pressed too early."""
        return next((v for v in self.groups() if not v.is_valid), None)

    def find_group(self, group_id: str) -> GroupView | None:
        """The first visible instance of a group id (the server's `modifierGroupId` is an id)."""
        return next((v for v in self.groups() if v.id == group_id), None)

    # -- changing ---------------------------------------------------------------------------------

    def _replace(self, chosen: dict[OptionKey, int], touched_group: str | None) -> SelectionState:
        errors = {k: v for k, v in self._server_errors.items() if k != touched_group}
        return SelectionState(self._product, chosen, errors)

    @staticmethod
    def _without(chosen: dict[OptionKey, int], key: OptionKey) -> None:
        # Remove an option and everything chosen beneath it (its child groups, at any depth).
        n = len(key)
        for k in [k for k in chosen if k[:n] == key]:
            del chosen[k]

    def set_quantity(self, key: OptionKey, quantity: int) -> SelectionState:
        """Set an option's quantity. 0 removes it (and its children). More than fits is clamped
        to what the option's maxQuantity and the group's max allow; a sold-out option stays
        unselected. In a radio group (max 1) choosing an option replaces the one chosen before."""
        view, option = self._option(key)
        key = option.key
        chosen = dict(self._chosen)
        if quantity <= 0:
            if key not in chosen:
                return self
            self._without(chosen, key)
            return self._replace(chosen, view.id)
        if option.sold_out:
            return self
        if view.single:
            for other in view.options:
                if other.key != key:
                    self._without(chosen, other.key)
            target = 1
        else:
            others = view.chosen_count - option.quantity
            room = quantity if view.max is None else view.max - others
            target = min(quantity, option.max_quantity, room)
            if target <= 0:
                return self
        if chosen.get(key) == target and len(chosen) == len(self._chosen):
            return self
        self._choose(chosen, option, target)
        return self._replace(chosen, view.id)

    def _choose(self, chosen: dict[OptionKey, int], option: OptionView, quantity: int) -> None:
        # An option chosen afresh shows its child groups with their defaults, as at the start.
        fresh = chosen.get(option.key, 0) == 0
        chosen[option.key] = quantity
        if fresh:
            for child in _required_first(_children(option.item, self._index)):
                self._seed(child, (*option.key, child.id), chosen)

    def toggle(self, key: OptionKey) -> SelectionState:
        """Choose an option at quantity 1, or unchoose it when chosen. In a radio group choosing
        replaces the previous option; in a full group nothing changes (the counter says why)."""
        if self.quantity(key) > 0:
            return self.set_quantity(key, 0)
        return self.set_quantity(key, 1)

    def select(self, key: OptionKey) -> SelectionState:
        """Make this the group's only chosen option, at quantity 1 (a radio button press)."""
        view, option = self._option(key)
        if option.sold_out:
            return self
        chosen = dict(self._chosen)
        for other in view.options:
            if other.key != option.key:
                self._without(chosen, other.key)
        self._choose(chosen, option, 1)
        return self._replace(chosen, view.id)

    def increment(self, key: OptionKey) -> SelectionState:
        return self.set_quantity(key, self.quantity(key) + 1)

    def decrement(self, key: OptionKey) -> SelectionState:
        return self.set_quantity(key, self.quantity(key) - 1)

    def with_server_error(self, group_id: str | None, message: str) -> SelectionState:
        """Attach the server's refusal (`modifierGroupId`) to that group until it is changed."""
        if not group_id:
            return self
        errors = {**self._server_errors, group_id: message}
        return SelectionState(self._product, self._chosen, errors)

    # -- output -----------------------------------------------------------------------------------

    def preview_unit_price_minor(self) -> int:
        """Product price plus each visible chosen option's delta × its quantity, in minor units.

        The one price the kiosk computes; the UI labels it as a preview (the cart's totals are the
        server's)."""
        total = int(self._product.price or 0)
        for view in self.groups():
            for option in view.options:
                if option.quantity > 0:
                    total += int(getattr(option.item, "price", 0) or 0) * option.quantity
        return total

    def preview_line_total_minor(self, quantity: int) -> int:
        return self.preview_unit_price_minor() * max(0, quantity)

    def describe(self) -> list[str]:
        """The choice in words, one entry per chosen option: "Large", "2 × Extra cheese"."""
        parts: list[str] = []
        for view in self.groups():
            for option in view.options:
                if option.quantity == 1:
                    parts.append(str(option.item.name))
                elif option.quantity > 1:
                    parts.append(f"{option.quantity} × {option.item.name}")
        return parts

    def to_request(self) -> list[dict[str, Any]]:
        """The contract's Selection list: [{groupId, selectedOptions:[{optionId, quantity,
        children?}]}]; groups with nothing chosen are left out."""
        return self._request(_required_first(list(self._product.modifiers or ())), ())

    def _request(self, groups: Sequence[_Group], prefix: tuple[str, ...]) -> list[dict[str, Any]]:
        out: list[dict[str, Any]] = []
        for group in groups:
            key = (*prefix, group.id)
            selected: list[dict[str, Any]] = []
            for item in group.items or ():
                okey = (*key, item.id)
                qty = self._chosen.get(okey, 0)
                if qty <= 0:
                    continue
                entry: dict[str, Any] = {"optionId": item.id, "quantity": qty}
                children = self._request(_children(item, self._index), okey)
                if children:
                    entry["children"] = children
                selected.append(entry)
            if selected:
                out.append({"groupId": group.id, "selectedOptions": selected})
        return out

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, SelectionState):
            return NotImplemented
        return (
            self._product is other._product
            and self._chosen == other._chosen
            and self._server_errors == other._server_errors
        )

    def __hash__(self) -> int:
        return hash((id(self._product), frozenset(self._chosen.items())))

    def __repr__(self) -> str:
        chosen = ", ".join(f"{'/'.join(k)}={v}" for k, v in sorted(self._chosen.items()))
        return f"SelectionState({chosen})"
