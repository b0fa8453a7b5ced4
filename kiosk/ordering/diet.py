"""Diet and allergen marks read from the API's data, and the rules of the menu's diet filter.

No UI here: the menu and product screens ask this module which marks to show and which products a
filter keeps. The data speaks in tags: the legacy API's `tags` on products (and, where a server
sends them, on options), Storefront 2.0's `nutrition.dietaryPreferences`, and an `allergens` list
when one is sent. Spellings vary between merchants, so each tag is normalised to one mark.

The rules, where the documents are silent (assumptions, kept here only):
- A product is vegan (vegetarian, gluten-free) for the filter when it is so *as it comes* (its own
  tag), or when it offers such a choice: a `vegan-option` tag on the product, or (once its options
  are known) an option tagged `vegan`.
- An option inherits its product's diets unless it says otherwise: `meat`, `fish`, `shellfish`
  and `not-vegetarian` take away vegan and vegetarian, `dairy`, `egg`, `honey` and `not-vegan`
  take away vegan, `gluten` takes away gluten-free. An option tagged `vegan` is vegan on any
  product.
- "No nuts" keeps what carries no nut mark. An unmarked product is not proof of anything, so the
  screens say to ask staff about allergies.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from kiosk.i18n import N_, _

VEGAN = "vegan"
VEGETARIAN = "vegetarian"
GLUTEN_FREE = "gluten-free"
NUTS = "nuts"  # tree nuts
SESAME = "sesame"
DAIRY = "dairy"  # milk
SPICY = "spicy"
# The rest of the 14 major allergens (EU FIC Annex II, UK and FSANZ): with nuts, sesame and dairy,
# what a demo restaurant marks on each dish. The API carries them as tags (v1 `tags`, an
# `allergens` list, or 2.0's `nutrition.dietaryPreferences`): "contains-gluten", "egg"...
GLUTEN = "gluten"
CRUSTACEANS = "crustaceans"
EGG = "egg"
FISH = "fish"
PEANUTS = "peanuts"
SOY = "soy"
CELERY = "celery"
MUSTARD = "mustard"
SULPHITES = "sulphites"
LUPIN = "lupin"
MOLLUSCS = "molluscs"
# The order the allergens are drawn and said in.
ALLERGEN_ORDER = (
    GLUTEN,
    CRUSTACEANS,
    EGG,
    FISH,
    PEANUTS,
    SOY,
    DAIRY,
    NUTS,
    CELERY,
    MUSTARD,
    SESAME,
    SULPHITES,
    LUPIN,
    MOLLUSCS,
)

# Option-level marks that take a diet away (see the module's rules).
_NOT_VEGETARIAN = frozenset(
    {"meat", "fish", "shellfish", "crustaceans", "molluscs", "not-vegetarian"}
)
_NOT_VEGAN = _NOT_VEGETARIAN | {"dairy", "egg", "honey", "not-vegan"}
_NOT_GLUTEN_FREE = frozenset({"gluten", "contains-gluten"})

# Every spelling seen in the wild (and in both dialects) -> one mark.
_ALIASES: dict[str, str] = {
    "vegan": VEGAN,
    "plant-based": VEGAN,
    "vegetarian": VEGETARIAN,
    "veggie": VEGETARIAN,
    "gluten-free": GLUTEN_FREE,
    "glutenfree": GLUTEN_FREE,
    "gf": GLUTEN_FREE,
    "nuts": NUTS,
    "nut": NUTS,
    "contains-nuts": NUTS,
    "tree-nuts": NUTS,
    "contains-tree-nuts": NUTS,
    "peanuts": PEANUTS,
    "peanut": PEANUTS,
    "contains-peanuts": PEANUTS,
    "contains-peanut": PEANUTS,
    "sesame": SESAME,
    "contains-sesame": SESAME,
    "dairy": DAIRY,
    "contains-dairy": DAIRY,
    "milk": DAIRY,
    "contains-milk": DAIRY,
    "spicy": SPICY,
    "contains-gluten": GLUTEN,
    "wheat": GLUTEN,
    "crustaceans": CRUSTACEANS,
    "crustacean": CRUSTACEANS,
    "contains-crustaceans": CRUSTACEANS,
    "eggs": EGG,
    "contains-egg": EGG,
    "contains-eggs": EGG,
    "contains-fish": FISH,
    "soy": SOY,
    "soya": SOY,
    "contains-soy": SOY,
    "contains-soya": SOY,
    "contains-celery": CELERY,
    "contains-mustard": MUSTARD,
    "sulphites": SULPHITES,
    "sulfites": SULPHITES,
    "contains-sulphites": SULPHITES,
    "contains-sulfites": SULPHITES,
    "lupine": LUPIN,
    "contains-lupin": LUPIN,
    "mollusc": MOLLUSCS,
    "mollusks": MOLLUSCS,
    "contains-molluscs": MOLLUSCS,
}
_DIETS = frozenset({VEGAN, VEGETARIAN, GLUTEN_FREE})
_ALLERGENS = frozenset(ALLERGEN_ORDER)
# A choice of the diet is on offer, though the product as it comes is not of it.
_CHOICE_TAGS = {
    "vegan-option": VEGAN,
    "vegetarian-option": VEGETARIAN,
    "gluten-free-option": GLUTEN_FREE,
}

# The text marks drawn beside a name (words, never colour alone: a customer reads them unaided).
MARK_TEXT: dict[str, str] = {
    VEGAN: "vegan",
    VEGETARIAN: "vegetarian",
    GLUTEN_FREE: "gluten-free",
    NUTS: "contains nuts",
    SESAME: "sesame",
    DAIRY: "dairy",
    SPICY: "spicy",
    GLUTEN: "gluten",
    CRUSTACEANS: "crustaceans",
    EGG: "egg",
    FISH: "fish",
    PEANUTS: "peanuts",
    SOY: "soy",
    CELERY: "celery",
    MUSTARD: "mustard",
    SULPHITES: "sulphites",
    LUPIN: "lupin",
    MOLLUSCS: "molluscs",
}

# Compact marks for a list row (issue 20): a code each, explained once in a legend on the screen
# (the words took 40% of a menu row and were cut: "[contains nu…"). Translated where shown.
MARK_CODE: dict[str, str] = {
    VEGAN: N_("VG"),
    VEGETARIAN: N_("V"),
    GLUTEN_FREE: N_("GF"),
    NUTS: N_("N"),
    SESAME: N_("SE"),
    DAIRY: N_("D"),
    SPICY: N_("HOT"),
    GLUTEN: N_("GL"),
    CRUSTACEANS: N_("CR"),
    EGG: N_("E"),
    FISH: N_("F"),
    PEANUTS: N_("P"),
    SOY: N_("SO"),
    CELERY: N_("CE"),
    MUSTARD: N_("MU"),
    SULPHITES: N_("SU"),
    LUPIN: N_("LU"),
    MOLLUSCS: N_("MO"),
}
# The legend's words for each code ("VG vegan"); a diet offered as a choice is its code in
# brackets ("(VG) vegan option").
MARK_WORDS: dict[str, str] = {
    VEGAN: N_("vegan"),
    VEGETARIAN: N_("vegetarian"),
    GLUTEN_FREE: N_("gluten-free"),
    NUTS: N_("nuts"),
    SESAME: N_("sesame"),
    DAIRY: N_("dairy"),
    SPICY: N_("spicy"),
    GLUTEN: N_("gluten"),
    CRUSTACEANS: N_("crustaceans"),
    EGG: N_("egg"),
    FISH: N_("fish"),
    PEANUTS: N_("peanuts"),
    SOY: N_("soy"),
    CELERY: N_("celery"),
    MUSTARD: N_("mustard"),
    SULPHITES: N_("sulphites"),
    LUPIN: N_("lupin"),
    MOLLUSCS: N_("molluscs"),
}
OPTION_WORDS = {VEGAN: N_("vegan option"), VEGETARIAN: N_("vegetarian option")}


def normalise(tag: object) -> str:
    """One tag as a lower-case, hyphenated word ("Gluten Free" -> "gluten-free")."""
    text = str(tag).strip().casefold().replace("_", "-").replace(" ", "-")
    return _ALIASES.get(text, text)


def raw_tags(item: Any) -> list[str]:
    """Every tag an API record carries, from either dialect, normalised, in order, once each."""
    found: list[object] = list(getattr(item, "tags", None) or ())
    extra = getattr(item, "model_extra", None) or {}
    if not found and isinstance(extra.get("tags"), list):
        found.extend(extra["tags"])  # options: `tags` is not a declared field there
    nutrition = extra.get("nutrition")
    if isinstance(nutrition, dict) and isinstance(nutrition.get("dietaryPreferences"), list):
        found.extend(nutrition["dietaryPreferences"])
    if isinstance(extra.get("allergens"), list):
        found.extend(extra["allergens"])
    # The lean menu record (kiosk.api.models.MenuProduct) keeps these as fields.
    found.extend(getattr(item, "dietary_preferences", None) or ())
    if not extra:
        found.extend(getattr(item, "allergens", None) or ())
    out: list[str] = []
    for tag in found:
        if tag is None or isinstance(tag, dict | list):
            continue
        word = normalise(tag)
        if word and word not in out:
            out.append(word)
    return out


@dataclass(frozen=True, slots=True)
class Marks:
    diets: frozenset[str]  # what the item is, as it comes
    choices: frozenset[str]  # diets it offers a choice of
    allergens: frozenset[str]
    others: tuple[str, ...]  # any other tag (spicy, house-special...), shown as it is

    def labels(self) -> list[str]:
        """The text marks, diets first: ["vegan", "gluten-free", "contains nuts"]. Vegan implies
        vegetarian, so a vegan dish shows one mark."""
        shown = (VEGAN, GLUTEN_FREE) if VEGAN in self.diets else (VEGETARIAN, GLUTEN_FREE)
        out = [MARK_TEXT[d] for d in shown if d in self.diets]
        out.extend(f"{MARK_TEXT[d]} option" for d in (VEGAN, VEGETARIAN) if d in self.choices)
        out.extend(MARK_TEXT[a] for a in ALLERGEN_ORDER if a in self.allergens)
        out.extend(MARK_TEXT.get(o, o) for o in self.others)
        return out

    def codes(self) -> list[tuple[str, str]]:
        """The compact marks, in the order of `labels`: (code, legend words), translated. A tag
        with no code is shown as its word, with no legend entry ("" words)."""
        shown = (VEGAN, GLUTEN_FREE) if VEGAN in self.diets else (VEGETARIAN, GLUTEN_FREE)
        out = [(_(MARK_CODE[d]), _(MARK_WORDS[d])) for d in shown if d in self.diets]
        out.extend(
            (f"({_(MARK_CODE[d])})", _(OPTION_WORDS[d]))
            for d in (VEGAN, VEGETARIAN)
            if d in self.choices
        )
        out.extend(
            (_(MARK_CODE[a]), _(MARK_WORDS[a])) for a in ALLERGEN_ORDER if a in self.allergens
        )
        for other in self.others:
            if other in MARK_CODE:
                out.append((_(MARK_CODE[other]), _(MARK_WORDS[other])))
            else:
                out.append((other[:16], ""))
        return out


def marks(item: Any) -> Marks:
    tags = raw_tags(item)
    diets = {t for t in tags if t in _DIETS}
    if VEGAN in diets:
        diets.add(VEGETARIAN)
    choices = {_CHOICE_TAGS[t] for t in tags if t in _CHOICE_TAGS}
    if VEGAN in choices:
        choices.add(VEGETARIAN)
    allergens = {t for t in tags if t in _ALLERGENS}
    known = _DIETS | _ALLERGENS | _CHOICE_TAGS.keys() | _NOT_VEGAN | _NOT_GLUTEN_FREE
    others = tuple(t for t in tags if t not in known)
    return Marks(frozenset(diets), frozenset(choices - diets), frozenset(allergens), others)


def option_diets(option: Any, product_diets: frozenset[str]) -> frozenset[str]:
    """The diets an option keeps: its product's, less what its own tags take away, plus its own."""
    tags = set(raw_tags(option))
    diets = set(product_diets)
    if tags & _NOT_VEGETARIAN:
        diets -= {VEGAN, VEGETARIAN}
    if tags & _NOT_VEGAN:
        diets.discard(VEGAN)
    if tags & _NOT_GLUTEN_FREE:
        diets.discard(GLUTEN_FREE)
    own = {t for t in tags if t in _DIETS}
    if VEGAN in own:
        own.add(VEGETARIAN)
    return frozenset(diets | own)


