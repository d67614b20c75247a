"""Dates, ranges and weekdays found in varied text and resolved against a base date and zone."""

from __future__ import annotations

import datetime as dt

import pytest

from apps.language.analysis import analyse, local_date
from apps.language.dates import weekday_number

D = dt.date
# A Tuesday.
BASE = D(2026, 12, 1)


def dates(text: str, base: dt.date | dt.datetime = BASE, tz: str | None = None):
    return analyse(text, base_date=base, tz=tz).dates


@pytest.mark.parametrize(
    ("text", "start", "end"),
    [
        ("Workshop closed March 3-7 while we refit the bike stands.", D(2027, 3, 3), D(2027, 3, 7)),
        (
            "Surgery closed from Dec 24 to Jan 2; emergencies call the hospital.",
            D(2026, 12, 24),
            D(2027, 1, 2),
        ),
        ("Holiday hours: 24 December - 2 January 2027", D(2026, 12, 24), D(2027, 1, 2)),
        (
            "The pool is shut between 10 February and 14 February for cleaning.",
            D(2027, 2, 10),
            D(2027, 2, 14),
        ),
        ("closed 12/24-12/26 for the holidays", D(2026, 12, 24), D(2026, 12, 26)),
        ("Lessons paused 3 - 9 August, back on the 10th.", D(2027, 8, 3), D(2027, 8, 9)),
        # The parser heads "23" with "inclusive"; a number beside a month is still that month's day.
        ("The yard is shut from 5 to 9 October 2027 inclusive.", D(2027, 10, 5), D(2027, 10, 9)),
        # A weekday and a comma before each end's date name that date's day, at both ends.
        (
            "The studio is closed Tuesday, March 9 through Friday, March 12, 2027.",
            D(2027, 3, 9),
            D(2027, 3, 12),
        ),
        # A weekday before each end's day number, the month written once at the end.
        ("EASTER BREAK: no classes Monday 10 - Sunday 23 May.", D(2027, 5, 10), D(2027, 5, 23)),
        ("Summer school Mon 18 \u2013 Fri 22 January, 9.30am-2.30pm daily", D(2027, 1, 18), D(2027, 1, 22)),
        ("The shop is shut from Tue 2 to Sat 6 March for stocktaking.", D(2027, 3, 2), D(2027, 3, 6)),
    ],
)
def test_a_range_stays_a_range(text: str, start: dt.date, end: dt.date) -> None:
    (mention,) = dates(text)
    assert (mention.kind, mention.start, mention.end) == ("range", start, end)
    assert mention.covers(start + (end - start) / 2) and not mention.covers(end + dt.timedelta(days=1))


def test_an_explicit_year_is_kept_even_in_the_past() -> None:
    (mention,) = dates("In March 2026 the garage moved to Mill Lane.")
    assert (mention.kind, mention.start, mention.end, mention.explicit_year) == (
        "month",
        D(2026, 3, 1),
        D(2026, 3, 31),
        True,
    )
    (without_year,) = dates("Our spring service offer runs in March.")
    assert without_year.start == D(2027, 3, 1) and not without_year.explicit_year


@pytest.mark.parametrize(
    ("text", "day"),
    [
        ("Are you open next Monday?", D(2026, 12, 7)),
        ("Can I drop the dog off this Saturday", D(2026, 12, 5)),
        ("what about tomorrow", D(2026, 12, 2)),
        ("Do you close early on December 29?", D(2026, 12, 29)),
        ("may I book a lesson for the 3rd of March?", D(2027, 3, 3)),
        # A weekday counted from another day, a holiday or a date.
        ("are you open the friday after thanksgiving?", D(2027, 11, 26)),
        ("can I collect the Saturday before 24 December?", D(2026, 12, 19)),
    ],
)
def test_the_day_a_question_is_about(text: str, day: dt.date) -> None:
    assert analyse(text, base_date=BASE).day == day


def test_a_day_counted_from_a_holiday_recurs_with_it() -> None:
    """ "The Saturday before Mother's Day" moves with the holiday each year, so it bounds no window (a
    fact about it is read per year, like the holiday itself); one counted from a date is that date."""
    (holiday,) = dates("open 7am-8pm on the Saturday before Mother's Day")
    assert holiday.holiday and holiday.start == D(2027, 5, 8)
    (dated,) = dates("can I collect the Saturday before 24 December?")
    assert not dated.holiday and dated.start == D(2026, 12, 19)


def test_a_month_alone_is_the_whole_month() -> None:
    (mention,) = dates("Do you run pottery camps in July?")
    assert (mention.kind, mention.start, mention.end) == ("month", D(2027, 7, 1), D(2027, 7, 31))


