"""The menu's type-ahead search: case and accents folded (NFKD), word starts ranked first, the match
underlined on the row, and a search that finds nothing said in the list (no banner, no layout)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from kiosk.api import MenusResponse
from kiosk.api.models import validate_as
from kiosk.tui import menu_model
from kiosk.tui.menu_model import Header
from kiosk.tui.screens.menu import MenuScreen, ProductList

from .conftest import make_kiosk, settle
from .test_flow import keys


def _menus(categories: dict[str, list[str]], tags: dict[str, list[str]] | None = None) -> Any:
    cats = []
    for c, (name, products) in enumerate(categories.items()):
        cats.append(
            {
                "id": f"c{c}",
                "name": name,
                "products": [
                    {
                        "id": p,
                        "name": p,
                        "price": "5.00",
                        "displayPrice": "$5.00",
                        "tags": (tags or {}).get(p, []),
                    }
                    for p in products
                ],
            }
        )
    menus = {"menus": [{"id": "m", "name": "All", "isActive": True, "categories": cats}]}
    return validate_as(MenusResponse, menus)


def _names(rows: list[menu_model.Row]) -> list[str]:
    return [r.name for r in rows if not isinstance(r, Header)]


def _search(categories: dict[str, list[str]], query: str, **kw: Any) -> list[str]:
    return _names(menu_model.rows(menu_model.build(_menus(categories, **kw), None), query))


DESSERTS = {"Desserts": ["Crème Brûlée", "Apple Pie", "Straße Cake", "ﬁg Tart"]}


@pytest.mark.parametrize("query", ["creme", "brul", "crè", "CRÈME", "Creme brulee", "crème  brû"])
def test_case_and_accents_are_folded(query: str) -> None:
    assert _search(DESSERTS, query) == ["Crème Brûlée"]


def test_compatibility_forms_and_special_cases_fold_too() -> None:
    assert _search(DESSERTS, "strasse") == ["Straße Cake"]
    assert _search(DESSERTS, "fig") == ["ﬁg Tart"]
    # An accent typed as a separate combining mark is the same letter.
    assert _search(DESSERTS, "cre\u0300me") == ["Crème Brûlée"]


def test_punctuation_and_spaces_between_words_are_one_space() -> None:
    menu = {"Big": ["Smoky Taco No. 42", "Smoky Taco No. 4", "Wrap No.42"]}
    assert _search(menu, "no. 42") == ["Smoky Taco No. 42", "Wrap No.42"]
    assert _search(menu, "no 42") == ["Smoky Taco No. 42", "Wrap No.42"]
    assert _search(menu, "taco-no") == ["Smoky Taco No. 42", "Smoky Taco No. 4"]


def test_word_starts_rank_first_within_a_category() -> None:
    menu = {"Drinks": ["Hot Chocolate", "Flat White", "Iced Latte", "Latte"]}
    # The name starting with it, then a word starting with it, then inside a word (menu order
    # kept within each).
    assert _search(menu, "lat") == ["Latte", "Iced Latte", "Hot Chocolate", "Flat White"]


def test_a_category_with_a_word_start_comes_before_one_with_only_inside_matches() -> None:
    menu = {"Hot drinks": ["Hot Chocolate"], "Coffee": ["Latte"], "Cold": ["Iced Latte"]}
    rows = menu_model.rows(menu_model.build(_menus(menu), None), "lat")
    assert [(r.name, r.count) for r in rows if isinstance(r, Header)] == [
        ("Coffee", 1),
        ("Cold", 1),
        ("Hot drinks", 1),
    ]
    assert _names(rows) == ["Latte", "Iced Latte", "Hot Chocolate"]


def test_a_search_typed_a_key_at_a_time_finds_what_a_whole_query_finds() -> None:
    """Search narrows the last query's matches when the query goes on from it: the rows are the
    same as a fresh search's at every step, through backspaces, a new word, another start, a
    product in two categories and the categories changing under it (the diet filter)."""
    menu = {
        "Coffee": ["Latte", "Flat White", "Iced Latte", "Café Crème"],
        "Cold": ["Iced Latte", "Lemonade", "Cold Brew"],
        "Sweet": ["Hot Chocolate", "Crème Brûlée", "Latte Cake"],
    }
    categories = menu_model.build(_menus(menu), None)
    other = menu_model.keep_only(categories, lambda p: "Latte" not in p.name)
    search = menu_model.Search()
    typed = ["l", "la", "lat", "latt", "latte", "latte ", "latte c", "lat", "", "c", "cr", "cre"]
    for shown in (categories, other):
        for query in typed:
            assert search.rows(shown, query) == menu_model.rows(shown, query), (query, shown)
    # A narrowed search is a subset: "lab" after "la" finds nothing that "la" did not.
    assert search.rows(categories, "la") == menu_model.rows(categories, "la")
    assert _names(search.rows(categories, "lab")) == []


def _one_at_a_time(categories: list[menu_model.Category], query: str) -> list[menu_model.Row]:
    """The search as menu_model.rows describes it, a product at a time: each product once (in
    the first category that lists it), name starts, then word starts, then inside a word; the
    categories by their best match, then in menu order."""
    needle = menu_model.fold(query)
    seen: set[str] = set()
    found = []
    for order, group in enumerate(categories):
        tiers: tuple[list[Any], list[Any], list[Any]] = ([], [], [])
        for product, key in zip(group.products, group.keys, strict=True):
            if needle in key and product.id not in seen:
                seen.add(product.id)
                tiers[
                    0 if key.startswith(" " + needle) else 1 if " " + needle in key else 2
                ].append(product)
        if any(tiers):
            best = next(t for t in range(3) if tiers[t])
            found.append((best, order, group, tiers[0] + tiers[1] + tiers[2]))
    found.sort(key=lambda f: (f[0], f[1]))
    rows: list[menu_model.Row] = []
    for _best, _order, group, matches in found:
        rows += [Header(group.id, group.name, len(matches)), *matches]
    return rows


@pytest.mark.parametrize("repeated", [False, True])
def test_the_search_finds_what_a_search_a_product_at_a_time_finds(repeated: bool) -> None:
    """With every product once, and with one in two categories and one twice in a category."""
    menu = {
        "Coffee": ["Latte", "Flat White", "Café Crème", "Oat Latte"],
        "Cold": ["Lemonade", "Cold Brew", "Iced Tea"],
        "Sweet": ["Hot Chocolate", "Crème Brûlée", "Latte Cake", "Plate of Dates"],
    }
    if repeated:
        menu["Cold"].insert(1, "Latte")
        menu["Sweet"].append("Crème Brûlée")
    categories = menu_model.build(_menus(menu), None)
    search = menu_model.Search()
    for query in ["l", "la", "lat", "latt", "latte", "at", "", "c", "cr", "cre", "e", "zz", "te"]:
        expected = _one_at_a_time(categories, query) if query else menu_model.rows(categories)
        assert menu_model.rows(categories, query) == expected, query
        assert search.rows(categories, query) == expected, query
    assert _names(search.rows(categories, "latte")).count("Latte") == 1


def test_tags_are_searched_after_the_name() -> None:
    menu = {"Mains": ["Green Curry", "Veggie Burger", "Tofu Bowl"]}
    tags = {"Tofu Bowl": ["vegan"], "Green Curry": ["spicy"]}
    assert _search(menu, "veg", tags=tags) == ["Veggie Burger", "Tofu Bowl"]


@pytest.mark.parametrize(
    ("name", "query", "underlined"),
    [
        ("Crème Brûlée", "brul", "Brûl"),
        ("Crème Brûlée", "crè", "Crè"),
        ("Hot Chocolate", "lat", "lat"),
        ("Flat Latte", "lat", "Lat"),  # a word start preferred to an earlier inside match
        ("Smoky Taco No. 42", "no. 42", "No. 42"),
        ("cre\u0300me", "crem", "cre\u0300m"),
        ("Straße", "strasse", "Straße"),
    ],
)
def test_the_match_span_is_in_the_name_as_shown(name: str, query: str, underlined: str) -> None:
    span = menu_model.match_span(name, menu_model.fold(query))
    assert span is not None
    assert name[span[0] : span[1]] == underlined


def test_no_span_when_only_a_tag_matched() -> None:
    assert menu_model.match_span("Tofu Bowl", menu_model.fold("vegan")) is None
    assert menu_model.match_span("Tofu Bowl", "") is None


async def test_the_menu_underlines_the_match_and_says_when_nothing_matches(
    tmp_path: Path,
) -> None:
    kiosk = make_kiosk(tmp_path, extra_products=300)
    app = kiosk.app
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await keys(pilot, "1", "1")
        screen = app.screen
        assert isinstance(screen, MenuScreen)
        products = screen.query_one(ProductList)
        await pilot.press(*"no. 299")
        await settle(pilot)
        index = next(i for i, r in enumerate(products.rows) if not isinstance(r, Header))
        text = products.text_at(index, 100, False)
        underlined = [
            text.plain[s.start : s.end] for s in text.spans if "underline" in str(s.style)
        ]
        assert underlined == ["No. 299"], text.spans
        # Nothing matches: said on the list's first line, the banner left alone.
        await pilot.press(*"zzz")
        await settle(pilot)
        assert products.rows == []
        line = "".join(seg.text for seg in products.render_line(0))
        assert "Nothing on the menu matches “no. 299zzz”." in line
        assert not screen.banner.shown
        await pilot.press("escape")
        await settle(pilot)
        assert products.rows and products.empty_text is None