def _options(product: Any) -> Iterable[Any]:
    """Every option of a product detail, nested ones too (a menu record has none)."""
    stack = list(getattr(product, "modifiers", None) or ())
    while stack:
        group = stack.pop()
        for item in getattr(group, "items", None) or ():
            yield item
            stack.extend(c.group for c in item.child_groups if c.group is not None)


# --------------------------------------------------------------------------- the menu filter


@dataclass(frozen=True, slots=True)
class DietFilter:
    key: str
    label: str  # "Vegan"
    needs: str  # the diet it asks for, or "" for an allergen filter
    avoids: str = ""  # the allergen it keeps out


FILTERS: tuple[DietFilter, ...] = (
    DietFilter("vegan", "Vegan", VEGAN),
    DietFilter("vegetarian", "Vegetarian", VEGETARIAN),
    DietFilter("gluten-free", "Gluten-free", GLUTEN_FREE),
    DietFilter("no-nuts", "No nuts", "", NUTS),
)
BY_KEY = {f.key: f for f in FILTERS}


def verdict(diet_filter: DietFilter, product: Any) -> str | None:
    """Why `product` passes the filter ("vegan", "has a vegan choice", "no nut mark"), or None."""
    m = marks(product)
    if diet_filter.avoids:
        return None if _avoided(diet_filter, m.allergens) else f"no {diet_filter.avoids} mark"
    wanted = diet_filter.needs
    if wanted in m.diets:
        return diet_filter.label.lower()
    if wanted in m.choices or any(wanted in option_diets(o, m.diets) for o in _options(product)):
        return f"has a {diet_filter.label.lower()} choice"
    return None