def test_periods_with_a_modifier_are_the_whole_period() -> None:
    (weekend,) = dates("open this weekend?")
    assert (weekend.start, weekend.end) == (D(2026, 12, 5), D(2026, 12, 6))
    (week,) = dates("we're closed next week for stocktaking")
    assert (week.start, week.end) == (D(2026, 12, 7), D(2026, 12, 13))


def test_relative_dates_resolve_in_the_business_time_zone() -> None:
    # 23:30 UTC on Tuesday 1 December is already Wednesday morning in Auckland.
    moment = dt.datetime(2026, 12, 1, 23, 30, tzinfo=dt.UTC)
    assert local_date(moment, "Pacific/Auckland") == D(2026, 12, 2)
    assert analyse("Are you open tomorrow?", base_date=moment, tz="Pacific/Auckland").day == D(2026, 12, 3)
    assert analyse("Are you open tomorrow?", base_date=moment, tz="America/Los_Angeles").day == D(2026, 12, 2)
    assert analyse("Are you open tomorrow?", base_date=moment, tz="UTC").day == D(2026, 12, 2)


def test_recurring_weekdays_are_not_dates() -> None:
    (plural,) = dates("and on saturdays?")
    assert plural.recurring and plural.weekdays == (5,) and plural.start is None
    (span,) = dates("Open Mon-Fri 8:30 to 6")
    assert span.recurring and span.weekdays == (0, 1, 2, 3, 4)
    (every,) = dates("Closed every Monday except bank holidays")
    assert every.recurring and every.weekdays == (0,)
    assert every.covers(D(2026, 12, 7)) and not every.covers(D(2026, 12, 8))
    assert analyse("and on saturdays?", base_date=BASE).day is None


def test_numbers_and_words_that_are_not_dates() -> None:
    assert dates("We're open 9-5 and fit 300 customers.") == ()
    assert dates("May I bring my own shampoo?") == ()
    assert dates("Join the march through town for charity") == ()
    assert dates("Large pizzas are 16 inches, 3 for $30.") == ()


@pytest.mark.parametrize(
    ("text", "day"),
    [
        ("any tables free for the evening of 14 may?", D(2027, 5, 14)),
        ("is the yard open may 4?", D(2027, 5, 4)),
        ("can we come in on march 3rd", D(2027, 3, 3)),
    ],
)
def test_may_and_march_typed_in_lower_case_beside_a_day_are_months(text: str, day: dt.date) -> None:
    (mention,) = dates(text)
    assert (mention.start, mention.end) == (day, day)


def test_may_and_march_typed_in_lower_case_as_verbs_are_not_months() -> None:
    assert dates("how much for 2 may i ask") == ()
    assert dates("we march 3 miles every sunday")[0].kind == "weekdays"
    assert dates("2 may be enough for us") == ()


def test_abbreviations_typed_in_lower_case_beside_a_day_are_dates() -> None:
    (closed,) = dates("we're closed 24 dec to 2 jan")
    assert (closed.kind, closed.start, closed.end) == ("range", D(2026, 12, 24), D(2027, 1, 2))
    (day,) = dates("back to normal on the 19th aug")
    assert (day.start, day.end) == (D(2027, 8, 19), D(2027, 8, 19))


def test_abbreviations_typed_in_lower_case_as_words_are_not_dates() -> None:
    assert dates("we sat 3 people at the big table") == ()
    assert dates("a 12 sat nav for the car") == ()
    assert dates("the sun is out") == ()
    assert dates("all of aug we open late") == ()  # a month alone in lower case: not read


def test_open_ended_ranges() -> None:
    (until,) = dates("The café is closed until Jan 5 for repairs.")
    assert (until.start, until.end) == (None, D(2027, 1, 5))
    (since,) = dates("New prices from March 1.")
    assert (since.start, since.end) == (D(2027, 3, 1), None)


def test_the_day_and_weekdays_a_question_is_about() -> None:
    weekend = analyse("open this weekend?", base_date=BASE)
    assert weekend.day_about() == D(2026, 12, 5) and weekend.weekdays_about() == {5, 6}
    july = analyse("any camps in July?", base_date=BASE)
    assert july.day_about() == D(2027, 7, 1) and july.weekdays_about() == set()  # a month: no weekdays
    assert analyse("were you open last Monday?", base_date=BASE).day_about() is None  # in the past
    assert analyse("are you open on 3 March 2029?", base_date=BASE).day_about() is None  # over a year ahead
    assert analyse("do you open on Sundays", base_date=BASE).day_about() is None  # recurring


def test_a_long_run_of_date_words_is_not_a_date() -> None:
    assert dates("Monday " * 150) == ()
    assert dates("Dec 24 to " * 90 + "Jan 2") == ()
    # A long list of weekdays is still read, item by item, when it is written as a list.
    listed = dates("Open Mon, Tue, Wed, Thu, Fri and Sat")
    assert [m.weekdays for m in listed] == [(0,), (1,), (2,), (3,), (4,), (5,)]


