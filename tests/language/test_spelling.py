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


BIKE_SHOP = [
    "Riverside Cycles services road, gravel and e-bikes. A basic service is $65; wheel truing $25 each.",
    "Reservations for the workshop by phone. Drop-off from 8 AM, pick up after 4 PM.",
    "Free Wi-Fi in the cafe corner. Check in for group rides at 7:45 on Sundays.",
    "We stock derailleurs, cassettes and tubeless tyres. Trade-ins welcome.",
]


@pytest.fixture(scope="module")
def bike_shop() -> Speller:
    return Speller.from_texts(BIKE_SHOP)


def test_vocabulary_from_texts(bike_shop: Speller) -> None:
    assert bike_shop.counts["e-bikes"] == 1 and bike_shop.counts["bikes"] == 1
    assert {"trade-ins", "drop-off", "wi-fi", "derailleurs"} <= set(bike_shop.counts)
    assert "in" not in bike_shop.counts  # fewer than 3 letters
    assert ("check", "in") in bike_shop.pairs and ("pick", "up") in bike_shop.pairs
    assert ("gravel", "and") in bike_shop.pairs and ("and", "e") in bike_shop.pairs


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("can I make a reservaton", "can I make a reservation"),  # the singular of "reservations"
        ("do you stock tubless tyres", "do you stock tubeless tyres"),
        ("my DERAILEURS are noisy", "my DERAILLEURS are noisy"),
        ("is the casette included", "is the cassette included"),
        ("what time is checkin", "what time is check in"),  # the business writes two words
        ("when is dropoff", "when is drop-off"),
        ("do you take tradeins?", "do you take trade-ins?"),
        ("Ebikes serviced?", "E-bikes serviced?"),
    ],
)
def test_corrections_from_texts(bike_shop: Speller, text: str, expected: str) -> None:
    assert bike_shop.correct(text).text == expected


def test_pairs_the_business_writes_apart_stay_apart(bike_shop: Speller) -> None:
    assert bike_shop.correct("can I pick up at 5").text == "can I pick up at 5"
    assert bike_shop.correct("what time is check in").text == "what time is check in"
    assert Speller.from_texts(["Check-in from 3 PM."]).correct("check in time?").text == "check-in time?"


def test_every_vocabulary_word_is_left_alone(bike_shop: Speller) -> None:
    for word in bike_shop.counts:
        for form in (word, word.upper(), word.capitalize()):
            text = f"tell me about {form} please"
            assert bike_shop.correct(text).text == text, form