def _avoided(diet_filter: DietFilter, allergens: frozenset[str]) -> bool:
    """Whether `allergens` hold what the filter keeps out ("No nuts": tree nuts and peanuts)."""
    kept_out = {NUTS, PEANUTS} if diet_filter.avoids == NUTS else {diet_filter.avoids}
    return bool(kept_out & allergens)


def keeps(diet_filter: DietFilter | None, product: Any) -> bool:
    return diet_filter is None or verdict(diet_filter, product) is not None


def option_fits(diet_filter: DietFilter | None, option: Any, product: Any) -> bool:
    """Whether a product's option stays within the filter (the product screen marks the others).

    An option is judged by what it is: only its own tags take a diet away ("Whole milk" is
    dairy, so not vegan). A size, a shot or a syrup with no such tag adds nothing that leaves the
    diet, even on a product that is of the diet only with another choice (a latte with oat milk).
    """
    if diet_filter is None:
        return True
    if diet_filter.avoids:
        return not _avoided(diet_filter, marks(option).allergens)
    wanted = diet_filter.needs
    if wanted not in option_diets(option, frozenset(_DIETS)):
        return False
    if wanted in marks(product).diets or wanted in option_diets(option, frozenset()):
        return True
    # A group where the diet is a choice ("Plant patty" tagged vegan beside "Beef"): on a
    # product not of the diet as it comes, the untagged siblings are the other way.
    siblings = _siblings(product, option)
    return not any(wanted in option_diets(o, frozenset()) for o in siblings)


