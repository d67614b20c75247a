"""The numbers a statement holds for ("5-8 players", "within 10 miles", "10+ people") against the
number a question gives ("for 6 of us", "12 miles away"): apps/language/conditions.py."""

from __future__ import annotations

from datetime import date

import pytest

from apps.language.analysis import analyse
from apps.language.conditions import Bound, bounds, fit

ON = date(2026, 6, 10)


def _bounds(text: str) -> list[Bound]:
    return bounds(analyse(text, base_date=ON))


@pytest.mark.parametrize(
    ("text", "low", "high", "unit"),
    [
        ("Pricing (per person), 5-8 players, Weekend: $31.", 5, 8, "player"),
        ("It's £8 for 10-15 miles.", 10, 15, "mile"),
        ("Corporate packages for up to 24 people, from $650", None, 24, "people"),
        ("Free delivery within 20 km", None, 20, "kilometer"),
        ("Groups of 10+ need to book ahead", 10, None, None),
        ("Tables of 12 or more: over 12 guests pay a deposit", 12, None, "guest"),
        ("Max 8 students per class", None, 8, "student"),
        ("Classes run for 10 to 12 weeks", 10, 12, "week"),
    ],
)
def test_a_statement_bounds_a_number(
    text: str, low: float | None, high: float | None, unit: str | None
) -> None:
    found = _bounds(text)
    assert any(b.low == low and b.high == high and b.unit == unit for b in found), found


@pytest.mark.parametrize(
    "text",
    [
        "Open 9am-5pm, Sat 10am - 4pm",  # clock times
        "Gift cards from $25 to $200",  # amounts of money
        "Closed December 24-26",  # dates
        "Call (212) 736-5000",  # a phone number (the region is the US by default)
    ],
)
def test_times_names_amounts_and_dates_are_no_conditions(text: str) -> None:
    assert _bounds(text) == []


@pytest.mark.parametrize(
    ("question", "statement", "expected"),
    [
        ("how much for 6 of us?", "5-8 players: $27", 1),
        ("how much for 6 of us?", "2 players: $38", -1),
        ("how much for 6 of us?", "3-4 players: $32", -1),
        ("price for a group of 20 people", "packages for up to 24 people from $650", 1),
        ("price for a group of 30 people", "packages for up to 24 people from $650", -1),
        ("can you deliver 12 miles away?", "£5 within 10 miles", -1),
        ("can you deliver 12 miles away?", "£8 for 10-15 miles", 1),
        ("can you deliver 12 miles away?", "delivery within 25 km", 1),  # 12 miles is 19.3 km
        ("can you deliver 12 miles away?", "3-4 players: $32", 0),  # miles are no count of players
        ("table for 6 people?", "all three rooms", 0),  # people and rooms: two kinds of thing
        ("how much for 12 of us?", "Kids club (ages 7-12): $35", 0),  # ages are no head count
        ("how much for 6 of us?", "Asylum 13 is our scariest room", 0),  # the room's own number
        ("how much for 6 of us?", "Stays of 10+ nights: 15% off", 0),  # nights are no head count
        ("a 45 minute lesson", "Lessons of 30-60 minutes", 1),
        ("a 2 hour lesson", "Lessons of 30-60 minutes", -1),  # 120 minutes
    ],
)
def test_a_question_number_meets_or_fails_a_condition(question: str, statement: str, expected: int) -> None:
    assert fit(_bounds(question), _bounds(statement)) == expected


@pytest.mark.parametrize(
    ("text", "unit"),
    [
        ("and for a full hour?", "hour"),
        ("how much is a lesson for an hour?", "hour"),
        ("hire it for a day", "day"),
    ],
)
def test_an_article_after_a_preposition_is_one_of_a_unit(text: str, unit: str) -> None:
    assert Bound(1.0, 1.0, unit, True) in _bounds(text)


@pytest.mark.parametrize(
    "text", ["Room hire is £8 an hour.", "It's €18 a day for any size.", "a day to remember"]
)
def test_an_article_after_an_amount_means_per_and_names_no_number(text: str) -> None:
    assert not [b for b in _bounds(text) if b.low == 1.0]


def test_a_full_hour_meets_a_row_of_sixty_minutes_not_thirty() -> None:
    asked = _bounds("and for a full hour?")
    assert fit(asked, _bounds("Guitar lesson, 60 min: £40.")) == 1
    assert fit(asked, _bounds("Guitar lesson, 30 min: £22.")) == -1
