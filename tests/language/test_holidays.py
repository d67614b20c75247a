"""Holidays by name are dates: the `holidays` library's names and days, found among a text's tokens
(apps.language.holiday_names, through analyse)."""

from __future__ import annotations

import datetime as dt

import pytest

from apps.language.analysis import analyse
from apps.language.holiday_names import holiday_on, mentions_holiday

D = dt.date


def days(text: str, base: dt.date, region: str | None = None) -> list[tuple[dt.date | None, dt.date | None]]:
    return [(m.start, m.end) for m in analyse(text, base_date=base, region=region).dates]


@pytest.mark.parametrize(
    ("text", "base", "day"),
    [
        # Moving feasts and fixed days, each for the year it is next ahead.
        ("Is the salon open on Thanksgiving?", D(2027, 10, 2), D(2027, 11, 25)),
        ("Will the pharmacy be open Christmas Eve?", D(2026, 12, 1), D(2026, 12, 24)),
        ("Do you deliver on Easter Sunday?", D(2027, 3, 1), D(2027, 3, 28)),
        ("Gym hours on Easter Monday please", D(2027, 3, 1), D(2027, 3, 29)),
        ("Open New Year's Day from noon.", D(2026, 12, 28), D(2027, 1, 1)),
        ("Is the garage open on memorial day?", D(2026, 5, 1), D(2026, 5, 25)),
        # Past this year's: next year's.
        ("Closed on Christmas Day.", D(2026, 12, 27), D(2027, 12, 25)),
    ],
)
def test_a_named_holiday_is_its_day(text: str, base: dt.date, day: dt.date) -> None:
    assert days(text, base) == [(day, day)]


def test_british_spelling_is_the_regions_holiday() -> None:
    # A US business (the default region): "labour day" is its Labor Day, not New Zealand's.
    assert days("what time does the taproom close on labour day", D(2026, 8, 20)) == [
        (D(2026, 9, 7), D(2026, 9, 7))
    ]
    # The same words for a New Zealand business are New Zealand's Labour Day (October).
    assert days("are you open labour day?", D(2026, 8, 20), region="NZ") == [
        (D(2026, 10, 26), D(2026, 10, 26))
    ]


def test_the_region_decides_which_day() -> None:
    assert holiday_on("Labour Day", D(2026, 1, 1), "NZ") == D(2026, 10, 26)
    assert holiday_on("Labor Day", D(2026, 1, 1), "US") == D(2026, 9, 7)
    assert holiday_on("Boxing Day", D(2026, 1, 1), "US") == D(2026, 12, 26)  # from another region
    assert holiday_on("Fish Day", D(2026, 1, 1), "US") is None


@pytest.mark.parametrize(
    "text",
    [
        "We value independence and fair labor.",  # ordinary words, not the holidays they name
        "The memorial garden is behind the chapel.",
        "Christmas hampers are $45.",  # a holiday naming a kind of thing
        "Book your Easter photo session now.",
    ],
)
def test_words_that_are_not_a_holiday_date(text: str) -> None:
    assert days(text, D(2026, 3, 1)) == []


def test_a_holiday_wins_over_the_weekday_in_its_name() -> None:
    # "Easter Monday" is one day, not every Monday nor the next one.
    (mention,) = analyse("Open Easter Monday 10-4", base_date=D(2026, 3, 1)).dates
    assert (mention.start, mention.end, mention.recurring) == (D(2026, 4, 6), D(2026, 4, 6), False)


def test_a_holiday_inside_a_longer_date_phrase_is_left_to_it() -> None:
    assert days("Closed December 24 to January 2", D(2026, 12, 1)) == [(D(2026, 12, 24), D(2027, 1, 2))]


def test_cheap_gate_for_texts_without_a_date() -> None:
    assert mentions_holiday("closed on thanksgiving day", year=2026)
    assert not mentions_holiday("closed on Sundays", year=2026)


def test_a_question_about_a_holiday_is_about_that_day() -> None:
    analysis = analyse("Are you open on Thanksgiving?", base_date=D(2026, 11, 3))
    assert analysis.day == D(2026, 11, 26)
    assert analysis.weekdays_about() == {3}


@pytest.mark.parametrize(
    "text",
    ["are ye open on stephens day?", "Open St. Stephen's Day?", "closed on saint stephen's day"],
)
def test_a_saints_day_by_any_spelling_of_its_title_or_none(text: str) -> None:
    # The library names it "Saint Stephen's Day" (Ireland); people write "St", "St." or no title.
    assert days(text, D(2026, 11, 18)) == [(D(2026, 12, 26), D(2026, 12, 26))]


def test_a_saints_name_alone_is_no_holiday() -> None:
    assert days("Ask for Mr Stephens at the desk.", D(2026, 11, 18)) == []