def _siblings(product: Any, option: Any) -> list[Any]:
    """The options of the group `option` belongs to in `product` (nested groups too)."""
    stack = list(getattr(product, "modifiers", None) or ())
    while stack:
        group = stack.pop()
        items = list(getattr(group, "items", None) or ())
        if any(item is option for item in items):
            return items
        for item in items:
            stack.extend(c.group for c in item.child_groups if c.group is not None)
    return []


def option_labels(diet_filter: DietFilter | None, option: Any, product: Any) -> list[str]:
    """The marks beside an option on the product screen: what it changes of the dish ("contains
    nuts", "vegan"), and "not vegan" while that filter is on and the option leaves the diet."""
    own = marks(option)
    product_marks = marks(product)
    out = [MARK_TEXT[a] for a in ALLERGEN_ORDER if a in own.allergens - product_marks.allergens]
    gained = option_diets(option, frozenset()) - product_marks.diets
    if VEGAN in gained:
        out.insert(0, MARK_TEXT[VEGAN])
    elif gained:
        out[:0] = [MARK_TEXT[d] for d in (VEGETARIAN, GLUTEN_FREE) if d in gained]
    if diet_filter is not None and not option_fits(diet_filter, option, product):
        out.insert(0, f"not {diet_filter.label.lower()}" if diet_filter.needs else "contains nuts")
    # A mark the option's own name already says ("Pecans (contains nuts)") is not said twice.
    name = str(getattr(option, "name", "") or "").casefold()
    return [label for label in dict.fromkeys(out) if label not in name]


