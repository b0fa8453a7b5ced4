"""The seeded catalog in memory: lookups, menu windows, JSON shapes and modifier-selection rules."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from kiosk.demo import data, pictures
from kiosk.demo.errors import ApiError
from kiosk.demo.money import dec, fmt

MAX_DEPTH = 4  # nested child groups deeper than this are refused (the demo data uses one level)


def _product(d: dict[str, Any]) -> data.Product:
    return data.Product(
        d["id"],
        d["name"],
        d["description"],
        int(d["price"]),
        tuple(d["tags"]),
        d["calories"],
        tuple(d["modifier_ids"]),
        bool(d.get("picture", False)),  # databases seeded before pictures have none
    )


def _group(d: dict[str, Any]) -> data.Group:
    opts = tuple(
        data.Option(
            o["id"],
            o["name"],
            int(o["price"]),
            int(o["max_quantity"]),
            bool(o["is_default"]),
            tuple(o["child_groups"]),
            # Databases seeded before options had tags have none.
            tuple(o.get("tags", ())),
        )
        for o in d["options"]
    )
    return data.Group(d["id"], d["name"], int(d["min"]), int(d["max"]), opts, d["description"])


def _menu(d: dict[str, Any]) -> data.Menu:
    cats = tuple((c[0], c[1], tuple(c[2])) for c in d["categories"])
    return data.Menu(
        d["id"], d["name"], d["location_id"], d["start"], d["end"], cats, tuple(d["days"])
    )


def menu_open_at(menu: data.Menu, local: datetime) -> bool:
    day = data.DAYS[local.weekday()]
    if day not in menu.days:
        return False
    if menu.start is None or menu.end is None:
        return True
    hhmm = local.strftime("%H:%M")
    return menu.start <= hhmm < menu.end


class Catalog:
    def __init__(self, docs: dict[str, dict[str, Any]]) -> None:
        merchants = list(docs.get("merchant", {}).values())
        self.merchant: dict[str, Any] | None = merchants[0] if merchants else None
        # A database seeded before restaurants had a currency field was the built-in (usd) one.
        self.currency: str = (self.merchant or {}).get("currency", "usd")
        self.locations: dict[str, dict[str, Any]] = dict(docs.get("location", {}))
        self.slugs: dict[str, str] = {loc["slug"]: lid for lid, loc in self.locations.items()}
        self.keys: dict[str, str] = {loc["api_key"]: lid for lid, loc in self.locations.items()}
        self.products: dict[str, data.Product] = {
            k: _product(v) for k, v in docs.get("product", {}).items()
        }
        self.groups: dict[str, data.Group] = {
            k: _group(v) for k, v in docs.get("group", {}).items()
        }
        self.options: dict[str, tuple[data.Group, data.Option]] = {
            o.id: (g, o) for g in self.groups.values() for o in g.options
        }
        self.discounts: dict[str, dict[str, Any]] = dict(docs.get("discount", {}))
        self.menus: dict[str, list[data.Menu]] = {}
        for m in sorted(docs.get("menu", {}).values(), key=lambda m: m["id"]):
            self.menus.setdefault(m["location_id"], []).append(_menu(m))
        # location -> product id -> [(menu, category id)], in menu order
        self.placements: dict[str, dict[str, list[tuple[data.Menu, str]]]] = {}
        for lid, menus in self.menus.items():
            place: dict[str, list[tuple[data.Menu, str]]] = {}
            for menu in menus:
                for cat_id, _name, pids in menu.categories:
                    for pid in pids:
                        if pid in self.products:
                            place.setdefault(pid, []).append((menu, cat_id))
            self.placements[lid] = place

    # -- lookups -------------------------------------------------------------------------------

    def resolve_location(self, ident: str) -> dict[str, Any] | None:
        lid = ident if ident in self.locations else self.slugs.get(ident)
        return None if lid is None else self.locations[lid]

    def location_product(self, lid: str, pid: str) -> data.Product | None:
        if pid not in self.placements.get(lid, {}):
            return None
        return self.products.get(pid)

    def product_open_at(self, lid: str, pid: str, local: datetime) -> bool:
        return any(menu_open_at(m, local) for m, _ in self.placements.get(lid, {}).get(pid, []))

    def option_sold_out(self, opt: data.Option, sold_out: set[str]) -> bool:
        return opt.max_quantity <= 0 or opt.id in sold_out

    # -- JSON shapes ---------------------------------------------------------------------------

    def available_times(self, lid: str, pid: str) -> list[dict[str, Any]]:
        out = []
        for menu, _ in self.placements.get(lid, {}).get(pid, []):
            start, end = (menu.start, menu.end) if menu.start and menu.end else ("00:00", "23:59")
            entry = {"days": list(menu.days), "start": start, "end": end}
            if entry not in out:
                out.append(entry)
        return out

    def menu_product(
        self, lid: str, product: data.Product, sold_out: set[str], currency: str
    ) -> dict[str, Any]:
        place = self.placements.get(lid, {}).get(product.id, [])
        out: dict[str, Any] = {
            "id": product.id,
            "name": product.name,
            "description": product.description,
            "price": dec(product.price),
            "displayPrice": fmt(product.price, currency),
            "currency": currency,
            "availability": "unavailable" if product.id in sold_out else "available",
            # Relative to this server's origin (the kiosk resolves it against the API's).
            "images": [pictures.path_for(product.id)] if product.picture else [],
            "modifierIds": list(product.modifier_ids),
            "tags": list(product.tags),
            "availableTimes": self.available_times(lid, product.id),
            "categoryId": place[0][1] if place else None,
        }
        if product.calories is not None:
            out["calories"] = product.calories
        return out

    def group_json(
        self, group: data.Group, sold_out: set[str], currency: str, depth: int = 0
    ) -> dict[str, Any]:
        items = []
        for o in group.options:
            children = []
            if depth < MAX_DEPTH:
                for cid in o.child_groups:
                    child = self.groups.get(cid)
                    if child is not None:
                        cj = self.group_json(child, sold_out, currency, depth + 1)
                        children.append({"groupId": cid, "group": cj})
            items.append(
                {
                    "id": o.id,
                    "name": o.name,
                    "price": dec(o.price),
                    "priceFormatted": fmt(o.price, currency),
                    "displayPrice": fmt(o.price, currency),
                    "maxQuantity": 0 if self.option_sold_out(o, sold_out) else o.max_quantity,
                    "isDefault": o.is_default,
                    "childGroups": children,
                    **({"tags": list(o.tags)} if o.tags else {}),
                }
            )
        return {
            "id": group.id,
            "name": group.name,
            "description": group.description or None,
            "rule": {"min": group.min, "max": group.max},
            "required": group.min > 0,
            "quantity": group.max,
            "isFixed": group.min == group.max,
            "items": items,
        }

    # -- modifier selections -------------------------------------------------------------------

    def check_selections(
        self, product: data.Product, raw: Any, sold_out: set[str]
    ) -> list[dict[str, Any]]:
        """Validate a client's modifier selections against the product; return the stored echo.

        The echo keeps names and deltas (minor units) as they were when the item was added, so the
        cart prices the line as the customer saw it.
        """
        if raw is None:
            raw = []
        if not isinstance(raw, list):
            raise _bad("modifiers must be a list of selections", None)
        return self._check_level(list(product.modifier_ids), raw, sold_out, 0)

    def _check_level(
        self, allowed: list[str], raw: list[Any], sold_out: set[str], depth: int
    ) -> list[dict[str, Any]]:
        if depth > MAX_DEPTH:
            raise _bad("modifier selections are nested too deeply", None)
        seen: dict[str, dict[str, Any]] = {}
        out: list[dict[str, Any]] = []
        for entry in raw:
            if not isinstance(entry, dict):
                raise _bad("each modifier selection must be an object", None)
            gid = entry.get("groupId")
            if not isinstance(gid, str) or not gid:
                raise _bad("a modifier selection has no groupId", None)
            group = self.groups.get(gid)
            if group is None:
                raise _bad(f"unknown modifier group {gid!r}", gid)
            if gid not in allowed:
                raise _bad(
                    f"'{group.name}' does not belong here (its parent option is not chosen)", gid
                )
            if gid in seen:
                raise _bad(f"'{group.name}' is selected twice", gid)
            options = entry.get("selectedOptions")
            if not isinstance(options, list):
                raise _bad(f"'{group.name}': selectedOptions must be a list", gid)
            chosen: list[dict[str, Any]] = []
            total = 0
            opt_ids: set[str] = set()
            for sel in options:
                if not isinstance(sel, dict):
                    raise _bad(f"'{group.name}': each selected option must be an object", gid)
                oid = sel.get("optionId")
                opt = next((o for o in group.options if o.id == oid), None)
                if opt is None or not isinstance(oid, str):
                    raise _bad(f"'{group.name}' has no option {oid!r}", gid)
                if oid in opt_ids:
                    raise _bad(f"'{opt.name}' is selected twice in '{group.name}'", gid)
                opt_ids.add(oid)
                qty = sel.get("quantity", 1)
                if isinstance(qty, bool) or not isinstance(qty, int):
                    raise _bad(f"'{opt.name}': quantity must be a whole number", gid)
                if self.option_sold_out(opt, sold_out):
                    raise _bad(f"'{opt.name}' is sold out", gid, optionId=opt.id)
                if qty < 1 or qty > opt.max_quantity:
                    raise _bad(
                        f"'{opt.name}': quantity must be between 1 and {opt.max_quantity}",
                        gid,
                        optionId=opt.id,
                    )
                children_raw = sel.get("children") or []
                if not isinstance(children_raw, list):
                    raise _bad(f"'{opt.name}': children must be a list", gid)
                children = self._check_level(
                    list(opt.child_groups), children_raw, sold_out, depth + 1
                )
                total += qty
                chosen.append(
                    {
                        "optionId": opt.id,
                        "name": opt.name,
                        "quantity": qty,
                        "price": opt.price,
                        "children": children,
                    }
                )
            if total < group.min or total > group.max:
                raise _bad(_range_message(group), gid)
            seen[gid] = entry
            if chosen:
                out.append({"groupId": gid, "groupName": group.name, "selectedOptions": chosen})
        # Required groups that were left out (a child group only counts when its option is chosen,
        # and only chosen options' children reach this level).
        for gid in allowed:
            group = self.groups.get(gid)
            if group is not None and gid not in seen and group.min > 0:
                raise _bad(_range_message(group), gid)
        return out


def _range_message(group: data.Group) -> str:
    if group.min == group.max:
        n = group.min
        return f"Choose {n} option{'s' if n != 1 else ''} in '{group.name}'"
    return f"Choose between {group.min} and {group.max} options in '{group.name}'"


def _bad(message: str, group_id: str | None, **extra: Any) -> ApiError:
    if group_id is not None:
        extra["modifierGroupId"] = group_id
    return ApiError(400, "INVALID_MODIFIER_SELECTION", message, field="modifiers", extra=extra)


def selections_delta(selections: list[dict[str, Any]]) -> int:
    """Sum of option deltas x quantities, children included (minor units)."""
    total = 0
    for group in selections:
        for opt in group["selectedOptions"]:
            total += int(opt["price"]) * int(opt["quantity"])
            total += selections_delta(opt.get("children") or [])
    return total


def selections_json(selections: list[dict[str, Any]], currency: str) -> list[dict[str, Any]]:
    out = []
    for group in selections:
        opts = []
        for o in group["selectedOptions"]:
            opts.append(
                {
                    "optionId": o["optionId"],
                    "name": o["name"],
                    "quantity": o["quantity"],
                    "price": dec(o["price"]),
                    "priceFormatted": fmt(o["price"], currency),
                    "children": selections_json(o.get("children") or [], currency),
                }
            )
        out.append(
            {"groupId": group["groupId"], "name": group["groupName"], "selectedOptions": opts}
        )
    return out


def selections_key(selections: list[dict[str, Any]]) -> tuple[Any, ...]:
    """Order-independent identity of a selection, to merge identical lines."""
    return tuple(
        sorted(
            (
                g["groupId"],
                tuple(
                    sorted(
                        (o["optionId"], o["quantity"], selections_key(o.get("children") or []))
                        for o in g["selectedOptions"]
                    )
                ),
            )
            for g in selections
        )
    )
