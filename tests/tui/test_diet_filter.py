"""The menu's diet filter (issue 13): F6 (or a click) steps through the filters this menu's data
can answer; the products that do not match leave the list, the category counts follow, the
filter is said in words, and it is gone when the next customer's visit starts."""

from __future__ import annotations

from pathlib import Path
from typing import Any, NamedTuple

from textual.pilot import Pilot

from kiosk.ordering import diet
from kiosk.tui.menu_model import Header
from kiosk.tui.screens.location import LocationScreen
from kiosk.tui.screens.menu import CategoryList, DietBar, MenuScreen, ProductList
from kiosk.tui.screens.product import ModifierList, OptionRow, ProductScreen

from .conftest import Kiosk, make_kiosk, settle
from .test_bursts import burst
from .test_flow import banner, keys, open_menu, type_text


class Entry(NamedTuple):
    """A product row as the list holds it: the client's record under its category's header."""

    category_id: str
    product: Any

    @property
    def key(self) -> tuple[str, str]:
        return (self.category_id, self.product.id)


def entries(screen: MenuScreen) -> list[Entry]:
    return [Entry(c.id, p) for c, p in screen.query_one(ProductList).entries()]


def bar_text(screen: MenuScreen) -> str:
    bar = screen.query_one(DietBar)
    return str(bar.render()) if bar.display else ""


async def test_vegan_shows_only_vegan_products_and_the_counts_follow(kiosk: Kiosk) -> None:
    app = kiosk.app
    async with app.run_test(size=(100, 32)) as pilot:
        await open_menu(pilot, "1", "1")
        screen = app.screen
        assert isinstance(screen, MenuScreen)
        everything = entries(screen)
        assert [f.key for f in screen.diet_filters] == [
            "vegan",
            "vegetarian",
            "gluten-free",
            "no-nuts",
        ]
        assert "vegan" not in bar_text(screen).lower()

        await keys(pilot, "f6")
        assert screen.diet_filter is not None and screen.diet_filter.key == "vegan"
        shown = entries(screen)
        assert shown and len(shown) < len(everything)
        assert all(diet.keeps(diet.BY_KEY["vegan"], e.product) for e in shown)
        # Every vegan product of the menu is still there (nothing hidden that matches).
        vegan_ids = {e.key for e in everything if diet.keeps(diet.BY_KEY["vegan"], e.product)}
        assert {e.key for e in shown} == vegan_ids
        assert "prd_classic_burger" not in {e.product.id for e in shown}
        assert {"prd_power_bowl", "prd_latte"} <= {e.product.id for e in shown}
        assert "Vegan only" in bar_text(screen)

        # The sidebar lists only categories with a vegan product, each with its count, and the
        # list's headers say the same numbers.
        cats = screen.query_one(CategoryList)
        headers = {
            r.category_id: r.count
            for r in screen.query_one(ProductList).rows
            if isinstance(r, Header)
        }
        sidebar = {row.key: str(row.right).strip() for row in cats.rows}
        assert sidebar == {cid: str(n) for cid, n in headers.items()}
        for cid, count in headers.items():
            assert count == sum(1 for e in shown if e.category_id == cid)

        # The cursor only ever lands on what is shown.
        await keys(pilot, "down", "down", "down")
        products = screen.query_one(ProductList)
        assert products.cursor is not None
        assert products.key_at(products.cursor) in {e.key for e in shown}


async def test_a_burst_of_filter_keys_is_each_a_step(tmp_path: Path) -> None:
    k = make_kiosk(tmp_path)
    app = k.app
    async with app.run_test(size=(80, 24)) as pilot:
        await open_menu(pilot, "1", "1")
        screen = app.screen
        assert isinstance(screen, MenuScreen)
        await burst(pilot, "f6", "f6", "f6")  # vegan, vegetarian, gluten-free
        assert screen.diet_filter is not None and screen.diet_filter.key == "gluten-free"
        assert all(diet.keeps(diet.BY_KEY["gluten-free"], e.product) for e in entries(screen))
        await burst(pilot, "f6", "f6")  # no nuts, then off
        assert screen.diet_filter is None
        assert "only" not in bar_text(screen)
        # A burst of filter and search keys together: each handled in order.
        await burst(pilot, "f6", "t", "o", "f", "u")
        assert screen.diet_filter is not None and screen.diet_filter.key == "vegan"
        assert screen.query_text == "tofu"


