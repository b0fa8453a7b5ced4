"""The demo merchant: locations, keys, menus, modifier groups and discount codes.

Everything here is fixed, documented demo data (the keys are demo secrets printed by
`kiosk demo-server`), so the kiosk, the tests and a person giving a demo all see the same shop.
Money is integer minor units. This module is cheap to import (no Starlette, no SQLite): the kiosk
reads MERCHANT_SLUG and the keys from it.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from typing import Any

MERCHANT_ID = "mer_lantern"
MERCHANT_SLUG = "lantern-kitchen"
MERCHANT_NAME = "Lantern Street Kitchen"
CURRENCY = "usd"

DAYS = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")
WEEKDAYS = DAYS[:5]
WEEKEND = DAYS[5:]

# Canonical fulfillment methods, as requests send them.
METHODS = ("pickup", "dine_in", "table_service", "delivery", "room_service")


@dataclass(frozen=True)
class DemoLocation:
    id: str
    slug: str
    name: str
    timezone: str
    api_key: str
    methods: tuple[str, ...]
    subscribed: bool = True
    hidden: bool = False

    def __repr__(self) -> str:
        # The key is a (demo) secret: keep it out of reprs and therefore out of logs.
        return f"DemoLocation(id={self.id!r}, slug={self.slug!r}, name={self.name!r})"


@dataclass(frozen=True)
class DemoDiscount:
    code: str
    kind: str  # "percent" or "fixed"
    value: int  # percent (10 = 10 %) or minor units
    minimum: int = 0  # minimum subTotalWithoutDiscount, minor units
    expires_at: float | None = None  # Unix seconds; None = never
    description: str = ""


DOWNTOWN = DemoLocation(
    id="loc_downtown",
    slug="lantern-downtown",
    name="Lantern Downtown",
    timezone="America/New_York",
    api_key="sk_demo_downtown_7Q2fK9xLm4Rt8VbN3cWzH6pJ",
    methods=("pickup", "dine_in", "delivery"),
)
WESTSIDE = DemoLocation(
    id="loc_westside",
    slug="lantern-westside",
    name="Lantern Westside Hotel Café",
    timezone="America/Los_Angeles",
    api_key="sk_demo_westside_4Hn8Tq1ZsY6eKd3MvB9rXc2L",
    methods=("pickup", "table_service", "room_service"),
)
# Hidden from the merchant listing; its subscription lapsed, so every request with its key is 403.
AIRPORT = DemoLocation(
    id="loc_airport",
    slug="lantern-airport",
    name="Lantern Airport Kiosk",
    timezone="America/Chicago",
    api_key="sk_demo_airport_9Wb5Gm2Pf8Ux4Ny7Ra1Qk6Sd",
    methods=("pickup",),
    subscribed=False,
    hidden=True,
)

LOCATIONS: list[DemoLocation] = [DOWNTOWN, WESTSIDE]
ALL_LOCATIONS: list[DemoLocation] = [DOWNTOWN, WESTSIDE, AIRPORT]

DISCOUNT_CODES: dict[str, DemoDiscount] = {
    "SAVE10": DemoDiscount("SAVE10", "percent", 10, description="10% off the order"),
    "FIVEOFF": DemoDiscount(
        "FIVEOFF", "fixed", 500, minimum=2500, description="$5.00 off orders of $25.00 or more"
    ),
    # Expired on 2024-01-01 00:00 UTC.
    "WINTER23": DemoDiscount(
        "WINTER23", "percent", 20, expires_at=1704067200.0, description="20% off (expired)"
    ),
}


def demo_keys() -> dict[str, str]:
    """Location id -> API key, for the two visible demo locations."""
    return {loc.id: loc.api_key for loc in LOCATIONS}


def location_by_key(key: str) -> DemoLocation | None:
    for loc in ALL_LOCATIONS:
        if loc.api_key == key:
            return loc
    return None


# --------------------------------------------------------------------------------------------------
# Location details (the record served by GET /locations/{id})


def _hours(spec: dict[tuple[str, ...], tuple[str, str]]) -> list[dict[str, str]]:
    out: list[dict[str, str]] = []
    for days, (open_, close) in spec.items():
        out.extend({"day": d, "open": open_, "close": close} for d in days)
    out.sort(key=lambda h: DAYS.index(h["day"]))
    return out


# Fees: rates are fractions (4 decimals), fixes minor units. The delivery fee is the
# fulfillment-method fee of "delivery". Between the two locations every cart total is
# non-zero somewhere.
LOCATION_DETAILS: dict[str, dict[str, Any]] = {
    DOWNTOWN.id: {
        "bio": "All-day café and kitchen in the Financial District. Open around the clock.",
        "address": {
            "street": "120 Lantern Street",
            "city": "New York",
            "state": "NY",
            "zipCode": "10038",
            "country": "US",
            "lat": 40.7075,
            "lng": -74.0021,
        },
        "phone": "+1 212 555 0142",
        "hours": _hours({DAYS: ("00:00", "23:59")}),
        "scheduled": True,
        "delivery_radius_miles": 3.0,
        "fees": {
            "taxRate": "0.0888",
            "enterpriseFeeRate": "0.0100",
            "enterpriseFeeFix": 0,
            "serviceFeeRate": "0",
            "serviceFeeFix": 0,
            "paymentProcessingFeeRate": "0",
            "paymentProcessingFeeFix": 0,
            "methodFees": {"delivery": ("0.0500", 299)},
        },
        "gratuity": {
            "enabled": True,
            "shouldAllowCustomTip": True,
            "tipPercentage": ["15", "18", "20"],
            "defaultTipPercentage": "18",
        },
        "order_prefix": "A",
        "statement": "LANTERN DOWNTOWN",
    },
    WESTSIDE.id: {
        "bio": "The lobby café of the Westside Hotel: breakfast, lunch, table and room service.",
        "address": {
            "street": "800 Ocean Avenue",
            "city": "Santa Monica",
            "state": "CA",
            "zipCode": "90401",
            "country": "US",
            "lat": 34.0195,
            "lng": -118.4912,
        },
        "phone": "+1 310 555 0188",
        "hours": _hours({WEEKDAYS: ("07:00", "15:00"), WEEKEND: ("08:00", "14:00")}),
        "scheduled": True,
        "delivery_radius_miles": 0.0,
        "fees": {
            "taxRate": "0.0950",
            "enterpriseFeeRate": "0",
            "enterpriseFeeFix": 0,
            "serviceFeeRate": "0.0300",
            "serviceFeeFix": 25,
            "paymentProcessingFeeRate": "0.0290",
            "paymentProcessingFeeFix": 30,
            "methodFees": {},
        },
        "gratuity": {
            "enabled": True,
            "shouldAllowCustomTip": False,
            "tipPercentage": ["10", "15", "20"],
            "defaultTipPercentage": "15",
        },
        "order_prefix": "W",
        "statement": "LANTERN WESTSIDE",
    },
    AIRPORT.id: {
        "bio": "Gate B12.",
        "address": {
            "street": "10000 W O'Hare Ave",
            "city": "Chicago",
            "state": "IL",
            "zipCode": "60666",
            "country": "US",
            "lat": 41.9742,
            "lng": -87.9073,
        },
        "phone": "+1 773 555 0100",
        "hours": _hours({DAYS: ("05:00", "22:00")}),
        "scheduled": False,
        "delivery_radius_miles": 0.0,
        "fees": {
            "taxRate": "0.1025",
            "enterpriseFeeRate": "0",
            "enterpriseFeeFix": 0,
            "serviceFeeRate": "0",
            "serviceFeeFix": 0,
            "paymentProcessingFeeRate": "0",
            "paymentProcessingFeeFix": 0,
            "methodFees": {},
        },
        "gratuity": {
            "enabled": False,
            "shouldAllowCustomTip": False,
            "tipPercentage": [],
            "defaultTipPercentage": None,
        },
        "order_prefix": "X",
        "statement": "LANTERN AIRPORT",
    },
}


# --------------------------------------------------------------------------------------------------
# Modifier groups. Option deltas are minor units; maxQuantity 0 means sold out.


@dataclass(frozen=True)
class Option:
    id: str
    name: str
    price: int = 0
    max_quantity: int = 1
    is_default: bool = False
    child_groups: tuple[str, ...] = ()


@dataclass(frozen=True)
class Group:
    id: str
    name: str
    min: int
    max: int
    options: tuple[Option, ...]
    description: str = ""


def _g(gid: str, name: str, lo: int, hi: int, *options: Option, description: str = "") -> Group:
    return Group(gid, name, lo, hi, tuple(options), description)


Opt = Option

GROUPS: list[Group] = [
    # Required single choice.
    _g(
        "grp_drink_size",
        "Size",
        1,
        1,
        Opt("opt_size_small", "Small (12 oz)"),
        Opt("opt_size_medium", "Medium (16 oz)", 50, is_default=True),
        Opt("opt_size_large", "Large (20 oz)", 100),
    ),
    _g(
        "grp_milk",
        "Milk",
        1,
        1,
        Opt("opt_milk_whole", "Whole milk", is_default=True),
        Opt("opt_milk_skim", "Skim milk"),
        Opt("opt_milk_oat", "Oat milk", 70),
        Opt("opt_milk_almond", "Almond milk (contains nuts)", 70),
        # Sold out today: an option with maxQuantity 0.
        Opt("opt_milk_soy", "Soy milk", 60, max_quantity=0),
    ),
    # Per-option quantity: 0..3 extra shots.
    _g(
        "grp_extra_shots",
        "Extra espresso shots",
        0,
        3,
        Opt("opt_shot_extra", "Extra shot", 90, max_quantity=3),
        description="Up to three",
    ),
    # Optional multi with a max, per-option quantities, one sold-out option.
    _g(
        "grp_syrups",
        "Syrups",
        0,
        3,
        Opt("opt_syrup_vanilla", "Vanilla", 60, max_quantity=2),
        Opt("opt_syrup_caramel", "Caramel", 60, max_quantity=2),
        Opt("opt_syrup_hazelnut", "Hazelnut (contains nuts)", 60, max_quantity=2),
        Opt("opt_syrup_lavender", "Lavender", 75, max_quantity=0),
        description="Pick up to 3 pumps",
    ),
    _g(
        "grp_tea_strength",
        "Strength",
        1,
        1,
        Opt("opt_tea_light", "Light"),
        Opt("opt_tea_regular", "Regular", is_default=True),
        Opt("opt_tea_strong", "Strong"),
    ),
    _g(
        "grp_sweetener",
        "Sweetener",
        0,
        2,
        Opt("opt_sweet_sugar", "Cane sugar", 0, max_quantity=2),
        Opt("opt_sweet_agave", "Agave syrup", 30, max_quantity=2),
        Opt("opt_sweet_stevia", "Stevia", 0, max_quantity=2),
    ),
    # A combo with nested child groups that count only when "Make it a combo" is chosen.
    _g(
        "grp_combo",
        "Make it a combo",
        0,
        1,
        Opt(
            "opt_combo_yes",
            "Combo: side + drink",
            450,
            child_groups=("grp_combo_side", "grp_combo_drink"),
        ),
    ),
    _g(
        "grp_combo_side",
        "Combo side",
        1,
        1,
        Opt("opt_cside_fries", "Fries", is_default=True),
        Opt("opt_cside_salad", "Side salad"),
        Opt("opt_cside_sweet", "Sweet potato fries", 100),
    ),
    _g(
        "grp_combo_drink",
        "Combo drink",
        1,
        1,
        Opt("opt_cdrink_icedtea", "Iced tea", is_default=True),
        Opt("opt_cdrink_lemonade", "Lemonade"),
        Opt("opt_cdrink_sparkling", "Sparkling water"),
        Opt("opt_cdrink_cola", "Craft cola", 50, max_quantity=0),
    ),
    _g(
        "grp_doneness",
        "Doneness",
        1,
        1,
        Opt("opt_done_mrare", "Medium rare"),
        Opt("opt_done_medium", "Medium", is_default=True),
        Opt("opt_done_well", "Well done"),
    ),
    _g(
        "grp_cheese",
        "Cheese",
        0,
        1,
        Opt("opt_cheese_cheddar", "Aged cheddar", 100),
        Opt("opt_cheese_swiss", "Swiss", 100),
        Opt("opt_cheese_blue", "Blue cheese", 150),
        Opt("opt_cheese_vegan", "Vegan cheese", 150),
    ),
    # The veggie burger's add-ons: the beef burgers' bacon would break its tag.
    _g(
        "grp_veggie_addons",
        "Add-ons",
        0,
        3,
        Opt("opt_vadd_avocado", "Avocado", 150),
        Opt("opt_vadd_egg", "Fried egg", 150),
        Opt("opt_vadd_jalapeno", "Pickled jalapeños", 50),
    ),
    _g(
        "grp_burger_addons",
        "Add-ons",
        0,
        4,
        Opt("opt_add_patty", "Extra patty", 400, max_quantity=2),
        Opt("opt_add_bacon", "Bacon", 200, max_quantity=2),
        Opt("opt_add_avocado", "Avocado", 150),
        Opt("opt_add_egg", "Fried egg", 150),
        Opt("opt_add_jalapeno", "Pickled jalapeños", 50),
    ),
    _g(
        "grp_bread",
        "Bread",
        1,
        1,
        Opt("opt_bread_sourdough", "Sourdough", is_default=True),
        Opt("opt_bread_rye", "Rye"),
        Opt("opt_bread_multigrain", "Multigrain"),
        Opt("opt_bread_gf", "Gluten-free", 150),
    ),
    _g(
        "grp_sandwich_extras",
        "Extras",
        0,
        3,
        Opt("opt_sx_cheese", "Extra cheese", 100, max_quantity=2),
        Opt("opt_sx_avocado", "Avocado", 150),
        Opt("opt_sx_bacon", "Bacon", 200),
        Opt("opt_sx_pickles", "Pickles"),
    ),
    _g(
        "grp_heat",
        "Heat level",
        1,
        1,
        Opt("opt_heat_mild", "Mild"),
        Opt("opt_heat_medium", "Medium", is_default=True),
        Opt("opt_heat_hot", "Hot"),
        Opt("opt_heat_inferno", "Inferno"),
    ),
    _g(
        "grp_salad_protein",
        "Add protein",
        0,
        1,
        Opt("opt_prot_chicken", "Grilled chicken", 400),
        Opt("opt_prot_salmon", "Salmon", 600),
        Opt("opt_prot_tofu", "Crispy tofu", 300),
        Opt("opt_prot_shrimp", "Shrimp", 550, max_quantity=0),
    ),
    # The vegan bowl's own protein: the salad's chicken, salmon and shrimp would break its tag.
    _g(
        "grp_bowl_protein",
        "Add protein",
        0,
        1,
        Opt("opt_bowl_tofu", "Crispy tofu", 300),
        Opt("opt_bowl_tempeh", "Marinated tempeh", 300),
    ),
    _g(
        "grp_bowl_base",
        "Base",
        1,
        1,
        Opt("opt_base_quinoa", "Quinoa", is_default=True),
        Opt("opt_base_rice", "Brown rice"),
        Opt("opt_base_greens", "Mixed greens"),
    ),
    # Required multi: pick 2..4 toppings, each up to twice.
    _g(
        "grp_bowl_toppings",
        "Toppings",
        2,
        4,
        Opt("opt_top_chickpeas", "Roasted chickpeas", 0, max_quantity=2),
        Opt("opt_top_avocado", "Avocado", 150, max_quantity=2),
        Opt("opt_top_edamame", "Edamame", 0, max_quantity=2),
        Opt("opt_top_almonds", "Toasted almonds (contains nuts)", 50, max_quantity=2),
        Opt("opt_top_pickled", "Pickled onions", 0, max_quantity=2),
        description="Choose 2 to 4",
    ),
    _g(
        "grp_soup_size",
        "Size",
        1,
        1,
        Opt("opt_soup_cup", "Cup", is_default=True),
        Opt("opt_soup_bowl", "Bowl", 250),
    ),
    _g(
        "grp_egg_style",
        "Eggs",
        1,
        1,
        Opt("opt_egg_scrambled", "Scrambled", is_default=True),
        Opt("opt_egg_fried", "Sunny side up"),
        Opt("opt_egg_poached", "Poached"),
        Opt("opt_egg_whites", "Egg whites", 100),
    ),
    # Exactly two sides (isFixed), the same side may be chosen twice.
    _g(
        "grp_two_sides",
        "Two sides",
        2,
        2,
        Opt("opt_side_toast", "Toast", max_quantity=2),
        Opt("opt_side_hashbrowns", "Hash browns", max_quantity=2),
        Opt("opt_side_bacon", "Bacon", 100, max_quantity=2),
        Opt("opt_side_fruit", "Fruit cup", 50, max_quantity=2),
    ),
    _g(
        "grp_bagel",
        "Bagel",
        1,
        1,
        Opt("opt_bagel_plain", "Plain", is_default=True),
        Opt("opt_bagel_everything", "Everything"),
        Opt("opt_bagel_sesame", "Sesame"),
        Opt("opt_bagel_cinnamon", "Cinnamon raisin"),
    ),
    _g(
        "grp_spread",
        "Spread",
        0,
        1,
        Opt("opt_spread_cream", "Cream cheese", 100),
        Opt("opt_spread_scallion", "Scallion cream cheese", 125),
        Opt("opt_spread_butter", "Butter"),
        Opt("opt_spread_pb", "Peanut butter (contains nuts)", 100),
    ),
    _g(
        "grp_pancake_syrup",
        "Syrup",
        1,
        1,
        Opt("opt_psyrup_maple", "Maple syrup", 100, is_default=True),
        Opt("opt_psyrup_honey", "Honey butter"),
        Opt("opt_psyrup_none", "No syrup"),
    ),
    _g(
        "grp_pancake_toppings",
        "Toppings",
        0,
        3,
        Opt("opt_ptop_blueberry", "Blueberries", 100),
        Opt("opt_ptop_banana", "Banana", 75),
        Opt("opt_ptop_choc", "Chocolate chips", 75),
        Opt("opt_ptop_pecan", "Pecans (contains nuts)", 125),
        Opt("opt_ptop_cream", "Whipped cream", 50),
    ),
    _g(
        "grp_burrito_protein",
        "Protein",
        1,
        1,
        Opt("opt_bprot_chorizo", "Chorizo", is_default=True),
        Opt("opt_bprot_bacon", "Bacon"),
        Opt("opt_bprot_beans", "Black beans"),
    ),
    _g(
        "grp_fries_size",
        "Size",
        1,
        1,
        Opt("opt_fries_regular", "Regular", is_default=True),
        Opt("opt_fries_large", "Large", 200),
    ),
    _g(
        "grp_dips",
        "Dips",
        0,
        3,
        Opt("opt_dip_ketchup", "Ketchup", 0, max_quantity=3),
        Opt("opt_dip_aioli", "Garlic aioli", 75, max_quantity=3),
        Opt("opt_dip_chipotle", "Chipotle mayo", 75, max_quantity=3),
    ),
    _g(
        "grp_gelato_size",
        "Scoops",
        1,
        1,
        Opt("opt_gelato_one", "One scoop", is_default=True),
        Opt("opt_gelato_two", "Two scoops", 200),
    ),
    _g(
        "grp_oat_toppings",
        "Toppings",
        0,
        3,
        Opt("opt_oat_berries", "Berries", 100),
        Opt("opt_oat_walnuts", "Walnuts", 75),
        Opt("opt_oat_brownsugar", "Brown sugar"),
        Opt("opt_oat_banana", "Banana", 50),
    ),
    _g(
        "grp_avotoast_add",
        "Add",
        0,
        2,
        Opt("opt_avo_egg", "Poached egg", 150),
        Opt("opt_avo_feta", "Feta", 100),
        Opt("opt_avo_chili", "Chili flakes"),
    ),
]

# --------------------------------------------------------------------------------------------------
# Products: (id, name, description, price minor units, tags, calories, modifier group ids).


@dataclass(frozen=True)
class Product:
    id: str
    name: str
    description: str
    price: int
    tags: tuple[str, ...] = ()
    calories: int | None = None
    modifier_ids: tuple[str, ...] = ()


def _p(
    pid: str,
    name: str,
    desc: str,
    price: int,
    tags: tuple[str, ...] = (),
    cal: int | None = None,
    mods: tuple[str, ...] = (),
) -> Product:
    return Product(pid, name, desc, price, tags, cal, mods)


COFFEE_MODS = ("grp_drink_size", "grp_milk", "grp_extra_shots", "grp_syrups")

PRODUCTS: list[Product] = [
    # Breakfast
    _p(
        "prd_pancakes",
        "Buttermilk Pancakes",
        "Three fluffy pancakes",
        950,
        ("vegetarian",),
        620,
        ("grp_pancake_syrup", "grp_pancake_toppings"),
    ),
    _p(
        "prd_avocado_toast",
        "Avocado Toast",
        "Smashed avocado on sourdough",
        1000,
        ("vegetarian",),
        410,
        ("grp_avotoast_add",),
    ),
    _p(
        "prd_breakfast_burrito",
        "Breakfast Burrito",
        "Eggs, potatoes, salsa roja",
        1100,
        ("spicy",),
        780,
        ("grp_burrito_protein", "grp_heat"),
    ),
    _p(
        "prd_eggs_your_way",
        "Eggs Your Way",
        "Two eggs with two sides",
        850,
        ("gluten-free",),
        520,
        ("grp_egg_style", "grp_two_sides"),
    ),
    _p(
        "prd_oatmeal",
        "Steel-Cut Oatmeal",
        "With oat milk",
        650,
        ("vegan",),
        300,
        ("grp_oat_toppings",),
    ),
    _p(
        "prd_parfait",
        "Granola Parfait",
        "Yogurt, honey granola, berries",
        700,
        ("vegetarian", "contains-nuts"),
        350,
    ),
    _p(
        "prd_bagel",
        "Bagel & Schmear",
        "Hand-rolled bagel",
        450,
        (),
        380,
        ("grp_bagel", "grp_spread"),
    ),
    _p(
        "prd_salmon_bagel",
        "Smoked Salmon Bagel",
        "Lox, capers, red onion",
        1250,
        (),
        540,
        ("grp_bagel",),
    ),
    _p("prd_croissant", "Butter Croissant", "Baked this morning", 375, ("vegetarian",), 270),
    _p(
        "prd_almond_croissant",
        "Almond Croissant",
        "Frangipane, toasted almonds",
        450,
        ("vegetarian", "contains-nuts"),
        420,
    ),
    _p("prd_muffin", "Blueberry Muffin", "", 350, ("vegetarian",), 390),
    _p("prd_cinnamon_roll", "Cinnamon Roll", "Cream cheese glaze", 425, ("vegetarian",), 510),
    # Lunch
    _p(
        "prd_turkey_club",
        "Turkey Club",
        "Roast turkey, bacon, tomato",
        1200,
        (),
        690,
        ("grp_bread", "grp_sandwich_extras", "grp_combo"),
    ),
    _p(
        "prd_grilled_cheese",
        "Grilled Cheese",
        "Three cheeses on sourdough",
        900,
        ("vegetarian",),
        640,
        ("grp_bread", "grp_combo"),
    ),
    _p(
        "prd_spicy_chicken",
        "Spicy Chicken Sandwich",
        "Buttermilk fried chicken, hot honey",
        1250,
        ("spicy",),
        820,
        ("grp_heat", "grp_combo"),
    ),
    _p(
        "prd_falafel_wrap",
        "Falafel Wrap",
        "Tahini, pickled vegetables",
        1100,
        ("vegan", "contains-sesame"),
        610,
        ("grp_combo",),
    ),
    _p("prd_blt", "BLT", "Thick-cut bacon", 1050, (), 590, ("grp_bread", "grp_combo")),
    _p(
        "prd_reuben",
        "Reuben",
        "Corned beef, sauerkraut, Swiss",
        1300,
        (),
        760,
        ("grp_sandwich_extras", "grp_combo"),
    ),
    _p(
        "prd_caesar",
        "Caesar Salad",
        "Romaine, parmesan, croutons",
        1000,
        (),  # the protein add-ons (chicken, salmon, shrimp) make no tag true
        420,
        ("grp_salad_protein",),
    ),
    _p(
        "prd_power_bowl",
        "Quinoa Power Bowl",
        "Build your own bowl",
        1200,
        ("vegan", "gluten-free"),
        560,
        ("grp_bowl_base", "grp_bowl_toppings", "grp_bowl_protein"),
    ),
    _p(
        "prd_peanut_noodles",
        "Thai Peanut Noodles",
        "Rice noodles, peanut sauce",
        1250,
        ("vegan", "contains-nuts", "spicy"),
        700,
        ("grp_heat",),
    ),
    _p(
        "prd_tomato_soup", "Tomato Soup", "Roasted tomato", 600, ("vegan",), 210, ("grp_soup_size",)
    ),
    _p("prd_chicken_soup", "Chicken Noodle Soup", "", 650, (), 240, ("grp_soup_size",)),
    _p(
        "prd_classic_burger",
        "Classic Burger",
        "Grass-fed beef, brioche bun",
        1350,
        (),
        850,
        ("grp_doneness", "grp_cheese", "grp_burger_addons", "grp_combo"),
    ),
    _p(
        "prd_veggie_burger",
        "Veggie Burger",
        "Black bean patty",
        1250,
        ("vegetarian",),
        640,
        ("grp_cheese", "grp_veggie_addons", "grp_combo"),
    ),
    _p(
        "prd_smash_burger",
        "Double Smash Burger",
        "Two patties, special sauce",
        1550,
        (),
        1120,
        ("grp_doneness", "grp_cheese", "grp_combo"),
    ),
    # All day: coffee
    _p("prd_espresso", "Espresso", "Double shot", 300, ("vegan",), 5, ("grp_extra_shots",)),
    _p(
        "prd_americano", "Americano", "", 350, ("vegan",), 10, ("grp_drink_size", "grp_extra_shots")
    ),
    _p("prd_latte", "Caffè Latte", "Espresso and steamed milk", 475, (), 190, COFFEE_MODS),
    _p("prd_cappuccino", "Cappuccino", "", 450, (), 130, COFFEE_MODS),
    _p("prd_flat_white", "Flat White", "", 475, (), 170, ("grp_milk", "grp_extra_shots")),
    _p("prd_mocha", "Mocha", "With dark chocolate", 525, (), 290, COFFEE_MODS),
    _p("prd_cold_brew", "Cold Brew", "Steeped 18 hours", 450, ("vegan",), 15, ("grp_drink_size",)),
    _p(
        "prd_chai",
        "Chai Latte",
        "Spiced black tea",
        475,
        ("vegetarian",),
        240,
        ("grp_drink_size", "grp_milk"),
    ),
    # All day: tea and more
    _p(
        "prd_matcha",
        "Matcha Latte",
        "Ceremonial grade",
        525,
        ("vegetarian",),
        180,
        ("grp_drink_size", "grp_milk", "grp_sweetener"),
    ),
    _p(
        "prd_hot_chocolate",
        "Hot Chocolate",
        "",
        400,
        ("vegetarian",),
        320,
        ("grp_drink_size", "grp_milk"),
    ),
    _p(
        "prd_earl_grey",
        "Earl Grey Tea",
        "",
        325,
        ("vegan",),
        0,
        ("grp_tea_strength", "grp_sweetener"),
    ),
    _p("prd_orange_juice", "Fresh Orange Juice", "Squeezed to order", 500, ("vegan",), 110),
    _p("prd_iced_tea", "Iced Tea", "", 350, ("vegan",), 70, ("grp_drink_size", "grp_sweetener")),
    _p("prd_sparkling", "Sparkling Water", "", 250, ("vegan",), 0),
    _p("prd_lemonade", "Lemonade", "", 400, ("vegan",), 150, ("grp_drink_size",)),
    # All day: snacks
    _p("prd_hummus", "Hummus & Pita", "", 750, ("vegan", "contains-sesame"), 450),
    _p("prd_fries", "Fries", "Sea salt", 450, ("vegan",), 410, ("grp_fries_size", "grp_dips")),
    _p(
        "prd_sweet_fries",
        "Sweet Potato Fries",
        "",
        550,
        ("vegan",),
        430,
        ("grp_fries_size", "grp_dips"),
    ),
    _p("prd_mixed_nuts", "Spiced Mixed Nuts", "", 400, ("vegan", "contains-nuts", "spicy"), 300),
    _p("prd_kale_chips", "Kale Chips", "", 450, ("vegan",), 150),
    _p(
        "prd_wings",
        "Buffalo Wings",
        "Six wings, blue cheese dip",
        1150,
        ("spicy",),
        720,
        ("grp_heat", "grp_dips"),
    ),
    # All day: desserts
    _p("prd_cookie", "Chocolate Chip Cookie", "", 275, ("vegetarian",), 220),
    _p("prd_brownie", "Walnut Brownie", "", 350, ("vegetarian", "contains-nuts"), 380),
    _p("prd_cheesecake", "Cheesecake Slice", "New York style", 650, ("vegetarian",), 480),
    _p("prd_banana_bread", "Vegan Banana Bread", "", 375, ("vegan",), 330),
    _p(
        "prd_gelato",
        "Pistachio Gelato",
        "",
        500,
        ("vegetarian", "contains-nuts"),
        260,
        ("grp_gelato_size",),
    ),
    _p("prd_apple_pie", "Apple Pie", "Warm, with cinnamon", 550, ("vegetarian",), 410),
    # Westside room-service and hotel specials
    _p("prd_club_tray", "Room Service Club Tray", "Club sandwich, fries, fruit", 2400, (), 1150),
    _p("prd_fruit_plate", "Seasonal Fruit Plate", "", 1100, ("vegan", "gluten-free"), 180),
    _p(
        "prd_cheese_board",
        "Cheese Board",
        "Three cheeses, nuts, crackers",
        1800,
        ("contains-nuts",),
        690,
    ),
    _p(
        "prd_sparkling_wine", "Sparkling Wine (split)", "21+; ID checked at delivery", 1400, (), 160
    ),
    _p("prd_kids_pasta", "Kids Butter Pasta", "", 800, ("vegetarian",), 450),
    _p(
        "prd_acai_bowl",
        "Açaí Bowl",
        "Granola, banana, berries",
        1150,
        ("vegan", "contains-nuts"),
        480,
    ),
    _p(
        "prd_shakshuka",
        "Shakshuka",
        "Baked eggs, tomato, harissa",
        1300,
        ("vegetarian", "spicy"),
        520,
    ),
    _p(
        "prd_steak_frites",
        "Steak Frites",
        "Hanger steak, herb butter",
        2600,
        ("gluten-free",),
        980,
        ("grp_doneness",),
    ),
]

# Sold out when the database is first seeded (tests and /demo/sold-out change this at run time).
INITIAL_SOLD_OUT: tuple[str, ...] = ("prd_cinnamon_roll", "prd_smash_burger", "prd_kale_chips")

# --------------------------------------------------------------------------------------------------
# Menus: per location, each with a window of local time (None = all day) and days.


@dataclass(frozen=True)
class Menu:
    id: str
    name: str
    location_id: str
    start: str | None  # "HH:MM" local; None = all day
    end: str | None
    categories: tuple[tuple[str, str, tuple[str, ...]], ...]  # (category id, name, product ids)
    days: tuple[str, ...] = DAYS


BREAKFAST: tuple[str, ...] = (
    "prd_pancakes",
    "prd_avocado_toast",
    "prd_breakfast_burrito",
    "prd_eggs_your_way",
    "prd_oatmeal",
    "prd_parfait",
    "prd_bagel",
    "prd_salmon_bagel",
)
BAKERY = ("prd_croissant", "prd_almond_croissant", "prd_muffin", "prd_cinnamon_roll")
SANDWICHES: tuple[str, ...] = (
    "prd_turkey_club",
    "prd_grilled_cheese",
    "prd_spicy_chicken",
    "prd_falafel_wrap",
    "prd_blt",
    "prd_reuben",
)
SALADS = (
    "prd_caesar",
    "prd_power_bowl",
    "prd_peanut_noodles",
    "prd_tomato_soup",
    "prd_chicken_soup",
)
BURGERS = ("prd_classic_burger", "prd_veggie_burger", "prd_smash_burger")
COFFEE: tuple[str, ...] = (
    "prd_espresso",
    "prd_americano",
    "prd_latte",
    "prd_cappuccino",
    "prd_flat_white",
    "prd_mocha",
    "prd_cold_brew",
    "prd_chai",
)
TEA: tuple[str, ...] = (
    "prd_matcha",
    "prd_hot_chocolate",
    "prd_earl_grey",
    "prd_orange_juice",
    "prd_iced_tea",
    "prd_sparkling",
    "prd_lemonade",
)
SNACKS = (
    "prd_hummus",
    "prd_fries",
    "prd_sweet_fries",
    "prd_mixed_nuts",
    "prd_kale_chips",
    "prd_wings",
)
DESSERTS: tuple[str, ...] = (
    "prd_cookie",
    "prd_brownie",
    "prd_cheesecake",
    "prd_banana_bread",
    "prd_gelato",
    "prd_apple_pie",
)

MENUS: list[Menu] = [
    Menu(
        "menu_dt_breakfast",
        "Breakfast",
        DOWNTOWN.id,
        "06:00",
        "11:00",
        (("cat_dt_breakfast", "Breakfast plates", BREAKFAST), ("cat_dt_bakery", "Bakery", BAKERY)),
    ),
    Menu(
        "menu_dt_lunch",
        "Lunch",
        DOWNTOWN.id,
        "11:00",
        "16:00",
        (
            ("cat_dt_sandwiches", "Sandwiches", SANDWICHES),
            ("cat_dt_salads", "Salads, bowls & soups", SALADS),
            ("cat_dt_burgers", "Burgers", BURGERS),
        ),
    ),
    Menu(
        "menu_dt_allday",
        "All day",
        DOWNTOWN.id,
        None,
        None,
        (
            ("cat_dt_coffee", "Coffee & espresso", COFFEE),
            ("cat_dt_tea", "Tea, juice & more", TEA),
            ("cat_dt_snacks", "Snacks", SNACKS),
            ("cat_dt_desserts", "Desserts", DESSERTS),
        ),
    ),
    Menu(
        "menu_ws_breakfast",
        "Breakfast",
        WESTSIDE.id,
        "07:00",
        "11:00",
        (
            (
                "cat_ws_breakfast",
                "Breakfast",
                (
                    "prd_pancakes",
                    "prd_avocado_toast",
                    "prd_eggs_your_way",
                    "prd_shakshuka",
                    "prd_acai_bowl",
                    "prd_croissant",
                    "prd_muffin",
                ),
            ),
        ),
    ),
    Menu(
        "menu_ws_lunch",
        "Lunch",
        WESTSIDE.id,
        "11:00",
        "15:00",
        (
            (
                "cat_ws_lunch",
                "Lunch",
                (
                    "prd_turkey_club",
                    "prd_caesar",
                    "prd_power_bowl",
                    "prd_classic_burger",
                    "prd_steak_frites",
                    "prd_kids_pasta",
                    "prd_tomato_soup",
                ),
            ),
        ),
    ),
    Menu(
        "menu_ws_allday",
        "All day",
        WESTSIDE.id,
        None,
        None,
        (
            (
                "cat_ws_drinks",
                "Drinks",
                (
                    "prd_latte",
                    "prd_cappuccino",
                    "prd_americano",
                    "prd_matcha",
                    "prd_earl_grey",
                    "prd_orange_juice",
                    "prd_sparkling",
                    "prd_sparkling_wine",
                ),
            ),
            (
                "cat_ws_room",
                "Room service favourites",
                (
                    "prd_club_tray",
                    "prd_fruit_plate",
                    "prd_cheese_board",
                    "prd_fries",
                    "prd_cookie",
                    "prd_cheesecake",
                ),
            ),
        ),
    ),
]

POPULAR: dict[str, tuple[str, ...]] = {
    DOWNTOWN.id: (
        "prd_latte",
        "prd_classic_burger",
        "prd_avocado_toast",
        "prd_cookie",
        "prd_cold_brew",
    ),
    WESTSIDE.id: ("prd_latte", "prd_club_tray", "prd_pancakes", "prd_power_bowl"),
}
CROSS_SELL: dict[str, tuple[str, ...]] = {
    DOWNTOWN.id: ("prd_cookie", "prd_lemonade", "prd_fries", "prd_brownie", "prd_cold_brew"),
    WESTSIDE.id: ("prd_cookie", "prd_orange_juice", "prd_fries", "prd_cheesecake"),
}


# --------------------------------------------------------------------------------------------------
# The large generated menu for benchmarks.

_ADJ = (
    "Smoky",
    "Golden",
    "Crispy",
    "Maple",
    "Garden",
    "Harbor",
    "Lemon",
    "Spiced",
    "Roasted",
    "Wild",
)
_NOUN = (
    "Sandwich",
    "Salad",
    "Bowl",
    "Taco",
    "Wrap",
    "Soup",
    "Flatbread",
    "Tart",
    "Latte",
    "Skewer",
)
_TAGS = ("vegan", "vegetarian", "spicy", "contains-nuts", "gluten-free")


@dataclass
class Catalog:
    """The demo catalog as plain data (what the seeder writes to SQLite)."""

    products: list[Product] = field(default_factory=list)
    groups: list[Group] = field(default_factory=list)
    menus: list[Menu] = field(default_factory=list)


def extra_menu(n: int, location_id: str = DOWNTOWN.id) -> tuple[list[Product], Menu]:
    """A deterministic menu of n generated products in categories of 100 (for benchmarks)."""
    rng = random.Random(n)
    products: list[Product] = []
    cats: list[tuple[str, str, tuple[str, ...]]] = []
    for i in range(n):
        name = f"{rng.choice(_ADJ)} {rng.choice(_NOUN)} No. {i + 1}"
        mods = ("grp_drink_size",) if i % 10 == 0 else ()
        tags = (rng.choice(_TAGS),) if i % 3 == 0 else ()
        price = rng.randrange(100, 3000, 5)
        products.append(
            _p(f"xp_{i + 1:05d}", name, "Generated for benchmarks", price, tags, None, mods)
        )
    for c in range(0, n, 100):
        ids = tuple(p.id for p in products[c : c + 100])
        cats.append((f"cat_xp_{c // 100 + 1:03d}", f"Big category {c // 100 + 1}", ids))
    menu = Menu("menu_xp_big", "Everything (generated)", location_id, None, None, tuple(cats))
    return products, menu


def build_catalog(extra_products: int = 0) -> Catalog:
    cat = Catalog(products=list(PRODUCTS), groups=list(GROUPS), menus=list(MENUS))
    if extra_products > 0:
        products, menu = extra_menu(extra_products)
        cat.products.extend(products)
        cat.menus.append(menu)
    return cat
