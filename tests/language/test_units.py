"""Units after a number named canonically by pint (apps.language.units)."""

from __future__ import annotations

from apps.language.units import canonical_units, unit_name


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