def fitting_choices(
    diet_filter: DietFilter | None, state: Any, product: Any
) -> tuple[Any, list[tuple[str, str]]]:
    """`state` (a SelectionState) with each preselected one-of choice that leaves the filter
    swapped for the first option of its group that fits and is not sold out, and the swaps made
    as (old name, new name). A vegan who presses Add at once gets oat milk, never whole milk."""
    swaps: list[tuple[str, str]] = []
    if diet_filter is None:
        return state, swaps
    changed = True
    while changed:  # a swap may show or hide nested groups: look again until nothing moves
        changed = False
        for view in state.groups():
            if not view.single:
                continue
            chosen = [o for o in view.options if o.chosen]
            if not chosen or option_fits(diet_filter, chosen[0].item, product):
                continue
            fits = [
                o
                for o in view.options
                if not o.sold_out and option_fits(diet_filter, o.item, product)
            ]
            if not fits:
                continue
            state = state.select(fits[0].key)
            swaps.append((str(chosen[0].item.name), str(fits[0].item.name)))
            changed = True
            break
    return state, swaps


def available(products: Iterable[Any]) -> tuple[DietFilter, ...]:
    """The filters this menu's data can answer: a diet some product is (or offers), and "no
    nuts" only on a menu that marks nuts at all (elsewhere it would keep everything, saying
    nothing)."""
    seen_diets: set[str] = set()
    seen_allergens: set[str] = set()
    for product in products:
        m = marks(product)
        seen_diets |= m.diets | m.choices
        seen_allergens |= m.allergens
    return tuple(
        f
        for f in FILTERS
        if (f.needs and f.needs in seen_diets)
        or (f.avoids and _avoided(f, frozenset(seen_allergens)))
    )


def next_filter(current: DietFilter | None, offered: tuple[DietFilter, ...]) -> DietFilter | None:
    """The filter one press of the filter key turns to: none -> each offered in turn -> none."""
    if not offered:
        return None
    if current is None or current not in offered:
        return offered[0]
    index = offered.index(current) + 1
    return offered[index] if index < len(offered) else None
