"""Units after a number named canonically by pint (apps.language.units)."""

from __future__ import annotations

from apps.language.units import canonical_measures, canonical_units, measures_time, unit_name


def test_abbreviations_and_plurals_have_one_name() -> None:
    assert {unit_name(w) for w in ("min", "mins", "minute", "minutes")} == {"minute"}
    assert {unit_name(w) for w in ("hr", "hrs", "hours")} == {"hour"}
    assert unit_name("km") == "kilometer"
    assert unit_name("lbs") == "pound"


def test_words_that_are_not_units_here_are_left_alone() -> None:
    assert unit_name("players") is None
    assert unit_name("pm") is None  # picometre to pint; a time of day after a number
    assert unit_name("in") is None  # "2 in 1"
    assert canonical_units("open 9 am to 5 pm, 2 in 1 deal") == "open 9 am to 5 pm, 2 in 1 deal"


def test_only_a_word_after_a_number_is_read_as_a_unit() -> None:
    assert canonical_units("A 90-minute hot stone massage, 2hrs parking") == (
        "A 90 minute hot stone massage, 2 hour parking"
    )
    assert canonical_units("Open 24/7, min spend $10") == "Open 24/7, min spend $10"


def test_lengths_of_time_meet_as_one_number_of_one_unit() -> None:
    # Written out, abbreviated, in another unit: one length of time.
    assert {
        canonical_measures(t) for t in ("One-hour class", "60-min class", "1 hr class", "one hour class")
    } == {"60 minute class"}
    assert canonical_measures("Half-hour swim") == "30 minute swim"
    assert canonical_measures("a 1.5 hours session, twenty-five minutes break") == (
        "a 90 minute session, 25 minute break"
    )
    assert canonical_measures("2 weeks notice") == "14 day notice"


def test_a_unit_after_a_or_an_is_one_of_it_unless_it_is_a_rate() -> None:
    # "how much is an hour?" asks for the 60-minute row; "£12 an hour" is a rate, "twice a day" and
    # "7 days a week" say how often.
    assert canonical_measures("how much is an hour for two kids?") == "how much is 60 minute for two kids?"
    assert canonical_measures("is a half hour enough?") == "is a 30 minute enough?"
    assert canonical_measures("is one hour enough") == "is 60 minute enough"
    for rate in ("£12 an hour", "twice an hour", "a day pass", "what does a week cost?"):
        assert canonical_measures(rate) == rate
    assert canonical_measures("open 7 days a week") == "open 7 day a week"


def test_measures_that_are_no_fixed_length_or_no_number_are_left_alone() -> None:
    assert canonical_measures("3 months membership") == "3 month membership"  # no fixed length
    assert canonical_measures("Half-day hire") == "Half-day hire"  # a kind of hire, not 12 hours
    assert canonical_measures("a one-off fee, one to one coaching") == "a one-off fee, one to one coaching"
    assert canonical_measures("12-inch pizza") == "12 inch pizza"


def test_units_of_time() -> None:
    assert measures_time("days") and measures_time("hrs") and not measures_time("km")