@pytest.mark.parametrize(
    ("text", "days"),
    [
        # A bare day number in a list takes the list's month, before or after it.
        (
            "The studio is shut on December 24, 25 and 31.",
            [D(2026, 12, 24), D(2026, 12, 25), D(2026, 12, 31)],
        ),
        ("No deliveries on 24, 26 and 31 December.", [D(2026, 12, 24), D(2026, 12, 26), D(2026, 12, 31)]),
        ("Closed Jan 3-5 and 9 for stocktaking.", [D(2027, 1, 3), D(2027, 1, 9)]),
    ],
)
def test_a_list_of_day_numbers_shares_its_month(text: str, days: list[dt.date]) -> None:
    starts = [m.start for m in dates(text)]
    assert starts == days


def test_a_number_that_counts_something_is_not_a_day_of_the_list() -> None:
    assert [m.start for m in dates("On March 3 and 10 volunteers will help at the market.")] == [
        D(2027, 3, 3)
    ]


def test_a_weekday_and_a_comma_before_a_date_name_that_date() -> None:
    (mention,) = dates("Closed from Thursday, 24 December to Sunday 27 December.")
    assert (mention.kind, mention.start, mention.end) == ("range", D(2026, 12, 24), D(2026, 12, 27))
    assert [m.kind for m in dates("Open Monday, Wednesday and Friday.")] == ["day", "day", "day"]


def test_a_date_that_names_the_day_it_is_said_is_that_day() -> None:
    (mention,) = dates("New prices from 1 December: a wash is $12.")
    assert mention.start == BASE
    (named,) = dates("Closed on 1 December 2027.")
    assert named.start == D(2027, 12, 1)


def test_a_range_in_progress_on_the_base_day_started_this_year() -> None:
    """ "March 1-31" said on March 15 is this month, not next year's March."""
    (mention,) = dates("Half-price frames March 1-31 at the framing shop.", base=D(2027, 3, 15))
    assert (mention.start, mention.end) == (D(2027, 3, 1), D(2027, 3, 31))


def test_a_year_written_once_at_the_end_of_a_list_is_every_items() -> None:
    first, second = dates("Open days at the nursery: 3-4 December and 10\u201311 December 2027.")
    assert (first.start, first.end) == (D(2027, 12, 3), D(2027, 12, 4))  # not this year's
    assert (second.start, second.end) == (D(2027, 12, 10), D(2027, 12, 11))


def test_a_dash_typeset_as_an_en_dash_is_a_range_too() -> None:
    (mention,) = dates("Kiln maintenance 14\u201318 June, no firings.")
    assert (mention.start, mention.end) == (D(2027, 6, 14), D(2027, 6, 18))


def test_weekdays_then_an_end_date_are_two_phrases() -> None:
    weekdays, end = dates("Open late Monday to Thursday until 17 December.")
    assert weekdays.recurring and weekdays.weekdays == (0, 1, 2, 3)
    assert (end.start, end.end) == (None, D(2026, 12, 17))


def test_role_phrases_of_several_words_open_a_range() -> None:
    (start,) = dates("As of 1 February 2027 the pool opens at 6am.")
    (end,) = dates("Winter timetable up to and including 28 February.")
    assert (start.start, start.end) == (D(2027, 2, 1), None)
    assert (end.start, end.end) == (None, D(2027, 2, 28))


def test_an_idiom_written_like_a_numeric_date_is_not_one() -> None:
    assert dates("Breakdown recovery 24/7, call any time.") == ()
    assert [m.start for m in dates("Collection on 24/12 only.")] == [D(2026, 12, 24)]


@pytest.mark.parametrize(
    ("word", "number"),
    [("Monday", 0), ("tues", 1), ("Tue", 1), ("weds", 2), ("Thurs", 3), ("thu", 3), ("FRI", 4), ("Sat.", 5),
     ("sundays", 6), ("Sundays", 6), ("mons", 0), ("month", None), ("sat down", None), ("weekend", None),
     ("", None)],
)  # fmt: skip
def test_weekday_number(word: str, number: int | None) -> None:
    assert weekday_number(word) == number


def test_weekdays_with_day_numbers_in_a_list_share_the_lists_month() -> None:
    """ "Friday 16 and Saturday 17 January": the first day number, four words from the month, is a
    day of it too (it was dropped, and "Friday" alone read as the next Friday)."""
    first, second = dates("The range will be closed on Friday 16 and Saturday 17 January 2027.")
    assert (first.start, second.start) == (D(2027, 1, 16), D(2027, 1, 17))
    thursday, _ = dates("We open late at 11am on Thursday 7 and Friday 8 January 2027.")
    assert thursday.start == D(2027, 1, 7)  # not the 7th of this month
    # A weekday's times are no days of a list: "Thursday 4-10pm" stays a weekday and times.
    assert [m.start for m in dates("From March 1 we open Thursday 4-10pm and Friday 4-11pm.")][:1] == [
        D(2027, 3, 1)
    ]


