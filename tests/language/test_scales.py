"""Superlatives and where a row stands on their scale (apps/language/scales.py), on the real parse."""

from __future__ import annotations

import datetime as dt
from decimal import Decimal

import pytest

from apps.language.analysis import analyse
from apps.language.scales import Superlative, price_of, size_of, superlative

DAY = dt.date(2027, 3, 10)


def asked(text: str, *, asks_price: bool = False) -> Superlative | None:
    return superlative(analyse(text, base_date=DAY), asks_price=asks_price)


@pytest.mark.parametrize(
    ("text", "scale", "direction", "noun"),
    [
        ("what's your cheapest groom?", "price", "low", "groom"),
        ("how much is the most expensive haircut", "price", "high", "haircut"),
        ("which is the least expensive room?", "price", "low", "room"),
        ("whats the biggest unit you have", "size", "high", "unit"),
        ("price of your smallest pizza?", "size", "low", "pizza"),
        ("cheapest wash for a car", "price", "low", "wash"),
    ],
)
def test_a_superlative_names_its_scale_its_end_and_the_noun_ranked(text, scale, direction, noun) -> None:
    found = asked(text)
    assert found is not None
    assert (found.scale, found.direction, found.noun) == (scale, direction, noun)


def test_a_bare_least_or_most_ranks_prices_only_in_a_question_about_paying() -> None:
    assert asked("what's the least I can pay for storage?") is None
    found = asked("what's the least I can pay for storage?", asks_price=True)
    assert found is not None and (found.scale, found.direction, found.noun) == ("price", "low", None)


@pytest.mark.parametrize(
    "text",
    ["what's your most popular service?", "what's the best time to visit?", "how much is a large latte?"],
)
def test_a_superlative_off_the_table_or_none_is_not_ranked(text) -> None:
    assert asked(text) is None


def test_a_rows_price_is_its_first_amount() -> None:
    assert price_of(analyse("Deluxe Wash, Car: $20 (SUV $26).", base_date=DAY)) == Decimal("20")
    assert price_of(analyse("Free vacuums with every wash.", base_date=DAY)) is None


def test_a_rows_size_is_its_size_word_before_any_number() -> None:
    def size(text: str):
        return size_of(analyse(text, base_date=DAY))

    assert size("Large: £10.00 (150 balls)") > size("Medium: £7.50 (100 balls)") > size("Small (50)")
    # A size word outranks a bare number; with no size word, the largest number that is no price
    # and no date: the 10-bed dorm is bigger than the 6-bed one, whatever they cost.
    assert size("10-bed mixed dorm, low season: €19.") > size("6-bed female dorm, low season: €24.")
    assert size("Bunk in the 4-bed dorm from 3 May: €30.")[1] == Decimal("4")
    assert size("Gift vouchers: €25.") is None
