"""Ages in questions and minimum ages in statements (apps.language.ages)."""

from __future__ import annotations

import pytest

from apps.language.ages import MinimumAge, age_ranges, minimum_age, stated_age, stated_age_words


@pytest.mark.parametrize(
    ("question", "age"),
    [
        ("im 16, can I do the climbing course?", 16),
        ("Can my 9 year old join the junior club?", 9),
        ("my 7yo wants a party here", 7),
        ("She's 15 - is that ok for the escape room?", 15),
        ("We are 6 of us, any discount?", None),  # a group, not an age
        ("Are you open at 17:30?", None),
        ("Can 12 people book the room?", None),
        ("is there an OAP discount? my grandad is 81", 81),  # said of a person
        ("my daughter's 6, can she join?", 6),
        ("my house is 3 miles away", None),  # a distance
        ("my order is 12, is it ready?", None),  # said of a thing
    ],
)
def test_the_age_a_question_gives(question: str, age: int | None) -> None:
    assert stated_age(question) == age


@pytest.mark.parametrize(
    ("statement", "rule"),
    [
        ("Must be 18+ with valid photo ID.", MinimumAge(18, False)),
        ("Riders must be 12 or over.", MinimumAge(12, False)),
        ("Ages 5 and up welcome.", MinimumAge(5, False)),
        ("Minimum age 16 for the ropes course.", MinimumAge(16, False)),
        ("Players 14+ unless with a paying adult.", MinimumAge(14, True)),
        ("Groups of 2-8 players, $25+ per head.", None),
        ("Open 24/7.", None),
        # "at least" is an age after "be" or with "old"; a licence held for 2 years is a duration.
        ("You must be at least 18 to hire.", MinimumAge(18, False)),
        ("Riders at least 12 years old may ride alone.", MinimumAge(12, False)),
        ("Full UK or EU driving licence held for at least 2 years.", None),
    ],
)
def test_the_minimum_age_a_statement_sets(statement: str, rule: MinimumAge | None) -> None:
    assert minimum_age(statement) == rule


@pytest.mark.parametrize(
    ("statement", "ranges"),
    [
        ("Toddler Room (2\u20133 yrs), Full day: £72", [(2, 3)]),  # an en dash
        ("Junior sailing, ages 8 to 14: $60", [(8, 14)]),
        ("Concession (over 60s, under 16s): £7.50", [(60, 120), (0, 15)]),
        ("Students and over-65s get £5 off every session.", [(65, 120)]),
        ("Under 5s eat free", [(0, 4)]),
        ("Free delivery over 50 miles", []),  # a distance, not an age
        ("Groups of 5-8 players: $27", []),  # a group size
        ("Open 9-5, Monday to Friday", []),
    ],
)
def test_the_ages_a_row_is_for(statement: str, ranges: list[tuple[int, int]]) -> None:
    assert age_ranges(statement) == ranges


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ("which days can my 9 year old come?", ["year", "old"]),
        ("a class for a 10-yr-old", ["yr", "old"]),
        ("my nan is 72, any discount?", []),  # a person, not words of an age phrase
        ("how much for 3 hours?", []),
    ],
)
def test_the_words_of_a_stated_age(text, words):
    assert stated_age_words(text) == words
