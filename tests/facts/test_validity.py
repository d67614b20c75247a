"""Which dates of a sentence bound a fact (find_validity, on the language layer's dates): written for
kinds of business the scenarios do not cover, in varied styles."""

from __future__ import annotations

import datetime as dt

import pytest

from apps.facts.extraction.base import ExtractionContext
from apps.facts.extraction.builtin import BuiltinExtractor
from apps.facts.extraction.builtin_dates import dated_items, find_validity

D = dt.date
LEARNED = D(2026, 11, 10)  # a Tuesday


@pytest.mark.parametrize(
    ("text", "valid_from", "valid_to"),
    [
        # a range, however it is typeset, and its year written once at the end
        ("Late opening till 9pm every night December 1-23, 2026.", D(2026, 12, 1), D(2026, 12, 23)),
        ("Farm shop open 10am\u20132pm, 27\u201330 December.", D(2026, 12, 27), D(2026, 12, 30)),
        # a list of days or ranges: from its first day to its last
        ("The surgery is closed December 24 and 25.", D(2026, 12, 24), D(2026, 12, 25)),
        ("Wreath workshops on 5-6 December and 12-13 December 2026.", D(2026, 12, 5), D(2026, 12, 13)),
        # open ends, in several words
        ("Until Jan 3 the ice rink opens at 10.", None, D(2027, 1, 3)),
        ("Effective from 1 January 2027, lessons cost £42.", D(2027, 1, 1), None),
        ("Open Mon-Fri until 18 December, then closed for the holidays.", None, D(2026, 12, 18)),
        # a month alone after "in" or "during", or with its year
        ("We close in August for the harvest.", D(2027, 8, 1), D(2027, 8, 31)),
        ("Evening classes run January 2027 only.", D(2027, 1, 1), D(2027, 1, 31)),
        # this week, this Saturday
        ("This week only: 2 for 1 on tyre fitting.", D(2026, 11, 10), D(2026, 11, 15)),
        ("Closed this Saturday for a family wedding.", D(2026, 11, 14), D(2026, 11, 14)),
        # a deadline to act on a price: the last day it is offered
        ("Christmas gift voucher for a 60-min facial $85, buy by December 20.", None, D(2026, 12, 20)),
        ("Enrol by 7 January for the early-bird rate of $210.", None, D(2027, 1, 7)),
        ("Book before 30 Nov and get 15% off any group lesson.", None, D(2026, 11, 29)),
        ("Turkeys €13.50/kg, order by Dec 18.", None, D(2026, 12, 18)),
    ],
)
def test_dates_that_bound_the_fact(text: str, valid_from: dt.date | None, valid_to: dt.date | None) -> None:
    validity = find_validity(text, LEARNED)
    assert (validity.valid_from, validity.valid_to) == (valid_from, valid_to)
    assert validity.spans  # the dates are masked for the other readers


@pytest.mark.parametrize(
    "text",
    [
        "Summer hours (May\u2013Sep): 8am\u20138pm daily.",  # a season recurs
        "From October through March we close at 5pm.",
        "Our prices went up in April.",  # when something happened
        "we do evening surgeries now till 8, started in september",  # the same, sharing its subject
        "Order by 20 December for Christmas delivery.",  # a deadline that ends no price
        "All party cakes booked by Friday come with free candles.",  # a passive's agent: no deadline
        "Open Saturday 9-1 for collections.",  # a weekday, weekly
        "Emergency plumber available 24/7.",
        "Closed on Sundays and bank holidays.",
    ],
)
def test_dates_that_bound_nothing(text: str) -> None:
    validity = find_validity(text, LEARNED)
    assert not validity.temporary, validity


def test_a_closure_sharing_its_clauses_subject_still_bounds_the_fact() -> None:
    # "closed" is also an adjective: it states how things are, not when something happened.
    validity = find_validity("We are open daily, closed in August.", LEARNED)
    assert (validity.valid_from, validity.valid_to) == (D(2027, 8, 1), D(2027, 8, 31))


def test_dates_far_apart_do_not_bound_the_days_between() -> None:
    """ "December 25 and January 1" is not the week between: the fact keeps its first window."""
    validity = find_validity("The launderette is closed December 25 and January 1.", LEARNED)
    assert (validity.valid_from, validity.valid_to) == (D(2026, 12, 25), D(2026, 12, 25))


def test_a_sentence_listing_dated_hours_gives_one_fact_per_day() -> None:
    text = (
        "Bank holiday opening: Friday 3 April 8am\u20131pm, Sunday 5 April CLOSED, Monday 6 April 10am-2pm."
    )
    context = ExtractionContext(business_name="Elm Vets", source_kind="website", learned_on=D(2026, 3, 20))
    got = sorted(
        (c.valid_from, c.valid_to, c.value)
        for c in BuiltinExtractor().extract(text, context)
        if c.aspect.startswith("hours")
    )
    assert got == [
        (D(2026, 4, 3), D(2026, 4, 3), "8 AM-1 PM"),
        (D(2026, 4, 5), D(2026, 4, 5), "closed"),
        (D(2026, 4, 6), D(2026, 4, 6), "10 AM-2 PM"),
    ]


def test_a_list_of_dates_saying_one_thing_stays_one_sentence() -> None:
    text = "Closed 24, 25 and 26 December, back on the 27th."
    assert dated_items(text, LEARNED) == [text]


def test_a_comma_in_brackets_cuts_no_item() -> None:
    """The aside in brackets belongs to its sentence: cut there, the offer had lost its deadline and
    its discount to a second "sentence" starting "or any Sunday to Friday)"."""
    text = "Book any 2027 off-peak date (October to April, or any Sunday to Friday) by 28 February and get 10% off."
    assert dated_items(text, LEARNED) == [text]
    assert find_validity(text, LEARNED).valid_to == D(2027, 2, 28)
