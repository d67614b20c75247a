"""The business-vocabulary speller."""

from __future__ import annotations

import pytest

from apps.language.spelling import Speller, max_edits

VOCABULARY = (
    "sourdough rye loaf delivery wi-fi check-in reservation gift card appointment groomer grooming "
    "shampoo nail trim deluxe wash vacuum puncture derailleur"
).split()


@pytest.fixture(scope="module")
def speller() -> Speller:
    return Speller(VOCABULARY)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("how much is the sourdogh", "how much is the sourdough"),
        ("Can I make a resevation?", "Can I make a reservation?"),
        ("is there wifi", "is there wi-fi"),
        ("is there wi fi", "is there wi-fi"),
        ("what time is checkin", "what time is check-in"),
        ("do you sell giftcard", "do you sell gift card"),
        ("Is the SHAMPO included?", "Is the SHAMPOO included?"),
        ("can you fix a punctuer", "can you fix a puncture"),
        ("my derailur is bent", "my derailleur is bent"),
        ("do you delver to Leeds", "do you deliver to Leeds"),
    ],
)
def test_corrections_towards_the_vocabulary(speller: Speller, text: str, expected: str) -> None:
    correction = speller.correct(text)
    assert correction.text == expected and correction.changed


@pytest.mark.parametrize(
    "text",
    [
        "opening hours please",  # an inflection of a real word
        "Mike is my groomer",  # a name, short
        "Do you take AMEX?",  # an acronym
        "email sourdogh@example.com or see www.sourdogh.com",
        "don't, won't, can't",
        "the trimmed nails",  # inflections of business words
        "every day",  # two real words are not joined
    ],
)
def test_left_alone(speller: Speller, text: str) -> None:
    assert speller.correct(text).text == text
    assert not speller.correct(text).changed


def test_a_closer_real_word_blocks_a_business_word() -> None:
    speller = Speller(["puncture", "crumpets"])
    # "pacture" is two edits from "puncture" but one from "picture" and "pasture": the writer may
    # well have meant one of those, so nothing is corrected.
    assert speller.correct("a pacture of it").text == "a pacture of it"
    assert speller.correct("any crumbles left").text == "any crumbles left"  # a real word
    assert speller.correct("any crumpts left").text == "any crumpets left"


def test_budget_by_length() -> None:
    assert [max_edits(n) for n in (3, 4, 5, 6, 9)] == [0, 1, 1, 2, 2]
    assert Speller(["tyre"]).correct("tyr").text == "tyr"  # too short to correct
