"""Tests of apps.retrieval.kinds."""

from __future__ import annotations

import re

import pytest

from apps.retrieval.kinds import KINDS, kind_of_fact, kinds_of_fact


@pytest.mark.parametrize(
    ("message", "kind"),
    [
        # prices, including questions that name a product (the subject) or another topic
        ("How much is the sourdough?", "prices"),
        ("how much for a dozen croissants", "prices"),
        ("What does a wedding cake cost?", "prices"),
        ("What are your rates for a double room?", "prices"),
        ("Is it expensive?", "prices"),
        ("What's the pricing for the digital menu?", "prices"),
        ("How much is delivery?", "prices"),  # delivery is the subject, the price is what is asked
        ("Is there a fee to park my bike at the station?", "prices"),
        ("Do you charge for wifi?", "prices"),
        # opening hours
        ("what time do you shut on sunday", "opening hours"),
        ("Are you open on Saturdays?", "opening hours"),
        ("How late are you open on a weekday this month?", "opening hours"),
        ("When do you close?", "opening hours"),
        ("What are your holiday hours?", "opening hours"),
        ("Open 24/7?", "opening hours"),
        ("Are you closed on bank holidays?", "opening hours"),
        # payment methods
        ("Do they take Amex?", "payment methods"),
        ("Can I pay by card?", "payment methods"),
        ("do you accept apple pay", "payment methods"),
        ("Cash only?", "payment methods"),
        ("Can I pay with a gift card?", "payment methods"),
        # delivery
        ("Do you deliver to Leith?", "delivery"),
        ("Is delivery free?", "delivery"),
        ("Do you deliver on Sundays?", "delivery"),  # the day is a detail of the delivery question
        ("Can I order for pick-up?", "delivery"),
        ("Do you ship abroad?", "delivery"),
        # location
        ("Where are you?", "location"),
        ("What's your address?", "location"),
        ("Is there parking nearby?", "location"),
        ("Can I get directions?", "location"),
        # booking
        ("Can I book a table for four?", "booking"),
        ("I'd like to make an appointment", "booking"),
        ("Do I need a reservation?", "booking"),
        # contact
        ("What's your phone number?", "contact"),
        ("How can I get in touch?", "contact"),
        ("What is your e-mail?", "contact"),
        # insurance
        ("Do you take my insurance?", "insurance"),
        ("Are you covered by Medicare?", "insurance"),
        # cancellation and refunds
        ("Can I get a refund?", "cancellation and refunds"),
        ("How do I cancel my order?", "cancellation and refunds"),
        ("What's your returns policy?", "cancellation and refunds"),
        # dietary
        ("Do they offer halal food?", "dietary"),  # "offer" the verb is no offer
        ("Is the brownie gluten-free?", "dietary"),
        ("Any vegan options?", "dietary"),
        ("Does it contain nuts?", "dietary"),
        # facilities
        ("Can I bring my dog?", "facilities"),
        ("Are children welcome?", "facilities"),
        ("Is there wi-fi?", "facilities"),
        ("Do you have WiFi", "facilities"),
        ("Is it wheelchair accessible?", "facilities"),
        # offers: what is given for a while, whatever it is given on
        ("any specials on at the moment?", "offers"),
        ("Do you have any deals for students?", "offers"),
        ("Is there a promo code?", "offers"),
        ("are the boots on sale", "offers"),
        ("Is there a discount for pensioners?", "prices"),  # what is asked is a price
        ("are there any offers on?", "offers"),
        # notice / lead time
        ("How much notice do you need for a wedding cake?", "notice"),
        ("How far in advance should I order?", "notice"),
        ("Can I order a cake at short notice?", "notice"),
        ("What's the lead time on custom orders?", "notice"),
    ],
)
def test_kind_of_fact(message: str, kind: str) -> None:
    assert kind_of_fact(message) == kind


@pytest.mark.parametrize(
    "message",
    ["Do you make wedding cakes?", "Do you sell gift cards?", "hello", "", "Tell me about the sourdough"],
)
def test_no_kind(message: str) -> None:
    assert kind_of_fact(message) is None
    assert kinds_of_fact(message) == []


def test_word_boundaries() -> None:
    # "open" inside "opener", "rate" inside "separate" or "pay" inside "payload" do not count.
    assert kind_of_fact("Do you sell a bottle opener?") is None
    assert kind_of_fact("Do you sell separate bread rolls?") is None
    assert kind_of_fact("Is the pastry flaky?") is None
    assert kind_of_fact("PRICES PLEASE") == "prices"


@pytest.mark.parametrize(
    ("message", "kind"),
    [
        # The table lists a word once; its inflections match by lemma.
        ("Are you delivering on Sunday?", "delivery"),
        ("Cancelling my booking, do I get refunded?", "cancellation and refunds"),
        ("Is smoking allowed on the terrace?", "facilities"),
        ("what are you charging for a trim", "prices"),
        ("Do you take cheques?", "payment methods"),
        ("Are walk-ins ok?", "booking"),
        ("Do you cater for coeliacs?", "dietary"),  # the table says "coeliac"
        ("Where can I see the timetables?", "location"),
        ("Are the timetables online?", "opening hours"),
    ],
)
def test_inflections_match_by_lemma(message: str, kind: str) -> None:
    assert kind_of_fact(message) == kind


def test_other_words_stay_apart() -> None:
    # A lemma joins forms of one word only: "check" is not "cheque", "later" asks no opening time.
    assert kind_of_fact("Can I check my coat?") is None
    assert kind_of_fact("Can I come a bit later?") is None


def test_all_kinds_listed_in_priority_order() -> None:
    assert kinds_of_fact("How much notice do I need to book and pay for delivery?") == [
        "notice",
        "prices",
        "payment methods",
        "delivery",
        "booking",
    ]


def test_table_is_clean() -> None:
    assert list(KINDS)[:2] == ["notice", "prices"]
    assert set(KINDS) == {
        "notice",
        "prices",
        "offers",
        "cancellation and refunds",
        "payment methods",
        "insurance",
        "dietary",
        "delivery",
        "booking",
        "contact",
        "facilities",
        "location",
        "opening hours",
    }
    for kind, triggers in KINDS.items():
        assert triggers, kind
        for trigger in triggers:
            assert trigger == trigger.lower().strip(), trigger
            assert re.fullmatch(r"[a-z0-9 ]+", trigger), trigger
        # each trigger, said on its own, is recognised as (at least) its kind
        for trigger in triggers:
            assert kind in kinds_of_fact(trigger), (kind, trigger)