@pytest.mark.parametrize(
    ("text", "start"),
    [
        # Told in the past by someone: the date lies behind the day it was said.
        ("we switched suppliers and stopped charging for it as of nov 27.", D(2026, 11, 27)),
        ("We closed on October 3 for a refit.", D(2026, 10, 3)),
        ("We've been open since March.", D(2026, 3, 1)),
        # A notice's headline with its "are" left out announces; a question asks ahead.
        ("Workshop closed March 3-7 while we refit the bike stands.", D(2027, 3, 3)),
        ("We will be closed on October 3.", D(2027, 10, 3)),
        ("have you got a room for the night of 20 may", D(2027, 5, 20)),
    ],
)
def test_a_date_told_in_the_past_lies_behind_the_day_it_was_said(text: str, start: dt.date) -> None:
    assert dates(text)[0].start == start


def test_a_range_across_the_new_year_read_against_the_first_day_of_the_calendar():
    """Some readers take a text for its words and pass date.min as its day; a range that crosses the
    new year ("28 December - 3 January") then had no year before it to fall back to, and raised."""
    [mention] = analyse("closed 28 December - 3 January", base_date=dt.date.min).dates
    assert (mention.start.month, mention.end.month) == (12, 1)


@pytest.mark.parametrize(
    ("text", "kind", "start", "end"),
    [
        # The part of a month before it says which day; the role word before the part still counts.
        ("solo walks are €25 now since start of november", "range", D(2026, 11, 1), None),
        ("from the beginning of March we open at 8", "range", D(2027, 3, 1), None),
        ("the offer runs until the end of June", "range", None, D(2027, 6, 30)),
        ("closed at the end of june for a week", "day", D(2027, 6, 30), D(2027, 6, 30)),
        ("the middle of January", "day", D(2027, 1, 15), D(2027, 1, 15)),
    ],
)
def test_the_part_of_a_month_is_a_day_of_it(text: str, kind: str, start, end) -> None:
    (mention,) = dates(text)
    assert (mention.kind, mention.start, mention.end) == (kind, start, end)


@pytest.mark.parametrize(
    ("text", "base", "start"),
    [
        # A start with no year is the nearer of its two days: begun seven weeks ago, not in ten months.
        ("SUMMER HOURS from 1 October: weekdays 7am to 5pm", D(2027, 11, 18), D(2027, 10, 1)),
        ("new prices from 1 December", D(2027, 11, 18), D(2027, 12, 1)),
        ("open from March 3", D(2026, 12, 1), D(2027, 3, 3)),
        ("From Mon 3 Jan: back to normal", D(2027, 12, 1), D(2028, 1, 3)),
    ],
)
def test_a_start_with_no_year_is_the_nearer_of_its_two_days(text: str, base: dt.date, start: dt.date) -> None:
    assert dates(text, base)[0].start == start


@pytest.mark.parametrize("base", [dt.date.min, dt.date.max])
@pytest.mark.parametrize(
    "text",
    [
        "Did you run the same deal last year?",
        "Are prices going up next year?",
        "Is it cheaper than last month?",
    ],
)
def test_a_relative_date_off_the_calendar_is_no_date_not_an_error(text: str, base: dt.date) -> None:
    # The answerer reads some questions against the first day of the calendar; a visitor's "last
    # year" from there is year 0, which must not end the turn with an error.
    found = analyse(text, base_date=base).dates
    assert all(m.start is None or dt.date.min <= m.start <= dt.date.max for m in found)


def test_a_weekday_abbreviation_in_lower_case_is_a_day_unless_it_is_a_word() -> None:
    """ "tues" and "thurs" are no other word, typed in lower case as often as not; "sat", "sun" and
    "wed" are words ("we sat down") and stay so."""
    assert [m.weekdays for m in dates("r u open tues?")] == [(1,)]
    assert dates("we sat down in the sun") == ()


def test_two_date_phrases_run_together_by_the_are_read_apart() -> None:
    # "1 May 2026 the weekend" reads as no one date; each phrase is a date of its own.
    found = analyse("From 1 May 2026 the weekend price goes up to $18.", base_date=dt.date(2026, 4, 20)).dates
    assert [(m.text, m.start) for m in found] == [("1 May 2026", dt.date(2026, 5, 1)), ("the weekend", None)]
    assert found[1].weekdays == (5, 6)
