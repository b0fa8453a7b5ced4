"""What changed between two readings of a cart, in words a customer reads at a glance.

Used when the server refused a write because the cart had moved on (2.0 `CART_CONFLICT`: another
device, or staff, changed it): the kiosk re-reads the cart and says what is different instead of
re-applying anything by itself.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from kiosk.i18n import _

if TYPE_CHECKING:
    from kiosk.api.models import Cart

__all__ = ["cart_changes"]

# Past this many, the rest is summed up: a banner is one or two lines.
_MAX_SAID = 3


def _name(item: object) -> str:
    name = str(getattr(item, "name", "") or getattr(item, "product_id", "") or _("an item"))
    return name if len(name) <= 40 else name[:39] + "…"


def cart_changes(before: Cart | None, after: Cart | None) -> list[str]:
    """Each difference a customer would notice, in order: lines added, removed, re-counted; then
    the code, the tip, the way of ordering, the time. Empty when nothing they see changed."""
    if before is None or after is None:
        return [] if before is after else [_("your order was replaced")]
    said: list[str] = []
    old = {i.id: i for i in before.items}
    new = {i.id: i for i in after.items}
    for item_id, item in new.items():
        was = old.get(item_id)
        if was is None:
            said.append(_("{name} ×{n} added").format(name=_name(item), n=item.quantity))
        elif was.quantity != item.quantity:
            now = _("{name} now ×{n} (was ×{was})")
            said.append(now.format(name=_name(item), n=item.quantity, was=was.quantity))
        if item.is_unavailable and (was is None or not was.is_unavailable):
            said.append(_("{name} is sold out").format(name=_name(item)))
    gone = _("{name} removed")
    said.extend(
        gone.format(name=_name(item)) for item_id, item in old.items() if item_id not in new
    )
    if (before.discount_code or None) != (after.discount_code or None):
        said.append(
            _("code {code} applied").format(code=after.discount_code)
            if after.discount_code
            else _("the code was removed")
        )
    if before.waiter_tip_total != after.waiter_tip_total:
        said.append(_("the tip changed"))
    if before.fulfilment_method != after.fulfilment_method:
        said.append(_("the way of ordering changed"))
    if (before.order_date, before.order_time) != (after.order_date, after.order_time):
        said.append(_("the order time changed"))
    if not said and before.order_total != after.order_total:
        said.append(_("the total changed"))
    if len(said) > _MAX_SAID:
        more = len(said) - _MAX_SAID
        said = [
            *said[:_MAX_SAID],
            _("{n} more change(s)").format(n=more),
        ]
    return said
