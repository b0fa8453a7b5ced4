"""The read-only storefront: merchant, locations, menus, products, tips, sold out."""

from __future__ import annotations

from typing import Any

from kiosk.demo.catalog import menu_open_at
from kiosk.demo.domain.hours import HoursRules
from kiosk.demo.errors import not_found


class MenuRules(HoursRules):
    """Lookups and the read-only answers about the merchant, its locations and menus."""

    def location(self, ident: str) -> dict[str, Any] | None:
        return self.catalog.resolve_location(ident)

    def sold_out(self) -> set[str]:
        return self.store.sold_out()

    def set_sold_out(self, item_id: str, sold_out: bool = True) -> None:
        """Mark a product or a modifier option sold out (or back in stock), for every location."""
        if item_id not in self.catalog.products and item_id not in self.catalog.options:
            raise KeyError(item_id)
        self.store.set_sold_out(item_id, sold_out)

    def _currency(self, loc: dict[str, Any]) -> str:
        return self.catalog.currency

    def merchant_json(self, slug: str) -> dict[str, Any]:
        m = self.catalog.merchant
        if m is None or slug not in (m["slug"], m["id"]):
            raise not_found("Merchant not found")
        locs = [
            {
                "id": loc["id"],
                "slug": loc["slug"],
                "restaurantDisplayName": loc["name"],
                "addressString": self._address_string(loc),
                "timezone": loc["timezone"],
                "methodsStatus": self._methods_status(loc),
            }
            for loc in self.catalog.locations.values()
            if not loc["hidden"]
        ]
        return {
            "id": m["id"],
            "slug": m["slug"],
            "name": m["name"],
            "currency": self.catalog.currency,
            "locations": locs,
        }

    @staticmethod
    def _address_string(loc: dict[str, Any]) -> str:
        a = loc["details"]["address"]
        # "120 Lantern Street, New York, NY 10038"; a file may leave state or zip code empty.
        tail = " ".join(part for part in (a["state"], a["zipCode"]) if part)
        return ", ".join(part for part in (a["street"], a["city"], tail) if part)

    @staticmethod
    def _methods_status(loc: dict[str, Any]) -> dict[str, bool]:
        methods = set(loc["methods"])
        return {
            "pickup": "pickup" in methods,
            "delivery": "delivery" in methods,
            "table": "table_service" in methods,
            "roomService": "room_service" in methods,
            "dineIn": "dine_in" in methods,
        }

    def location_json(self, loc: dict[str, Any]) -> dict[str, Any]:
        det = loc["details"]
        local = self.local_now(loc)
        return {
            "id": loc["id"],
            "restaurantSlug": loc["slug"],
            "restaurantDisplayName": loc["name"],
            "restaurantBio": det["bio"],
            "addressData": dict(det["address"]),
            "addressString": self._address_string(loc),
            "phone": det["phone"],
            "timezone": loc["timezone"],
            "currency": self.catalog.currency,
            "isOrderingAllowed": True,
            "isScheduledOrderAllowed": bool(det["scheduled"]),
            "isOpenNow": self.is_open(loc, local),
            "methodsStatus": self._methods_status(loc),
            "fulfillmentMethods": list(loc["methods"]),
            "hours": [dict(h) for h in det["hours"]],
            "deliveryRadiusMiles": det["delivery_radius_miles"],
            "isActive": True,
        }

    def time_intervals_json(self, loc: dict[str, Any]) -> dict[str, Any]:
        return {
            "orderDays": self.order_days(loc),
            "scheduleAllowed": bool(loc["details"]["scheduled"]),
            "timezone": loc["timezone"],
        }

    def gratuity_json(self, loc: dict[str, Any]) -> dict[str, Any]:
        g = loc["details"]["gratuity"]
        return {
            "enabled": g["enabled"],
            "shouldAllowCustomTip": g["shouldAllowCustomTip"],
            "tipPercentage": list(g["tipPercentage"]),
            "defaultTipPercentage": g["defaultTipPercentage"],
        }

    def menus_json(
        self, loc: dict[str, Any], order_date: str | None, order_time: str | None
    ) -> dict[str, Any]:
        when = self._parse_when(loc, order_date, order_time)
        sold = self.sold_out()
        cur = self._currency(loc)
        lid = loc["id"]
        menus = []
        listed: set[str] = set()
        for menu in self.catalog.menus.get(lid, []):
            if not menu_open_at(menu, when):
                continue
            cats = []
            for cat_id, name, pids in menu.categories:
                prods = [
                    self.catalog.menu_product(lid, self.catalog.products[p], sold, cur)
                    for p in pids
                    if p in self.catalog.products
                ]
                listed.update(pids)
                cats.append({"id": cat_id, "name": name, "products": prods})
            window = "all-day" if menu.start is None else f"{menu.start}-{menu.end}"
            menus.append(
                {
                    "id": menu.id,
                    "name": menu.name,
                    "isActive": True,
                    "time": window,
                    "availableTimes": [
                        {
                            "days": list(menu.days),
                            "start": menu.start or "00:00",
                            "end": menu.end or "23:59",
                        }
                    ],
                    "categories": cats,
                }
            )
        popular = [
            self.catalog.menu_product(lid, self.catalog.products[p], sold, cur)
            for p in loc.get("popular", [])
            if p in listed and p in self.catalog.products
        ]
        return {
            "menus": menus,
            "popularProducts": popular,
            "orderDate": when.date().isoformat(),
            "orderTime": when.strftime("%H:%M"),
        }

    def products_json(self, loc: dict[str, Any]) -> list[dict[str, Any]]:
        sold = self.sold_out()
        cur = self._currency(loc)
        lid = loc["id"]
        return [
            self.catalog.menu_product(lid, self.catalog.products[pid], sold, cur)
            for pid in self.catalog.placements.get(lid, {})
        ]

    def product_json(self, loc: dict[str, Any], pid: str) -> dict[str, Any]:
        product = self.catalog.location_product(loc["id"], pid)
        if product is None:
            raise not_found("Product not found")
        sold = self.sold_out()
        cur = self._currency(loc)
        out = self.catalog.menu_product(loc["id"], product, sold, cur)
        out["locationId"] = loc["id"]
        out["modifiers"] = [
            self.catalog.group_json(self.catalog.groups[g], sold, cur)
            for g in product.modifier_ids
            if g in self.catalog.groups
        ]
        return out