async def test_search_inside_the_filter(kiosk: Kiosk) -> None:
    app = kiosk.app
    async with app.run_test(size=(100, 32)) as pilot:
        await open_menu(pilot, "1", "1")
        screen = app.screen
        assert isinstance(screen, MenuScreen)
        await keys(pilot, "f6")
        await type_text(pilot, "burger")
        # Burgers exist, but none is vegan: the search says nothing matches.
        assert entries(screen) == []
        await keys(pilot, "f6")  # vegetarian: the veggie burger comes back
        assert [e.product.id for e in entries(screen)] == ["prd_veggie_burger"]


async def test_a_click_changes_the_filter_too(kiosk: Kiosk) -> None:
    app = kiosk.app
    async with app.run_test(size=(100, 32)) as pilot:
        await open_menu(pilot, "1", "1")
        screen = app.screen
        assert isinstance(screen, MenuScreen)
        await pilot.click(DietBar)
        await settle(pilot)
        assert screen.diet_filter is not None and screen.diet_filter.key == "vegan"


async def test_the_product_screen_marks_choices_outside_the_filter(kiosk: Kiosk) -> None:
    app = kiosk.app
    async with app.run_test(size=(100, 32)) as pilot:
        await open_menu(pilot, "1", "1")
        await keys(pilot, "f6")
        await type_text(pilot, "latte")
        await keys(pilot, "enter")
        screen = app.screen
        assert isinstance(screen, ProductScreen)
        modifiers = screen.query_one(ModifierList)
        lines = {
            row.option.item.name: modifiers.row_text(row, 90, False).plain
            for row in modifiers.rows
            if isinstance(row, OptionRow)
        }
        assert "not vegan" in lines["Whole milk"]
        assert "not vegan" not in lines["Oat milk"]
        assert "vegan" in lines["Oat milk"]
        assert "contains nuts" in lines["Almond milk (contains nuts)"]


async def test_under_vegan_only_sizes_and_syrups_are_not_marked_and_dairy_is_swapped(
    kiosk: Kiosk,
) -> None:
    """Issue 33 (2): an option is marked for what it is (a size is not "not vegan"), and a
    preselected choice that leaves the filter (Whole milk) is swapped for one that fits, said."""
    app = kiosk.app
    async with app.run_test(size=(100, 32)) as pilot:
        await open_menu(pilot, "1", "1")
        await keys(pilot, "f6")
        await type_text(pilot, "latte")
        await keys(pilot, "enter")
        screen = app.screen
        assert isinstance(screen, ProductScreen)
        modifiers = screen.query_one(ModifierList)
        rows = [row for row in modifiers.rows if isinstance(row, OptionRow)]
        lines = {row.option.item.name: modifiers.row_text(row, 90, False).plain for row in rows}
        for neutral in ("Small (12 oz)", "Medium (16 oz)", "Extra shot", "Vanilla"):
            assert "not vegan" not in lines[neutral], lines[neutral]
        chosen = {row.option.item.name for row in rows if row.option.chosen}
        assert "Whole milk" not in chosen
        assert "Oat milk" in chosen
        said = banner(pilot)
        assert "Oat milk" in said and "Whole milk" in said, said


async def test_the_filter_is_cleared_for_the_next_visit(kiosk: Kiosk) -> None:
    app = kiosk.app
    async with app.run_test(size=(80, 24)) as pilot:
        await open_menu(pilot, "1", "1")
        await keys(pilot, "f6")
        assert isinstance(app.screen, MenuScreen) and app.screen.diet_filter is not None
        await keys(pilot, "f9", "y")
        await settle(pilot)
        assert isinstance(app.screen, LocationScreen)
        await open_menu(pilot, "1", "1")
        screen = app.screen
        assert isinstance(screen, MenuScreen)
        assert screen.diet_filter is None
        assert any(e.product.id == "prd_classic_burger" for e in entries(screen))


async def menu_of(pilot: Pilot[Any]) -> MenuScreen:
    screen = pilot.app.screen
    assert isinstance(screen, MenuScreen)
    return screen


async def test_no_nuts_says_to_ask_staff_about_allergies(kiosk: Kiosk) -> None:
    app = kiosk.app
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await menu_of_after_open(pilot)
        await keys(pilot, "f6", "f6", "f6", "f6")
        assert screen.diet_filter is not None and screen.diet_filter.key == "no-nuts"
        assert "ask staff" in banner(pilot)
        kept = {e.product.id for e in entries(screen)}
        assert "prd_almond_croissant" not in kept and "prd_espresso" in kept
        # The search line keeps its room beside the filter's words.
        assert screen.query_one("#search").region.width >= 20


async def menu_of_after_open(pilot: Pilot[Any]) -> MenuScreen:
    await open_menu(pilot, "1", "1")
    return await menu_of(pilot)
